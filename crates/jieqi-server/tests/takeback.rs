//! Issue 18, takebacks over real WebSockets (docs/protocol.md §3): asked, accepted,
//! a reveal refused, and the request and the takeback both survive a restart.

mod common;

use common::*;
use jieqi_server::client::WsClient;
use serde_json::{Value, json};

/// Plays `moves` in turn (Red first), each seen by both.
async fn play(red: &mut WsClient, black: &mut WsClient, from_ply: u64, moves: &[&str]) {
    for (i, m) in moves.iter().enumerate() {
        let n = from_ply + i as u64 + 1;
        let (mover, other) = if n % 2 == 1 {
            (&mut *red, &mut *black)
        } else {
            (&mut *black, &mut *red)
        };
        mover.send("move", json!({ "uci": m }), None).await.unwrap();
        move_event(mover, n).await;
        move_event(other, n).await;
    }
}

/// The next `takeback` event.
async fn takeback_event(c: &mut WsClient) -> Value {
    c.recv_until("takeback", WAIT).await.unwrap()
}

/// `asker` asks for a takeback; `other` hears it: `plies` to take back.
async fn ask(asker: &mut WsClient, other: &mut WsClient, color: &str, plies: u32) {
    asker.send("takeback", Value::Null, None).await.unwrap();
    let ev = takeback_event(other).await;
    assert_eq!(
        (&ev["d"]["offer"], &ev["d"]["plies"]),
        (&json!(color), &json!(plies)),
        "{ev}"
    );
}

/// The next `takeback` event whose `key` is set (a player also hears of his own
/// request, first).
async fn takeback_with(c: &mut WsClient, key: &str) -> Value {
    loop {
        let ev = takeback_event(c).await;
        if !ev["d"][key].is_null() {
            return ev;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn takeback_asked_accepted_refused_and_kept_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("test.db");
    let server = start_on(&db, 60_000, 1000.0).await;
    let g = create(
        server.addr,
        json!({ "opponent": "friend", "color": "red", "time": "10+5" }),
    )
    .await;
    let (mut red, mut black) = seat_both(server.addr, &g).await;
    assert_eq!(sync(&mut red).await["d"]["takeback"]["allowed"], true);
    play(
        &mut red,
        &mut black,
        0,
        &["a3a4", "a6a5", "e0e1", "e9e8", "c3c4"],
    )
    .await;

    // c3c4 revealed a piece: refused, with the reason.
    red.send("takeback", Value::Null, None).await.unwrap();
    let e = expect_error(&mut red, "takeback_refused").await;
    assert!(
        e["d"]["message"].as_str().unwrap().contains("revealed"),
        "{e}"
    );

    // Black's king move showed nothing: Black asks, Red accepts.
    play(&mut red, &mut black, 5, &["e8e9"]).await;
    ask(&mut black, &mut red, "black", 1).await;
    red.send("accept_takeback", Value::Null, None)
        .await
        .unwrap();
    for c in [&mut red, &mut black] {
        let ev = takeback_with(c, "taken_back").await;
        assert_eq!(ev["d"]["taken_back"], 1, "{ev}");
        let s = c.recv_until("state", WAIT).await.unwrap();
        assert_eq!(s["d"]["moves"].as_array().unwrap().len(), 5);
        assert_eq!(s["d"]["turn"], "black");
        assert_eq!(s["v"].as_u64(), ev["v"].as_u64().map(|v| v + 1));
    }
    // Black plays on, and Red asks for his king move and Black's reply.
    play(&mut red, &mut black, 5, &["e8e7", "e1e0"]).await;
    black.send("takeback", Value::Null, None).await.unwrap();
    takeback_event(&mut red).await;
    red.send("decline_takeback", Value::Null, None)
        .await
        .unwrap();
    let ev = takeback_with(&mut black, "declined_by").await;
    assert_eq!(ev["d"]["declined_by"], "red");
    black
        .send("accept_takeback", Value::Null, None)
        .await
        .unwrap();
    expect_error(&mut black, "no_takeback").await;
    play(&mut red, &mut black, 7, &["e7e8"]).await;
    ask(&mut red, &mut black, "red", 2).await;
    drop((red, black));
    server.shutdown().await;

    // The request stands after a restart; accepted there, the moves are gone for good.
    let server = start_on(&db, 60_000, 1000.0).await;
    let (mut red, s) = join(server.addr, &g.id, Some(&g.token)).await;
    assert_eq!(s["d"]["takeback"]["offer"], "red", "{s}");
    let (mut black, _) = join(server.addr, &g.id, g.invite.as_deref()).await;
    black
        .send("accept_takeback", Value::Null, None)
        .await
        .unwrap();
    let s = black.recv_until("state", WAIT).await.unwrap();
    assert_eq!(s["d"]["moves"].as_array().unwrap().len(), 6, "{s}");
    assert_eq!(s["d"]["turn"], "red");
    assert_eq!(
        sync(&mut red).await["d"]["moves"].as_array().unwrap().len(),
        6
    );
    drop((red, black));
    server.shutdown().await;
    let server = start_on(&db, 60_000, 1000.0).await;
    let (_, s) = join(server.addr, &g.id, Some(&g.token)).await;
    assert_eq!(s["d"]["moves"].as_array().unwrap().len(), 6);
    assert_eq!(s["d"]["takeback"]["offer"], Value::Null);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_takeback_against_the_engine() {
    let (server, _dir) = start(60_000).await;
    let g = create(server.addr, json!({ "opponent": "engine", "color": "red" })).await;
    let (mut red, s) = join(server.addr, &g.id, Some(&g.token)).await;
    assert_eq!(s["d"]["takeback"]["allowed"], false);
    red.send("takeback", Value::Null, None).await.unwrap();
    expect_error(&mut red, "takeback_refused").await;
    server.shutdown().await;
}
