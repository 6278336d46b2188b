//! The log: the life of every game (created, started, finished, resumed after a
//! restart) and of every connection (accepted, joined as whom, closed) at info level,
//! engine moves at debug level — and never a secret: no seat token, invite token,
//! salt or deal of any game appears in it.

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use serde_json::{Value, json};

/// Everything the server logged, as text.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl Write for Log {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Log {
    /// Captures the log of this test process: the server's own events from debug
    /// up, everyone else's from info up (what `jieqi serve` shows by default).
    fn capture() -> Log {
        let log = Log::default();
        let writer = log.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(
                "info,jieqi_server=debug",
            ))
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("the only subscriber");
        log
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }

    /// The lines with `message` and every `key=value` field of `fields` (a text
    /// field is written quoted, a displayed one bare: both count).
    fn lines(&self, message: &str, fields: &[(&str, &str)]) -> Vec<String> {
        self.text()
            .lines()
            .filter(|l| l.contains(message))
            .filter(|l| {
                fields.iter().all(|(k, v)| {
                    l.contains(&format!(" {k}={v}")) || l.contains(&format!(" {k}=\"{v}\""))
                })
            })
            .map(str::to_string)
            .collect()
    }

    /// Waits (up to [`WAIT`]) for a line with `message` and `fields`.
    async fn wait_for(&self, message: &str, fields: &[(&str, &str)]) -> String {
        let start = Instant::now();
        loop {
            if let Some(l) = self.lines(message, fields).pop() {
                return l;
            }
            assert!(
                start.elapsed() < WAIT,
                "no log line {message:?} with {fields:?} in:\n{}",
                self.text()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_tells_the_life_of_games_and_connections_and_no_secret() {
    let log = Log::capture();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("log.db");
    let server = start_on(&db, 60_000, 1000.0).await;
    let addr = server.addr;

    // A friend game played to its end, watched by a spectator.
    let g = create(
        addr,
        json!({"opponent": "friend", "color": "red", "time": "10+5"}),
    )
    .await;
    log.wait_for(
        "game created",
        &[("game", &g.id), ("mode", "friend"), ("time", "10+5")],
    )
    .await;
    log.wait_for("invite seat claimed", &[("game", &g.id), ("seat", "black")])
        .await;
    let (mut red, _) = join(addr, &g.id, Some(&g.token)).await;
    let (spectator, _) = join(addr, &g.id, None).await;
    let (mut black, _) = join(addr, &g.id, g.invite.as_deref()).await;
    for viewer in ["red", "black", "spectator"] {
        log.wait_for("connection joined", &[("game", &g.id), ("viewer", viewer)])
            .await;
    }
    log.wait_for("game started", &[("game", &g.id)]).await;
    red.recv_until("state", WAIT).await.unwrap();
    red.send("move", json!({"uci": "b2b9"}), None)
        .await
        .unwrap();
    move_event(&mut red, 1).await;
    answer(&mut black, 1, &mut red).await;
    red.send("resign", Value::Null, None).await.unwrap();
    let end = red.recv_until("end", WAIT).await.unwrap();
    log.wait_for(
        "game finished",
        &[
            ("game", &g.id),
            ("result", "0-1"),
            ("reason", "resignation"),
            ("plies", "2"),
        ],
    )
    .await;
    spectator.close().await;
    log.wait_for(
        "connection closed",
        &[("game", &g.id), ("viewer", "spectator")],
    )
    .await;
    assert!(!log.lines("connection accepted", &[]).is_empty());
    // The end published the deal and the salt; the log has neither.
    let text = log.text();
    for secret in [&end["d"]["deal"], &end["d"]["salt"]] {
        let s = secret.as_str().unwrap();
        assert!(!text.contains(s), "the log holds {s}");
    }

    // An engine game: the engine's moves at debug level.
    let e = create(
        addr,
        json!({"opponent": "engine", "level": 1, "color": "red", "time": "none"}),
    )
    .await;
    log.wait_for("game created", &[("game", &e.id), ("mode", "engine")])
        .await;
    let (mut me, s) = join(addr, &e.id, Some(&e.token)).await;
    let s = if s["d"]["status"] == "live" {
        s
    } else {
        me.recv_until("state", WAIT).await.unwrap()
    };
    let first = s["d"]["legal"][0].as_str().unwrap().to_string();
    me.send("move", json!({"uci": first}), None).await.unwrap();
    move_event(&mut me, 2).await;
    let line = log
        .wait_for("engine move", &[("game", &e.id), ("ply", "2")])
        .await;
    assert!(line.contains("DEBUG"), "{line}");

    // A game in play across a restart: resumed.
    let live = create(
        addr,
        json!({"opponent": "friend", "color": "red", "time": "10+5"}),
    )
    .await;
    let (mut red, _black) = seat_both(addr, &live).await;
    red.send("move", json!({"uci": "h2e2"}), None)
        .await
        .unwrap();
    move_event(&mut red, 1).await;
    server.shutdown().await;
    let server = start_on(&db, 60_000, 1000.0).await;
    log.wait_for(
        "game resumed",
        &[("game", &live.id), ("plies", "1"), ("status", "live")],
    )
    .await;
    server.shutdown().await;

    // No secret of any game, finished or in play, is in the log.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mut st = conn
        .prepare("SELECT deal, salt, red_token, black_token, invite_token FROM games")
        .unwrap();
    let secrets: Vec<String> = st
        .query_map([], |r| {
            (0..5)
                .map(|i| r.get::<_, Option<String>>(i))
                .collect::<Result<Vec<_>, _>>()
        })
        .unwrap()
        .flat_map(Result::unwrap)
        .flatten()
        .collect();
    assert!(secrets.len() >= 3 * 4 + 2, "{secrets:?}");
    let text = log.text();
    for s in &secrets {
        assert!(
            !text.contains(s.as_str()),
            "the log holds the secret {s}:\n{text}"
        );
    }
}
