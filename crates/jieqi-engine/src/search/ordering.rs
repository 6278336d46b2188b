//! Move ordering: the hash move, captures by MVV-LVA, killers, then the history of
//! quiet moves; and the selection sort that hands the moves out best first.

use jieqi_core::Move;

use super::Searcher;

/// The history of moves' success, per colour and (from, to).
pub(super) type History = [[i32; 8100]; 2];

/// The index of `m` in a [`History`] table.
fn move_index(m: Move) -> usize {
    m.from.index() * 90 + m.to.index()
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
        let us = self.pos.turn().index();
        let b = self.pos.board();
        for (i, &m) in moves.iter().enumerate() {
            scores[i] = if Some(m) == tt_move {
                10_000_000
            } else if let Some(victim) = b.piece_at(m.to) {
                let attacker = b.piece_at(m.from).map_or(0, |p| self.piece_value(p));
                1_000_000 + self.piece_value(victim) * 16 - attacker / 16
            } else if self.features.killers && Some(m) == self.stack[ply].killers[0] {
                900_000
            } else if self.features.killers && Some(m) == self.stack[ply].killers[1] {
                899_000
            } else if self.features.history {
                self.history[us][move_index(m)]
            } else {
                0
            };
        }
    }

    pub(super) fn update_history(&mut self, m: Move, bonus: i32) {
        if !self.features.history {
            return;
        }
        let us = self.pos.turn().index();
        let h = &mut self.history[us][move_index(m)];
        *h += bonus - *h * bonus.abs() / 16384;
    }
}
