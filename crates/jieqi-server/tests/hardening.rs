//! The hardening of issue 17, each item tested over real HTTP, WebSockets and TCP:
//! what an attacker (or an organiser's mistake) could do before, and cannot now.

mod common;

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use common::*;
use jieqi_server::client::http;
use jieqi_server::store::SyncMode;
use jieqi_server::{Config, Server};
use serde_json::{Value, json};

fn config(db: &Path) -> Config {
    Config {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        db: db.to_path_buf(),
        sync: SyncMode::Normal,
        engine_threads: 1,
        abandon_ms: 60_000,
        engine: jieqi_server::EngineKind::Greedy,
        rate_per_sec: 1000.0,
        rate_burst: 2000.0,
    }
}

async fn call(addr: SocketAddr, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let text = body.map(|b| b.to_string());
    let r = http(addr, method, path, text.as_deref()).await.unwrap();
    (r.status, r.json().unwrap_or(Value::Null))
}

async fn ok(addr: SocketAddr, method: &str, path: &str, body: Value) -> Value {
    let (status, v) = call(addr, method, path, Some(body)).await;
    assert!(
        status == 200 || status == 201,
        "{method} {path}: {status} {v}"
    );
    v
}

/// An event of `players` players with deal mode `mode`, started: its id, the
/// organiser's token and the players' tokens.
async fn started_event(
    addr: SocketAddr,
    mode: &str,
    players: usize,
) -> (String, String, Vec<String>) {
    let c = ok(
        addr,
        "POST",
        "/api/tournaments",
        json!({"name": "hardening", "format": "swiss", "rounds": 1, "deal_mode": mode}),
    )
    .await;
    let id = c["id"].as_str().unwrap().to_string();
    let org = c["organiser_token"].as_str().unwrap().to_string();
    let mut tokens = Vec::new();
    for n in 0..players {
        let r = ok(
            addr,
            "POST",
            &format!("/api/tournaments/{id}/join"),
            json!({"name": format!("player {n}")}),
        )
        .await;
        tokens.push(r["token"].as_str().unwrap().to_string());
    }
    if mode != "joint" {
        ok(
            addr,
            "POST",
            &format!("/api/tournaments/{id}/start"),
            json!({"token": org}),
        )
        .await;
    }
    (id, org, tokens)
}

/// The seat link (game id, seat token) of the player with `token` in round 1.
async fn seat_of(addr: SocketAddr, id: &str, token: &str) -> (String, String) {
    let (_, v) = call(
        addr,
        "GET",
        &format!("/api/tournaments/{id}?token={token}"),
        None,
    )
    .await;
    let url = v["you"]["games"][0]["url"].as_str().unwrap().to_string();
    let (game, seat) = url
        .strip_prefix("/game/")
        .unwrap()
        .split_once("?seat=")
        .unwrap();
    (game.to_string(), seat.to_string())
}

/// Item 1: an organiser's result on a board still in play ends its game at once: the
/// players hear the end, no move is accepted after it, and the deal is published only
/// with (not before) the end of its last game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_organisers_result_ends_the_game_before_the_deal_is_published() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(config(&dir.path().join("t.db")))
        .await
        .unwrap();
    let addr = server.addr;
    // Duplicate deals: both boards play the same deal.
    let (id, org, tokens) = started_event(addr, "duplicate", 4).await;
    let mut boards = Vec::new();
    for t in &tokens {
        let (game, seat) = seat_of(addr, &id, t).await;
        let (c, s) = join(addr, &game, Some(&seat)).await;
        boards.push((game, s["d"]["you"].as_str().unwrap().to_string(), c));
    }
    let (_, v) = call(addr, "GET", &format!("/api/tournaments/{id}"), None).await;
    let board1 = v["rounds"][0]["boards"][0]["game"]
        .as_str()
        .unwrap()
        .to_string();
    let mut on_board1: Vec<_> = boards.iter_mut().filter(|(g, ..)| *g == board1).collect();
    assert_eq!(on_board1.len(), 2);
    on_board1.sort_by_key(|(_, you, _)| you != "red");
    let [(_, _, red), (_, _, black)] = on_board1.as_mut_slice() else {
        unreachable!()
    };
    let s = sync(red).await;
    let first = s["d"]["legal"][0].as_str().unwrap().to_string();
    red.send("move", json!({"uci": first}), None).await.unwrap();
    move_event(black, 1).await;

    let v = ok(
        addr,
        "POST",
        &format!("/api/tournaments/{id}/result"),
        json!({"token": org, "round": 1, "board": 1, "result": "1-0"}),
    )
    .await;
    // By the time the organiser has the answer, the game is over for everyone.
    let end = black.recv_until("end", WAIT).await.unwrap();
    assert_eq!(end["d"]["result"], "1-0", "{end}");
    assert_eq!(end["d"]["reason"], "adjudication", "{end}");
    assert_eq!(
        end["d"]["withheld"], true,
        "board 2 still plays the deal: {end}"
    );
    let s = sync(black).await;
    let reply = s["d"]["legal"].as_array().unwrap().first().cloned();
    assert_eq!(s["d"]["status"], "finished");
    black
        .send("move", json!({"uci": reply.unwrap_or(json!("a6a5"))}), None)
        .await
        .unwrap();
    expect_error(black, "game_over").await;
    let (_, summary) = call(addr, "GET", &format!("/api/games/{board1}"), None).await;
    assert_eq!(summary["status"], "finished", "{summary}");
    // Board 2 still plays on the deal: it stays secret everywhere.
    let d = v["rounds"][0]["boards"][0]["deal"].as_u64().unwrap() as usize;
    assert_eq!(v["deals"][d]["published"], false, "{v}");
    let (_, all) = call(addr, "GET", &format!("/api/tournaments/{id}"), None).await;
    assert_eq!(all["deals"][d]["salt"], Value::Null, "{all}");

    // The organiser settles board 2 as well: its game ends, then the deal is out.
    let v = ok(
        addr,
        "POST",
        &format!("/api/tournaments/{id}/result"),
        json!({"token": org, "round": 1, "board": 2, "result": "1/2"}),
    )
    .await;
    assert_eq!(v["deals"][d]["published"], true, "{v}");
    let board2 = v["rounds"][0]["boards"][1]["game"].as_str().unwrap();
    let (_, summary) = call(addr, "GET", &format!("/api/games/{board2}"), None).await;
    assert_eq!(summary["status"], "finished", "{summary}");
    assert_eq!(summary["reason"], "adjudication", "{summary}");
    server.shutdown().await;
}
