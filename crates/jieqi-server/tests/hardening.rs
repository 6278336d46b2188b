//! The hardening of issue 17, each item tested over real HTTP, WebSockets and TCP:
//! what an attacker (or an organiser's mistake) could do before, and cannot now.

mod common;

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use common::*;
use jieqi_server::client::http;
use jieqi_server::{Config, Limits, Server};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A test server's configuration with the greedy engine.
fn greedy(db: &Path) -> Config {
    config(db, jieqi_server::EngineKind::Greedy)
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
    ok(
        addr,
        "POST",
        &format!("/api/tournaments/{id}/start"),
        json!({"token": org}),
    )
    .await;
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
    let server = Server::start(greedy(&dir.path().join("t.db")))
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

/// Item 2: a joint deal mixes in the server's own seed, committed before the players
/// contribute, and a guessable contribution is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn joint_deals_mix_in_a_committed_server_seed_and_refuse_weak_secrets() {
    use sha2::{Digest, Sha256};
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(greedy(&dir.path().join("t.db")))
        .await
        .unwrap();
    let addr = server.addr;
    let (id, _, tokens) = started_event(addr, "joint", 2).await;
    let (_, v) = call(addr, "GET", &format!("/api/tournaments/{id}"), None).await;
    let d = v["rounds"][0]["boards"][0]["deal"].as_u64().unwrap() as usize;
    let server_commitment = v["deals"][d]["server_commitment"]
        .as_str()
        .unwrap_or_else(|| panic!("the server seed is committed before anyone contributes: {v}"))
        .to_string();
    assert_eq!(v["deals"][d]["server_seed"], Value::Null, "{v}");
    let path = format!("/api/tournaments/{id}/contribute");
    // A 4-digit secret (the attack: 8 plies were enough to search it), a repeated
    // letter, a word: refused, and nothing recorded.
    for weak in ["4711", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "password"] {
        let (status, e) = call(
            addr,
            "POST",
            &path,
            Some(json!({"token": tokens[0], "round": 1, "board": 1, "secret": weak})),
        )
        .await;
        assert_eq!(
            (status, e["error"]["code"].as_str()),
            (400, Some("bad_request")),
            "{weak}: {e}"
        );
        assert!(
            e["error"]["message"]
                .as_str()
                .unwrap()
                .contains("guessable"),
            "{e}"
        );
    }
    let secrets = [
        "4f1c9e2a7b3d8c6e0a5f2b9d7c1e3a8f",
        "9b2e7d4c1a8f6e3b0d5c2a9f7e4b1d8c",
    ];
    for (tok, secret) in tokens.iter().zip(secrets) {
        ok(
            addr,
            "POST",
            &path,
            json!({"token": tok, "round": 1, "board": 1, "secret": secret}),
        )
        .await;
    }
    let (game, seat) = seat_of(addr, &id, &tokens[0]).await;
    let (mut me, _) = join(addr, &game, Some(&seat)).await;
    let (_, other) = seat_of(addr, &id, &tokens[1]).await;
    let (_them, _) = join(addr, &game, Some(&other)).await;
    me.send("resign", Value::Null, None).await.unwrap();
    me.recv_until("end", WAIT).await.unwrap();
    let mut published = Value::Null;
    for _ in 0..200 {
        let (_, v) = call(addr, "GET", &format!("/api/tournaments/{id}"), None).await;
        if v["deals"][d]["published"] == true {
            published = v["deals"][d].clone();
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(published["verifies"], true, "{published}");
    let seed = published["server_seed"].as_str().unwrap();
    let hex: String = Sha256::digest(seed.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(server_commitment, format!("sha256:{hex}"));
    // Player 0 may play either colour: the deal is seed, Red's, Black's.
    let deal = published["deal"].as_str().unwrap();
    let joint = |a: &str, b: &str| {
        jieqi_core::Deal::joint(&[seed.as_bytes(), a.as_bytes(), b.as_bytes()]).to_string()
    };
    assert!(
        deal == joint(secrets[0], secrets[1]) || deal == joint(secrets[1], secrets[0]),
        "the deal is the seed and both contributions"
    );
    let without_seed = jieqi_core::Deal::joint(&[secrets[0].as_bytes(), secrets[1].as_bytes()]);
    assert_ne!(deal, without_seed.to_string());
    server.shutdown().await;
}

/// Item 5: an agreed rematch still starts after a restart: the players' new seat
/// links come back with the old game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rematch_seat_links_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let server = Server::start(greedy(&db)).await.unwrap();
    let addr = server.addr;
    let g = create(
        addr,
        json!({"opponent": "friend", "color": "red", "time": "none"}),
    )
    .await;
    let (mut red, mut black) = seat_both(addr, &g).await;
    first_moves(&mut red, &mut black).await;
    red.send("resign", Value::Null, None).await.unwrap();
    black.recv_until("end", WAIT).await.unwrap();
    red.send("rematch", Value::Null, None).await.unwrap();
    black.recv_until("rematch", WAIT).await.unwrap();
    black.send("rematch", Value::Null, None).await.unwrap();
    let before = loop {
        let r = red.recv_until("rematch", WAIT).await.unwrap();
        if !r["d"]["game"].is_null() {
            break r["d"]["url"].as_str().unwrap().to_string();
        }
    };
    assert!(before.contains("?seat="), "{before}");
    red.close().await;
    black.close().await;
    server.shutdown().await;

    let server = Server::start(greedy(&db)).await.unwrap();
    let (_, s) = join(server.addr, &g.id, Some(&g.token)).await;
    assert_eq!(s["d"]["rematch"]["url"], before.as_str(), "{s}");
    // And the link plays: it is Black's seat of the rematch, colours swapped.
    let (game, seat) = before
        .strip_prefix("/game/")
        .unwrap()
        .split_once("?seat=")
        .unwrap();
    let (_, s) = join(server.addr, game, Some(seat)).await;
    assert_eq!(s["d"]["you"], "black", "{s}");
    server.shutdown().await;
}

/// Item 6: names that a spreadsheet would run as formulas are exported as text, and a
/// JSON array is not an object.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn csv_cells_are_not_formulas_and_arrays_are_not_objects() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(greedy(&dir.path().join("t.db")))
        .await
        .unwrap();
    let addr = server.addr;
    let c = ok(addr, "POST", "/api/tournaments", json!({"name": "csv"})).await;
    let id = c["id"].as_str().unwrap();
    let evil = r#"=HYPERLINK("http://e.vil","x")"#;
    for name in [evil, "+cmd", "-2+3", "@SUM(A1)", "plain"] {
        ok(
            addr,
            "POST",
            &format!("/api/tournaments/{id}/join"),
            json!({"name": name}),
        )
        .await;
    }
    ok(
        addr,
        "POST",
        &format!("/api/tournaments/{id}/start"),
        json!({"token": c["organiser_token"]}),
    )
    .await;
    for format in ["csv", "games-csv"] {
        let r = http(
            addr,
            "GET",
            &format!("/api/tournaments/{id}/export?format={format}"),
            None,
        )
        .await
        .unwrap();
        let text = String::from_utf8_lossy(&r.body).into_owned();
        for line in text.lines().skip(1) {
            for cell in line.split(',') {
                let cell = cell.trim_start_matches('"');
                assert!(
                    !cell.starts_with(['=', '+', '@']) && !cell.starts_with("-2"),
                    "{format}: a formula cell {cell:?} in {line:?}"
                );
            }
        }
        assert!(text.contains("'=HYPERLINK"), "{format}: {text}");
    }

    // `[]` (and other non-objects) where an object is expected: 400, nothing created.
    let g = create(addr, json!({"opponent": "friend"})).await;
    for (path, body) in [
        ("/api/games".to_string(), "[]"),
        ("/api/games".to_string(), "[\"engine\"]"),
        ("/api/games".to_string(), "null"),
        (format!("/api/games/{}/join", g.id), "[]"),
        ("/api/tournaments".to_string(), "[\"x\"]"),
        (format!("/api/tournaments/{id}/join"), "[\"late\"]"),
        (format!("/api/tournaments/{id}/result"), "[]"),
    ] {
        let r = http(addr, "POST", &path, Some(body)).await.unwrap();
        let v = r.json().unwrap_or(Value::Null);
        assert_eq!(
            (r.status, v["error"]["code"].as_str()),
            (400, Some("bad_request")),
            "{path} {body}: {v}"
        );
        assert!(
            v["error"]["message"].as_str().unwrap().contains("object"),
            "{v}"
        );
    }
    let (_, open) = call(addr, "GET", "/api/games?list=live", None).await;
    assert!(open["games"].as_array().unwrap().is_empty(), "{open}");
    server.shutdown().await;
}

/// Limits short enough for a test to watch them work.
fn quick_limits() -> Limits {
    Limits {
        header_read_timeout: Duration::from_millis(300),
        idle_timeout: Duration::from_millis(600),
        max_connections_per_address: 20,
        ws_ping_interval: Duration::from_millis(200),
        ws_pong_timeout: Duration::from_millis(300),
        ..Limits::default()
    }
}

/// Whether the server closes `tcp` within `within` (reading and dropping whatever it
/// sends until then).
async fn closed_within(tcp: &mut TcpStream, within: Duration) -> bool {
    let mut buf = [0u8; 1024];
    tokio::time::timeout(within, async {
        loop {
            match tcp.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await
    .is_ok()
}

/// Item 3: silent TCP connections are closed (beyond the per-address cap at once, the
/// others when their headers are late), and the server keeps accepting.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_connections_are_closed_and_the_server_keeps_accepting() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(greedy(&dir.path().join("t.db")), quick_limits())
        .await
        .unwrap();
    let addr = server.addr;
    let mut silent = Vec::new();
    for _ in 0..200 {
        silent.push(TcpStream::connect(addr).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    let held = server.shared.tcp_connections.total();
    assert!(
        held <= 20,
        "the server holds {held} connections from one address"
    );
    for tcp in &mut silent {
        assert!(
            closed_within(tcp, Duration::from_secs(5)).await,
            "a silent connection stayed open"
        );
    }
    // The count drops just after the socket closes (the connection's task ends
    // then), so the client may see the close first.
    let counted_out = tokio::time::timeout(Duration::from_secs(2), async {
        while server.shared.tcp_connections.total() != 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    assert!(
        counted_out.is_ok(),
        "{} connections still counted",
        server.shared.tcp_connections.total()
    );
    // Still accepting, and a request whose headers trickle in too slowly is cut off.
    let (status, health) = call(addr, "GET", "/api/health", None).await;
    assert_eq!(
        (status, health["ok"].as_bool()),
        (200, Some(true)),
        "{health}"
    );
    let mut slow = TcpStream::connect(addr).await.unwrap();
    slow.write_all(b"GET /api/health HTTP/1.1\r\n")
        .await
        .unwrap();
    assert!(closed_within(&mut slow, Duration::from_secs(5)).await);
    // An idle keep-alive connection is closed too.
    let mut kept = TcpStream::connect(addr).await.unwrap();
    kept.write_all(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    assert!(closed_within(&mut kept, Duration::from_secs(5)).await);
    server.shutdown().await;
}

/// Item 3: a WebSocket that answers no ping is closed; one that does stays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_websocket_that_answers_no_ping_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        // Long enough that only the pings decide here.
        idle_timeout: Duration::from_secs(30),
        header_read_timeout: Duration::from_secs(30),
        ..quick_limits()
    };
    let server = Server::start_with(greedy(&dir.path().join("t.db")), limits)
        .await
        .unwrap();
    let addr = server.addr;
    let mut raw = TcpStream::connect(addr).await.unwrap();
    raw.write_all(
        b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
          Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    )
    .await
    .unwrap();
    let mut head = [0u8; 12];
    raw.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 101", "upgraded");
    let g = create(
        addr,
        json!({"opponent": "engine", "color": "red", "time": "none"}),
    )
    .await;
    let (mut healthy, _) = join(addr, &g.id, Some(&g.token)).await;
    // The client that reads (and so answers pings) is still served after many pings.
    let reader = tokio::spawn(async move {
        let until = std::time::Instant::now() + Duration::from_millis(1500);
        while std::time::Instant::now() < until {
            let _ = healthy.recv(Duration::from_millis(100)).await;
        }
        sync(&mut healthy).await
    });
    assert!(
        closed_within(&mut raw, Duration::from_secs(5)).await,
        "the silent socket is closed"
    );
    let s = reader.await.unwrap();
    assert_eq!(s["d"]["you"], "red");
    server.shutdown().await;
}

/// Item 4: `/eval` runs on its own pool with a per-client limit: hammered by
/// concurrent requests from one client while an engine game is played, it refuses the
/// excess with `429 busy`, and no engine move ever queues behind an analysis.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eval_is_bounded_and_never_delays_engine_moves() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = greedy(&dir.path().join("t.db"));
    cfg.engine = jieqi_server::EngineKind::Search;
    let server = Server::start(cfg).await.unwrap();
    let addr = server.addr;
    // A finished game to analyse.
    let done = create(
        addr,
        json!({"opponent": "engine", "level": 1, "color": "red", "time": "none"}),
    )
    .await;
    let (mut c, s) = join(addr, &done.id, Some(&done.token)).await;
    // A move and the engine's reply first: before both have moved only an abort ends it.
    let first = s["d"]["legal"][0].as_str().unwrap().to_string();
    c.send("move", json!({ "uci": first }), None).await.unwrap();
    move_event(&mut c, 2).await;
    c.send("resign", Value::Null, None).await.unwrap();
    c.recv_until("end", WAIT).await.unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let (answered, refused) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let mut hammers = Vec::new();
    for _ in 0..4 {
        let (stop, answered, refused) = (stop.clone(), answered.clone(), refused.clone());
        let path = format!("/api/games/{}/eval?ply=0", done.id);
        hammers.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let r = http(addr, "GET", &path, None).await.unwrap();
                match r.status {
                    200 => answered.fetch_add(1, Ordering::Relaxed),
                    429 => refused.fetch_add(1, Ordering::Relaxed),
                    s => panic!("eval answered {s}"),
                };
            }
        }));
    }
    // Meanwhile an engine game: every engine move is counted by the games' pool.
    let before = server.shared.engines.stats();
    let g = create(
        addr,
        json!({"opponent": "engine", "level": 1, "color": "red", "time": "none"}),
    )
    .await;
    let (mut me, s) = join(addr, &g.id, Some(&g.token)).await;
    let mut legal = s["d"]["legal"][0].as_str().unwrap().to_string();
    for n in 0..6u64 {
        me.send("move", json!({"uci": legal}), None).await.unwrap();
        let reply = move_event(&mut me, 2 * n + 2).await;
        match reply["d"]["legal"][0].as_str() {
            Some(m) => legal = m.to_string(),
            None => break,
        }
    }
    stop.store(true, Ordering::Relaxed);
    for h in hammers {
        h.await.unwrap();
    }
    let after = server.shared.engines.stats();
    assert!(after.asked - before.asked >= 1, "{before:?} {after:?}");
    assert_eq!(
        after.waited, before.waited,
        "an engine move queued behind something else"
    );
    let (answered, refused) = (
        answered.load(Ordering::Relaxed),
        refused.load(Ordering::Relaxed),
    );
    assert!(answered >= 1, "evaluations still run: {answered}");
    assert!(
        refused >= 1,
        "one client's excess is refused: {answered} answered"
    );
    server.shutdown().await;
}
