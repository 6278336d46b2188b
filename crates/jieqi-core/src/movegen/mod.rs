//! Legal move generation.
//!
//! Pseudo-legal moves come from the line tables and step tables of `tables`; a move
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
    ADVISOR_BB, ELEPHANT_EYES, FILE_SLIDE, FILE_SPREAD, HIDDEN_ADVISOR_BB, HORSE_LEGS, KING_BB,
    PAWN_BB, RANK_SLIDE,
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
        MoveList {
            len: 0,
            moves: [Move {
                from: Square::E0,
                to: Square::E0,
            }; MAX_MOVES],
        }
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

    /// Every point of `targets`, each known to be a legal destination.
    #[inline(always)]
    fn push_all(&mut self, from: usize, mut targets: u128) {
        while targets != 0 {
            self.push(from, targets.trailing_zeros() as usize);
            targets &= targets - 1;
        }
    }
}

impl Sink for MoveList {
    #[inline(always)]
    fn push(&mut self, from: usize, to: usize) {
        MoveList::push(
            self,
            Move::new(
                Square::new_unchecked(from as u8),
                Square::new_unchecked(to as u8),
            ),
        );
    }
}

/// Counts moves without storing them.
pub(crate) struct Counter(pub u64);

impl Sink for Counter {
    #[inline(always)]
    fn push(&mut self, _: usize, _: usize) {
        self.0 += 1;
    }

    #[inline(always)]
    fn push_all(&mut self, _: usize, targets: u128) {
        self.0 += u64::from(targets.count_ones());
    }
}

/// Points strictly between two points on one rank or file (0 otherwise).
static RAYS_BETWEEN: [[u128; 90]; 90] = {
    let mut t = [[0u128; 90]; 90];
    let mut a = 0;
    while a < 90 {
        let mut b = 0;
        while b < 90 {
            let (af, ar, bf, br) = (a % 9, a / 9, b % 9, b / 9);
            if a != b && (af == bf || ar == br) {
                let step = if af == bf { 9 } else { 1 };
                let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                let mut x = lo + step;
                while x < hi {
                    t[a][b] |= 1u128 << x;
                    x += step;
                }
            }
            b += 1;
        }
        a += 1;
    }
    t
};

/// For a king point: each diagonal neighbour (a leg / eye), the two points from which
/// a horse attacks the king through it, and the point from which an elephant does
/// (`u8::MAX` when off the board).
struct LegThreats {
    len: u8,
    items: [(u8, [u8; 2], u8); 4],
}

static LEG_THREATS: [LegThreats; 90] = {
    const fn at(f: isize, r: isize) -> u8 {
        if f >= 0 && f < 9 && r >= 0 && r < 10 {
            (r * 9 + f) as u8
        } else {
            u8::MAX
        }
    }
    let mut t = [const {
        LegThreats {
            len: 0,
            items: [(0, [0; 2], 0); 4],
        }
    }; 90];
    let mut k = 0;
    while k < 90 {
        let (kf, kr) = ((k % 9) as isize, (k / 9) as isize);
        let d = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
        let mut i = 0;
        while i < 4 {
            let (df, dr) = d[i];
            let leg = at(kf + df, kr + dr);
            if leg != u8::MAX {
                let n = t[k].len as usize;
                t[k].items[n] = (
                    leg,
                    [at(kf + 2 * df, kr + dr), at(kf + df, kr + 2 * dr)],
                    at(kf + 2 * df, kr + 2 * dr),
                );
                t[k].len += 1;
            }
            i += 1;
        }
        k += 1;
    }
    t
};

impl Board {
    /// Whether moving `from`→`to` leaves colour `us`'s king safe. Only what attack
    /// detection reads (cells and line occupancy) is changed, then restored.
    #[inline]
    pub(crate) fn move_is_safe(&mut self, us: usize, from: usize, to: usize) -> bool {
        let them = us ^ 1;
        let captured = self.cells[to];
        let code = self.cells[from];
        let (ff, fr, tf, tr) = (from % 9, from / 9, to % 9, to / 9);
        self.cells[from] = 0;
        self.cells[to] = code;
        self.rank_bits[us][fr] &= !(1 << ff);
        self.file_bits[us][ff] &= !(1 << fr);
        self.rank_bits[us][tr] |= 1 << tf;
        self.file_bits[us][tf] |= 1 << tr;
        if captured != 0 {
            self.rank_bits[them][tr] &= !(1 << tf);
            self.file_bits[them][tf] &= !(1 << tr);
        }
        let k = if code & ROLE == KING {
            to
        } else {
            self.kings[us] as usize
        };
        let safe = k == NO_KING as usize || !self.attacked(k, them);
        self.cells[from] = code;
        self.cells[to] = captured;
        self.rank_bits[us][tr] &= !(1 << tf);
        self.file_bits[us][tf] &= !(1 << tr);
        self.rank_bits[us][fr] |= 1 << ff;
        self.file_bits[us][ff] |= 1 << fr;
        if captured != 0 {
            self.rank_bits[them][tr] |= 1 << tf;
            self.file_bits[them][tf] |= 1 << tr;
        }
        safe
    }

    /// Generates the legal moves of colour `us` into `sink`. Restores the board.
    #[inline]
    pub(crate) fn generate<S: Sink>(&mut self, us: Color, sink: &mut S) {
        self.generate_to(us, u128::MAX, sink);
    }

    /// Generates the legal moves of colour `us` that end on a point of `allowed`
    /// into `sink`. Restores the board.
    pub(crate) fn generate_to<S: Sink>(&mut self, us: Color, allowed: u128, sink: &mut S) {
        let us = us.index();
        let k = self.kings[us];
        let in_check = k != NO_KING && self.attacked(k as usize, us ^ 1);
        // Points where a move starting (resp. ending) may affect the king's safety.
        let (risky_from, risky_to) = if k == NO_KING {
            (0, 0)
        } else if in_check {
            (u128::MAX, u128::MAX)
        } else {
            self.risk_masks(us, k as usize)
        };
        let own_bb = self.occ[us];
        // Points no move of ours may end on: our own pieces and what is not allowed.
        let blocked = own_bb | !allowed;
        let mut own = own_bb;
        while own != 0 {
            let from = own.trailing_zeros() as usize;
            own &= own - 1;
            let code = self.cells[from];
            let from_risky = (risky_from >> from) & 1 != 0;
            if code & ROLE == KING {
                let targets = KING_BB[us][from] & !blocked;
                self.emit(us, from, true, u128::MAX, targets, sink);
                continue;
            }
            let targets = self.piece_targets(us, from, code, blocked, allowed);
            self.emit(us, from, from_risky, risky_to, targets, sink);
        }
    }

    /// The points the piece `code` of colour `us` on `from` may move to, ignoring its
    /// own king's safety, among `allowed`; `blocked` holds the own pieces and every
    /// point not allowed. The king steps in its palace.
    #[inline(always)]
    pub(crate) fn piece_targets(
        &self,
        us: usize,
        from: usize,
        code: u8,
        blocked: u128,
        allowed: u128,
    ) -> u128 {
        let (f, r) = (from % 9, from / 9);
        match code & ROLE {
            ROOK | CANNON => {
                let cannon = code & ROLE == CANNON;
                let rocc = (self.rank_bits[0][r] | self.rank_bits[1][r]) as usize;
                let e = &RANK_SLIDE[f][rocc];
                let rank = if cannon { e.cannon } else { e.rook } & !self.rank_bits[us][r];
                let focc = (self.file_bits[0][f] | self.file_bits[1][f]) as usize;
                let e = &FILE_SLIDE[r][focc];
                let file = if cannon { e.cannon } else { e.rook } & !self.file_bits[us][f];
                (((rank as u128) << (r * 9)) | (FILE_SPREAD[file as usize] << f)) & allowed
            }
            HORSE => {
                let mut t = 0;
                for &(leg, bb) in &HORSE_LEGS[from] {
                    if leg != u8::MAX && self.cells[leg as usize] == 0 {
                        t |= bb;
                    }
                }
                t & !blocked
            }
            ELEPHANT => {
                let mut t = 0;
                for &(eye, bb) in &ELEPHANT_EYES[from] {
                    if eye != u8::MAX && self.cells[eye as usize] == 0 {
                        t |= bb;
                    }
                }
                t & !blocked
            }
            ADVISOR if code & HIDDEN != 0 => HIDDEN_ADVISOR_BB[us][from] & !blocked,
            ADVISOR => ADVISOR_BB[from] & !blocked,
            PAWN => PAWN_BB[us][from] & !blocked,
            KING => KING_BB[us][from] & !blocked,
            _ => 0,
        }
    }

    /// The captures of `us` that are legal but perhaps for leaving its own king
    /// attacked (pseudo-legal): cheaper than [`Board::legal_captures`] when most of
    /// them are never played; test each with [`Board::leaves_king_safe`] before
    /// playing it.
    pub fn pseudo_legal_captures(&self, us: Color) -> MoveList {
        let mut list = MoveList::new();
        let u = us.index();
        let allowed = self.occ[u ^ 1];
        let blocked = !allowed;
        let mut own = self.occ[u];
        while own != 0 {
            let from = own.trailing_zeros() as usize;
            own &= own - 1;
            let targets = self.piece_targets(u, from, self.cells[from], blocked, allowed);
            list.push_all(from, targets);
        }
        list
    }

    /// Whether the move `m` of `us`, one of its pseudo-legal moves (see
    /// [`Board::pseudo_legal_captures`]), leaves its king unattacked, i.e. is legal.
    pub fn leaves_king_safe(&self, us: Color, m: Move) -> bool {
        self.clone()
            .move_is_safe(us.index(), m.from.index(), m.to.index())
    }

    /// Emits the moves from `from` to each point of `targets`, testing the risky ones.
    #[inline(always)]
    fn emit<S: Sink>(
        &mut self,
        us: usize,
        from: usize,
        from_risky: bool,
        risky_to: u128,
        targets: u128,
        sink: &mut S,
    ) {
        let mut rest = if from_risky {
            targets
        } else {
            sink.push_all(from, targets & !risky_to);
            targets & risky_to
        };
        while rest != 0 {
            let to = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            if self.move_is_safe(us, from, to) {
                sink.push(from, to);
            }
        }
    }

    /// For a side not in check: the points a move may not leave (`from`) or enter
    /// (`to`) without a full test. Only the first three pieces on each ray from the
    /// king matter: leaving the first point exposes the king to an enemy rook (or the
    /// flying general) second on the ray; leaving the first or second exposes it to an
    /// enemy cannon third on the ray; entering the empty points before an enemy cannon
    /// that is first on the ray gives it a screen. Leaving a point diagonally next to
    /// the king can free a horse's leg or an elephant's eye that an enemy waits on.
    #[inline]
    fn risk_masks(&self, us: usize, k: usize) -> (u128, u128) {
        let them = ((us ^ 1) as u8) << 3;
        let (kf, kr) = (k % 9, k / 9);
        let mut from = 0u128;
        let mut to = 0u128;
        let rank = (self.rank_bits[0][kr] | self.rank_bits[1][kr]) as u32;
        let file = (self.file_bits[0][kf] | self.file_bits[1][kf]) as u32;
        // (line occupancy, king's index on it, point of index i, vertical?)
        let lines: [(u32, usize, usize, usize, bool); 2] =
            [(rank, kf, kr * 9, 1, false), (file, kr, kf, 9, true)];
        for (occ, at, base, stride, vertical) in lines {
            for up in [true, false] {
                let mut rest = if up {
                    occ & !((2u32 << at) - 1)
                } else {
                    occ & ((1u32 << at) - 1)
                };
                let mut pts = [usize::MAX; 3];
                for p in &mut pts {
                    if rest == 0 {
                        break;
                    }
                    let i = if up {
                        rest.trailing_zeros()
                    } else {
                        31 - rest.leading_zeros()
                    } as usize;
                    rest &= !(1 << i);
                    *p = base + i * stride;
                }
                let enemy = |p: usize, role: u8| {
                    p != usize::MAX && self.cells[p] & (ROLE | BLACK) == role | them
                };
                if enemy(pts[1], ROOK) || (vertical && enemy(pts[1], KING)) {
                    from |= 1u128 << pts[0];
                }
                if enemy(pts[2], CANNON) {
                    from |= (1u128 << pts[0]) | (1u128 << pts[1]);
                }
                if enemy(pts[0], CANNON) {
                    to |= RAYS_BETWEEN[k][pts[0]];
                }
            }
        }
        let legs = &LEG_THREATS[k];
        for i in 0..legs.len as usize {
            let (leg, horses, elephant) = legs.items[i];
            let is = |sq: u8, role: u8| {
                sq != u8::MAX && self.cells[sq as usize] & (ROLE | BLACK) == role | them
            };
            if is(horses[0], HORSE) || is(horses[1], HORSE) || is(elephant, ELEPHANT) {
                from |= 1u128 << leg;
            }
        }
        (from, to)
    }

    /// The legal moves of `us` on this board.
    pub fn legal_moves(&self, us: Color) -> MoveList {
        let mut list = MoveList::new();
        self.clone().generate(us, &mut list);
        list
    }

    /// The legal captures of `us` on this board: the legal moves that end on an enemy
    /// piece (for quiescence search; cheaper than filtering [`Board::legal_moves`]).
    pub fn legal_captures(&self, us: Color) -> MoveList {
        let mut list = MoveList::new();
        let them = self.occ[(!us).index()];
        self.clone().generate_to(us, them, &mut list);
        list
    }

    /// The number of legal moves of `us` on this board.
    pub fn count_legal(&mut self, us: Color) -> u64 {
        let mut c = Counter(0);
        self.generate(us, &mut c);
        c.0
    }
}

impl crate::Position {
    /// The legal captures of the side to move (the legal moves that take a piece), in
    /// the order [`crate::Position::legal_moves`] lists them.
    pub fn legal_captures(&self) -> MoveList {
        self.board.legal_captures(self.turn)
    }

    /// The pseudo-legal captures of the side to move (see
    /// [`Board::pseudo_legal_captures`]): the legal ones, in the same order, and perhaps
    /// some that leave its king attacked.
    pub fn pseudo_legal_captures(&self) -> MoveList {
        self.board.pseudo_legal_captures(self.turn)
    }

    /// Whether `m`, a pseudo-legal move of the side to move, is legal (does not leave
    /// its king attacked).
    pub fn leaves_king_safe(&self, m: Move) -> bool {
        self.board.leaves_king_safe(self.turn, m)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Position, Reveals};

    #[test]
    fn captures_are_exactly_the_legal_moves_that_take_a_piece() {
        let fens = [
            crate::START_FEN,
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
            // In check from a rook; captures and blocks mixed.
            "4k4/9/9/9/9/9/9/9/4r4/3RK4 w - - 0 1",
            // A cannon screen on the king's file, pinned pieces, face-down pieces.
            "1p1xkxxb1/9/4p2x1/x1x3x1x/9/4p4/X1X3X1X/1n2C4/3P5/X2XKXXXX w A1B2N1R2C1P3a1b1n1r2c2p1 a1p1 4 7",
            "R4C3/3kpbN2/4p4/8x/p1r1c4/4B4/X8/3rP4/9/3XKX1A1 w A1N1R1n1 B1C1P2b1p2 4 32",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for fen in fens {
            let mut pos = Position::from_fen(fen).unwrap();
            // Walk a pseudo-random line, comparing at every position.
            for _ in 0..60 {
                let all = pos.legal_moves();
                let expect: Vec<_> = all
                    .iter()
                    .copied()
                    .filter(|m| pos.piece_at(m.to).is_some())
                    .collect();
                assert_eq!(
                    pos.legal_captures().as_slice(),
                    &expect[..],
                    "{}",
                    pos.fen()
                );
                let pseudo: Vec<_> = pos
                    .pseudo_legal_captures()
                    .iter()
                    .copied()
                    .filter(|&m| pos.leaves_king_safe(m))
                    .collect();
                assert_eq!(pseudo, expect, "{}", pos.fen());
                if all.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let m = all[(seed % all.len() as u64) as usize];
                pos.play_unchecked(m, Reveals::NONE);
            }
        }
    }
}
