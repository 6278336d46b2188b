//! The board: which piece stands on each point, with line occupancy kept incrementally
//! for fast move generation and attack detection.

use crate::movegen::tables::{
    ADVISOR_MOVES, ELEPHANT_MOVES, FILE_SLIDE, HORSE_ATTACKERS, PAWN_ATTACKERS, RANK_SLIDE,
};
use crate::{Color, Piece, Role, Square};

/// Cell bit: the piece is black.
pub(crate) const BLACK: u8 = 8;
/// Cell bit: the piece is face-down; its role bits are those of its start square.
pub(crate) const HIDDEN: u8 = 16;
/// Cell mask of the (movement) role.
pub(crate) const ROLE: u8 = 7;

pub(crate) const KING: u8 = Role::King as u8;
pub(crate) const ADVISOR: u8 = Role::Advisor as u8;
pub(crate) const ELEPHANT: u8 = Role::Elephant as u8;
pub(crate) const HORSE: u8 = Role::Horse as u8;
pub(crate) const ROOK: u8 = Role::Rook as u8;
pub(crate) const CANNON: u8 = Role::Cannon as u8;
pub(crate) const PAWN: u8 = Role::Pawn as u8;

/// The 90 points and what stands on them.
///
/// Each cell is a byte: 0 empty, else role code (a face-down piece has the role of its
/// start square, which is how it moves) | `BLACK` | `HIDDEN`. Per colour, the
/// occupancy of every rank and file is kept as bit masks for the line tables.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Board {
    pub(crate) cells: [u8; 90],
    pub(crate) rank_bits: [[u16; 10]; 2],
    pub(crate) file_bits: [[u16; 9]; 2],
    pub(crate) occ: [u128; 2],
    pub(crate) kings: [u8; 2],
}

/// A king square that no king can stand on: the board has no king of that colour.
pub(crate) const NO_KING: u8 = 0xff;

#[inline(always)]
pub(crate) const fn color_of(cell: u8) -> usize {
    ((cell & BLACK) >> 3) as usize
}

impl Default for Board {
    fn default() -> Board {
        Board::empty()
    }
}

impl Board {
    /// A board with no pieces.
    pub const fn empty() -> Board {
        Board {
            cells: [0; 90],
            rank_bits: [[0; 10]; 2],
            file_bits: [[0; 9]; 2],
            occ: [0; 2],
            kings: [NO_KING; 2],
        }
    }

    /// The piece on `sq`.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        decode(self.cells[sq.index()])
    }

    /// The role a piece on `sq` moves as: its role if face-up, its start square's role
    /// if face-down.
    pub fn movement_role(&self, sq: Square) -> Option<Role> {
        Role::from_code(self.cells[sq.index()] & ROLE)
    }

    /// Whether the piece on `sq` is face-down.
    pub fn is_hidden(&self, sq: Square) -> bool {
        self.cells[sq.index()] & HIDDEN != 0
    }

    /// The square of `color`'s king, if it has one.
    pub fn king(&self, color: Color) -> Option<Square> {
        Square::new(self.kings[color.index()])
    }

    /// The points holding a piece of `color`, as a bit set (bit `i` = square index `i`).
    #[inline]
    pub fn occupancy(&self, color: Color) -> u128 {
        self.occ[color.index()]
    }

    /// Every occupied point with its piece.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Square::all().filter_map(|s| self.piece_at(s).map(|p| (s, p)))
    }

    /// Puts `piece` on `sq` (replacing what was there). Fails if the piece is face-down
    /// and `sq` is not one of its colour's start squares.
    pub fn set(&mut self, sq: Square, piece: Option<Piece>) -> Result<(), Square> {
        let code = match piece {
            None => 0,
            Some(p) => p.code_at(sq).ok_or(sq)?,
        };
        if self.cells[sq.index()] != 0 {
            self.remove(sq.index());
        }
        if code != 0 {
            self.put(sq.index(), code);
        }
        Ok(())
    }

    #[inline(always)]
    pub(crate) fn put(&mut self, s: usize, code: u8) {
        let c = color_of(code);
        self.cells[s] = code;
        let (f, r) = (s % 9, s / 9);
        self.rank_bits[c][r] |= 1 << f;
        self.file_bits[c][f] |= 1 << r;
        self.occ[c] |= 1u128 << s;
        if code & ROLE == KING {
            self.kings[c] = s as u8;
        }
    }

    #[inline(always)]
    pub(crate) fn remove(&mut self, s: usize) -> u8 {
        let code = self.cells[s];
        let c = color_of(code);
        self.cells[s] = 0;
        let (f, r) = (s % 9, s / 9);
        self.rank_bits[c][r] &= !(1 << f);
        self.file_bits[c][f] &= !(1 << r);
        self.occ[c] &= !(1u128 << s);
        if code & ROLE == KING && self.kings[c] == s as u8 {
            self.kings[c] = NO_KING;
        }
        code
    }

    /// Moves the piece on `from` to `to` (capturing what stood there), as `new_code`.
    #[inline(always)]
    pub(crate) fn shift(&mut self, from: usize, to: usize, new_code: u8) {
        if self.cells[to] != 0 {
            self.remove(to);
        }
        self.remove(from);
        self.put(to, new_code);
    }

    #[inline(always)]
    fn rank_occ(&self, r: usize) -> usize {
        (self.rank_bits[0][r] | self.rank_bits[1][r]) as usize
    }

    #[inline(always)]
    fn file_occ(&self, f: usize) -> usize {
        (self.file_bits[0][f] | self.file_bits[1][f]) as usize
    }

    /// Whether any piece of colour `by` attacks point `s`; a face-down piece attacks as
    /// the piece of its start square, and a king attacks along an open file (the
    /// flying general, 将帅对面).
    #[inline]
    pub(crate) fn attacked(&self, s: usize, by: usize) -> bool {
        let them = (by as u8) << 3;
        let (f, r) = (s % 9, s / 9);
        let cells = &self.cells;
        let is = |sq: usize, role: u8| cells[sq] & (ROLE | BLACK) == role | them;

        // Rooks, kings and cannons along the rank.
        let rocc = self.rank_occ(r);
        let e = &RANK_SLIDE[f][rocc];
        let mut m = e.rook as usize & rocc;
        while m != 0 {
            let x = r * 9 + m.trailing_zeros() as usize;
            if is(x, ROOK) {
                return true;
            }
            m &= m - 1;
        }
        let mut m = e.cannon as usize & rocc;
        while m != 0 {
            let x = r * 9 + m.trailing_zeros() as usize;
            if is(x, CANNON) {
                return true;
            }
            m &= m - 1;
        }
        // Along the file.
        let focc = self.file_occ(f);
        let e = &FILE_SLIDE[r][focc];
        let mut m = e.rook as usize & focc;
        while m != 0 {
            let x = m.trailing_zeros() as usize * 9 + f;
            if is(x, ROOK) || is(x, KING) {
                return true;
            }
            m &= m - 1;
        }
        let mut m = e.cannon as usize & focc;
        while m != 0 {
            let x = m.trailing_zeros() as usize * 9 + f;
            if is(x, CANNON) {
                return true;
            }
            m &= m - 1;
        }
        // Horses.
        let h = &HORSE_ATTACKERS[s];
        for i in 0..h.len as usize {
            if is(h.to[i] as usize, HORSE) && cells[h.via[i] as usize] == 0 {
                return true;
            }
        }
        // Pawns. (Face-down pawns stand on their own half and only attack forward.)
        let p = &PAWN_ATTACKERS[by][s];
        for i in 0..p.len as usize {
            if is(p.to[i] as usize, PAWN) {
                return true;
            }
        }
        // Advisors and elephants: Jieqi lets face-up ones roam, so they can attack a
        // king. Face-down ones never reach the enemy palace.
        let a = &ADVISOR_MOVES[s];
        for i in 0..a.len as usize {
            if is(a.to[i] as usize, ADVISOR) {
                return true;
            }
        }
        let b = &ELEPHANT_MOVES[s];
        for i in 0..b.len as usize {
            if is(b.to[i] as usize, ELEPHANT) && cells[b.via[i] as usize] == 0 {
                return true;
            }
        }
        false
    }

    /// Whether any piece of `by` attacks `sq` (face-down pieces attack as the piece of
    /// their start square; a king attacks along an open file).
    #[inline]
    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        self.attacked(sq.index(), by.index())
    }

    /// Whether `color`'s king is attacked (a board without that king is never in check).
    pub fn in_check(&self, color: Color) -> bool {
        let k = self.kings[color.index()];
        k != NO_KING && self.attacked(k as usize, (!color).index())
    }

    /// Squares of pieces of colour `by` attacking `color`'s king.
    pub fn checkers(&self, color: Color) -> Vec<Square> {
        let Some(k) = self.king(color) else {
            return Vec::new();
        };
        let by = !color;
        let mut out = Vec::new();
        for (sq, p) in self.pieces() {
            if p.color() == by && self.piece_attacks(sq, k) {
                out.push(sq);
            }
        }
        out
    }

    /// Whether the piece on `from` attacks `target`: could capture a piece standing
    /// there, were the move otherwise legal. A king attacks along an open file only
    /// (the flying general); a face-down piece attacks as its start square's piece.
    pub fn piece_attacks(&self, from: Square, target: Square) -> bool {
        let (from, t) = (from.index(), target.index());
        let code = self.cells[from];
        if code == 0 || from == t {
            return false;
        }
        let by = color_of(code);
        let (ff, fr) = (from % 9, from / 9);
        let (tf, tr) = (t % 9, t / 9);
        let role = code & ROLE;
        let steps_hit = |to: &[u8], via: &[u8], len: u8| {
            (0..len as usize).any(|i| {
                to[i] as usize == t && (via[i] as usize == t || self.cells[via[i] as usize] == 0)
            })
        };
        match role {
            ROOK | KING | CANNON => {
                if role == KING && ff != tf {
                    return false;
                }
                let slide = if fr == tr {
                    let occ = self.rank_occ(fr) | (1 << tf);
                    let e = &RANK_SLIDE[ff][occ];
                    (if role == CANNON { e.cannon } else { e.rook }) as usize & occ & (1 << tf)
                } else if ff == tf {
                    let occ = self.file_occ(ff) | (1 << tr);
                    let e = &FILE_SLIDE[fr][occ];
                    (if role == CANNON { e.cannon } else { e.rook }) as usize & occ & (1 << tr)
                } else {
                    0
                };
                slide != 0
            }
            HORSE => {
                let h = &crate::movegen::tables::HORSE_MOVES[from];
                steps_hit(&h.to, &h.via, h.len)
            }
            ELEPHANT => {
                let h = &ELEPHANT_MOVES[from];
                steps_hit(&h.to, &h.via, h.len)
            }
            ADVISOR => {
                let h = if code & HIDDEN != 0 {
                    &crate::movegen::tables::HIDDEN_ADVISOR_MOVES[by][from]
                } else {
                    &ADVISOR_MOVES[from]
                };
                steps_hit(&h.to, &h.via, h.len)
            }
            PAWN => {
                let h = &crate::movegen::tables::PAWN_MOVES[by][from];
                steps_hit(&h.to, &h.via, h.len)
            }
            _ => false,
        }
    }
}

/// Decodes a cell byte.
pub(crate) fn decode(cell: u8) -> Option<Piece> {
    if cell == 0 {
        return None;
    }
    let color = Color::from_index(color_of(cell));
    if cell & HIDDEN != 0 {
        Some(Piece::Down(color))
    } else {
        Role::from_code(cell & ROLE).map(|r| Piece::Up(color, r))
    }
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for r in (0..10).rev() {
            for file in 0..9 {
                let c = decode(self.cells[r * 9 + file]).map_or('.', Piece::fen_char);
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
