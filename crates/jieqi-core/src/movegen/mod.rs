//! Legal move generation.
//!
//! Pseudo-legal moves come from the line tables and step tables of [`tables`]; a move
//! is then legal unless it leaves the mover's king attacked. Most moves cannot change
//! that: when the mover is not in check, only a king move, a move from a point on the
//! king's rank or file or diagonally next to the king (a horse's leg or an elephant's
//! eye), or a move to a point on the king's rank or file (a new cannon screen) can
//! expose the king. Only those are made on the board and tested.

pub(crate) mod tables;

use crate::board::{
    ADVISOR, BLACK, Board, CANNON, ELEPHANT, HIDDEN, HORSE, KING, NO_KING, PAWN, ROLE, ROOK,
};
use crate::{Color, Square};
use tables::{
    ADVISOR_MOVES, ELEPHANT_MOVES, FILE_SLIDE, HIDDEN_ADVISOR_MOVES, HORSE_MOVES, KING_MOVES,
    PAWN_MOVES, RANK_SLIDE, Steps,
};

/// A move as a pair of points; what it reveals is not part of it (see
/// [`crate::Reveals`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// Where the piece stands.
    pub from: Square,
    /// Where it goes (and what it captures there, if anything).
    pub to: Square,
}

impl Move {
    /// A move from `from` to `to`.
    pub const fn new(from: Square, to: Square) -> Move {
        Move { from, to }
    }
}

impl std::fmt::Display for Move {
    /// The 4-character coordinate form, `h2e2`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.from, self.to)
    }
}

/// Most legal moves a side can have, with room to spare.
pub const MAX_MOVES: usize = 192;

/// A fixed-capacity list of moves (no allocation).
#[derive(Clone)]
pub struct MoveList {
    len: usize,
    moves: [Move; MAX_MOVES],
}

impl Default for MoveList {
    fn default() -> MoveList {
        MoveList::new()
    }
}

impl MoveList {
    /// An empty list.
    pub const fn new() -> MoveList {
        MoveList { len: 0, moves: [Move { from: Square::E0, to: Square::E0 }; MAX_MOVES] }
    }
    /// The moves as a slice.
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }
    /// The moves, mutable (for ordering).
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }
    /// How many moves.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Appends a move.
    #[inline(always)]
    pub fn push(&mut self, m: Move) {
        self.moves[self.len] = m;
        self.len += 1;
    }
    /// Whether `m` is in the list.
    pub fn contains(&self, m: Move) -> bool {
        self.as_slice().contains(&m)
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// Receives generated moves: a list, or just a counter.
pub(crate) trait Sink {
    fn push(&mut self, from: usize, to: usize);
}

impl Sink for MoveList {
    #[inline(always)]
    fn push(&mut self, from: usize, to: usize) {
        MoveList::push(self, Move::new(Square::new_unchecked(from as u8), Square::new_unchecked(to as u8)));
    }
}

/// Counts moves without storing them.
pub(crate) struct Counter(pub u64);

impl Sink for Counter {
    #[inline(always)]
    fn push(&mut self, _: usize, _: usize) {
        self.0 += 1;
    }
}

/// Points on a point's rank or file (not the point itself).
static LINES: [u128; 90] = {
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        let mut x = 0;
        while x < 90 {
            if x != s && (x % 9 == s % 9 || x / 9 == s / 9) {
                t[s] |= 1u128 << x;
            }
            x += 1;
        }
        s += 1;
    }
    t
};

/// Points diagonally adjacent to a point: the legs and eyes through which horses and
/// elephants attack it.
static DIAGONALS: [u128; 90] = {
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        let a = ADVISOR_MOVES[s];
        let mut i = 0;
        while i < a.len as usize {
            t[s] |= 1u128 << a.to[i];
            i += 1;
        }
        s += 1;
    }
    t
};

impl Board {
    /// Whether moving `from`→`to` leaves colour `us`'s king safe (made and unmade).
    #[inline]
    pub(crate) fn move_is_safe(&mut self, us: usize, from: usize, to: usize) -> bool {
        let captured = self.cells[to];
        let code = self.cells[from];
        self.shift(from, to, code);
        let k = self.kings[us];
        let safe = k == NO_KING || !self.attacked(k as usize, us ^ 1);
        self.remove(to);
        self.put(from, code);
        if captured != 0 {
            self.put(to, captured);
        }
        safe
    }

    /// Generates the legal moves of colour `us` into `sink`. Restores the board.
    pub(crate) fn generate<S: Sink>(&mut self, us: Color, sink: &mut S) {
        let us = us.index();
        let k = self.kings[us];
        let in_check = k != NO_KING && self.attacked(k as usize, us ^ 1);
        // Points where a move starting (resp. ending) may affect the king's safety.
        let (risky_from, risky_to) = if k == NO_KING {
            (0, 0)
        } else if in_check {
            (u128::MAX, u128::MAX)
        } else {
            (LINES[k as usize] | DIAGONALS[k as usize] | (1u128 << k), LINES[k as usize])
        };
        let mut own = self.occ[us];
        while own != 0 {
            let from = own.trailing_zeros() as usize;
            own &= own - 1;
            let code = self.cells[from];
            let from_risky = (risky_from >> from) & 1 != 0;
            let (f, r) = (from % 9, from / 9);
            match code & ROLE {
                ROOK | CANNON => {
                    let cannon = code & ROLE == CANNON;
                    let rocc = (self.rank_bits[0][r] | self.rank_bits[1][r]) as usize;
                    let e = &RANK_SLIDE[f][rocc];
                    let m = if cannon { e.cannon } else { e.rook } & !self.rank_bits[us][r];
                    self.emit_line(us, from, from_risky, risky_to, m, r * 9, 1, sink);
                    let focc = (self.file_bits[0][f] | self.file_bits[1][f]) as usize;
                    let e = &FILE_SLIDE[r][focc];
                    let m = if cannon { e.cannon } else { e.rook } & !self.file_bits[us][f];
                    self.emit_line(us, from, from_risky, risky_to, m, f, 9, sink);
                }
                HORSE => self.emit_steps(us, from, from_risky, risky_to, &HORSE_MOVES[from], true, sink),
                ELEPHANT => {
                    self.emit_steps(us, from, from_risky, risky_to, &ELEPHANT_MOVES[from], true, sink)
                }
                ADVISOR => {
                    let steps = if code & HIDDEN != 0 {
                        &HIDDEN_ADVISOR_MOVES[us][from]
                    } else {
                        &ADVISOR_MOVES[from]
                    };
                    self.emit_steps(us, from, from_risky, risky_to, steps, false, sink)
                }
                PAWN => self.emit_steps(us, from, from_risky, risky_to, &PAWN_MOVES[us][from], false, sink),
                KING => self.emit_steps(us, from, true, u128::MAX, &KING_MOVES[us][from], false, sink),
                _ => {}
            }
        }
    }

    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn emit_line<S: Sink>(
        &mut self,
        us: usize,
        from: usize,
        from_risky: bool,
        risky_to: u128,
        mut m: u16,
        base: usize,
        stride: usize,
        sink: &mut S,
    ) {
        while m != 0 {
            let to = base + m.trailing_zeros() as usize * stride;
            m &= m - 1;
            if (!from_risky && (risky_to >> to) & 1 == 0) || self.move_is_safe(us, from, to) {
                sink.push(from, to);
            }
        }
    }

    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn emit_steps<S: Sink, const N: usize>(
        &mut self,
        us: usize,
        from: usize,
        from_risky: bool,
        risky_to: u128,
        steps: &Steps<N>,
        blockable: bool,
        sink: &mut S,
    ) {
        let own = (us as u8) << 3;
        for i in 0..steps.len as usize {
            let to = steps.to[i] as usize;
            let target = self.cells[to];
            if target != 0 && target & BLACK == own {
                continue;
            }
            if blockable && self.cells[steps.via[i] as usize] != 0 {
                continue;
            }
            if (!from_risky && (risky_to >> to) & 1 == 0) || self.move_is_safe(us, from, to) {
                sink.push(from, to);
            }
        }
    }

    /// The legal moves of `us` on this board.
    pub fn legal_moves(&self, us: Color) -> MoveList {
        let mut list = MoveList::new();
        self.clone().generate(us, &mut list);
        list
    }

    /// The number of legal moves of `us` on this board.
    pub fn count_legal(&mut self, us: Color) -> u64 {
        let mut c = Counter(0);
        self.generate(us, &mut c);
        c.0
    }
}
