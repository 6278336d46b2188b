//! Game start and chat through the real server (docs/server.md, "Game start",
//! "Chat"): an aborted rated game changes no rating and counts in no result; a missed
//! first move aborts, also after a restart; chat is stored with the game and survives
//! a restart; hostile chat gets clear errors and breaks nothing.

mod common;

use std::path::Path;
use std::time::Duration;

use common::*;
use jieqi_server::client::{Account, WsClient, http};
use jieqi_server::{EngineKind, Limits, Server};
use serde_json::{Value, json};

const PASSWORD: &str = "correct horse battery";

fn body(r: &jieqi_server::client::HttpResponse) -> Value {
    r.json().unwrap_or(Value::Null)
}

/// A server on `db` whose players have `first_move` for their first moves.
async fn start_first_move(db: &Path, first_move: Duration) -> Server {
    let mut limits = Limits::default();
    limits.game_start_and_chat.first_move = first_move;
    Server::start_with(config(db, EngineKind::Greedy), limits)
        .await
        .unwrap()
}

async fn get(addr: std::net::SocketAddr, path: &str) -> Value {
    let r = http(addr, "GET", path, None).await.unwrap();
    assert_eq!(r.status, 200, "{path}: {}", body(&r));
    body(&r)
}

/// The next `chat` event.
async fn chat_event(c: &mut WsClient) -> Value {
    c.recv_until("chat", WAIT).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_aborted_rated_game_leaves_ratings_and_results_unchanged() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    let alice = Account::sign_up(addr, "Alice", PASSWORD).await.unwrap();
    let bob = Account::sign_up(addr, "Bob", PASSWORD).await.unwrap();
    let req = json!({ "opponent": "friend", "rated": true, "time": "3+2", "color": "red" });
    let (id, alice_token, bob_token) = accounts_game(addr, &alice, &bob, req).await;
    let (mut red, _) = join(addr, &id, Some(&alice_token)).await;
    let (mut black, s) = join(addr, &id, Some(&bob_token)).await;
    assert_eq!(s["d"]["status"], "live");
    assert_eq!(s["d"]["abortable"], true);
    assert_eq!(
        s["d"]["clock"]["running"],
        Value::Null,
        "no clock before the first move"
    );
    assert_eq!(s["d"]["first_move"]["color"], "red");
    red.recv_until("state", WAIT).await.unwrap();
    // Red moves; Black aborts before his first move.
    let legal = s["d"]["legal"].as_array().cloned().unwrap_or_default();
    assert!(legal.is_empty(), "Black is not to move");
    let red_state = sync(&mut red).await;
    let m = red_state["d"]["legal"][0].as_str().unwrap().to_string();
    red.send("move", json!({ "uci": m }), None).await.unwrap();
    let ev = move_event(&mut black, 1).await;
    assert_eq!(ev["d"]["abortable"], true);
    assert_eq!(ev["d"]["first_move"]["color"], "black");
    black.send("abort", Value::Null, None).await.unwrap();
    for c in [&mut red, &mut black] {
        let end = c.recv_until("end", WAIT).await.unwrap();
        assert_eq!(
            (
                &end["d"]["result"],
                &end["d"]["reason"],
                &end["d"]["winner"]
            ),
            (&json!("*"), &json!("aborted"), &Value::Null),
            "{end}"
        );
        assert_eq!(end["d"]["commitment_ok"], true);
    }
    // Too late to abort twice, or to move.
    red.send("abort", Value::Null, None).await.unwrap();
    expect_error(&mut red, "not_abortable").await;
    // Nobody's rating changed; no result counts; the game is listed as aborted.
    for name in ["alice", "bob"] {
        let p = get(addr, &format!("/api/users/{name}")).await;
        for r in p["ratings"].as_array().unwrap() {
            assert_eq!(
                (r["rating"].clone(), r["games"].clone()),
                (json!(1500), json!(0)),
                "{p}"
            );
        }
        assert_eq!(p["results"], json!([]), "{p}");
        assert_eq!(p["rating_history"], json!([]), "{p}");
        let h = get(addr, &format!("/api/users/{name}/games")).await;
        assert_eq!(h["total"], 1, "{h}");
        assert_eq!(h["games"][0]["result_for_player"], "aborted");
        assert_eq!(h["games"][0]["rating_before"], Value::Null);
        let wins = get(addr, &format!("/api/users/{name}/games?result=win")).await;
        assert_eq!(wins["total"], 0);
    }
    let summary = get(addr, &format!("/api/games/{id}")).await;
    assert_eq!(
        (&summary["status"], &summary["result"], &summary["reason"]),
        (&json!("finished"), &json!("*"), &json!("aborted"))
    );
    let recent = get(addr, "/api/games?list=recent").await;
    assert_eq!(recent["games"][0]["reason"], "aborted");
    let replay = get(addr, &format!("/api/games/{id}/replay")).await;
    assert_eq!(replay["end"]["result"], "*");
    assert_eq!(replay["moves"].as_array().unwrap().len(), 1);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missed_first_move_aborts_also_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("test.db");
    let server = start_first_move(&db, Duration::from_millis(800)).await;
    let addr = server.addr;
    // Nobody moves: aborted after the window.
    let g = create(addr, json!({ "opponent": "friend", "time": "5+0" })).await;
    let (mut creator, _friend) = seat_both(addr, &g).await;
    let end = creator.recv_until("end", WAIT).await.unwrap();
    assert_eq!(end["d"]["reason"], "aborted");
    // A game whose first move is still awaited when the server stops: the window
    // starts again at the restart, and then aborts it.
    let g = create(addr, json!({ "opponent": "friend", "time": "5+0" })).await;
    let (c, f) = seat_both(addr, &g).await;
    drop((c, f));
    server.shutdown().await;
    let server = start_first_move(&db, Duration::from_millis(800)).await;
    let addr = server.addr;
    let (mut watcher, s) = join(addr, &g.id, None).await;
    assert_eq!(s["d"]["status"], "live", "{s}");
    assert!(s["d"]["first_move"]["left_ms"].as_u64().unwrap() <= 800);
    let end = watcher.recv_until("end", WAIT).await.unwrap();
    assert_eq!(end["d"]["result"], "*");
    let summary = get(addr, &format!("/api/games/{}", g.id)).await;
    assert_eq!(summary["reason"], "aborted");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_is_stored_with_the_game_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("test.db");
    let server = start_on(&db, 60_000, 1000.0).await;
    let addr = server.addr;
    let g = create(addr, json!({ "opponent": "friend", "time": "10+5" })).await;
    let (mut creator, mut friend) = seat_both(addr, &g).await;
    let (mut watcher, s) = join(addr, &g.id, None).await;
    assert_eq!(s["d"]["chat"]["room"], "spectators");
    creator
        .send(
            "chat",
            json!({ "room": "players", "text": "good luck" }),
            None,
        )
        .await
        .unwrap();
    let line = chat_event(&mut friend).await;
    assert_eq!(line["d"]["text"], "good luck");
    assert_eq!(line["d"]["room"], "players");
    assert_eq!(line["d"]["name"], Value::Null, "a guest");
    assert!(line["d"]["color"].is_string());
    chat_event(&mut creator).await;
    watcher
        .send(
            "chat",
            json!({ "room": "spectators", "text": "nice opening" }),
            None,
        )
        .await
        .unwrap();
    assert_eq!(chat_event(&mut watcher).await["d"]["text"], "nice opening");
    // The players muted nobody and read only their own room.
    friend
        .send("chat_mute", json!({ "muted": true }), None)
        .await
        .unwrap();
    let s = friend.recv_until("state", WAIT).await.unwrap();
    assert_eq!(s["d"]["chat"]["muted"], true);
    server.shutdown().await;

    let server = start_on(&db, 60_000, 1000.0).await;
    let addr = server.addr;
    let (_c, s) = join(addr, &g.id, Some(&g.token)).await;
    let lines = s["d"]["chat"]["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 1, "{s}");
    assert_eq!(lines[0]["text"], "good luck");
    let (_f, s) = join(addr, &g.id, g.invite.as_deref()).await;
    assert_eq!(
        s["d"]["chat"]["muted"], true,
        "the mute survives the restart"
    );
    assert_eq!(
        s["d"]["chat"]["lines"],
        json!([]),
        "the muted opponent's line stays hidden"
    );
    let (_w, s) = join(addr, &g.id, None).await;
    assert_eq!(s["d"]["chat"]["lines"][0]["text"], "nice opening");
    // After the end the replay shows both rooms.
    let (mut c, _) = join(addr, &g.id, Some(&g.token)).await;
    c.send("abort", Value::Null, None).await.unwrap();
    c.recv_until("end", WAIT).await.unwrap();
    let replay = get(addr, &format!("/api/games/{}/replay", g.id)).await;
    let texts: Vec<_> = replay["chat"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["room"].as_str().unwrap(), l["text"].as_str().unwrap()))
        .collect();
    assert_eq!(
        texts,
        [("players", "good luck"), ("spectators", "nice opening")]
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_chat_gets_clear_errors_and_breaks_nothing() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    let g = create(addr, json!({ "opponent": "friend", "time": "10+5" })).await;
    let (mut red, mut black) = seat_both(addr, &g).await;
    let (mut watcher, _) = join(addr, &g.id, None).await;
    let say = |room: &str, text: &str| json!({ "room": room, "text": text });
    // Huge: over the message limit, and over the line limit.
    red.send("chat", say("players", &"x".repeat(5000)), None)
        .await
        .unwrap();
    expect_error(&mut red, "too_large").await;
    red.send("chat", say("players", &"長".repeat(141)), None)
        .await
        .unwrap();
    let e = expect_error(&mut red, "chat_too_long").await;
    assert_eq!(e["d"]["in"], "chat");
    // Nothing but control characters.
    red.send("chat", say("players", "\u{0}\u{1b}\r\n\t\u{7f}"), None)
        .await
        .unwrap();
    expect_error(&mut red, "chat_empty").await;
    // Wrong or malformed rooms and data.
    for bad in [
        json!({ "room": "everyone", "text": "hi" }),
        json!({ "room": "players" }),
        json!({ "room": "players", "text": 42 }),
        json!(["players", "hi"]),
    ] {
        red.send("chat", bad.clone(), None).await.unwrap();
        expect_error(&mut red, "bad_data").await;
    }
    red.send("chat", say("spectators", "psst"), None)
        .await
        .unwrap();
    expect_error(&mut red, "chat_room").await;
    watcher
        .send("chat", say("players", "let me in"), None)
        .await
        .unwrap();
    expect_error(&mut watcher, "chat_room").await;
    watcher
        .send("chat_mute", json!({ "muted": true }), None)
        .await
        .unwrap();
    expect_error(&mut watcher, "not_a_player").await;
    // Markup and control characters: stored and sent as the text it is.
    let markup = "<img src=x onerror=\"alert(1)\"><script>alert(2)</script>";
    red.send(
        "chat",
        say("players", &format!("{markup}\u{0}\u{202e}")),
        None,
    )
    .await
    .unwrap();
    let line = chat_event(&mut black).await;
    assert_eq!(line["d"]["text"], markup);
    // A flood: five lines in the window, then refused.
    for i in 0..4 {
        red.send("chat", say("players", &format!("line {i}")), None)
            .await
            .unwrap();
        chat_event(&mut black).await;
    }
    red.send("chat", say("players", "one too many"), None)
        .await
        .unwrap();
    let e = expect_error(&mut red, "rate_limited").await;
    assert!(e["d"]["message"].as_str().unwrap().contains("10 s"), "{e}");
    // The game goes on, and the server is fine.
    let s = sync(&mut red).await;
    assert_eq!(s["d"]["status"], "live");
    assert_eq!(s["d"]["chat"]["lines"].as_array().unwrap().len(), 5);
    let health = get(addr, "/api/health").await;
    assert_eq!(health["ok"], true);
    assert_eq!(health["protocol"], 4);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_game_has_no_player_chat() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(config(&dir.path().join("t.db"), EngineKind::Greedy))
        .await
        .unwrap();
    let addr = server.addr;
    let g = create(
        addr,
        json!({ "opponent": "engine", "level": 1, "color": "red" }),
    )
    .await;
    let (mut me, s) = join(addr, &g.id, Some(&g.token)).await;
    assert_eq!(s["d"]["chat"]["room"], Value::Null);
    me.send("chat", json!({ "room": "players", "text": "hello?" }), None)
        .await
        .unwrap();
    expect_error(&mut me, "chat_room").await;
    server.shutdown().await;
}
