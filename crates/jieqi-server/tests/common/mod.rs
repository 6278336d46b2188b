//! Shared helpers of the integration tests: a server on a free loopback port with a
//! fresh database, and small protocol helpers.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::Duration;

use jieqi_server::client::{WsClient, http};
use jieqi_server::store::SyncMode;
use jieqi_server::{Config, Server};
use serde_json::{Value, json};

pub const WAIT: Duration = Duration::from_secs(10);

pub async fn start(abandon_ms: u64) -> (Server, tempfile::TempDir) {
    start_with(abandon_ms, 1000.0).await
}

pub async fn start_with(abandon_ms: u64, rate: f64) -> (Server, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        db: dir.path().join("test.db"),
        sync: SyncMode::Normal,
        engine_threads: 1,
        abandon_ms,
        engine: jieqi_server::EngineKind::Search,
        rate_per_sec: rate,
        rate_burst: 2.0 * rate,
    };
    (Server::start(config).await.unwrap(), dir)
}

pub struct Created {
    pub id: String,
    pub seat: String,
    pub token: String,
    pub invite: Option<String>,
    pub commitment: String,
}

pub async fn create(addr: SocketAddr, body: Value) -> Created {
    let r = http(addr, "POST", "/api/games", Some(&body.to_string()))
        .await
        .unwrap();
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let v = r.json().unwrap();
    Created {
        id: v["id"].as_str().unwrap().into(),
        seat: v["seat"].as_str().unwrap().into(),
        token: v["token"].as_str().unwrap().into(),
        invite: v["invite_url"]
            .as_str()
            .map(|u| u.split("seat=").nth(1).unwrap().to_string()),
        commitment: v["commitment"].as_str().unwrap().into(),
    }
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
