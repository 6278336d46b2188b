//! The real `jieqi serve` binary is killed with SIGKILL between moves and restarted on
//! the same database: the game goes on from the same position, no acknowledged move
//! lost, the clocks restored without charging the downtime.

mod common;

use std::ffi::OsStr;
use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{Serve, WAIT, assert_clocks_resumed, join, ply, serve};
use jieqi_server::client::{claim_seat, http};
use serde_json::{Value, json};

/// `jieqi serve` on the SQLite file `db`, every commit synced to the disk.
fn serve_file(db: &Path) -> (Serve, SocketAddr) {
    serve([
        OsStr::new("--sync"),
        OsStr::new("full"),
        OsStr::new("--db"),
        db.as_os_str(),
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_server_resumes_games_with_fair_clocks() {
    let dir = tempfile::tempdir().unwrap();
    killed_server_resumes(&dir.path().join("restart.db")).await;
}

/// The same on PostgreSQL (`JIEQI_TEST_PG`): what was acknowledged was committed there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_server_resumes_games_with_fair_clocks_on_postgres() {
    let test = "killed_server_resumes_games_with_fair_clocks_on_postgres";
    if let Some(url) = jieqi_server::store::test_database(test).await {
        killed_server_resumes(Path::new(&url)).await;
    }
}

/// A game on the database `db` whose server is killed with SIGKILL between moves and
/// started again.
async fn killed_server_resumes(db: &Path) {
    let (server, addr) = serve_file(db);
    let body = json!({"opponent": "friend", "color": "red", "time": "10+0"}).to_string();
    let r = http(addr, "POST", "/api/games", Some(&body)).await.unwrap();
    assert_eq!(r.status, 201);
    let g = r.json().unwrap();
    let id = g["id"].as_str().unwrap().to_string();
    let red_token = g["token"].as_str().unwrap().to_string();
    // The friend's seat, claimed with the invite token as the invite link's page does.
    let r = claim_seat(addr, &id, g["invite_token"].as_str())
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    let black_token = r.json().unwrap()["token"].as_str().unwrap().to_string();
    let (mut red, _) = join(addr, &id, Some(&red_token)).await;
    let (mut black, _) = join(addr, &id, Some(&black_token)).await;
    let mut last = red.recv_until("state", WAIT).await.unwrap();
    let mut last_black = None;
    // Six plies, each acknowledged to its mover.
    for n in 1..=6u64 {
        let (mover, other) = if n % 2 == 1 {
            (&mut red, &mut black)
        } else {
            (&mut black, &mut red)
        };
        let legal = last["d"]["legal"].as_array().unwrap().clone();
        let mv = legal[(n as usize * 5) % legal.len()]
            .as_str()
            .unwrap()
            .to_string();
        mover.send("move", json!({"uci": mv}), None).await.unwrap();
        let mover_state = ply(mover, n).await;
        last = ply(other, n).await;
        if n % 2 == 0 {
            last_black = Some(mover_state);
        }
    }
    // Each player's own view: Red may know a captured identity that Black does not.
    let last_black = last_black.expect("Black moved");
    let before_red = {
        red.send("sync", Value::Null, None).await.unwrap();
        red.recv_until("state", WAIT).await.unwrap()
    };
    let stored_black = before_red["d"]["moves"][5]["clock_ms"].as_u64().unwrap();
    let stored_red = before_red["d"]["moves"][4]["clock_ms"].as_u64().unwrap();

    // Red thinks a little, then the server dies without any warning.
    tokio::time::sleep(Duration::from_millis(300)).await;
    drop(server);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        red.recv(Duration::from_secs(2)).await.is_err(),
        "the old server is gone"
    );

    let (_server2, addr2) = serve_file(db);
    let (mut red2, s) = join(addr2, &id, Some(&red_token)).await;
    let (_black2, sb) = join(addr2, &id, Some(&black_token)).await;
    let d = &s["d"];
    assert_eq!(d["status"], "live");
    assert_eq!(
        d["moves"], before_red["d"]["moves"],
        "every acknowledged move is back"
    );
    assert_eq!(d["fen"], before_red["d"]["fen"]);
    assert_eq!(sb["d"]["fen"], last_black["d"]["fen"]);
    assert_eq!(d["turn"], "red");
    // Clocks: Black's untouched, Red's resumed from its stored time; the 1.5 s of
    // downtime (and the 0.3 s before the crash) were not charged.
    assert_clocks_resumed(&d["clock"], stored_red, stored_black);
    // And the game goes on.
    let legal = d["legal"].as_array().unwrap();
    red2.send("move", json!({"uci": legal[0]}), None)
        .await
        .unwrap();
    let m = ply(&mut red2, 7).await;
    assert_eq!(m["d"]["turn"], "black");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_shuts_down_gracefully_and_keeps_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("term.db");
    let (mut server, addr) = serve_file(&db);
    let body = json!({"opponent": "friend", "color": "red", "time": "none"}).to_string();
    let g = http(addr, "POST", "/api/games", Some(&body))
        .await
        .unwrap()
        .json()
        .unwrap();
    let id = g["id"].as_str().unwrap().to_string();
    let token = g["token"].as_str().unwrap().to_string();
    let (mut red, _) = join(addr, &id, Some(&token)).await;
    let status = Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    // The connection is closed by the server, and the process exits by itself.
    let mut closed = false;
    for _ in 0..20 {
        if red.recv(Duration::from_secs(10)).await.is_err() {
            closed = true;
            break;
        }
    }
    assert!(closed, "the server did not close the connection");
    let mut exited = None;
    for _ in 0..100 {
        if let Some(s) = server.0.try_wait().unwrap() {
            exited = Some(s);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        exited
            .expect("jieqi serve did not exit after SIGTERM")
            .success()
    );
    let (_server2, addr2) = serve_file(&db);
    let (_red2, s) = join(addr2, &id, Some(&token)).await;
    assert_eq!(s["d"]["you"], "red");
    assert_eq!(s["d"]["status"], "waiting");
}
