//! Accounts over HTTP: sign-up, sessions, the CSRF guard, the limit on failed logins,
//! and a rated game played through the real server that changes both players'
//! ratings once (also across a restart) and appears in both histories.

mod common;

use common::*;
use jieqi_server::client::{Account, csrf_headers, http, http_with};
use serde_json::{Value, json};

const PASSWORD: &str = "correct horse battery";

fn body(r: &jieqi_server::client::HttpResponse) -> Value {
    r.json().unwrap_or(Value::Null)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn state_changing_requests_need_the_csrf_token() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    let create = json!({ "opponent": "friend" }).to_string();
    // No token at all.
    let r = http_with(addr, "POST", "/api/games", Some(&create), &[])
        .await
        .unwrap();
    assert_eq!(
        (r.status, body(&r)["error"]["code"].clone()),
        (403, json!("csrf"))
    );
    // A header that does not repeat the cookie.
    let wrong = vec![
        (
            "Cookie".to_string(),
            format!("jieqi_csrf={}", "a".repeat(32)),
        ),
        ("X-CSRF-Token".to_string(), "b".repeat(32)),
    ];
    let r = http_with(addr, "POST", "/api/games", Some(&create), &wrong)
        .await
        .unwrap();
    assert_eq!(r.status, 403);
    // The right token from another site's page.
    let mut cross = csrf_headers("POST", &[]);
    cross.push(("Origin".to_string(), "http://evil.example".to_string()));
    let r = http_with(addr, "POST", "/api/games", Some(&create), &cross)
        .await
        .unwrap();
    assert_eq!(r.status, 403, "{}", body(&r));
    // Login and logout are state-changing too.
    let login = json!({ "name": "alice", "password": PASSWORD }).to_string();
    let r = http_with(addr, "POST", "/api/account/login", Some(&login), &[])
        .await
        .unwrap();
    assert_eq!(r.status, 403);
    // A GET hands out the cookie; with it repeated in the header the request passes.
    let r = http(addr, "GET", "/", None).await.unwrap();
    let cookie = r
        .cookies
        .iter()
        .find(|c| c.starts_with("jieqi_csrf="))
        .expect("a page sets the CSRF cookie")
        .clone();
    let token = cookie.trim_start_matches("jieqi_csrf=").to_string();
    let ok = vec![
        ("Cookie".to_string(), cookie),
        ("X-CSRF-Token".to_string(), token),
        ("Origin".to_string(), format!("http://{addr}")),
    ];
    let r = http_with(addr, "POST", "/api/games", Some(&create), &ok)
        .await
        .unwrap();
    assert_eq!(r.status, 201, "{}", body(&r));
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_up_log_in_and_out() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    let alice = Account::sign_up(addr, "Alice_1", PASSWORD).await.unwrap();
    assert_eq!(alice.name, "Alice_1");
    let r = alice.http(addr, "GET", "/api/account", None).await.unwrap();
    assert_eq!(body(&r)["user"]["name"], "Alice_1");
    let r = http(addr, "GET", "/api/account", None).await.unwrap();
    assert_eq!(body(&r)["user"], Value::Null, "a guest");
    // Names are unique whatever the case; bad names and passwords say why.
    for (name, password, status, code, says) in [
        ("alice_1", PASSWORD, 409, "name_taken", "taken"),
        ("al", PASSWORD, 400, "bad_request", "3 to 20"),
        ("<script>", PASSWORD, 400, "bad_request", "may contain only"),
        ("Bob", "short", 400, "bad_request", "at least 8"),
    ] {
        let b = json!({ "name": name, "password": password }).to_string();
        let r = http(addr, "POST", "/api/account/signup", Some(&b))
            .await
            .unwrap();
        let e = body(&r);
        assert_eq!(
            (r.status, e["error"]["code"].as_str()),
            (status, Some(code)),
            "{e}"
        );
        assert!(
            e["error"]["message"].as_str().unwrap().contains(says),
            "{e}"
        );
    }
    for bad in [
        "[]",
        "{",
        r#"{"name": 3, "password": "x"}"#,
        r#"{"name": "Bob"}"#,
    ] {
        let r = http(addr, "POST", "/api/account/signup", Some(bad))
            .await
            .unwrap();
        assert_eq!(r.status, 400, "{bad}: {}", body(&r));
    }
    // Log in in any case of the name; the session is the account as spelled.
    let again = Account::log_in(addr, "ALICE_1", PASSWORD).await.unwrap();
    assert_eq!(again.name, "Alice_1");
    assert_ne!(again.cookie, alice.cookie, "a new session per login");
    let r = again
        .http(addr, "POST", "/api/account/logout", None)
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    assert!(
        r.cookies.iter().any(|c| c == "jieqi_session="),
        "{:?}",
        r.cookies
    );
    let r = again.http(addr, "GET", "/api/account", None).await.unwrap();
    assert_eq!(body(&r)["user"], Value::Null, "the session ended");
    let r = alice.http(addr, "GET", "/api/account", None).await.unwrap();
    assert_eq!(body(&r)["user"]["name"], "Alice_1", "other sessions go on");
    // A made-up session id is nobody.
    let forged = Account {
        name: "Alice_1".into(),
        cookie: format!("jieqi_session={}", "f".repeat(64)),
    };
    let r = forged
        .http(addr, "GET", "/api/account", None)
        .await
        .unwrap();
    assert_eq!(body(&r)["user"], Value::Null);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sixth_quick_failed_login_is_refused() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    Account::sign_up(addr, "Carol", PASSWORD).await.unwrap();
    let attempt = |password: &str| {
        let b = json!({ "name": "carol", "password": password }).to_string();
        async move {
            http(addr, "POST", "/api/account/login", Some(&b))
                .await
                .unwrap()
        }
    };
    for i in 1..=5 {
        let r = attempt("wrong password").await;
        assert_eq!(
            (r.status, body(&r)["error"]["code"].clone()),
            (401, json!("bad_login")),
            "attempt {i}"
        );
    }
    // The sixth is refused before the password is looked at, even the right one.
    let r = attempt(PASSWORD).await;
    assert_eq!(r.status, 429, "{}", body(&r));
    assert_eq!(body(&r)["error"]["code"], "too_many_attempts");
    // An unknown account fails like a wrong password (no enumeration).
    let b = json!({ "name": "nobody_here", "password": PASSWORD }).to_string();
    let r = http(addr, "POST", "/api/account/login", Some(&b))
        .await
        .unwrap();
    assert_eq!(r.status, 401);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_many_failed_logins_from_one_address_are_refused() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    // 20 failures over different names (4 each, under the per-account limit).
    for i in 0..20 {
        let b = json!({ "name": format!("user{}", i / 4), "password": "nope nope" }).to_string();
        let r = http(addr, "POST", "/api/account/login", Some(&b))
            .await
            .unwrap();
        assert_eq!(r.status, 401, "attempt {i}");
    }
    let b = json!({ "name": "someone_else", "password": "nope nope" }).to_string();
    let r = http(addr, "POST", "/api/account/login", Some(&b))
        .await
        .unwrap();
    assert_eq!(r.status, 429);
    server.shutdown().await;
}

async fn profile(addr: std::net::SocketAddr, name: &str) -> Value {
    let r = http(addr, "GET", &format!("/api/users/{name}"), None)
        .await
        .unwrap();
    assert_eq!(r.status, 200, "{}", body(&r));
    body(&r)
}

fn blitz(p: &Value) -> Value {
    p["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["category"] == "blitz")
        .unwrap()
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_game_changes_both_ratings_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("test.db");
    let server = start_on(&db, 60_000, 1000.0).await;
    let addr = server.addr;
    let alice = Account::sign_up(addr, "Alice", PASSWORD).await.unwrap();
    let bob = Account::sign_up(addr, "Bob", PASSWORD).await.unwrap();
    // Guests cannot create rated games; engine and untimed games are casual.
    for (who, req, status) in [
        (
            None,
            json!({ "opponent": "friend", "rated": true, "time": "3+2" }),
            401,
        ),
        (
            Some(&alice),
            json!({ "opponent": "engine", "rated": true }),
            400,
        ),
        (
            Some(&alice),
            json!({ "opponent": "friend", "rated": true, "time": "none" }),
            400,
        ),
    ] {
        let b = req.to_string();
        let r = match who {
            Some(a) => a.http(addr, "POST", "/api/games", Some(&b)).await,
            None => http(addr, "POST", "/api/games", Some(&b)).await,
        }
        .unwrap();
        assert_eq!(r.status, status, "{req}: {}", body(&r));
    }
    let req = json!({ "opponent": "friend", "rated": true, "time": "3+2", "color": "red" });
    let r = alice
        .http(addr, "POST", "/api/games", Some(&req.to_string()))
        .await
        .unwrap();
    assert_eq!(r.status, 201, "{}", body(&r));
    let created = body(&r);
    let id = created["id"].as_str().unwrap().to_string();
    let invite = json!({ "invite": created["invite_token"] }).to_string();
    let join_path = format!("/api/games/{id}/join");
    // The free seat of a rated game: not for a guest, not for its creator.
    let r = http(addr, "POST", &join_path, Some(&invite)).await.unwrap();
    assert_eq!(
        (r.status, body(&r)["error"]["code"].clone()),
        (401, json!("login_required"))
    );
    let r = alice
        .http(addr, "POST", &join_path, Some(&invite))
        .await
        .unwrap();
    assert_eq!(
        (r.status, body(&r)["error"]["code"].clone()),
        (409, json!("own_game"))
    );
    let r = bob
        .http(addr, "POST", &join_path, Some(&invite))
        .await
        .unwrap();
    assert_eq!(r.status, 200, "{}", body(&r));
    let bob_token = body(&r)["token"].as_str().unwrap().to_string();
    let (mut red, s) = join(addr, &id, created["token"].as_str()).await;
    assert_eq!(s["d"]["rated"], true);
    assert_eq!(s["d"]["players"]["red"]["name"], "Alice");
    assert_eq!(s["d"]["players"]["black"]["name"], "Bob");
    let (mut black, s) = join(addr, &id, Some(&bob_token)).await;
    assert_eq!(s["d"]["status"], "live");
    red.recv_until("state", WAIT).await.unwrap();
    // A spectator sees the names too.
    let (_watcher, s) = join(addr, &id, None).await;
    assert_eq!(s["d"]["players"]["black"]["name"], "Bob");
    // Before both first moves only an abort ends a game; then a resignation counts.
    first_moves(&mut red, &mut black).await;
    black.send("resign", Value::Null, None).await.unwrap();
    let end = black.recv_until("end", WAIT).await.unwrap();
    assert_eq!(end["d"]["result"], "1-0");
    // Both profiles show the change once the end is stored (it is: `end` follows it).
    let a = profile(addr, "alice").await;
    let b = profile(addr, "BOB").await;
    assert_eq!(b["name"], "Bob");
    let (ar, br) = (blitz(&a), blitz(&b));
    assert!(ar["rating"].as_i64().unwrap() > 1500, "{a}");
    assert!(br["rating"].as_i64().unwrap() < 1500, "{b}");
    assert_eq!(
        (ar["games"].clone(), ar["provisional"].clone()),
        (json!(1), json!(true))
    );
    assert_eq!(a["rating_history"].as_array().unwrap().len(), 1);
    assert_eq!(
        a["results"][0],
        json!({"category": "blitz", "rated": true, "wins": 1, "draws": 0, "losses": 0})
    );
    // The histories, with filters.
    let r = http(addr, "GET", "/api/users/bob/games", None)
        .await
        .unwrap();
    let h = body(&r);
    assert_eq!(h["total"], 1, "{h}");
    let g = &h["games"][0];
    assert_eq!(g["id"], id.as_str());
    assert_eq!(g["result_for_player"], "loss");
    assert_eq!(g["color"], "black");
    assert_eq!(g["rated"], true);
    assert_eq!(g["category"], "blitz");
    assert_eq!(g["red"]["name"], "Alice");
    assert_eq!(g["rating_before"], 1500);
    assert_eq!(g["rating_after"], br["rating"]);
    for (query, total) in [
        ("result=win", 0),
        ("result=loss", 1),
        ("opponent=ALICE", 1),
        ("opponent=nobody", 0),
        ("from=2000-01-01", 1),
        ("to=2000-01-01", 0),
        ("rated=false", 0),
    ] {
        let r = http(addr, "GET", &format!("/api/users/bob/games?{query}"), None)
            .await
            .unwrap();
        assert_eq!(body(&r)["total"], total, "{query}: {}", body(&r));
    }
    for bad in [
        "result=maybe",
        "from=yesterday",
        "page=0",
        "page=x",
        "rated=perhaps",
    ] {
        let r = http(addr, "GET", &format!("/api/users/bob/games?{bad}"), None)
            .await
            .unwrap();
        assert_eq!(r.status, 400, "{bad}");
    }
    let r = http(addr, "GET", "/api/users/nobody_at_all/games", None)
        .await
        .unwrap();
    assert_eq!(
        (r.status, body(&r)["error"]["code"].clone()),
        (404, json!("no_user"))
    );
    let long = "x".repeat(5000);
    let r = http(addr, "GET", &format!("/api/users/{long}"), None)
        .await
        .unwrap();
    assert_eq!(r.status, 404);
    // The lobby line and the record name the players.
    let r = http(addr, "GET", &format!("/api/games/{id}"), None)
        .await
        .unwrap();
    assert_eq!(body(&r)["black"]["name"], "Bob");
    let r = http(addr, "GET", &format!("/api/games/{id}/record"), None)
        .await
        .unwrap();
    let pgn = String::from_utf8_lossy(&r.body).to_string();
    assert!(
        pgn.contains("[Red \"Alice\"]") && pgn.contains("[Black \"Bob\"]"),
        "{pgn}"
    );
    drop((red, black));
    server.shutdown().await;
    // After a restart nothing is rated again.
    let server = start_on(&db, 60_000, 1000.0).await;
    let again = profile(server.addr, "alice").await;
    assert_eq!(blitz(&again), ar);
    server.shutdown().await;
}

/// `GET /api/account/games` as `who` (a guest with `None`): status and body.
async fn live_games(addr: std::net::SocketAddr, who: Option<&Account>) -> (u16, Value) {
    let r = match who {
        Some(a) => a.http(addr, "GET", "/api/account/games", None).await,
        None => http(addr, "GET", "/api/account/games", None).await,
    }
    .unwrap();
    (r.status, body(&r))
}

/// `POST /api/account/games/{id}/seat` as `who`: status and body.
async fn seat_of(
    addr: std::net::SocketAddr,
    who: Option<&Account>,
    id: &str,
    req: Option<Value>,
) -> (u16, Value) {
    let b = req.map(|v| v.to_string());
    let path = format!("/api/account/games/{id}/seat");
    let r = match who {
        Some(a) => a.http(addr, "POST", &path, b.as_deref()).await,
        None => http(addr, "POST", &path, b.as_deref()).await,
    }
    .unwrap();
    (r.status, body(&r))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_account_finds_its_unfinished_games_and_only_it_gets_their_seats() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    let alice = Account::sign_up(addr, "Alice", PASSWORD).await.unwrap();
    let bob = Account::sign_up(addr, "Bob", PASSWORD).await.unwrap();
    let carol = Account::sign_up(addr, "Carol", PASSWORD).await.unwrap();
    // Alice (Red) invites Bob, who takes the seat logged in; a guest plays his own game.
    let req = json!({ "opponent": "friend", "time": "3+2", "color": "red" });
    let (id, alice_token, bob_token) = accounts_game(addr, &alice, &bob, req).await;
    let guest_game = create(addr, json!({ "opponent": "engine" })).await;

    // Each account sees its own seat of the game, nobody else's game.
    let (status, mine) = live_games(addr, Some(&alice)).await;
    assert_eq!(status, 200, "{mine}");
    let games = mine["games"].as_array().unwrap();
    assert_eq!(games.len(), 1, "{mine}");
    let g = &games[0];
    assert_eq!(
        [
            &g["id"],
            &g["color"],
            &g["opponent"],
            &g["turn"],
            &g["time"],
            &g["rated"]
        ],
        [
            &json!(id),
            &json!("red"),
            &json!("Bob"),
            &json!("red"),
            &json!("3+2"),
            &json!(false)
        ],
        "{g}"
    );
    assert_eq!(g["red"]["name"], "Alice", "{g}");
    let (_, theirs) = live_games(addr, Some(&bob)).await;
    assert_eq!(theirs["games"][0]["color"], "black", "{theirs}");
    assert_eq!(theirs["games"][0]["opponent"], "Alice", "{theirs}");
    assert_eq!(
        live_games(addr, Some(&carol)).await.1,
        json!({ "games": [] })
    );
    let (status, e) = live_games(addr, None).await;
    assert_eq!(
        (status, &e["error"]["code"]),
        (401, &json!("login_required"))
    );
    for (who, games) in [(&alice, &mine), (&bob, &theirs)] {
        assert!(
            !games.to_string().contains(&alice_token) && !games.to_string().contains(&bob_token),
            "{}: the list carries no seat token: {games}",
            who.name
        );
        assert!(!games.to_string().contains(&guest_game.id), "{games}");
    }

    // The seat token goes to the account that holds the seat, and to nobody else.
    let (status, s) = seat_of(addr, Some(&alice), &id, None).await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(
        [&s["seat"], &s["token"], &s["url"]],
        [
            &json!("red"),
            &json!(alice_token),
            &json!(format!("/game/{id}?seat={alice_token}"))
        ]
    );
    let (_, s) = seat_of(addr, Some(&bob), &id, None).await;
    assert_eq!(s["token"], json!(bob_token), "{s}");
    for (who, req, status, code) in [
        (Some(&carol), None, 403, "not_your_seat"),
        (
            Some(&carol),
            Some(json!({ "color": "red" })),
            403,
            "not_your_seat",
        ),
        (
            Some(&alice),
            Some(json!({ "color": "black" })),
            403,
            "not_your_seat",
        ),
        (
            Some(&alice),
            Some(json!({ "color": "blue" })),
            400,
            "bad_request",
        ),
        (None, None, 401, "login_required"),
    ] {
        let (got, e) = seat_of(addr, who, &id, req.clone()).await;
        assert_eq!(
            (got, e["error"]["code"].as_str()),
            (status, Some(code)),
            "{req:?}: {e}"
        );
        let text = e.to_string();
        assert!(
            !text.contains(&alice_token) && !text.contains(&bob_token),
            "{text}"
        );
    }
    let (got, e) = seat_of(addr, Some(&alice), &guest_game.id, None).await;
    assert_eq!(got, 403, "a guest's game: {e}");
    let (got, _) = seat_of(addr, Some(&alice), "nosuchgame", None).await;
    assert_eq!(got, 404);
    // Without the CSRF token the session alone gets nothing.
    let r = jieqi_server::client::http_with(
        addr,
        "POST",
        &format!("/api/account/games/{id}/seat"),
        None,
        &[("Cookie".to_string(), alice.cookie.clone())],
    )
    .await
    .unwrap();
    assert_eq!(r.status, 403, "{}", body(&r));
    assert!(!String::from_utf8_lossy(&r.body).contains(&alice_token));

    // The fetched token plays the seat: Alice moves from "another device".
    let (mut red, state) = join(addr, &id, Some(&alice_token)).await;
    assert_eq!(state["d"]["you"], "red", "{state}");
    let (mut black, _) = join(addr, &id, Some(&bob_token)).await;
    first_moves(&mut red, &mut black).await;
    let (_, mine) = live_games(addr, Some(&alice)).await;
    assert_eq!(
        [
            &mine["games"][0]["plies"],
            &mine["games"][0]["turn"],
            &mine["games"][0]["status"]
        ],
        [&json!(2), &json!("red"), &json!("live")],
        "{mine}"
    );
    // A finished game leaves the list.
    red.send("resign", Value::Null, None).await.unwrap();
    red.recv_until("end", WAIT).await.unwrap();
    for who in [&alice, &bob] {
        assert_eq!(live_games(addr, Some(who)).await.1, json!({ "games": [] }));
    }
    server.shutdown().await;
}
