//! The analysis board in a real browser (headless Chromium through chromedriver, like
//! `tests/browser.rs`): from a finished game's replay, "Analyse this game" draws the
//! evaluation graph and the engine's lines; a face-down piece's move asks which
//! identity to reveal, with the pool's odds, and adds a variation to the tree; a
//! spectator's analysis board follows a live game as the players move.
//!
//! Needs `chromium` and `chromium-driver`.

use jieqi_server::client::http as api;
use serde_json::json;

mod common;
mod webdriver;
use webdriver::*;

#[test]
fn analyse_a_finished_game_and_branch_with_a_reveal() {
    let stage = Stage::start(jieqi_server::EngineKind::Greedy);
    let (addr, rt) = (stage.addr, &stage.rt);
    // A short finished game: both first moves, then Red resigns.
    let (id, first_from) = rt.block_on(async {
        let g = common::create(
            addr,
            json!({"opponent": "friend", "color": "red", "time": "none"}),
        )
        .await;
        let (mut red, mut black) = common::seat_both(addr, &g).await;
        common::first_moves(&mut red, &mut black).await;
        red.send("resign", serde_json::Value::Null, None)
            .await
            .unwrap();
        red.recv_until("end", common::WAIT).await.unwrap();
        let rep = api(addr, "GET", &format!("/api/games/{}/replay", g.id), None)
            .await
            .unwrap()
            .json()
            .unwrap();
        (g.id, rep["moves"][0]["from"].as_str().unwrap().to_string())
    });
    let base = stage.base.clone();
    let b = stage.browser("profile");

    b.goto(&format!("{base}/replay/{id}"));
    b.wait_for("#analyse-this-game");
    b.click("#analyse-this-game");
    // The whole game is analysed on the server, the graph drawn with one point a ply.
    b.wait_for("#eval-graph polyline.graph-line");
    let points = b.script(
        "return document.querySelector('#eval-graph polyline').getAttribute('points').trim().split(/\\s+/).length;",
        json!([]),
    );
    assert_eq!(points, json!(3), "start and two plies");
    // The engine's lines for the board's position.
    b.wait_for("#engine-lines .engine-line .line-pv");
    assert!(!b.text("#engine-lines .line-score").is_empty());
    b.wait_for("#analysis-viewer");
    b.page_shots("analysis");

    // At the start, move a face-down cannon the game did not move: the board asks
    // which identity it turns out to be, with the odds of Red's pool.
    let from = if first_from == "h2" { "b2" } else { "h2" };
    b.wait_for(&format!(".piece[data-sq='{from}']"));
    b.wait(
        "legal moves from the server",
        "return document.querySelectorAll('#engine-lines .engine-line').length > 0;",
        json!([]),
        WAIT,
    );
    b.click(&format!(".piece[data-sq='{from}']"));
    b.wait_for(".dest[data-sq='e2']");
    b.click(".dest[data-sq='e2']");
    b.wait_for("#reveal-chooser .reveal-choice[data-role=C]");
    let odds = b.text("#reveal-chooser .reveal-choice[data-role=C] .odds");
    assert_eq!(odds, "13%", "2 cannons of 15 face-down pieces");
    b.click("#reveal-chooser .reveal-choice[data-role=C]");
    // A side line beside the game's first move, current, named in Chinese notation.
    b.wait_for("#var-tree .variation .var-move.current");
    let text = b.text("#var-tree .variation .var-move.current");
    assert!(text.contains("炮") && text.ends_with('炮'), "{text}");
    assert!(b.find("#reveal-chooser").is_none());
    // The engine now analyses Black's reply there; the piece stands revealed.
    b.wait_for(".piece[data-sq='e2']");
    b.wait(
        "lines for the new position",
        "return document.querySelectorAll('#engine-lines .engine-line').length > 0;",
        json!([]),
        WAIT,
    );
    // Back to the main line with a click in the tree.
    b.click("#var-tree > .var-move[data-ply='1']");
    b.wait_for("#var-tree > .var-move.current[data-ply='1']");
    b.shot("analysis-variation");
    assert_no_console_errors([&b]);
    stage.finish([b]);
}

/// The lines' box shows lines, for the node the board shows.
const FRESH_LINES: &str = "const box = document.querySelector('#engine-lines');
     return !!box && box.querySelector('.engine-line .line-pv') !== null
       && box.dataset.node === document.querySelector('.board-box').dataset.node;";

/// A spectator opens the analysis board of a live game: it shows the game's moves as
/// the public knows them and follows the game — each move a player makes extends the
/// main line, the board goes there and the engine's lines start again for it. Stepped
/// back, the board stays where the user is while the line grows, until *Back to the
/// game*. The position the engine is given is the spectator's view, never the
/// capturer's; the capturer's own analysis tab has his. In Chinese too.
#[test]
fn spectator_follows_a_live_game_on_the_analysis_board() {
    let stage = Stage::start(jieqi_server::EngineKind::Greedy);
    let (addr, rt) = (stage.addr, &stage.rt);
    let (g, mut red, mut black) = rt.block_on(async {
        let g = common::create(
            addr,
            json!({"opponent": "friend", "color": "red", "time": "none"}),
        )
        .await;
        let (mut red, black) = common::seat_both(addr, &g).await;
        // Red's face-down cannon takes Black's face-down piece on b9: only Red learns
        // what it was.
        red.send("move", json!({"uci": "b2b9"}), None)
            .await
            .unwrap();
        common::move_event(&mut red, 1).await;
        (g, red, black)
    });
    let public = |rt: &tokio::runtime::Runtime| -> String {
        rt.block_on(async {
            api(
                addr,
                "GET",
                &format!("/api/analysis/start?game={}", g.id),
                None,
            )
            .await
            .unwrap()
            .json()
            .unwrap()["fen"]
                .as_str()
                .unwrap()
                .to_string()
        })
    };
    let base = stage.base.clone();
    let b = stage.browser("spectator");
    // From the game page as a spectator: its *Analyse* link (a new tab there).
    b.goto(&format!("{base}/game/{}", g.id));
    b.wait_for("#to-analysis");
    let link = b.script(
        "return document.querySelector('#to-analysis').href;",
        json!([]),
    );
    assert_eq!(link, json!(format!("{base}/analysis/{}", g.id)));
    b.goto(link.as_str().unwrap());
    b.wait_for("#var-tree > .var-move.current[data-ply='1']");
    b.wait_for("#follow-live[data-state='following']");
    assert_eq!(b.text("#analysis-viewer"), "public view (spectator)");
    b.wait("lines for ply 1", FRESH_LINES, json!([]), WAIT);
    // The engine is given the public view: the capture's identity is not in it.
    let public_position = |b: &Browser, what: &str| {
        b.wait(
            what,
            "return document.querySelector('.board-box').dataset.fen === arguments[0];",
            json!([public(rt)]),
            WAIT,
        )
    };
    public_position(&b, "the public position after ply 1");

    // Black answers: the board follows to ply 2 with fresh lines.
    let node_of = |b: &Browser| {
        b.script(
            "return document.querySelector('.board-box').dataset.node;",
            json!([]),
        )
    };
    let before = node_of(&b);
    rt.block_on(async {
        let ev = common::move_event(&mut black, 1).await;
        let m = ev["d"]["legal"][0].as_str().unwrap().to_string();
        black.send("move", json!({ "uci": m }), None).await.unwrap();
        common::move_event(&mut red, 2).await;
    });
    b.wait_for("#var-tree > .var-move.current[data-ply='2']");
    assert_ne!(node_of(&b), before, "the board moved on");
    b.wait("lines for ply 2", FRESH_LINES, json!([]), WAIT);
    public_position(&b, "the public position after ply 2");
    b.shot("analysis-live-following");

    // Stepped back to ply 1: Red's next move extends the line but leaves the board.
    b.click("#var-tree > .var-move[data-ply='1']");
    b.wait_for("#follow-live[data-state='paused']");
    let at_ply_1 = node_of(&b);
    rt.block_on(async {
        let s = common::sync(&mut red).await;
        let m = s["d"]["legal"][0].as_str().unwrap().to_string();
        red.send("move", json!({ "uci": m }), None).await.unwrap();
        common::move_event(&mut black, 3).await;
    });
    b.wait_for("#var-tree > .var-move[data-ply='3']");
    assert_eq!(node_of(&b), at_ply_1, "not yanked to the game");
    assert!(
        b.find("#var-tree > .var-move.current[data-ply='1']")
            .is_some()
    );
    // In Chinese, *Back to the game* takes the board to ply 3 and follows again.
    b.click("#lang-toggle");
    b.wait(
        "the Chinese button",
        "const e = document.querySelector('#follow-live'); return !!e && e.textContent === '回到对局最新局面';",
        json!([]),
        WAIT,
    );
    b.click("#follow-live");
    b.wait_for("#var-tree > .var-move.current[data-ply='3']");
    b.wait_for("#follow-live[data-state='following']");
    assert_eq!(b.text("#follow-live"), "● 跟随对局中");
    assert!(
        b.find("#delete-variation").is_none(),
        "the game's moves stay"
    );
    b.wait("lines for ply 3", FRESH_LINES, json!([]), WAIT);
    public_position(&b, "the public position after ply 3");

    // Red's own analysis tab (his seat's token, as his game page links it) follows
    // from his view: he knows what he took on b9, the public does not.
    let red_view = rt.block_on(async {
        let q = format!("/api/analysis/start?game={}&seat={}", g.id, g.token);
        let v = api(addr, "GET", &q, None).await.unwrap().json().unwrap();
        v["fen"].as_str().unwrap().to_string()
    });
    assert_ne!(red_view, public(rt));
    let p = stage.browser("red-player");
    p.goto(&format!("{base}/analysis/{}?seat={}", g.id, g.token));
    p.wait_for("#follow-live[data-state='following']");
    assert_eq!(p.text("#analysis-viewer"), "Red's view");
    p.wait(
        "Red's own position",
        "return document.querySelector('.board-box').dataset.fen === arguments[0];",
        json!([red_view]),
        WAIT,
    );

    // The game ends: the board says so and offers the whole-game analysis.
    rt.block_on(async {
        black
            .send("resign", serde_json::Value::Null, None)
            .await
            .unwrap();
        black.recv_until("end", common::WAIT).await.unwrap();
    });
    b.wait_for("#follow-state[data-state='over']");
    b.wait_for("#analyse-game");
    assert_eq!(b.text("#analysis-viewer"), "公开棋谱");
    p.wait_for("#follow-state[data-state='over']");
    assert_no_console_errors([&b, &p]);
    stage.finish([b, p]);
}

/// A followed game takes a move back: the taken-back ply leaves the analysis board's
/// main line (and the tree: the user made no moves of his own from it), the board goes
/// back to the game's position and follows on; the move played instead becomes the
/// line's next ply. Black's own analysis tab (his seat's view, watching) follows it.
#[test]
fn a_takeback_leaves_the_followed_line() {
    let stage = Stage::start(jieqi_server::EngineKind::Greedy);
    let (addr, rt) = (stage.addr, &stage.rt);
    let (g, mut red, mut black) = rt.block_on(async {
        let g = common::create(
            addr,
            json!({"opponent": "friend", "color": "red", "time": "none"}),
        )
        .await;
        let (mut red, mut black) = common::seat_both(addr, &g).await;
        // Kings' moves reveal nothing: the last one may be taken back.
        for (n, m) in [(1u64, "a3a4"), (2, "a6a5"), (3, "e0e1"), (4, "e9e8")] {
            let mover = if n % 2 == 1 { &mut red } else { &mut black };
            mover.send("move", json!({ "uci": m }), None).await.unwrap();
            common::move_event(&mut red, n).await;
            common::move_event(&mut black, n).await;
        }
        (g, red, black)
    });
    let base = stage.base.clone();
    let black_token = g.invite.clone().expect("the friend's seat");
    let b = stage.browser("black-analysis");
    b.goto(&format!("{base}/analysis/{}?seat={black_token}", g.id));
    b.wait_for("#var-tree > .var-move.current[data-ply='4']");
    b.wait_for("#follow-live[data-state='following']");
    assert_eq!(b.text("#analysis-viewer"), "Black's view");
    let node_at = |ply: u32| {
        b.script(
            "const e = document.querySelector(`#var-tree > .var-move[data-ply='${arguments[0]}']`); return e ? e.dataset.node : null;",
            json!([ply]),
        )
    };
    let king_move = node_at(4);
    assert!(king_move.is_string());

    // Black asks to take his king move back; Red accepts.
    rt.block_on(async {
        black
            .send("takeback", serde_json::Value::Null, None)
            .await
            .unwrap();
        red.recv_until("takeback", common::WAIT).await.unwrap();
        red.send("accept_takeback", serde_json::Value::Null, None)
            .await
            .unwrap();
        let s = black.recv_until("state", common::WAIT).await.unwrap();
        assert_eq!(s["d"]["moves"].as_array().unwrap().len(), 3, "{s}");
    });
    b.wait_for("#var-tree > .var-move.current[data-ply='3']");
    b.wait_for("#follow-live[data-state='following']");
    assert!(
        node_at(4).is_null(),
        "the taken-back ply left the main line"
    );
    let in_tree = b.script(
        "return document.querySelector(`#var-tree [data-node='${arguments[0]}']`) !== null;",
        json!([king_move]),
    );
    assert_eq!(in_tree, json!(false), "and the tree");
    assert!(b.find("#var-tree .variation").is_none());

    // Black plays another move: it is the line's ply 4, and the board follows it.
    rt.block_on(async {
        black
            .send("move", json!({ "uci": "c6c5" }), None)
            .await
            .unwrap();
        common::move_event(&mut red, 4).await;
    });
    b.wait_for("#var-tree > .var-move.current[data-ply='4']");
    assert_ne!(node_at(4), king_move);
    assert_eq!(
        b.script(
            "return document.querySelectorAll('#var-tree > .var-move').length;",
            json!([])
        ),
        json!(5),
        "the start and four plies"
    );
    assert!(b.find("#var-tree .variation").is_none());
    assert_no_console_errors([&b]);
    stage.finish([b]);
}
