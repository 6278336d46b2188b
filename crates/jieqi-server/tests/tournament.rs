//! Tournaments on the web server, end to end over real HTTP and WebSockets: a
//! duplicate-deal Swiss (join links, pairing, games played through the protocol,
//! results flowing into the standings, a restart, commitments verified), a best-of-3
//! knockout match continuing by itself, and hostile requests.

mod common;

use std::collections::HashSet;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use common::*;
use jieqi_core::Deal;
use jieqi_server::Server;
use jieqi_server::client::{WsClient, http};
use serde_json::{Value, json};

crate::on_both_stores!(
    duplicate_swiss_from_join_links_to_verified_deals,
    knockout_match_creates_its_next_game_by_itself,
    hostile_tournament_requests_change_nothing,
    an_unstarted_round_is_repaired_with_new_games,
    a_loss_on_time_flows_into_the_event,
    a_missed_first_move_loses_a_tournament_game,
    organiser_and_joint_deals,
    a_result_missed_by_a_crash_is_entered_at_restart,
);

async fn start_at(db: &Path) -> Server {
    Server::start(config(db, jieqi_server::EngineKind::Greedy))
        .await
        .unwrap()
}

/// Runs `sql` with `$1` bound to `arg` on the server's database (a SQLite file or a
/// PostgreSQL URL) behind the server's back; the rows changed.
async fn execute(db: &Path, sql: &str, arg: &str) -> u64 {
    let url = db.to_str().unwrap();
    if url.starts_with("postgres://") {
        let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .unwrap();
        let conn = tokio::spawn(conn);
        let n = client.execute(sql, &[&arg]).await.unwrap();
        drop(client);
        let _ = conn.await;
        n
    } else {
        let c = rusqlite::Connection::open(db).unwrap();
        c.execute(sql, [arg]).unwrap() as u64
    }
}

async fn call(addr: SocketAddr, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let text = body.map(|b| b.to_string());
    let r = http(addr, method, path, text.as_deref()).await.unwrap();
    let v = r.json().unwrap_or(Value::Null);
    (r.status, v)
}

async fn ok(addr: SocketAddr, method: &str, path: &str, body: Value) -> Value {
    let (status, v) = call(addr, method, path, Some(body)).await;
    assert!(
        status == 200 || status == 201,
        "{method} {path}: {status} {v}"
    );
    v
}

async fn view(addr: SocketAddr, id: &str, token: &str) -> Value {
    let (status, v) = call(
        addr,
        "GET",
        &format!("/api/tournaments/{id}?token={token}"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{v}");
    v
}

/// Polls the event until `pred` holds.
async fn wait_for(addr: SocketAddr, id: &str, pred: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..200 {
        let v = view(addr, id, "").await;
        if pred(&v) {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "the event never reached the expected state: {}",
        view(addr, id, "").await
    );
}

/// Plays one board: both players join with the seat links from their own pages, Red
/// makes a move, Black answers, then `loser` resigns.
/// Plays a board to its end; returns the `end` message the losing (or drawing) side got.
async fn play_board(addr: SocketAddr, red_url: &str, black_url: &str, loser: &str) -> Value {
    let parse = |u: &str| {
        let rest = u.strip_prefix("/game/").unwrap();
        let (id, tok) = rest.split_once("?seat=").unwrap();
        (id.to_string(), tok.to_string())
    };
    let (game, red_tok) = parse(red_url);
    let (game2, black_tok) = parse(black_url);
    assert_eq!(game, game2, "both players' links lead to the same game");
    let (mut red, s) = join(addr, &game, Some(&red_tok)).await;
    assert_eq!(s["d"]["you"], "red");
    let (mut black, s) = join(addr, &game, Some(&black_tok)).await;
    assert_eq!(s["d"]["status"], "live");
    let s = sync(&mut red).await;
    let mv = s["d"]["legal"][0].as_str().unwrap().to_string();
    red.send("move", json!({ "uci": mv }), None).await.unwrap();
    move_event(&mut black, 1).await;
    let s = sync(&mut black).await;
    let mv = s["d"]["legal"][0].as_str().unwrap().to_string();
    black
        .send("move", json!({ "uci": mv }), None)
        .await
        .unwrap();
    move_event(&mut red, 2).await;
    let end = if loser == "draw" {
        red.send("offer_draw", Value::Null, None).await.unwrap();
        black.recv_until("draw", WAIT).await.unwrap();
        black.send("accept_draw", Value::Null, None).await.unwrap();
        let end = black.recv_until("end", WAIT).await.unwrap();
        assert_eq!(end["d"]["reason"], "agreement");
        end
    } else {
        let who = if loser == "red" { &mut red } else { &mut black };
        who.send("resign", Value::Null, None).await.unwrap();
        let end = who.recv_until("end", WAIT).await.unwrap();
        assert_eq!(end["d"]["reason"], "resignation");
        end
    };
    red.close().await;
    black.close().await;
    end
}

/// Each player's seat link for round `round`, by player id.
async fn seat_links(addr: SocketAddr, id: &str, tokens: &[String], round: u64) -> Vec<String> {
    let mut links = Vec::new();
    for tok in tokens {
        let v = view(addr, id, tok).await;
        assert_eq!(v["you"]["role"], "player");
        let g = v["you"]["games"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["round"] == round)
            .unwrap_or_else(|| panic!("no game in round {round}: {v}"));
        links.push(g["url"].as_str().unwrap().to_string());
    }
    links
}

fn pairs_of(v: &Value, round: usize) -> Vec<(u64, u64)> {
    v["rounds"][round]["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["red"].as_u64().unwrap(), b["black"].as_u64().unwrap()))
        .collect()
}

async fn duplicate_swiss_from_join_links_to_verified_deals(db: Db) {
    let db = db.path();
    let mut server = start_at(&db).await;
    let mut addr = server.addr;

    let created = ok(
        addr,
        "POST",
        "/api/tournaments",
        json!({"name": "周末揭棋赛", "format": "swiss", "rounds": 2, "deal_mode": "duplicate", "time": "10+5"}),
    )
    .await;
    let id = created["id"].as_str().unwrap().to_string();
    let org = created["organiser_token"].as_str().unwrap().to_string();
    assert_eq!(created["join_url"], format!("/t/{id}"));
    // The event page is served.
    let page = http(addr, "GET", &format!("/t/{id}"), None).await.unwrap();
    assert_eq!(page.status, 200);

    let mut tokens = Vec::new();
    for (name, rating) in [("甲", 2000), ("乙", 1900), ("丙", 1800), ("丁", 1700)] {
        let r = ok(
            addr,
            "POST",
            &format!("/api/tournaments/{id}/join"),
            json!({"name": name, "rating": rating}),
        )
        .await;
        tokens.push(r["token"].as_str().unwrap().to_string());
    }
    let v = view(addr, &id, &org).await;
    assert_eq!(v["you"]["role"], "organiser");
    assert_eq!(v["players"].as_array().unwrap().len(), 4);
    assert_eq!(v["status"], "registering");

    // Start: round 1 is paired with one committed deal for both boards.
    let v = ok(
        addr,
        "POST",
        &format!("/api/tournaments/{id}/start"),
        json!({"token": org}),
    )
    .await;
    assert_eq!(v["status"], "running");
    let r1 = pairs_of(&v, 0);
    assert_eq!(r1.len(), 2);
    let deals: HashSet<u64> = v["rounds"][0]["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["deal"].as_u64().unwrap())
        .collect();
    assert_eq!(deals.len(), 1, "duplicate: one deal for every board");
    let d1 = *deals.iter().next().unwrap() as usize;
    let commitment = v["deals"][d1]["commitment"].as_str().unwrap().to_string();
    assert!(commitment.starts_with("sha256:"));
    assert_eq!(v["deals"][d1]["deal"], Value::Null, "unpublished");
    // Every board's server game carries the event's commitment.
    for b in v["rounds"][0]["boards"].as_array().unwrap() {
        let g = b["game"].as_str().unwrap();
        let (_, s) = call(addr, "GET", &format!("/api/games/{g}"), None).await;
        assert_eq!(s["commitment"], commitment);
        assert_eq!(b["private"], true);
    }

    // Play board 1 (Black resigns), then board 2 (Red resigns).
    let links = seat_links(addr, &id, &tokens, 1).await;
    let (r, b) = r1[0];
    let end = play_board(addr, &links[r as usize], &links[b as usize], "black").await;
    // Its players do not get the deal while board 2 still plays it.
    assert_eq!(end["d"]["withheld"], true, "{end}");
    assert_eq!(end["d"]["deal"], "");
    assert_eq!(end["d"]["salt"], "");
    assert_eq!(end["d"]["moves"], json!([]));
    let v = wait_for(addr, &id, |v| {
        v["rounds"][0]["boards"][0]["result"] == "1-0"
    })
    .await;
    // The deal is still in play on board 2: board 1 cannot be watched or replayed.
    let g1 = v["rounds"][0]["boards"][0]["game"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, e) = call(addr, "GET", &format!("/api/games/{g1}/replay"), None).await;
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (403, Some("private")),
        "{e}"
    );
    let mut spy = jieqi_server::client::WsClient::connect(addr).await.unwrap();
    spy.send("join", json!({"game": g1}), None).await.unwrap();
    expect_error(&mut spy, "private").await;
    assert_eq!(v["deals"][d1]["deal"], Value::Null);

    let (r, b) = r1[1];
    play_board(addr, &links[r as usize], &links[b as usize], "red").await;
    let v = wait_for(addr, &id, |v| v["rounds"][0]["complete"] == true).await;
    assert_eq!(v["rounds"][0]["boards"][1]["result"], "0-1");
    // Standings: the two winners on 1 point, the losers on 0.
    let st = v["standings"].as_array().unwrap();
    let winners: HashSet<u64> = [r1[0].0, r1[1].1].into();
    for row in st {
        let p = row["player"].as_u64().unwrap();
        let expect = if winners.contains(&p) { 1.0 } else { 0.0 };
        assert_eq!(row["points"].as_f64().unwrap(), expect, "{row}");
    }
    // The round is over: the deal is published, verifies, and the games are public.
    let deal = v["deals"][d1]["deal"].as_str().unwrap();
    let salt = v["deals"][d1]["salt"].as_str().unwrap();
    assert!(
        Deal::parse(deal)
            .unwrap()
            .verify_commitment(salt, &commitment)
    );
    assert_eq!(v["deals"][d1]["verifies"], true);
    let (status, rep) = call(addr, "GET", &format!("/api/games/{g1}/replay"), None).await;
    assert_eq!(status, 200);
    assert_eq!(rep["deal"], deal, "the game was played on the event's deal");
    // Board 1's players now get the deal with the end of their game.
    let seat = links[r1[0].0 as usize].strip_prefix("/game/").unwrap();
    let (_, tok) = seat.split_once("?seat=").unwrap();
    let (back, st) = join(addr, &g1, Some(tok)).await;
    assert_eq!(st["d"]["end"]["withheld"], false, "{st}");
    assert_eq!(st["d"]["end"]["deal"], deal);
    assert_eq!(st["d"]["end"]["commitment_ok"], true);
    back.close().await;
    // The crosstable has each player's round-1 entry.
    assert_eq!(v["crosstable"][0]["entries"].as_array().unwrap().len(), 1);

    // A restart: the event survives with its results.
    server.shutdown().await;
    server = start_at(&db).await;
    addr = server.addr;
    let v = view(addr, &id, &org).await;
    assert_eq!(v["you"]["role"], "organiser");
    assert_eq!(v["rounds"][0]["boards"][1]["result"], "0-1");

    // Round 2: no repeat pairing, one deal again.
    let v = ok(
        addr,
        "POST",
        &format!("/api/tournaments/{id}/pair"),
        json!({"token": org}),
    )
    .await;
    let r2 = pairs_of(&v, 1);
    for &(a, b) in &r2 {
        assert!(
            !r1.iter()
                .any(|&(x, y)| (x, y) == (a, b) || (x, y) == (b, a)),
            "repeat pairing {a}-{b}: {r1:?} then {r2:?}"
        );
    }
    let d2: HashSet<u64> = v["rounds"][1]["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["deal"].as_u64().unwrap())
        .collect();
    assert_eq!(d2.len(), 1);
    assert!(!d2.contains(&(d1 as u64)));
    let links = seat_links(addr, &id, &tokens, 2).await;
    for (&(r, b), how) in r2.iter().zip(["black", "draw"]) {
        play_board(addr, &links[r as usize], &links[b as usize], how).await;
    }
    let v = wait_for(addr, &id, |v| v["finished"] == true).await;
    assert_eq!(v["rounds"][1]["boards"][1]["result"], "1/2");
    let total: f64 = v["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["points"].as_f64().unwrap())
        .sum();
    assert_eq!(total, 4.0);
    assert_eq!(v["status"], "finished");
    // Every deal is published and verifies against its commitment.
    for d in v["deals"].as_array().unwrap() {
        let deal = Deal::parse(d["deal"].as_str().unwrap()).unwrap();
        assert!(deal.verify_commitment(
            d["salt"].as_str().unwrap(),
            d["commitment"].as_str().unwrap()
        ));
    }
    // Places and the HTML crosstable export.
    assert_eq!(v["places"].as_array().unwrap().len(), 4);
    let html = http(
        addr,
        "GET",
        &format!("/api/tournaments/{id}/export?format=html"),
        None,
    )
    .await
    .unwrap();
    assert_eq!(html.status, 200);
    assert!(String::from_utf8_lossy(&html.body).contains("周末揭棋赛"));
    // Nothing left to pair.
    let (status, e) = call(
        addr,
        "POST",
        &format!("/api/tournaments/{id}/pair"),
        Some(json!({"token": org})),
    )
    .await;
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (409, Some("refused"))
    );
    server.shutdown().await;
}

async fn knockout_match_creates_its_next_game_by_itself(db: Db) {
    let db = db.path();
    let server = start_at(&db).await;
    let addr = server.addr;
    let created = ok(
        addr,
        "POST",
        "/api/tournaments",
        json!({"name": "KO", "format": "knockout", "best_of": 3, "deal_mode": "duplicate", "time": "5+0"}),
    )
    .await;
    let id = created["id"].as_str().unwrap().to_string();
    let org = created["organiser_token"].as_str().unwrap().to_string();
    let mut tokens = Vec::new();
    for (name, rating) in [("High", 2100), ("Low", 1500)] {
        let r = ok(
            addr,
            "POST",
            &format!("/api/tournaments/{id}/join"),
            json!({"name": name, "rating": rating}),
        )
        .await;
        tokens.push(r["token"].as_str().unwrap().to_string());
    }
    let v = ok(
        addr,
        "POST",
        &format!("/api/tournaments/{id}/start"),
        json!({"token": org}),
    )
    .await;
    // Game 1: the higher seed (player 0) has Red.
    assert_eq!(pairs_of(&v, 0), vec![(0, 1)]);
    assert_eq!(v["rounds"][0]["boards"][0]["knockout"]["game"], 1);
    let links = seat_links(addr, &id, &tokens, 1).await;
    play_board(addr, &links[0], &links[1], "black").await;

    // Game 2 appears by itself, colours swapped, on the same (duplicate) deal.
    let v = wait_for(addr, &id, |v| {
        v["rounds"][1]["boards"][0]["game"].is_string()
    })
    .await;
    assert_eq!(pairs_of(&v, 1), vec![(1, 0)]);
    assert_eq!(v["rounds"][1]["boards"][0]["knockout"]["game"], 2);
    assert_eq!(
        v["rounds"][0]["boards"][0]["deal"],
        v["rounds"][1]["boards"][0]["deal"]
    );
    let m = &v["bracket"]["stages"][0]["matches"][0];
    assert_eq!(m["score"], json!([1.0, 0.0]));
    assert_eq!(m["winner"], Value::Null);
    // Game 1's deal will be played again: it stays private.
    let g1 = v["rounds"][0]["boards"][0]["game"].as_str().unwrap();
    let (status, _) = call(addr, "GET", &format!("/api/games/{g1}/record"), None).await;
    assert_eq!(status, 403);

    // The lower seed wins game 2 (as Red): 1–1, so game 3 follows, higher seed Red.
    let links = seat_links(addr, &id, &tokens, 2).await;
    play_board(addr, &links[1], &links[0], "black").await;
    let v = wait_for(addr, &id, |v| {
        v["rounds"][2]["boards"][0]["game"].is_string()
    })
    .await;
    assert_eq!(pairs_of(&v, 2), vec![(0, 1)]);
    let links = seat_links(addr, &id, &tokens, 3).await;
    play_board(addr, &links[0], &links[1], "red").await;
    let v = wait_for(addr, &id, |v| v["finished"] == true).await;
    let m = &v["bracket"]["stages"][0]["matches"][0];
    assert_eq!(m["winner"], 1);
    assert_eq!(m["score"], json!([1.0, 2.0]));
    assert_eq!(v["places"][0]["player"], 1);
    assert!(
        v["deals"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["verifies"] == true)
    );
    server.shutdown().await;
}

async fn hostile_tournament_requests_change_nothing(db: Db) {
    let db = db.path();
    let server = start_at(&db).await;
    let addr = server.addr;
    let mk = |name: &str| json!({"name": name, "format": "swiss", "rounds": 3});
    let a = ok(addr, "POST", "/api/tournaments", mk("A")).await;
    let b = ok(addr, "POST", "/api/tournaments", mk("B")).await;
    let (aid, aorg) = (
        a["id"].as_str().unwrap(),
        a["organiser_token"].as_str().unwrap(),
    );
    let (bid, borg) = (
        b["id"].as_str().unwrap(),
        b["organiser_token"].as_str().unwrap(),
    );
    let join_path = format!("/api/tournaments/{aid}/join");
    for n in ["P1", "P2", "P3"] {
        ok(addr, "POST", &join_path, json!({"name": n})).await;
    }
    let before = view(addr, aid, "").await;

    let expect = |status: u16, code: &'static str| {
        move |(s, v): (u16, Value)| {
            assert_eq!(
                (s, v["error"]["code"].as_str()),
                (status, Some(code)),
                "{v}"
            );
        }
    };
    let post = |path: String, body: &str| {
        let body = body.to_string();
        async move {
            let r = http(addr, "POST", &path, Some(&body)).await.unwrap();
            (r.status, r.json().unwrap_or(Value::Null))
        }
    };
    // Garbage and malformed bodies.
    expect(400, "bad_request")(post("/api/tournaments".into(), "{not json").await);
    expect(400, "bad_request")(post("/api/tournaments".into(), "[1,2]").await);
    expect(400, "bad_request")(post("/api/tournaments".into(), r#"{"name":""}"#).await);
    expect(400, "bad_request")(
        post(
            "/api/tournaments".into(),
            r#"{"name":"x","format":"ladder"}"#,
        )
        .await,
    );
    expect(400, "bad_request")(post("/api/tournaments".into(), r#"{"name":"x","rounds":0}"#).await);
    expect(400, "bad_request")(
        post(
            "/api/tournaments".into(),
            r#"{"name":"x","time":"forever"}"#,
        )
        .await,
    );
    expect(400, "bad_request")(post(join_path.clone(), r#"{"name":"\u0007bell"}"#).await);
    expect(400, "bad_request")(post(join_path.clone(), r#"{"rating":5}"#).await);
    // A name already taken.
    expect(409, "refused")(post(join_path.clone(), r#"{"name":"P1"}"#).await);
    // Oversized body.
    let huge = format!("{{\"name\":\"{}\"}}", "x".repeat(40_000));
    expect(413, "too_large")(post(join_path.clone(), &huge).await);
    expect(413, "too_large")(post("/api/tournaments".into(), &huge).await);
    // Unknown events.
    expect(404, "no_tournament")(call(addr, "GET", "/api/tournaments/zzzzzzzzzz", None).await);
    expect(404, "no_tournament")(call(addr, "GET", "/api/tournaments/..%2F..", None).await);
    // Bad tokens, and B's organiser acting on A.
    for tok in ["", "00000000000000000000000000000000", borg] {
        let body = json!({"token": tok}).to_string();
        expect(403, "bad_token")(post(format!("/api/tournaments/{aid}/start"), &body).await);
        let body = json!({"token": tok, "player": 0}).to_string();
        expect(403, "bad_token")(post(format!("/api/tournaments/{aid}/remove"), &body).await);
    }
    expect(400, "bad_request")(post(format!("/api/tournaments/{aid}/start"), "{}").await);
    // A player's token is not the organiser's.
    let (_, pv) = call(addr, "POST", &join_path, Some(json!({"name": "P4"}))).await;
    let ptok = pv["token"].as_str().unwrap().to_string();
    let body = json!({"token": ptok}).to_string();
    expect(403, "bad_token")(post(format!("/api/tournaments/{aid}/start"), &body).await);
    // The organiser removes P4 before the start.
    ok(
        addr,
        "POST",
        &format!("/api/tournaments/{aid}/remove"),
        json!({"token": aorg, "player": 3}),
    )
    .await;
    assert_eq!(view(addr, aid, "").await, before, "nothing changed");
    // B is untouched by all of this.
    assert_eq!(view(addr, bid, "").await["players"], json!([]));

    // Started: joining is closed; bad results and boards are refused.
    ok(
        addr,
        "POST",
        &format!("/api/tournaments/{aid}/start"),
        json!({"token": aorg}),
    )
    .await;
    let started = view(addr, aid, "").await;
    expect(409, "registration_closed")(post(join_path.clone(), r#"{"name":"Late"}"#).await);
    let body = json!({"token": aorg, "round": 1, "board": 9, "result": "1-0"}).to_string();
    expect(409, "refused")(post(format!("/api/tournaments/{aid}/result"), &body).await);
    let body = json!({"token": aorg, "round": 1, "board": 1, "result": "2-0"}).to_string();
    expect(400, "bad_request")(post(format!("/api/tournaments/{aid}/result"), &body).await);
    let body = json!({"token": aorg, "deals": ["nonsense"]}).to_string();
    expect(400, "bad_request")(post(format!("/api/tournaments/{aid}/pair"), &body).await);
    let body = json!({"token": aorg}).to_string();
    expect(409, "refused")(post(format!("/api/tournaments/{aid}/pair"), &body).await);
    expect(409, "refused")(post(format!("/api/tournaments/{aid}/start"), &body).await);
    let body = json!({"token": ptok, "round": 1, "board": 1, "secret": "s"}).to_string();
    expect(403, "bad_token")(post(format!("/api/tournaments/{aid}/contribute"), &body).await);
    assert_eq!(view(addr, aid, "").await, started, "nothing changed");

    // The organiser enters a result by hand, corrects it, and re-pairs nothing started.
    let body = json!({"token": aorg, "round": 1, "board": 1, "result": "1-0"}).to_string();
    let (s, v) = post(format!("/api/tournaments/{aid}/result"), &body).await;
    assert_eq!(s, 200, "{v}");
    let body = json!({"token": aorg, "round": 1, "board": 1, "result": "1/2"}).to_string();
    let (s, v) = post(format!("/api/tournaments/{aid}/result"), &body).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["rounds"][0]["boards"][0]["result"], "1/2");
    let body = json!({"token": aorg}).to_string();
    expect(409, "refused")(post(format!("/api/tournaments/{aid}/unpair"), &body).await);
    server.shutdown().await;
}

async fn an_unstarted_round_is_repaired_with_new_games(db: Db) {
    let db = db.path();
    let server = start_at(&db).await;
    let addr = server.addr;
    let created = ok(
        addr,
        "POST",
        "/api/tournaments",
        json!({"name": "R", "format": "round-robin", "deal_mode": "random"}),
    )
    .await;
    let id = created["id"].as_str().unwrap().to_string();
    let org = created["organiser_token"].as_str().unwrap().to_string();
    for n in ["a", "b", "c", "d"] {
        ok(
            addr,
            "POST",
            &format!("/api/tournaments/{id}/join"),
            json!({"name": n}),
        )
        .await;
    }
    let v = ok(
        addr,
        "POST",
        &format!("/api/tournaments/{id}/start"),
        json!({"token": org}),
    )
    .await;
    let old: Vec<Value> = v["rounds"][0]["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["game"].clone())
        .collect();
    // Random deals: one per board, every game can be watched.
    assert!(
        v["rounds"][0]["boards"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["private"] == false)
    );
    let v = ok(
        addr,
        "POST",
        &format!("/api/tournaments/{id}/unpair"),
        json!({"token": org}),
    )
    .await;
    assert_eq!(v["rounds"], json!([]));
    assert_eq!(v["deals"], json!([]));
    let v = ok(
        addr,
        "POST",
        &format!("/api/tournaments/{id}/pair"),
        json!({"token": org}),
    )
    .await;
    for b in v["rounds"][0]["boards"].as_array().unwrap() {
        assert!(b["game"].is_string());
        assert!(!old.contains(&b["game"]));
    }
    server.shutdown().await;
}

/// A one-round, one-board Swiss event (1+0, step time 5 s) started on `server`, with
/// both players joined to their game: the event id, Red's and Black's player ids and
/// connections.
async fn one_board_event(addr: SocketAddr) -> (String, u64, u64, WsClient, WsClient) {
    let created = ok(
        addr,
        "POST",
        "/api/tournaments",
        json!({"name": "Blitz", "format": "swiss", "rounds": 1, "time": "1+0", "move_time": 5}),
    )
    .await;
    let id = created["id"].as_str().unwrap().to_string();
    let org = created["organiser_token"].as_str().unwrap().to_string();
    let mut tokens = Vec::new();
    for n in ["x", "y"] {
        let r = ok(
            addr,
            "POST",
            &format!("/api/tournaments/{id}/join"),
            json!({"name": n}),
        )
        .await;
        tokens.push(r["token"].as_str().unwrap().to_string());
    }
    let v = ok(
        addr,
        "POST",
        &format!("/api/tournaments/{id}/start"),
        json!({"token": org}),
    )
    .await;
    let (r, b) = pairs_of(&v, 0)[0];
    let links = seat_links(addr, &id, &tokens, 1).await;
    let seat = |u: &str| {
        let (g, t) = u
            .strip_prefix("/game/")
            .unwrap()
            .split_once("?seat=")
            .unwrap();
        (g.to_string(), t.to_string())
    };
    let (game, red_tok) = seat(&links[r as usize]);
    let (_, black_tok) = seat(&links[b as usize]);
    let (red, _) = join(addr, &game, Some(&red_tok)).await;
    let (black, s) = join(addr, &game, Some(&black_tok)).await;
    assert_eq!(s["d"]["status"], "live");
    (id, r, b, red, black)
}

async fn a_loss_on_time_flows_into_the_event(db: Db) {
    let db = db.path();
    let server = start_at(&db).await;
    let addr = server.addr;
    let (id, _, b, mut red, mut black) = one_board_event(addr).await;
    // A tournament game cannot be aborted.
    red.send("abort", Value::Null, None).await.unwrap();
    expect_error(&mut red, "not_abortable").await;
    // After both first moves Red's clock runs, and he lets his step time (5 s) pass:
    // a loss on time, adjudicated by the game itself.
    first_moves(&mut red, &mut black).await;
    let end = red
        .recv_until("end", Duration::from_secs(20))
        .await
        .unwrap();
    assert_eq!(end["d"]["reason"], "time");
    let v = wait_for(addr, &id, |v| v["finished"] == true).await;
    assert_eq!(v["rounds"][0]["boards"][0]["result"], "0-1");
    assert_eq!(v["standings"][0]["player"], b);
    server.shutdown().await;
}

async fn a_missed_first_move_loses_a_tournament_game(db: Db) {
    let db = db.path();
    let mut limits = jieqi_server::Limits::default();
    limits.game_start_and_chat.first_move = Duration::from_millis(800);
    let config = config(&db, jieqi_server::EngineKind::Greedy);
    let server = Server::start_with(config, limits).await.unwrap();
    let addr = server.addr;
    let (id, _, b, mut red, _black) = one_board_event(addr).await;
    // Red never makes his first move: not an abort (the pairing needs a result) but a
    // loss by forfeit, which the event enters.
    let end = red.recv_until("end", WAIT).await.unwrap();
    assert_eq!(
        (&end["d"]["result"], &end["d"]["reason"]),
        (&json!("0-1"), &json!("forfeit"))
    );
    let v = wait_for(addr, &id, |v| v["finished"] == true).await;
    assert_eq!(v["rounds"][0]["boards"][0]["result"], "0-1");
    assert_eq!(v["standings"][0]["player"], b);
    server.shutdown().await;
}

async fn organiser_and_joint_deals(db: Db) {
    let db = db.path();
    let server = start_at(&db).await;
    let addr = server.addr;
    let new_event = |mode: &'static str| async move {
        let c = ok(
            addr,
            "POST",
            "/api/tournaments",
            json!({"name": mode, "format": "swiss", "rounds": 1, "deal_mode": mode}),
        )
        .await;
        let id = c["id"].as_str().unwrap().to_string();
        let mut tokens = Vec::new();
        for n in ["p", "q"] {
            let r = ok(
                addr,
                "POST",
                &format!("/api/tournaments/{id}/join"),
                json!({"name": n}),
            )
            .await;
            tokens.push(r["token"].as_str().unwrap().to_string());
        }
        (
            id,
            c["organiser_token"].as_str().unwrap().to_string(),
            tokens,
        )
    };

    // Organiser-given: the game is played on exactly that deal.
    let (id, org, _) = new_event("organiser").await;
    let (status, e) = call(
        addr,
        "POST",
        &format!("/api/tournaments/{id}/start"),
        Some(json!({"token": org})),
    )
    .await;
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (409, Some("refused")),
        "{e}"
    );
    assert_eq!(
        view(addr, &id, "").await["started"],
        false,
        "nothing changed"
    );
    let given = Deal::from_seed(b"organiser's deal").to_string();
    let v = ok(
        addr,
        "POST",
        &format!("/api/tournaments/{id}/start"),
        json!({"token": org, "deals": [given]}),
    )
    .await;
    let d = v["rounds"][0]["boards"][0]["deal"].as_u64().unwrap() as usize;
    let commitment = v["deals"][d]["commitment"].as_str().unwrap().to_string();
    let game = v["rounds"][0]["boards"][0]["game"]
        .as_str()
        .unwrap()
        .to_string();
    ok(
        addr,
        "POST",
        &format!("/api/tournaments/{id}/result"),
        json!({"token": org, "round": 1, "board": 1, "result": "+-"}),
    )
    .await;
    let v = view(addr, &id, "").await;
    assert_eq!(v["deals"][d]["deal"], given);
    assert!(
        Deal::parse(&given)
            .unwrap()
            .verify_commitment(v["deals"][d]["salt"].as_str().unwrap(), &commitment)
    );
    let (_, s) = call(addr, "GET", &format!("/api/games/{game}"), None).await;
    assert_eq!(
        s["commitment"], commitment,
        "the game is on the organiser's deal"
    );

    // Joint: no game until both players have given their secret.
    let (id, org, tokens) = new_event("joint").await;
    let v = ok(
        addr,
        "POST",
        &format!("/api/tournaments/{id}/start"),
        json!({"token": org}),
    )
    .await;
    assert_eq!(v["rounds"][0]["boards"][0]["game"], Value::Null);
    let contribute = |tok: &str| json!({"token": tok, "round": 1, "board": 1, "secret": format!("secret of {tok}")});
    let path = format!("/api/tournaments/{id}/contribute");
    let v = ok(addr, "POST", &path, contribute(&tokens[0])).await;
    assert_eq!(v["you"]["contribute"][0]["given"], true);
    assert_eq!(v["rounds"][0]["boards"][0]["game"], Value::Null);
    let (status, e) = call(addr, "POST", &path, Some(contribute(&tokens[0]))).await;
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (409, Some("refused")),
        "{e}"
    );
    let v = ok(addr, "POST", &path, contribute(&tokens[1])).await;
    let game = v["rounds"][0]["boards"][0]["game"].as_str().unwrap();
    let d = v["rounds"][0]["boards"][0]["deal"].as_u64().unwrap() as usize;
    let (_, s) = call(addr, "GET", &format!("/api/games/{game}"), None).await;
    assert_eq!(s["commitment"], v["deals"][d]["commitment"]);
    // The other player's secret is never shown.
    assert!(!v.to_string().contains(&format!("secret of {}", tokens[0])));
    server.shutdown().await;
}

/// A crash between a game's end and the event's update: at the next start the server
/// enters the stored result, pairs the match's next game and creates it.
async fn a_result_missed_by_a_crash_is_entered_at_restart(db: Db) {
    let db = db.path();
    let server = start_at(&db).await;
    let addr = server.addr;
    let created = ok(
        addr,
        "POST",
        "/api/tournaments",
        json!({"name": "KO", "format": "knockout", "best_of": 3}),
    )
    .await;
    let id = created["id"].as_str().unwrap().to_string();
    let org = created["organiser_token"].as_str().unwrap().to_string();
    for (n, r) in [("a", 2000), ("b", 1000)] {
        ok(
            addr,
            "POST",
            &format!("/api/tournaments/{id}/join"),
            json!({"name": n, "rating": r}),
        )
        .await;
    }
    let v = ok(
        addr,
        "POST",
        &format!("/api/tournaments/{id}/start"),
        json!({"token": org}),
    )
    .await;
    let game = v["rounds"][0]["boards"][0]["game"]
        .as_str()
        .unwrap()
        .to_string();
    server.shutdown().await;
    // The game's end reached the database; the event never heard of it.
    let n = execute(
        &db,
        "UPDATE games SET result = '1-0', winner = 'red', reason = 'resignation',
           finished_ms = 1, updated_ms = 1 WHERE id = $1",
        &game,
    )
    .await;
    assert_eq!(n, 1);
    let server = start_at(&db).await;
    let addr = server.addr;
    let v = view(addr, &id, "").await;
    assert_eq!(v["rounds"][0]["boards"][0]["result"], "1-0");
    assert_eq!(
        pairs_of(&v, 1),
        vec![(1, 0)],
        "game 2 paired, colours swapped"
    );
    assert!(
        v["rounds"][1]["boards"][0]["game"].is_string(),
        "and created"
    );
    server.shutdown().await;
}
