//! The PostgreSQL store, for a site that outgrows one machine (`jieqi serve --db
//! postgres://…`): the same tables and guarantees as the SQLite store. One writer task
//! commits the changes of all games in groups (one commit, so one WAL flush, for many
//! moves); a write resolves only after its transaction has committed. Reads go through
//! a pool of connections.
//!
//! Driver: `tokio-postgres` with the `deadpool-postgres` pool. It is the plain async
//! client the server needs (typed parameters, prepared-statement cache, pipelining on
//! one connection) without the compile-time query checking of `sqlx`, which would need
//! a database (or checked-in query metadata) to build the crate, and without sqlx's
//! second SQLite driver beside `rusqlite`. Both crates are widely used and maintained.
//!
//! Schema changes are versioned migrations ([`MIGRATIONS`]), applied in order at open
//! under an advisory lock and recorded in `schema_version`.

mod leases;

use std::sync::{Arc, Mutex, OnceLock};

use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod, Transaction};
use jieqi_core::{ByColor, Color, Outcome};
use tokio::sync::mpsc;
use tokio_postgres::types::ToSql;
use tokio_postgres::{NoTls, Row};

use super::decode::{
    FinishColumns, chat_line, finish_columns, finish_from, history_entry, i, rating_changes,
    rating_records, takeback_from, takeback_text, tallies, u,
};
use leases::Fence;
pub use leases::Holder;

use super::{
    BoxFuture, FinishRecord, GameEnd, GameFilter, HistoryEntry, Job, ListKind, MoveRecord, NewGame,
    PlayerResult, RatingChange, RatingRecord, SeatRecord, Store, StoreError, StoredGame, Summary,
    Tally, UserRecord, Write, queue_write,
};
use crate::rating::{Category, Rating};

/// Most changes committed in one transaction.
const BATCH: usize = 1024;
/// Connections in the pool (the writer's and the readers').
const POOL_SIZE: usize = 16;
/// The advisory lock held while migrating, so that two servers starting together on
/// one database do not both apply a migration.
const MIGRATION_LOCK: i64 = 0x6A69_6571_6930;

/// The schema, one migration per version: `MIGRATIONS[n]` brings version `n` to
/// `n + 1`. Append, never edit.
const MIGRATIONS: &[&str] = &[
    "
CREATE TABLE games (
  id TEXT PRIMARY KEY,
  created_ms BIGINT NOT NULL,
  updated_ms BIGINT NOT NULL,
  deal TEXT NOT NULL,
  salt TEXT NOT NULL,
  commitment TEXT NOT NULL,
  rules TEXT NOT NULL,
  captured_identity TEXT NOT NULL,
  time TEXT NOT NULL,
  move_time_s BIGINT,
  red_level SMALLINT,
  red_token TEXT NOT NULL,
  red_joined BOOLEAN NOT NULL,
  red_user TEXT,
  black_level SMALLINT,
  black_token TEXT NOT NULL,
  black_joined BOOLEAN NOT NULL,
  black_user TEXT,
  invite TEXT,
  invite_token TEXT,
  listed BOOLEAN NOT NULL,
  invite_claimed BOOLEAN NOT NULL DEFAULT FALSE,
  rematch_of TEXT,
  rematch TEXT,
  started_ms BIGINT,
  plies BIGINT NOT NULL DEFAULT 0,
  result TEXT,
  winner TEXT,
  reason TEXT,
  finished_ms BIGINT,
  rated BOOLEAN NOT NULL DEFAULT FALSE,
  category TEXT
);
CREATE TABLE moves (
  game TEXT NOT NULL,
  n BIGINT NOT NULL,
  uci TEXT NOT NULL,
  red_ms BIGINT NOT NULL,
  black_ms BIGINT NOT NULL,
  at_ms BIGINT NOT NULL,
  PRIMARY KEY (game, n)
);
CREATE INDEX games_unfinished_by_created ON games(created_ms) WHERE result IS NULL;
CREATE INDEX games_finished ON games(finished_ms) WHERE result IS NOT NULL;
CREATE INDEX games_by_red_user ON games(red_user, finished_ms) WHERE red_user IS NOT NULL;
CREATE INDEX games_by_black_user ON games(black_user, finished_ms) WHERE black_user IS NOT NULL;
CREATE TABLE game_analysis (
  game TEXT PRIMARY KEY,
  json TEXT NOT NULL
);
CREATE TABLE tournaments (
  id TEXT PRIMARY KEY,
  updated_ms BIGINT NOT NULL,
  state TEXT NOT NULL
);
CREATE TABLE users (
  name TEXT PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  password TEXT NOT NULL,
  created_ms BIGINT NOT NULL
);
CREATE TABLE sessions (
  hash TEXT PRIMARY KEY,
  user_name TEXT NOT NULL REFERENCES users(name),
  created_ms BIGINT NOT NULL,
  expires_ms BIGINT NOT NULL
);
CREATE INDEX sessions_by_user ON sessions(user_name);
CREATE TABLE ratings (
  user_name TEXT NOT NULL REFERENCES users(name),
  category TEXT NOT NULL,
  rating DOUBLE PRECISION NOT NULL,
  deviation DOUBLE PRECISION NOT NULL,
  volatility DOUBLE PRECISION NOT NULL,
  games BIGINT NOT NULL,
  PRIMARY KEY (user_name, category)
);
CREATE TABLE game_ratings (
  game TEXT NOT NULL REFERENCES games(id),
  color TEXT NOT NULL,
  user_name TEXT NOT NULL,
  category TEXT NOT NULL,
  before_rating DOUBLE PRECISION NOT NULL,
  before_deviation DOUBLE PRECISION NOT NULL,
  before_volatility DOUBLE PRECISION NOT NULL,
  after_rating DOUBLE PRECISION NOT NULL,
  after_deviation DOUBLE PRECISION NOT NULL,
  after_volatility DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (game, color)
);
CREATE INDEX game_ratings_by_user ON game_ratings(user_name);
CREATE TABLE chat (
  game TEXT NOT NULL,
  n BIGINT NOT NULL,
  room TEXT NOT NULL,
  color TEXT,
  user_name TEXT,
  text TEXT NOT NULL,
  at_ms BIGINT NOT NULL,
  PRIMARY KEY (game, n)
);
CREATE TABLE chat_mutes (
  game TEXT NOT NULL,
  color TEXT NOT NULL,
  PRIMARY KEY (game, color)
);
",
    "
-- A standing takeback request, `red:12` (who asked, at how many plies).
ALTER TABLE games ADD COLUMN takeback TEXT;
",
    "
-- Several nodes on one database (docs/server.md, \"Several nodes\"): the nodes and
-- their addresses, and which node serves each live game. A lease is valid until
-- `expires` (the database's clock, so that the nodes' clocks do not matter); `epoch`
-- grows at each takeover, and a node's writes to a game are committed only while it
-- holds the lease at the epoch it took. The key `@lobby` is the seek pool's lease.
CREATE TABLE nodes (
  id TEXT PRIMARY KEY,
  addr TEXT NOT NULL,
  heartbeat TIMESTAMPTZ NOT NULL
);
CREATE TABLE game_leases (
  game TEXT PRIMARY KEY,
  node TEXT NOT NULL,
  epoch BIGINT NOT NULL,
  expires TIMESTAMPTZ NOT NULL
);
CREATE INDEX game_leases_by_node ON game_leases(node);
",
];

/// PostgreSQL storage.
pub struct PostgresStore {
    pool: Pool,
    writer: Mutex<Option<mpsc::UnboundedSender<Job>>>,
    task: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// This node's leases, once it has joined a cluster ([`PostgresStore::join_cluster`]);
    /// unset, writes are not fenced (a single node).
    fence: Arc<OnceLock<Fence>>,
}

fn db(e: tokio_postgres::Error) -> StoreError {
    // The server's own message (`duplicate key value …`), not just "db error".
    StoreError::Database(match e.as_db_error() {
        Some(d) => d.to_string(),
        None => e.to_string(),
    })
}

fn pool_error(e: deadpool_postgres::PoolError) -> StoreError {
    match e {
        deadpool_postgres::PoolError::Backend(e) => db(e),
        e => StoreError::Database(e.to_string()),
    }
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://user@host:port/db`; libpq's
    /// `key=value` form works too) and brings its schema up to date.
    pub async fn open(url: &str) -> Result<PostgresStore, StoreError> {
        let config: tokio_postgres::Config = url
            .parse()
            .map_err(|e: tokio_postgres::Error| StoreError::Database(e.to_string()))?;
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .build()
            .map_err(|e| StoreError::Database(e.to_string()))?;
        let mut c = pool.get().await.map_err(pool_error)?;
        migrate(&mut c).await?;
        drop(c);
        let (tx, rx) = mpsc::unbounded_channel();
        let fence = Arc::new(OnceLock::new());
        let task = tokio::spawn(writer_loop(pool.clone(), rx, Arc::clone(&fence)));
        Ok(PostgresStore {
            pool,
            writer: Mutex::new(Some(tx)),
            task: Mutex::new(Some(task)),
            fence,
        })
    }

    /// Finishes pending writes, stops the writer and closes the connections.
    pub async fn close(&self) {
        if let Ok(mut w) = self.writer.lock() {
            w.take();
        }
        let task = self.task.lock().ok().and_then(|mut t| t.take());
        if let Some(t) = task {
            let _ = t.await;
        }
        self.pool.close();
    }

    async fn conn(&self) -> Result<Object, StoreError> {
        self.pool.get().await.map_err(pool_error)
    }

    /// Runs one read statement (through the connection's statement cache).
    async fn query(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, StoreError> {
        let c = self.conn().await?;
        let st = c.prepare_cached(sql).await.map_err(db)?;
        c.query(&st, params).await.map_err(db)
    }
}

/// Applies the migrations the database lacks, in one transaction.
async fn migrate(c: &mut Object) -> Result<(), StoreError> {
    let tx = c.transaction().await.map_err(db)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(db)?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)")
        .await
        .map_err(db)?;
    let version: i64 = tx
        .query_one("SELECT COALESCE(MAX(version), 0) FROM schema_version", &[])
        .await
        .map_err(db)?
        .get(0);
    let from = usize::try_from(version).unwrap_or(usize::MAX);
    if from > MIGRATIONS.len() {
        return Err(StoreError::Database(format!(
            "the database's schema version {version} is newer than this server's {}",
            MIGRATIONS.len()
        )));
    }
    for (n, sql) in (1_i64..).zip(MIGRATIONS).skip(from) {
        tx.batch_execute(sql).await.map_err(db)?;
        tx.execute("INSERT INTO schema_version (version) VALUES ($1)", &[&n])
            .await
            .map_err(db)?;
        tracing::info!(version = n, "database migrated");
    }
    tx.commit().await.map_err(db)
}

/// Commits every pending change in one transaction, then answers them all; the
/// changes that arrive meanwhile form the next group.
async fn writer_loop(
    pool: Pool,
    mut rx: mpsc::UnboundedReceiver<Job>,
    fence: Arc<OnceLock<Fence>>,
) {
    while let Some(first) = rx.recv().await {
        let mut jobs = vec![first];
        while jobs.len() < BATCH {
            match rx.try_recv() {
                Ok(j) => jobs.push(j),
                Err(_) => break,
            }
        }
        let results = match pool.get().await {
            Ok(mut c) => commit_batch(&mut c, &jobs, fence.get()).await,
            Err(e) => {
                let e = pool_error(e);
                jobs.iter()
                    .map(|_| Err(StoreError::Database(e.to_string())))
                    .collect()
            }
        };
        for ((_, reply), r) in jobs.into_iter().zip(results) {
            let _ = reply.send(r);
        }
    }
}

/// Applies `jobs` in one transaction. Fast path: straight through. If a change is
/// refused, the transaction is rolled back and the batch applied again with one
/// savepoint per change, so that only the refused changes fail.
async fn commit_batch(
    c: &mut Object,
    jobs: &[Job],
    fence: Option<&Fence>,
) -> Vec<Result<(), StoreError>> {
    let all_fail = |e: &StoreError| {
        jobs.iter()
            .map(|_| Err(StoreError::Database(e.to_string())))
            .collect()
    };
    let fast: Result<Result<(), StoreError>, StoreError> = async {
        let tx = c.transaction().await.map_err(db)?;
        for (w, _) in jobs {
            if let Err(e) = apply(&tx, w, fence).await {
                tx.rollback().await.map_err(db)?;
                return Ok(Err(e));
            }
        }
        tx.commit().await.map_err(db).map(Ok)
    }
    .await;
    match fast {
        Ok(Ok(())) => return jobs.iter().map(|_| Ok(())).collect(),
        Err(e) => return all_fail(&e),
        Ok(Err(_)) => {}
    }
    let careful: Result<Vec<Result<(), StoreError>>, StoreError> = async {
        let tx = c.transaction().await.map_err(db)?;
        let mut results = Vec::with_capacity(jobs.len());
        for (w, _) in jobs {
            tx.batch_execute("SAVEPOINT one").await.map_err(db)?;
            let r = apply(&tx, w, fence).await;
            if r.is_err() {
                tx.batch_execute("ROLLBACK TO SAVEPOINT one")
                    .await
                    .map_err(db)?;
            }
            tx.batch_execute("RELEASE SAVEPOINT one")
                .await
                .map_err(db)?;
            results.push(r);
        }
        tx.commit().await.map_err(db)?;
        Ok(results)
    }
    .await;
    careful.unwrap_or_else(|e| all_fail(&e))
}

/// Runs one statement through the connection's statement cache; the rows it changed.
async fn run(
    tx: &Transaction<'_>,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<u64, StoreError> {
    let st = tx.prepare_cached(sql).await.map_err(db)?;
    tx.execute(&st, params).await.map_err(db)
}

fn level(l: Option<u8>) -> Option<i16> {
    l.map(i16::from)
}

async fn apply(tx: &Transaction<'_>, w: &Write, fence: Option<&Fence>) -> Result<(), StoreError> {
    if let (Some(fence), Some(game)) = (fence, w.game_changed()) {
        leases::check(tx, fence, game).await?;
    }
    match w {
        Write::Create(g) => {
            run(
                tx,
                "INSERT INTO games (id, created_ms, updated_ms, deal, salt, commitment, rules,
                   captured_identity, time, move_time_s, red_level, red_token, red_joined,
                   black_level, black_token, black_joined, listed, rematch_of, invite, invite_token,
                   red_user, black_user, rated, category)
                 VALUES ($1, $2, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                   $17, $18, $19, $20, $21, $22, $23)",
                &[
                    &g.id,
                    &i(g.created_ms),
                    &g.deal,
                    &g.salt,
                    &g.commitment,
                    &g.rules,
                    &g.captured_identity,
                    &g.time,
                    &g.move_time_s.map(i),
                    &level(g.seats.red.engine_level),
                    &g.seats.red.token,
                    &g.seats.red.joined,
                    &level(g.seats.black.engine_level),
                    &g.seats.black.token,
                    &g.seats.black.joined,
                    &g.listed,
                    &g.rematch_of,
                    &g.invite.map(Color::name),
                    &g.invite_token,
                    &g.seats.red.user,
                    &g.seats.black.user,
                    &g.rated,
                    &Category::of_text(&g.time).map(Category::name),
                ],
            )
            .await?;
            if let Some(fence) = fence {
                leases::take_new(tx, fence, &g.id).await?;
            }
        }
        Write::CreateUser(u) => {
            let n = run(
                tx,
                "INSERT INTO users (name, key, password, created_ms) VALUES ($1, $2, $3, $4)
                 ON CONFLICT DO NOTHING",
                &[&u.name, &u.key, &u.password, &i(u.created_ms)],
            )
            .await?;
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
                "DELETE FROM sessions WHERE user_name = $1 AND expires_ms <= $2",
                &[user, &i(*created_ms)],
            )
            .await?;
            run(
                tx,
                "INSERT INTO sessions (hash, user_name, created_ms, expires_ms)
                 VALUES ($1, $2, $3, $4)",
                &[hash, user, &i(*created_ms), &i(*expires_ms)],
            )
            .await?;
        }
        Write::EndSession { hash } => {
            run(tx, "DELETE FROM sessions WHERE hash = $1", &[hash]).await?;
        }
        Write::Move { id, mv, finish } => {
            // Stored only as the next ply of a game not over; the game's row is read,
            // not written.
            let n = run(
                tx,
                "INSERT INTO moves (game, n, uci, red_ms, black_ms, at_ms)
                 SELECT $1::TEXT, $2::BIGINT, $3::TEXT, $4::BIGINT, $5::BIGINT, $6::BIGINT
                 FROM games
                 WHERE id = $1::TEXT AND result IS NULL
                   AND NOT EXISTS (SELECT 1 FROM moves WHERE game = $1::TEXT AND n >= $2::BIGINT)
                   AND ($2::BIGINT = 1 OR EXISTS
                     (SELECT 1 FROM moves WHERE game = $1::TEXT AND n = $2::BIGINT - 1))",
                &[
                    id,
                    &i64::from(mv.n),
                    &mv.uci,
                    &i(mv.red_ms),
                    &i(mv.black_ms),
                    &i(mv.at_ms),
                ],
            )
            .await?;
            if n != 1 {
                return Err(StoreError::Database(format!(
                    "game {id}: move {} is out of order or the game is over",
                    mv.n
                )));
            }
            if let Some(f) = finish {
                write_finish(tx, id, f).await?;
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
                "UPDATE games SET red_joined = $2, black_joined = $3, invite_claimed = $4,
                   started_ms = COALESCE(started_ms, $5), red_user = $6, black_user = $7
                 WHERE id = $1",
                &[
                    id,
                    &joined.red,
                    &joined.black,
                    invite_claimed,
                    &started_ms.map(i),
                    &users.red,
                    &users.black,
                ],
            )
            .await?;
        }
        Write::Finish { id, finish } => write_finish(tx, id, finish).await?,
        Write::Chat { id, line } => {
            run(
                tx,
                "INSERT INTO chat (game, n, room, color, user_name, text, at_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
                &[
                    id,
                    &i64::from(line.n),
                    &line.room.name(),
                    &line.color.map(Color::name),
                    &line.user,
                    &line.text,
                    &i(line.at_ms),
                ],
            )
            .await?;
        }
        Write::TakebackOffer { id, offer } => {
            let text = offer.map(takeback_text);
            run(
                tx,
                "UPDATE games SET takeback = $2 WHERE id = $1",
                &[id, &text],
            )
            .await?;
        }
        Write::Takeback { id, keep } => {
            let n = run(
                tx,
                "UPDATE games SET takeback = NULL WHERE id = $1 AND result IS NULL",
                &[id],
            )
            .await?;
            if n != 1 {
                return Err(StoreError::Database(format!(
                    "game {id}: no takeback in a finished game"
                )));
            }
            run(
                tx,
                "DELETE FROM moves WHERE game = $1 AND n > $2",
                &[id, &i64::from(*keep)],
            )
            .await?;
        }
        Write::ChatMute { id, color, muted } => {
            let sql = if *muted {
                "INSERT INTO chat_mutes (game, color) VALUES ($1, $2) ON CONFLICT DO NOTHING"
            } else {
                "DELETE FROM chat_mutes WHERE game = $1 AND color = $2"
            };
            run(tx, sql, &[id, &color.name()]).await?;
        }
        Write::Rematch { id, rematch } => {
            run(
                tx,
                "UPDATE games SET rematch = $2 WHERE id = $1",
                &[id, rematch],
            )
            .await?;
        }
        Write::GameAnalysis { id, json } => {
            run(
                tx,
                "INSERT INTO game_analysis (game, json) VALUES ($1, $2)
                 ON CONFLICT (game) DO UPDATE SET json = EXCLUDED.json",
                &[id, json],
            )
            .await?;
        }
        Write::Tournament {
            id,
            json,
            updated_ms,
        } => {
            run(
                tx,
                "INSERT INTO tournaments (id, updated_ms, state) VALUES ($1, $2, $3)
                 ON CONFLICT (id) DO UPDATE SET updated_ms = EXCLUDED.updated_ms,
                   state = EXCLUDED.state",
                &[id, &i(*updated_ms), json],
            )
            .await?;
        }
    }
    Ok(())
}

async fn write_finish(tx: &Transaction<'_>, id: &str, f: &FinishRecord) -> Result<(), StoreError> {
    let (result, winner, reason) = finish_columns(f);
    let n = run(
        tx,
        "UPDATE games SET result = $2, winner = $3, reason = $4, finished_ms = $5,
           updated_ms = $5, plies = (SELECT COUNT(*) FROM moves WHERE game = $1)
         WHERE id = $1 AND result IS NULL",
        &[&id, &result, &winner, &reason, &i(f.at_ms)],
    )
    .await?;
    if n != 1 {
        return Err(StoreError::Database(format!(
            "game {id}: cannot finish (missing or already over)"
        )));
    }
    // An aborted game has no result: nobody's rating changes.
    match f.end {
        GameEnd::Result(o) => rate(tx, id, &o).await,
        GameEnd::Aborted => Ok(()),
    }
}

/// Updates the players' ratings for a rated game that has just ended, in the
/// transaction that stores the end (an end is stored once, so a rating changes once).
async fn rate(tx: &Transaction<'_>, id: &str, outcome: &Outcome) -> Result<(), StoreError> {
    let row = tx
        .query_one(
            "SELECT rated, red_user, black_user, category FROM games WHERE id = $1",
            &[&id],
        )
        .await
        .map_err(db)?;
    let rated: bool = row.get(0);
    let (Some(red), Some(black), Some(category)) = (
        row.get::<_, Option<String>>(1),
        row.get::<_, Option<String>>(2),
        row.get::<_, Option<String>>(3),
    ) else {
        return Ok(());
    };
    if !rated || red == black {
        return Ok(());
    }
    let mut before = ByColor::<Rating>::default();
    let users = ByColor { red, black };
    for c in Color::ALL {
        let st = tx
            .prepare_cached(
                "SELECT rating, deviation, volatility FROM ratings
                 WHERE user_name = $1 AND category = $2",
            )
            .await
            .map_err(db)?;
        if let Some(r) = tx
            .query_opt(&st, &[&users[c], &category])
            .await
            .map_err(db)?
        {
            before[c] = rating_at(&r, 0)?;
        }
    }
    let (r, b) = crate::rating::after_game(before.red, before.black, outcome);
    let after = ByColor { red: r, black: b };
    for c in Color::ALL {
        let (was, now) = (before[c], after[c]);
        run(
            tx,
            "INSERT INTO ratings (user_name, category, rating, deviation, volatility, games)
             VALUES ($1, $2, $3, $4, $5, 1)
             ON CONFLICT (user_name, category) DO UPDATE SET rating = EXCLUDED.rating,
               deviation = EXCLUDED.deviation, volatility = EXCLUDED.volatility,
               games = ratings.games + 1",
            &[
                &users[c],
                &category,
                &now.rating,
                &now.deviation,
                &now.volatility,
            ],
        )
        .await?;
        run(
            tx,
            "INSERT INTO game_ratings (game, color, user_name, category, before_rating,
               before_deviation, before_volatility, after_rating, after_deviation,
               after_volatility)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            &[
                &id,
                &c.name(),
                &users[c],
                &category,
                &was.rating,
                &was.deviation,
                &was.volatility,
                &now.rating,
                &now.deviation,
                &now.volatility,
            ],
        )
        .await?;
    }
    Ok(())
}

/// The columns of a [`Summary`]; plies and the last change of a game in play are read
/// from its moves (a move does not write the game's row).
const SUMMARY_COLS: &str = "id, red_level, black_level, red_joined, black_joined, time,
  move_time_s, rules, (SELECT COUNT(*) FROM moves WHERE game = games.id), created_ms,
  GREATEST(updated_ms, COALESCE((SELECT MAX(at_ms) FROM moves WHERE game = games.id), 0))
    AS last_ms,
  started_ms, result, winner, reason, finished_ms, commitment, red_user, black_user, rated";

/// A game's result for the user `$1` (see the SQLite store).
const RESULT_FOR_USER: &str =
    "(CASE WHEN result = '*' THEN 'aborted' WHEN winner IS NULL THEN 'draw'
  WHEN winner = (CASE WHEN red_user = $1 THEN 'red' ELSE 'black' END) THEN 'win'
  ELSE 'loss' END)";

/// Column `at` of a row, typed.
fn get<'a, T: tokio_postgres::types::FromSql<'a>>(r: &'a Row, at: usize) -> Result<T, StoreError> {
    r.try_get(at).map_err(db)
}

/// A count or a small number stored as BIGINT.
fn get_u32(r: &Row, at: usize) -> Result<u32, StoreError> {
    Ok(u32::try_from(get::<i64>(r, at)?).unwrap_or(0))
}

fn get_level(r: &Row, at: usize) -> Result<Option<u8>, StoreError> {
    Ok(get::<Option<i16>>(r, at)?.and_then(|l| u8::try_from(l).ok()))
}

/// A Glicko-2 rating from three columns (rating, deviation, volatility) from `at`.
fn rating_at(r: &Row, at: usize) -> Result<Rating, StoreError> {
    Ok(Rating {
        rating: get(r, at)?,
        deviation: get(r, at + 1)?,
        volatility: get(r, at + 2)?,
    })
}

fn summary_row(r: &Row) -> Result<Summary, StoreError> {
    let id: String = get(r, 0)?;
    let finish = finish_from(&id, (get(r, 12)?, get(r, 13)?, get(r, 14)?, get(r, 15)?))?;
    Ok(Summary {
        engine: ByColor {
            red: get_level(r, 1)?,
            black: get_level(r, 2)?,
        },
        joined: ByColor {
            red: get(r, 3)?,
            black: get(r, 4)?,
        },
        time: get(r, 5)?,
        move_time_s: get::<Option<i64>>(r, 6)?.map(u),
        rules: get(r, 7)?,
        plies: get_u32(r, 8)?,
        created_ms: u(get(r, 9)?),
        updated_ms: u(get(r, 10)?),
        started: get::<Option<i64>>(r, 11)?.is_some(),
        finish,
        commitment: get(r, 16)?,
        users: ByColor {
            red: get(r, 17)?,
            black: get(r, 18)?,
        },
        rated: get(r, 19)?,
        id,
    })
}

fn game_row(r: &Row) -> Result<StoredGame, StoreError> {
    let id: String = get(r, 0)?;
    let finish: FinishColumns = (get(r, 21)?, get(r, 22)?, get(r, 23)?, get(r, 24)?);
    let seat = |level: usize, token: usize, joined: usize, user: usize| {
        Ok::<_, StoreError>(SeatRecord {
            engine_level: get_level(r, level)?,
            token: get(r, token)?,
            joined: get(r, joined)?,
            user: get(r, user)?,
        })
    };
    Ok(StoredGame {
        finish: finish_from(&id, finish)?,
        new: NewGame {
            created_ms: u(get(r, 1)?),
            deal: get(r, 3)?,
            salt: get(r, 4)?,
            commitment: get(r, 5)?,
            rules: get(r, 6)?,
            captured_identity: get(r, 7)?,
            time: get(r, 8)?,
            move_time_s: get::<Option<i64>>(r, 9)?.map(u),
            seats: ByColor {
                red: seat(10, 11, 12, 27)?,
                black: seat(13, 14, 15, 28)?,
            },
            listed: get(r, 16)?,
            rematch_of: get(r, 18)?,
            invite: get::<Option<String>>(r, 25)?
                .as_deref()
                .and_then(Color::parse_name),
            invite_token: get(r, 26)?,
            rated: get(r, 29)?,
            id,
        },
        updated_ms: u(get(r, 2)?),
        invite_claimed: get(r, 17)?,
        rematch: get(r, 19)?,
        started_ms: get::<Option<i64>>(r, 20)?.map(u),
        moves: Vec::new(),
        chat: Vec::new(),
        mutes: ByColor::default(),
        takeback: get::<Option<String>>(r, 30)?
            .as_deref()
            .and_then(takeback_from),
    })
}

impl PostgresStore {
    async fn load_game(&self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        let rows = self
            .query(
                "SELECT id, created_ms, updated_ms, deal, salt, commitment, rules,
                   captured_identity, time, move_time_s, red_level, red_token, red_joined,
                   black_level, black_token, black_joined, listed, invite_claimed, rematch_of,
                   rematch, started_ms, result, winner, reason, finished_ms, invite,
                   invite_token, red_user, black_user, rated, takeback
                 FROM games WHERE id = $1",
                &[&id],
            )
            .await?;
        let Some(row) = rows.first() else {
            return Ok(None);
        };
        let mut g = game_row(row)?;
        for r in self
            .query(
                "SELECT n, uci, red_ms, black_ms, at_ms FROM moves WHERE game = $1 ORDER BY n",
                &[&id],
            )
            .await?
        {
            g.moves.push(MoveRecord {
                n: get_u32(&r, 0)?,
                uci: get(&r, 1)?,
                red_ms: u(get(&r, 2)?),
                black_ms: u(get(&r, 3)?),
                at_ms: u(get(&r, 4)?),
            });
        }
        for r in self
            .query(
                "SELECT n, room, color, user_name, text, at_ms FROM chat WHERE game = $1
                 ORDER BY n",
                &[&id],
            )
            .await?
        {
            let cols = (
                get_u32(&r, 0)?,
                get(&r, 1)?,
                get(&r, 2)?,
                get(&r, 3)?,
                get(&r, 4)?,
                u(get(&r, 5)?),
            );
            g.chat.extend(chat_line(cols));
        }
        for r in self
            .query("SELECT color FROM chat_mutes WHERE game = $1", &[&id])
            .await?
        {
            if let Some(c) = Color::parse_name(&get::<String>(&r, 0)?) {
                g.mutes[c] = true;
            }
        }
        Ok(Some(g))
    }
}

impl Store for PostgresStore {
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
        Box::pin(async move { self.load_game(&id).await })
    }

    fn unfinished(&self) -> BoxFuture<'_, Result<Vec<String>, StoreError>> {
        Box::pin(async move {
            self.query("SELECT id FROM games WHERE result IS NULL", &[])
                .await?
                .iter()
                .map(|r| get(r, 0))
                .collect()
        })
    }

    fn list(&self, kind: ListKind, limit: u32) -> BoxFuture<'_, Result<Vec<Summary>, StoreError>> {
        Box::pin(async move {
            let filter = match kind {
                ListKind::Open => {
                    "result IS NULL AND listed AND NOT invite_claimed AND started_ms IS NULL
                     AND NOT ((invite = 'red' AND red_joined) OR (invite = 'black' AND black_joined))
                     ORDER BY created_ms DESC"
                }
                ListKind::Live => "result IS NULL AND started_ms IS NOT NULL ORDER BY last_ms DESC",
                ListKind::Recent => "result IS NOT NULL ORDER BY finished_ms DESC",
            };
            let sql = format!("SELECT {SUMMARY_COLS} FROM games WHERE {filter} LIMIT $1");
            let rows = self.query(&sql, &[&i64::from(limit)]).await?;
            // A game whose end cannot be read (reported by `finish_from`) is left out,
            // so that one bad row does not hide the whole list.
            Ok(rows.iter().filter_map(|r| summary_row(r).ok()).collect())
        })
    }

    fn summary(&self, id: &str) -> BoxFuture<'_, Result<Option<Summary>, StoreError>> {
        let id = id.to_string();
        Box::pin(async move {
            let sql = format!("SELECT {SUMMARY_COLS} FROM games WHERE id = $1");
            self.query(&sql, &[&id])
                .await?
                .first()
                .map(summary_row)
                .transpose()
        })
    }

    fn game_analysis(&self, id: &str) -> BoxFuture<'_, Result<Option<String>, StoreError>> {
        let id = id.to_string();
        Box::pin(async move {
            self.query("SELECT json FROM game_analysis WHERE game = $1", &[&id])
                .await?
                .first()
                .map(|r| get(r, 0))
                .transpose()
        })
    }

    fn tournaments(&self) -> BoxFuture<'_, Result<Vec<(String, String)>, StoreError>> {
        Box::pin(async move {
            self.query("SELECT id, state FROM tournaments ORDER BY updated_ms", &[])
                .await?
                .iter()
                .map(|r| Ok((get(r, 0)?, get(r, 1)?)))
                .collect()
        })
    }

    fn user(&self, key: &str) -> BoxFuture<'_, Result<Option<UserRecord>, StoreError>> {
        let key = key.to_string();
        Box::pin(async move {
            self.query(
                "SELECT name, password, created_ms FROM users WHERE key = $1",
                &[&key],
            )
            .await?
            .first()
            .map(|r| {
                Ok(UserRecord {
                    name: get(r, 0)?,
                    password: get(r, 1)?,
                    created_ms: u(get(r, 2)?),
                })
            })
            .transpose()
        })
    }

    fn session(
        &self,
        hash: &str,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<Option<String>, StoreError>> {
        let hash = hash.to_string();
        Box::pin(async move {
            self.query(
                "SELECT user_name FROM sessions WHERE hash = $1 AND expires_ms > $2",
                &[&hash, &i(now_ms)],
            )
            .await?
            .first()
            .map(|r| get(r, 0))
            .transpose()
        })
    }

    fn ratings(&self, user: &str) -> BoxFuture<'_, Result<Vec<RatingRecord>, StoreError>> {
        let user = user.to_string();
        Box::pin(async move {
            let rows = self
                .query(
                    "SELECT category, rating, deviation, volatility, games FROM ratings
                     WHERE user_name = $1",
                    &[&user],
                )
                .await?
                .iter()
                .map(|r| Ok((get(r, 0)?, rating_at(r, 1)?, get_u32(r, 4)?)))
                .collect::<Result<Vec<_>, StoreError>>()?;
            Ok(rating_records(rows))
        })
    }

    fn rating_history(&self, user: &str) -> BoxFuture<'_, Result<Vec<RatingChange>, StoreError>> {
        let user = user.to_string();
        Box::pin(async move {
            let rows = self
                .query(
                    "SELECT gr.game, gr.category, g.finished_ms, gr.before_rating,
                       gr.before_deviation, gr.before_volatility, gr.after_rating,
                       gr.after_deviation, gr.after_volatility
                     FROM game_ratings gr JOIN games g ON g.id = gr.game
                     WHERE gr.user_name = $1 ORDER BY g.finished_ms, g.id",
                    &[&user],
                )
                .await?
                .iter()
                .map(|r| {
                    Ok((
                        get(r, 0)?,
                        get(r, 1)?,
                        u(get(r, 2)?),
                        rating_at(r, 3)?,
                        rating_at(r, 6)?,
                    ))
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            Ok(rating_changes(rows))
        })
    }

    fn tallies(&self, user: &str) -> BoxFuture<'_, Result<Vec<Tally>, StoreError>> {
        let user = user.to_string();
        Box::pin(async move {
            let sql = format!(
                "SELECT category, rated, {RESULT_FOR_USER} AS r, COUNT(*) FROM games
                 WHERE result IS NOT NULL AND result <> '*'
                   AND (red_user = $1 OR black_user = $1)
                 GROUP BY category, rated, r"
            );
            let rows = self
                .query(&sql, &[&user])
                .await?
                .iter()
                .map(|r| Ok((get(r, 0)?, get(r, 1)?, get(r, 2)?, get_u32(r, 3)?)))
                .collect::<Result<Vec<_>, StoreError>>()?;
            Ok(tallies(rows))
        })
    }

    fn live_games(
        &self,
        user: &str,
        limit: u32,
    ) -> BoxFuture<'_, Result<Vec<(Summary, Color)>, StoreError>> {
        let user = user.to_string();
        Box::pin(async move {
            let sql = format!(
                "SELECT {SUMMARY_COLS} FROM games
                 WHERE result IS NULL AND (red_user = $1 OR black_user = $1)
                 ORDER BY last_ms DESC, id LIMIT $2"
            );
            let rows = self.query(&sql, &[&user, &i64::from(limit)]).await?;
            let mut out = Vec::new();
            for s in rows.iter().filter_map(|r| summary_row(r).ok()) {
                for color in Color::ALL {
                    if s.users[color].as_deref() == Some(user.as_str()) {
                        out.push((s.clone(), color));
                    }
                }
            }
            Ok(out)
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
        Box::pin(async move {
            let filter_sql = format!(
                "result IS NOT NULL AND (red_user = $1 OR black_user = $1)
                 AND ($2::TEXT IS NULL OR {RESULT_FOR_USER} = $2::TEXT)
                 AND ($3::TEXT IS NULL
                   OR (CASE WHEN red_user = $1 THEN black_user ELSE red_user END) = $3::TEXT)
                 AND ($4::BIGINT IS NULL OR finished_ms >= $4::BIGINT)
                 AND ($5::BIGINT IS NULL OR finished_ms < $5::BIGINT)
                 AND ($6::BOOLEAN IS NULL OR rated = $6::BOOLEAN)"
            );
            let (result, from, to) = (
                filter.result.map(PlayerResult::name),
                filter.from_ms.map(i),
                filter.to_ms.map(i),
            );
            let (limit, offset) = (i64::from(limit), i64::from(offset));
            // The filter's parameters ($1 to $6), then the page's ($7, $8).
            let p: [&(dyn ToSql + Sync); 8] = [
                &user,
                &result,
                &filter.opponent,
                &from,
                &to,
                &filter.rated,
                &limit,
                &offset,
            ];
            let count = self
                .query(
                    &format!("SELECT COUNT(*) FROM games WHERE {filter_sql}"),
                    &p[..6],
                )
                .await?;
            let total = count.first().map(|r| get_u32(r, 0)).transpose()?;
            let sql = format!(
                "SELECT {SUMMARY_COLS},
                   gr.before_rating, gr.before_deviation, gr.before_volatility,
                   gr.after_rating, gr.after_deviation, gr.after_volatility
                 FROM games LEFT JOIN game_ratings gr
                   ON gr.game = games.id AND gr.user_name = $1
                 WHERE {filter_sql}
                 ORDER BY finished_ms DESC, id LIMIT $7 OFFSET $8"
            );
            let mut games = Vec::new();
            for r in self.query(&sql, &p).await? {
                let Ok(summary) = summary_row(&r) else {
                    continue;
                };
                let rating = match get::<Option<f64>>(&r, 20)? {
                    Some(_) => Some((rating_at(&r, 20)?, rating_at(&r, 23)?)),
                    None => None,
                };
                games.push(history_entry(&user, summary, rating));
            }
            Ok((games, total.unwrap_or(0)))
        })
    }
}

/// For tests: the URL of a fresh, empty schema (so that tests run in parallel) in the
/// PostgreSQL database named by `JIEQI_TEST_PG` (`postgres://jieqi@localhost:5433/jieqi_test`).
/// Without the variable: `None` and a notice, so that a developer without PostgreSQL
/// can run the other tests, but a panic when `CI` is set, so that CI cannot pass
/// without testing the PostgreSQL store.
pub async fn test_database(test: &str) -> Option<String> {
    let Ok(base) = std::env::var("JIEQI_TEST_PG") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "{test}: JIEQI_TEST_PG is unset, and the PostgreSQL tests cannot be skipped in CI"
        );
        eprintln!(
            "skipped {test} on PostgreSQL: JIEQI_TEST_PG is unset (a database URL, e.g. \
             postgres://jieqi@localhost:5433/jieqi_test)"
        );
        return None;
    };
    let schema = format!("t_{}", crate::util::new_token());
    let (client, conn) = tokio_postgres::connect(&base, NoTls)
        .await
        .unwrap_or_else(|e| panic!("JIEQI_TEST_PG={base}: {e}"));
    let conn = tokio::spawn(conn);
    client
        .batch_execute(&format!("CREATE SCHEMA {schema}"))
        .await
        .unwrap_or_else(|e| panic!("cannot create schema {schema}: {e}"));
    drop(client);
    let _ = conn.await;
    let sep = if base.contains('?') { '&' } else { '?' };
    Some(format!("{base}{sep}options=-csearch_path%3D{schema}"))
}
