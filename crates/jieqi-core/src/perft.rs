//! Perft: counting leaf nodes of the legal move tree, the test and the speed measure of
//! move generation. The last ply is bulk-counted (moves are counted, not made).

use crate::board::HIDDEN;
use crate::{Deal, Move, Position, Reveals, Role};

/// How face-down movers are revealed while counting.
#[derive(Copy, Clone, Debug)]
pub enum Mode<'a> {
    /// As the deal says for the mover's start square (a captured face-down piece's
    /// identity also comes from the deal).
    Deal(&'a Deal),
    /// Each move of a face-down piece branches into one child per distinct identity
    /// with a positive count in the mover's pool; capturing a face-down piece neither
    /// branches nor changes the pool.
    Chance,
}

/// The number of leaves at `depth` plies.
pub fn perft(pos: &Position, depth: u32, mode: Mode<'_>) -> u64 {
    let mut pos = pos.clone();
    count(&mut pos, depth, mode)
}

/// The leaf count below each root move (children of one move summed over reveals).
pub fn divide(pos: &Position, depth: u32, mode: Mode<'_>) -> Vec<(Move, u64)> {
    let mut out = Vec::new();
    divide_each(pos, depth, mode, &mut |m, n| {
        out.push((m, n));
        true
    });
    out
}

/// As [`divide`], handing each root move's count to `each` as soon as it is known;
/// stops early (before the next root move) when `each` returns false.
pub fn divide_each(
    pos: &Position,
    depth: u32,
    mode: Mode<'_>,
    each: &mut dyn FnMut(Move, u64) -> bool,
) {
    let mut pos = pos.clone();
    let moves = pos.legal_moves();
    for &m in moves.iter() {
        let n = if depth == 0 {
            1
        } else {
            children(&mut pos, m, mode)
                .iter()
                .map(|&rv| {
                    let undo = pos.play_unchecked(m, rv);
                    let n = count(&mut pos, depth - 1, mode);
                    pos.unplay(undo);
                    n
                })
                .sum()
        };
        if !each(m, n) {
            return;
        }
    }
}

/// The ways a move can turn out under `mode`.
fn children(pos: &mut Position, m: Move, mode: Mode<'_>) -> Vec<Reveals> {
    let cells = &pos.board.cells;
    let hidden_mover = cells[m.from.index()] & HIDDEN != 0;
    match mode {
        Mode::Deal(deal) => vec![deal.reveals(pos, m)],
        Mode::Chance if hidden_mover => Role::HIDDEN
            .iter()
            .filter(|&&r| pos.pool.get(pos.turn, r) > 0)
            .map(|&r| Reveals {
                mover: Some(r),
                captured: None,
            })
            .collect(),
        Mode::Chance => vec![Reveals::NONE],
    }
}

fn count(pos: &mut Position, depth: u32, mode: Mode<'_>) -> u64 {
    if depth == 0 {
        return 1;
    }
    let us = pos.turn;
    if depth == 1 {
        return match mode {
            Mode::Deal(_) => pos.board.count_legal(us),
            Mode::Chance => {
                let moves = pos.board.legal_moves(us);
                let distinct = Role::HIDDEN
                    .iter()
                    .filter(|&&r| pos.pool.get(us, r) > 0)
                    .count() as u64;
                moves
                    .iter()
                    .map(|m| {
                        if pos.board.cells[m.from.index()] & HIDDEN != 0 {
                            distinct
                        } else {
                            1
                        }
                    })
                    .sum()
            }
        };
    }
    let moves = pos.board.legal_moves(us);
    let mut total = 0;
    for &m in moves.iter() {
        match mode {
            Mode::Deal(deal) => {
                let rv = deal.reveals(pos, m);
                let undo = pos.play_unchecked(m, rv);
                total += count(pos, depth - 1, mode);
                pos.unplay(undo);
            }
            Mode::Chance => {
                for rv in children(pos, m, mode) {
                    let undo = pos.play_unchecked(m, rv);
                    total += count(pos, depth - 1, mode);
                    pos.unplay(undo);
                }
            }
        }
    }
    total
}
