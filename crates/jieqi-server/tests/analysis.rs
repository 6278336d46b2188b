//! The analysis board's server side (docs/protocol.md §9): lines streamed for a FEN,
//! hostile requests refused, the hidden-information rules of a live game's analysis,
//! and "analyse this game" stored once.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::*;
use futures_util::{SinkExt, StreamExt};
use jieqi_core::START_FEN;
use jieqi_server::client::{WsClient, http};
use jieqi_server::{EngineKind, Server};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn connect(addr: SocketAddr) -> Socket {
    tokio_tungstenite::connect_async(format!("ws://{addr}/ws/analysis"))
        .await
        .unwrap()
        .0
}

async fn send(ws: &mut Socket, t: &str, d: Value) {
    let text = json!({ "t": t, "d": d }).to_string();
    ws.send(Message::Text(text.into())).await.unwrap();
}

/// The longest wait for the engine's next message: a depth-3 search with the net
/// evaluation takes well over `WAIT` when the whole suite shares two busy cores. A
/// bound against a hang, never a speed assertion.
const ENGINE_WAIT: Duration = Duration::from_secs(60);

async fn recv(ws: &mut Socket) -> Value {
    loop {
        let m = tokio::time::timeout(ENGINE_WAIT, ws.next())
            .await
            .expect("an answer in time")
            .unwrap()
            .unwrap();
        if let Message::Text(t) = m {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

async fn recv_until(ws: &mut Socket, t: &str) -> Value {
    loop {
        let m = recv(ws).await;
        if m["t"] == t {
            return m;
        }
    }
}

async fn server(engine: EngineKind) -> (Server, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(config(&dir.path().join("t.db"), engine))
        .await
        .unwrap();
    (s, dir)
}

/// A FEN and a revealing move give the position, its legal moves, then MultiPV lines
/// with depth, score and WDL, then `done`; bad FENs, illegal moves, oversize and
/// unknown requests get an error code and leave the socket open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analysis_stream_gives_lines_for_a_fen() {
    let (server, _dir) = server(EngineKind::Search).await;
    let mut ws = connect(server.addr).await;
    send(
        &mut ws,
        "analyse",
        json!({"n": 1, "fen": START_FEN, "moves": ["h2e2C"], "multipv": 2, "depth": 3}),
    )
    .await;
    let pos = recv_until(&mut ws, "position").await;
    assert_eq!(pos["d"]["n"], 1);
    assert_eq!(pos["d"]["turn"], "black");
    assert!(
        pos["d"]["fen"].as_str().unwrap().contains("/1X2C4/"),
        "{pos}"
    );
    assert_eq!(pos["d"]["pool"]["red"]["C"], 1, "{pos}");
    assert!(!pos["d"]["legal"].as_array().unwrap().is_empty());
    let mut lines = Vec::new();
    let done = loop {
        let m = recv(&mut ws).await;
        match m["t"].as_str() {
            Some("line") => lines.push(m),
            Some("done") => break m,
            _ => panic!("unexpected {m}"),
        }
    };
    // Depth 3 unless the search hit its time cap (MAX_TIME) first, as on a machine
    // busy with the whole suite: `done` names the depth the lines reached.
    let reached = done["d"]["depth"].as_u64().unwrap_or(0);
    assert!((1..=3).contains(&reached), "{done}");
    assert!(lines.iter().any(|l| l["d"]["multipv"] == 2), "{lines:?}");
    let last = lines.iter().rev().find(|l| l["d"]["multipv"] == 1).unwrap();
    assert_eq!(last["d"]["depth"], reached);
    assert!(last["d"]["score"]["cp"].is_i64() || last["d"]["score"]["mate"].is_i64());
    assert_eq!(last["d"]["wdl"].as_array().unwrap().len(), 3);
    let first = last["d"]["pv"][0].as_str().unwrap();
    assert!(
        pos["d"]["legal"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m == first)
    );

    for (d, code) in [
        (json!({"n": 2, "fen": "not a fen"}), "bad_fen"),
        (
            json!({"n": 3, "fen": START_FEN, "moves": ["a0a9"]}),
            "illegal_move",
        ),
        (
            json!({"n": 4, "fen": START_FEN, "moves": ["h2e2K"]}),
            "illegal_move",
        ),
        (
            json!({"n": 5, "fen": START_FEN, "multipv": 50}),
            "bad_limit",
        ),
        (json!({"n": 6, "fen": "x".repeat(5000)}), "too_big"),
    ] {
        send(&mut ws, "analyse", d).await;
        let e = recv_until(&mut ws, "error").await;
        assert_eq!(e["d"]["code"], code, "{e}");
    }
    send(&mut ws, "launch", json!({})).await;
    assert_eq!(
        recv_until(&mut ws, "error").await["d"]["code"],
        "unknown_type"
    );
    ws.send(Message::Text("{{{".into())).await.unwrap();
    assert_eq!(recv_until(&mut ws, "error").await["d"]["code"], "bad_json");
    // Over the size limit: closed with 1009, the server goes on.
    ws.send(Message::Text("x".repeat(40_000).into()))
        .await
        .unwrap();
    let closed = tokio::time::timeout(WAIT, async {
        loop {
            match ws.next().await {
                Some(Ok(Message::Close(f))) => return f.map(|f| u16::from(f.code)),
                Some(Ok(_)) => continue,
                _ => return None,
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(closed, Some(1009));

    // One analysis per address at a time: a second session is told the engine is busy
    // until the first stops.
    let mut a = connect(server.addr).await;
    let mut b = connect(server.addr).await;
    send(&mut a, "analyse", json!({"n": 1, "fen": START_FEN})).await;
    recv_until(&mut a, "line").await;
    send(
        &mut b,
        "analyse",
        json!({"n": 1, "fen": START_FEN, "depth": 2}),
    )
    .await;
    let e = recv_until(&mut b, "error").await;
    assert_eq!(e["d"]["code"], "busy", "{e}");
    send(&mut a, "stop", Value::Null).await;
    recv_until(&mut a, "done").await;
    send(
        &mut b,
        "analyse",
        json!({"n": 2, "fen": START_FEN, "depth": 2}),
    )
    .await;
    assert_eq!(recv_until(&mut b, "done").await["d"]["n"], 2);
    server.shutdown().await;
}

fn face_down(fen: &str, black: bool) -> usize {
    let board = fen.split(' ').next().unwrap();
    board
        .chars()
        .filter(|&c| c == if black { 'x' } else { 'X' })
        .count()
}

/// In a live game a player's analysis starts from his own view and anyone else's from
/// the public view: the opponent's face-down pieces stay `x`, and what only the
/// capturer learnt is not in the spectator's FEN. The engine is given that FEN.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_game_analysis_sees_only_the_viewers_knowledge() {
    let (server, _dir) = server(EngineKind::Greedy).await;
    let addr = server.addr;
    let g = create(
        addr,
        json!({"opponent": "friend", "color": "red", "time": "none"}),
    )
    .await;
    let (mut red, _black) = seat_both(addr, &g).await;
    // Red's face-down cannon takes Black's face-down piece on b9: Red learns what it was.
    red.send("move", json!({"uci": "b2b9"}), None)
        .await
        .unwrap();
    move_event(&mut red, 1).await;
    let get = |q: String| async move { http(addr, "GET", &q, None).await.unwrap() };
    let start = |seat: Option<&str>| {
        let seat = seat.map(|s| format!("&seat={s}")).unwrap_or_default();
        format!("/api/analysis/start?game={}{seat}", g.id)
    };
    let mine = get(start(Some(&g.token))).await.json().unwrap();
    assert_eq!(mine["viewer"], "red");
    assert_eq!(mine["ply"], 1);
    let public = get(start(None)).await.json().unwrap();
    assert_eq!(public["viewer"], "spectator");
    let forged = get(start(Some("0123456789abcdef0123456789abcdef")))
        .await
        .json()
        .unwrap();
    assert_eq!(
        forged["viewer"], "spectator",
        "a wrong token is a spectator"
    );
    let (mine, public) = (
        mine["fen"].as_str().unwrap(),
        public["fen"].as_str().unwrap(),
    );
    for fen in [mine, public] {
        assert_eq!(
            face_down(fen, true),
            14,
            "Black's unmoved pieces are x: {fen}"
        );
    }
    assert_ne!(mine, public, "only Red knows the captured identity");
    assert!(
        public.ends_with(" - 0 1") || public.split(' ').nth(3) == Some("-"),
        "{public}"
    );
    // The engine analyses exactly the viewer's FEN.
    let mut ws = connect(addr).await;
    send(&mut ws, "analyse", json!({"n": 1, "fen": mine, "depth": 2})).await;
    let pos = recv_until(&mut ws, "position").await;
    assert_eq!(pos["d"]["fen"], mine);
    recv_until(&mut ws, "line").await;
    // A ply past the end, a bad id: refused.
    assert_eq!(
        get(format!("/api/analysis/start?game={}&ply=9", g.id))
            .await
            .status,
        409
    );
    assert_eq!(
        get("/api/analysis/start?game=..%2Fx".into()).await.status,
        404
    );
    server.shutdown().await;
}

/// A live game followed by the analysis board (docs/web.md, "Analysis board"): the
/// board takes the game's moves from the game socket, joined as the seat's player or
/// as a spectator, and sends them to `/ws/analysis` as its main line. Each follower's
/// moves carry only what it may know — no captured face-down identity the rules keep
/// from it, in any message of the game — and replayed on the analysis socket they give
/// exactly the position `/api/analysis/start` gives that viewer, after every move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_followed_live_game_never_tells_a_follower_more_than_his_view() {
    let (server, _dir) = server(EngineKind::Greedy).await;
    let addr = server.addr;
    let g = create(
        addr,
        json!({"opponent": "friend", "color": "red", "time": "none"}),
    )
    .await;
    let (mut red, mut black) = seat_both(addr, &g).await;
    let black_token = g.invite.clone().expect("the friend's seat");
    // The followers: a spectator, and each player's analysis tab (a second connection
    // with the seat's token).
    let (mut spectator, s0) = join(addr, &g.id, None).await;
    let (mut red_tab, r0) = join(addr, &g.id, Some(&g.token)).await;
    let (mut black_tab, b0) = join(addr, &g.id, Some(&black_token)).await;
    assert_eq!(s0["d"]["you"], "spectator");
    assert_eq!(
        (&r0["d"]["you"], &b0["d"]["you"]),
        (&json!("red"), &json!("black"))
    );
    let start_fen = s0["d"]["start_fen"].as_str().unwrap().to_string();

    // Red's face-down cannon takes Black's face-down piece on b9 (Red learns what it
    // was), then Black's face-down cannon takes Red's on h0 (Black learns).
    let mut seen: Vec<Vec<Value>> = vec![Vec::new(); 3];
    // One analysis socket (one analysis per address at a time: a new request ends the
    // previous one on the same socket).
    let mut ws = connect(addr).await;
    let mut request = 0;
    for (n, uci) in [(1u64, "b2b9"), (2, "h7h0")] {
        let mover = if n == 1 { &mut red } else { &mut black };
        mover
            .send("move", json!({ "uci": uci }), None)
            .await
            .unwrap();
        for (i, follower) in [&mut spectator, &mut red_tab, &mut black_tab]
            .into_iter()
            .enumerate()
        {
            let ev = move_event(follower, n).await;
            seen[i].push(ev["d"].clone());
        }
        // After every move, each follower's line replayed on the analysis socket is
        // the viewer's position, as the API tells it to that viewer.
        for (i, seat) in [None, Some(g.token.as_str()), Some(black_token.as_str())]
            .into_iter()
            .enumerate()
        {
            let q = seat.map(|s| format!("&seat={s}")).unwrap_or_default();
            let start = http(
                addr,
                "GET",
                &format!("/api/analysis/start?game={}{q}", g.id),
                None,
            )
            .await
            .unwrap()
            .json()
            .unwrap();
            assert_eq!(start["ply"], n);
            let moves: Vec<&str> = seen[i]
                .iter()
                .map(|d| d["ply"]["uci"].as_str().unwrap())
                .collect();
            request += 1;
            send(
                &mut ws,
                "analyse",
                json!({"n": request, "fen": start_fen, "moves": moves, "depth": 1}),
            )
            .await;
            let pos = loop {
                let m = recv_until(&mut ws, "position").await;
                if m["d"]["n"] == request {
                    break m;
                }
            };
            assert_eq!(pos["d"]["fen"], start["fen"], "follower {i} after ply {n}");
            assert_eq!(pos["d"]["fen"], seen[i].last().unwrap()["fen"]);
        }
    }
    let taken = |i: usize, n: usize| seen[i][n]["ply"]["captured"].as_str().unwrap().to_string();
    // What each capture took, as its capturer learnt it.
    let (took_black, took_red) = (taken(1, 0), taken(2, 1));
    assert!(took_black.chars().all(|c| c.is_ascii_lowercase()) && took_black != "x");
    assert!(took_red.chars().all(|c| c.is_ascii_uppercase()) && took_red != "X");
    // The spectator learns neither, the victim not what he lost.
    assert_eq!((taken(0, 0), taken(0, 1)), ("x".into(), "X".into()));
    assert_eq!(taken(2, 0), "x", "Black is not told what Red took");
    assert_eq!(taken(1, 1), "X", "Red is not told what Black took");
    for (i, plies) in seen.iter().enumerate() {
        for (n, d) in plies.iter().enumerate() {
            let knows = (i == 1 && n == 0) || (i == 2 && n == 1);
            let uci = d["ply"]["uci"].as_str().unwrap();
            // b2b9C / h7h0c: the mover's reveal; a 6th letter only for the capturer.
            assert_eq!(uci.len(), if knows { 6 } else { 5 }, "follower {i}: {uci}");
            if !knows {
                assert!(d["ply"]["zh"].as_str().unwrap().ends_with("吃暗"), "{d}");
            }
        }
        if i == 0 {
            let known = &plies[1]["pools"]["known_captured"];
            assert_eq!(known, &json!({"red": {}, "black": {}}), "spectator");
        }
    }
    // And nothing about them in a resync either.
    let s = sync(&mut spectator).await;
    assert!(s["d"]["end"].is_null(), "no deal while the game runs");
    let moves = s["d"]["moves"].as_array().unwrap();
    assert_eq!(
        (moves[0]["captured"].as_str(), moves[1]["captured"].as_str()),
        (Some("x"), Some("X"))
    );
    server.shutdown().await;
}

/// A player's analysis board follows his own game with `watch`: it gets the seat's
/// view, but it is not the seat's presence. When he closes the game itself, his seat
/// shows as away and the opponent may claim the abandonment, however long the
/// analysis tab stays open; the tab cannot act for the seat either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watching_analysis_tab_is_not_its_seats_presence() {
    let (server, _dir) = start(400).await;
    let addr = server.addr;
    let g = create(
        addr,
        json!({"opponent": "friend", "color": "red", "time": "10+0"}),
    )
    .await;
    let (mut red, mut black) = seat_both(addr, &g).await;
    first_moves(&mut red, &mut black).await;
    let black_token = g.invite.clone().expect("the friend's seat");
    let mut tab = WsClient::connect(addr).await.unwrap();
    tab.send(
        "join",
        json!({ "game": g.id, "token": black_token, "watch": true }),
        None,
    )
    .await
    .unwrap();
    let s = tab.recv_until("state", WAIT).await.unwrap();
    assert_eq!(s["d"]["you"], "black", "the seat's view: {s}");
    assert_eq!(s["d"]["moves"].as_array().unwrap().len(), 2);
    // It follows the game as Black sees it.
    let m = sync(&mut red).await["d"]["legal"][0]
        .as_str()
        .unwrap()
        .to_string();
    red.send("move", json!({ "uci": m }), None).await.unwrap();
    let ev = move_event(&mut tab, 3).await;
    assert!(ev["d"]["legal"].as_array().is_some_and(|l| !l.is_empty()));
    // But it cannot play for Black.
    let legal = ev["d"]["legal"][0].as_str().unwrap().to_string();
    tab.send("move", json!({ "uci": legal }), None)
        .await
        .unwrap();
    expect_error(&mut tab, "not_a_player").await;
    // Black closes the game; only the analysis tab stays.
    black.close().await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    let s = sync(&mut red).await;
    assert_eq!(s["d"]["players"]["black"]["connected"], false, "{s}");
    red.send("claim_abandonment", Value::Null, None)
        .await
        .unwrap();
    let end = red.recv_until("end", WAIT).await.unwrap();
    assert_eq!(
        (&end["d"]["reason"], &end["d"]["winner"]),
        (&json!("abandonment"), &json!("red"))
    );
    // The tab hears the end too.
    tab.recv_until("end", WAIT).await.unwrap();
    server.shutdown().await;
}

/// "Analyse this game": refused while the game runs; once it is over it runs on the
/// server with progress, gives one score per position (each FEN the mover's view) and
/// the swings, and is stored: asking again answers at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analyse_this_game_completes_with_per_ply_scores() {
    let (server, _dir) = server(EngineKind::Search).await;
    let addr = server.addr;
    let g = create(
        addr,
        json!({"opponent": "friend", "color": "red", "time": "none"}),
    )
    .await;
    let (mut red, mut black) = seat_both(addr, &g).await;
    let post = |path: String| async move { http(addr, "POST", &path, None).await.unwrap() };
    let path = format!("/api/games/{}/analysis", g.id);
    assert_eq!(post(path.clone()).await.status, 409, "not finished");
    first_moves(&mut red, &mut black).await;
    red.send("resign", Value::Null, None).await.unwrap();
    red.recv_until("end", WAIT).await.unwrap();
    let r = post(path.clone()).await;
    assert!(r.status == 202 || r.status == 200, "{}", r.status);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let result = loop {
        let v = http(addr, "GET", &path, None)
            .await
            .unwrap()
            .json()
            .unwrap();
        if v["state"] == "done" {
            break v;
        }
        assert_eq!(v["state"], "running", "{v}");
        assert_eq!(v["total"], 3);
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let plies = result["analysis"]["plies"].as_array().unwrap();
    assert_eq!(plies.len(), 3, "{result}");
    for (n, p) in plies.iter().enumerate() {
        assert_eq!(p["ply"], n);
        assert!(p["red_cp"].is_i64());
        let fen = p["fen"].as_str().unwrap();
        assert!(
            face_down(fen, true) >= 14 && face_down(fen, false) >= 14,
            "{fen}"
        );
    }
    assert!(result["analysis"]["swings"].is_array());
    let again = post(path.clone()).await;
    assert_eq!(again.status, 200);
    assert_eq!(again.json().unwrap(), result, "computed once, stored");
    server.shutdown().await;
}
