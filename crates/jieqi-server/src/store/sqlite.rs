//! The embedded SQLite store: WAL mode, one writer thread that commits the changes of
//! all games in groups (one fsync for many moves), and a reader connection.

use std::path::Path;
use std::sync::{Arc, Mutex, mpsc};

use jieqi_core::{ByColor, Color};
use rusqlite::{Connection, OptionalExtension, Row, params};
use tokio::sync::oneshot;

use super::{
    BoxFuture, FinishRecord, ListKind, MoveRecord, NewGame, SeatRecord, Store, StoreError,
    StoredGame, Summary, Write,
};

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

type Job = (Write, oneshot::Sender<Result<(), StoreError>>);

/// SQLite storage.
pub struct SqliteStore {
    writer: Mutex<Option<mpsc::Sender<Job>>>,
    reader: Arc<Mutex<Connection>>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

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
CREATE INDEX IF NOT EXISTS games_unfinished ON games(updated_ms) WHERE result IS NULL;
CREATE INDEX IF NOT EXISTS games_finished ON games(finished_ms) WHERE result IS NOT NULL;
CREATE TABLE IF NOT EXISTS tournaments (
  id TEXT PRIMARY KEY,
  updated_ms INTEGER NOT NULL,
  state TEXT NOT NULL
);
";

fn db(e: rusqlite::Error) -> StoreError {
    StoreError::Database(e.to_string())
}

fn i(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn u(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path`.
    pub fn open(path: &Path, sync: SyncMode) -> Result<SqliteStore, StoreError> {
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
            Ok(())
        };
        let w = Connection::open(path).map_err(db)?;
        setup(&w).map_err(db)?;
        w.execute_batch(SCHEMA).map_err(db)?;
        let r = Connection::open(path).map_err(db)?;
        setup(&r).map_err(db)?;
        let (tx, rx) = mpsc::channel::<Job>();
        let thread = std::thread::Builder::new()
            .name("jieqi-store".into())
            .spawn(move || writer_loop(w, rx))
            .map_err(|e| StoreError::Database(format!("cannot start the writer: {e}")))?;
        Ok(SqliteStore {
            writer: Mutex::new(Some(tx)),
            reader: Arc::new(Mutex::new(r)),
            thread: Mutex::new(Some(thread)),
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

/// Commits every pending change in one transaction, then answers them all.
fn writer_loop(mut conn: Connection, rx: mpsc::Receiver<Job>) {
    const BATCH: usize = 1024;
    while let Ok(first) = rx.recv() {
        let mut jobs = vec![first];
        while jobs.len() < BATCH {
            match rx.try_recv() {
                Ok(j) => jobs.push(j),
                Err(_) => break,
            }
        }
        let results = match conn.transaction() {
            Ok(tx) => {
                let results: Vec<Result<(), StoreError>> = jobs
                    .iter()
                    .map(|(w, _)| {
                        tx.execute_batch("SAVEPOINT one").map_err(db)?;
                        let r = apply(&tx, w);
                        if r.is_ok() {
                            tx.execute_batch("RELEASE one").map_err(db)?;
                        } else {
                            tx.execute_batch("ROLLBACK TO one; RELEASE one")
                                .map_err(db)?;
                        }
                        r
                    })
                    .collect();
                match tx.commit() {
                    Ok(()) => results,
                    Err(e) => jobs
                        .iter()
                        .map(|_| Err(StoreError::Database(e.to_string())))
                        .collect(),
                }
            }
            Err(e) => jobs
                .iter()
                .map(|_| Err(StoreError::Database(e.to_string())))
                .collect(),
        };
        for ((_, reply), r) in jobs.into_iter().zip(results) {
            let _ = reply.send(r);
        }
    }
}

fn apply(tx: &Connection, w: &Write) -> Result<(), StoreError> {
    match w {
        Write::Create(g) => {
            tx.execute(
                "INSERT INTO games (id, created_ms, updated_ms, deal, salt, commitment, rules,
                   captured_identity, time, move_time_s, red_level, red_token, red_joined,
                   black_level, black_token, black_joined, listed, rematch_of, invite)
                 VALUES (?1, ?2, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
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
                ],
            )
            .map_err(db)?;
        }
        Write::Move { id, mv, finish } => {
            let n = tx
                .execute(
                    "UPDATE games SET plies = ?2, updated_ms = ?3 WHERE id = ?1 AND plies = ?2 - 1 AND result IS NULL",
                    params![id, mv.n, i(mv.at_ms)],
                )
                .map_err(db)?;
            if n != 1 {
                return Err(StoreError::Database(format!(
                    "game {id}: move {} is out of order or the game is over",
                    mv.n
                )));
            }
            tx.execute(
                "INSERT INTO moves (game, n, uci, red_ms, black_ms, at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![id, mv.n, mv.uci, i(mv.red_ms), i(mv.black_ms), i(mv.at_ms)],
            )
            .map_err(db)?;
            if let Some(f) = finish {
                write_finish(tx, id, f)?;
            }
        }
        Write::Seats {
            id,
            joined,
            invite_claimed,
            started_ms,
        } => {
            tx.execute(
                "UPDATE games SET red_joined = ?2, black_joined = ?3, invite_claimed = ?4,
                   started_ms = COALESCE(started_ms, ?5) WHERE id = ?1",
                params![
                    id,
                    joined.red,
                    joined.black,
                    invite_claimed,
                    started_ms.map(i)
                ],
            )
            .map_err(db)?;
        }
        Write::Finish { id, finish } => write_finish(tx, id, finish)?,
        Write::Rematch { id, rematch } => {
            tx.execute(
                "UPDATE games SET rematch = ?2 WHERE id = ?1",
                params![id, rematch],
            )
            .map_err(db)?;
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
    let n = tx
        .execute(
            "UPDATE games SET result = ?2, winner = ?3, reason = ?4, finished_ms = ?5, updated_ms = ?5
             WHERE id = ?1 AND result IS NULL",
            params![id, f.result, f.winner.map(Color::name), f.reason, i(f.at_ms)],
        )
        .map_err(db)?;
    if n != 1 {
        return Err(StoreError::Database(format!(
            "game {id}: cannot finish (missing or already over)"
        )));
    }
    Ok(())
}

const SUMMARY_COLS: &str = "id, red_level, black_level, red_joined, black_joined, time,
  move_time_s, rules, plies, created_ms, updated_ms, started_ms, result, winner, reason,
  finished_ms, commitment";

fn finish_from(
    result: Option<String>,
    winner: Option<String>,
    reason: Option<String>,
    at: Option<i64>,
) -> Option<FinishRecord> {
    Some(FinishRecord {
        result: result?,
        winner: winner.as_deref().and_then(Color::parse_name),
        reason: reason.unwrap_or_default(),
        at_ms: u(at.unwrap_or(0)),
    })
}

fn summary_row(r: &Row<'_>) -> rusqlite::Result<Summary> {
    Ok(Summary {
        id: r.get(0)?,
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
        finish: finish_from(r.get(12)?, r.get(13)?, r.get(14)?, r.get(15)?),
        commitment: r.get(16)?,
    })
}

fn load_game(c: &Connection, id: &str) -> Result<Option<StoredGame>, StoreError> {
    let row = c
        .query_row(
            "SELECT id, created_ms, updated_ms, deal, salt, commitment, rules, captured_identity,
               time, move_time_s, red_level, red_token, red_joined, black_level, black_token,
               black_joined, listed, invite_claimed, rematch_of, rematch, started_ms, result,
               winner, reason, finished_ms, invite
             FROM games WHERE id = ?1",
            params![id],
            |r| {
                Ok(StoredGame {
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
                            },
                            black: SeatRecord {
                                engine_level: r.get(13)?,
                                token: r.get(14)?,
                                joined: r.get(15)?,
                            },
                        },
                        listed: r.get(16)?,
                        rematch_of: r.get(18)?,
                        invite: r
                            .get::<_, Option<String>>(25)?
                            .as_deref()
                            .and_then(Color::parse_name),
                    },
                    updated_ms: u(r.get(2)?),
                    invite_claimed: r.get(17)?,
                    rematch: r.get(19)?,
                    started_ms: r.get::<_, Option<i64>>(20)?.map(u),
                    finish: finish_from(r.get(21)?, r.get(22)?, r.get(23)?, r.get(24)?),
                    moves: Vec::new(),
                })
            },
        )
        .optional()
        .map_err(db)?;
    let Some(mut g) = row else { return Ok(None) };
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
    Ok(Some(g))
}

impl Store for SqliteStore {
    fn write(&self, w: Write) -> BoxFuture<'_, Result<(), StoreError>> {
        let (tx, rx) = oneshot::channel();
        let sent = self
            .writer
            .lock()
            .ok()
            .and_then(|g| g.as_ref().map(|s| s.send((w, tx)).is_ok()))
            .unwrap_or(false);
        Box::pin(async move {
            if !sent {
                return Err(StoreError::Closed);
            }
            rx.await.map_err(|_| StoreError::Closed)?
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
                ListKind::Live => "result IS NULL AND started_ms IS NOT NULL ORDER BY updated_ms DESC",
                ListKind::Recent => "result IS NOT NULL ORDER BY finished_ms DESC",
            };
            let sql = format!("SELECT {SUMMARY_COLS} FROM games WHERE {filter} LIMIT ?1");
            let mut st = c.prepare_cached(&sql).map_err(db)?;
            st.query_map(params![limit], summary_row)
                .map_err(db)?
                .collect::<Result<Vec<_>, _>>()
                .map_err(db)
        })
    }

    fn summary(&self, id: &str) -> BoxFuture<'_, Result<Option<Summary>, StoreError>> {
        let id = id.to_string();
        self.read(move |c| {
            let sql = format!("SELECT {SUMMARY_COLS} FROM games WHERE id = ?1");
            c.query_row(&sql, params![id], summary_row)
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_game(id: &str) -> NewGame {
        NewGame {
            id: id.into(),
            created_ms: 1000,
            deal: "RNBAABNRCCPPPPP/rnbaabnrccppppp".into(),
            salt: "00".into(),
            commitment: "sha256:x".into(),
            rules: "standard".into(),
            captured_identity: "capturer".into(),
            time: "10+5".into(),
            move_time_s: Some(60),
            seats: ByColor {
                red: SeatRecord {
                    engine_level: None,
                    token: "a".into(),
                    joined: false,
                },
                black: SeatRecord {
                    engine_level: Some(3),
                    token: "b".into(),
                    joined: true,
                },
            },
            invite: None,
            listed: false,
            rematch_of: None,
        }
    }

    fn mv(n: u32) -> MoveRecord {
        MoveRecord {
            n,
            uci: "h2e2".into(),
            red_ms: 1,
            black_ms: 2,
            at_ms: 3,
        }
    }

    #[tokio::test]
    async fn round_trip_and_ordering_guard() {
        let dir = tempfile::tempdir().unwrap();
        let s = SqliteStore::open(&dir.path().join("t.db"), SyncMode::Normal).unwrap();
        s.write(Write::Create(new_game("g1"))).await.unwrap();
        assert!(s.write(Write::Create(new_game("g1"))).await.is_err());
        s.write(Write::Move {
            id: "g1".into(),
            mv: mv(1),
            finish: None,
        })
        .await
        .unwrap();
        // A gap or a repeat is refused, and does not disturb the stored game.
        assert!(
            s.write(Write::Move {
                id: "g1".into(),
                mv: mv(3),
                finish: None
            })
            .await
            .is_err()
        );
        assert!(
            s.write(Write::Move {
                id: "g1".into(),
                mv: mv(1),
                finish: None
            })
            .await
            .is_err()
        );
        s.write(Write::Move {
            id: "g1".into(),
            mv: mv(2),
            finish: None,
        })
        .await
        .unwrap();
        let g = s.load("g1").await.unwrap().unwrap();
        assert_eq!(g.new, new_game("g1"));
        assert_eq!(g.moves, vec![mv(1), mv(2)]);
        assert_eq!(s.unfinished().await.unwrap(), vec!["g1".to_string()]);
        let f = FinishRecord {
            result: "0-1".into(),
            winner: Some(Color::Black),
            reason: "resignation".into(),
            at_ms: 9,
        };
        s.write(Write::Finish {
            id: "g1".into(),
            finish: f.clone(),
        })
        .await
        .unwrap();
        assert!(
            s.write(Write::Finish {
                id: "g1".into(),
                finish: f.clone()
            })
            .await
            .is_err()
        );
        assert!(
            s.write(Write::Move {
                id: "g1".into(),
                mv: mv(3),
                finish: None
            })
            .await
            .is_err()
        );
        let g = s.load("g1").await.unwrap().unwrap();
        assert_eq!(g.finish, Some(f));
        assert!(s.unfinished().await.unwrap().is_empty());
        let recent = s.list(ListKind::Recent, 10).await.unwrap();
        assert_eq!(recent.len(), 1);
        assert_eq!(recent[0].plies, 2);
        assert!(s.load("nope").await.unwrap().is_none());
    }
}
