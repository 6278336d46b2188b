//! The analysis board in a real browser (headless Chromium through chromedriver, like
//! `tests/browser.rs`): from a finished game's replay, "Analyse this game" draws the
//! evaluation graph and the engine's lines; a face-down piece's move asks which
//! identity to reveal, with the pool's odds, and adds a variation to the tree.
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
    b.shot("analysis-game");

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
