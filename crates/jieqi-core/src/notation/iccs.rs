//! ICCS/UCI coordinates with Jieqi suffix letters, read leniently: `h2e2`, `H2-E2`
//! (the ICCS spelling), `c3c4B`, `b2b9Cr`.

use super::descriptive::ResolveError;
use crate::{Move, ParseUciError, Piece, Position, Reveals, UciMove};

/// Reads `h2e2`, `c3c4B`, `b2b9Cr`, and the ICCS spelling `H2-E2` (upper case squares,
/// a dash); the suffix letters keep their case.
pub fn parse_iccs(text: &str) -> Result<UciMove, ParseUciError> {
    let t = text.trim();
    let b = t.as_bytes();
    if b.len() >= 5 && b[2] == b'-' && t.is_ascii() {
        let s = format!(
            "{}{}{}",
            t[..2].to_ascii_lowercase(),
            t[3..5].to_ascii_lowercase(),
            &t[5..]
        );
        return UciMove::parse(&s);
    }
    if b.len() >= 4 && t.is_ascii() {
        let s = format!("{}{}", t[..4].to_ascii_lowercase(), &t[4..]);
        return UciMove::parse(&s);
    }
    UciMove::parse(t)
}

/// Matches a coordinate move to `pos` like [`UciMove::resolve`], except that a
/// face-down mover may come without its revealed identity (`Reveals::mover == None`,
/// for a deal or a referee to fill).
pub fn resolve_iccs(u: &UciMove, pos: &Position) -> Result<(Move, Reveals), ResolveError> {
    let m = u.to_plain();
    let role = pos.movement_role(m.from).filter(|_| {
        pos.piece_at(m.from)
            .is_some_and(|p| p.color() == pos.turn())
    });
    let Some(role) = role else {
        return Err(no_piece(pos, m));
    };
    if !pos.is_legal(m) {
        return Err(ResolveError::NoneCan {
            role,
            candidates: vec![(m.from, Some(m))],
        });
    }
    let role_of = |p: Option<Piece>| match p {
        Some(Piece::Up(_, r)) => Some(r),
        _ => None,
    };
    let mover_hidden = pos.board().is_hidden(m.from);
    let (mover, captured) = if mover_hidden {
        (role_of(u.suffix[0]), role_of(u.suffix[1]))
    } else {
        if let Some(r) = role_of(u.suffix[1]) {
            return Err(ResolveError::UnexpectedReveal {
                square: m.from,
                role: r,
            });
        }
        (None, role_of(u.suffix[0]))
    };
    let color = pos.turn();
    if let Some(r) = mover
        && pos.pool().get(color, r) == 0
    {
        return Err(ResolveError::NotInPool { color, role: r });
    }
    if let Some(r) = captured {
        if !pos.board().is_hidden(m.to) {
            return Err(ResolveError::CapturedNotHidden {
                square: m.to,
                role: r,
            });
        }
        if pos.pool().get(!color, r) == 0 {
            return Err(ResolveError::NotInPool {
                color: !color,
                role: r,
            });
        }
    }
    Ok((m, Reveals { mover, captured }))
}

fn no_piece(pos: &Position, m: Move) -> ResolveError {
    ResolveError::NoPieceOn {
        color: pos.turn(),
        square: m.from,
    }
}
