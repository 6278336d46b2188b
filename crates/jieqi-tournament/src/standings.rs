//! Standings with tie-breaks, and final places.
//!
//! Scores count the Swiss or round-robin rounds (knockout games decide places, not
//! points). For the opponent-based tie-breaks an unplayed round (a bye, a forfeit) counts
//! as a game against a virtual opponent with the player's own final score.

use std::collections::HashMap;

use jieqi_core::Color;

use crate::PlayerId;
use crate::model::{MatchKind, TieBreak};
use crate::tournament::Tournament;

/// What happened to a player in one table round.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RoundEntry {
    /// Round number (1-based, all rounds of the event).
    pub round: usize,
    /// The opponent, `None` for a bye.
    pub opponent: Option<PlayerId>,
    /// The player's colour, `None` for a bye.
    pub colour: Option<Color>,
    /// Half points scored; `None` while the game has no result.
    pub half_points: Option<u32>,
    /// Whether it was played over the board.
    pub played: bool,
}

/// One line of the standings.
#[derive(Clone, Debug, PartialEq)]
pub struct StandingRow {
    /// Rank, from 1; players still tied after every tie-break share the rank of
    /// the first of them (shown "1=", see `shared`), so ranks may repeat and skip.
    pub rank: usize,
    /// Who.
    pub player: PlayerId,
    /// Score in points.
    pub points: f64,
    /// Tie-break values in the settings' order; `None` where not applicable (direct
    /// encounter among players who have not all met).
    pub tiebreaks: Vec<Option<f64>>,
    /// Whether the player is still tied with a neighbour after every tie-break (the
    /// ranking list then decides).
    pub shared: bool,
    /// Table games played over the board.
    pub played: usize,
}

/// One line of the final places.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlaceRow {
    /// The place, `None` while still in contention.
    pub place: Option<u32>,
    /// Who.
    pub player: PlayerId,
    /// How the place was earned (`champion`, `final`, `quarter-final`, `Swiss 9`…).
    pub how: String,
}

impl Tournament {
    /// A player's table rounds.
    pub fn entries(&self, p: PlayerId) -> Vec<RoundEntry> {
        let mut out = Vec::new();
        for (i, r) in self.rounds.iter().enumerate().filter(|(_, r)| r.is_table()) {
            if r.bye == Some(p) {
                out.push(RoundEntry {
                    round: i + 1,
                    opponent: None,
                    colour: None,
                    half_points: Some(self.settings.bye_half_points),
                    played: false,
                });
            }
            for g in &r.games {
                let (opp, colour) = if g.red == p {
                    (g.black, Color::Red)
                } else if g.black == p {
                    (g.red, Color::Black)
                } else {
                    continue;
                };
                let hp = g.result.map(|res| {
                    let (a, b) = res.half_points();
                    if colour == Color::Red { a } else { b }
                });
                out.push(RoundEntry {
                    round: i + 1,
                    opponent: Some(opp),
                    colour: Some(colour),
                    half_points: hp,
                    played: g.result.is_some_and(|r| r.played()),
                });
            }
        }
        out
    }

    /// The standings of the table rounds, best first.
    pub fn standings(&self) -> Vec<StandingRow> {
        let ids = self.ranking_list();
        let entries: HashMap<PlayerId, Vec<RoundEntry>> =
            ids.iter().map(|&p| (p, self.entries(p))).collect();
        let score = |p: PlayerId| -> f64 {
            entries[&p]
                .iter()
                .filter_map(|e| e.half_points)
                .sum::<u32>() as f64
                / 2.0
        };
        let scores: HashMap<PlayerId, f64> = ids.iter().map(|&p| (p, score(p))).collect();
        // Opponent scores with virtual opponents for unplayed rounds, and own results.
        let opp_scores = |p: PlayerId| -> Vec<(f64, f64)> {
            entries[&p]
                .iter()
                .filter_map(|e| {
                    let own = e.half_points? as f64 / 2.0;
                    let opp = match (e.opponent, e.played) {
                        (Some(o), true) => scores[&o],
                        _ => scores[&p],
                    };
                    Some((opp, own))
                })
                .collect()
        };
        let raw_value = |tb: TieBreak, p: PlayerId, block: &[PlayerId]| -> Option<f64> {
            match tb {
                TieBreak::Buchholz => Some(opp_scores(p).iter().map(|x| x.0).sum()),
                TieBreak::MedianBuchholz => {
                    let mut v: Vec<f64> = opp_scores(p).iter().map(|x| x.0).collect();
                    v.sort_by(f64::total_cmp);
                    if v.len() >= 3 {
                        v.remove(0);
                        v.pop();
                    }
                    Some(v.iter().sum())
                }
                TieBreak::SonnebornBerger => {
                    Some(opp_scores(p).iter().map(|(opp, own)| opp * own).sum())
                }
                TieBreak::Wins => Some(
                    entries[&p]
                        .iter()
                        .filter(|e| e.half_points == Some(2))
                        .count() as f64,
                ),
                TieBreak::DirectEncounter => self.direct_encounter(p, block, &entries),
            }
        };
        // The sum of no floats is -0.0: `+ 0.0` makes it 0, so it neither prints as
        // "-0" nor sorts below a 0 (`total_cmp` tells them apart).
        let value = |tb: TieBreak, p: PlayerId, block: &[PlayerId]| {
            raw_value(tb, p, block).map(|x| x + 0.0)
        };
        // Sort by score, then split ties by each tie-break in turn (direct encounter
        // is computed within the group still tied at that point).
        let mut blocks: Vec<Vec<PlayerId>> = Vec::new();
        let mut by_score = ids.clone();
        by_score.sort_by(|a, b| scores[b].total_cmp(&scores[a]));
        for p in by_score {
            match blocks.last_mut() {
                Some(bl) if scores[&bl[0]] == scores[&p] => bl.push(p),
                _ => blocks.push(vec![p]),
            }
        }
        let mut shown: HashMap<(PlayerId, usize), Option<f64>> = HashMap::new();
        for (ti, &tb) in self.settings.tiebreaks.iter().enumerate() {
            let mut next = Vec::new();
            for bl in blocks {
                let vals: Vec<(PlayerId, Option<f64>)> =
                    bl.iter().map(|&p| (p, value(tb, p, &bl))).collect();
                for &(p, v) in &vals {
                    shown.insert((p, ti), v);
                }
                if bl.len() == 1 {
                    next.push(bl);
                    continue;
                }
                let mut sorted = vals;
                sorted.sort_by(|a, b| {
                    b.1.unwrap_or(f64::NEG_INFINITY)
                        .total_cmp(&a.1.unwrap_or(f64::NEG_INFINITY))
                });
                let mut sub: Vec<Vec<PlayerId>> = Vec::new();
                let mut last: Option<Option<f64>> = None;
                for (p, v) in sorted {
                    if last == Some(v) {
                        sub.last_mut().expect("non-empty").push(p);
                    } else {
                        sub.push(vec![p]);
                        last = Some(v);
                    }
                }
                next.extend(sub);
            }
            blocks = next;
        }
        let mut rows = Vec::new();
        for bl in blocks {
            // `ids` order (the ranking list) breaks the remaining ties; sorts are stable.
            // Players still tied after every tie-break share the block's first place
            // ("1=", "1="); the ranking list only orders their rows.
            let shared = bl.len() > 1;
            let first = rows.len() + 1;
            for p in bl {
                rows.push(StandingRow {
                    rank: first,
                    player: p,
                    points: scores[&p],
                    tiebreaks: (0..self.settings.tiebreaks.len())
                        .map(|ti| shown.get(&(p, ti)).copied().flatten())
                        .collect(),
                    shared,
                    played: entries[&p].iter().filter(|e| e.played).count(),
                });
            }
        }
        rows
    }

    fn direct_encounter(
        &self,
        p: PlayerId,
        block: &[PlayerId],
        entries: &HashMap<PlayerId, Vec<RoundEntry>>,
    ) -> Option<f64> {
        if block.len() < 2 {
            return None;
        }
        // Applies only if every two of the tied players have met.
        for &a in block {
            for &b in block {
                if a != b
                    && !entries[&a]
                        .iter()
                        .any(|e| e.opponent == Some(b) && e.played)
                {
                    return None;
                }
            }
        }
        Some(
            entries[&p]
                .iter()
                .filter(|e| e.opponent.is_some_and(|o| block.contains(&o)) && e.played)
                .filter_map(|e| e.half_points)
                .sum::<u32>() as f64
                / 2.0,
        )
    }

    /// Final places: the knockout decides the places of its entrants (champion,
    /// finalist, third-place match or semi-final losers, then each earlier round's
    /// losers by seed), everyone else follows in standings order.
    pub fn places(&self) -> Vec<PlaceRow> {
        let standings = self.standings();
        let Some(b) = &self.bracket else {
            return standings
                .iter()
                .map(|r| PlaceRow {
                    place: Some(r.rank as u32),
                    player: r.player,
                    how: if self.settings.format.knockout().is_some() {
                        format!("table {}", r.rank)
                    } else {
                        "standings".to_string()
                    },
                })
                .collect();
        };
        let mut placed: HashMap<PlayerId, (u32, String)> = HashMap::new();
        let stage_name = |mains: usize| match mains {
            1 => "final".to_string(),
            2 => "semi-final".to_string(),
            4 => "quarter-final".to_string(),
            n => format!("last {}", 2 * n),
        };
        for (s, stage) in b.stages.iter().enumerate() {
            let mains: Vec<usize> = (0..stage.matches.len())
                .filter(|&i| stage.matches[i].kind == MatchKind::Main)
                .collect();
            let mut losers: Vec<PlayerId> = mains
                .iter()
                .filter_map(|&i| self.match_state(s, i).loser)
                .collect();
            losers.sort_by_key(|&p| b.seed_of(p));
            let base = mains.len() as u32;
            for (k, p) in losers.into_iter().enumerate() {
                placed.insert(p, (base + 1 + k as u32, stage_name(mains.len())));
            }
            if mains.len() == 1 {
                if let Some(w) = self.match_state(s, mains[0]).winner {
                    placed.insert(w, (1, "champion".to_string()));
                }
            }
            for (i, m) in stage.matches.iter().enumerate() {
                if m.kind == MatchKind::ThirdPlace {
                    let st = self.match_state(s, i);
                    if let (Some(w), Some(l)) = (st.winner, st.loser) {
                        placed.insert(w, (3, "third-place match".to_string()));
                        placed.insert(l, (4, "third-place match".to_string()));
                    }
                }
            }
        }
        let mut rows: Vec<PlaceRow> = b
            .entrants
            .iter()
            .map(|&p| match placed.get(&p) {
                Some((place, how)) => PlaceRow {
                    place: Some(*place),
                    player: p,
                    how: how.clone(),
                },
                None => PlaceRow {
                    place: None,
                    player: p,
                    how: "in play".to_string(),
                },
            })
            .collect();
        rows.sort_by_key(|r| (r.place.unwrap_or(0), b.seed_of(r.player)));
        let k = b.entrants.len() as u32;
        let mut next = k;
        for r in standings.iter().filter(|r| !b.entrants.contains(&r.player)) {
            next += 1;
            rows.push(PlaceRow {
                place: Some(next),
                player: r.player,
                how: format!("table {}", r.rank),
            });
        }
        rows
    }
}
