//! Making and unmaking moves.

use crate::board::{BLACK, HIDDEN, ROLE, color_of};
use crate::{Color, Material, Move, Position, Role, Square, zobrist};

/// The hidden identities a move uncovers, as far as the caller knows them.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Reveals {
    /// The true identity of a face-down mover (翻出的棋子); required when the mover is
    /// face-down, since the piece is turned face-up on arrival.
    pub mover: Option<Role>,
    /// The identity of a captured face-down piece, when the viewer may know it; `None`
    /// leaves it unknown (it stays in that viewer's pool).
    pub captured: Option<Role>,
}

impl Reveals {
    /// Nothing revealed.
    pub const NONE: Reveals = Reveals {
        mover: None,
        captured: None,
    };
}

/// What [`Position::unplay`] needs to take a move back.
#[derive(Copy, Clone, Debug)]
pub struct Undo {
    mv: Move,
    moved: u8,
    captured: u8,
    pool: Material,
    captured_field: Material,
    halfmove: u32,
    hash: u64,
}

impl Undo {
    /// Whether the move captured a piece.
    pub fn is_capture(&self) -> bool {
        self.captured != 0
    }

    /// The move.
    pub fn mv(&self) -> Move {
        self.mv
    }

    /// The board cells the move changed, as they were before it: the mover's (face-down
    /// or not) and the captured piece's (0 when none).
    pub(crate) fn cells_before(&self) -> (u8, u8) {
        (self.moved, self.captured)
    }
}

/// Why a move could not be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    /// No piece of the side to move on the origin.
    #[error("no {color} piece on {square}")]
    NoPiece {
        /// The side to move.
        color: Color,
        /// The origin.
        square: Square,
    },
    /// The move is not among the legal moves.
    #[error("{mv} is not a legal move here")]
    Illegal {
        /// The move.
        mv: Move,
    },
    /// A face-down mover with no identity given.
    #[error("the piece on {square} is face-down: its revealed identity is needed")]
    MissingReveal {
        /// The origin.
        square: Square,
    },
    /// A reveal given for a face-up mover.
    #[error("the piece on {square} is already face-up; nothing to reveal")]
    UnexpectedReveal {
        /// The origin.
        square: Square,
    },
    /// A revealed identity that the pool does not hold.
    #[error("{color} has no {role} left in its pool")]
    NotInPool {
        /// Whose pool.
        color: Color,
        /// The identity.
        role: Role,
    },
    /// A captured identity given although the captured piece is not face-down.
    #[error("the piece captured on {square} is not face-down; its identity is already known")]
    CapturedNotHidden {
        /// The destination.
        square: Square,
    },
}

impl Position {
    /// Plays a move without any check: for search and perft, on moves from
    /// [`Position::legal_moves`] with identities from the pool. A face-down mover with
    /// no identity is revealed as its start square's role. Returns what `unplay` needs.
    #[inline]
    pub fn play_unchecked(&mut self, m: Move, rv: Reveals) -> Undo {
        let (from, to) = (m.from.index(), m.to.index());
        let moved = self.board.cells[from];
        let captured = self.board.cells[to];
        let undo = Undo {
            mv: m,
            moved,
            captured,
            pool: self.pool,
            captured_field: self.captured,
            halfmove: self.halfmove,
            hash: self.hash,
        };
        let us = self.turn;
        let mut new_code = moved;
        if moved & HIDDEN != 0 {
            let role = rv
                .mover
                .unwrap_or_else(|| Role::from_code(moved & ROLE).unwrap_or(Role::Pawn));
            new_code = role as u8 | (moved & BLACK);
            self.take_from_pool(us, role);
        }
        if captured != 0 {
            self.hash ^= zobrist::PIECE[captured as usize][to];
            if captured & HIDDEN != 0
                && let Some(role) = rv.captured
            {
                let them = Color::from_index(color_of(captured));
                if self.pool.get(them, role) > 0 {
                    self.take_from_pool(them, role);
                    let n = self.captured.get_mut(them, role);
                    *n = n.saturating_add(1);
                }
            }
            self.halfmove = 0;
        } else {
            self.halfmove += 1;
        }
        self.hash ^= zobrist::PIECE[moved as usize][from] ^ zobrist::PIECE[new_code as usize][to];
        self.board.shift(from, to, new_code);
        if us == Color::Black {
            self.fullmove += 1;
        }
        self.turn = !us;
        self.hash ^= zobrist::BLACK_TO_MOVE;
        undo
    }

    #[inline(always)]
    fn take_from_pool(&mut self, color: Color, role: Role) {
        let n = self.pool.get(color, role);
        if n == 0 {
            return;
        }
        let keys = &zobrist::POOL[color.index()][role.index()];
        self.hash ^= keys[usize::from(n.min(5))] ^ keys[usize::from((n - 1).min(5))];
        *self.pool.get_mut(color, role) = n - 1;
    }

    /// Takes back the move that returned `undo` (which must be the last one played).
    #[inline]
    pub fn unplay(&mut self, undo: Undo) {
        let (from, to) = (undo.mv.from.index(), undo.mv.to.index());
        self.board.remove(to);
        self.board.put(from, undo.moved);
        if undo.captured != 0 {
            self.board.put(to, undo.captured);
        }
        self.turn = !self.turn;
        if self.turn == Color::Black {
            self.fullmove -= 1;
        }
        self.pool = undo.pool;
        self.captured = undo.captured_field;
        self.halfmove = undo.halfmove;
        self.hash = undo.hash;
    }

    /// Plays a move after checking it: it must be legal, a face-down mover needs an
    /// identity its pool holds, and a captured identity may only be given for a
    /// face-down piece. On error the position is unchanged.
    pub fn play(&mut self, m: Move, rv: Reveals) -> Result<Undo, PlayError> {
        self.check_move(m, rv)?;
        Ok(self.play_unchecked(m, rv))
    }

    /// Checks a move as [`Position::play`] does, without playing it.
    pub fn check_move(&self, m: Move, rv: Reveals) -> Result<(), PlayError> {
        let us = self.turn;
        match self.piece_at(m.from) {
            Some(p) if p.color() == us => {}
            _ => {
                return Err(PlayError::NoPiece {
                    color: us,
                    square: m.from,
                });
            }
        }
        if !self.is_legal(m) {
            return Err(PlayError::Illegal { mv: m });
        }
        if self.board.is_hidden(m.from) {
            let role = rv
                .mover
                .ok_or(PlayError::MissingReveal { square: m.from })?;
            if role == Role::King || self.pool.get(us, role) == 0 {
                return Err(PlayError::NotInPool { color: us, role });
            }
        } else if rv.mover.is_some() {
            return Err(PlayError::UnexpectedReveal { square: m.from });
        }
        if let Some(role) = rv.captured {
            if !self.board.is_hidden(m.to) {
                return Err(PlayError::CapturedNotHidden { square: m.to });
            }
            if role == Role::King || self.pool.get(!us, role) == 0 {
                return Err(PlayError::NotInPool { color: !us, role });
            }
        }
        Ok(())
    }
}

/// What [`Position::unplay_null`] needs to take back a null move.
#[derive(Copy, Clone, Debug)]
pub struct NullUndo {
    halfmove: u32,
    fullmove: u32,
}

impl Position {
    /// Passes the turn without moving (a "null move", used by search for pruning; it is
    /// not a legal move of the game). The side to move must not be in check.
    #[inline]
    pub fn play_null(&mut self) -> NullUndo {
        let undo = NullUndo {
            halfmove: self.halfmove,
            fullmove: self.fullmove,
        };
        if self.turn == Color::Black {
            self.fullmove += 1;
        }
        self.halfmove += 1;
        self.turn = !self.turn;
        self.hash ^= zobrist::BLACK_TO_MOVE;
        undo
    }

    /// Takes back the null move that returned `undo`.
    #[inline]
    pub fn unplay_null(&mut self, undo: NullUndo) {
        self.turn = !self.turn;
        self.hash ^= zobrist::BLACK_TO_MOVE;
        self.halfmove = undo.halfmove;
        self.fullmove = undo.fullmove;
    }
}
