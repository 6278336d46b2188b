//! Issue 18, "Bugs a player hits", each seen in headless Chromium against the real
//! server (tests/browser.rs explains the setup): the other seat plays over a plain
//! WebSocket, so the moves are known in advance.
//!
//! - `own_list_shows_hidden_captures`: a player's list says 「吃暗」 for a face-down
//!   piece taken from him (his socket never carries its identity), names it at the end;
//!   the pools and captured panels follow the ply looked at; a second click deselects;
//!   after the end no odds on hover, no blank captured disc, no "draw declined".
//! - `offline_move_refused_and_spectator_follows_rematch`: a move while the connection
//!   is lost is refused where the player sees it, and made once reconnected; a
//!   spectator gets the replay button and is taken to the rematch.
//! - `not_found_page`: one localized 404 page for unknown paths, games and events.
//! - `pieces_use_the_embedded_font`: the board's characters come from the shipped font.

use std::time::Duration;

use jieqi_server::client::{WsClient, http};
use serde_json::{Value, json};

mod common;
mod webdriver;
use webdriver::*;

/// The stage (a server that can restart on its address and database, a
/// chromedriver) and `people` browsers with profiles of their own.
struct Fixture {
    stage: Stage,
    browsers: Vec<Browser>,
}

impl std::ops::Deref for Fixture {
    type Target = Stage;
    fn deref(&self) -> &Stage {
        &self.stage
    }
}

impl Fixture {
    fn start(people: usize) -> Fixture {
        let stage = Stage::start(jieqi_server::EngineKind::Search);
        let browsers = stage.browsers(people);
        Fixture { stage, browsers }
    }

    /// A friend game, Red the creator: (id, Red's token, Black's token).
    fn friend_game(&self) -> (String, String, String) {
        let g = self.rt.block_on(common::create(
            self.addr,
            json!({ "opponent": "friend", "color": "red", "time": "10+5",
                    "captured_identity": "capturer" }),
        ));
        (g.id, g.token, g.invite.expect("the friend's seat"))
    }

    /// A seat's (or a spectator's) socket, joined, logging every message.
    fn socket(&self, id: &str, token: Option<&str>) -> WsClient {
        self.rt.block_on(async {
            let (mut c, _) = common::join(self.addr, id, token).await;
            c.keep_log = true;
            c
        })
    }

    fn send(&self, c: &mut WsClient, t: &str, d: Value) {
        self.rt
            .block_on(c.send(t, d, None))
            .expect("send over the socket");
    }

    /// Reads what has arrived on `c` until it has been quiet for a moment.
    fn drain(&self, c: &mut WsClient) {
        while self.rt.block_on(c.recv(Duration::from_millis(300))).is_ok() {}
    }

    fn assert_no_console_errors(&self) {
        assert_no_console_errors(&self.browsers);
    }

    /// No console error but those mentioning one of `expected`.
    fn assert_no_console_errors_but(&self, expected: &[&str]) {
        assert_no_console_errors_but(&self.browsers, expected);
    }

    fn finish(self) {
        self.stage.finish(self.browsers);
    }
}

/// The text of ply `n` in the move list.
fn ply_text(b: &Browser, n: usize) -> String {
    b.text(&format!("#moves td.ply[data-n='{n}']"))
}

/// Each side's pool total and captured pieces as the side panel shows them:
/// `[red pool, black pool, red lost, black lost]`.
fn panels(b: &Browser) -> Value {
    b.script(
        "const pool = (c) => [...document.querySelectorAll(`.pool[data-color=${c}] .pool-item .count`)]
           .reduce((s, e) => s + Number(e.textContent.replace('×', '')), 0);
         const lost = (c) => document.querySelectorAll(`.captured-row[data-color=${c}] svg.mini`).length;
         return [pool('red'), pool('black'), lost('red'), lost('black')];",
        json!([]),
    )
}

/// The character of a Black piece letter.
fn black_char(letter: char) -> char {
    match letter {
        'r' => '车',
        'n' => '马',
        'b' => '象',
        'a' => '士',
        'c' => '炮',
        'p' => '卒',
        other => panic!("not a Black identity: {other}"),
    }
}

#[test]
fn own_list_shows_hidden_captures() {
    let f = Fixture::start(1);
    let b = &f.browsers[0];
    let (id, red_token, black_token) = f.friend_game();
    let mut red = f.socket(&id, Some(&red_token));
    // A second connection of Black's seat: what Black's page is told.
    let mut black = f.socket(&id, Some(&black_token));
    b.goto(&format!("{}/game/{id}?seat={black_token}", f.base));
    b.wait_for(".board-box[data-status=live]");

    // Red's face-down cannon jumps its screen and takes Black's face-down piece on h9;
    // the identity goes to the capturer only.
    f.send(&mut red, "move", json!({ "uci": "h2h9" }));
    wait_plies(b, 1);
    let text = ply_text(b, 1);
    assert!(
        text.ends_with("吃暗"),
        "Black's list shows the capture: {text}"
    );
    assert_eq!(
        panels(b),
        json!([14, 15, 0, 1]),
        "after Red's reveal and capture"
    );

    // A second click on the selected piece puts it down; then Black moves a6a5.
    b.wait_for("#status.mine");
    b.click(".piece[data-sq='a6']");
    b.wait_for(".hints .selected");
    b.click(".piece[data-sq='a6']");
    b.wait(
        "the piece deselected",
        "return !document.querySelector('.hints .selected') && !document.querySelector('.dest');",
        json!([]),
        WAIT,
    );
    b.click(".piece[data-sq='a6']");
    b.click(".dest[data-sq='a5']");
    wait_plies(b, 2);
    assert_eq!(panels(b), json!([14, 14, 0, 1]), "live, after both reveals");

    // Looking back, the pools and captured pieces are those of the position shown.
    b.click("#moves td.ply[data-n='1']");
    b.wait_for(".board-box[data-browsing='1']");
    assert_eq!(panels(b), json!([14, 15, 0, 1]), "after ply 1");
    b.script(
        "document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft' }));",
        json!([]),
    );
    b.wait_for(".board-box[data-browsing='0']");
    assert_eq!(panels(b), json!([15, 15, 0, 0]), "the start position");
    b.click("#back-to-game");
    b.wait(
        "the live board",
        "return !document.querySelector('.board-box').dataset.browsing;",
        json!([]),
        WAIT,
    );
    assert_eq!(panels(b), json!([14, 14, 0, 1]));

    // Odds on hover while the game runs.
    hover(b, ".piece[data-sq='b9']");
    b.wait_for("#odds:not(.hidden)");

    // Black offers a draw, Red declines: Black is told. Then Red resigns.
    b.click("#offer-draw");
    f.rt.block_on(red.recv_until("draw", WAIT))
        .expect("the offer");
    f.send(&mut red, "decline_draw", Value::Null);
    b.wait_for("#notice[data-code=draw_declined]");
    f.send(&mut red, "resign", Value::Null);
    b.wait_for("#result");

    // Everything Black's seat was told before the end: the capture, never its identity.
    f.drain(&mut black);
    let end_at = black
        .log
        .iter()
        .position(|m| m["t"] == "end")
        .expect("the end");
    let deal = black.log[end_at]["d"]["deal"]
        .as_str()
        .expect("the deal")
        .to_string();
    let taken = deal.split('/').nth(1).unwrap().chars().nth(6).unwrap();
    let taken_char = black_char(taken);
    for m in &black.log[..end_at] {
        let plies: Vec<&Value> = match m["t"].as_str() {
            Some("move") => vec![&m["d"]["ply"]],
            Some("state") => m["d"]["moves"].as_array().unwrap().iter().collect(),
            _ => vec![],
        };
        for p in plies.into_iter().filter(|p| p["n"] == 1) {
            assert_eq!(
                p["captured"], "x",
                "Black is told of a face-down capture: {p}"
            );
            assert!(
                !p["zh"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("吃{taken_char}")),
                "{p}"
            );
            assert!(p["uci"].as_str().unwrap().len() <= 5, "{p}");
            assert!(p["wxf"].as_str().unwrap().ends_with("x?"), "{p}");
        }
    }

    // At the end: the capture named, no odds on hover, no blank captured disc, and the
    // old notice gone.
    b.wait(
        "the capture named at the end",
        "const p = document.querySelector(\"#moves td.ply[data-n='1']\"); return !!p && p.textContent.endsWith(arguments[0]);",
        json!([format!("吃{taken_char}")]),
        WAIT,
    );
    assert_eq!(
        panels(b),
        json!([14, 13, 0, 1]),
        "the piece taken has left Black's pool"
    );
    assert_eq!(
        b.script(
            "return document.querySelectorAll('.captured-row .piece.down').length;",
            json!([])
        ),
        json!(0),
        "captured face-down pieces show their identity"
    );
    assert_eq!(
        b.script(
            "const g = document.querySelector('.captured-row[data-color=black] .piece'); return g && g.querySelector('.char').textContent;",
            json!([])
        ),
        json!(taken_char.to_string())
    );
    assert_eq!(
        b.script("return document.querySelector('#notice');", json!([])),
        Value::Null,
        "no draw-declined notice on the result screen"
    );
    hover(b, ".piece[data-sq='a5']");
    hover(b, ".piece[data-sq='b9']");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        b.script(
            "return document.querySelector('#odds').classList.contains('hidden');",
            json!([])
        ),
        json!(true),
        "no odds over a piece whose identity is drawn"
    );
    f.assert_no_console_errors();
    f.finish();
}

#[test]
fn offline_move_refused_and_spectator_follows_rematch() {
    let mut f = Fixture::start(2);
    let (id, red_token, black_token) = f.friend_game();
    // Black's seat joins (the game starts), over a socket that dies with the server.
    let first = f.socket(&id, Some(&black_token));
    let (a, s) = (&f.browsers[0], &f.browsers[1]);
    a.goto(&format!("{}/game/{id}?seat={red_token}", f.base));
    s.goto(&format!("{}/game/{id}", f.base));
    a.wait_for("#status.mine");
    s.wait_for(".board-box[data-status=live]");

    // The server goes away: a move made now is refused where Red sees it.
    f.stage.stop_server();
    drop(first);
    a.wait_for("#conn:not(.hidden)");
    a.click(".piece[data-sq='c3']");
    a.click(".dest[data-sq='c4']");
    a.wait_for("#notice[data-code=offline]");
    assert_eq!(
        a.script(
            "return [!!document.querySelector(\".piece[data-sq='c3']\"), !document.querySelector(\".piece[data-sq='c4']\"), document.querySelectorAll('#moves td.ply').length];",
            json!([])
        ),
        json!([true, true, 0]),
        "the board shows the position the server last sent"
    );

    // Back online: the page resyncs and the same move goes through.
    f.stage.restart_server();
    let (a, s) = (&f.browsers[0], &f.browsers[1]);
    a.wait_for("#conn.hidden");
    a.wait_for("#status.mine");
    a.click(".piece[data-sq='c3']");
    a.click(".dest[data-sq='c4']");
    wait_plies(a, 1);
    wait_plies(s, 1);

    // Black answers and resigns; the spectator gets the replay button.
    let mut black = f.socket(&id, Some(&black_token));
    f.send(&mut black, "move", json!({ "uci": "c6c5" }));
    wait_plies(a, 2);
    f.send(&mut black, "resign", Value::Null);
    s.wait_for("#result");
    s.wait_for(&format!("#to-replay[href='/replay/{id}']"));

    // Both players want a rematch: the spectator is taken to it.
    a.click("#rematch");
    f.send(&mut black, "rematch", Value::Null);
    s.wait(
        "the spectator at the rematch",
        "return location.pathname.startsWith('/game/') && location.pathname !== arguments[0] && !location.search;",
        json!([format!("/game/{id}")]),
        WAIT,
    );
    s.wait_for(".board-box");
    // Reconnecting while the server was away logs refused connections, nothing else.
    f.assert_no_console_errors_but(&["ERR_CONNECTION_REFUSED"]);
    f.finish();
}

#[test]
fn not_found_page() {
    let f = Fixture::start(1);
    let b = &f.browsers[0];
    let (id, _, _) = f.friend_game();
    let status = |path: &str| {
        let r =
            f.rt.block_on(http(f.addr, "GET", path, None))
                .expect("HTTP");
        (r.status, r.content_type.unwrap_or_default())
    };
    for path in [
        "/nonsense",
        "/game/ABC",
        "/game/zzzzzzzz",
        "/replay/zzzzzzzz",
        "/t/bad",
    ] {
        let (code, ct) = status(path);
        assert_eq!(code, 404, "{path}");
        assert!(ct.starts_with("text/html"), "{path}: {ct}");
    }
    assert_eq!(status(&format!("/game/{id}")).0, 200);
    assert_eq!(status("/").0, 200);
    assert_eq!(status("/t").0, 200);

    for (path, what) in [
        ("/nonsense", "page"),
        ("/game/ABC", "page"),
        ("/game/zzzzzzzz", "game"),
        ("/replay/zzzzzzzz", "game"),
        ("/t/bad", "event"),
    ] {
        b.goto(&format!("{}{path}", f.base));
        b.wait_for(&format!(
            "#not-found[data-what={what}] a#not-found-home[href='/']"
        ));
    }
    // In Chinese too, and the link leads home.
    let english = b.text("#not-found .error");
    b.click("#lang-toggle");
    b.wait(
        "the Chinese not-found page",
        "const e = document.querySelector('#not-found .error'); return !!e && e.textContent !== arguments[0];",
        json!([english]),
        WAIT,
    );
    assert_eq!(b.text("#not-found .error"), "没有这个比赛");
    b.click("#not-found-home");
    b.wait_for("#play-engine");
    // The browser logs each 404 document it loads; nothing else may be logged.
    f.assert_no_console_errors_but(&["status of 404 (Not Found)"]);
    f.finish();
}

#[test]
fn pieces_use_the_embedded_font() {
    let f = Fixture::start(1);
    let b = &f.browsers[0];
    let (id, _, _) = f.friend_game();
    b.goto(&format!("{}/game/{id}", f.base));
    b.wait_for("svg.board .piece .char");
    // Two different pieces drawn with the page's font differ in pixels: with no CJK
    // font on the machine (as on this test machine) both would be the same empty box.
    let v = b.cmd(
        "POST",
        "/execute/async",
        Some(json!({ "script": "
            const done = arguments[arguments.length - 1];
            const family = getComputedStyle(document.querySelector('svg.board .piece .char')).fontFamily;
            document.fonts.load('40px \"Jieqi Pieces\"', '炮兵').then((faces) => {
              const draw = (ch) => {
                const c = document.createElement('canvas');
                c.width = c.height = 48;
                const g = c.getContext('2d');
                g.font = '40px \"Jieqi Pieces\"';
                g.fillText(ch, 4, 40);
                return c.toDataURL();
              };
              done([family, faces.length, draw('炮') !== draw('兵'), draw('炮') !== draw('')]);
            });", "args": [] })),
    );
    let v = v.unwrap_or_else(|e| b.fail(&e));
    assert!(
        v[0].as_str().unwrap().starts_with("\"Jieqi Pieces\""),
        "pieces ask for the embedded font first: {v}"
    );
    assert_eq!(v[1], json!(1), "the embedded font loads: {v}");
    assert_eq!(v[2], json!(true), "炮 and 兵 look different: {v}");
    assert_eq!(v[3], json!(true), "a piece character draws something: {v}");
    let r =
        f.rt.block_on(http(
            f.addr,
            "GET",
            "/assets/fonts/jieqi-pieces.woff2",
            None,
        ))
        .unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.content_type.as_deref(), Some("font/woff2"));
    assert!(r.body.len() < 200_000);
    f.assert_no_console_errors();
    f.finish();
}

#[test]
fn tournament_pages_name_and_explain() {
    let f = Fixture::start(1);
    let b = &f.browsers[0];
    let api = |method: &str, path: &str, body: Value| -> Value {
        let r =
            f.rt.block_on(http(f.addr, method, path, Some(&body.to_string())))
                .expect("API call");
        assert!(
            r.status == 200 || r.status == 201,
            "{method} {path}: {} {}",
            r.status,
            String::from_utf8_lossy(&r.body)
        );
        r.json().unwrap()
    };
    // A one-round Swiss of two players who draw: tied after every tie-break.
    let ev = api(
        "POST",
        "/api/tournaments",
        json!({ "name": "Tie", "format": "swiss", "rounds": 1, "deal_mode": "random" }),
    );
    let (id, org) = (
        ev["id"].as_str().unwrap().to_string(),
        ev["organiser_token"].as_str().unwrap().to_string(),
    );
    for n in ["Alice", "Bob"] {
        api(
            "POST",
            &format!("/api/tournaments/{id}/join"),
            json!({ "name": n }),
        );
    }
    api(
        "POST",
        &format!("/api/tournaments/{id}/start"),
        json!({ "token": org }),
    );
    // Paired, no result yet: no tie-break is a negative zero.
    let raw =
        f.rt.block_on(http(f.addr, "GET", &format!("/api/tournaments/{id}"), None))
            .unwrap();
    let raw = String::from_utf8_lossy(&raw.body).to_string();
    assert!(!raw.contains("-0.0"), "{raw}");
    api(
        "POST",
        &format!("/api/tournaments/{id}/result"),
        json!({ "token": org, "round": 1, "board": 1, "result": "1/2" }),
    );
    b.goto(&format!("{}/t/{id}", f.base));
    b.wait_for("#t-places li");
    let ranks = b.script(
        "return [...document.querySelectorAll('#t-standings tbody tr')].map((r) => r.cells[0].textContent);",
        json!([]),
    );
    assert_eq!(ranks, json!(["1=", "1="]), "tied players share the place");
    let places = b.script(
        "return [document.querySelectorAll('#t-places ol').length,
                 ...[...document.querySelectorAll('#t-places li')].map((l) => l.textContent)];",
        json!([]),
    );
    assert_eq!(places[0], json!(0), "no list numbering besides the place");
    for p in places.as_array().unwrap()[1..].iter() {
        let p = p.as_str().unwrap();
        assert!(p.starts_with("1= "), "{p}");
        assert!(
            !p.contains("1. 1.") && p.ends_with(" by the standings"),
            "{p}"
        );
    }
    let tbs = b.script(
        "return [...document.querySelectorAll('#t-standings th.tb')].map((th) => [th.textContent, th.title]);",
        json!([]),
    );
    for tb in tbs.as_array().unwrap() {
        assert!(
            tb[1].as_str().unwrap().len() > 12,
            "each tie-break is explained: {tb}"
        );
    }
    b.wait_for("#t-legend");
    assert!(b.text("#t-legend").contains("Buchholz"));

    // In Chinese: the explanations and the places' words too.
    b.click("#lang-toggle");
    b.wait(
        "the Chinese legend",
        "const l = document.querySelector('#t-legend'); return !!l && l.textContent.includes('布赫霍尔茨');",
        json!([]),
        WAIT,
    );
    assert!(b.text("#t-places").contains("按积分排名"));

    // A knockout of two: its one round is the final, by name.
    let ko = api(
        "POST",
        "/api/tournaments",
        json!({ "name": "Cup", "format": "knockout", "best_of": 1, "deal_mode": "random" }),
    );
    let (ko_id, ko_org) = (
        ko["id"].as_str().unwrap().to_string(),
        ko["organiser_token"].as_str().unwrap().to_string(),
    );
    for n in ["S1", "S2"] {
        api(
            "POST",
            &format!("/api/tournaments/{ko_id}/join"),
            json!({ "name": n }),
        );
    }
    api(
        "POST",
        &format!("/api/tournaments/{ko_id}/start"),
        json!({ "token": ko_org }),
    );
    let view = api("GET", &format!("/api/tournaments/{ko_id}"), Value::Null);
    assert_eq!(
        view["rounds"][0]["name"],
        json!({ "en": "Final", "zh": "决赛" })
    );
    b.goto(&format!("{}/t/{ko_id}", f.base));
    b.wait_for("#t-rounds h3");
    assert!(b.text("#t-rounds h3").contains("决赛"));

    // The list's format line in Chinese, and a Swiss form without knockout fields.
    b.goto(&format!("{}/t", f.base));
    b.wait_for("#t-list .info");
    let info = b.text("#t-list");
    assert!(
        info.contains("瑞士制") && !info.contains("Swiss"),
        "format line in Chinese: {info}"
    );
    let hidden = |b: &Browser| {
        b.script(
            "return ['#t-rounds', '#t-qualifiers', '#t-best-of', '#t-third'].map((s) => document.querySelector(s).closest('label').hidden);",
            json!([]),
        )
    };
    b.script(
        "const s = document.querySelector('#t-format'); s.value = 'swiss'; s.dispatchEvent(new Event('change'));",
        json!([]),
    );
    assert_eq!(hidden(b), json!([false, true, true, true]), "Swiss form");
    b.script(
        "const s = document.querySelector('#t-format'); s.value = 'swiss-knockout'; s.dispatchEvent(new Event('change'));",
        json!([]),
    );
    assert_eq!(
        hidden(b),
        json!([false, false, false, false]),
        "Swiss then knockout"
    );
    f.assert_no_console_errors();
    f.finish();
}
