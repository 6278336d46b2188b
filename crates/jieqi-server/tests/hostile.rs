//! Hostile clients: garbage, oversized and binary frames, moves out of turn, illegal
//! moves, foreign tokens, spectators acting as players, flooding. Each gets an error
//! (or is disconnected) and the game is untouched.

mod common;

use std::time::Duration;

use common::*;
use jieqi_server::client::WsClient;
use serde_json::{Value, json};

/// The parts of a state that must not change.
fn essence(s: &Value) -> Value {
    json!({
        "v": s["v"],
        "fen": s["d"]["fen"],
        "moves": s["d"]["moves"],
        "status": s["d"]["status"],
        "draw_offer": s["d"]["draw_offer"],
        "end": s["d"]["end"],
    })
}

crate::on_both_stores!(hostile_messages_get_errors_and_change_nothing);

async fn hostile_messages_get_errors_and_change_nothing(db: Db) {
    let server = start_on(&db.path(), 60_000, 20.0).await;
    let addr = server.addr;
    let a = create(
        addr,
        json!({"opponent": "friend", "color": "red", "time": "5+0"}),
    )
    .await;
    let b = create(
        addr,
        json!({"opponent": "friend", "color": "red", "time": "none"}),
    )
    .await;
    let (mut red, _) = join(addr, &a.id, Some(&a.token)).await;
    let (mut black, _) = join(addr, &a.id, a.invite.as_deref()).await;
    red.recv_until("state", WAIT).await.unwrap();
    let before = sync(&mut red).await;
    assert_eq!(before["d"]["status"], "live");

    let mut h = WsClient::connect(addr).await.unwrap();
    h.send_raw("garbage".into()).await.unwrap();
    expect_error(&mut h, "bad_json").await;
    h.send_raw("{\"t\": 5}".into()).await.unwrap();
    expect_error(&mut h, "bad_json").await;
    h.send_binary(vec![0, 1, 2]).await.unwrap();
    expect_error(&mut h, "bad_json").await;
    h.send_raw(format!(
        "{{\"t\":\"ping\",\"d\":{{\"x\":\"{}\"}}}}",
        "a".repeat(5000)
    ))
    .await
    .unwrap();
    expect_error(&mut h, "too_large").await;
    h.send("teleport", Value::Null, None).await.unwrap();
    expect_error(&mut h, "unknown_type").await;
    h.send("move", json!({"uci": "h2e2"}), None).await.unwrap();
    expect_error(&mut h, "not_joined").await;
    h.send("move", json!({"uci": 12}), None).await.unwrap();
    expect_error(&mut h, "bad_data").await;
    // Another game's token, a made-up token, a made-up game.
    h.send("join", json!({"game": a.id, "token": b.token}), None)
        .await
        .unwrap();
    expect_error(&mut h, "bad_token").await;
    h.send(
        "join",
        json!({"game": a.id, "token": "00".repeat(16)}),
        None,
    )
    .await
    .unwrap();
    expect_error(&mut h, "bad_token").await;
    h.send("join", json!({"game": "zzzzzzzzzz"}), None)
        .await
        .unwrap();
    expect_error(&mut h, "no_game").await;
    h.send("join", json!({"game": "../../etc"}), None)
        .await
        .unwrap();
    expect_error(&mut h, "no_game").await;
    // As a spectator it may watch but not act.
    h.send("join", json!({"game": a.id}), None).await.unwrap();
    h.recv_until("state", WAIT).await.unwrap();
    for t in [
        "resign",
        "offer_draw",
        "accept_draw",
        "rematch",
        "claim_abandonment",
    ] {
        h.send(t, Value::Null, None).await.unwrap();
        expect_error(&mut h, "not_a_player").await;
    }
    h.send("move", json!({"uci": "h2e2"}), None).await.unwrap();
    expect_error(&mut h, "not_a_player").await;
    h.send("join", json!({"game": a.id, "token": a.token}), None)
        .await
        .unwrap();
    expect_error(&mut h, "already_joined").await;

    // The players' own mistakes.
    black
        .send("move", json!({"uci": "h7e7"}), None)
        .await
        .unwrap();
    expect_error(&mut black, "not_your_turn").await;
    red.send("move", json!({"uci": "a0a5"}), None)
        .await
        .unwrap();
    expect_error(&mut red, "illegal_move").await;
    red.send("move", json!({"uci": "z9z9"}), None)
        .await
        .unwrap();
    expect_error(&mut red, "bad_move").await;
    red.send(
        "move",
        json!({"uci": "h2e2"}),
        Some(before["v"].as_u64().unwrap() + 7),
    )
    .await
    .unwrap();
    expect_error(&mut red, "stale_version").await;
    // Before both first moves only an abort ends the game.
    red.send("accept_draw", Value::Null, None).await.unwrap();
    expect_error(&mut red, "abort_only").await;
    red.send("decline_draw", Value::Null, None).await.unwrap();
    expect_error(&mut red, "no_draw_offer").await;
    red.send("rematch", Value::Null, None).await.unwrap();
    expect_error(&mut red, "not_over").await;
    red.send("claim_abandonment", Value::Null, None)
        .await
        .unwrap();
    expect_error(&mut red, "abort_only").await;
    red.send("resign", Value::Null, None).await.unwrap();
    expect_error(&mut red, "abort_only").await;

    // Flooding: past the burst the messages are refused, then the socket is closed.
    let mut f = WsClient::connect(addr).await.unwrap();
    f.send("join", json!({"game": a.id}), None).await.unwrap();
    f.keep_log = true;
    let mut sent = 0;
    for i in 0..400 {
        if f.send("ping", json!({"ts": i}), None).await.is_err() {
            break;
        }
        sent += 1;
    }
    let mut limited = 0;
    let closed = loop {
        match f.recv(Duration::from_secs(5)).await {
            Ok(m) => {
                if m["d"]["code"] == "rate_limited" {
                    limited += 1;
                }
            }
            Err(_) => break true,
        }
    };
    assert!(
        sent > 200 && limited > 100 && closed,
        "sent {sent}, limited {limited}"
    );

    // A frame beyond the hard limit (64 KiB), or a message of smaller frames beyond
    // it, closes that connection only, with close code 1009 (message too big): here a
    // second connection of Red's, so that Red's first one, and the game, carry on.
    for (size, part) in [
        (64 * 1024 + 1, 0),
        (100_000, 0),
        (1 << 20, 0),
        (100_000, 8192),
    ] {
        let (mut big, _) = join(addr, &a.id, Some(&a.token)).await;
        let text = "x".repeat(size);
        let _ = if part == 0 {
            big.send_raw(text).await
        } else {
            big.send_fragmented(&text, part).await
        };
        let e = loop {
            match big.recv(Duration::from_secs(5)).await {
                Ok(_) => continue,
                Err(e) => break e,
            }
        };
        assert_eq!(
            e.close_code(),
            Some(1009),
            "{size} bytes, frames of {part} (0: one frame): {e}"
        );
    }

    // Nothing changed for the game, and nobody else heard of any of it.
    let after = sync(&mut red).await;
    assert_eq!(essence(&before), essence(&after));
    let after_black = sync(&mut black).await;
    assert_eq!(after_black["d"]["fen"], before["d"]["fen"]);
    assert!(
        black
            .log
            .iter()
            .all(|m| m["t"] != "error" || m["d"]["in"] == "move"),
        "black heard of others' errors"
    );

    // The game still plays. Suffix letters are ignored: a guessed identity is neither
    // confirmed nor denied.
    red.send("move", json!({"uci": "e3e4R"}), None)
        .await
        .unwrap();
    let ev = move_event(&mut red, 1).await;
    assert_eq!(ev["d"]["ply"]["from"], "e3");
    assert!(ev["d"]["ply"]["reveal"].is_string());
    // Black's reply: any legal move of a face-down piece (Red's reveal may be a cannon
    // checking down the e-file, so a fixed move could be illegal), with a suffix guess.
    let s = sync(&mut black).await;
    let mv = s["d"]["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .find(|m| !m.starts_with("e9"))
        .expect("a face-down piece can move")
        .to_string();
    black
        .send("move", json!({"uci": format!("{mv}N")}), None)
        .await
        .unwrap();
    move_event(&mut black, 2).await;
    server.shutdown().await;
}
