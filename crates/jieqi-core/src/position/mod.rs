//! Positions: a [`Setup`] is any arrangement; a [`Position`] is a checked, playable one.

mod play;

pub use play::{NullUndo, PlayError, Reveals, Undo};

use crate::board::{Board, HIDDEN, ROLE};
use crate::deal::start_role;
use crate::{ByColor, Color, Material, MoveList, Piece, Role, Square, zobrist};

/// Any arrangement of pieces with the public fields of a FEN; not necessarily legal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// What stands on each point, indexed by [`Square::index`].
    pub board: [Option<Piece>; 90],
    /// The side to move.
    pub turn: Color,
    /// Identities the viewer cannot place (the FEN pool field).
    pub pool: Material,
    /// Face-down pieces captured whose identity the viewer knows (the FEN captured field).
    pub captured: Material,
    /// Plies since the last capture.
    pub halfmove: u32,
    /// Move number, starting at 1, incremented after Black moves.
    pub fullmove: u32,
}

/// One thing wrong with a [`Setup`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// A face-down piece off a start square of its colour.
    #[error("face-down {color} piece on {square}, which is not a start square of {color}")]
    HiddenOffStart {
        /// Its colour.
        color: Color,
        /// Where it stands.
        square: Square,
    },
    /// Not exactly one king.
    #[error("{color} has {count} kings, expected exactly 1")]
    KingCount {
        /// Whose kings.
        color: Color,
        /// How many.
        count: usize,
    },
    /// A king outside its palace.
    #[error("{color} king on {square}, outside its palace")]
    KingOutsidePalace {
        /// Whose king.
        color: Color,
        /// Where it stands.
        square: Square,
    },
    /// A king counted in a pool or captured field.
    #[error("{color} king listed in the pool or captured field")]
    KingInPool {
        /// Whose king.
        color: Color,
    },
    /// Fewer identities in the pool than face-down pieces on the board.
    #[error("{color} pool has {pool} identities for {hidden} face-down pieces")]
    PoolTooSmall {
        /// Whose pool.
        color: Color,
        /// Identities in the pool.
        pool: u32,
        /// Face-down pieces on the board.
        hidden: u32,
    },
    /// More pieces of a kind than a side has.
    #[error(
        "{color} {role}: {face_up} face-up + {pool} in pool + {captured} captured = {}, more than {max}",
        face_up + pool + captured
    )]
    TooMany {
        /// Whose pieces.
        color: Color,
        /// Which kind.
        role: Role,
        /// Face-up on the board.
        face_up: u32,
        /// In the pool.
        pool: u32,
        /// In the captured field.
        captured: u32,
        /// How many exist.
        max: u8,
    },
    /// The side that just moved left its king attacked.
    #[error("{color} is not to move but is in check")]
    OpponentInCheck {
        /// The side in check.
        color: Color,
    },
    /// The kings face each other on an open file.
    #[error("the kings face each other on an open file")]
    KingsFacing,
}

/// Why a [`Setup`] is not a legal position: every problem found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal position: {}", .problems.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("; "))]
pub struct PositionError {
    /// What is wrong, one entry per problem.
    pub problems: Vec<Problem>,
}

/// A legal Jieqi position as one viewer knows it: the board (face-down pieces as such),
/// side to move, the viewer's pools and captured identities, and the clocks.
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    pub(crate) board: Board,
    pub(crate) turn: Color,
    pub(crate) pool: Material,
    pub(crate) captured: Material,
    pub(crate) halfmove: u32,
    pub(crate) fullmove: u32,
    pub(crate) hash: u64,
}

impl Setup {
    /// The Jieqi start: kings on e0/e9, every other piece face-down, full pools.
    pub fn start() -> Setup {
        let mut board = [None; 90];
        board[Square::E0.index()] = Some(Piece::Up(Color::Red, Role::King));
        board[Square::E9.index()] = Some(Piece::Up(Color::Black, Role::King));
        for c in Color::ALL {
            for i in 0..15 {
                board[crate::deal::start_square(c, i).index()] = Some(Piece::Down(c));
            }
        }
        Setup {
            board,
            turn: Color::Red,
            pool: Material::full_hidden(),
            captured: Material::EMPTY,
            halfmove: 0,
            fullmove: 1,
        }
    }
}

impl Position {
    /// The start position of every Jieqi game.
    pub fn start() -> Position {
        Position::from_setup(Setup::start()).expect("the start position is legal")
    }

    /// Checks a setup and builds the position, or lists everything wrong with it.
    pub fn from_setup(setup: Setup) -> Result<Position, PositionError> {
        let mut problems = Vec::new();
        let mut board = Board::empty();
        let mut face_up = Material::EMPTY;
        let mut hidden = ByColor::<u32>::default();
        let mut kings = ByColor::<usize>::default();
        for sq in Square::all() {
            let Some(piece) = setup.board[sq.index()] else {
                continue;
            };
            match piece {
                Piece::Down(color) => {
                    if start_role(sq).is_none_or(|(c, _)| c != color) {
                        problems.push(Problem::HiddenOffStart { color, square: sq });
                        continue;
                    }
                    hidden[color] += 1;
                }
                Piece::Up(color, role) => {
                    *face_up.get_mut(color, role) = face_up.get(color, role).saturating_add(1);
                    if role == Role::King {
                        kings[color] += 1;
                        if !sq.in_palace(color) {
                            problems.push(Problem::KingOutsidePalace { color, square: sq });
                        }
                    }
                }
            }
            board
                .set(sq, Some(piece))
                .expect("face-down pieces checked above");
        }
        for color in Color::ALL {
            if kings[color] != 1 {
                problems.push(Problem::KingCount {
                    color,
                    count: kings[color],
                });
            }
            if setup.pool.get(color, Role::King) > 0 || setup.captured.get(color, Role::King) > 0 {
                problems.push(Problem::KingInPool { color });
            }
            let pool = setup.pool.total(color) - u32::from(setup.pool.get(color, Role::King));
            if pool < hidden[color] {
                problems.push(Problem::PoolTooSmall {
                    color,
                    pool,
                    hidden: hidden[color],
                });
            }
            for role in Role::HIDDEN {
                let (u, p, c) = (
                    u32::from(face_up.get(color, role)),
                    u32::from(setup.pool.get(color, role)),
                    u32::from(setup.captured.get(color, role)),
                );
                if u + p + c > u32::from(role.count()) {
                    problems.push(Problem::TooMany {
                        color,
                        role,
                        face_up: u,
                        pool: p,
                        captured: c,
                        max: role.count(),
                    });
                }
            }
        }
        if kings.red == 1 && kings.black == 1 {
            let (r, b) = (
                board.king(Color::Red).unwrap(),
                board.king(Color::Black).unwrap(),
            );
            if r.file() == b.file() {
                let between = (r.rank().index() + 1..b.rank().index())
                    .any(|rank| board.cells[rank as usize * 9 + r.file().index() as usize] != 0);
                if !between {
                    problems.push(Problem::KingsFacing);
                }
            }
            if !problems.contains(&Problem::KingsFacing) && board.in_check(!setup.turn) {
                problems.push(Problem::OpponentInCheck { color: !setup.turn });
            }
        }
        if !problems.is_empty() {
            return Err(PositionError { problems });
        }
        let mut pos = Position {
            board,
            turn: setup.turn,
            pool: setup.pool,
            captured: setup.captured,
            halfmove: setup.halfmove,
            fullmove: setup.fullmove.max(1),
            hash: 0,
        };
        pos.hash = pos.compute_hash();
        Ok(pos)
    }

    /// The arrangement, as a [`Setup`].
    pub fn to_setup(&self) -> Setup {
        let mut board = [None; 90];
        for (sq, p) in self.board.pieces() {
            board[sq.index()] = Some(p);
        }
        Setup {
            board,
            turn: self.turn,
            pool: self.pool,
            captured: self.captured,
            halfmove: self.halfmove,
            fullmove: self.fullmove,
        }
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }
    /// The side to move.
    pub fn turn(&self) -> Color {
        self.turn
    }
    /// The pools: identities this position's viewer cannot place, per side.
    pub fn pool(&self) -> &Material {
        &self.pool
    }
    /// Face-down pieces captured whose identity this position's viewer knows.
    pub fn captured(&self) -> &Material {
        &self.captured
    }
    /// Plies since the last capture (reveals do not reset it).
    pub fn halfmove(&self) -> u32 {
        self.halfmove
    }
    /// The move number.
    pub fn fullmove(&self) -> u32 {
        self.fullmove
    }
    /// The Zobrist hash of board (face-down pieces included), side to move and pools.
    pub fn hash(&self) -> u64 {
        self.hash
    }
    /// The piece on `sq`.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board.piece_at(sq)
    }
    /// Number of face-down pieces of `color` on the board.
    pub fn hidden_count(&self, color: Color) -> u32 {
        let c = color.index();
        (0..90)
            .filter(|&s| {
                let x = self.board.cells[s];
                x & HIDDEN != 0 && crate::board::color_of(x) == c
            })
            .count() as u32
    }

    /// The hash computed from scratch (the incremental one must always equal it).
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for s in 0..90 {
            let c = self.board.cells[s];
            if c != 0 {
                h ^= zobrist::PIECE[c as usize][s];
            }
        }
        if self.turn == Color::Black {
            h ^= zobrist::BLACK_TO_MOVE;
        }
        for c in Color::ALL {
            for r in Role::ALL {
                h ^= zobrist::POOL[c.index()][r.index()][usize::from(self.pool.get(c, r).min(5))];
            }
        }
        h
    }

    /// Whether the side to move is in check.
    pub fn is_check(&self) -> bool {
        self.board.in_check(self.turn)
    }

    /// The legal moves of the side to move.
    pub fn legal_moves(&self) -> MoveList {
        self.board.legal_moves(self.turn)
    }

    /// The number of legal moves (faster than generating them).
    pub fn count_legal(&self) -> u64 {
        self.board.clone().count_legal(self.turn)
    }

    /// Whether `m` is legal here.
    pub fn is_legal(&self, m: crate::Move) -> bool {
        self.legal_moves().contains(m)
    }

    /// Whether the side to move has no legal move (checkmate or stalemate, both losses).
    pub fn is_game_over_by_moves(&self) -> bool {
        self.count_legal() == 0
    }

    /// The role the piece on `sq` moves as (face-down: its start square's role).
    pub fn movement_role(&self, sq: Square) -> Option<Role> {
        Role::from_code(self.board.cells[sq.index()] & ROLE)
    }

    /// Whether neither side has anything but its king.
    pub fn bare_kings(&self) -> bool {
        self.board.occ[0].count_ones() == 1 && self.board.occ[1].count_ones() == 1
    }

    /// This position with the pools and captured fields replaced (for building one
    /// viewer's position from another's). Fails if the result is not legal.
    pub fn with_knowledge(
        &self,
        pool: Material,
        captured: Material,
    ) -> Result<Position, PositionError> {
        let mut s = self.to_setup();
        s.pool = pool;
        s.captured = captured;
        Position::from_setup(s)
    }
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", self.fen())
    }
}

impl std::hash::Hash for Position {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.hash.hash(state);
    }
}
