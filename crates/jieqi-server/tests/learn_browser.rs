//! Issue 18 in headless Chromium against the real server (tests/browser.rs explains
//! the setup):
//!
//! - `lobby_loads_only_its_scripts`: the lobby fetches its own modules and not the
//!   game, board, analysis or tournament code (the browser's resource timing entries
//!   say what it fetched); the bytes it transferred are printed for BENCHMARKS.md.
//! - `learn_page_in_both_languages`: `/learn`, linked from the header, in English and
//!   Chinese; stepping seed 004's worked example changes the board (the reveals land
//!   where the rule text says), a face-down piece moves as its start square's piece
//!   and is revealed, the perpetual-check example ends in a loss; no JS exception.
//! - `takeback_accepted`: Red (the browser) asks to take back his last move, Black (a
//!   plain WebSocket) accepts; the page shows the position before it and plays on.
//! - `clocks_in_view_on_phone_and_laptop`: at 390×844, 1366×657 and a landscape phone
//!   (844×390) both clocks are inside the viewport without scrolling, and the players'
//!   names stay on one line.

use serde_json::{Value, json};

mod common;
mod webdriver;
use webdriver::*;

/// The stage and one browser with a fresh profile.
struct Fixture {
    stage: Stage,
    b: Browser,
}

impl std::ops::Deref for Fixture {
    type Target = Stage;
    fn deref(&self) -> &Stage {
        &self.stage
    }
}

impl Fixture {
    fn start() -> Fixture {
        let stage = Stage::start(jieqi_server::EngineKind::Search);
        let b = stage.browser("profile");
        Fixture { stage, b }
    }

    /// A friend game with Red the browser's (its seat token in `Created`) and Black
    /// joined over a plain WebSocket: live.
    fn friend_game(&self) -> (common::Created, jieqi_server::client::WsClient) {
        let g = self.rt.block_on(common::create(
            self.addr,
            json!({ "opponent": "friend", "color": "red", "time": "10+5" }),
        ));
        let (black, _) = self
            .rt
            .block_on(common::join(self.addr, &g.id, g.invite.as_deref()));
        (g, black)
    }

    fn assert_no_console_errors(&self) {
        let errors = self.b.console_errors();
        if !errors.is_empty() {
            self.b.fail(&format!("JavaScript errors: {errors:?}"));
        }
    }

    fn finish(self) {
        self.assert_no_console_errors();
        self.stage.finish([self.b]);
    }
}

/// The resources the page fetched: (file name, bytes transferred), the page first.
fn fetched(b: &Browser) -> Vec<(String, u64)> {
    let v = b.script(
        "const all = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
         return all.map(e => [new URL(e.name).pathname, e.transferSize]);",
        json!([]),
    );
    v.as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            let path = e[0].as_str().unwrap_or_default();
            let name = path.rsplit('/').next().unwrap_or_default().to_string();
            (name, e[1].as_u64().unwrap_or(0))
        })
        .collect()
}

#[test]
fn lobby_loads_only_its_scripts() {
    let s = Fixture::start();
    let b = &s.b;
    b.goto(&format!("{}/", s.base));
    b.wait_for("#play-engine");
    // Let late fetches (the font, a lazily imported module) land.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let files = fetched(b);
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    for used in ["app.js", "lobby.js", "i18n.js", "style.css"] {
        assert!(names.contains(&used), "the lobby fetched {names:?}");
    }
    for unused in [
        "game.js",
        "board.js",
        "analysis.js",
        "tournament.js",
        "replay.js",
    ] {
        assert!(
            !names.contains(&unused),
            "the lobby fetched {unused}: {names:?}"
        );
    }
    let total: u64 = files.iter().map(|(_, n)| n).sum();
    println!(
        "lobby: {} resources, {total} bytes transferred: {files:?}",
        files.len()
    );
    s.finish();
}

/// The letter on `square` of the board `board` (`X` face-down), or null.
fn piece_at(b: &Browser, board: &str, square: &str) -> Value {
    b.script(
        "const e = document.querySelector(`#${arguments[0]} .piece[data-sq='${arguments[1]}']`);
         return e ? e.dataset.piece : null;",
        json!([board, square]),
    )
}

fn wait_piece(b: &Browser, board: &str, square: &str, letter: &str) {
    b.wait(
        &format!("{letter} on {square} of {board}"),
        "const e = document.querySelector(`#${arguments[0]} .piece[data-sq='${arguments[1]}']`);
         return !!e && e.dataset.piece === arguments[2];",
        json!([board, square, letter]),
        WAIT,
    );
}

#[test]
fn learn_page_in_both_languages() {
    let s = Fixture::start();
    let b = &s.b;
    b.goto(&format!("{}/", s.base));
    b.wait_for("#play-engine");
    b.wait(
        "the header's Learn link",
        "const a = document.querySelector('#nav-learn'); return !!a && a.textContent === 'Learn';",
        json!([]),
        WAIT,
    );
    b.click("#nav-learn");
    b.wait_for("#learn-example-next");
    assert_eq!(b.text("#learn-title"), "Learn Jieqi");

    // Seed 004's example: 假兵七进一现相 假卒5进1现炮 (check) 假相三进五现车 炮5进3.
    let ex = "learn-example-board";
    assert_eq!(piece_at(b, ex, "c3"), "X");
    b.click("#learn-example-next");
    wait_piece(b, ex, "c4", "B");
    assert_eq!(piece_at(b, ex, "c3"), Value::Null);
    b.click("#learn-example-next");
    wait_piece(b, ex, "e5", "c");
    assert!(
        b.find(&format!("#{ex} .check")).is_some(),
        "the cannon gives check"
    );
    b.click("#learn-example-next");
    wait_piece(b, ex, "e2", "R");
    b.click("#learn-example-next");
    wait_piece(b, ex, "e2", "c");
    assert!(b.text("#learn-example-note").contains("takes the rook"));
    b.click("#learn-example-prev");
    wait_piece(b, ex, "e2", "R");
    b.click("#learn-example-next");
    wait_piece(b, ex, "e2", "c");

    // A face-down horse moves as a horse, and is revealed.
    let tb = "learn-try-board";
    b.click(&format!("#{tb} .piece[data-sq='b0']"));
    b.wait_for(&format!("#{tb} .dest[data-sq='c2']"));
    assert!(b.find(&format!("#{tb} .dest[data-sq='b1']")).is_none());
    b.click(&format!("#{tb} .dest[data-sq='c2']"));
    b.wait(
        "the revealed piece",
        "const e = document.querySelector(\"#learn-try-board .piece[data-sq='c2']\");
         return !!e && e.dataset.piece !== 'X';",
        json!([]),
        WAIT,
    );
    assert!(b.text("#learn-try-note").contains("moved as a horse"));

    // Perpetual check: the ninth check by the same rook loses.
    for _ in 0..17 {
        b.click("#learn-perpetual-next");
    }
    assert!(
        b.text("#learn-perpetual-note")
            .contains("Red loses by perpetual check"),
        "{}",
        b.text("#learn-perpetual-note")
    );

    // In Chinese, where the example stands.
    b.click("#lang-toggle");
    b.wait(
        "the Chinese page",
        "const e = document.querySelector('#learn-title'); return !!e && e.textContent === '学下揭棋';",
        json!([]),
        WAIT,
    );
    assert!(b.text("#learn-example-moves").contains("假兵七进一现相"));
    assert!(b.text("#learn-example-moves").contains("假卒5进1现炮"));
    assert_eq!(b.text("#nav-learn"), "学揭棋");
    wait_piece(b, ex, "e2", "c");
    b.click("#learn-example-prev");
    wait_piece(b, ex, "e2", "R");
    assert!(b.text("#learn-example-note").contains("车"));
    b.page_shots("learn");
    s.finish();
}

/// Red's move by clicking on the game page.
fn click_move(b: &Browser, from: &str, to: &str) {
    b.wait_for(&format!(
        ".board-box[data-turn='red'] .piece[data-sq='{from}']"
    ));
    b.click(&format!(".piece[data-sq='{from}']"));
    b.wait_for(&format!(".dest[data-sq='{to}']"));
    b.click(&format!(".dest[data-sq='{to}']"));
}

#[test]
fn takeback_accepted() {
    let s = Fixture::start();
    let b = &s.b;
    let (g, mut black) = s.friend_game();
    b.goto(&format!("{}/game/{}?seat={}", s.base, g.id, g.token));
    // Two reveals, then the kings step up; Black answers each of Red's moves once he
    // has seen it.
    let mut ply = 0;
    for ((from, to), answer) in [(("a3", "a4"), "a6a5"), (("e0", "e1"), "e9e8")] {
        click_move(b, from, to);
        ply += 1;
        s.rt.block_on(async {
            common::move_event(&mut black, ply).await;
            black
                .send("move", json!({ "uci": answer }), None)
                .await
                .unwrap();
            common::move_event(&mut black, ply + 1).await;
        });
        ply += 1;
    }
    // Red's king move shows nothing: it can be taken back.
    click_move(b, "e1", "e0");
    s.rt.block_on(common::move_event(&mut black, 5));
    b.wait_for("#takeback");
    b.click("#takeback");
    b.wait_for("#takeback-mine");
    s.rt.block_on(async {
        let ev = black.recv_until("takeback", common::WAIT).await.unwrap();
        assert_eq!(ev["d"]["offer"], "red", "{ev}");
        black
            .send("accept_takeback", serde_json::Value::Null, None)
            .await
            .unwrap();
    });
    // Back to four plies: the king on e1 again, Red to move, the notice shown.
    b.wait(
        "the move taken back",
        "const k = document.querySelector(\".piece[data-sq='e1']\");
         const box = document.querySelector('.board-box');
         return !!k && k.dataset.piece === 'K' && box.dataset.turn === 'red'
           && !document.querySelector(\".piece[data-sq='e0']\");",
        json!([]),
        WAIT,
    );
    assert!(b.find("#takeback-mine").is_none());
    assert!(
        b.script(
            "return document.body.innerText.includes('Moves taken back');",
            json!([])
        ) == json!(true)
    );
    // And the game goes on from there.
    click_move(b, "e1", "e0");
    s.rt.block_on(common::move_event(&mut black, 5));
    drop(black);
    s.finish();
}

#[test]
fn clocks_in_view_on_phone_and_laptop() {
    let s = Fixture::start();
    let b = &s.b;
    let (g, _black) = s.friend_game();
    for (width, height) in [(390, 844), (1366, 657), (844, 390)] {
        b.cmd(
            "POST",
            "/window/rect",
            Some(json!({ "width": width, "height": height })),
        )
        .expect("set the window size");
        b.goto(&format!("{}/game/{}?seat={}", s.base, g.id, g.token));
        b.wait_for("#clock-red");
        b.wait_for("#clock-black");
        let seen = b.script(
            "const inView = (id) => {
               const r = document.getElementById(id).getBoundingClientRect();
               return r.width > 0 && r.top >= 0 && r.left >= 0
                 && r.bottom <= innerHeight && r.right <= innerWidth;
             };
             const name = document.querySelector('#player-red .name');
             return { red: inView('clock-red'), black: inView('clock-black'),
                      scrolled: scrollY, size: [innerWidth, innerHeight],
                      nowrap: getComputedStyle(name).whiteSpace === 'nowrap' };",
            json!([]),
        );
        b.shot(&format!("game-{width}x{height}"));
        assert_eq!(seen["red"], true, "own clock at {width}x{height}: {seen}");
        assert_eq!(
            seen["black"], true,
            "opponent's clock at {width}x{height}: {seen}"
        );
        assert_eq!(seen["scrolled"], 0, "{seen}");
        assert_eq!(seen["nowrap"], true, "{seen}");
    }
    s.finish();
}
