//! Persistence behind a trait, so that another database (PostgreSQL) can follow the
//! embedded SQLite one. Every write resolves only once it is durable.

mod sqlite;

pub use sqlite::{SqliteStore, SyncMode};

use std::future::Future;
use std::pin::Pin;

use jieqi_core::{ByColor, Color, Outcome};

/// A boxed future, so the trait stays object-safe.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A storage failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database refused or failed.
    #[error("database: {0}")]
    Database(String),
    /// The store's writer is gone (shutting down).
    #[error("the store is closed")]
    Closed,
    /// Stored data that cannot be read back.
    #[error("corrupt stored game {id}: {why}")]
    Corrupt {
        /// The game.
        id: String,
        /// What is wrong.
        why: String,
    },
}

/// Who sits on a seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatRecord {
    /// `None` for a human, the level for the engine.
    pub engine_level: Option<u8>,
    /// The seat's secret token.
    pub token: String,
    /// Whether a player has joined the seat over the WebSocket (engines: always).
    pub joined: bool,
}

/// Everything needed to create a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewGame {
    /// Game id.
    pub id: String,
    /// Creation instant (Unix ms).
    pub created_ms: u64,
    /// The deal's text form (secret until the end).
    pub deal: String,
    /// The commitment salt (secret until the end).
    pub salt: String,
    /// The published commitment.
    pub commitment: String,
    /// Rule set name.
    pub rules: String,
    /// Captured identity option name.
    pub captured_identity: String,
    /// Time control `M+S` or `none`.
    pub time: String,
    /// Step time in seconds.
    pub move_time_s: Option<u64>,
    /// The seats.
    pub seats: ByColor<SeatRecord>,
    /// The seat handed out by the invite link (friend games).
    pub invite: Option<Color>,
    /// The invite link's secret (friend games): whoever has it may claim the invite
    /// seat of an unlisted game (docs/protocol.md §2.2).
    pub invite_token: Option<String>,
    /// Listed under open games.
    pub listed: bool,
    /// The game this one is a rematch of.
    pub rematch_of: Option<String>,
}

/// One stored move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRecord {
    /// Ply number, 1-based.
    pub n: u32,
    /// The plain coordinate move.
    pub uci: String,
    /// Red's game time left after the move (0 without clock).
    pub red_ms: u64,
    /// Black's game time left after the move.
    pub black_ms: u64,
    /// When the move was accepted (Unix ms).
    pub at_ms: u64,
}

/// How a game ended, as stored: the outcome (kept as its PGN result, its winner and
/// its [`Reason::code`](jieqi_core::Reason::code)) and when.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FinishRecord {
    /// The end.
    pub outcome: Outcome,
    /// When (Unix ms).
    pub at_ms: u64,
}

/// A stored game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    /// How it was created.
    pub new: NewGame,
    /// Whether the invite seat's token was handed out by `join`.
    pub invite_claimed: bool,
    /// When both seats were first joined (clocks began), Unix ms.
    pub started_ms: Option<u64>,
    /// Every move, in order.
    pub moves: Vec<MoveRecord>,
    /// The end, if over.
    pub finish: Option<FinishRecord>,
    /// The rematch game, if any.
    pub rematch: Option<String>,
    /// Last change (Unix ms).
    pub updated_ms: u64,
}

/// A game's lobby line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Game id.
    pub id: String,
    /// Engine level per seat (`None` human).
    pub engine: ByColor<Option<u8>>,
    /// Joined per seat.
    pub joined: ByColor<bool>,
    /// Time control text.
    pub time: String,
    /// Step time.
    pub move_time_s: Option<u64>,
    /// Rule set name.
    pub rules: String,
    /// Plies played.
    pub plies: u32,
    /// Created (Unix ms).
    pub created_ms: u64,
    /// Last change (Unix ms).
    pub updated_ms: u64,
    /// Started.
    pub started: bool,
    /// The end.
    pub finish: Option<FinishRecord>,
    /// The commitment.
    pub commitment: String,
}

/// Which lobby list.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ListKind {
    /// Listed friend games with a free seat.
    Open,
    /// Games in play.
    Live,
    /// Finished games, newest first.
    Recent,
}

/// A change to a stored game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Write {
    /// Create a game (boxed: it is many times the size of the other changes).
    Create(Box<NewGame>),
    /// Append a move (and, if it ended the game, the end), in one transaction.
    Move {
        /// Game id.
        id: String,
        /// The move.
        mv: MoveRecord,
        /// The end it caused.
        finish: Option<FinishRecord>,
    },
    /// Seats joined / game started / invite claimed.
    Seats {
        /// Game id.
        id: String,
        /// Joined flags.
        joined: ByColor<bool>,
        /// Invite handed out.
        invite_claimed: bool,
        /// Start instant.
        started_ms: Option<u64>,
    },
    /// The game ended without a move (resignation, time, agreement, abandonment).
    Finish {
        /// Game id.
        id: String,
        /// The end.
        finish: FinishRecord,
    },
    /// A rematch was created.
    Rematch {
        /// Game id.
        id: String,
        /// The new game's id.
        rematch: String,
    },
    /// Create or replace a tournament (docs/tournament.md, "Tournaments on the web
    /// server"): its whole state as one JSON text.
    Tournament {
        /// Tournament id.
        id: String,
        /// The state.
        json: String,
        /// Last change (Unix ms).
        updated_ms: u64,
    },
}

/// Where games live.
pub trait Store: Send + Sync + 'static {
    /// Applies a change; resolves once it is durably stored.
    fn write(&self, w: Write) -> BoxFuture<'_, Result<(), StoreError>>;
    /// One game, if it exists.
    fn load(&self, id: &str) -> BoxFuture<'_, Result<Option<StoredGame>, StoreError>>;
    /// The ids of every game not finished (to resume after a restart).
    fn unfinished(&self) -> BoxFuture<'_, Result<Vec<String>, StoreError>>;
    /// A lobby list.
    fn list(&self, kind: ListKind, limit: u32) -> BoxFuture<'_, Result<Vec<Summary>, StoreError>>;
    /// One game's lobby line.
    fn summary(&self, id: &str) -> BoxFuture<'_, Result<Option<Summary>, StoreError>>;
    /// Every stored tournament as `(id, state JSON)` (loaded once at start).
    fn tournaments(&self) -> BoxFuture<'_, Result<Vec<(String, String)>, StoreError>>;
}
