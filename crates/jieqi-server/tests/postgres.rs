//! The server on PostgreSQL (`jieqi serve --db postgres://…`): a whole game over
//! WebSockets with a restart in the middle, the game resumed from the database. Runs
//! when `JIEQI_TEST_PG` names a database (`.ci/run` starts one); skipped with a notice
//! without it, except in CI (see `jieqi_server::store::test_database`).

mod common;

use std::path::PathBuf;

use common::*;
use jieqi_server::client::WsClient;
use serde_json::{Value, json};

/// A move's squares, without the suffix letters (which differ by receiver).
fn plain(uci: &Value) -> String {
    uci.as_str().unwrap()[..4].to_string()
}

/// The player to move plays his `k`-th legal move (cycling); both see ply `n`.
async fn play(red: &mut WsClient, black: &mut WsClient, n: u64) -> Value {
    let s = sync(red).await;
    let (mover, other) = if s["d"]["turn"] == "red" {
        (red, black)
    } else {
        (black, red)
    };
    let s = sync(mover).await;
    let legal = s["d"]["legal"].as_array().unwrap();
    let m = legal[n as usize * 7 % legal.len()]
        .as_str()
        .unwrap()
        .to_string();
    mover.send("move", json!({ "uci": m }), None).await.unwrap();
    move_event(other, n).await;
    move_event(mover, n).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_survives_a_restart_on_postgres() {
    let Some(url) =
        jieqi_server::store::test_database("a_game_survives_a_restart_on_postgres").await
    else {
        return;
    };
    let db = PathBuf::from(url);
    let server = start_on(&db, 60_000, 1000.0).await;
    let addr = server.addr;
    let g = create(
        addr,
        json!({ "opponent": "friend", "color": "red", "time": "10+5" }),
    )
    .await;
    let (mut red, mut black) = seat_both(addr, &g).await;
    let mut played = Vec::new();
    for n in 1..=10 {
        let ev = play(&mut red, &mut black, n).await;
        assert_eq!(ev["d"]["status"], "live", "{ev}");
        played.push(plain(&ev["d"]["ply"]["uci"]));
    }
    red.send("chat", json!({ "room": "players", "text": "brb" }), None)
        .await
        .unwrap();
    black.recv_until("chat", WAIT).await.unwrap();
    drop((red, black));
    server.shutdown().await;

    // A new server on the same database resumes the game where it was.
    let server = start_on(&db, 60_000, 1000.0).await;
    let addr = server.addr;
    let (mut red, s) = join(addr, &g.id, Some(&g.token)).await;
    assert_eq!(s["d"]["status"], "live", "{s}");
    assert_eq!(s["d"]["chat"]["lines"][0]["text"], "brb", "{s}");
    let (mut black, _) = join(addr, &g.id, g.invite.as_deref()).await;
    for n in 11..=16 {
        let ev = play(&mut red, &mut black, n).await;
        played.push(plain(&ev["d"]["ply"]["uci"]));
    }
    red.send("resign", Value::Null, None).await.unwrap();
    let end = black.recv_until("end", WAIT).await.unwrap();
    assert_eq!(end["d"]["result"], "0-1", "{end}");
    let replay =
        jieqi_server::client::http(addr, "GET", &format!("/api/games/{}/replay", g.id), None)
            .await
            .unwrap()
            .json()
            .unwrap();
    let moves: Vec<String> = replay["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| plain(&p["uci"]))
        .collect();
    assert_eq!(moves, played, "every acknowledged move is stored");
    let recent = jieqi_server::client::http(addr, "GET", "/api/games?list=recent", None)
        .await
        .unwrap();
    assert_eq!(recent.status, 200);
    server.shutdown().await;
}
