//! Engine games, rematches, clocks, abandonment, draws and the HTTP API.

mod common;

use std::time::Duration;

use common::*;
use jieqi_core::{Deal, Position};
use jieqi_server::client::http;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_game_replies_resign_and_rematch() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    let g = create(
        addr,
        json!({"opponent": "engine", "level": 2, "color": "red", "time": "10+5"}),
    )
    .await;
    let (mut me, s) = join(addr, &g.id, Some(&g.token)).await;
    // The human joining starts the game at once.
    let s = if s["d"]["status"] == "live" {
        s
    } else {
        me.recv_until("state", WAIT).await.unwrap()
    };
    assert_eq!(s["d"]["status"], "live");
    assert_eq!(s["d"]["players"]["black"]["kind"], "engine");
    // No clock runs before a player's first move: a first-move window does.
    assert_eq!(s["d"]["clock"]["running"], Value::Null);
    assert_eq!(s["d"]["first_move"]["color"], "red");
    let mut legal: Vec<String> = serde_json::from_value(s["d"]["legal"].clone()).unwrap();
    for i in 0..3u64 {
        me.send("move", json!({"uci": legal[0]}), None)
            .await
            .unwrap();
        let mine = move_event(&mut me, 2 * i + 1).await;
        assert!(mine["d"]["legal"].as_array().unwrap().is_empty());
        // The engine's first move is not timed either; then the clocks run.
        let running = if i == 0 { Value::Null } else { json!("black") };
        assert_eq!(mine["d"]["clock"]["running"], running);
        let reply = move_event(&mut me, 2 * i + 2).await;
        assert_eq!(reply["d"]["ply"]["color"], "black");
        legal = serde_json::from_value(reply["d"]["legal"].clone()).unwrap();
        assert!(!legal.is_empty());
        // The reply is legal in the position the human saw.
        let fen = reply["d"]["fen"].as_str().unwrap();
        assert_eq!(
            Position::from_fen(fen).unwrap().legal_moves().len(),
            legal.len()
        );
    }
    // The engine declines draws.
    me.send("offer_draw", Value::Null, None).await.unwrap();
    let d = me.recv_until("draw", WAIT).await.unwrap();
    assert_eq!(d["d"]["declined_by"], "black");
    me.send("resign", Value::Null, None).await.unwrap();
    let end = me.recv_until("end", WAIT).await.unwrap();
    assert_eq!(end["d"]["result"], "0-1");
    assert_eq!(end["d"]["reason"], "resignation");
    let deal = Deal::parse(end["d"]["deal"].as_str().unwrap()).unwrap();
    assert!(deal.verify_commitment(end["d"]["salt"].as_str().unwrap(), &g.commitment));
    // Against the engine a rematch starts at once, colours swapped.
    me.send("rematch", Value::Null, None).await.unwrap();
    let r = me.recv_until("rematch", WAIT).await.unwrap();
    let url = r["d"]["url"].as_str().unwrap();
    let new_id = r["d"]["game"].as_str().unwrap();
    let token = url.split("seat=").nth(1).unwrap();
    let (mut me2, s2) = join(addr, new_id, Some(token)).await;
    assert_eq!(s2["d"]["you"], "black");
    // The engine, now Red, opens.
    let first = move_event(&mut me2, 1).await;
    assert_eq!(first["d"]["ply"]["color"], "red");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn step_time_runs_out_on_the_server() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    let g = create(
        addr,
        json!({"opponent": "friend", "color": "red", "time": "1+0", "move_time": 5}),
    )
    .await;
    let (mut red, _) = join(addr, &g.id, Some(&g.token)).await;
    let (mut black, _) = join(addr, &g.id, g.invite.as_deref()).await;
    let s = red.recv_until("state", WAIT).await.unwrap();
    assert_eq!(s["d"]["time"]["move_ms"], 5000);
    first_moves(&mut red, &mut black).await;
    let s = sync(&mut red).await;
    assert!(s["d"]["clock"]["move_left_ms"].as_u64().unwrap() <= 5000);
    // Red does not move again: after 5 s of step time the server ends the game.
    let end = black
        .recv_until("end", Duration::from_secs(15))
        .await
        .unwrap();
    assert_eq!(end["d"]["reason"], "time");
    assert_eq!(end["d"]["winner"], "black");
    red.recv_until("end", WAIT).await.unwrap();
    red.send("move", json!({"uci": "h2e2"}), None)
        .await
        .unwrap();
    expect_error(&mut red, "game_over").await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn absent_player_can_be_claimed_against_and_reconnect_resumes() {
    let (server, _dir) = start(400).await;
    let addr = server.addr;
    let g = create(
        addr,
        json!({"opponent": "friend", "color": "red", "time": "10+0"}),
    )
    .await;
    let (mut red, _) = join(addr, &g.id, Some(&g.token)).await;
    let (mut black, _) = join(addr, &g.id, g.invite.as_deref()).await;
    red.recv_until("state", WAIT).await.unwrap();
    red.send("move", json!({"uci": "e3e4"}), None)
        .await
        .unwrap();
    // Before both first moves the game could only be aborted: Black moves too.
    answer(&mut black, 1, &mut red).await;
    let s = sync(&mut red).await;
    let m = s["d"]["legal"][0].as_str().unwrap().to_string();
    red.send("move", json!({ "uci": m }), None).await.unwrap();
    move_event(&mut black, 3).await;
    black.close().await;
    // Reconnecting resumes: same position, Black to move.
    let (black2, s) = join(addr, &g.id, g.invite.as_deref()).await;
    assert_eq!(s["d"]["moves"].as_array().unwrap().len(), 3);
    assert_eq!(s["d"]["turn"], "black");
    assert!(!s["d"]["legal"].as_array().unwrap().is_empty());
    black2.close().await;
    red.send("claim_abandonment", Value::Null, None)
        .await
        .unwrap();
    expect_error(&mut red, "not_abandoned").await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    red.send("claim_abandonment", Value::Null, None)
        .await
        .unwrap();
    let end = red.recv_until("end", WAIT).await.unwrap();
    assert_eq!(end["d"]["reason"], "abandonment");
    assert_eq!(end["d"]["winner"], "red");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draw_offers_decline_accept_and_friend_rematch() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    let g = create(
        addr,
        json!({"opponent": "friend", "color": "black", "time": "none"}),
    )
    .await;
    assert_eq!(g.seat, "black");
    let (mut black, _) = join(addr, &g.id, Some(&g.token)).await;
    let (mut red, s) = join(addr, &g.id, g.invite.as_deref()).await;
    assert_eq!(s["d"]["you"], "red");
    assert_eq!(s["d"]["status"], "live");
    first_moves(&mut red, &mut black).await;
    red.send("offer_draw", Value::Null, None).await.unwrap();
    let d = black.recv_until("draw", WAIT).await.unwrap();
    assert_eq!(d["d"]["offer"], "red");
    black.send("decline_draw", Value::Null, None).await.unwrap();
    let d = red.recv_until("draw", WAIT).await.unwrap();
    assert_eq!(d["d"]["offer"], "red");
    let d = red.recv_until("draw", WAIT).await.unwrap();
    assert_eq!(
        (d["d"]["offer"].clone(), d["d"]["declined_by"].clone()),
        (Value::Null, json!("black"))
    );
    black.send("offer_draw", Value::Null, None).await.unwrap();
    red.recv_until("draw", WAIT).await.unwrap();
    red.send("accept_draw", Value::Null, None).await.unwrap();
    let end = black.recv_until("end", WAIT).await.unwrap();
    assert_eq!(end["d"]["result"], "1/2-1/2");
    assert_eq!(end["d"]["reason"], "agreement");
    red.send("rematch", Value::Null, None).await.unwrap();
    let r = black.recv_until("rematch", WAIT).await.unwrap();
    assert_eq!(r["d"]["offered_by"], json!(["red"]));
    assert!(r["d"]["game"].is_null());
    black.send("rematch", Value::Null, None).await.unwrap();
    let rb = black.recv_until("rematch", WAIT).await.unwrap();
    let rr = red.recv_until("rematch", WAIT).await.unwrap();
    let rr = if rr["d"]["game"].is_null() {
        red.recv_until("rematch", WAIT).await.unwrap()
    } else {
        rr
    };
    let (ub, ur) = (
        rb["d"]["url"].as_str().unwrap(),
        rr["d"]["url"].as_str().unwrap(),
    );
    assert_ne!(ub, ur, "each player gets its own seat link");
    let id = rb["d"]["game"].as_str().unwrap();
    let (_b2, s) = join(addr, id, ub.split("seat=").nth(1)).await;
    assert_eq!(s["d"]["you"], "red", "colours swap");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_api_lists_joins_replays_and_refuses_bad_requests() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    let get = |path: String| async move { http(addr, "GET", &path, None).await.unwrap() };
    let post = |path: String, body: String| async move {
        http(addr, "POST", &path, Some(&body)).await.unwrap()
    };

    for bad in [
        json!({"opponent": "alien"}),
        json!({"level": 99}),
        json!({"color": "green"}),
        json!({"time": "fast"}),
        json!({"time": "none", "move_time": 10}),
        json!({"rules": "chaos"}),
        json!({"captured_identity": "me"}),
    ] {
        let r = post("/api/games".into(), bad.to_string()).await;
        assert_eq!(r.status, 400, "{bad}");
        assert_eq!(r.json().unwrap()["error"]["code"], "bad_request");
    }
    let r = post("/api/games".into(), "{not json".into()).await;
    assert_eq!(r.status, 400);
    // Bodies over 16 KiB: 413 with the JSON error, for both routes that take one.
    for path in [
        "/api/games".to_string(),
        "/api/games/zzzzzzzzzz/join".into(),
    ] {
        let r = post(path, format!("{{\"x\": \"{}\"}}", "x".repeat(20_000))).await;
        assert_eq!(r.status, 413);
        assert_eq!(r.json().unwrap()["error"]["code"], "too_large");
    }

    let open = create(
        addr,
        json!({"opponent": "friend", "color": "red", "listed": true}),
    )
    .await;
    let list = get("/api/games?list=open".into()).await.json().unwrap();
    assert!(
        list["games"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["id"] == open.id)
    );
    // The free seat of a listed game goes to the first who asks (no invite token
    // needed), and only once.
    let r = post(format!("/api/games/{}/join", open.id), String::new()).await;
    assert_eq!(r.status, 200);
    let j = r.json().unwrap();
    assert_eq!(j["seat"], "black");
    let black_token = j["token"].as_str().unwrap().to_string();
    assert_eq!(
        j["url"],
        json!(format!("/game/{}?seat={black_token}", open.id))
    );
    assert_eq!(
        post(format!("/api/games/{}/join", open.id), String::new())
            .await
            .status,
        409
    );
    let list = get("/api/games?list=open".into()).await.json().unwrap();
    assert!(
        !list["games"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["id"] == open.id)
    );

    let s = get(format!("/api/games/{}", open.id)).await;
    assert_eq!(s.status, 200);
    let s = s.json().unwrap();
    assert_eq!(s["commitment"], open.commitment);
    assert_eq!(s["status"], "waiting");
    assert!(!s.to_string().contains("deal"));
    assert_eq!(get("/api/games/zzzzzzzzzz".into()).await.status, 404);
    assert_eq!(get("/api/games/nope".into()).await.status, 404);
    assert_eq!(get("/api/games?list=bogus".into()).await.status, 400);
    assert_eq!(get("/api/games?list=live&limit=0".into()).await.status, 400);

    // Replay and evaluation wait for the end.
    assert_eq!(
        get(format!("/api/games/{}/replay", open.id)).await.status,
        409
    );
    assert_eq!(
        get(format!("/api/games/{}/eval?ply=0", open.id))
            .await
            .status,
        409
    );
    let (mut red, _) = join(addr, &open.id, Some(&open.token)).await;
    let (mut black, _) = join(addr, &open.id, Some(&black_token)).await;
    red.recv_until("state", WAIT).await.unwrap();
    assert!(
        get("/api/games?list=live".into()).await.json().unwrap()["games"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["id"] == open.id)
    );
    red.send("move", json!({"uci": "b2b9"}), None)
        .await
        .unwrap();
    move_event(&mut red, 1).await;
    answer(&mut black, 1, &mut red).await;
    red.send("resign", Value::Null, None).await.unwrap();
    red.recv_until("end", WAIT).await.unwrap();
    let replay = get(format!("/api/games/{}/replay", open.id)).await;
    assert_eq!(replay.status, 200);
    let replay = replay.json().unwrap();
    assert_eq!(replay["commitment_ok"], true);
    assert_eq!(replay["moves"].as_array().unwrap().len(), 2);
    assert_eq!(
        replay["moves"][0]["uci"].as_str().unwrap().len(),
        6,
        "referee suffixes"
    );
    let ev = get(format!("/api/games/{}/eval?ply=1", open.id)).await;
    assert_eq!(ev.status, 200);
    let ev = ev.json().unwrap();
    assert_eq!(ev["turn"], "black");
    assert!(ev["best"].is_string());
    // Black's evaluation uses Black's knowledge: the captured identity stays in its pool.
    let fen = ev["fen"].as_str().unwrap();
    assert!(Position::from_fen(fen).unwrap().captured().is_empty());
    assert_eq!(
        get(format!("/api/games/{}/eval?ply=5", open.id))
            .await
            .status,
        409
    );
    // Records: PGN with the deal, its commitment and salt; JieqiBox JSON; both read back.
    let pgn = get(format!("/api/games/{}/record?format=pgn", open.id)).await;
    assert_eq!(pgn.status, 200);
    let text = String::from_utf8(pgn.body).unwrap();
    assert!(text.contains("[DealCommitment"), "{text}");
    assert!(text.contains(&open.commitment), "{text}");
    let rec = jieqi_core::record::read_any(&text).unwrap();
    assert_eq!(rec.moves.len(), 2);
    assert_eq!(rec.result, "0-1");
    let jb = get(format!("/api/games/{}/record?format=jieqibox", open.id)).await;
    assert_eq!(jb.status, 200);
    let rec = jieqi_core::record::read_any(&String::from_utf8(jb.body).unwrap()).unwrap();
    assert_eq!(rec.moves.len(), 2);
    assert_eq!(
        get(format!("/api/games/{}/record?format=doc", open.id))
            .await
            .status,
        400
    );
    let recent = get("/api/games?list=recent".into()).await.json().unwrap();
    assert_eq!(recent["games"][0]["id"], open.id);
    assert_eq!(recent["games"][0]["result"], "0-1");
    let h = get("/api/health".into()).await.json().unwrap();
    assert_eq!(h["ok"], true);
    // Pages and assets: the UI is served or, without one, a clear 404.
    let p = get(format!("/game/{}", open.id)).await;
    assert!(p.status == 200 || p.status == 404);
    if p.status == 200 {
        assert!(p.content_type.unwrap().starts_with("text/html"));
    }
    assert_eq!(get("/assets/../Cargo.toml".into()).await.status, 404);
    server.shutdown().await;
}

/// `state.invite_url` goes to the creating seat while the game waits for the friend,
/// and to nobody else, ever (it claims the other seat).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invite_url_only_for_the_creator_while_waiting() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    let g = create(
        addr,
        json!({"opponent": "friend", "color": "black", "time": "10+5"}),
    )
    .await;
    let invite = g.invite.clone().expect("a friend game has an invite link");
    let invite_token = g.invite_token.clone().unwrap();
    let want = format!("/game/{}?invite={invite_token}", g.id);
    let (mut creator, s) = join(addr, &g.id, Some(&g.token)).await;
    assert_eq!(s["d"]["you"], "black");
    assert_eq!(s["d"]["status"], "waiting");
    assert_eq!(s["d"]["invite_url"], json!(want));
    // A spectator of the waiting game does not get it.
    let (mut spectator, s) = join(addr, &g.id, None).await;
    assert_eq!(s["d"]["you"], "spectator");
    assert!(s["d"]["invite_url"].is_null(), "{s}");
    // The creator still gets it on resync (e.g. another browser, a reload).
    assert_eq!(sync(&mut creator).await["d"]["invite_url"], json!(want));
    // The friend joins: the game starts, and the link is gone for everyone.
    let (mut friend, s) = join(addr, &g.id, Some(&invite)).await;
    assert_eq!(s["d"]["you"], "red");
    assert_eq!(s["d"]["status"], "live");
    assert!(s["d"]["invite_url"].is_null(), "{s}");
    let started = creator.recv_until("state", WAIT).await.unwrap();
    assert_eq!(started["d"]["status"], "live");
    assert!(started["d"]["invite_url"].is_null(), "{started}");
    assert!(sync(&mut creator).await["d"]["invite_url"].is_null());
    assert!(sync(&mut spectator).await["d"]["invite_url"].is_null());
    assert!(sync(&mut friend).await["d"]["invite_url"].is_null());
    // Nothing the spectator received carries either seat's token or the invite.
    for m in &spectator.log {
        let raw = m.to_string();
        assert!(
            !raw.contains(&invite) && !raw.contains(&g.token) && !raw.contains(&invite_token),
            "{raw}"
        );
    }
    // Nothing the friend received carries the creator's token.
    for m in &friend.log {
        assert!(!m.to_string().contains(&g.token), "{m}");
    }
    // Engine games have no invite link.
    let e = create(
        addr,
        json!({"opponent": "engine", "level": 1, "color": "red", "time": "none"}),
    )
    .await;
    let (_me, s) = join(addr, &e.id, Some(&e.token)).await;
    assert!(s["d"]["invite_url"].is_null(), "{s}");
    server.shutdown().await;
}

/// An unlisted friend game's free seat is a capability of its invite link: joining
/// without the invite token or with a wrong one is refused (`403 bad_invite`) and
/// changes nothing; the right one hands out the seat — again on a reload, until the
/// friend has joined, never after. The spectator link /game/{id} gives away nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unlisted_friend_game_seat_needs_the_invite_token() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    let body = json!({"opponent": "friend", "color": "red", "time": "10+5"}).to_string();
    let r = http(addr, "POST", "/api/games", Some(&body)).await.unwrap();
    assert_eq!(r.status, 201);
    let g = r.json().unwrap();
    let id = g["id"].as_str().unwrap().to_string();
    let invite = g["invite_token"].as_str().unwrap().to_string();
    assert_eq!(invite.len(), 32);
    assert_eq!(
        g["invite_url"],
        json!(format!("/game/{id}?invite={invite}"))
    );
    assert_ne!(invite, g["token"].as_str().unwrap());
    let summary = |path: String| async move {
        let r = http(addr, "GET", &path, None).await.unwrap();
        r.json().unwrap()
    };
    let before: Value = summary(format!("/api/games/{id}")).await;
    // A spectator of the waiting game learns nothing that claims the seat.
    let (mut spectator, s) = join(addr, &id, None).await;
    assert_eq!(s["d"]["you"], "spectator");
    assert!(!s.to_string().contains(&invite));

    let wrong = "0".repeat(32);
    let mut bad = vec![
        claim(addr, &id, None).await,
        claim(addr, &id, Some(&wrong)).await,
        claim(addr, &id, Some("")).await,
        claim(addr, &id, Some(&invite[..31])).await,
        claim(addr, &id, Some(g["token"].as_str().unwrap())).await,
    ];
    let r = http(addr, "POST", &format!("/api/games/{id}/join"), Some("{}"))
        .await
        .unwrap();
    bad.push(r);
    for r in bad {
        assert_eq!(r.status, 403, "{}", String::from_utf8_lossy(&r.body));
        let e = r.json().unwrap();
        assert_eq!(e["error"]["code"], "bad_invite");
        assert!(!e.to_string().contains(&invite));
    }
    assert_eq!(
        summary(format!("/api/games/{id}")).await,
        before,
        "refused claims change nothing"
    );
    assert!(sync(&mut spectator).await["d"]["status"] == "waiting");

    // The invite token: the free seat, and the same again (a reload, another device).
    let r = claim(addr, &id, Some(&invite)).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let j = r.json().unwrap();
    assert_eq!(j["seat"], "black");
    let black = j["token"].as_str().unwrap().to_string();
    assert_eq!(j["url"], json!(format!("/game/{id}?seat={black}")));
    let again = claim(addr, &id, Some(&invite)).await.json().unwrap();
    assert_eq!(again["token"], json!(black));
    // Still refused without it.
    assert_eq!(claim(addr, &id, None).await.status, 403);

    let (mut red, _) = join(addr, &id, g["token"].as_str()).await;
    let (_black, s) = join(addr, &id, Some(&black)).await;
    assert_eq!(
        (s["d"]["you"].as_str(), s["d"]["status"].as_str()),
        (Some("black"), Some("live"))
    );
    red.recv_until("state", WAIT).await.unwrap();
    // Once the friend sits, the invite link no longer hands out the seat.
    let r = claim(addr, &id, Some(&invite)).await;
    assert_eq!(r.status, 409);
    assert_eq!(r.json().unwrap()["error"]["code"], "seat_taken");
    assert_eq!(claim(addr, &id, Some(&wrong)).await.status, 403);
    // Engine games have no seat to claim.
    let e = create(
        addr,
        json!({"opponent": "engine", "level": 1, "color": "red", "time": "none"}),
    )
    .await;
    assert!(e.invite_token.is_none());
    assert_eq!(claim(addr, &e.id, None).await.status, 409);
    server.shutdown().await;
}

/// The invite token is stored with the game: after a restart the creator's page still
/// shows the invite link and the token still claims the seat (a wrong one does not).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invite_token_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("restart.db");
    let server = start_on(&db, 60_000, 1000.0).await;
    let g = create(
        server.addr,
        json!({"opponent": "friend", "color": "black", "time": "10+5"}),
    )
    .await;
    let invite = g.invite_token.clone().unwrap();
    let black = g.invite.clone().unwrap();
    server.shutdown().await;

    let server = start_on(&db, 60_000, 1000.0).await;
    let addr = server.addr;
    let (_creator, s) = join(addr, &g.id, Some(&g.token)).await;
    assert_eq!(
        s["d"]["invite_url"],
        json!(format!("/game/{}?invite={invite}", g.id))
    );
    assert_eq!(claim(addr, &g.id, Some(&"f".repeat(32))).await.status, 403);
    let r = claim(addr, &g.id, Some(&invite)).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let j = r.json().unwrap();
    assert_eq!(
        (j["seat"].as_str(), j["token"].as_str()),
        (Some("red"), Some(black.as_str()))
    );
    server.shutdown().await;
}
