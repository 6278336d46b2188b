//! Two real `jieqi serve` nodes on one PostgreSQL database (docs/server.md, "Several
//! nodes"): a game created through node A is played by clients of node B and watched
//! by a spectator of A; A is killed with SIGKILL mid-game, and the game goes on
//! through B with every acknowledged move and fair clocks. Needs `JIEQI_TEST_PG`
//! (skipped without it, except in CI).

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::{Serve, WAIT, assert_clocks_resumed, join, ply, serve};
use jieqi_server::client::{claim_seat, http};
use serde_json::{Value, json};

/// The nodes' lease: a dead node's games are taken over within about this long.
const LEASE_SECS: u64 = 2;

fn node(db: &str) -> (Serve, SocketAddr) {
    let lease = LEASE_SECS.to_string();
    serve([
        "--engine",
        "greedy",
        "--node-addr",
        "127.0.0.1:0",
        "--lease-secs",
        &lease,
        "--db",
        db,
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_node_s_game_goes_on_through_the_other() {
    let test = "a_killed_node_s_game_goes_on_through_the_other";
    let Some(db) = jieqi_server::store::test_database(test).await else {
        return;
    };
    let (node_a, a) = node(&db);
    let (_node_b, b) = node(&db);

    let body = json!({"opponent": "friend", "color": "red", "time": "10+0"}).to_string();
    let r = http(a, "POST", "/api/games", Some(&body)).await.unwrap();
    assert_eq!(r.status, 201);
    let g = r.json().unwrap();
    let id = g["id"].as_str().unwrap().to_string();
    let red_token = g["token"].as_str().unwrap().to_string();
    let r = claim_seat(b, &id, g["invite_token"].as_str())
        .await
        .unwrap();
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let black_token = r.json().unwrap()["token"].as_str().unwrap().to_string();

    // Both players on B, a spectator on A.
    let (mut red, _) = join(b, &id, Some(&red_token)).await;
    let (mut black, _) = join(b, &id, Some(&black_token)).await;
    let (mut watcher, _) = join(a, &id, None).await;
    let mut last = red.recv_until("state", WAIT).await.unwrap();
    // Six plies, each acknowledged to its mover, seen by the spectator. Each player's
    // view of a ply is kept: a capture of a face-down piece names the piece only to
    // its captor (RULES.md §4), so the two views of one ply can differ.
    let uci = |m: &Value| m["d"]["ply"]["uci"].as_str().unwrap().to_string();
    let (mut seen_by_red, mut seen_by_black) = (Vec::new(), Vec::new());
    for n in 1..=6u64 {
        let red_moves = n % 2 == 1;
        let (mover, other) = if red_moves {
            (&mut red, &mut black)
        } else {
            (&mut black, &mut red)
        };
        let legal = last["d"]["legal"].as_array().unwrap().clone();
        let mv = legal[(n as usize * 7) % legal.len()]
            .as_str()
            .unwrap()
            .to_string();
        mover.send("move", json!({"uci": mv}), None).await.unwrap();
        let ack = uci(&ply(mover, n).await);
        last = ply(other, n).await;
        let (by_red, by_black) = if red_moves {
            (ack, uci(&last))
        } else {
            (uci(&last), ack)
        };
        seen_by_red.push(by_red);
        seen_by_black.push(by_black);
        ply(&mut watcher, n).await;
    }
    let before = {
        red.send("sync", Value::Null, None).await.unwrap();
        red.recv_until("state", WAIT).await.unwrap()
    };
    let stored_red = before["d"]["moves"][4]["clock_ms"].as_u64().unwrap();
    let stored_black = before["d"]["moves"][5]["clock_ms"].as_u64().unwrap();

    // Red thinks a little; then node A dies without a word.
    tokio::time::sleep(Duration::from_millis(300)).await;
    drop(node_a);
    let killed = Instant::now();
    for c in [&mut red, &mut black, &mut watcher] {
        let closed =
            tokio::time::timeout(WAIT, async { while c.recv(WAIT).await.is_ok() {} }).await;
        assert!(closed.is_ok(), "the sockets through the dead node close");
    }

    // The players come back to B, which takes the game over once A's lease expires.
    let (mut red, s) = join(b, &id, Some(&red_token)).await;
    let took = killed.elapsed();
    assert!(
        took >= Duration::from_millis(LEASE_SECS * 1000 / 2),
        "not taken over before the lease ran out ({took:?})"
    );
    let (mut black, sb) = join(b, &id, Some(&black_token)).await;
    let (mut watcher, w) = join(b, &id, None).await;
    let d = &s["d"];
    assert_eq!(d["status"], "live", "{s}");
    let moves = |state: &Value| -> Vec<String> {
        state["d"]["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["uci"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        moves(&s),
        seen_by_red,
        "every acknowledged move is in the game, as Red saw it"
    );
    assert_eq!(
        moves(&sb),
        seen_by_black,
        "every acknowledged move is in the game, as Black saw it"
    );
    assert_eq!(d["moves"], before["d"]["moves"]);
    assert_eq!(d["fen"], before["d"]["fen"]);
    assert_eq!(w["d"]["moves"].as_array().unwrap().len(), 6);
    // Clocks: Black's untouched; Red's resumed from its stored time, the takeover's
    // wait (over a second) charged to nobody.
    assert_clocks_resumed(&d["clock"], stored_red, stored_black);

    // And the game goes on through B.
    let legal = d["legal"].as_array().unwrap();
    red.send("move", json!({"uci": legal[0]}), None)
        .await
        .unwrap();
    let m = ply(&mut red, 7).await;
    assert_eq!(m["d"]["turn"], "black");
    ply(&mut black, 7).await;
    ply(&mut watcher, 7).await;
    let r = http(b, "GET", &format!("/api/games/{id}"), None)
        .await
        .unwrap();
    assert_eq!(r.json().unwrap()["plies"], 7);
}
