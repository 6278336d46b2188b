//! Jieqi (揭棋) rules core: the board, face-down pieces (暗子), deals, per-viewer views,
//! legal move generation, games with adjudication, FEN and UCI moves.
//!
//! The rules implemented are those of the project's `RULES.md`. The crate does no I/O.
//!
//! Layers of play, from safest to fastest:
//! - [`Game::play`]: a referee's game with deal, history and adjudication;
//! - [`Position::play`]: one checked move on a public position;
//! - [`Position::play_unchecked`]: no checks, for search and perft.

mod color;
mod deal;
mod fen;
mod material;
mod piece;
mod role;
mod square;
mod uci;
mod zobrist;

pub mod board;
pub mod game;
pub mod movegen;
pub mod notation;
pub mod perft;
pub mod position;
pub mod record;
pub mod view;

pub use board::Board;
pub use color::{ByColor, Color};
pub use deal::{Deal, ParseDealError, START_SQUARES, start_role};
pub use fen::{ParseFenError, START_FEN};

pub use game::{Game, GameError, Outcome, Ply, Reason, RuleSet};
pub use material::{Material, ParseMaterialError};
pub use movegen::{Move, MoveList};
pub use piece::{Piece, role_chinese};
pub use position::{PlayError, Position, PositionError, Problem, Reveals, Setup};
pub use role::{ByRole, Role};
pub use square::{File, Rank, Square};
pub use uci::{ParseUciError, UciMove, UciMoveError};
pub use view::{CapturedIdentity, View, Viewer};
