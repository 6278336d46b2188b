//! Shutdown reaches every task: each socket (player, spectator, lobby, one that has
//! joined nothing) is closed with 1001 and each game's task ends, with or without
//! connections. Every task waits on its own copy of the stop signal, made once: a
//! task that missed it would keep the process alive.

mod common;

use std::time::Duration;

use common::*;
use jieqi_server::client::WsClient;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_closes_every_socket_and_ends_every_game() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    let played = create(
        addr,
        json!({ "opponent": "friend", "color": "red", "time": "5+0" }),
    )
    .await;
    let (mut red, mut black) = seat_both(addr, &played).await;
    first_moves(&mut red, &mut black).await;
    let (spectator, _) = join(addr, &played.id, None).await;
    // A game nobody is connected to.
    create(addr, json!({ "opponent": "friend", "time": "none" })).await;
    let mut lobby = WsClient::connect_lobby(addr, &[]).await.unwrap();
    lobby.recv_until("seeks", WAIT).await.unwrap();
    // A socket that has joined nothing: only the stop signal ends it (the others
    // also lose their game's or the lobby's queue).
    let mut unjoined = WsClient::connect(addr).await.unwrap();
    unjoined
        .send("ping", json!({ "ts": 1 }), None)
        .await
        .unwrap();
    unjoined.recv_until("pong", WAIT).await.unwrap();
    assert_eq!(server.shared.registry.running(), 2);
    assert_eq!(
        server.shared.connections(),
        5,
        "four game sockets and the lobby"
    );

    server.shared.begin_shutdown();
    for (who, mut c) in [
        ("red", red),
        ("black", black),
        ("spectator", spectator),
        ("lobby", lobby),
        ("unjoined", unjoined),
    ] {
        let closed = loop {
            match c.recv(WAIT).await {
                Ok(_) => continue,
                Err(e) => break e,
            }
        };
        assert_eq!(closed.close_code(), Some(1001), "{who}: {closed}");
    }
    let until = tokio::time::Instant::now() + WAIT;
    while server.shared.registry.running() > 0 || server.shared.connections() > 0 {
        assert!(
            tokio::time::Instant::now() < until,
            "still running: {} games, {} sockets",
            server.shared.registry.running(),
            server.shared.connections()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    server.shutdown().await;
}
