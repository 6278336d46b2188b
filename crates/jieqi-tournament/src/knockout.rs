//! Knockout brackets: seeding, best-of-N matches, tie-break games, stages.

use crate::PlayerId;
use crate::error::TournamentError;
use crate::model::{
    Bracket, Format, Game, GameResult, Match, MatchKind, MatchRef, Phase, Round, Stage,
    TieBreakGame,
};
use crate::tournament::Tournament;

/// Seeds in bracket-line order for a bracket of `size` (a power of two): for eight,
/// 1 8 4 5 2 7 3 6, so the first round is 1–8, 4–5, 2–7, 3–6 and seeds 1 and 2 can
/// only meet in the final.
pub fn bracket_order(size: u32) -> Vec<u32> {
    assert!(size.is_power_of_two());
    let mut order = vec![1u32];
    while (order.len() as u32) < size {
        let m = order.len() as u32 * 2;
        order = order.iter().flat_map(|&s| [s, m + 1 - s]).collect();
    }
    order
}

/// The next game a match needs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct NextGame {
    /// Game number within the match, from 1.
    pub number: u32,
    /// Red's player.
    pub red: PlayerId,
    /// Black's player.
    pub black: PlayerId,
    /// Whether it is a tie-break game (after the regular `best_of`).
    pub tie_break: bool,
}

/// Where a match stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchState {
    /// Half points of the higher seed in the regular games.
    pub high_points: u32,
    /// Half points of the lower seed in the regular games.
    pub low_points: u32,
    /// Games with a result, tie-breaks included.
    pub games_played: u32,
    /// The winner, once decided.
    pub winner: Option<PlayerId>,
    /// The loser, once decided (none for a bye).
    pub loser: Option<PlayerId>,
    /// The next game to play, if the match goes on and no game is in progress.
    pub next: Option<NextGame>,
}

impl Tournament {
    /// The games of a match, in game order.
    pub fn match_games(&self, stage: usize, index: usize) -> Vec<(MatchRef, &Game)> {
        let mut games: Vec<(MatchRef, &Game)> = self
            .rounds
            .iter()
            .flat_map(|r| r.games.iter())
            .filter_map(|g| {
                g.knockout
                    .filter(|m| m.stage == stage && m.index == index)
                    .map(|m| (m, g))
            })
            .collect();
        games.sort_by_key(|(m, _)| m.game);
        games
    }

    /// The state of match `index` of stage `stage`.
    pub fn match_state(&self, stage: usize, index: usize) -> MatchState {
        let mut st = MatchState {
            high_points: 0,
            low_points: 0,
            games_played: 0,
            winner: None,
            loser: None,
            next: None,
        };
        let (Some(b), Some(k)) = (&self.bracket, self.settings.format.knockout()) else {
            return st;
        };
        let Some(m) = b.stages.get(stage).and_then(|s| s.matches.get(index)) else {
            return st;
        };
        let Some(low) = m.low else {
            st.winner = Some(m.high);
            return st;
        };
        let high = m.high;
        let games = self.match_games(stage, index);
        let n = k.best_of;
        let mut tie_break_results = Vec::new();
        let mut in_progress = false;
        for (r, g) in &games {
            let Some(res) = g.result else {
                in_progress = true;
                continue;
            };
            st.games_played += 1;
            if r.game > n {
                tie_break_results.push((g.red, g.black, res));
                continue;
            }
            let (rp, bp) = res.half_points();
            let (hp, lp) = if g.red == high { (rp, bp) } else { (bp, rp) };
            st.high_points += hp;
            st.low_points += lp;
        }
        if in_progress {
            return st;
        }
        let regular = (games.len() as u32).min(n);
        let left = 2 * (n - regular);
        let decide = |st: &mut MatchState, w: PlayerId| {
            st.winner = Some(w);
            st.loser = Some(if w == high { low } else { high });
        };
        if st.high_points > st.low_points + left {
            decide(&mut st, high);
            return st;
        }
        if st.low_points > st.high_points + left {
            decide(&mut st, low);
            return st;
        }
        let next_number = games.len() as u32 + 1;
        let colours = |number: u32| {
            if number % 2 == 1 {
                (high, low)
            } else {
                (low, high)
            }
        };
        if regular < n {
            let (red, black) = colours(next_number);
            st.next = Some(NextGame {
                number: next_number,
                red,
                black,
                tie_break: false,
            });
            return st;
        }
        // Tied after the regular games.
        match k.tie_break {
            TieBreakGame::HigherSeed => decide(&mut st, high),
            TieBreakGame::Armageddon => match tie_break_results.first() {
                Some(&(red, black, res)) => match res {
                    GameResult::RedWin | GameResult::RedForfeitWin => decide(&mut st, red),
                    GameResult::BlackWin | GameResult::BlackForfeitWin | GameResult::Draw => {
                        decide(&mut st, black)
                    }
                    GameResult::DoubleForfeit => decide(&mut st, high),
                },
                None => {
                    let (red, black) = colours(next_number);
                    st.next = Some(NextGame {
                        number: next_number,
                        red,
                        black,
                        tie_break: true,
                    });
                }
            },
            TieBreakGame::SuddenDeath => {
                let decisive = tie_break_results.iter().find_map(|&(red, black, res)| {
                    let (rp, bp) = res.half_points();
                    (rp != bp).then_some(if rp > bp { red } else { black })
                });
                match decisive {
                    Some(w) => decide(&mut st, w),
                    None => {
                        let (red, black) = colours(next_number);
                        st.next = Some(NextGame {
                            number: next_number,
                            red,
                            black,
                            tie_break: true,
                        });
                    }
                }
            }
        }
        st
    }

    /// Whether the bracket has produced its champion (and third place, if played).
    pub fn knockout_finished(&self) -> bool {
        let Some(b) = &self.bracket else {
            return false;
        };
        let Some(last) = b.stages.last() else {
            return false;
        };
        let s = b.stages.len() - 1;
        let mains = last
            .matches
            .iter()
            .filter(|m| m.kind == MatchKind::Main)
            .count();
        mains == 1 && (0..last.matches.len()).all(|i| self.match_state(s, i).winner.is_some())
    }

    /// Seeds the bracket: the top qualifiers of the Swiss standings, or the whole
    /// ranking list for a pure knockout.
    fn seed_bracket(&mut self) -> Result<(), TournamentError> {
        let entrants: Vec<PlayerId> = match &self.settings.format {
            Format::SwissKnockout { qualifiers, .. } => self
                .standings()
                .iter()
                .map(|row| row.player)
                .filter(|&p| !self.players[p as usize].withdrawn)
                .take(*qualifiers as usize)
                .collect(),
            _ => self.active_players(),
        };
        if entrants.len() < 2 {
            return Err(TournamentError::NotEnoughPlayers {
                need: 2,
                have: entrants.len(),
            });
        }
        let size = (entrants.len() as u32).next_power_of_two();
        let order = bracket_order(size);
        let matches = order
            .chunks(2)
            .map(|pair| {
                let (a, b) = (pair[0].min(pair[1]), pair[0].max(pair[1]));
                Match {
                    kind: MatchKind::Main,
                    high: entrants[a as usize - 1],
                    low: entrants.get(b as usize - 1).copied(),
                }
            })
            .collect();
        self.bracket = Some(Bracket {
            entrants,
            stages: vec![Stage { matches }],
        });
        Ok(())
    }

    /// Pairs the next knockout round: one game of every undecided match of the
    /// current stage, opening the next stage when the current one is decided.
    pub(crate) fn pair_knockout(&mut self) -> Result<Round, TournamentError> {
        if self.bracket.is_none() {
            self.seed_bracket()?;
        }
        let third_place = self
            .settings
            .format
            .knockout()
            .is_some_and(|k| k.third_place);
        loop {
            let b = self.bracket.as_ref().expect("seeded above");
            let s = b.stages.len() - 1;
            let stage = &b.stages[s];
            let states: Vec<MatchState> = (0..stage.matches.len())
                .map(|i| self.match_state(s, i))
                .collect();
            let games: Vec<Game> = states
                .iter()
                .enumerate()
                .filter_map(|(i, st)| {
                    st.next.map(|n| Game {
                        red: n.red,
                        black: n.black,
                        result: None,
                        deal: None,
                        knockout: Some(MatchRef {
                            stage: s,
                            index: i,
                            game: n.number,
                        }),
                    })
                })
                .collect();
            if !games.is_empty() {
                return Ok(Round {
                    phase: Phase::Knockout { stage: s },
                    deal_mode: self.settings.deal_mode,
                    games,
                    bye: None,
                    relaxed: None,
                });
            }
            if states.iter().any(|st| st.winner.is_none()) {
                // A game in progress; `pair` checks this before, so it cannot happen.
                return Err(TournamentError::Finished);
            }
            let mains: Vec<(usize, &Match)> = stage
                .matches
                .iter()
                .enumerate()
                .filter(|(_, m)| m.kind == MatchKind::Main)
                .collect();
            if mains.len() <= 1 {
                return Err(TournamentError::Finished);
            }
            let seed = |p: PlayerId| b.seed_of(p).unwrap_or(u32::MAX);
            let winners: Vec<PlayerId> = mains
                .iter()
                .map(|(i, _)| states[*i].winner.expect("all decided"))
                .collect();
            let mut matches: Vec<Match> = winners
                .chunks(2)
                .map(|w| {
                    let (high, low) = if seed(w[0]) < seed(w[1]) {
                        (w[0], w[1])
                    } else {
                        (w[1], w[0])
                    };
                    Match {
                        kind: MatchKind::Main,
                        high,
                        low: Some(low),
                    }
                })
                .collect();
            if mains.len() == 2 && third_place {
                let losers: Vec<PlayerId> =
                    mains.iter().filter_map(|(i, _)| states[*i].loser).collect();
                if let [a, b2] = losers[..] {
                    let (high, low) = if seed(a) < seed(b2) { (a, b2) } else { (b2, a) };
                    matches.push(Match {
                        kind: MatchKind::ThirdPlace,
                        high,
                        low: Some(low),
                    });
                }
            }
            self.bracket
                .as_mut()
                .expect("seeded above")
                .stages
                .push(Stage { matches });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeding_order() {
        assert_eq!(bracket_order(2), vec![1, 2]);
        assert_eq!(bracket_order(4), vec![1, 4, 2, 3]);
        assert_eq!(bracket_order(8), vec![1, 8, 4, 5, 2, 7, 3, 6]);
        assert_eq!(bracket_order(16)[..4], [1, 16, 8, 9]);
    }
}
