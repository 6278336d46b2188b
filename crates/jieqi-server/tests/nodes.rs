//! Several nodes on one PostgreSQL database (docs/server.md, "Several nodes"): leases
//! and their fencing, takeover epochs, and a second node serving a game through its
//! owner. PostgreSQL only (`JIEQI_TEST_PG`; skipped without it, except in CI).

mod common;

use std::path::Path;
use std::time::Duration;

use jieqi_core::ByColor;
use jieqi_server::client::{WsClient, claim_seat, http};
use jieqi_server::node::NodeConfig;
use jieqi_server::store::{
    Holder, MoveRecord, NewGame, PostgresStore, SeatRecord, Store, StoreError, Write,
};
use jieqi_server::{EngineKind, Server};
use serde_json::{Value, json};

use common::{WAIT, join, move_event};

fn seat(token: &str) -> SeatRecord {
    SeatRecord {
        engine_level: None,
        token: token.into(),
        joined: true,
        user: None,
    }
}

fn new_game(id: &str) -> NewGame {
    NewGame {
        id: id.into(),
        created_ms: 1,
        deal: "deal".into(),
        salt: "salt".into(),
        commitment: "c".into(),
        rules: "standard".into(),
        captured_identity: "capturer".into(),
        time: "none".into(),
        move_time_s: None,
        seats: ByColor {
            red: seat("r"),
            black: seat("b"),
        },
        invite: None,
        invite_token: None,
        listed: false,
        rematch_of: None,
        rated: false,
    }
}

fn mv(n: u32) -> Write {
    Write::Move {
        id: "g1".into(),
        mv: MoveRecord {
            n,
            uci: "a0a1".into(),
            red_ms: 0,
            black_ms: 0,
            at_ms: u64::from(n),
        },
        finish: None,
    }
}

/// Node A creates a game (and so holds its lease at epoch 1) and writes to it; while
/// the lease runs, node B is told A serves it; once it has expired, B takes it over at
/// epoch 2, and A's next write is refused with `NotOwner` while B's goes through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_that_lost_its_lease_cannot_write() {
    let Some(url) = jieqi_server::store::test_database("lease_fencing").await else {
        return;
    };
    let a = PostgresStore::open(&url).await.unwrap();
    let b = PostgresStore::open(&url).await.unwrap();
    // Long enough that a loaded machine does not let a lease lapse between two steps
    // meant to fall inside it; the waits below are fractions of it.
    let lease = Duration::from_secs(3);
    let a_id = a.join_cluster("127.0.0.1:1111", lease).await.unwrap();
    b.join_cluster("127.0.0.1:2222", lease).await.unwrap();

    // A write to a game nobody leased is refused too.
    let e = b.write(mv(1)).await.unwrap_err();
    assert!(matches!(e, StoreError::NotOwner(ref g) if g == "g1"), "{e}");

    a.write(Write::Create(Box::new(new_game("g1"))))
        .await
        .unwrap();
    assert!(a.holds("g1"));
    a.write(mv(1)).await.unwrap();
    assert_eq!(
        b.acquire("g1").await.unwrap(),
        Holder::Other {
            node: a_id,
            addr: "127.0.0.1:1111".into()
        }
    );
    assert!(b.orphans().await.unwrap().is_empty());

    // A renews once, then falls silent.
    assert!(a.renew().await.unwrap().is_empty());
    tokio::time::sleep(lease * 13 / 10).await;
    assert_eq!(b.orphans().await.unwrap(), vec!["g1".to_string()]);
    assert_eq!(b.acquire("g1").await.unwrap(), Holder::Me { epoch: 2 });

    let e = a.write(mv(2)).await.unwrap_err();
    assert!(matches!(e, StoreError::NotOwner(ref g) if g == "g1"), "{e}");
    assert_eq!(a.renew().await.unwrap(), vec!["g1".to_string()]);
    assert!(!a.holds("g1"));
    b.write(mv(2)).await.unwrap();
    let g = b.load("g1").await.unwrap().unwrap();
    assert_eq!(g.moves.len(), 2, "A's acknowledged move and B's");

    // B's lease is renewed and outlives the first one; a takeover of a live lease is
    // refused.
    tokio::time::sleep(lease * 6 / 10).await;
    assert!(b.renew().await.unwrap().is_empty());
    tokio::time::sleep(lease * 6 / 10).await;
    assert!(matches!(
        a.acquire("g1").await.unwrap(),
        Holder::Other { .. }
    ));
    b.write(mv(3)).await.unwrap();

    // A released lease is free at once.
    b.release("g1").await.unwrap();
    assert_eq!(a.acquire("g1").await.unwrap(), Holder::Me { epoch: 1 });
    a.close().await;
    b.close().await;
}

/// `mover` plays ply `n` (his first legal move), and both players see it.
async fn play(mover: &mut WsClient, n: u64, other: &mut WsClient) {
    let s = common::sync(mover).await;
    let m = s["d"]["legal"][0]
        .as_str()
        .expect("legal moves")
        .to_string();
    mover.send("move", json!({ "uci": m }), None).await.unwrap();
    move_event(mover, n).await;
    move_event(other, n).await;
}

async fn node(db: &Path) -> Server {
    let mut config = common::config(db, EngineKind::Greedy);
    config.node = Some(NodeConfig {
        addr: "127.0.0.1:0".into(),
        lease: Duration::from_secs(2),
    });
    Server::start(config).await.unwrap()
}

/// A game created through node A: its invite seat is claimed through node B, Black
/// plays through B and a spectator watches through B; both sockets of B are relayed to
/// A, which alone serves the game. The lobby lives on A, and B relays lobby sockets
/// there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_node_serves_a_game_through_its_owner() {
    let Some(url) = jieqi_server::store::test_database("nodes_forward").await else {
        return;
    };
    let a = node(Path::new(&url)).await;
    let b = node(Path::new(&url)).await;
    let body = json!({"opponent": "friend", "color": "red", "time": "5+0"}).to_string();
    let r = http(a.addr, "POST", "/api/games", Some(&body))
        .await
        .unwrap();
    assert_eq!(r.status, 201);
    let g = r.json().unwrap();
    let id = g["id"].as_str().unwrap().to_string();
    let red_token = g["token"].as_str().unwrap().to_string();
    let r = claim_seat(b.addr, &id, g["invite_token"].as_str())
        .await
        .unwrap();
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let black_token = r.json().unwrap()["token"].as_str().unwrap().to_string();
    // A second claim, through B again: A's room answers, with the same seat.
    let r = claim_seat(b.addr, &id, g["invite_token"].as_str())
        .await
        .unwrap();
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(
        r.json().unwrap()["token"].as_str(),
        Some(black_token.as_str())
    );

    let (mut red, _) = join(a.addr, &id, Some(&red_token)).await;
    let (mut black, s) = join(b.addr, &id, Some(&black_token)).await;
    assert_eq!(s["d"]["status"], "live", "{s}");
    assert_eq!(s["d"]["you"], "black", "{s}");
    let (mut watcher, _) = join(b.addr, &id, None).await;
    assert_eq!(b.shared.registry.len(), 0, "B serves no game itself");
    assert_eq!(a.shared.registry.len(), 1);

    common::first_moves(&mut red, &mut black).await;
    move_event(&mut watcher, 2).await;
    play(&mut red, 3, &mut black).await;
    play(&mut black, 4, &mut red).await;
    let m = move_event(&mut watcher, 4).await;
    assert_eq!(m["d"]["ply"]["n"], 4);
    // Ping answered by the owner, through the relay.
    black.send("ping", json!({"ts": 7}), None).await.unwrap();
    let p = black.recv_until("pong", WAIT).await.unwrap();
    assert_eq!(p["d"]["ts"], 7);

    // The lobby: a socket on B is relayed to A, which holds the seek pool.
    let mut lobby_b = WsClient::connect_lobby(b.addr, &[]).await.unwrap();
    let hello: Value = lobby_b.recv(WAIT).await.unwrap();
    assert!(hello["t"].is_string(), "{hello}");
    assert!(a.shared.directs_tournaments());
    assert!(!b.shared.directs_tournaments());

    // A tournament request to B is answered by A.
    let r = http(b.addr, "GET", "/api/tournaments", None).await.unwrap();
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));

    // A stops gracefully: it gives its leases up, its relayed sockets close, and B
    // takes the game over at once when the players come back.
    drop(watcher);
    a.shutdown().await;
    let closed = tokio::time::timeout(Duration::from_secs(5), async {
        while black.recv(WAIT).await.is_ok() {}
    })
    .await;
    assert!(closed.is_ok(), "the relayed socket closes with its owner");
    let (mut red, s) = join(b.addr, &id, Some(&red_token)).await;
    assert_eq!(s["d"]["moves"].as_array().unwrap().len(), 4, "{s}");
    let (mut black, _) = join(b.addr, &id, Some(&black_token)).await;
    assert_eq!(b.shared.registry.len(), 1, "B serves the game now");
    play(&mut red, 5, &mut black).await;
    b.shutdown().await;
}

/// Several nodes need PostgreSQL: a node on a SQLite file is refused at start, with
/// a message that says what to do.
#[tokio::test]
async fn a_node_on_sqlite_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = common::config(&dir.path().join("one.db"), EngineKind::Greedy);
    config.node = Some(NodeConfig {
        addr: "127.0.0.1:0".into(),
        lease: Duration::from_secs(2),
    });
    let Err(e) = Server::start(config).await else {
        panic!("a node on SQLite started");
    };
    assert!(
        e.0.contains("PostgreSQL") && e.0.contains("--node-addr"),
        "{e}"
    );
}
