//! Persistence behind a trait: the embedded SQLite store (the default) or a PostgreSQL
//! server ([`Database::open`] picks by the location's form). Every write resolves only
//! once it is durable.

mod decode;
mod postgres;
mod sqlite;
#[cfg(test)]
mod tests;

pub use postgres::{Holder, PostgresStore, test_database};
pub use sqlite::{COMMIT_INTERVAL, SqliteStore, SyncMode};

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;

use jieqi_core::{ByColor, Color, Outcome};

use crate::chat::ChatLine;
use crate::rating::{Category, Rating};

/// A boxed future, so the trait stays object-safe.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// An open database: the store and what it takes to close it.
pub enum Database {
    /// The embedded SQLite file.
    Sqlite(Arc<SqliteStore>),
    /// A PostgreSQL server.
    Postgres(Arc<PostgresStore>),
}

impl Database {
    /// Whether `location` names a PostgreSQL database (`postgres://…` or
    /// `postgresql://…`) rather than a SQLite file.
    pub fn is_postgres(location: &Path) -> bool {
        location
            .to_str()
            .is_some_and(|s| s.starts_with("postgres://") || s.starts_with("postgresql://"))
    }

    /// Opens the database at `location`: a PostgreSQL URL, or else a SQLite file
    /// (created if missing) committed with `sync`, a commit at most every
    /// `commit_interval` ([`COMMIT_INTERVAL`]).
    pub async fn open(
        location: &Path,
        sync: SyncMode,
        commit_interval: std::time::Duration,
    ) -> Result<Database, StoreError> {
        match location.to_str() {
            Some(url) if Database::is_postgres(location) => Ok(Database::Postgres(Arc::new(
                PostgresStore::open(url).await?,
            ))),
            _ => Ok(Database::Sqlite(Arc::new(SqliteStore::open_with_interval(
                location,
                sync,
                commit_interval,
            )?))),
        }
    }

    /// The store.
    pub fn store(&self) -> Arc<dyn Store> {
        match self {
            Database::Sqlite(s) => s.clone(),
            Database::Postgres(s) => s.clone(),
        }
    }

    /// Finishes pending writes and closes.
    pub async fn close(&self) {
        match self {
            Database::Sqlite(s) => {
                let s = Arc::clone(s);
                let _ = tokio::task::spawn_blocking(move || s.close()).await;
            }
            Database::Postgres(s) => s.close().await,
        }
    }
}

/// A change on its way to a store's writer, with where to answer.
type Job = (Write, tokio::sync::oneshot::Sender<Result<(), StoreError>>);

/// Hands `w` to a writer with `send` (`false`: the writer is gone) and resolves with
/// the writer's answer, once the change is committed.
fn queue_write(
    w: Write,
    send: impl FnOnce(Job) -> bool,
) -> BoxFuture<'static, Result<(), StoreError>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let sent = send((w, tx));
    Box::pin(async move {
        if !sent {
            return Err(StoreError::Closed);
        }
        rx.await.map_err(|_| StoreError::Closed)?
    })
}

/// A storage failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database refused or failed.
    #[error("database: {0}")]
    Database(String),
    /// The store's writer is gone (shutting down).
    #[error("the store is closed")]
    Closed,
    /// A unique key is taken (a user name that exists, in any case).
    #[error("already taken")]
    Taken,
    /// This node no longer holds the game's lease (another node took it over, or this
    /// one could not renew it in time): the write is refused and the node must stop
    /// serving the game (docs/server.md, "Several nodes").
    #[error("game {0} is served by another node now")]
    NotOwner(String),
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
    /// The account playing the seat (its user name), `None` for a guest or an engine.
    pub user: Option<String>,
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
    /// Rated: both seats are accounts and the end changes their ratings.
    pub rated: bool,
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

/// How a server game ended: played to a result, or aborted (no result).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GameEnd {
    /// A result: a win or a draw, with its reason.
    Result(Outcome),
    /// Aborted before both players had moved (docs/server.md, "Game start"): no
    /// result, no rating change, not counted in anybody's results.
    Aborted,
}

impl GameEnd {
    /// The result, `None` when aborted.
    pub fn outcome(self) -> Option<Outcome> {
        match self {
            GameEnd::Result(o) => Some(o),
            GameEnd::Aborted => None,
        }
    }

    /// The PGN result: `1-0`, `0-1`, `1/2-1/2`, or `*` when aborted.
    pub fn result_str(self) -> &'static str {
        match self {
            GameEnd::Result(o) => o.result_str(),
            GameEnd::Aborted => "*",
        }
    }

    /// The protocol's reason name (docs/protocol.md §3.4), `aborted` when aborted.
    pub fn reason_name(self) -> &'static str {
        match self {
            GameEnd::Result(o) => o.reason().name(),
            GameEnd::Aborted => "aborted",
        }
    }
}

/// How a game ended, as stored: the end (a result kept as its PGN result, its winner
/// and its [`Reason::code`](jieqi_core::Reason::code); an abort as `*` and `aborted`)
/// and when.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FinishRecord {
    /// The end.
    pub end: GameEnd,
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
    /// The chat of both rooms, in order.
    pub chat: Vec<ChatLine>,
    /// Which players have turned the other's chat off.
    pub mutes: ByColor<bool>,
    /// A standing takeback request: who asked, and at how many plies (it stands only
    /// while the game has that many; a move since then dropped it).
    pub takeback: Option<(Color, u32)>,
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
    /// The account of each seat (`None`: a guest or an engine).
    pub users: ByColor<Option<String>>,
    /// Rated.
    pub rated: bool,
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
        /// The account of each seat (the invite seat's is set when it is claimed).
        users: ByColor<Option<String>>,
        /// Invite handed out.
        invite_claimed: bool,
        /// Start instant.
        started_ms: Option<u64>,
    },
    /// A new account.
    CreateUser(Box<NewUser>),
    /// A login: a session of `user` until `expires_ms`.
    Session {
        /// SHA-256 of the session id, hex (the id itself is never stored).
        hash: String,
        /// The user name.
        user: String,
        /// Created (Unix ms).
        created_ms: u64,
        /// Expires (Unix ms).
        expires_ms: u64,
    },
    /// A logout: the session ends.
    EndSession {
        /// SHA-256 of the session id, hex.
        hash: String,
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
    /// A chat line of a game.
    Chat {
        /// Game id.
        id: String,
        /// The line.
        line: ChatLine,
    },
    /// A takeback request was made (`Some`: who, at how many plies) or answered.
    TakebackOffer {
        /// Game id.
        id: String,
        /// The request.
        offer: Option<(Color, u32)>,
    },
    /// Moves were taken back: the game keeps its first `keep` plies (and drops the
    /// request).
    Takeback {
        /// Game id.
        id: String,
        /// Plies kept.
        keep: u32,
    },
    /// A player turned the opponent's chat off or on again.
    ChatMute {
        /// Game id.
        id: String,
        /// The player.
        color: Color,
        /// Off (`true`) or on again.
        muted: bool,
    },
    /// The engine's analysis of a finished game (docs/web.md, "Analysis board"), as
    /// one JSON text, computed once.
    GameAnalysis {
        /// Game id.
        id: String,
        /// The analysis.
        json: String,
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

impl Write {
    /// The existing game this change writes to, if any: the writes a node may commit
    /// only while it holds the game's lease. A game's creation is not one (its lease is
    /// taken with it), nor its analysis (computed from the finished game, by anyone).
    pub fn game_changed(&self) -> Option<&str> {
        match self {
            Write::Move { id, .. }
            | Write::Seats { id, .. }
            | Write::Finish { id, .. }
            | Write::Rematch { id, .. }
            | Write::Chat { id, .. }
            | Write::TakebackOffer { id, .. }
            | Write::Takeback { id, .. }
            | Write::ChatMute { id, .. } => Some(id),
            Write::Create(_)
            | Write::CreateUser(_)
            | Write::Session { .. }
            | Write::EndSession { .. }
            | Write::GameAnalysis { .. }
            | Write::Tournament { .. } => None,
        }
    }
}

/// A new account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewUser {
    /// The name as spelled.
    pub name: String,
    /// The unique key (lower case, [`crate::accounts::UserName::key`]).
    pub key: String,
    /// The argon2id PHC string of the password.
    pub password: String,
    /// Created (Unix ms).
    pub created_ms: u64,
}

/// A stored account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserRecord {
    /// The name as spelled.
    pub name: String,
    /// The argon2id PHC string of the password.
    pub password: String,
    /// Created (Unix ms).
    pub created_ms: u64,
}

/// A player's rating in one category, as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingRecord {
    /// The category.
    pub category: Category,
    /// The Glicko-2 rating.
    pub rating: Rating,
    /// Rated games played in the category.
    pub games: u32,
}

/// One rated game's change of a player's rating.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingChange {
    /// The game.
    pub game: String,
    /// Its category.
    pub category: Category,
    /// When it ended (Unix ms).
    pub at_ms: u64,
    /// Before.
    pub before: Rating,
    /// After.
    pub after: Rating,
}

/// Which of a player's games to list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameFilter {
    /// Only this result for the player.
    pub result: Option<PlayerResult>,
    /// Only against this user (a name as spelled in the account).
    pub opponent: Option<String>,
    /// Only games finished at or after this instant (Unix ms).
    pub from_ms: Option<u64>,
    /// Only games finished before this instant (Unix ms).
    pub to_ms: Option<u64>,
    /// Only rated (`Some(true)`) or only casual (`Some(false)`) games.
    pub rated: Option<bool>,
}

/// A game's result for one of its players.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PlayerResult {
    /// Won.
    Win,
    /// Drew.
    Draw,
    /// Lost.
    Loss,
}

impl PlayerResult {
    /// `win`, `draw`, `loss`.
    pub const fn name(self) -> &'static str {
        match self {
            PlayerResult::Win => "win",
            PlayerResult::Draw => "draw",
            PlayerResult::Loss => "loss",
        }
    }

    /// The result of a name.
    pub fn parse(s: &str) -> Option<PlayerResult> {
        [PlayerResult::Win, PlayerResult::Draw, PlayerResult::Loss]
            .into_iter()
            .find(|r| r.name() == s)
    }
}

/// One finished game in a player's history.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryEntry {
    /// The game's lobby line (with the seats' names).
    pub summary: Summary,
    /// The player's colour in it.
    pub color: Color,
    /// Rated.
    pub rated: bool,
    /// The player's rating before and after (rated games).
    pub rating: Option<(Rating, Rating)>,
}

/// Wins, draws and losses in one category (`None`: untimed games).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// The category.
    pub category: Option<Category>,
    /// Rated or casual.
    pub rated: bool,
    /// Won.
    pub wins: u32,
    /// Drawn.
    pub draws: u32,
    /// Lost.
    pub losses: u32,
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
    /// The stored analysis of a game ([`Write::GameAnalysis`]), if any.
    fn game_analysis(&self, id: &str) -> BoxFuture<'_, Result<Option<String>, StoreError>>;
    /// Every stored tournament as `(id, state JSON)` (loaded once at start).
    fn tournaments(&self) -> BoxFuture<'_, Result<Vec<(String, String)>, StoreError>>;
    /// The account with this key (lower-case name), if any.
    fn user(&self, key: &str) -> BoxFuture<'_, Result<Option<UserRecord>, StoreError>>;
    /// The user name of an unexpired session (by the hash of its id).
    fn session(&self, hash: &str, now_ms: u64)
    -> BoxFuture<'_, Result<Option<String>, StoreError>>;
    /// A user's ratings, one per category played rated.
    fn ratings(&self, user: &str) -> BoxFuture<'_, Result<Vec<RatingRecord>, StoreError>>;
    /// A user's rating changes, oldest first.
    fn rating_history(&self, user: &str) -> BoxFuture<'_, Result<Vec<RatingChange>, StoreError>>;
    /// A user's wins, draws and losses per category and rated/casual.
    fn tallies(&self, user: &str) -> BoxFuture<'_, Result<Vec<Tally>, StoreError>>;
    /// A page of a user's finished games, newest first, and how many match in all.
    fn history(
        &self,
        user: &str,
        filter: GameFilter,
        offset: u32,
        limit: u32,
    ) -> BoxFuture<'_, Result<(Vec<HistoryEntry>, u32), StoreError>>;
    /// The games not finished (nor aborted) in which `user` holds a seat, last changed
    /// first, at most `limit`; a game in which he holds both seats comes once per seat.
    fn live_games(
        &self,
        user: &str,
        limit: u32,
    ) -> BoxFuture<'_, Result<Vec<(Summary, Color)>, StoreError>>;
}
