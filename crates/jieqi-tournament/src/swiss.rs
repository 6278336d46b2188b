//! Swiss pairing in the spirit of the FIDE Dutch system.
//!
//! Players are ordered by score, then by their place in the ranking list given (the
//! pairing numbers). Within a score group the top half meets the bottom half (1–5, 2–6,
//! 3–7, 4–8 in a group of eight); a player who cannot be paired inside his group floats
//! down to the highest player of the next group. Among candidates at the same score
//! distance, one with whom both colour preferences can be granted comes first; then the
//! Dutch order (the player's counterpart in the bottom half, the rest of the bottom half,
//! then the top half from the bottom up).
//!
//! The hard rules are checked with an exact matching oracle ([`crate::matching`]), so a
//! choice is only made if the remaining players can still all be paired. The rules are
//! given up one at a time, and only when no pairing at all keeps them, in this order:
//! the absolute colour rules ([`crate::colours`]), then no repeat pairings, then at most
//! one bye per player. The bye goes to the lowest-ranked eligible player of the lowest
//! score group. Everything is deterministic: the same inputs give the same pairing.
//!
//! Float history, as in the Dutch system's last criteria: a score group with an odd
//! count sends its lowest-ranked player down, unless he floated down in the previous
//! round (or, second, the round before); then the lowest-ranked player without that
//! history floats instead. A player floating down prefers, after colours, an opponent
//! who did not float up in the previous round (or the round before). Colour
//! preferences outrank float history, as in the Dutch criteria.

use jieqi_core::Color;
use serde::{Deserialize, Serialize};

use crate::PlayerId;
use crate::colours;
use crate::matching::Matcher;

/// One player as the pairer sees him.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwissEntrant {
    /// Who.
    pub id: PlayerId,
    /// Score in half points.
    pub score: u32,
    /// Colours of the games played, oldest first.
    pub colours: Vec<Color>,
    /// Everyone he has been paired with (played or forfeited).
    pub opponents: Vec<PlayerId>,
    /// Whether he has had a pairing-allocated bye.
    pub had_bye: bool,
    /// How he floated in each table round so far, oldest first (a bye is a float down).
    pub floats: Vec<Float>,
}

/// How a player's pairing in one round compared with his own score.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Float {
    /// Met an opponent on the same score.
    None,
    /// Met an opponent on a lower score, or had a bye.
    Down,
    /// Met an opponent on a higher score.
    Up,
}

/// Which rule the pairer had to give up, if any.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Relaxation {
    /// Every rule kept.
    None,
    /// Some pair breaks the absolute colour rules (no pairing keeps them).
    Colours,
    /// Some pair meets again (no pairing avoids it).
    Repeats,
    /// Someone gets a second bye (everyone has had one).
    Byes,
}

impl Relaxation {
    const LEVELS: [Relaxation; 4] = [
        Relaxation::None,
        Relaxation::Colours,
        Relaxation::Repeats,
        Relaxation::Byes,
    ];
}

/// A round's pairing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwissPairing {
    /// Boards in order, `(red, black)`.
    pub boards: Vec<(PlayerId, PlayerId)>,
    /// The player who sits out, if the count is odd.
    pub bye: Option<PlayerId>,
    /// Which rule had to give.
    pub relaxed: Relaxation,
}

/// Pairs one round. `entrants` are in ranking-list order (pairing numbers);
/// `initial` is the colour of the higher-ranked player on the first board when
/// nobody has a preference (round one), alternating down the boards.
pub fn pair(entrants: &[SwissEntrant], initial: Color) -> SwissPairing {
    let mut order: Vec<usize> = (0..entrants.len()).collect();
    order.sort_by(|&a, &b| entrants[b].score.cmp(&entrants[a].score).then(a.cmp(&b)));
    for level in Relaxation::LEVELS {
        if let Some((pairs, bye)) = Pairer::new(entrants, level).run(&order) {
            return finish(entrants, pairs, bye, level, initial);
        }
    }
    // Unreachable in practice: the last level allows every pair and every bye.
    unreachable!("the fully relaxed pairing always exists")
}

/// Pairs of entrant indices, and the index of the bye.
type Pairs = (Vec<(usize, usize)>, Option<usize>);

struct Pairer<'a> {
    e: &'a [SwissEntrant],
    level: Relaxation,
}

impl<'a> Pairer<'a> {
    fn new(e: &'a [SwissEntrant], level: Relaxation) -> Pairer<'a> {
        Pairer { e, level }
    }

    fn may_meet(&self, a: usize, b: usize) -> bool {
        let (x, y) = (&self.e[a], &self.e[b]);
        if self.level < Relaxation::Repeats && x.opponents.contains(&y.id) {
            return false;
        }
        if self.level < Relaxation::Colours && !colours::compatible(&x.colours, &y.colours) {
            return false;
        }
        true
    }

    /// Whether `i` floated `f` in the round `back` rounds ago (1 = the previous one).
    fn floated(&self, i: usize, back: usize, f: Float) -> bool {
        let h = &self.e[i].floats;
        h.len() >= back && h[h.len() - back] == f
    }

    /// How much float history speaks against `i` floating `f` now: 2 if he did so in
    /// the previous round, 1 if in the round before, else 0.
    fn float_cost(&self, i: usize, f: Float) -> u8 {
        if self.floated(i, 1, f) {
            2
        } else if self.floated(i, 2, f) {
            1
        } else {
            0
        }
    }

    /// The player a score group with an odd count sends down instead of its lowest-
    /// ranked one, when that one floated down lately: the lowest-ranked member with the
    /// best float history who can still be paired below with everyone else paired.
    fn choose_floater(&self, rest: &[usize], score: u32, matcher: &Matcher) -> Option<usize> {
        let group: Vec<usize> = rest
            .iter()
            .copied()
            .filter(|&q| self.e[q].score == score)
            .collect();
        let below: Vec<usize> = rest
            .iter()
            .copied()
            .filter(|&q| self.e[q].score < score)
            .collect();
        let &lowest = group.last()?;
        if group.len() % 2 == 0 || below.is_empty() || self.float_cost(lowest, Float::Down) == 0 {
            return None;
        }
        let mut by_history: Vec<(u8, std::cmp::Reverse<usize>, usize)> = group
            .iter()
            .enumerate()
            .map(|(k, &q)| (self.float_cost(q, Float::Down), std::cmp::Reverse(k), q))
            .collect();
        by_history.sort();
        by_history
            .into_iter()
            .map(|c| c.2)
            .take_while(|&f| self.float_cost(f, Float::Down) < self.float_cost(lowest, Float::Down))
            .find(|&f| {
                below
                    .iter()
                    .any(|&q| self.may_meet(f, q) && matcher.clone().try_remove_pair(f, q))
            })
    }

    fn may_sit_out(&self, a: usize) -> bool {
        self.level >= Relaxation::Byes || !self.e[a].had_bye
    }

    fn graph(&self) -> Vec<Vec<usize>> {
        let n = self.e.len();
        (0..n)
            .map(|i| (0..n).filter(|&j| j != i && self.may_meet(i, j)).collect())
            .collect()
    }

    fn run(&self, order: &[usize]) -> Option<Pairs> {
        let graph = self.graph();
        let n = self.e.len();
        let mut rest: Vec<usize> = order.to_vec();
        let mut bye = None;
        let mut matcher = None;
        if rest.len() % 2 == 1 {
            // The lowest-ranked eligible player whose absence leaves a full pairing.
            for pos in (0..rest.len()).rev() {
                if !self.may_sit_out(rest[pos]) {
                    continue;
                }
                let mut present = vec![false; n];
                rest.iter().for_each(|&i| present[i] = true);
                present[rest[pos]] = false;
                let mut m = Matcher::new(&graph, present);
                m.maximize();
                if m.is_perfect() {
                    bye = Some(rest.remove(pos));
                    matcher = Some(m);
                    break;
                }
            }
        } else {
            let mut present = vec![false; n];
            rest.iter().for_each(|&i| present[i] = true);
            let mut m = Matcher::new(&graph, present);
            m.maximize();
            if m.is_perfect() {
                matcher = Some(m);
            }
        }
        let mut matcher = matcher?;
        let mut pairs = Vec::new();
        let mut started: Option<u32> = None;
        let mut floater: Option<usize> = None;
        while !rest.is_empty() {
            let p = rest[0];
            if started != Some(self.e[p].score) {
                // A new score group: pick who floats down from it, and let him wait
                // until the rest of the group is paired.
                started = Some(self.e[p].score);
                floater = self.choose_floater(&rest, self.e[p].score, &matcher);
                if let Some(f) = floater {
                    let from = rest.iter().position(|&r| r == f).expect("in rest");
                    let end = rest
                        .iter()
                        .rposition(|&r| self.e[r].score == self.e[f].score)
                        .expect("f is in its group");
                    rest[from..=end].rotate_left(1);
                    if rest[0] != p {
                        continue;
                    }
                }
            }
            let others = &rest[1..];
            let mut candidates: Vec<(u32, bool, bool, u8, usize, usize)> = Vec::new();
            let group: Vec<usize> = rest
                .iter()
                .copied()
                .filter(|&q| self.e[q].score == self.e[p].score && Some(q) != floater)
                .collect();
            let half = group.len() / 2;
            for (pos, &q) in others.iter().enumerate() {
                if !self.may_meet(p, q) {
                    continue;
                }
                let distance = self.e[p].score - self.e[q].score;
                let colour_bad =
                    !colours::both_satisfied(&self.e[p].colours, &self.e[q].colours, Color::Red);
                let designated = distance == 0 && Some(q) == floater;
                let up_cost = if distance > 0 {
                    self.float_cost(q, Float::Up)
                } else {
                    0
                };
                let dutch = match group.iter().position(|&g| g == q) {
                    Some(k) if k >= half => k - half,
                    Some(k) => (group.len() - half) + (half - 1 - k),
                    None => pos,
                };
                candidates.push((distance, colour_bad, designated, up_cost, dutch, q));
            }
            candidates.sort();
            let chosen = candidates
                .into_iter()
                .map(|c| c.5)
                .find(|&q| matcher.try_remove_pair(p, q))?;
            pairs.push((p, chosen));
            rest.retain(|&r| r != p && r != chosen);
        }
        Some((pairs, bye))
    }
}

fn finish(
    e: &[SwissEntrant],
    mut pairs: Vec<(usize, usize)>,
    bye: Option<usize>,
    relaxed: Relaxation,
    initial: Color,
) -> SwissPairing {
    // Board order: higher score of the pair, then the sum, then the better ranking.
    pairs.sort_by(|&(a1, b1), &(a2, b2)| {
        let key = |a: usize, b: usize| {
            let hi = e[a].score.max(e[b].score);
            (
                std::cmp::Reverse(hi),
                std::cmp::Reverse(e[a].score + e[b].score),
                a.min(b),
            )
        };
        key(a1, b1).cmp(&key(a2, b2))
    });
    let boards = pairs
        .iter()
        .enumerate()
        .map(|(i, &(a, b))| {
            // The higher-ranked player is the better score, then the lower pairing number.
            let (hi, lo) =
                if (e[b].score, std::cmp::Reverse(b)) > (e[a].score, std::cmp::Reverse(a)) {
                    (b, a)
                } else {
                    (a, b)
                };
            let default = if i % 2 == 0 { initial } else { !initial };
            let c = colours::allocate(&e[hi].colours, &e[lo].colours, default);
            if c == Color::Red {
                (e[hi].id, e[lo].id)
            } else {
                (e[lo].id, e[hi].id)
            }
        })
        .collect();
    SwissPairing {
        boards,
        bye: bye.map(|b| e[b].id),
        relaxed,
    }
}
