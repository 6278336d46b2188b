//! Match games as `jieqi_core` game records (棋谱): the referee's game with the
//! players, the event's tags and a commitment to the deal, written by
//! `jieqi_core::record::pgn` for `--pgn` files. A file holds one record after another;
//! `pgn::read_all` reads them back game by game.

use jieqi_core::notation::Notation;
use jieqi_core::record::{Record, pgn};

use super::engine::Score;
use super::game::GameRecord;

/// What a record says about the event around one game.
#[derive(Clone, Debug, Default)]
pub struct EventTags {
    /// The event name.
    pub event: String,
    /// The round (the game number in a match).
    pub round: u32,
    /// The time control, as text.
    pub time_control: String,
    /// The date, `YYYY.MM.DD`.
    pub date: String,
}

/// The record of a finished game: the referee's moves with every reveal and captured
/// identity, the deal with its commitment under `salt`, the rules, the players, the
/// event's tags, the result and the runner's termination (`time forfeit`,
/// `illegal move …`: the detail the core's reasons do not spell out). Each move
/// carries the mover's clock after it (`[%clk]`), the engine's time (`[%emt]`) and
/// its last score with the depth (`[%eval]`, from the mover's view; a mate as
/// `[%eval #N,D]` in the comment).
pub fn game_record(game: &GameRecord, event: &EventTags, salt: &str) -> Record {
    let mut rec = Record::from_game(&game.game);
    for (m, note) in rec.moves.iter_mut().zip(&game.notes) {
        m.clock = note.clock_ms.map(pgn::duration_text);
        m.engine_time = Some(note.time_ms);
        match note.score {
            Some(Score::Cp(cp)) => {
                m.engine_score = Some(f64::from(cp));
                m.engine_depth = note.depth;
            }
            Some(Score::Mate(n)) => {
                let depth = note.depth.map(|d| format!(",{d}")).unwrap_or_default();
                m.comment = Some(format!("[%eval #{n}{depth}]"));
            }
            None => {}
        }
    }
    rec.deal_commitment = Some(game.game.deal().commitment(salt));
    rec.deal_salt = Some(salt.to_string());
    rec.result = game.outcome.result_str().to_string();
    rec.tags = [
        ("Event", event.event.clone()),
        ("Date", event.date.clone()),
        ("Round", event.round.to_string()),
        ("Red", game.red.clone()),
        ("Black", game.black.clone()),
        ("TimeControl", event.time_control.clone()),
        ("PlyCount", rec.moves.len().to_string()),
        ("Termination", game.termination()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    rec
}

/// A record as `--pgn` files hold it: PGN with ICCS moves carrying their suffix
/// letters (RULES.md §6), and a blank line before the next game.
pub fn pgn_text(rec: &Record) -> String {
    pgn::write(rec, Notation::Iccs) + "\n"
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
    use crate::runner::outcome::Ending;
    use crate::runner::referee::{Referee, RefereeRules};
    use jieqi_core::Reason;
    use jieqi_core::{Color, Deal, UciMove};

    /// A game of the referee's, ended from outside the board.
    fn game(moves: &str, ending: Ending) -> GameRecord {
        let deal = Deal::parse("RNBAABNRCCPPPPP/rnbaabnrccppppp").unwrap();
        let mut r = Referee::new(deal, RefereeRules::default());
        for m in moves.split_whitespace() {
            r.play(UciMove::parse(m).unwrap().to_plain()).unwrap();
        }
        r.finish(ending.clone());
        GameRecord {
            red: "a \"quoted\" engine".into(),
            black: "b".into(),
            moves: r.record().to_vec(),
            notes: Vec::new(),
            outcome: ending.outcome,
            detail: ending.detail,
            game: r.game().clone(),
            faulty: Some(Color::Red),
        }
    }

    fn event() -> EventTags {
        EventTags {
            event: "test".into(),
            round: 3,
            time_control: "10+0.1".into(),
            date: "2026.11.30".into(),
        }
    }

    #[test]
    fn records_carry_tags_reveals_and_the_commitment() {
        let g = game("h2h9 i9h9 b2b9", Ending::win(Color::Black, Reason::Time));
        let text = pgn_text(&game_record(&g, &event(), "00ff"));
        for tag in [
            "[Game \"Jieqi\"]",
            "[Event \"test\"]",
            "[Date \"2026.11.30\"]",
            "[Round \"3\"]",
            "[Red \"a \\\"quoted\\\" engine\"]",
            "[Black \"b\"]",
            "[Result \"0-1\"]",
            "[Format \"ICCS\"]",
            "[TimeControl \"10+0.1\"]",
            "[PlyCount \"3\"]",
            "[Termination \"time forfeit\"]",
            "[Deal \"RNBAABNRCCPPPPP/rnbaabnrccppppp\"]",
            "[DealSalt \"00ff\"]",
        ] {
            assert!(text.contains(&format!("{tag}\n")), "{tag} in\n{text}");
        }
        assert!(
            text.ends_with("\n1. h2h9Cn i9h9r 2. b2b9Cn 0-1\n\n"),
            "{text}"
        );
        let back = pgn::read_all(&text).unwrap();
        assert_eq!(back.len(), 1);
        let report = back[0].verify().unwrap();
        assert!(report.deal_checked && report.commitment_checked);
        assert_eq!(back[0].result, "0-1");
        assert_eq!(back[0].tag("Termination"), Some("time forfeit"));
        assert_eq!(back[0].moves, Record::from_game(&g.game).moves);
    }

    #[test]
    fn moves_carry_clocks_times_and_scores() {
        use crate::runner::game::MoveNote;
        let mut g = game("h2h9 i9h9 b2b9", Ending::win(Color::Black, Reason::Time));
        g.notes = vec![
            MoveNote {
                time_ms: 321,
                clock_ms: Some(9_779),
                score: Some(Score::Cp(-35)),
                depth: Some(12),
            },
            MoveNote {
                time_ms: 1_250,
                clock_ms: Some(61_000),
                score: Some(Score::Mate(-3)),
                depth: Some(9),
            },
            MoveNote::default(),
        ];
        let text = pgn_text(&game_record(&g, &event(), "00ff"));
        let flat = text.replace('\n', " ");
        assert!(
            flat.contains("h2h9Cn {[%clk 0:00:09.779] [%eval -0.35,12] [%emt 0:00:00.321]}"),
            "{text}"
        );
        assert!(
            flat.contains("i9h9r {[%clk 0:01:01] [%emt 0:00:01.25] [%eval #-3,9]}"),
            "{text}"
        );
        let back = pgn::read_all(&text).unwrap();
        let m = &back[0].moves;
        assert_eq!(
            (m[0].engine_score, m[0].engine_depth, m[0].engine_time),
            (Some(-35.0), Some(12), Some(321))
        );
        assert_eq!(m[0].clock.as_deref(), Some("0:00:09.779"));
        assert_eq!(m[1].comment.as_deref(), Some("[%eval #-3,9]"));
        // A move with nothing known gets no comment; the record still verifies.
        assert_eq!(m[2].engine_time, Some(0));
        back[0].verify().unwrap();
    }

    #[test]
    fn a_file_of_games_reads_back_game_by_game() {
        let games = [
            game(
                "",
                Ending::win(Color::Black, Reason::Forfeit).with_detail("engine crashed: gone"),
            ),
            game(
                "h2h9 i9h9",
                Ending::draw(Reason::Adjudication).with_detail("ply cap"),
            ),
            game(
                "e3e4",
                Ending::win(Color::Red, Reason::Forfeit).with_detail("illegal move a9a0: no"),
            ),
        ];
        let file: String = games
            .iter()
            .map(|g| pgn_text(&game_record(g, &event(), "salt")))
            .collect();
        let back = pgn::read_all(&file).unwrap();
        assert_eq!(back.len(), 3);
        for (r, g) in back.iter().zip(&games) {
            r.verify().unwrap();
            assert_eq!(r.result, g.outcome.result_str());
            assert_eq!(r.moves.len(), g.moves.len());
            assert_eq!(r.tag("Termination"), Some(g.termination().as_str()));
        }
    }

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_787), (2026, 11, 30));
    }
}
