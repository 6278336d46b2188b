//! A small plain-text PGN-like writer for match games (ICCS moves with the referee's
//! suffix letters). Kept in one file so the full PGN of `jieqi_core::record` can
//! replace it.

use std::fmt::Write;

use super::game::GameRecord;

/// Extra tags for one game.
#[derive(Clone, Debug, Default)]
pub struct PgnTags {
    /// The event name.
    pub event: String,
    /// The round (game number).
    pub round: u32,
    /// The time control, as text.
    pub time_control: String,
    /// The date, `YYYY.MM.DD`.
    pub date: String,
}

/// Quotes a tag value: backslashes and double quotes escaped.
fn quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Writes one game as a PGN-like record, ending with a blank line.
pub fn write_game(rec: &GameRecord, tags: &PgnTags) -> String {
    let mut out = String::new();
    let result = rec.outcome.result_str();
    let tag_list = [
        ("Game", "Jieqi".to_string()),
        ("Event", tags.event.clone()),
        ("Date", tags.date.clone()),
        ("Round", tags.round.to_string()),
        ("Red", rec.red.clone()),
        ("Black", rec.black.clone()),
        ("Result", result.to_string()),
        ("FEN", rec.start_fen.clone()),
        ("Deal", rec.deal.to_string()),
        ("TimeControl", tags.time_control.clone()),
        ("PlyCount", rec.moves.len().to_string()),
        ("Termination", rec.outcome.termination()),
    ];
    for (k, v) in tag_list {
        let _ = writeln!(out, "[{k} \"{}\"]", quote(&v));
    }
    out.push('\n');
    let mut line = String::new();
    let mut tokens = Vec::new();
    for (i, m) in rec.moves.iter().enumerate() {
        if i % 2 == 0 {
            tokens.push(format!("{}.", i / 2 + 1));
        }
        tokens.push(m.clone());
    }
    tokens.push(result.to_string());
    for t in tokens {
        if !line.is_empty() && line.len() + 1 + t.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&t);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

/// Today's date (UTC) as `YYYY.MM.DD`.
pub fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}.{m:02}.{d:02}")
}

/// The proleptic Gregorian date of a day count since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::outcome::{Outcome, Reason};
    use jieqi_core::{Color, Deal, START_FEN};

    #[test]
    fn writes_tags_moves_and_result() {
        let rec = GameRecord {
            red: "a \"quoted\" engine".into(),
            black: "b".into(),
            deal: Deal::standard(),
            start_fen: START_FEN.into(),
            moves: vec!["h2h9Cn".into(), "i9h9r".into(), "b2b9C".into()],
            outcome: Outcome::win(Color::Black, Reason::Time),
            faulty: Some(Color::Red),
        };
        let tags = PgnTags {
            event: "test".into(),
            round: 3,
            time_control: "10+0.1".into(),
            date: "2026.11.30".into(),
        };
        let s = write_game(&rec, &tags);
        assert!(s.starts_with("[Game \"Jieqi\"]\n"));
        assert!(s.contains("[Red \"a \\\"quoted\\\" engine\"]\n"));
        assert!(s.contains("[Result \"0-1\"]\n"));
        assert!(s.contains(&format!("[FEN \"{START_FEN}\"]\n")));
        assert!(s.contains("[Deal \"RNBAABNRCCPPPPP/rnbaabnrccppppp\"]\n"));
        assert!(s.contains("[Termination \"time forfeit\"]\n"));
        assert!(s.ends_with("\n\n1. h2h9Cn i9h9r 2. b2b9C 0-1\n\n"), "{s}");
    }

    #[test]
    fn long_games_wrap() {
        let rec = GameRecord {
            red: "r".into(),
            black: "b".into(),
            deal: Deal::standard(),
            start_fen: START_FEN.into(),
            moves: vec!["h2e2".into(); 60],
            outcome: Outcome::draw(Reason::PlyCap),
            faulty: None,
        };
        let s = write_game(&rec, &PgnTags::default());
        assert!(
            s.lines()
                .filter(|l| !l.starts_with('['))
                .all(|l| l.len() <= 80)
        );
        assert!(s.lines().count() > 4);
        assert!(s.trim_end().ends_with("1/2-1/2"));
    }

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_787), (2026, 11, 30));
    }
}
