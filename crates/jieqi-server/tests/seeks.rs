//! Quick pairing through the real server (docs/protocol.md §8): lobby sockets seeking
//! the same tile are paired into one game with opposite colours, rated seeks bind
//! both accounts, one seek goes to one of two simultaneous acceptors, a seek leaves
//! with its connection, and hostile payloads get clear errors.

mod common;

use std::net::SocketAddr;

use common::*;
use jieqi_server::client::{Account, WsClient, http};
use serde_json::{Value, json};

const PASSWORD: &str = "correct horse battery";

/// A lobby socket (with these headers) and its first message, the seek list.
async fn lobby(addr: SocketAddr, headers: &[(String, String)]) -> (WsClient, Vec<Value>) {
    let mut c = WsClient::connect_lobby(addr, headers).await.unwrap();
    let list = c.recv_until("seeks", WAIT).await.unwrap();
    let seeks = list["d"]["seeks"].as_array().unwrap().clone();
    (c, seeks)
}

/// A logged-in player's lobby socket.
async fn lobby_as(addr: SocketAddr, a: &Account) -> WsClient {
    lobby(addr, &[("Cookie".to_string(), a.cookie.clone())])
        .await
        .0
}

async fn seek(c: &mut WsClient, d: Value) {
    c.send("seek", d, None).await.unwrap();
}

/// Both players' `paired` messages: the same game, opposite colours; returns them
/// (first, second).
async fn both_paired(a: &mut WsClient, b: &mut WsClient) -> (Value, Value) {
    let pa = a.recv_until("paired", WAIT).await.unwrap();
    let pb = b.recv_until("paired", WAIT).await.unwrap();
    assert_eq!(pa["d"]["game"], pb["d"]["game"], "{pa} {pb}");
    assert_ne!(pa["d"]["color"], pb["d"]["color"], "{pa} {pb}");
    (pa["d"].clone(), pb["d"].clone())
}

/// The seat token in a `paired` message's seat link.
fn seat_token(p: &Value) -> String {
    let url = p["url"].as_str().unwrap();
    let (path, token) = url.split_once("?seat=").expect("a seat link");
    assert_eq!(path, format!("/game/{}", p["game"].as_str().unwrap()));
    assert_eq!(token.len(), 32);
    token.to_string()
}

async fn summary(addr: SocketAddr, id: &str) -> Value {
    let r = http(addr, "GET", &format!("/api/games/{id}"), None)
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    r.json().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_clients_on_the_same_tile_get_one_game_with_opposite_colours() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    let (mut a, list) = lobby(addr, &[]).await;
    assert!(list.is_empty());
    seek(&mut a, json!({ "time": "3+2" })).await;
    let added = a.recv_until("seek_added", WAIT).await.unwrap();
    let s = &added["d"];
    assert_eq!(
        (
            &s["time"],
            &s["rated"],
            &s["color"],
            &s["category"],
            &s["own"],
            &s["name"]
        ),
        (
            &json!("3+2"),
            &json!(false),
            &json!("random"),
            &json!("blitz"),
            &json!(true),
            &Value::Null
        )
    );
    let id = s["id"].as_str().unwrap().to_string();

    // The second lobby sees the waiting seek, not as its own, and clicks the same tile.
    let (mut b, list) = lobby(addr, &[]).await;
    assert_eq!(list.len(), 1);
    assert_eq!(
        (&list[0]["id"], &list[0]["own"]),
        (&json!(id), &json!(false))
    );
    seek(&mut b, json!({ "time": "3+2" })).await;
    let (pa, pb) = both_paired(&mut a, &mut b).await;
    assert_eq!(pa["seek"], json!(id));
    let (_c, list) = lobby(addr, &[]).await;
    assert!(list.is_empty(), "the paired seek left the list: {list:?}");

    // An ordinary casual game between the two: each seat link plays its colour.
    let game = pa["game"].as_str().unwrap();
    let g = summary(addr, game).await;
    assert_eq!((&g["time"], &g["rated"]), (&json!("3+2"), &json!(false)));
    assert_eq!(g["red"]["kind"], "human");
    assert_eq!(g["black"]["kind"], "human");
    let (_ja, sa) = join(addr, game, Some(&seat_token(&pa))).await;
    let (_jb, sb) = join(addr, game, Some(&seat_token(&pb))).await;
    assert_eq!(sa["d"]["you"], pa["color"]);
    assert_eq!(sb["d"]["you"], pb["color"]);
    assert_eq!(sb["d"]["status"], "live", "both seats joined: {sb}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_seek_pairs_two_accounts_and_binds_them_to_the_game() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    let ann = Account::sign_up(addr, "Ann", PASSWORD).await.unwrap();
    let bob = Account::sign_up(addr, "Bob", PASSWORD).await.unwrap();
    // A guest may not seek rated, nor accept a rated seek.
    let (mut guest, _) = lobby(addr, &[]).await;
    seek(&mut guest, json!({ "time": "5+3", "rated": true })).await;
    expect_error(&mut guest, "login_required").await;

    let mut a = lobby_as(addr, &ann).await;
    seek(
        &mut a,
        json!({ "time": "5+3", "rated": true, "color": "black", "range": 300 }),
    )
    .await;
    let s = guest.recv_until("seek_added", WAIT).await.unwrap();
    assert_eq!(
        (&s["d"]["name"], &s["d"]["rating"], &s["d"]["provisional"]),
        (&json!("Ann"), &json!(1500), &json!(true))
    );
    assert_eq!(
        (&s["d"]["color"], &s["d"]["range"]),
        (&json!("black"), &json!(300))
    );
    let id = s["d"]["id"].as_str().unwrap().to_string();
    guest
        .send("accept", json!({ "id": id }), None)
        .await
        .unwrap();
    expect_error(&mut guest, "login_required").await;
    // Ann cannot take her own seek, not even from another socket.
    let mut a2 = lobby_as(addr, &ann).await;
    a2.send("accept", json!({ "id": id }), None).await.unwrap();
    expect_error(&mut a2, "own_seek").await;

    let mut b = lobby_as(addr, &bob).await;
    b.send("accept", json!({ "id": id }), None).await.unwrap();
    let (pa, pb) = both_paired(&mut a, &mut b).await;
    assert_eq!(
        (&pa["color"], &pb["color"]),
        (&json!("black"), &json!("red"))
    );
    assert_eq!(pa["rated"], true);
    let g = summary(addr, pa["game"].as_str().unwrap()).await;
    assert_eq!(
        (
            &g["rated"],
            &g["category"],
            &g["red"]["name"],
            &g["black"]["name"]
        ),
        (&json!(true), &json!("blitz"), &json!("Bob"), &json!("Ann"))
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_accepting_one_seek_at_once_exactly_one_gets_it() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    for round in 0..5 {
        let (mut owner, _) = lobby(addr, &[]).await;
        let (mut b, _) = lobby(addr, &[]).await;
        let (mut c, _) = lobby(addr, &[]).await;
        seek(&mut owner, json!({ "time": "1+0" })).await;
        let s = b.recv_until("seek_added", WAIT).await.unwrap();
        let id = s["d"]["id"].clone();
        c.recv_until("seek_added", WAIT).await.unwrap();
        let accept = json!({ "t": "accept", "d": { "id": id } }).to_string();
        let (rb, rc) = tokio::join!(b.send_raw(accept.clone()), c.send_raw(accept));
        rb.unwrap();
        rc.unwrap();
        // Each gets either the pairing or `no_seek`; exactly one the pairing.
        let mut outcome = Vec::new();
        for x in [&mut b, &mut c] {
            loop {
                let m = x.recv(WAIT).await.unwrap();
                match m["t"].as_str() {
                    Some("paired") => {
                        outcome.push(Some(m["d"]["game"].clone()));
                        break;
                    }
                    Some("error") => {
                        assert_eq!(m["d"]["code"], "no_seek", "{m}");
                        outcome.push(None);
                        break;
                    }
                    _ => {}
                }
            }
        }
        let winners: Vec<_> = outcome.iter().flatten().collect();
        assert_eq!(winners.len(), 1, "round {round}: {outcome:?}");
        let p = owner.recv_until("paired", WAIT).await.unwrap();
        assert_eq!(&p["d"]["game"], winners[0]);
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seek_leaves_with_its_connection_and_cancel_withdraws_it() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    let (mut watcher, _) = lobby(addr, &[]).await;
    let (mut a, _) = lobby(addr, &[]).await;
    seek(&mut a, json!({ "time": "10+5" })).await;
    let s = watcher.recv_until("seek_added", WAIT).await.unwrap();
    let first = s["d"]["id"].clone();
    seek(&mut a, json!({ "time": "15+10", "move_time": 60 })).await;
    let s = watcher.recv_until("seek_added", WAIT).await.unwrap();
    assert_eq!(
        (&s["d"]["move_time"], &s["d"]["category"]),
        (&json!(60), &json!("rapid"))
    );
    let second = s["d"]["id"].clone();
    // Cancelling: only the owner can; the watcher's try is refused as no such seek.
    watcher
        .send("cancel", json!({ "id": first }), None)
        .await
        .unwrap();
    expect_error(&mut watcher, "no_seek").await;
    a.send("cancel", json!({ "id": first }), None)
        .await
        .unwrap();
    let r = watcher.recv_until("seek_removed", WAIT).await.unwrap();
    assert_eq!(r["d"]["id"], first);
    // Closing the lobby takes the rest along.
    a.close().await;
    let r = watcher.recv_until("seek_removed", WAIT).await.unwrap();
    assert_eq!(r["d"]["id"], second);
    let (_c, list) = lobby(addr, &[]).await;
    assert!(list.is_empty(), "{list:?}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_seek_payloads_get_clear_errors() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    let (mut c, _) = lobby(addr, &[]).await;
    let cases: Vec<(String, &str, &str)> = vec![
        ("garbage".into(), "bad_json", "JSON"),
        (
            r#"{"t":"join","d":{"game":"x"}}"#.into(),
            "unknown_type",
            "join",
        ),
        (r#"{"t":"seek"}"#.into(), "bad_data", "object"),
        (r#"{"t":"seek","d":{}}"#.into(), "bad_data", "time"),
        (
            r#"{"t":"seek","d":{"time":"none"}}"#.into(),
            "bad_data",
            "clock",
        ),
        (
            r#"{"t":"seek","d":{"time":"0+0"}}"#.into(),
            "bad_data",
            "minutes",
        ),
        (
            r#"{"t":"seek","d":{"time":"3+2","move_time":1}}"#.into(),
            "bad_data",
            "move_time",
        ),
        (
            r#"{"t":"seek","d":{"time":"3+2","color":"green"}}"#.into(),
            "bad_data",
            "color",
        ),
        (
            r#"{"t":"seek","d":{"time":"3+2","range":7}}"#.into(),
            "bad_data",
            "range",
        ),
        (
            r#"{"t":"seek","d":{"time":"3+2","range":-1}}"#.into(),
            "bad_data",
            "seek",
        ),
        (
            r#"{"t":"seek","d":{"time":"3+2","rated":"yes"}}"#.into(),
            "bad_data",
            "seek",
        ),
        (
            r#"{"t":"seek","d":{"time":"3+2","range":200}}"#.into(),
            "login_required",
            "log in",
        ),
        (
            r#"{"t":"accept","d":{"id":"s999"}}"#.into(),
            "no_seek",
            "s999",
        ),
        (
            r#"{"t":"accept","d":{"id":["s1"]}}"#.into(),
            "bad_data",
            "accept",
        ),
        (
            format!(r#"{{"t":"cancel","d":{{"id":"{}"}}}}"#, "y".repeat(3000)),
            "no_seek",
            "yyyy",
        ),
        (
            format!(r#"{{"t":"seek","d":{{"time":"{}"}}}}"#, "9".repeat(5000)),
            "too_large",
            "4096",
        ),
    ];
    for (text, code, says) in &cases {
        c.send_raw(text.clone()).await.unwrap();
        let e = c.recv_until("error", WAIT).await.unwrap();
        assert_eq!(e["d"]["code"], *code, "{text:.80}: {e}");
        let message = e["d"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{text:.80}: {message}");
        assert!(message.len() < 300, "a short message: {message}");
    }
    // The per-player limit: three seeks wait, the fourth is refused.
    for time in ["1+0", "3+0", "5+0"] {
        seek(&mut c, json!({ "time": time })).await;
        c.recv_until("seek_added", WAIT).await.unwrap();
    }
    seek(&mut c, json!({ "time": "10+0" })).await;
    expect_error(&mut c, "too_many_seeks").await;
    // Own seek: refused.
    let (_w, list) = lobby(addr, &[]).await;
    c.send("accept", json!({ "id": list[0]["id"] }), None)
        .await
        .unwrap();
    expect_error(&mut c, "own_seek").await;
    // Seeks and cancels change every lobby's list: they have a rate of their own.
    let mut limited = 0;
    for _ in 0..15 {
        c.send("cancel", json!({ "id": "s999" }), None)
            .await
            .unwrap();
        let e = c.recv_until("error", WAIT).await.unwrap();
        if e["d"]["code"] == "rate_limited" {
            limited += 1;
        } else {
            assert_eq!(e["d"]["code"], "no_seek", "{e}");
        }
    }
    assert!(limited > 0, "15 cancels at once are too many");
    // The connection still works after all that.
    c.send("ping", json!({ "ts": 5 }), None).await.unwrap();
    let p = c.recv_until("pong", WAIT).await.unwrap();
    assert_eq!(p["d"]["ts"], 5);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_of_another_site_cannot_open_the_lobby() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    let foreign = [("Origin".to_string(), "http://evil.example".to_string())];
    let e = WsClient::connect_lobby(addr, &foreign)
        .await
        .err()
        .expect("refused");
    assert!(e.to_string().contains("403"), "{e}");
    let own = [("Origin".to_string(), format!("http://{addr}"))];
    let (_c, list) = lobby(addr, &own).await;
    assert!(list.is_empty());
    server.shutdown().await;
}
