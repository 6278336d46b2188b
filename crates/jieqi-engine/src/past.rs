//! What the search needs to know of a game's earlier positions for repetitions and the
//! perpetual rules of RULES.md §5: their keys, how the side to move stood in check and
//! by which pieces, which pieces the side that had just moved chased, and the move
//! played on, to follow pieces from one move to the next ([`Streaks`]).

use jieqi_core::{Move, Position, Role, Square};

/// A side loses when one same piece of it checked, or one same enemy piece was chased,
/// after each of its last this many moves (RULES.md §5: more than 8 rounds; the
/// referee's [`jieqi_core::RuleSet::perpetual_moves`]).
pub const PERPETUAL_MOVES: u8 = jieqi_core::RuleSet::STANDARD.perpetual_moves as u8;

/// Squares as bits (`1 << index`).
pub type Squares = u128;

/// The squares of the pieces checking `pos`'s side to move with checks that count
/// towards perpetual check (rooks, horses, cannons; a face-down checker as the piece
/// of its start square, as it moves).
pub fn counting_checkers(pos: &Position) -> Squares {
    let b = pos.board();
    let Some(king) = b.king(pos.turn()) else {
        return 0;
    };
    let mut out = 0;
    let mut occ = b.occupancy(!pos.turn());
    while occ != 0 {
        let sq = Square::new(occ.trailing_zeros() as u8).expect("a square of the board");
        occ &= occ - 1;
        let exempt = matches!(
            b.movement_role(sq),
            Some(Role::Pawn | Role::Elephant | Role::Advisor)
        );
        if !exempt && b.piece_attacks(sq, king) {
            out |= 1 << sq.index();
        }
    }
    out
}

/// The pieces of `pos`'s side to move that the other side, which has just moved,
/// chases (RULES.md §5, `jieqi_core::Board::chased`).
pub fn chased(pos: &Position) -> Squares {
    pos.board()
        .chased(!pos.turn())
        .into_iter()
        .fold(0, |acc, sq| acc | 1 << sq.index())
}

/// How the side to move of a position stands in check.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Check {
    /// Not in check.
    #[default]
    None,
    /// In check only by pawns, elephants or advisors, whose perpetual checks are allowed.
    Exempt,
    /// In check by a rook, horse or cannon: a check that counts towards perpetual check.
    Counts,
}

impl Check {
    /// How `pos`'s side to move stands in check. A face-down checker counts as the piece
    /// of its start square, as it moves.
    pub fn of(pos: &Position) -> Check {
        Check::with_checkers(pos).0
    }

    /// [`Check::of`] `pos`, with the [`counting_checkers`].
    pub fn with_checkers(pos: &Position) -> (Check, Squares) {
        if !pos.is_check() {
            return (Check::None, 0);
        }
        match counting_checkers(pos) {
            0 => (Check::Exempt, 0),
            c => (Check::Counts, c),
        }
    }

    /// Whether the side to move is in check at all.
    #[inline]
    pub fn any(self) -> bool {
        self != Check::None
    }
}

/// One earlier position of the game, as the search uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Past {
    /// [`Position::hash`] of the position.
    pub key: u64,
    /// How its side to move stood in check.
    pub check: Check,
    /// The [`counting_checkers`] of the side that had just moved.
    pub checkers: Squares,
    /// The pieces of the side to move chased by the side that had just moved
    /// ([`chased`]; it matters only under the perpetual-chase option).
    pub chased: Squares,
    /// The move that was played in it.
    pub next: Move,
}

impl Past {
    /// The record of `pos`, in which `next` was played.
    pub fn of(pos: &Position, next: Move) -> Past {
        let (check, checkers) = Check::with_checkers(pos);
        Past {
            key: pos.hash(),
            check,
            checkers,
            chased: chased(pos),
            next,
        }
    }

    /// The record of `pos`, another viewer's position on the same board with the same
    /// move played: only the key (which covers the viewer's pools) differs, so the
    /// checks and chases are not worked out again.
    pub fn on_same_board(self, pos: &Position) -> Past {
        Past {
            key: pos.hash(),
            ..self
        }
    }
}

/// Pieces followed from one move of a side to its next, each with the number of that
/// side's consecutive moves after which it was checking (its own pieces) or chased (the
/// enemy's), the current move included. At most four are followed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Streaks {
    len: u8,
    squares: [u8; 4],
    runs: [u8; 4],
}

impl Streaks {
    /// The streaks after one more move of the side: `now` holds the pieces checking or
    /// chased after it, and `before` gives the square a piece now on a square stood on
    /// at the side's previous move (it may have moved since).
    pub fn extend(&self, now: Squares, before: impl Fn(u8) -> u8) -> Streaks {
        let mut out = Streaks::default();
        let mut rest = now;
        while rest != 0 && (out.len as usize) < out.squares.len() {
            let sq = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            let was = before(sq);
            let run = (0..self.len as usize)
                .find(|&i| self.squares[i] == was)
                .map_or(0, |i| self.runs[i]);
            out.squares[out.len as usize] = sq;
            out.runs[out.len as usize] = run.saturating_add(1);
            out.len += 1;
        }
        out
    }

    /// The longest streak (0 when none).
    pub fn longest(&self) -> u8 {
        self.runs[..self.len as usize]
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
    }
}

/// Where the piece now on `sq` stood before `m` (if `m` was played).
pub fn before(m: Option<Move>, sq: u8) -> u8 {
    match m {
        Some(m) if m.to.index() as u8 == sq => m.from.index() as u8,
        _ => sq,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_of(fen: &str) -> Check {
        Check::of(&Position::from_fen(fen).unwrap())
    }

    #[test]
    fn checks_by_rooks_count_and_by_pawns_do_not() {
        assert_eq!(check_of("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1"), Check::None);
        // Red rook on e2 checks Black's king on e9.
        assert_eq!(
            check_of("4k4/9/9/9/9/9/9/4R4/9/3K5 b - - 0 1"),
            Check::Counts
        );
        // A red pawn on e8 checks the king on e9: allowed perpetually.
        assert_eq!(
            check_of("4k4/4P4/9/9/9/9/9/9/9/3K5 b - - 0 1"),
            Check::Exempt
        );
        // Pawn and horse together: the horse's check counts.
        assert_eq!(
            check_of("4k4/4P4/5N3/9/9/9/9/9/9/3K5 b - - 0 1"),
            Check::Counts
        );
    }
}
