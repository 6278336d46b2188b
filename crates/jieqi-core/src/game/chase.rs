//! What one move does for the perpetual rules of RULES.md §5: the checks that count
//! towards perpetual check (长将) and the chases (捉) it makes.
//!
//! A chase is something a *move* does: after it, an enemy piece X (not the king) is
//! attacked by a rook, horse or cannon of the mover that could not reach X by its
//! movement before the move — the moved piece, a piece whose line the move opened, or
//! a cannon whose screen the move set — and X is unprotected, or X is a rook attacked
//! by a horse or cannon; unless X attacks that attacker in return (兑), and never on a
//! move that gives check. A standing attack is not renewed by moves elsewhere.
//!
//! Face-down pieces attack, defend and are attacked as the piece of their square; a
//! face-down piece is never "a rook" as a target (the board does not show one), so the
//! rook clause needs a face-up rook.

use crate::board::{Board, CANNON, HIDDEN, HORSE, NO_KING, ROLE, ROOK, color_of};
use crate::movegen::Counter;
use crate::position::Undo;
use crate::{Color, Role};

/// Points of the board as a bit set (bit `i` = square index `i`).
pub type Squares = u128;

/// Whether a piece of cell `code` moves as a rook, horse or cannon: the pieces whose
/// checks and chases the perpetual rules count.
#[inline]
fn counts(code: u8) -> bool {
    matches!(code & ROLE, ROOK | HORSE | CANNON)
}

/// The pieces of the side other than `checked` that check `checked`'s king with a
/// check that counts towards perpetual check: rooks, horses and cannons, a face-down
/// checker as the piece of its square (checks by pawns, elephants and advisors are
/// allowed, 允许长将).
pub fn counting_checkers(board: &Board, checked: Color) -> Squares {
    let Some(king) = board.king(checked) else {
        return 0;
    };
    let mut out = 0;
    let mut occ = board.occupancy(!checked);
    while occ != 0 {
        let sq = occ.trailing_zeros() as usize;
        occ &= occ - 1;
        if counts(board.cells[sq])
            && board.piece_attacks(crate::Square::new(sq as u8).expect("on the board"), king)
        {
            out |= 1 << sq;
        }
    }
    out
}

/// Whether the piece of `code` on `a` can have gained an attack through the move
/// `from`→`to`: it is the moved piece, a rook or cannon on a line through either
/// point (a line opened, a cannon screen set or removed), or a horse whose leg was on
/// `from`.
#[inline]
fn may_gain(a: usize, code: u8, from: usize, to: usize) -> bool {
    if a == to {
        return true;
    }
    let same_line = |p: usize| a % 9 == p % 9 || a / 9 == p / 9;
    match code & ROLE {
        ROOK | CANNON => same_line(from) || same_line(to),
        HORSE => {
            let (af, ar, ff, fr) = (a % 9, a / 9, from % 9, from / 9);
            af.abs_diff(ff) + ar.abs_diff(fr) == 1
        }
        _ => false,
    }
}

/// The enemy pieces that the move of `undo` chases, `after` being the board it left.
pub fn chased_by(after: &Board, undo: &Undo) -> Squares {
    let m = undo.mv();
    let (from, to) = (m.from.index(), m.to.index());
    let code = after.cells[to];
    let us = color_of(code);
    let them = us ^ 1;
    // A check is not a chase (一将一捉 breaks both streaks).
    if after.in_check(Color::from_index(them)) {
        return 0;
    }
    let king = after.kings[them];
    let targets = after.occ[them] & !if king == NO_KING { 0 } else { 1u128 << king };
    if targets == 0 {
        return 0;
    }
    let (moved, captured) = undo.cells_before();
    let mut before = after.clone();
    before.remove(to);
    before.put(from, moved);
    if captured != 0 {
        before.put(to, captured);
    }
    let mut scratch = after.clone();
    let mut out = 0;
    let mut own = after.occ[us];
    while own != 0 {
        let a = own.trailing_zeros() as usize;
        own &= own - 1;
        let code_a = after.cells[a];
        if !counts(code_a) || !may_gain(a, code_a, from, to) {
            continue;
        }
        let was = if a == to { from } else { a };
        let now = after.piece_targets(us, a, code_a, !targets, targets);
        let then = before.piece_targets(us, was, before.cells[was], !targets, targets);
        let mut fresh = now & !then;
        while fresh != 0 {
            let x = fresh.trailing_zeros() as usize;
            fresh &= fresh - 1;
            if chases(after, &mut scratch, a, x) {
                out |= 1 << x;
            }
        }
    }
    out
}

/// Whether the piece on `a`, which reaches the enemy piece on `x` by its movement,
/// chases it (given that the attack is new): the capture is legal, `x` does not attack
/// `a` in return, and `x` is a face-up rook attacked by a horse or cannon or has no
/// legal recapture. `scratch` is a copy of `after`, used and restored.
fn chases(after: &Board, scratch: &mut Board, a: usize, x: usize) -> bool {
    let code_a = after.cells[a];
    let us = color_of(code_a);
    let them = us ^ 1;
    if !scratch.move_is_safe(us, a, x) {
        return false;
    }
    let sq = |i: usize| crate::Square::new(i as u8).expect("on the board");
    if after.piece_attacks(sq(x), sq(a)) && scratch.move_is_safe(them, x, a) {
        return false;
    }
    let code_x = after.cells[x];
    if code_x & HIDDEN == 0 && code_x & ROLE == ROOK && matches!(code_a & ROLE, HORSE | CANNON) {
        return true;
    }
    let mut taken = after.clone();
    taken.shift(a, x, code_a);
    let mut recaptures = Counter(0);
    taken.generate_to(Color::from_index(them), 1u128 << x, &mut recaptures);
    recaptures.0 == 0
}

/// The role a chased piece shows on the board (`None` when face-down).
pub(crate) fn shown_role(board: &Board, sq: crate::Square) -> Option<Role> {
    match board.piece_at(sq) {
        Some(crate::Piece::Up(_, r)) => Some(r),
        _ => None,
    }
}
