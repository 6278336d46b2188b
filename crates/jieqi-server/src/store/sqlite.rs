//! The embedded SQLite store: WAL mode, one writer thread that commits the changes of
//! all games in groups (one fsync for many moves), and a reader connection.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use jieqi_core::{ByColor, Color, Deal, Game, Outcome, UciMove};
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::decode::{
    FinishColumns, chat_line, finish_columns, finish_from, history_entry, i, rating_changes,
    rating_records, takeback_from, takeback_text, tallies, u,
};
use super::{
    BoxFuture, FinishRecord, GameEnd, GameFilter, HistoryEntry, Job, ListKind, MoveRecord, NewGame,
    PlayerResult, RatingChange, RatingRecord, SeatRecord, Store, StoreError, StoredGame, Summary,
    Tally, UserRecord, Write, queue_write,
};
use crate::chat::ChatLine;
use crate::rating::{Category, Rating};

/// How hard SQLite works to make a commit durable.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum SyncMode {
    /// fsync at every commit: survives power loss (the default).
    #[default]
    Full,
    /// fsync at checkpoints only: survives a crash or kill of the process, not a power
    /// loss.
    Normal,
}

impl SyncMode {
    /// Parses `full` / `normal`.
    pub fn parse(s: &str) -> Option<SyncMode> {
        match s.to_ascii_lowercase().as_str() {
            "full" => Some(SyncMode::Full),
            "normal" => Some(SyncMode::Normal),
            _ => None,
        }
    }
}

/// The shortest time between the starts of two commits of the server's SQLite store
/// (`jieqi serve --commit-interval-ms`): changes that arrive sooner wait for the next
/// commit, so that one fsync serves more of them. A change arriving after a quiet
/// spell is committed at once, and so is every change when the fsyncs take longer
/// than this anyway; only between the two does a change wait, at most this long
/// (BENCHMARKS.md, issue 19 item 3, seventh session).
pub const COMMIT_INTERVAL: Duration = Duration::from_millis(5);

/// SQLite storage.
pub struct SqliteStore {
    writer: Mutex<Option<mpsc::Sender<Job>>>,
    /// Groups of changes the writer has taken (one transaction each).
    commits: Arc<AtomicU64>,
    reader: Arc<Mutex<Connection>>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
    checkpointer: Mutex<Option<(mpsc::Sender<()>, std::thread::JoinHandle<()>)>>,
}

/// How often the checkpoint thread copies the WAL into the database file.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_millis(200);
/// WAL size (pages) at which the writer itself checkpoints, so that the WAL is reset
/// (a backstop: the checkpoint thread has normally copied nearly all of it already).
const WRITER_CHECKPOINT_PAGES: i64 = 16_384;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS games (
  id TEXT PRIMARY KEY,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL,
  deal TEXT NOT NULL,
  salt TEXT NOT NULL,
  commitment TEXT NOT NULL,
  rules TEXT NOT NULL,
  captured_identity TEXT NOT NULL,
  time TEXT NOT NULL,
  move_time_s INTEGER,
  red_level INTEGER,
  red_token TEXT NOT NULL,
  red_joined INTEGER NOT NULL,
  black_level INTEGER,
  black_token TEXT NOT NULL,
  black_joined INTEGER NOT NULL,
  invite TEXT,
  invite_token TEXT,
  listed INTEGER NOT NULL,
  invite_claimed INTEGER NOT NULL DEFAULT 0,
  rematch_of TEXT,
  rematch TEXT,
  started_ms INTEGER,
  plies INTEGER NOT NULL DEFAULT 0,
  result TEXT,
  winner TEXT,
  reason TEXT,
  finished_ms INTEGER
);
CREATE TABLE IF NOT EXISTS moves (
  game TEXT NOT NULL,
  n INTEGER NOT NULL,
  uci TEXT NOT NULL,
  red_ms INTEGER NOT NULL,
  black_ms INTEGER NOT NULL,
  at_ms INTEGER NOT NULL,
  PRIMARY KEY (game, n)
) WITHOUT ROWID;
DROP INDEX IF EXISTS games_unfinished;
CREATE INDEX IF NOT EXISTS games_unfinished_by_created ON games(created_ms) WHERE result IS NULL;
CREATE INDEX IF NOT EXISTS games_finished ON games(finished_ms) WHERE result IS NOT NULL;
CREATE TABLE IF NOT EXISTS game_analysis (
  game TEXT PRIMARY KEY,
  json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tournaments (
  id TEXT PRIMARY KEY,
  updated_ms INTEGER NOT NULL,
  state TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS users (
  name TEXT PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  password TEXT NOT NULL,
  created_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
  hash TEXT PRIMARY KEY,
  user TEXT NOT NULL REFERENCES users(name),
  created_ms INTEGER NOT NULL,
  expires_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sessions_by_user ON sessions(user);
CREATE TABLE IF NOT EXISTS ratings (
  user TEXT NOT NULL REFERENCES users(name),
  category TEXT NOT NULL,
  rating REAL NOT NULL,
  deviation REAL NOT NULL,
  volatility REAL NOT NULL,
  games INTEGER NOT NULL,
  PRIMARY KEY (user, category)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS game_ratings (
  game TEXT NOT NULL REFERENCES games(id),
  color TEXT NOT NULL,
  user TEXT NOT NULL,
  category TEXT NOT NULL,
  before_rating REAL NOT NULL,
  before_deviation REAL NOT NULL,
  before_volatility REAL NOT NULL,
  after_rating REAL NOT NULL,
  after_deviation REAL NOT NULL,
  after_volatility REAL NOT NULL,
  PRIMARY KEY (game, color)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS game_ratings_by_user ON game_ratings(user);
CREATE TABLE IF NOT EXISTS chat (
  game TEXT NOT NULL,
  n INTEGER NOT NULL,
  room TEXT NOT NULL,
  color TEXT,
  user TEXT,
  text TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  PRIMARY KEY (game, n)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chat_mutes (
  game TEXT NOT NULL,
  color TEXT NOT NULL,
  PRIMARY KEY (game, color)
) WITHOUT ROWID;
";

/// Columns added to `games` after its first version, with their definitions.
const ADDED_COLUMNS: [(&str, &str); 5] = [
    ("red_user", "TEXT"),
    ("black_user", "TEXT"),
    ("rated", "INTEGER NOT NULL DEFAULT 0"),
    ("category", "TEXT"),
    // A standing takeback request, `red:12` (who, at how many plies).
    ("takeback", "TEXT"),
];

/// Brings a database written by an earlier version up to [`SCHEMA`] (whose `CREATE
/// TABLE IF NOT EXISTS` leaves an existing table as it was): adds the columns that came
/// later, in one transaction.
fn migrate(c: &mut Connection) -> Result<(), StoreError> {
    let tx = c.transaction().map_err(db)?;
    let has_column = |col: &str| {
        tx.query_row(
            "SELECT COUNT(*) FROM pragma_table_info('games') WHERE name = ?1",
            [col],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n > 0)
        .map_err(db)
    };
    if !has_column("invite_token")? {
        tx.execute_batch("ALTER TABLE games ADD COLUMN invite_token TEXT")
            .map_err(db)?;
        // Friend games from before invite tokens get one: their creator's page shows
        // the new invite link (the old one, the seat's own link, still works).
        let ids = tx
            .prepare("SELECT id FROM games WHERE invite IS NOT NULL AND invite_token IS NULL")
            .and_then(|mut st| {
                st.query_map([], |r| r.get::<_, String>(0))?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(db)?;
        for id in ids {
            tx.execute(
                "UPDATE games SET invite_token = ?2 WHERE id = ?1",
                params![id, crate::util::new_token()],
            )
            .map_err(db)?;
        }
    }
    for (col, def) in ADDED_COLUMNS {
        if !has_column(col)? {
            tx.execute_batch(&format!("ALTER TABLE games ADD COLUMN {col} {def}"))
                .map_err(db)?;
        }
    }
    // After the columns exist (an older database gets them just above).
    tx.execute_batch(
        "CREATE INDEX IF NOT EXISTS games_by_red_user ON games(red_user, finished_ms) WHERE red_user IS NOT NULL;
         CREATE INDEX IF NOT EXISTS games_by_black_user ON games(black_user, finished_ms) WHERE black_user IS NOT NULL;",
    )
    .map_err(db)?;
    let version: i64 = tx
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(db)?;
    if version < 1 {
        name_perpetual_pieces(&tx)?;
        tx.pragma_update(None, "user_version", 1).map_err(db)?;
    }
    tx.commit().map_err(db)
}

/// Version 1 stores a perpetual with its piece (`perpetual_check:rook:h2`, see
/// [`Reason::code`]); earlier versions stored the bare `perpetual_check` or
/// `perpetual_chase`. Each such game gets its piece back from its own moves: replayed,
/// it ends in the same perpetual with the same winner. A game whose replay does not is
/// reported and left as it is, so that reading its end fails instead of guessing.
fn name_perpetual_pieces(tx: &Connection) -> Result<(), StoreError> {
    type Row = (String, String, String, String, Option<String>, String);
    let games = tx
        .prepare(
            "SELECT id, deal, rules, captured_identity, winner, reason FROM games
             WHERE reason IN ('perpetual_check', 'perpetual_chase')",
        )
        .and_then(|mut st| {
            st.query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<Row>>>()
        })
        .map_err(db)?;
    for (id, deal, rules, captured_identity, winner, name) in games {
        let moves = tx
            .prepare("SELECT uci FROM moves WHERE game = ?1 ORDER BY n")
            .and_then(|mut st| {
                st.query_map([&id], |r| r.get::<_, String>(0))?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(db)?;
        let replayed = replayed_outcome(&deal, &rules, &captured_identity, &moves).filter(|o| {
            o.reason().name() == name && o.winner().map(Color::name) == winner.as_deref()
        });
        match replayed {
            Some(o) => {
                tx.execute(
                    "UPDATE games SET reason = ?2 WHERE id = ?1",
                    params![id, o.reason().code()],
                )
                .map_err(db)?;
            }
            None => tracing::error!(
                game = %id,
                "stored reason {name:?} is not found again by replaying the game's moves: left unreadable"
            ),
        }
    }
    Ok(())
}

/// How a stored game's moves end it, replayed by the referee (`None` if they do not,
/// or cannot be replayed).
fn replayed_outcome(
    deal: &str,
    rules: &str,
    captured_identity: &str,
    moves: &[String],
) -> Option<Outcome> {
    let deal = Deal::parse(deal).ok()?;
    let mut game = Game::new(deal, crate::room::rules_of(rules, captured_identity)?);
    for m in moves {
        game.play(UciMove::parse(m).ok()?.to_plain()).ok()?;
    }
    game.outcome()
}

fn db(e: rusqlite::Error) -> StoreError {
    StoreError::Database(e.to_string())
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path`; each group of changes is
    /// committed as soon as the previous commit is done.
    pub fn open(path: &Path, sync: SyncMode) -> Result<SqliteStore, StoreError> {
        SqliteStore::open_with_interval(path, sync, Duration::ZERO)
    }

    /// Opens (creating if needed) the database at `path`; a commit starts at least
    /// `interval` after the previous one started (see [`COMMIT_INTERVAL`]).
    pub fn open_with_interval(
        path: &Path,
        sync: SyncMode,
        interval: Duration,
    ) -> Result<SqliteStore, StoreError> {
        let setup = |c: &Connection| -> rusqlite::Result<()> {
            c.busy_timeout(std::time::Duration::from_secs(10))?;
            c.pragma_update(None, "journal_mode", "WAL")?;
            c.pragma_update(
                None,
                "synchronous",
                match sync {
                    SyncMode::Full => "FULL",
                    SyncMode::Normal => "NORMAL",
                },
            )?;
            c.pragma_update(None, "foreign_keys", "ON")?;
            // 64 MiB of page cache (the default is 2 MiB): the pages of the live games
            // stay in memory instead of being read back from the file.
            c.pragma_update(None, "cache_size", -65536)?;
            Ok(())
        };
        let mut w = Connection::open(path).map_err(db)?;
        setup(&w).map_err(db)?;
        w.execute_batch(SCHEMA).map_err(db)?;
        migrate(&mut w)?;
        // Checkpoints (copying the WAL into the database file, with an fsync) are done
        // by a thread of their own, so that commits do not wait for them.
        w.pragma_update(None, "wal_autocheckpoint", WRITER_CHECKPOINT_PAGES)
            .map_err(db)?;
        let r = Connection::open(path).map_err(db)?;
        setup(&r).map_err(db)?;
        let c = Connection::open(path).map_err(db)?;
        setup(&c).map_err(db)?;
        let (tx, rx) = mpsc::channel::<Job>();
        let commits = Arc::new(AtomicU64::new(0));
        let counted = Arc::clone(&commits);
        let thread = std::thread::Builder::new()
            .name("jieqi-store".into())
            .spawn(move || writer_loop(w, rx, interval, &counted))
            .map_err(|e| StoreError::Database(format!("cannot start the writer: {e}")))?;
        let (stop, stopped) = mpsc::channel::<()>();
        let checkpointer = std::thread::Builder::new()
            .name("jieqi-checkpoint".into())
            .spawn(move || checkpoint_loop(c, stopped))
            .map_err(|e| StoreError::Database(format!("cannot start the checkpointer: {e}")))?;
        Ok(SqliteStore {
            writer: Mutex::new(Some(tx)),
            commits,
            reader: Arc::new(Mutex::new(r)),
            thread: Mutex::new(Some(thread)),
            checkpointer: Mutex::new(Some((stop, checkpointer))),
        })
    }

    /// Finishes pending writes and stops the writer thread.
    pub fn close(&self) {
        if let Ok(mut w) = self.writer.lock() {
            w.take();
        }
        if let Some(t) = self.thread.lock().ok().and_then(|mut t| t.take()) {
            let _ = t.join();
        }
        if let Some((stop, t)) = self.checkpointer.lock().ok().and_then(|mut t| t.take()) {
            drop(stop);
            let _ = t.join();
        }
    }

    /// How many groups of changes the writer has taken so far: one transaction (and
    /// with `--sync full` one fsync) each.
    pub fn commits(&self) -> u64 {
        self.commits.load(Ordering::Relaxed)
    }

    fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> BoxFuture<'_, Result<T, StoreError>> {
        let reader = Arc::clone(&self.reader);
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                let conn = reader
                    .lock()
                    .map_err(|_| StoreError::Database("reader lock poisoned".into()))?;
                f(&conn)
            })
            .await
            .map_err(|e| StoreError::Database(e.to_string()))?
        })
    }
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        self.close();
    }
}

/// Copies committed WAL pages into the database file every [`CHECKPOINT_EVERY`]
/// (`PASSIVE`: never blocks the writer or the reader) until the store closes.
fn checkpoint_loop(conn: Connection, stop: mpsc::Receiver<()>) {
    while let Err(mpsc::RecvTimeoutError::Timeout) = stop.recv_timeout(CHECKPOINT_EVERY) {
        if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
            tracing::debug!("checkpoint: {e}");
        }
    }
}

/// Commits every pending change in one transaction (one fsync for all of them), then
/// answers them all. A commit starts no sooner than `interval` after the previous one
/// started: the writer sleeps once until then and takes everything queued meanwhile
/// (each change woke it otherwise), so that under load a commit serves more changes.
fn writer_loop(
    mut conn: Connection,
    rx: mpsc::Receiver<Job>,
    interval: Duration,
    commits: &AtomicU64,
) {
    const BATCH: usize = 1024;
    let mut last_start: Option<Instant> = None;
    while let Ok(first) = rx.recv() {
        if let Some(due) = last_start.map(|t| t + interval) {
            let now = Instant::now();
            if due > now {
                std::thread::sleep(due - now);
            }
        }
        last_start = Some(Instant::now());
        let mut jobs = vec![first];
        while jobs.len() < BATCH {
            match rx.try_recv() {
                Ok(j) => jobs.push(j),
                Err(_) => break,
            }
        }
        let results = commit_batch(&mut conn, &jobs);
        commits.fetch_add(1, Ordering::Relaxed);
        for ((_, reply), r) in jobs.into_iter().zip(results) {
            let _ = reply.send(r);
        }
    }
}

/// Applies `jobs` in one transaction. Fast path: straight through, no savepoints (a
/// savepoint makes SQLite copy every page it touches). If a change is refused, the
/// whole transaction is rolled back and the batch is applied again with one savepoint
/// per change, so that only the refused changes fail.
fn commit_batch(conn: &mut Connection, jobs: &[Job]) -> Vec<Result<(), StoreError>> {
    let all_fail = |e: &StoreError| {
        jobs.iter()
            .map(|_| Err(StoreError::Database(e.to_string())))
            .collect()
    };
    let fast = conn.transaction().map_err(db).and_then(|tx| {
        for (w, _) in jobs {
            if let Err(e) = apply(&tx, w) {
                return Ok(Err(e));
            }
        }
        tx.commit().map_err(db).map(Ok)
    });
    match fast {
        Ok(Ok(())) => return jobs.iter().map(|_| Ok(())).collect(),
        Err(e) => return all_fail(&e),
        // A refused change: the transaction was rolled back when dropped.
        Ok(Err(_)) => {}
    }
    let careful = conn.transaction().map_err(db).and_then(|tx| {
        let results: Vec<Result<(), StoreError>> = jobs
            .iter()
            .map(|(w, _)| {
                run(&tx, "SAVEPOINT one", [])?;
                let r = apply(&tx, w);
                if r.is_err() {
                    run(&tx, "ROLLBACK TO one", [])?;
                }
                run(&tx, "RELEASE one", [])?;
                r
            })
            .collect();
        tx.commit().map_err(db)?;
        Ok(results)
    });
    careful.unwrap_or_else(|e| all_fail(&e))
}

/// Runs one statement through the connection's statement cache (parsed once).
fn run(c: &Connection, sql: &str, p: impl rusqlite::Params) -> Result<usize, StoreError> {
    c.prepare_cached(sql)
        .and_then(|mut st| st.execute(p))
        .map_err(db)
}

fn apply(tx: &Connection, w: &Write) -> Result<(), StoreError> {
    match w {
        Write::Create(g) => {
            run(tx,
                "INSERT INTO games (id, created_ms, updated_ms, deal, salt, commitment, rules,
                   captured_identity, time, move_time_s, red_level, red_token, red_joined,
                   black_level, black_token, black_joined, listed, rematch_of, invite, invite_token,
                   red_user, black_user, rated, category)
                 VALUES (?1, ?2, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,
                   ?20, ?21, ?22, ?23)",
                params![
                    g.id,
                    i(g.created_ms),
                    g.deal,
                    g.salt,
                    g.commitment,
                    g.rules,
                    g.captured_identity,
                    g.time,
                    g.move_time_s.map(i),
                    g.seats.red.engine_level,
                    g.seats.red.token,
                    g.seats.red.joined,
                    g.seats.black.engine_level,
                    g.seats.black.token,
                    g.seats.black.joined,
                    g.listed,
                    g.rematch_of,
                    g.invite.map(Color::name),
                    g.invite_token,
                    g.seats.red.user,
                    g.seats.black.user,
                    g.rated,
                    Category::of_text(&g.time).map(Category::name),
                ],
            )?;
        }
        Write::CreateUser(u) => {
            let n = run(
                tx,
                "INSERT INTO users (name, key, password, created_ms) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT DO NOTHING",
                params![u.name, u.key, u.password, i(u.created_ms)],
            )?;
            if n != 1 {
                return Err(StoreError::Taken);
            }
        }
        Write::Session {
            hash,
            user,
            created_ms,
            expires_ms,
        } => {
            // The user's expired sessions go with each new one.
            run(
                tx,
                "DELETE FROM sessions WHERE user = ?1 AND expires_ms <= ?2",
                params![user, i(*created_ms)],
            )?;
            run(
                tx,
                "INSERT INTO sessions (hash, user, created_ms, expires_ms) VALUES (?1, ?2, ?3, ?4)",
                params![hash, user, i(*created_ms), i(*expires_ms)],
            )?;
        }
        Write::EndSession { hash } => {
            run(tx, "DELETE FROM sessions WHERE hash = ?1", params![hash])?;
        }
        Write::Move { id, mv, finish } => {
            // Stored only as the next ply of a game not over; the game's row is read,
            // not written. The check is a query of its own and the insert a plain
            // one-row INSERT: an INSERT … SELECT makes SQLite keep a statement journal
            // (a copy of each page it changes) for every move.
            let next: bool = tx
                .prepare_cached(
                    "SELECT EXISTS (SELECT 1 FROM games WHERE id = ?1 AND result IS NULL)
                       AND NOT EXISTS (SELECT 1 FROM moves WHERE game = ?1 AND n >= ?2)
                       AND (?2 = 1 OR EXISTS (SELECT 1 FROM moves WHERE game = ?1 AND n = ?2 - 1))",
                )
                .and_then(|mut st| st.query_row(params![id, mv.n], |r| r.get(0)))
                .map_err(db)?;
            let n = if next {
                run(
                    tx,
                    "INSERT INTO moves (game, n, uci, red_ms, black_ms, at_ms)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![id, mv.n, mv.uci, i(mv.red_ms), i(mv.black_ms), i(mv.at_ms)],
                )?
            } else {
                0
            };
            if n != 1 {
                return Err(StoreError::Database(format!(
                    "game {id}: move {} is out of order or the game is over",
                    mv.n
                )));
            }
            if let Some(f) = finish {
                write_finish(tx, id, f)?;
            }
        }
        Write::Seats {
            id,
            joined,
            users,
            invite_claimed,
            started_ms,
        } => {
            run(
                tx,
                "UPDATE games SET red_joined = ?2, black_joined = ?3, invite_claimed = ?4,
                   started_ms = COALESCE(started_ms, ?5), red_user = ?6, black_user = ?7
                 WHERE id = ?1",
                params![
                    id,
                    joined.red,
                    joined.black,
                    invite_claimed,
                    started_ms.map(i),
                    users.red,
                    users.black,
                ],
            )?;
        }
        Write::Finish { id, finish } => write_finish(tx, id, finish)?,
        Write::Chat { id, line } => {
            run(
                tx,
                "INSERT INTO chat (game, n, room, color, user, text, at_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    id,
                    line.n,
                    line.room.name(),
                    line.color.map(Color::name),
                    line.user,
                    line.text,
                    i(line.at_ms)
                ],
            )?;
        }
        Write::TakebackOffer { id, offer } => {
            let text = offer.map(takeback_text);
            run(
                tx,
                "UPDATE games SET takeback = ?2 WHERE id = ?1",
                params![id, text],
            )?;
        }
        Write::Takeback { id, keep } => {
            let n = run(
                tx,
                "UPDATE games SET takeback = NULL WHERE id = ?1 AND result IS NULL",
                params![id],
            )?;
            if n != 1 {
                return Err(StoreError::Database(format!(
                    "game {id}: no takeback in a finished game"
                )));
            }
            run(
                tx,
                "DELETE FROM moves WHERE game = ?1 AND n > ?2",
                params![id, keep],
            )?;
        }
        Write::ChatMute { id, color, muted } => {
            let sql = if *muted {
                "INSERT INTO chat_mutes (game, color) VALUES (?1, ?2) ON CONFLICT DO NOTHING"
            } else {
                "DELETE FROM chat_mutes WHERE game = ?1 AND color = ?2"
            };
            run(tx, sql, params![id, color.name()])?;
        }
        Write::Rematch { id, rematch } => {
            run(
                tx,
                "UPDATE games SET rematch = ?2 WHERE id = ?1",
                params![id, rematch],
            )?;
        }
        Write::GameAnalysis { id, json } => {
            run(
                tx,
                "INSERT INTO game_analysis (game, json) VALUES (?1, ?2)
                 ON CONFLICT(game) DO UPDATE SET json = ?2",
                params![id, json],
            )?;
        }
        Write::Tournament {
            id,
            json,
            updated_ms,
        } => {
            tx.execute(
                "INSERT INTO tournaments (id, updated_ms, state) VALUES (?1, ?2, ?3)
                 ON CONFLICT(id) DO UPDATE SET updated_ms = ?2, state = ?3",
                params![id, i(*updated_ms), json],
            )
            .map_err(db)?;
        }
    }
    Ok(())
}

fn write_finish(tx: &Connection, id: &str, f: &FinishRecord) -> Result<(), StoreError> {
    let (result, winner, reason) = finish_columns(f);
    let n = run(
        tx,
        "UPDATE games SET result = ?2, winner = ?3, reason = ?4, finished_ms = ?5, updated_ms = ?5,
               plies = (SELECT COUNT(*) FROM moves WHERE game = ?1)
             WHERE id = ?1 AND result IS NULL",
        params![id, result, winner, reason, i(f.at_ms)],
    )?;
    if n != 1 {
        return Err(StoreError::Database(format!(
            "game {id}: cannot finish (missing or already over)"
        )));
    }
    // An aborted game has no result: nobody's rating changes.
    match f.end {
        GameEnd::Result(o) => rate(tx, id, &o),
        GameEnd::Aborted => Ok(()),
    }
}

/// Updates the players' ratings for a rated game that has just ended, in the
/// transaction that stores the end: an end is stored once (`result IS NULL` above),
/// so a rating changes exactly once per game, also across a crash or a restart.
fn rate(tx: &Connection, id: &str, outcome: &Outcome) -> Result<(), StoreError> {
    let (rated, red, black, category): (bool, Option<String>, Option<String>, Option<String>) = tx
        .query_row(
            "SELECT rated, red_user, black_user, category FROM games WHERE id = ?1",
            params![id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .map_err(db)?;
    let (Some(red), Some(black), Some(category)) = (red, black, category) else {
        return Ok(());
    };
    if !rated || red == black {
        return Ok(());
    }
    let current = |user: &str| -> Result<Rating, StoreError> {
        tx.query_row(
            "SELECT rating, deviation, volatility FROM ratings WHERE user = ?1 AND category = ?2",
            params![user, category],
            |r| {
                Ok(Rating {
                    rating: r.get(0)?,
                    deviation: r.get(1)?,
                    volatility: r.get(2)?,
                })
            },
        )
        .optional()
        .map_err(db)
        .map(Option::unwrap_or_default)
    };
    let before = ByColor {
        red: current(&red)?,
        black: current(&black)?,
    };
    let (r, b) = crate::rating::after_game(before.red, before.black, outcome);
    let after = ByColor { red: r, black: b };
    let users = ByColor { red, black };
    for c in Color::ALL {
        let (was, now) = (before[c], after[c]);
        run(
            tx,
            "INSERT INTO ratings (user, category, rating, deviation, volatility, games)
             VALUES (?1, ?2, ?3, ?4, ?5, 1)
             ON CONFLICT(user, category) DO UPDATE SET rating = ?3, deviation = ?4,
               volatility = ?5, games = games + 1",
            params![
                users[c],
                category,
                now.rating,
                now.deviation,
                now.volatility
            ],
        )?;
        run(
            tx,
            "INSERT INTO game_ratings (game, color, user, category, before_rating,
               before_deviation, before_volatility, after_rating, after_deviation, after_volatility)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                id,
                c.name(),
                users[c],
                category,
                was.rating,
                was.deviation,
                was.volatility,
                now.rating,
                now.deviation,
                now.volatility
            ],
        )?;
    }
    Ok(())
}

/// The columns of a [`Summary`]. A move does not touch the game's row (one page less
/// to write per move): the number of plies and the last change are read from the
/// moves.
const SUMMARY_COLS: &str = "id, red_level, black_level, red_joined, black_joined, time,
  move_time_s, rules, (SELECT COUNT(*) FROM moves WHERE game = games.id), created_ms,
  MAX(updated_ms, COALESCE((SELECT MAX(at_ms) FROM moves WHERE game = games.id), 0)) AS last_ms,
  started_ms, result, winner, reason, finished_ms, commitment, red_user, black_user, rated";

/// A game's result for the user `?1` (who sat on one of its seats): `win`, `draw` or
/// `loss`; Red's if the user sat on both (a casual game against oneself).
const RESULT_FOR_USER: &str =
    "(CASE WHEN result = '*' THEN 'aborted' WHEN winner IS NULL THEN 'draw'
  WHEN winner = (CASE WHEN red_user = ?1 THEN 'red' ELSE 'black' END) THEN 'win'
  ELSE 'loss' END)";

/// A Glicko-2 rating from three columns (rating, deviation, volatility) from `at`.
fn rating_at(r: &Row<'_>, at: usize) -> rusqlite::Result<Rating> {
    Ok(Rating {
        rating: r.get(at)?,
        deviation: r.get(at + 1)?,
        volatility: r.get(at + 2)?,
    })
}

/// A lobby line, or the error of a row whose end cannot be read.
fn summary_row(r: &Row<'_>) -> rusqlite::Result<Result<Summary, StoreError>> {
    let id: String = r.get(0)?;
    let finish = match finish_from(&id, (r.get(12)?, r.get(13)?, r.get(14)?, r.get(15)?)) {
        Ok(f) => f,
        Err(e) => return Ok(Err(e)),
    };
    Ok(Ok(Summary {
        id,
        engine: ByColor {
            red: r.get(1)?,
            black: r.get(2)?,
        },
        joined: ByColor {
            red: r.get(3)?,
            black: r.get(4)?,
        },
        time: r.get(5)?,
        move_time_s: r.get::<_, Option<i64>>(6)?.map(u),
        rules: r.get(7)?,
        plies: r.get(8)?,
        created_ms: u(r.get(9)?),
        updated_ms: u(r.get(10)?),
        started: r.get::<_, Option<i64>>(11)?.is_some(),
        finish,
        commitment: r.get(16)?,
        users: ByColor {
            red: r.get(17)?,
            black: r.get(18)?,
        },
        rated: r.get(19)?,
    }))
}

fn load_game(c: &Connection, id: &str) -> Result<Option<StoredGame>, StoreError> {
    let row = c
        .query_row(
            "SELECT id, created_ms, updated_ms, deal, salt, commitment, rules, captured_identity,
               time, move_time_s, red_level, red_token, red_joined, black_level, black_token,
               black_joined, listed, invite_claimed, rematch_of, rematch, started_ms, result,
               winner, reason, finished_ms, invite, invite_token, red_user, black_user, rated,
               takeback
             FROM games WHERE id = ?1",
            params![id],
            |r| {
                let game = StoredGame {
                    new: NewGame {
                        id: r.get(0)?,
                        created_ms: u(r.get(1)?),
                        deal: r.get(3)?,
                        salt: r.get(4)?,
                        commitment: r.get(5)?,
                        rules: r.get(6)?,
                        captured_identity: r.get(7)?,
                        time: r.get(8)?,
                        move_time_s: r.get::<_, Option<i64>>(9)?.map(u),
                        seats: ByColor {
                            red: SeatRecord {
                                engine_level: r.get(10)?,
                                token: r.get(11)?,
                                joined: r.get(12)?,
                                user: r.get(27)?,
                            },
                            black: SeatRecord {
                                engine_level: r.get(13)?,
                                token: r.get(14)?,
                                joined: r.get(15)?,
                                user: r.get(28)?,
                            },
                        },
                        listed: r.get(16)?,
                        rematch_of: r.get(18)?,
                        invite: r
                            .get::<_, Option<String>>(25)?
                            .as_deref()
                            .and_then(Color::parse_name),
                        invite_token: r.get(26)?,
                        rated: r.get(29)?,
                    },
                    updated_ms: u(r.get(2)?),
                    invite_claimed: r.get(17)?,
                    rematch: r.get(19)?,
                    started_ms: r.get::<_, Option<i64>>(20)?.map(u),
                    finish: None,
                    moves: Vec::new(),
                    chat: Vec::new(),
                    mutes: ByColor::default(),
                    takeback: r
                        .get::<_, Option<String>>(30)?
                        .as_deref()
                        .and_then(takeback_from),
                };
                let finish: FinishColumns = (r.get(21)?, r.get(22)?, r.get(23)?, r.get(24)?);
                Ok((game, finish))
            },
        )
        .optional()
        .map_err(db)?;
    let Some((mut g, finish)) = row else {
        return Ok(None);
    };
    g.finish = finish_from(id, finish)?;
    let mut st = c
        .prepare_cached(
            "SELECT n, uci, red_ms, black_ms, at_ms FROM moves WHERE game = ?1 ORDER BY n",
        )
        .map_err(db)?;
    let moves = st
        .query_map(params![id], |r| {
            Ok(MoveRecord {
                n: r.get(0)?,
                uci: r.get(1)?,
                red_ms: u(r.get(2)?),
                black_ms: u(r.get(3)?),
                at_ms: u(r.get(4)?),
            })
        })
        .map_err(db)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(db)?;
    g.moves = moves;
    g.chat = load_chat(c, id)?;
    let mut st = c
        .prepare_cached("SELECT color FROM chat_mutes WHERE game = ?1")
        .map_err(db)?;
    for color in st
        .query_map(params![id], |r| r.get::<_, String>(0))
        .map_err(db)?
    {
        if let Some(c) = Color::parse_name(&color.map_err(db)?) {
            g.mutes[c] = true;
        }
    }
    Ok(Some(g))
}

/// A game's chat lines, in order. A line that cannot be read (an unknown room) is
/// left out rather than failing the game.
fn load_chat(c: &Connection, id: &str) -> Result<Vec<ChatLine>, StoreError> {
    let mut st = c
        .prepare_cached(
            "SELECT n, room, color, user, text, at_ms FROM chat WHERE game = ?1 ORDER BY n",
        )
        .map_err(db)?;
    let rows = st
        .query_map(params![id], |r| {
            Ok((
                r.get::<_, u32>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, Option<String>>(3)?,
                r.get::<_, String>(4)?,
                u(r.get(5)?),
            ))
        })
        .map_err(db)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(db)?;
    Ok(rows.into_iter().filter_map(chat_line).collect())
}

impl Store for SqliteStore {
    fn write(&self, w: Write) -> BoxFuture<'_, Result<(), StoreError>> {
        queue_write(w, |job| {
            self.writer
                .lock()
                .ok()
                .and_then(|g| g.as_ref().map(|s| s.send(job).is_ok()))
                .unwrap_or(false)
        })
    }

    fn load(&self, id: &str) -> BoxFuture<'_, Result<Option<StoredGame>, StoreError>> {
        let id = id.to_string();
        self.read(move |c| load_game(c, &id))
    }

    fn unfinished(&self) -> BoxFuture<'_, Result<Vec<String>, StoreError>> {
        self.read(|c| {
            let mut st = c
                .prepare("SELECT id FROM games WHERE result IS NULL")
                .map_err(db)?;
            st.query_map([], |r| r.get(0))
                .map_err(db)?
                .collect::<Result<Vec<String>, _>>()
                .map_err(db)
        })
    }

    fn list(&self, kind: ListKind, limit: u32) -> BoxFuture<'_, Result<Vec<Summary>, StoreError>> {
        self.read(move |c| {
            let filter = match kind {
                ListKind::Open => {
                    "result IS NULL AND listed = 1 AND invite_claimed = 0 AND started_ms IS NULL
                     AND NOT ((invite = 'red' AND red_joined = 1) OR (invite = 'black' AND black_joined = 1))
                     ORDER BY created_ms DESC"
                }
                ListKind::Live => "result IS NULL AND started_ms IS NOT NULL ORDER BY last_ms DESC",
                ListKind::Recent => "result IS NOT NULL ORDER BY finished_ms DESC",
            };
            let sql = format!("SELECT {SUMMARY_COLS} FROM games WHERE {filter} LIMIT ?1");
            let mut st = c.prepare_cached(&sql).map_err(db)?;
            let rows = st
                .query_map(params![limit], summary_row)
                .map_err(db)?
                .collect::<Result<Vec<_>, _>>()
                .map_err(db)?;
            // A game whose end cannot be read (reported by `finish_from`) is left out,
            // so that one bad row does not hide the whole list.
            Ok(rows.into_iter().filter_map(Result::ok).collect())
        })
    }

    fn summary(&self, id: &str) -> BoxFuture<'_, Result<Option<Summary>, StoreError>> {
        let id = id.to_string();
        self.read(move |c| {
            let sql = format!("SELECT {SUMMARY_COLS} FROM games WHERE id = ?1");
            c.query_row(&sql, params![id], summary_row)
                .optional()
                .map_err(db)?
                .transpose()
        })
    }

    fn game_analysis(&self, id: &str) -> BoxFuture<'_, Result<Option<String>, StoreError>> {
        let id = id.to_string();
        self.read(move |c| {
            c.query_row(
                "SELECT json FROM game_analysis WHERE game = ?1",
                params![id],
                |r| r.get(0),
            )
            .optional()
            .map_err(db)
        })
    }

    fn tournaments(&self) -> BoxFuture<'_, Result<Vec<(String, String)>, StoreError>> {
        self.read(|c| {
            let mut st = c
                .prepare("SELECT id, state FROM tournaments ORDER BY updated_ms")
                .map_err(db)?;
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(db)?
                .collect::<Result<Vec<(String, String)>, _>>()
                .map_err(db)
        })
    }

    fn user(&self, key: &str) -> BoxFuture<'_, Result<Option<UserRecord>, StoreError>> {
        let key = key.to_string();
        self.read(move |c| {
            c.query_row(
                "SELECT name, password, created_ms FROM users WHERE key = ?1",
                params![key],
                |r| {
                    Ok(UserRecord {
                        name: r.get(0)?,
                        password: r.get(1)?,
                        created_ms: u(r.get(2)?),
                    })
                },
            )
            .optional()
            .map_err(db)
        })
    }

    fn session(
        &self,
        hash: &str,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<Option<String>, StoreError>> {
        let hash = hash.to_string();
        self.read(move |c| {
            c.query_row(
                "SELECT user FROM sessions WHERE hash = ?1 AND expires_ms > ?2",
                params![hash, i(now_ms)],
                |r| r.get(0),
            )
            .optional()
            .map_err(db)
        })
    }

    fn ratings(&self, user: &str) -> BoxFuture<'_, Result<Vec<RatingRecord>, StoreError>> {
        let user = user.to_string();
        self.read(move |c| {
            let mut st = c
                .prepare_cached(
                    "SELECT category, rating, deviation, volatility, games FROM ratings
                     WHERE user = ?1",
                )
                .map_err(db)?;
            let rows = st
                .query_map(params![user], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        rating_at(r, 1)?,
                        r.get::<_, u32>(4)?,
                    ))
                })
                .map_err(db)?
                .collect::<Result<Vec<_>, _>>()
                .map_err(db)?;
            Ok(rating_records(rows))
        })
    }

    fn rating_history(&self, user: &str) -> BoxFuture<'_, Result<Vec<RatingChange>, StoreError>> {
        let user = user.to_string();
        self.read(move |c| {
            let mut st = c
                .prepare_cached(
                    "SELECT gr.game, gr.category, g.finished_ms, gr.before_rating,
                       gr.before_deviation, gr.before_volatility, gr.after_rating,
                       gr.after_deviation, gr.after_volatility
                     FROM game_ratings gr JOIN games g ON g.id = gr.game
                     WHERE gr.user = ?1 ORDER BY g.finished_ms, g.id",
                )
                .map_err(db)?;
            let rows = st
                .query_map(params![user], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        u(r.get(2)?),
                        rating_at(r, 3)?,
                        rating_at(r, 6)?,
                    ))
                })
                .map_err(db)?
                .collect::<Result<Vec<_>, _>>()
                .map_err(db)?;
            Ok(rating_changes(rows))
        })
    }

    fn tallies(&self, user: &str) -> BoxFuture<'_, Result<Vec<Tally>, StoreError>> {
        let user = user.to_string();
        self.read(move |c| {
            let sql = format!(
                "SELECT category, rated, {RESULT_FOR_USER} AS r, COUNT(*) FROM games
                 WHERE result IS NOT NULL AND result <> '*' AND (red_user = ?1 OR black_user = ?1)
                 GROUP BY category, rated, r"
            );
            let mut st = c.prepare_cached(&sql).map_err(db)?;
            let rows = st
                .query_map(params![user], |r| {
                    Ok((
                        r.get::<_, Option<String>>(0)?,
                        r.get::<_, bool>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, u32>(3)?,
                    ))
                })
                .map_err(db)?
                .collect::<Result<Vec<_>, _>>()
                .map_err(db)?;
            Ok(tallies(rows))
        })
    }

    fn history(
        &self,
        user: &str,
        filter: GameFilter,
        offset: u32,
        limit: u32,
    ) -> BoxFuture<'_, Result<(Vec<HistoryEntry>, u32), StoreError>> {
        let user = user.to_string();
        self.read(move |c| {
            let filter_sql = format!(
                "result IS NOT NULL AND (red_user = ?1 OR black_user = ?1)
                 AND (?2 IS NULL OR {RESULT_FOR_USER} = ?2)
                 AND (?3 IS NULL OR (CASE WHEN red_user = ?1 THEN black_user ELSE red_user END) = ?3)
                 AND (?4 IS NULL OR finished_ms >= ?4)
                 AND (?5 IS NULL OR finished_ms < ?5)
                 AND (?6 IS NULL OR rated = ?6)"
            );
            let (result, from, to) = (
                filter.result.map(PlayerResult::name),
                filter.from_ms.map(i),
                filter.to_ms.map(i),
            );
            // The filter's parameters (?1 to ?6), then the page's (?7, ?8).
            let p: [&dyn rusqlite::ToSql; 8] = [
                &user,
                &result,
                &filter.opponent,
                &from,
                &to,
                &filter.rated,
                &limit,
                &offset,
            ];
            let total: u32 = c
                .query_row(
                    &format!("SELECT COUNT(*) FROM games WHERE {filter_sql}"),
                    &p[..6],
                    |r| r.get(0),
                )
                .map_err(db)?;
            let sql = format!(
                "SELECT {SUMMARY_COLS},
                   gr.before_rating, gr.before_deviation, gr.before_volatility,
                   gr.after_rating, gr.after_deviation, gr.after_volatility
                 FROM games LEFT JOIN game_ratings gr ON gr.game = games.id AND gr.user = ?1
                 WHERE {filter_sql}
                 ORDER BY finished_ms DESC, id LIMIT ?7 OFFSET ?8"
            );
            let mut st = c.prepare_cached(&sql).map_err(db)?;
            let rows = st
                .query_map(
                    &p[..],
                |r| {
                        let summary = summary_row(r)?;
                        let rating = match r.get::<_, Option<f64>>(20)? {
                            Some(_) => Some((rating_at(r, 20)?, rating_at(r, 23)?)),
                            None => None,
                        };
                        Ok(summary.map(|s| (s, rating)))
                    },
                )
                .map_err(db)?
                .collect::<Result<Vec<_>, _>>()
                .map_err(db)?;
            let games = rows
                .into_iter()
                .filter_map(Result::ok)
                .map(|(summary, rating)| history_entry(&user, summary, rating))
                .collect();
            Ok((games, total))
        })
    }

    fn live_games(
        &self,
        user: &str,
        limit: u32,
    ) -> BoxFuture<'_, Result<Vec<(Summary, Color)>, StoreError>> {
        let user = user.to_string();
        self.read(move |c| {
            let sql = format!(
                "SELECT {SUMMARY_COLS} FROM games
                 WHERE result IS NULL AND (red_user = ?1 OR black_user = ?1)
                 ORDER BY last_ms DESC, id LIMIT ?2"
            );
            let mut st = c.prepare_cached(&sql).map_err(db)?;
            let rows = st
                .query_map(params![user, limit], summary_row)
                .map_err(db)?
                .collect::<Result<Vec<_>, _>>()
                .map_err(db)?;
            let mut out = Vec::new();
            for s in rows.into_iter().filter_map(Result::ok) {
                for color in Color::ALL {
                    if s.users[color].as_deref() == Some(user.as_str()) {
                        out.push((s.clone(), color));
                    }
                }
            }
            Ok(out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tests::{finished, new_game};
    use jieqi_core::{Reason, RuleSet};

    /// Group commit under concurrency answers each write with its own result, and only
    /// once it is committed: many games writing at once on a multi-threaded runtime,
    /// each next move sent only after the last was answered (as a game does), each
    /// answer followed by a read that must find it, and a write out of order among them
    /// refused alone.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn grouped_answers_reach_their_writes_after_the_commit() {
        let dir = tempfile::tempdir().unwrap();
        let s = std::sync::Arc::new(
            SqliteStore::open(&dir.path().join("t.db"), SyncMode::Normal).unwrap(),
        );
        let games: Vec<String> = (0..40).map(|i| format!("g{i:02}")).collect();
        for id in &games {
            s.write(Write::Create(Box::new(new_game(id))))
                .await
                .unwrap();
        }
        let mut tasks = Vec::new();
        for (i, id) in games.iter().enumerate() {
            let (s, id) = (std::sync::Arc::clone(&s), id.clone());
            tasks.push(tokio::spawn(async move {
                for n in 1..=12u32 {
                    // Game 7 tries to skip ply 6: refused, and nothing else is.
                    let n_sent = if i == 7 && n == 6 { 7 } else { n };
                    let w = Write::Move {
                        id: id.clone(),
                        mv: crate::store::tests::mv(n_sent),
                        finish: None,
                    };
                    let r = s.write(w).await;
                    if n_sent != n {
                        assert!(r.is_err(), "{id}: ply {n_sent} out of order was stored");
                        return;
                    }
                    r.unwrap_or_else(|e| panic!("{id} ply {n}: {e}"));
                    let stored = s.load(&id).await.unwrap().unwrap();
                    assert_eq!(
                        stored.moves.len(),
                        n as usize,
                        "{id}: answered before stored"
                    );
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        assert_eq!(s.load("g07").await.unwrap().unwrap().moves.len(), 5);
        assert_eq!(s.load("g39").await.unwrap().unwrap().moves.len(), 12);
    }

    /// A change after a quiet spell is committed at once; the changes that arrive
    /// within the commit interval after it wait and share the next commit.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn changes_within_the_commit_interval_share_one_commit() {
        let dir = tempfile::tempdir().unwrap();
        let interval = Duration::from_secs(2);
        let s = Arc::new(
            SqliteStore::open_with_interval(&dir.path().join("t.db"), SyncMode::Normal, interval)
                .unwrap(),
        );
        let started = Instant::now();
        s.write(Write::Create(Box::new(new_game("g0"))))
            .await
            .unwrap();
        assert!(
            started.elapsed() < interval,
            "the first change waited for the interval"
        );
        assert_eq!(s.commits(), 1);
        let writes: Vec<_> = (1..=8)
            .map(|i| {
                let s = Arc::clone(&s);
                tokio::spawn(async move {
                    s.write(Write::Create(Box::new(new_game(&format!("g{i}")))))
                        .await
                })
            })
            .collect();
        for w in writes {
            w.await.unwrap().unwrap();
        }
        assert!(
            started.elapsed() >= interval,
            "a commit started within the interval"
        );
        assert_eq!(
            s.commits(),
            2,
            "the waiting changes were not committed together"
        );
        for i in 0..=8 {
            let id = format!("g{i}");
            assert!(s.load(&id).await.unwrap().is_some(), "{id} was not stored");
        }
    }

    async fn token(s: &SqliteStore, id: &str) -> Option<String> {
        s.load(id).await.unwrap().unwrap().new.invite_token
    }

    /// The invite token is stored with the game; a database from before invite tokens
    /// gets the column when opened, and each of its friend games a token, once.
    #[tokio::test]
    async fn invite_tokens_are_stored_and_added_to_old_databases() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let friend = |id: &str, token: Option<&str>| NewGame {
            invite: Some(Color::Red),
            invite_token: token.map(str::to_string),
            ..new_game(id)
        };
        let s = SqliteStore::open(&path, SyncMode::Normal).unwrap();
        s.write(Write::Create(Box::new(friend("g1", Some("i1")))))
            .await
            .unwrap();
        s.write(Write::Create(Box::new(friend("g2", None))))
            .await
            .unwrap();
        s.write(Write::Create(Box::new(new_game("g3"))))
            .await
            .unwrap();
        assert_eq!(
            s.load("g1").await.unwrap().unwrap().new,
            friend("g1", Some("i1"))
        );
        s.close();
        drop(s);
        // As an earlier version left it.
        Connection::open(&path)
            .unwrap()
            .execute_batch("ALTER TABLE games DROP COLUMN invite_token")
            .unwrap();
        let s = SqliteStore::open(&path, SyncMode::Normal).unwrap();
        let (t1, t2) = (token(&s, "g1").await, token(&s, "g2").await);
        assert!(t1.as_ref().is_some_and(|t| t.len() == 32), "{t1:?}");
        assert!(
            t2.as_ref().is_some_and(|t| t.len() == 32) && t1 != t2,
            "{t2:?}"
        );
        assert_eq!(token(&s, "g3").await, None, "an engine game has no invite");
        s.close();
        drop(s);
        let s = SqliteStore::open(&path, SyncMode::Normal).unwrap();
        assert_eq!((token(&s, "g1").await, token(&s, "g2").await), (t1, t2));
    }

    /// Sets a game's stored reason text as an earlier version (or damage) left it.
    fn set_reason(path: &Path, id: &str, reason: &str, version: i64) {
        let c = Connection::open(path).unwrap();
        c.execute(
            "UPDATE games SET reason = ?2 WHERE id = ?1",
            params![id, reason],
        )
        .unwrap();
        c.pragma_update(None, "user_version", version).unwrap();
    }

    #[tokio::test]
    async fn ends_are_stored_as_typed_outcomes() {
        let dir = tempfile::tempdir().unwrap();
        let s = SqliteStore::open(&dir.path().join("t.db"), SyncMode::Normal).unwrap();
        let chase = Outcome::Win {
            winner: Color::Red,
            reason: Reason::PerpetualChase {
                role: None,
                square: jieqi_core::Square::parse("c6").unwrap(),
            },
        };
        let draw = Outcome::Draw {
            reason: Reason::Agreement,
        };
        finished(&s, "g1", &[], chase).await;
        finished(&s, "g2", &[], draw).await;
        let end = |g: &StoredGame| g.finish.and_then(|f| f.end.outcome());
        assert_eq!(end(&s.load("g1").await.unwrap().unwrap()), Some(chase));
        assert_eq!(end(&s.load("g2").await.unwrap().unwrap()), Some(draw));
        let sum = s.summary("g1").await.unwrap().unwrap();
        assert_eq!(sum.finish.and_then(|f| f.end.outcome()), Some(chase));
        let recent = s.list(ListKind::Recent, 10).await.unwrap();
        assert_eq!(recent.len(), 2);
        let c = s.reader.lock().unwrap();
        let row: (String, String, String) = c
            .query_row(
                "SELECT result, winner, reason FROM games WHERE id = 'g1'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!(
            row,
            (
                "1-0".into(),
                "red".into(),
                "perpetual_chase:hidden:c6".into()
            )
        );
    }

    /// A Red rook checks the Black king along ranks 8 and 7 while the king steps
    /// between e8 and e7: Black wins by perpetual check.
    const PERPETUAL: &[&str] = &[
        "a0a1", "e9e8", "a1d1", "a6a5", "d1d7", "i6i5", "d7g7", "a5a4", "g7g8", "e8e7", "g8g7",
        "e7e8", "g7g8", "e8e7", "g8g7", "e7e8", "g7g8", "e8e7", "g8g7", "e7e8", "g7g8", "e8e7",
        "g8g7", "e7e8", "g7g8", "e8e7", "g8g7",
    ];

    /// The referee's end of [`PERPETUAL`], which stops at the first move that ends it.
    fn perpetual() -> (Vec<&'static str>, Outcome) {
        let mut game = Game::new(Deal::standard(), RuleSet::STANDARD);
        let mut played = Vec::new();
        for m in PERPETUAL {
            game.play(UciMove::parse(m).unwrap().to_plain()).unwrap();
            played.push(*m);
            if let Some(o) = game.outcome() {
                return (played, o);
            }
        }
        panic!("no end after {played:?}");
    }

    #[tokio::test]
    async fn old_bare_perpetual_reasons_get_their_piece_from_the_moves() {
        let (moves, end) = perpetual();
        assert!(
            matches!(
                end,
                Outcome::Win {
                    winner: Color::Black,
                    reason: Reason::PerpetualCheck {
                        role: jieqi_core::Role::Rook,
                        ..
                    }
                }
            ),
            "{end:?}"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let s = SqliteStore::open(&path, SyncMode::Normal).unwrap();
        finished(&s, "g1", &moves, end).await;
        // Stored as a perpetual check, but its moves end in none.
        finished(&s, "g2", &moves[..3], end).await;
        finished(&s, "g3", &moves[..3], end).await;
        s.close();
        drop(s);
        set_reason(&path, "g1", "perpetual_check", 0);
        set_reason(&path, "g2", "perpetual_check", 0);
        set_reason(&path, "g3", "perpetual_chase", 0);
        let s = SqliteStore::open(&path, SyncMode::Normal).unwrap();
        let g1 = s.load("g1").await.unwrap().unwrap();
        assert_eq!(g1.finish.and_then(|f| f.end.outcome()), Some(end));
        for id in ["g2", "g3"] {
            assert!(
                matches!(s.load(id).await, Err(StoreError::Corrupt { id: ref i, .. }) if i == id),
                "{id}"
            );
            assert!(s.summary(id).await.is_err(), "{id}");
        }
        let recent = s.list(ListKind::Recent, 10).await.unwrap();
        assert_eq!(
            recent.iter().map(|g| g.id.as_str()).collect::<Vec<_>>(),
            ["g1"],
            "unreadable games are left out of the lobby"
        );
        s.close();
        drop(s);
        // The upgrade is done once: a bare code written later is not read.
        set_reason(&path, "g1", "perpetual_check", 1);
        let s = SqliteStore::open(&path, SyncMode::Normal).unwrap();
        assert!(s.load("g1").await.is_err());
    }

    #[tokio::test]
    async fn an_unreadable_end_is_an_error_not_a_guess() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let s = SqliteStore::open(&path, SyncMode::Normal).unwrap();
        let draw = Outcome::Draw {
            reason: Reason::Repetition,
        };
        for id in ["g1", "g2", "g3", "g4"] {
            finished(&s, id, &[], draw).await;
        }
        s.close();
        drop(s);
        set_reason(&path, "g1", "ply_cap", 1);
        let c = Connection::open(&path).unwrap();
        c.execute("UPDATE games SET reason = NULL WHERE id = 'g2'", [])
            .unwrap();
        c.execute("UPDATE games SET winner = 'green' WHERE id = 'g3'", [])
            .unwrap();
        c.execute("UPDATE games SET winner = 'red' WHERE id = 'g4'", [])
            .unwrap();
        drop(c);
        let s = SqliteStore::open(&path, SyncMode::Normal).unwrap();
        for id in ["g1", "g2", "g3", "g4"] {
            assert!(
                matches!(s.load(id).await, Err(StoreError::Corrupt { .. })),
                "{id}"
            );
        }
        assert!(s.list(ListKind::Recent, 10).await.unwrap().is_empty());
    }
}
