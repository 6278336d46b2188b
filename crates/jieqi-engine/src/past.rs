//! What the search needs to know of a game's earlier positions: their keys for
//! repetitions, how the side to move stood in check for the perpetual-check rule, and
//! the move played on, to follow chased pieces for the perpetual-chase rule (RULES.md
//! §5).

use jieqi_core::{Move, Position, Role, Square};

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
        if !pos.is_check() {
            return Check::None;
        }
        let b = pos.board();
        let Some(king) = b.king(pos.turn()) else {
            return Check::None;
        };
        let mut occ = b.occupancy(!pos.turn());
        while occ != 0 {
            let sq = Square::new(occ.trailing_zeros() as u8).expect("a square of the board");
            occ &= occ - 1;
            let exempt = matches!(
                b.movement_role(sq),
                Some(Role::Pawn | Role::Elephant | Role::Advisor)
            );
            if !exempt && b.piece_attacks(sq, king) {
                return Check::Counts;
            }
        }
        Check::Exempt
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
    /// The move that was played in it.
    pub next: Move,
}

impl Past {
    /// The record of `pos`, in which `next` was played.
    pub fn of(pos: &Position, next: Move) -> Past {
        Past {
            key: pos.hash(),
            check: Check::of(pos),
            next,
        }
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
