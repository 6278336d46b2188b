//! Public views of an event: CSV, JSON and a self-contained HTML page.
//!
//! These never show an unpublished deal or salt — only its commitment — so they can be
//! posted while the event runs. (The saved state itself is the organiser's secret.)

use std::fmt::Write;

use serde_json::{Value, json};

use crate::PlayerId;
use crate::deals::DealRecord;
use crate::model::{Format, MatchKind, Phase, TieBreakGame};
use crate::tournament::Tournament;

fn fmt_points(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        let s = format!("{x:.2}");
        s.trim_end_matches('0').to_string()
    }
}

/// A text cell (a name). A cell a spreadsheet would read as a formula (leading `=`,
/// `+`, `-`, `@`, tab or carriage return: `=HYPERLINK(…)`) gets a leading `'`, so it
/// shows as the text it is (the OWASP advice on CSV injection).
fn csv_field(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s.to_string()
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

impl Tournament {
    fn name_of(&self, p: PlayerId) -> &str {
        &self.players[p as usize].name
    }

    fn place_map(&self) -> std::collections::HashMap<PlayerId, Option<u32>> {
        self.places()
            .into_iter()
            .map(|p| (p.player, p.place))
            .collect()
    }

    /// A one-line description of the format.
    pub fn describe_format(&self) -> String {
        let ko = |k: &crate::model::KnockoutConfig| {
            let tb = match k.tie_break {
                TieBreakGame::Armageddon => "armageddon tie-break",
                TieBreakGame::SuddenDeath => "sudden-death tie-break",
                TieBreakGame::HigherSeed => "higher seed on a tie",
            };
            let third = if k.third_place {
                ", third-place match"
            } else {
                ""
            };
            format!("best-of-{} knockout ({tb}{third})", k.best_of)
        };
        let f = match &self.settings.format {
            Format::Swiss { rounds } => format!("Swiss, {rounds} rounds"),
            Format::RoundRobin { cycles: 1 } => "round robin".to_string(),
            Format::RoundRobin { .. } => "double round robin".to_string(),
            Format::Knockout(k) => ko(k),
            Format::SwissKnockout {
                swiss_rounds,
                qualifiers,
                knockout,
            } => format!(
                "Swiss, {swiss_rounds} rounds, then the top {qualifiers} into a {}",
                ko(knockout)
            ),
        };
        format!("{f}; {} deals", self.settings.deal_mode.name())
    }

    /// The standings (with places) as CSV.
    pub fn standings_csv(&self) -> String {
        let mut s = String::from("rank,start,name,rating,points");
        for tb in &self.settings.tiebreaks {
            s.push(',');
            s.push_str(tb.short());
        }
        s.push_str(",played,place\n");
        let places = self.place_map();
        for row in self.standings() {
            let p = &self.players[row.player as usize];
            let _ = write!(
                s,
                "{},{},{},{},{}",
                row.rank,
                self.start_number(row.player),
                csv_field(&p.name),
                p.rating.map_or(String::new(), |r| r.to_string()),
                fmt_points(row.points)
            );
            for v in &row.tiebreaks {
                let _ = write!(s, ",{}", v.map_or(String::new(), fmt_points));
            }
            let place = places.get(&row.player).copied().flatten();
            let _ = writeln!(
                s,
                ",{},{}",
                row.played,
                place.map_or(String::new(), |x| x.to_string())
            );
        }
        s
    }

    /// Every game as CSV (round, board, players, result, deal commitment and, once
    /// published, the deal).
    pub fn games_csv(&self) -> String {
        let mut s = String::from("round,board,stage,red,black,result,commitment,deal\n");
        for (ri, r) in self.rounds.iter().enumerate() {
            for (bi, g) in r.games.iter().enumerate() {
                let rec = g.deal.and_then(|d| self.deals.get(d));
                let stage = match r.phase {
                    Phase::Swiss => "swiss".to_string(),
                    Phase::RoundRobin { cycle } => format!("round-robin-{cycle}"),
                    Phase::Knockout { stage } => format!("knockout-{}", stage + 1),
                };
                let _ = writeln!(
                    s,
                    "{},{},{},{},{},{},{},{}",
                    ri + 1,
                    bi + 1,
                    stage,
                    csv_field(self.name_of(g.red)),
                    csv_field(self.name_of(g.black)),
                    g.result.map_or("", |x| x.text()),
                    rec.and_then(|d| d.commitment.clone()).unwrap_or_default(),
                    rec.filter(|d| d.published)
                        .and_then(|d| d.deal.clone())
                        .unwrap_or_default()
                );
            }
            if let Some(b) = r.bye {
                let _ = writeln!(s, "{},,bye,{},,,,", ri + 1, csv_field(self.name_of(b)));
            }
        }
        s
    }

    fn public_deal(rec: &DealRecord) -> Value {
        let mut v = json!({
            "mode": rec.mode.name(),
            "commitment": rec.commitment,
            "published": rec.published,
        });
        if let Some(c) = &rec.server_commitment {
            v["server_commitment"] = json!(c);
        }
        if rec.published {
            if rec.server_seed.is_some() {
                v["server_seed"] = json!(rec.server_seed);
            }
            v["deal"] = json!(rec.deal);
            v["salt"] = json!(rec.salt);
            if rec.red_contribution.is_some() {
                v["red_contribution"] = json!(rec.red_contribution);
                v["black_contribution"] = json!(rec.black_contribution);
            }
        }
        v
    }

    /// The public view as JSON: players, rounds with commitments (deals once
    /// published), standings, bracket and places.
    pub fn public_json(&self) -> Value {
        let name = |p: PlayerId| self.name_of(p).to_string();
        let players: Vec<Value> = self
            .ranking_list()
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                let pl = &self.players[p as usize];
                json!({"start": i + 1, "name": pl.name, "rating": pl.rating,
                       "seed": pl.seed, "withdrawn": pl.withdrawn})
            })
            .collect();
        let rounds: Vec<Value> = self
            .rounds
            .iter()
            .enumerate()
            .map(|(ri, r)| {
                let games: Vec<Value> = r
                    .games
                    .iter()
                    .enumerate()
                    .map(|(bi, g)| {
                        let mut v = json!({
                            "board": bi + 1,
                            "red": name(g.red),
                            "black": name(g.black),
                            "result": g.result.map(|x| x.text()),
                            "deal": g.deal.and_then(|d| self.deals.get(d)).map(Self::public_deal),
                        });
                        if let Some(m) = g.knockout {
                            v["match"] =
                                json!({"stage": m.stage + 1, "match": m.index + 1, "game": m.game});
                        }
                        v
                    })
                    .collect();
                json!({
                    "round": ri + 1,
                    "phase": r.phase,
                    "deal_mode": r.deal_mode.name(),
                    "bye": r.bye.map(name),
                    "games": games,
                })
            })
            .collect();
        let standings: Vec<Value> = self
            .standings()
            .iter()
            .map(|row| {
                let tbs: serde_json::Map<String, Value> = self
                    .settings
                    .tiebreaks
                    .iter()
                    .zip(&row.tiebreaks)
                    .map(|(tb, v)| (tb.short().to_string(), json!(v)))
                    .collect();
                json!({"rank": row.rank, "name": name(row.player), "points": row.points,
                       "tiebreaks": tbs, "shared": row.shared, "played": row.played})
            })
            .collect();
        let places: Vec<Value> = self
            .places()
            .iter()
            .map(|p| json!({"place": p.place, "name": name(p.player), "how": p.how}))
            .collect();
        let bracket = self.bracket.as_ref().map(|b| {
            let stages: Vec<Value> = b
                .stages
                .iter()
                .enumerate()
                .map(|(s, st)| {
                    let matches: Vec<Value> = st
                        .matches
                        .iter()
                        .enumerate()
                        .map(|(i, m)| {
                            let state = self.match_state(s, i);
                            json!({
                                "kind": if m.kind == MatchKind::Main { "main" } else { "third-place" },
                                "high": name(m.high),
                                "high_seed": b.seed_of(m.high),
                                "low": m.low.map(name),
                                "low_seed": m.low.and_then(|l| b.seed_of(l)),
                                "score": [state.high_points as f64 / 2.0, state.low_points as f64 / 2.0],
                                "games": state.games_played,
                                "winner": state.winner.map(name),
                            })
                        })
                        .collect();
                    json!({"stage": s + 1, "matches": matches})
                })
                .collect();
            json!({"entrants": b.entrants.iter().map(|&p| name(p)).collect::<Vec<_>>(), "stages": stages})
        });
        json!({
            "name": self.name,
            "format": self.describe_format(),
            "settings": self.settings,
            "players": players,
            "rounds": rounds,
            "standings": standings,
            "bracket": bracket,
            "places": places,
            "finished": self.is_finished(),
        })
    }

    /// A self-contained HTML page: standings, crosstable, bracket, places and the
    /// deal commitments of every round.
    pub fn standings_html(&self) -> String {
        let e = |s: &str| html_escape(s);
        let mut h = String::new();
        let _ = write!(
            h,
            "<!DOCTYPE html>\n<html lang=\"zh\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{}</title>\n<style>\n{}\n</style>\n</head>\n<body>\n<h1>{}</h1>\n<p class=\"fmt\">{}</p>\n",
            e(&self.name),
            CSS,
            e(&self.name),
            e(&self.describe_format())
        );
        let standings = self.standings();
        // The crosstable and the matrix refer to their rows by number (shared ranks,
        // "1=", would be ambiguous there).
        let rank_of: std::collections::HashMap<PlayerId, usize> = standings
            .iter()
            .enumerate()
            .map(|(i, r)| (r.player, i + 1))
            .collect();
        let places = self.place_map();
        let show_places = self.bracket.is_some() || self.is_finished();

        // Standings.
        h.push_str("<h2>Standings</h2>\n<table class=\"standings\">\n<tr><th>Rk</th><th>No</th><th>Name</th><th>Rtg</th><th>Pts</th>");
        for tb in &self.settings.tiebreaks {
            let _ = write!(h, "<th>{}</th>", tb.short());
        }
        if show_places {
            h.push_str("<th>Place</th>");
        }
        h.push_str("</tr>\n");
        for row in &standings {
            let p = &self.players[row.player as usize];
            let _ = write!(
                h,
                "<tr><td>{}{}</td><td>{}</td><td class=\"name\">{}{}</td><td>{}</td><td><b>{}</b></td>",
                row.rank,
                if row.shared { "=" } else { "" },
                self.start_number(row.player),
                e(&p.name),
                if p.withdrawn { " (withdrawn)" } else { "" },
                p.rating.map_or(String::new(), |r| r.to_string()),
                fmt_points(row.points)
            );
            for v in &row.tiebreaks {
                let _ = write!(h, "<td>{}</td>", v.map_or("–".to_string(), fmt_points));
            }
            if show_places {
                let pl = places.get(&row.player).copied().flatten();
                let _ = write!(
                    h,
                    "<td>{}</td>",
                    pl.map_or(String::new(), |x| x.to_string())
                );
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table>\n");

        // Crosstable: one column per table round, "opponent's rank, colour, result".
        let table_rounds: Vec<usize> = (0..self.rounds.len())
            .filter(|&i| self.rounds[i].is_table())
            .collect();
        if !table_rounds.is_empty() {
            h.push_str("<h2>Crosstable</h2>\n<p class=\"note\">Each cell: opponent's row number, colour (r = Red, b = Black), result (1, ½, 0; + and − for forfeits).</p>\n<table class=\"cross\">\n<tr><th>#</th><th>Name</th>");
            for (k, _) in table_rounds.iter().enumerate() {
                let _ = write!(h, "<th>R{}</th>", k + 1);
            }
            h.push_str("<th>Pts</th></tr>\n");
            for row in &standings {
                let _ = write!(
                    h,
                    "<tr><td>{}</td><td class=\"name\">{}</td>",
                    rank_of[&row.player],
                    e(self.name_of(row.player))
                );
                let entries = self.entries(row.player);
                for &ri in &table_rounds {
                    let cell = match entries.iter().find(|x| x.round == ri + 1) {
                        None => "<td class=\"none\"></td>".to_string(),
                        Some(x) => match x.opponent {
                            None => format!(
                                "<td class=\"bye\">bye {}</td>",
                                x.half_points.map_or("".into(), |hp| half(hp, true))
                            ),
                            Some(o) => {
                                let col = if x.colour == Some(jieqi_core::Color::Red) {
                                    "r"
                                } else {
                                    "b"
                                };
                                let res = x.half_points.map_or("?".into(), |hp| half(hp, x.played));
                                let class = match x.half_points {
                                    Some(2) => "win",
                                    Some(1) => "draw",
                                    Some(_) => "loss",
                                    None => "open",
                                };
                                format!(
                                    "<td class=\"{class}\">{}{col}&nbsp;{res}</td>",
                                    rank_of.get(&o).copied().unwrap_or(0)
                                )
                            }
                        },
                    };
                    h.push_str(&cell);
                }
                let _ = writeln!(h, "<td><b>{}</b></td></tr>", fmt_points(row.points));
            }
            h.push_str("</table>\n");
        }

        // Round-robin matrix.
        if matches!(self.settings.format, Format::RoundRobin { .. }) && !standings.is_empty() {
            h.push_str("<h2>Table</h2>\n<table class=\"cross\">\n<tr><th></th><th>Name</th>");
            for row in &standings {
                let _ = write!(h, "<th>{}</th>", rank_of[&row.player]);
            }
            h.push_str("</tr>\n");
            for row in &standings {
                let _ = write!(
                    h,
                    "<tr><td>{}</td><td class=\"name\">{}</td>",
                    rank_of[&row.player],
                    e(self.name_of(row.player))
                );
                let entries = self.entries(row.player);
                for col in &standings {
                    if col.player == row.player {
                        h.push_str("<td class=\"self\"></td>");
                        continue;
                    }
                    let cells: Vec<String> = entries
                        .iter()
                        .filter(|x| x.opponent == Some(col.player))
                        .map(|x| x.half_points.map_or("·".into(), |hp| half(hp, x.played)))
                        .collect();
                    let _ = write!(h, "<td>{}</td>", cells.join(" "));
                }
                h.push_str("</tr>\n");
            }
            h.push_str("</table>\n");
        }

        // Bracket.
        if let Some(b) = &self.bracket {
            h.push_str("<h2>Knockout</h2>\n<div class=\"bracket\">\n");
            for (s, st) in b.stages.iter().enumerate() {
                let mains = st
                    .matches
                    .iter()
                    .filter(|m| m.kind == MatchKind::Main)
                    .count();
                let title = match mains {
                    1 => "Final".to_string(),
                    2 => "Semi-finals".to_string(),
                    4 => "Quarter-finals".to_string(),
                    n => format!("Last {}", 2 * n),
                };
                let _ = writeln!(h, "<div class=\"stage\"><h3>{title}</h3>");
                for (i, m) in st.matches.iter().enumerate() {
                    let state = self.match_state(s, i);
                    let line = |p: Option<PlayerId>, pts: u32| match p {
                        None => "<div class=\"p\">bye</div>".to_string(),
                        Some(p) => format!(
                            "<div class=\"p{}\"><span class=\"seed\">{}</span> {} <span class=\"sc\">{}</span></div>",
                            if state.winner == Some(p) { " w" } else { "" },
                            b.seed_of(p).unwrap_or(0),
                            e(self.name_of(p)),
                            if m.low.is_some() {
                                fmt_points(pts as f64 / 2.0)
                            } else {
                                String::new()
                            }
                        ),
                    };
                    let _ = writeln!(
                        h,
                        "<div class=\"match\">{}{}{}</div>",
                        if m.kind == MatchKind::ThirdPlace {
                            "<div class=\"tag\">third place</div>"
                        } else {
                            ""
                        },
                        line(Some(m.high), state.high_points),
                        line(m.low, state.low_points)
                    );
                }
                h.push_str("</div>\n");
            }
            h.push_str("</div>\n");
        }

        // Places.
        if show_places {
            h.push_str("<h2>Places</h2>\n<table class=\"places\">\n<tr><th>Place</th><th>Name</th><th>How</th></tr>\n");
            for p in self.places() {
                let _ = writeln!(
                    h,
                    "<tr><td>{}</td><td class=\"name\">{}</td><td>{}</td></tr>",
                    p.place.map_or("–".to_string(), |x| x.to_string()),
                    e(self.name_of(p.player)),
                    e(&p.how)
                );
            }
            h.push_str("</table>\n");
        }

        // Rounds and deal commitments.
        h.push_str("<h2>Rounds</h2>\n");
        for (ri, r) in self.rounds.iter().enumerate() {
            let _ = writeln!(
                h,
                "<h3>Round {} <span class=\"mode\">({} deals)</span></h3>\n<table class=\"pairings\">\n<tr><th>Bd</th><th>Red</th><th>Black</th><th>Result</th><th>Deal</th></tr>",
                ri + 1,
                r.deal_mode.name()
            );
            for (bi, g) in r.games.iter().enumerate() {
                let deal =
                    g.deal
                        .and_then(|d| self.deals.get(d))
                        .map_or(String::new(), |d| {
                            match (d.published, &d.deal, &d.commitment) {
                                (true, Some(deal), _) => format!(
                                    "<code>{}</code> salt <code>{}</code>",
                                    e(deal),
                                    e(&d.salt)
                                ),
                                (_, _, Some(c)) => format!("<code class=\"c\">{}</code>", e(c)),
                                _ => "awaiting contributions".to_string(),
                            }
                        });
                let _ = writeln!(
                    h,
                    "<tr><td>{}</td><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{}</td><td class=\"deal\">{}</td></tr>",
                    bi + 1,
                    e(self.name_of(g.red)),
                    e(self.name_of(g.black)),
                    g.result.map_or("", |x| x.text()),
                    deal
                );
            }
            if let Some(b) = r.bye {
                let _ = writeln!(
                    h,
                    "<tr><td></td><td class=\"name\">{}</td><td>bye</td><td></td><td></td></tr>",
                    e(self.name_of(b))
                );
            }
            h.push_str("</table>\n");
        }
        h.push_str("<p class=\"note\">A deal is committed before its round as sha256(DEAL:SALT) and published after it; check with <code>jieqi tournament verify</code>.</p>\n</body>\n</html>\n");
        h
    }
}

fn half(hp: u32, played: bool) -> String {
    let s = match hp {
        2 => "1",
        1 => "½",
        _ => "0",
    };
    if played {
        s.to_string()
    } else {
        match hp {
            2 => "+".to_string(),
            0 => "−".to_string(),
            _ => s.to_string(),
        }
    }
}

const CSS: &str = "body{font-family:system-ui,'Noto Sans CJK SC',sans-serif;margin:1.5em;color:#222}\
h1{margin-bottom:.2em}.fmt{color:#555;margin-top:0}\
table{border-collapse:collapse;margin:.5em 0 1.5em}\
th,td{border:1px solid #ccc;padding:.2em .5em;text-align:center;font-size:.92em}\
th{background:#f3efe6}td.name{text-align:left;white-space:nowrap}\
td.win{background:#e6f4e6}td.loss{background:#fbe9e9}td.draw{background:#f6f6df}td.bye{color:#777}td.self{background:#ddd}\
.note{color:#666;font-size:.85em}.mode{font-weight:normal;color:#777;font-size:.8em}\
code.c{font-size:.75em;color:#555}td.deal{text-align:left}\
.bracket{display:flex;gap:2em;align-items:center}.stage{display:flex;flex-direction:column;gap:1em}\
.stage h3{margin:0;font-size:1em}\
.match{border:1px solid #bbb;border-radius:4px;min-width:12em;background:#fff}\
.match .p{padding:.2em .5em;border-bottom:1px solid #eee;display:flex;gap:.5em}\
.match .p.w{font-weight:bold;background:#e6f4e6}.seed{color:#888;width:1.5em}.sc{margin-left:auto}\
.tag{font-size:.75em;color:#a33;padding:.1em .5em}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(
            html_escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        for lead in ["+1", "-1", "@SUM(A1)", "\tx", "\rx", "=1+1"] {
            let cell = csv_field(lead);
            assert!(
                cell.starts_with("'") || cell.starts_with("\"'"),
                "{lead:?} → {cell:?}"
            );
        }
        assert_eq!(csv_field("a=b"), "a=b", "only a leading sign is a formula");
        assert_eq!(fmt_points(2.5), "2.5");
        assert_eq!(fmt_points(17.25), "17.25");
        assert_eq!(fmt_points(3.0), "3");
    }
}
