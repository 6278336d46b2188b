//! Shared helpers of the integration tests: a server on a free loopback port with a
//! fresh database, and small protocol helpers.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use jieqi_server::client::{Account, HttpResponse, WsClient, claim_seat, http};
use jieqi_server::store::SyncMode;
use jieqi_server::{Config, Server};
use serde_json::{Value, json};

pub const WAIT: Duration = Duration::from_secs(10);

pub async fn start(abandon_ms: u64) -> (Server, tempfile::TempDir) {
    start_with(abandon_ms, 1000.0).await
}

pub async fn start_with(abandon_ms: u64, rate: f64) -> (Server, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let server = start_on(&dir.path().join("test.db"), abandon_ms, rate).await;
    (server, dir)
}

/// Where a test's server keeps its data: a SQLite file in a temporary directory, or a
/// fresh schema of the PostgreSQL database `JIEQI_TEST_PG` names.
pub enum Db {
    Sqlite(tempfile::TempDir),
    Postgres(String),
}

impl Db {
    /// The server's `--db`: the SQLite file's path, or the PostgreSQL URL.
    pub fn path(&self) -> PathBuf {
        match self {
            Db::Sqlite(dir) => dir.path().join("test.db"),
            Db::Postgres(url) => PathBuf::from(url),
        }
    }
}

/// Runs each named `async fn(Db)` twice: `sqlite::name` on a SQLite file and
/// `postgres::name` on PostgreSQL (skipped without `JIEQI_TEST_PG`, except in CI: see
/// `jieqi_server::store::test_database`).
#[macro_export]
macro_rules! on_both_stores {
    ($($test:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $test() {
                    super::$test($crate::common::Db::Sqlite(tempfile::tempdir().unwrap())).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $test() {
                    if let Some(url) = jieqi_server::store::test_database(stringify!($test)).await {
                        super::$test($crate::common::Db::Postgres(url)).await;
                    }
                }
            )*
        }
    };
}

/// A test server's configuration on the database `db`: a free loopback port, `engine`
/// for engine games, one engine thread, a minute before an empty seat is abandoned,
/// 1000 requests a second.
pub fn config(db: &Path, engine: jieqi_server::EngineKind) -> Config {
    Config {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        db: db.to_path_buf(),
        sync: SyncMode::Normal,
        commit_interval: jieqi_server::store::COMMIT_INTERVAL,
        engine_threads: 1,
        abandon_ms: 60_000,
        engine,
        rate_per_sec: 1000.0,
        rate_burst: 2000.0,
        node: None,
    }
}

/// A server on the database `db` (kept across a restart).
pub async fn start_on(db: &Path, abandon_ms: u64, rate: f64) -> Server {
    let config = Config {
        abandon_ms,
        rate_per_sec: rate,
        rate_burst: 2.0 * rate,
        ..config(db, jieqi_server::EngineKind::Search)
    };
    Server::start(config).await.unwrap()
}

pub struct Created {
    pub id: String,
    pub seat: String,
    pub token: String,
    /// The friend's seat token, claimed with the invite token as the invite link's page
    /// does (unlisted friend games; a listed game's seat is left free).
    pub invite: Option<String>,
    /// The invite link's secret (friend games).
    pub invite_token: Option<String>,
    pub commitment: String,
}

pub async fn create(addr: SocketAddr, body: Value) -> Created {
    let r = http(addr, "POST", "/api/games", Some(&body.to_string()))
        .await
        .unwrap();
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let v = r.json().unwrap();
    let id: String = v["id"].as_str().unwrap().into();
    let invite_token = v["invite_token"].as_str().map(str::to_string);
    assert_eq!(
        v["invite_url"],
        json!(
            invite_token
                .as_ref()
                .map(|t| format!("/game/{id}?invite={t}"))
        ),
        "the invite link carries the invite token"
    );
    let invite = match &invite_token {
        Some(t) if body["listed"] != true => {
            let r = claim(addr, &id, Some(t)).await;
            assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
            Some(r.json().unwrap()["token"].as_str().unwrap().to_string())
        }
        _ => None,
    };
    Created {
        id,
        seat: v["seat"].as_str().unwrap().into(),
        token: v["token"].as_str().unwrap().into(),
        invite,
        invite_token,
        commitment: v["commitment"].as_str().unwrap().into(),
    }
}

/// `POST /api/games/{id}/join`, with the invite token if given.
pub async fn claim(addr: SocketAddr, id: &str, invite: Option<&str>) -> HttpResponse {
    claim_seat(addr, id, invite).await.unwrap()
}

/// Both seats of a friend game joined, the creator's first; returns the creator's and
/// the friend's connections once the game has started.
pub async fn seat_both(addr: SocketAddr, g: &Created) -> (WsClient, WsClient) {
    let (mut creator, _) = join(addr, &g.id, Some(&g.token)).await;
    let (friend, s) = join(addr, &g.id, g.invite.as_deref()).await;
    assert_eq!(s["d"]["status"], "live", "{s}");
    creator.recv_until("state", WAIT).await.unwrap();
    (creator, friend)
}

/// Connects and joins; returns the client and its first `state`.
pub async fn join(addr: SocketAddr, game: &str, token: Option<&str>) -> (WsClient, Value) {
    let mut c = WsClient::connect(addr).await.unwrap();
    c.send("join", json!({ "game": game, "token": token }), None)
        .await
        .unwrap();
    let s = c.recv_until("state", WAIT).await.unwrap();
    (c, s)
}

/// The next `error` (skipping other messages), asserting its code.
pub async fn expect_error(c: &mut WsClient, code: &str) -> Value {
    let e = c.recv_until("error", WAIT).await.unwrap();
    assert_eq!(e["d"]["code"], code, "{e}");
    e
}

/// A fresh `state` via `sync`.
pub async fn sync(c: &mut WsClient) -> Value {
    c.send("sync", Value::Null, None).await.unwrap();
    c.recv_until("state", WAIT).await.unwrap()
}

/// Waits for the `move` event of ply `n`.
pub async fn move_event(c: &mut WsClient, n: u64) -> Value {
    loop {
        let m = c.recv_until("move", WAIT).await.unwrap();
        if m["d"]["ply"]["n"] == n {
            return m;
        }
    }
}

/// `mover` answers ply `n`: once he has seen it, he plays his first legal move, and
/// `other` sees it (ply `n + 1`).
pub async fn answer(mover: &mut WsClient, n: u64, other: &mut WsClient) {
    let ev = move_event(mover, n).await;
    let m = ev["d"]["legal"][0]
        .as_str()
        .expect("the mover's legal moves")
        .to_string();
    mover.send("move", json!({ "uci": m }), None).await.unwrap();
    move_event(other, n + 1).await;
}

/// Both first moves of a live game (no clock runs before them, docs/server.md, "Game
/// start"): Red plays his first legal move, then Black; returns when both have seen
/// Black's. The clocks run from then on, Red's first.
pub async fn first_moves(red: &mut WsClient, black: &mut WsClient) {
    let s = sync(red).await;
    let m = s["d"]["legal"][0]
        .as_str()
        .expect("Red to move")
        .to_string();
    red.send("move", json!({ "uci": m }), None).await.unwrap();
    let ev = move_event(black, 1).await;
    let m = ev["d"]["legal"][0]
        .as_str()
        .expect("Black to move")
        .to_string();
    black.send("move", json!({ "uci": m }), None).await.unwrap();
    move_event(red, 2).await;
    move_event(black, 2).await;
}

/// A friend game between two accounts, created by `creator` with `req` (an
/// `"opponent": "friend"` body) and its invite seat claimed by `friend` logged in:
/// (game id, the creator's seat token, the friend's).
pub async fn accounts_game(
    addr: SocketAddr,
    creator: &Account,
    friend: &Account,
    req: Value,
) -> (String, String, String) {
    let r = creator
        .http(addr, "POST", "/api/games", Some(&req.to_string()))
        .await
        .unwrap();
    let created = r.json().unwrap();
    assert_eq!(r.status, 201, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    let invite = json!({ "invite": created["invite_token"] }).to_string();
    let r = friend
        .http(
            addr,
            "POST",
            &format!("/api/games/{id}/join"),
            Some(&invite),
        )
        .await
        .unwrap();
    let claimed = r.json().unwrap();
    assert_eq!(r.status, 200, "{claimed}");
    let token = |v: &Value| v["token"].as_str().unwrap().to_string();
    (id, token(&created), token(&claimed))
}
