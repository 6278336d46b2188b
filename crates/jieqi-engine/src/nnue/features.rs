//! The network's inputs: which features a position turns on, seen from one side.
//!
//! Each side has its own perspective. From perspective `p`, squares are seen as `p`
//! sees them (rotated 180° for Black, so "own" pieces always start on ranks 0–3), and
//! pieces are "own" (colour `p`) or "theirs". The inputs, 1 470 in all:
//!
//! | range | feature | count |
//! | --- | --- | --- |
//! | 0 – 1259 | face-up piece: side (own, theirs) × role (7) × square (90) | 1 260 |
//! | 1260 – 1439 | face-down piece (暗子): side × square (its start piece is its square) | 180 |
//! | 1440 – 1469 | pool (暗子池) counts: side × one "at least k" input per piece of the set (A 2, B 2, N 2, R 2, C 2, P 5) | 30 |
//!
//! A pool of two rooks turns on "rooks ≥ 1" and "rooks ≥ 2", so that taking one
//! identity out of a pool (a reveal, or a captured identity learnt) turns off exactly
//! one input. The pools are the side to move's knowledge (its view: the searched
//! [`Position`]); the identities it captured show only through them.

use jieqi_core::{Color, Material, Piece, Position, Role, Square};

/// Face-up piece inputs: 2 sides × 7 roles × 90 squares.
const UP: usize = 0;
/// First face-down piece input.
const DOWN: usize = 2 * 7 * 90;
/// First pool input: the inputs below it are pieces on the board, one each.
pub const POOL: usize = DOWN + 2 * 90;
/// Pool inputs per side: one per non-king piece of a set.
const POOL_PER_SIDE: usize = 15;
/// The number of inputs.
pub const INPUTS: usize = POOL + 2 * POOL_PER_SIDE;
/// The most inputs one position can turn on per perspective (32 pieces and two full
/// pools).
pub const MAX_ACTIVE: usize = 32 + 2 * POOL_PER_SIDE;
/// The most inputs a move turns off per perspective: the mover, a captured piece, and
/// two pool entries (the mover's revealed identity and a captured identity learnt).
pub const MAX_REMOVED: usize = 4;
/// The most inputs a move turns on per perspective: the piece on its destination.
pub const MAX_ADDED: usize = 1;

/// The first pool input of `role` within a side's block (`None` for the king, which is
/// never in a pool).
const fn pool_offset(role: Role) -> Option<usize> {
    match role {
        Role::King => None,
        Role::Advisor => Some(0),
        Role::Elephant => Some(2),
        Role::Horse => Some(4),
        Role::Rook => Some(6),
        Role::Cannon => Some(8),
        Role::Pawn => Some(10),
    }
}

/// The square as `perspective` sees it.
#[inline]
const fn oriented(perspective: Color, sq: Square) -> usize {
    match perspective {
        Color::Red => sq.index(),
        Color::Black => sq.flip().index(),
    }
}

/// 0 for `perspective`'s own colour, 1 for the other.
#[inline]
fn side(perspective: Color, color: Color) -> usize {
    usize::from(color != perspective)
}

/// The input of `piece` standing on `sq`, from `perspective`.
#[inline]
pub fn piece_input(perspective: Color, sq: Square, piece: Piece) -> usize {
    let s = oriented(perspective, sq);
    match piece {
        Piece::Up(c, r) => UP + (side(perspective, c) * 7 + r.index()) * 90 + s,
        Piece::Down(c) => DOWN + side(perspective, c) * 90 + s,
    }
}

/// The input "`color`'s pool holds at least `k + 1` of `role`", from `perspective`;
/// `None` for the king or a `k` beyond the set.
#[inline]
pub fn pool_input(perspective: Color, color: Color, role: Role, k: u8) -> Option<usize> {
    let off = pool_offset(role)?;
    (k < role.count()).then(|| POOL + side(perspective, color) * POOL_PER_SIDE + off + k as usize)
}

/// The inputs the pools turn on, from `perspective`.
fn pool_inputs(perspective: Color, pool: &Material, out: &mut Vec<u16>) {
    for c in Color::ALL {
        for r in Role::HIDDEN {
            for k in 0..pool.get(c, r) {
                if let Some(i) = pool_input(perspective, c, r, k) {
                    out.push(i as u16);
                }
            }
        }
    }
}

/// Every input `pos` turns on from `perspective`, appended to `out`.
pub fn active(pos: &Position, perspective: Color, out: &mut Vec<u16>) {
    for (sq, piece) in pos.board().pieces() {
        out.push(piece_input(perspective, sq, piece) as u16);
    }
    pool_inputs(perspective, pos.pool(), out);
}

/// The inputs a move turns off and on, from one perspective.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delta {
    /// Inputs turned off; the first `removed_len` count.
    pub removed: [u16; MAX_REMOVED],
    /// How many of `removed` are in use.
    pub removed_len: usize,
    /// Inputs turned on; the first `added_len` count.
    pub added: [u16; MAX_ADDED],
    /// How many of `added` are in use.
    pub added_len: usize,
}

impl Delta {
    fn remove(&mut self, i: usize) {
        self.removed[self.removed_len] = i as u16;
        self.removed_len += 1;
    }

    fn add(&mut self, i: usize) {
        self.added[self.added_len] = i as u16;
        self.added_len += 1;
    }

    /// The inputs turned off.
    pub fn removed(&self) -> &[u16] {
        &self.removed[..self.removed_len]
    }

    /// The inputs turned on.
    pub fn added(&self) -> &[u16] {
        &self.added[..self.added_len]
    }
}

/// What one move changed on the board and in the pools, enough to update both
/// perspectives' inputs.
#[derive(Clone, Copy, Debug)]
pub struct MoveChange {
    /// The origin.
    pub from: Square,
    /// The destination.
    pub to: Square,
    /// The piece that left `from` (face-down if it was).
    pub moved: Piece,
    /// The piece that stands on `to` after the move (face-up: a reveal shows here).
    pub arrived: Piece,
    /// The piece captured on `to`, if any.
    pub captured: Option<Piece>,
    /// The pools before the move.
    pub pool_before: Material,
    /// The pools after it.
    pub pool_after: Material,
}

impl MoveChange {
    /// The inputs this change turns off and on, from `perspective`; `None` when the
    /// pools grew (never by a move; the caller then recomputes from scratch).
    pub fn delta(&self, perspective: Color) -> Option<Delta> {
        let mut d = Delta::default();
        d.remove(piece_input(perspective, self.from, self.moved));
        if let Some(c) = self.captured {
            d.remove(piece_input(perspective, self.to, c));
        }
        d.add(piece_input(perspective, self.to, self.arrived));
        for c in Color::ALL {
            for r in Role::HIDDEN {
                let (before, after) = (self.pool_before.get(c, r), self.pool_after.get(c, r));
                if after > before {
                    return None;
                }
                for k in after..before {
                    if d.removed_len == MAX_REMOVED {
                        return None;
                    }
                    if let Some(i) = pool_input(perspective, c, r, k) {
                        d.remove(i);
                    }
                }
            }
        }
        Some(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_distinct_and_in_range() {
        let mut seen = vec![false; INPUTS];
        for p in Color::ALL {
            seen.iter_mut().for_each(|s| *s = false);
            for sq in Square::all() {
                for c in Color::ALL {
                    let mut pieces = vec![Piece::Down(c)];
                    pieces.extend(Role::ALL.iter().map(|&r| Piece::Up(c, r)));
                    for piece in pieces {
                        let i = piece_input(p, sq, piece);
                        assert!(i < INPUTS && !seen[i], "{p:?} {sq:?} {piece:?}");
                        seen[i] = true;
                    }
                }
            }
            for c in Color::ALL {
                for r in Role::HIDDEN {
                    for k in 0..r.count() {
                        let i = pool_input(p, c, r, k).expect("in the set");
                        assert!(i < INPUTS && !seen[i]);
                        seen[i] = true;
                    }
                    assert_eq!(pool_input(p, c, r, r.count()), None);
                }
            }
            assert!(seen.iter().all(|&s| s), "every input is used");
        }
    }

    #[test]
    fn the_start_looks_the_same_to_both_sides() {
        let pos = Position::start();
        let (mut red, mut black) = (Vec::new(), Vec::new());
        active(&pos, Color::Red, &mut red);
        active(&pos, Color::Black, &mut black);
        red.sort_unstable();
        black.sort_unstable();
        assert_eq!(red, black);
        assert_eq!(red.len(), 32 + 30);
        assert!(red.len() <= MAX_ACTIVE);
    }
}
