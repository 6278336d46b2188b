//! Chases (捉) for the perpetual chase rule.

use crate::board::Board;
use crate::{Color, Piece, Role, Square};

impl Board {
    /// Enemy pieces (not the king) that `by` chases (捉) here, for the perpetual chase
    /// rule (RULES.md §5): attacked by a rook, horse or cannon of `by` with a legal
    /// capture, and either unprotected (no legal recapture after the capture) or a rook
    /// attacked by a horse or cannon. A face-down attacker moves as the piece of its
    /// square.
    pub fn chased(&self, by: Color) -> Vec<Square> {
        chased(self, by)
    }
}

fn chased(board: &Board, by: Color) -> Vec<Square> {
    let mut out = Vec::new();
    let attackers: Vec<Square> = board
        .pieces()
        .filter(|&(sq, p)| {
            p.color() == by
                && matches!(
                    board.movement_role(sq),
                    Some(Role::Rook | Role::Horse | Role::Cannon)
                )
        })
        .map(|(sq, _)| sq)
        .collect();
    for (target, piece) in board.pieces() {
        if piece.color() == by || matches!(piece, Piece::Up(_, Role::King)) {
            continue;
        }
        let target_role = board.movement_role(target);
        let is_chased = attackers.iter().any(|&a| {
            if !board.piece_attacks(a, target) {
                return false;
            }
            let mut b = board.clone();
            if !b.move_is_safe(by.index(), a.index(), target.index()) {
                return false;
            }
            let attacker_role = board.movement_role(a);
            if target_role == Some(Role::Rook)
                && matches!(attacker_role, Some(Role::Horse | Role::Cannon))
            {
                return true;
            }
            // Protected: after the capture, the defender can legally take back.
            let mut after = board.clone();
            let code = after.cells[a.index()];
            after.shift(a.index(), target.index(), code);
            let defenders: Vec<Square> = after
                .pieces()
                .filter(|(_, p)| p.color() != by)
                .map(|(s, _)| s)
                .collect();
            !defenders.iter().any(|&d| {
                after.piece_attacks(d, target)
                    && after
                        .clone()
                        .move_is_safe((!by).index(), d.index(), target.index())
            })
        });
        if is_chased {
            out.push(target);
        }
    }
    out
}
