//! Move ordering: the hash move, captures by MVV-LVA, killers, then the history of
//! quiet moves; and the selection sort that hands the moves out best first.

use jieqi_core::Move;

use super::Searcher;
use super::tunables::{
    CAPTURE_SCORE, FIRST_KILLER_SCORE, HASH_MOVE_SCORE, HISTORY_LIMIT, LVA_DIVISOR, MVV_WEIGHT,
    SECOND_KILLER_SCORE,
};

/// Squares of the board, the range of a move's origin and of its destination.
const SQUARES: usize = 90;

/// The history of moves' success, per colour and (from, to).
pub(super) type History = [[i32; SQUARES * SQUARES]; 2];

/// What a search thread learns about quiet moves: kept from one search to the next
/// of a game when `Use KeepHistory` is on (a new game forgets it).
pub struct Histories {
    /// By colour, origin and destination.
    quiet: Box<History>,
}

impl Histories {
    /// Empty tables (allocated zeroed, so cheap until used).
    pub fn new() -> Histories {
        Histories {
            quiet: vec![[0i32; SQUARES * SQUARES]; 2]
                .into_boxed_slice()
                .try_into()
                .expect("two history tables"),
        }
    }

    /// Whether nothing was learnt yet: every score is zero.
    pub fn is_empty(&self) -> bool {
        self.quiet.iter().flatten().all(|&h| h == 0)
    }
}

impl Default for Histories {
    fn default() -> Histories {
        Histories::new()
    }
}

/// Adds `bonus` to the history score `h`, less the more `h` already has of it (the
/// scores stay within ±[`HISTORY_LIMIT`]).
fn apply_bonus(h: i32, bonus: i32) -> i32 {
    h + bonus - h * bonus.abs() / HISTORY_LIMIT
}

/// The index of `m` in a [`History`] table.
fn move_index(m: Move) -> usize {
    m.from.index() * SQUARES + m.to.index()
}

/// The ordering score of a capture of a piece worth `victim` by one worth `attacker`
/// (MVV-LVA: the most valuable victim first, then the least valuable attacker).
pub(super) fn capture_score(victim: i32, attacker: i32) -> i32 {
    CAPTURE_SCORE + victim * MVV_WEIGHT - attacker / LVA_DIVISOR
}

/// One step of selection sort: brings the best-scored of `moves[i..]` to `i` (the
/// first of equals), with its score.
#[inline]
pub(super) fn pick_best(moves: &mut [Move], scores: &mut [i32], i: usize) {
    let mut bi = i;
    for j in i + 1..moves.len() {
        if scores[j] > scores[bi] {
            bi = j;
        }
    }
    moves.swap(i, bi);
    scores.swap(i, bi);
}

impl Searcher<'_> {
    /// Ordering scores for `moves`.
    pub(super) fn score_moves(
        &self,
        moves: &[Move],
        tt_move: Option<Move>,
        ply: usize,
        scores: &mut [i32],
    ) {
        let b = self.pos.board();
        for (i, &m) in moves.iter().enumerate() {
            scores[i] = if Some(m) == tt_move {
                HASH_MOVE_SCORE
            } else if let Some(victim) = b.piece_at(m.to) {
                let attacker = b.piece_at(m.from).map_or(0, |p| self.piece_value(p));
                capture_score(self.piece_value(victim), attacker)
            } else if self.features.killers && Some(m) == self.stack[ply].killers[0] {
                FIRST_KILLER_SCORE
            } else if self.features.killers && Some(m) == self.stack[ply].killers[1] {
                SECOND_KILLER_SCORE
            } else {
                self.quiet_score(m)
            };
        }
    }

    /// The history score of the quiet move `m`.
    fn quiet_score(&self, m: Move) -> i32 {
        if !self.features.history {
            return 0;
        }
        self.histories.quiet[self.pos.turn().index()][move_index(m)]
    }

    /// Adds `bonus` (a malus if negative) to the history of the quiet move `m` of the
    /// side to move, less the more the score already has of it.
    pub(super) fn update_history(&mut self, m: Move, bonus: i32) {
        if !self.features.history {
            return;
        }
        let us = self.pos.turn().index();
        let h = &mut self.histories.quiet[us][move_index(m)];
        *h = apply_bonus(*h, bonus);
    }
}
