//! Issue 18, "What to build": the board controls a player has on lichess and pychess,
//! each seen in headless Chromium against the real server (tests/browser.rs explains
//! the setup). The other seat plays over a plain WebSocket, so its moves are chosen here.
//!
//! - `flip_board_is_remembered`: the flip button turns the board, its file numbers,
//!   coordinates and the player panels round, for a player and a spectator; the choice
//!   outlives a reload.
//! - `piece_styles_and_themes`: traditional characters (in the embedded font), Western
//!   letters and a green board chosen in the settings panel, remembered, and used on the
//!   replay and analysis boards.
//! - `sounds_and_turn_title`: the sounds asked for (start, move, reveal, capture, end;
//!   recorded, not listened to), the mute switch remembered, and the tab title saying
//!   "Your turn".
//! - `low_time_sound_once_a_turn`: the low-time tick when the step time runs low, once.
//! - `keyboard_move_input`: moves typed as 「炮二平五」, `C8+2` and `a3a4`; a clear
//!   error for an unreadable, illegal, ambiguous or untimely entry.
//! - `premove_played_or_cancelled`: a premove shown, cancelled by a right click or a
//!   click elsewhere, cancelled (and said so) when illegal at our turn, played when legal.
//! - `long_press_shows_odds`: on a touch screen a finger held on a face-down piece
//!   shows its odds until lifted or moved, and neither selects nor moves; a tap still
//!   selects.

use jieqi_server::client::WsClient;
use serde_json::{Value, json};

mod common;
mod webdriver;
use webdriver::*;

/// The stage and one browser with a profile of its own.
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

    /// A friend game with these settings, Red the creator: (id, Red's token, Black's
    /// token).
    fn friend_game(&self, settings: Value) -> (String, String, String) {
        let mut body = json!({ "opponent": "friend", "color": "red", "time": "10+5" });
        for (k, v) in settings.as_object().into_iter().flatten() {
            body[k] = v.clone();
        }
        let g = self.rt.block_on(common::create(self.addr, body));
        (g.id, g.token, g.invite.expect("the friend's seat"))
    }

    /// A seat's socket, joined.
    fn socket(&self, id: &str, token: Option<&str>) -> WsClient {
        self.rt.block_on(common::join(self.addr, id, token)).0
    }

    fn send(&self, c: &mut WsClient, t: &str, d: Value) {
        self.rt
            .block_on(c.send(t, d, None))
            .expect("send over the socket");
    }

    /// The browser plays Red in a new friend game whose Black seat is `black` here.
    fn play_red(&self) -> (String, WsClient) {
        self.play_red_with(json!({}))
    }

    /// The same with other game settings.
    fn play_red_with(&self, settings: Value) -> (String, WsClient) {
        let (id, red_token, black_token) = self.friend_game(settings);
        let black = self.socket(&id, Some(&black_token));
        self.b
            .goto(&format!("{}/game/{id}?seat={red_token}", self.base));
        self.b.wait_for(".board-box[data-status=live]");
        (id, black)
    }

    fn finish(self) {
        let errors = self.b.console_errors();
        assert!(errors.is_empty(), "the page logged errors: {errors:#?}");
        self.stage.finish([self.b]);
    }
}

/// Whether the piece on `sq` is drawn in the lower half of the board.
fn in_lower_half(b: &Browser, sq: &str) -> bool {
    b.script(
        "const svg = document.querySelector('svg.board').getBoundingClientRect();
         const p = document.querySelector(`svg.board .piece[data-sq=${arguments[0]}]`).getBoundingClientRect();
         return p.top + p.height / 2 > svg.top + svg.height / 2;",
        json!([sq]),
    ) == Value::Bool(true)
}

/// The file numbers along the bottom edge, left to right.
fn bottom_numbers(b: &Browser) -> String {
    b.script(
        "const nums = [...document.querySelectorAll('svg.board .filenum')];
         const ys = nums.map(e => Number(e.getAttribute('y')));
         const low = Math.max(...ys);
         return nums.filter(e => Number(e.getAttribute('y')) === low)
           .sort((a, b) => a.getAttribute('x') - b.getAttribute('x')).map(e => e.textContent).join('');",
        json!([]),
    )
    .as_str()
    .unwrap_or_default()
    .to_string()
}

/// The colour of the first player panel (the one above the board's side panel).
fn top_panel(b: &Browser) -> String {
    b.script(
        "const p = document.querySelector('.side .player'); return p.classList.contains('red') ? 'red' : 'black';",
        json!([]),
    )
    .as_str()
    .unwrap_or_default()
    .to_string()
}

#[test]
fn flip_board_is_remembered() {
    let f = Fixture::start();
    let b = &f.b;
    let (id, _black) = f.play_red();
    assert!(in_lower_half(b, "e0"), "Red's king at the bottom for Red");
    assert_eq!(bottom_numbers(b), "九八七六五四三二一");
    assert_eq!(top_panel(b), "black");

    b.click("#flip-board");
    b.wait(
        "the board turned round",
        "const p = document.querySelector('svg.board .piece[data-sq=e0]').getBoundingClientRect();
         const s = document.querySelector('svg.board').getBoundingClientRect();
         return p.top + p.height / 2 < s.top + s.height / 2;",
        json!([]),
        WAIT,
    );
    assert_eq!(
        bottom_numbers(b),
        "987654321",
        "Black's numbers (from his right) at the bottom"
    );
    assert_eq!(top_panel(b), "red", "the panels follow the board");
    assert_eq!(
        b.script(
            "return document.querySelector('#flip-board').getAttribute('aria-pressed');",
            json!([])
        ),
        json!("true")
    );

    // Remembered in this browser: still turned after a reload, and for a spectator
    // (whose usual side is Red's) too.
    b.script("location.reload();", json!([]));
    b.wait_for(".board-box[data-status=live]");
    assert!(!in_lower_half(b, "e0"), "still flipped after a reload");
    b.goto(&format!("{}/game/{id}", f.base));
    b.wait_for(".board-box[data-status=live]");
    assert!(!in_lower_half(b, "e0"), "a spectator's board flipped too");
    assert_eq!(bottom_numbers(b), "987654321");
    b.click("#flip-board");
    b.wait(
        "the spectator's board back",
        "const p = document.querySelector('svg.board .piece[data-sq=e0]').getBoundingClientRect();
         const s = document.querySelector('svg.board').getBoundingClientRect();
         return p.top + p.height / 2 > s.top + s.height / 2;",
        json!([]),
        WAIT,
    );
    assert_eq!(bottom_numbers(b), "九八七六五四三二一");
    f.finish();
}

/// What the piece on `sq` shows.
fn piece_text(b: &Browser, sq: &str) -> String {
    b.script(
        "const t = document.querySelector(`svg.board .piece[data-sq=${arguments[0]}] .char`); return t ? t.textContent : null;",
        json!([sq]),
    )
    .as_str()
    .unwrap_or_default()
    .to_string()
}

/// Chooses `value` in the settings panel's select `css` (opening the panel if needed).
fn choose(b: &Browser, css: &str, value: &str) {
    if b.find("#settings-panel").is_none() {
        b.click("#board-settings");
    }
    b.wait_for(css);
    b.script(
        "const s = document.querySelector(arguments[0]); s.value = arguments[1];
         s.dispatchEvent(new Event('change', { bubbles: true }));",
        json!([css, value]),
    );
}

#[test]
fn piece_styles_and_themes() {
    let f = Fixture::start();
    let b = &f.b;
    let (id, mut black) = f.play_red();
    assert_eq!(piece_text(b, "e0"), "帅");
    assert_eq!(piece_text(b, "e9"), "将");

    // Traditional characters, drawn with the embedded font.
    choose(b, "#piece-style", "traditional");
    b.wait(
        "traditional characters",
        "const t = document.querySelector('svg.board .piece[data-sq=e0] .char'); return !!t && t.textContent === '帥';",
        json!([]),
        WAIT,
    );
    assert_eq!(piece_text(b, "e9"), "將");
    assert_eq!(
        b.script(
            "return getComputedStyle(document.querySelector('svg.board .piece[data-sq=e0] .char')).fontFamily.includes('Jieqi Pieces');",
            json!([])
        ),
        json!(true)
    );
    assert!(
        b.text("svg.board").contains("漢 界"),
        "the river in traditional characters"
    );

    // Western letters, and a theme.
    choose(b, "#piece-style", "western");
    b.wait(
        "Western letters",
        "const t = document.querySelector('svg.board .piece[data-sq=e0] .char'); return !!t && t.textContent === 'K';",
        json!([]),
        WAIT,
    );
    let wood = b.script(
        "return getComputedStyle(document.querySelector('svg.board .wood')).fill;",
        json!([]),
    );
    choose(b, "#board-theme", "green");
    b.wait_for("svg.board.theme-green");
    assert_ne!(
        b.script(
            "return getComputedStyle(document.querySelector('svg.board .wood')).fill;",
            json!([])
        ),
        wood,
        "the green board is not the wooden one"
    );

    b.shot("board-western-green");

    // Remembered, and used on the replay and analysis boards too.
    b.script("location.reload();", json!([]));
    b.wait_for(".board-box[data-status=live] svg.board.theme-green");
    assert_eq!(piece_text(b, "e9"), "K");
    // Before the first moves the game ends by an abort (a resignation is refused).
    f.send(&mut black, "abort", Value::Null);
    b.wait_for("#result");
    b.goto(&format!("{}/replay/{id}", f.base));
    b.wait_for("svg.board.theme-green .piece[data-sq=e0]");
    assert_eq!(piece_text(b, "e0"), "K");
    b.goto(&format!("{}/analysis", f.base));
    b.wait_for("svg.board.theme-green .piece[data-sq=e0]");
    assert_eq!(piece_text(b, "e0"), "K");
    choose(b, "#piece-style", "simplified");
    b.wait(
        "simplified characters again",
        "const t = document.querySelector('svg.board .piece[data-sq=e0] .char'); return !!t && t.textContent === '帅';",
        json!([]),
        WAIT,
    );
    f.finish();
}

/// The sounds the page asked for (its `window.jieqiSounds` record), as
/// `name` or `name (muted)`.
fn sounds(b: &Browser) -> Vec<String> {
    let v = b.script(
        "return (window.jieqiSounds || []).map(s => s.played ? s.name : s.name + ' (muted)');",
        json!([]),
    );
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn wait_title(b: &Browser, title: &str) {
    b.wait(
        &format!("the title {title:?}"),
        "return document.title === arguments[0];",
        json!([title]),
        WAIT,
    );
}

#[test]
fn sounds_and_turn_title() {
    let f = Fixture::start();
    let b = &f.b;
    let (_id, mut black) = f.play_red();
    wait_title(b, "● Your turn · Jieqi");
    assert_eq!(sounds(b), ["start"], "the game starts");

    // Red's face-down cannon moves and shows what it is; then it is Black's turn.
    click_a_move(b, Some(("h2", "e2")));
    wait_plies(b, 1);
    wait_title(b, "Jieqi 揭棋");
    assert_eq!(sounds(b), ["start", "move", "reveal"]);
    f.send(&mut black, "move", json!({ "uci": "a6a5" }));
    wait_plies(b, 2);
    wait_title(b, "● Your turn · Jieqi");

    // Muted (and remembered): still asked for, not played.
    b.click("#sound-toggle");
    b.wait_for("#sound-toggle[data-muted=true]");
    b.script("location.reload();", json!([]));
    b.wait_for("#sound-toggle[data-muted=true]");
    wait_title(b, "● Your turn · Jieqi");
    click_a_move(b, Some(("b2", "b4")));
    wait_plies(b, 3);
    // Black's face-down cannon jumps Red's piece on b4 and takes the horse on b0.
    f.send(&mut black, "move", json!({ "uci": "b7b0" }));
    wait_plies(b, 4);
    b.wait(
        "the capture asked for",
        "return (window.jieqiSounds || []).some(s => s.name === 'capture' && !s.played);",
        json!([]),
        WAIT,
    );
    assert!(
        sounds(b).iter().all(|s| s.ends_with("(muted)")),
        "nothing plays while muted: {:?}",
        sounds(b)
    );
    b.click("#sound-toggle");
    b.wait_for("#sound-toggle[data-muted=false]");
    f.send(&mut black, "resign", Value::Null);
    b.wait_for("#result");
    wait_title(b, "Jieqi 揭棋");
    assert_eq!(sounds(b).last().map(String::as_str), Some("end"));
    f.finish();
}

#[test]
fn low_time_sound_once_a_turn() {
    let f = Fixture::start();
    let b = &f.b;
    // A 12 s step time: under 10 s two seconds into Red's second turn.
    let (_id, mut black) = f.play_red_with(json!({ "time": "10+0", "move_time": 12 }));
    click_a_move(b, Some(("a3", "a4")));
    wait_plies(b, 1);
    f.send(&mut black, "move", json!({ "uci": "a6a5" }));
    wait_plies(b, 2);
    b.wait(
        "the low-time tick",
        "return (window.jieqiSounds || []).some(s => s.name === 'lowtime');",
        json!([]),
        WAIT,
    );
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let ticks = sounds(b)
        .iter()
        .filter(|s| s.starts_with("lowtime"))
        .count();
    assert_eq!(ticks, 1, "one tick a turn: {:?}", sounds(b));
    click_a_move(b, Some(("i3", "i4")));
    wait_plies(b, 3);
    f.finish();
}

/// Types `text` into the element `css` with the keyboard, then Enter.
fn type_and_enter(b: &Browser, css: &str, text: &str) {
    let id = b
        .find(css)
        .unwrap_or_else(|| b.fail(&format!("no element {css}")));
    b.script(
        "document.querySelector(arguments[0]).value = '';",
        json!([css]),
    );
    let keys = format!("{text}\u{E007}");
    if let Err(e) = b.cmd(
        "POST",
        &format!("/element/{id}/value"),
        Some(json!({ "text": keys })),
    ) {
        b.fail(&format!("type into {css}: {e}"));
    }
}

fn ply_text(b: &Browser, n: usize) -> String {
    b.text(&format!("#moves td.ply[data-n='{n}']"))
}

fn wait_input_error(b: &Browser, code: &str) {
    b.wait(
        &format!("the input error {code}"),
        "const e = document.querySelector('#move-input-error'); return !!e && e.dataset.code === arguments[0] && e.textContent.length > 0;",
        json!([code]),
        WAIT,
    );
}

#[test]
fn keyboard_move_input() {
    let f = Fixture::start();
    let b = &f.b;
    let (_id, mut black) = f.play_red();
    b.wait_for("#move-input-form:not(.hidden)");

    // Chinese: the face-down piece on h2 moves as the cannon it started as.
    type_and_enter(b, "#move-input", "炮二平五");
    wait_plies(b, 1);
    assert!(ply_text(b, 1).starts_with("炮二平五"), "{}", ply_text(b, 1));
    // Typed while it is not our move.
    type_and_enter(b, "#move-input", "C8+2");
    wait_input_error(b, "notYourTurn");
    f.send(&mut black, "move", json!({ "uci": "a6a5" }));
    wait_plies(b, 2);

    // WXF, then UCI.
    type_and_enter(b, "#move-input", "C8+2");
    wait_plies(b, 3);
    assert!(ply_text(b, 3).starts_with("炮八进二"), "{}", ply_text(b, 3));
    assert_eq!(b.text("#move-input-error"), "", "no error left");
    f.send(&mut black, "move", json!({ "uci": "i6i5" }));
    wait_plies(b, 4);
    type_and_enter(b, "#move-input", "z9z9");
    wait_input_error(b, "unreadable");
    // The chariot on i0 cannot pass its own pawn on i3.
    type_and_enter(b, "#move-input", "R1+9");
    wait_input_error(b, "illegal");
    assert!(
        b.text("#move-input-error").contains("R1+9"),
        "the error names the entry"
    );
    type_and_enter(b, "#move-input", "a3a4");
    wait_plies(b, 5);
    assert_eq!(
        b.script(
            "return !!document.querySelector('svg.board .piece[data-sq=a4]') && !document.querySelector('svg.board .piece[data-sq=a3]');",
            json!([])
        ),
        json!(true)
    );

    // Two cannons on one file: 「炮五平六」 needs 前 or 后.
    let read = |text: &str| {
        b.script(
            "return Promise.all([import('/assets/moveinput.js'), import('/assets/notation.js')])
               .then(([m, n]) => m.readMove(arguments[0], n.parseBoard('4k4/9/9/9/9/9/4C4/9/4C4/4K4'), ['e3e4', 'e1e2', 'e3d3', 'e1d1']));",
            json!([text]),
        )
    };
    assert_eq!(read("炮五平六")["error"], "ambiguous");
    assert_eq!(read("炮五平六")["candidates"], json!(["e3d3", "e1d1"]));
    assert_eq!(read("前炮平六")["uci"], "e3d3");
    assert_eq!(read("C-+1")["uci"], "e1e2");
    f.finish();
}

fn premove_marks(b: &Browser) -> Value {
    b.script(
        "return [[...document.querySelectorAll('svg.board .premove')].map(e => e.dataset.sq), document.querySelector('.board-box').dataset.premove || null];",
        json!([]),
    )
}

/// Clicks the piece on `from`, then its (premove) destination `to`.
fn premove(b: &Browser, from: &str, to: &str) {
    b.click(&format!(".piece[data-sq='{from}']"));
    b.click(&format!(".dest[data-sq='{to}']"));
    b.wait(
        "the premove shown",
        "return document.querySelector('.board-box').dataset.premove === arguments[0] && document.querySelectorAll('svg.board .premove').length === 2;",
        json!([format!("{from}{to}")]),
        WAIT,
    );
}

#[test]
fn premove_played_or_cancelled() {
    let f = Fixture::start();
    let b = &f.b;
    let (_id, mut black) = f.play_red();
    click_a_move(b, Some(("a3", "a4")));
    wait_plies(b, 1);

    // Black to move: Red premoves its chariot, then takes it back with a right click.
    premove(b, "i0", "i4");
    assert_eq!(premove_marks(b), json!([["i0", "i4"], "i0i4"]));
    b.shot("board-premove");
    right_click(b, "svg.board .wood");
    b.wait(
        "the premove cancelled",
        "return !document.querySelector('svg.board .premove') && !document.querySelector('.board-box').dataset.premove;",
        json!([]),
        WAIT,
    );

    // Made again; when the turn comes it is illegal (the pawn on i3 blocks): cancelled,
    // and the player told.
    premove(b, "i0", "i4");
    f.send(&mut black, "move", json!({ "uci": "a6a5" }));
    wait_plies(b, 2);
    b.wait_for("#notice[data-code=premove_cancelled]");
    assert_eq!(premove_marks(b), json!([[], null]));
    b.wait_for("#status.mine");
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(
        b.script(
            "return document.querySelectorAll('#moves td.ply').length;",
            json!([])
        ),
        json!(2),
        "nothing played"
    );

    // A click elsewhere cancels; a legal premove is played as soon as the turn comes.
    click_a_move(b, Some(("i3", "i4")));
    wait_plies(b, 3);
    premove(b, "h2", "h4");
    b.click(".piece[data-sq='e9']");
    b.wait(
        "the premove cancelled by a click",
        "return !document.querySelector('svg.board .premove');",
        json!([]),
        WAIT,
    );
    premove(b, "h2", "h4");
    f.send(&mut black, "move", json!({ "uci": "i6i5" }));
    wait_plies(b, 5);
    assert!(ply_text(b, 5).starts_with("炮二进二"), "{}", ply_text(b, 5));
    assert_eq!(premove_marks(b), json!([[], null]));
    assert!(b.find("#notice[data-code=premove_cancelled]").is_none());
    f.finish();
}

/// Whether the odds tooltip shows the rows of `color`'s face-down pieces.
fn odds_shown(b: &Browser) -> bool {
    b.script(
        "const o = document.querySelector('#odds');
         return !!o && !o.classList.contains('hidden') && o.querySelectorAll('.odds-row').length > 0;",
        json!([]),
    ) == Value::Bool(true)
}

fn destinations(b: &Browser) -> usize {
    b.script(
        "return document.querySelectorAll('.dest').length;",
        json!([]),
    )
    .as_u64()
    .unwrap_or_default() as usize
}

/// Touch input comes through the DevTools protocol (chromedriver's W3C touch actions
/// never reach the page as touch): the same pointer events a phone sends.
#[test]
fn long_press_shows_odds() {
    let f = Fixture::start();
    let b = &f.b;
    let (_id, _black) = f.play_red();
    let held = std::time::Duration::from_millis(900);

    // Held on one of our own face-down pieces: its odds, and no selection.
    touch_start(b, ".piece[data-sq='b2']");
    std::thread::sleep(held);
    b.wait(
        "the odds on a long press",
        "return !!document.querySelector('#odds:not(.hidden) .odds-row');",
        json!([]),
        WAIT,
    );
    assert_eq!(
        b.script(
            "return document.querySelector('#odds').dataset.sq;",
            json!([])
        ),
        json!("b2")
    );
    assert_eq!(destinations(b), 0, "a long press does not select");
    touch_end(b);
    b.wait(
        "the odds hidden once the finger is lifted",
        "return document.querySelector('#odds').classList.contains('hidden');",
        json!([]),
        WAIT,
    );
    assert_eq!(destinations(b), 0);
    // Shown again, then the finger moves a little: the odds go, and nothing is dragged.
    touch_start(b, ".piece[data-sq='b2']");
    std::thread::sleep(held);
    b.wait(
        "the odds again",
        "return !!document.querySelector('#odds:not(.hidden) .odds-row');",
        json!([]),
        WAIT,
    );
    touch_move(b, ".piece[data-sq='b2']", 12, 0);
    b.wait(
        "the odds hidden once the finger moves",
        "return document.querySelector('#odds').classList.contains('hidden');",
        json!([]),
        WAIT,
    );
    touch_end(b);
    assert_eq!(destinations(b), 0);
    assert!(b.find("svg.board .piece.dragging").is_none());

    // A tap selects as a click does; then a long press on a piece our selection could
    // take shows its odds and takes nothing.
    tap(b, ".piece[data-sq='b2']");
    b.wait_for(".dest[data-sq='b9']");
    assert!(!odds_shown(b), "a tap shows no odds");
    touch_start(b, ".piece[data-sq='b9']");
    std::thread::sleep(held);
    b.wait("Black's odds", "return document.querySelector('#odds:not(.hidden)') !== null && document.querySelector('#odds').dataset.sq === 'b9';", json!([]), WAIT);
    assert!(odds_shown(b));
    touch_end(b);
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!odds_shown(b));
    wait_plies(b, 0);
    assert!(
        b.find("svg.board .piece.red[data-sq='b2']").is_some()
            && b.find("svg.board .piece.black[data-sq='b9']").is_some(),
        "nothing moved"
    );
    f.finish();
}
