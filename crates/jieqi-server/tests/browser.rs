//! The web UI in a real browser: headless Chromium driven through chromedriver
//! (W3C WebDriver over plain HTTP), against the real server started in-process.
//!
//! From the lobby it starts a game against the engine, makes moves by clicking pieces
//! and destinations, sees a reveal and the engine's replies, resigns, sees the result
//! and the verified deal commitment, then opens the replay and steps through it.
//!
//! Needs `chromium` and `chromium-driver` (Debian; `.ci/run` installs them). Paths may
//! be overridden with `CHROMIUM` and `CHROMEDRIVER`. When they are missing the test
//! fails with a message saying so: it never passes without having run.

use serde_json::{Value, json};

mod webdriver;
use webdriver::*;

/// Play one move by dragging a piece onto a destination (WebDriver pointer actions).
fn drag_a_move(b: &Browser) -> (String, String) {
    let ours = b.script(
        "const mine = document.querySelector('.board-box').dataset.turn;
         return [...document.querySelectorAll('svg.board .piece.' + mine)].map(e => e.dataset.sq);",
        json!([]),
    );
    let centre = "const r = document.querySelector(arguments[0]).getBoundingClientRect();
                  return [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)];";
    for sq in ours.as_array().expect("squares") {
        let from = sq.as_str().expect("square").to_string();
        let piece = format!(".piece[data-sq='{from}']");
        b.click(&piece); // shows the destinations, to know where to drop
        let dests = b.script(
            "return [...document.querySelectorAll('.dest')].map(e => e.dataset.sq);",
            json!([]),
        );
        let Some(to) = dests
            .as_array()
            .and_then(|d| d.first())
            .and_then(Value::as_str)
        else {
            continue;
        };
        let to = to.to_string();
        let a = b.script(centre, json!([piece]));
        let z = b.script(centre, json!([format!(".dest[data-sq='{to}']")]));
        let actions = json!({ "actions": [{
            "type": "pointer", "id": "mouse", "parameters": { "pointerType": "mouse" },
            "actions": [
                { "type": "pointerMove", "duration": 0, "origin": "viewport", "x": a[0], "y": a[1] },
                { "type": "pointerDown", "button": 0 },
                { "type": "pointerMove", "duration": 100, "origin": "viewport", "x": (a[0].as_i64().unwrap() + z[0].as_i64().unwrap()) / 2, "y": (a[1].as_i64().unwrap() + z[1].as_i64().unwrap()) / 2 },
                { "type": "pointerMove", "duration": 100, "origin": "viewport", "x": z[0], "y": z[1] },
                { "type": "pointerUp", "button": 0 },
            ],
        }]});
        if let Err(e) = b.cmd("POST", "/actions", Some(actions)) {
            b.fail(&format!("drag {from}{to}: {e}"));
        }
        let _ = b.cmd("DELETE", "/actions", None);
        return (from, to);
    }
    b.fail("no piece of ours has a legal move")
}

fn plies_shown(b: &Browser) -> usize {
    b.script(
        "return document.querySelectorAll('#moves td.ply').length;",
        json!([]),
    )
    .as_u64()
    .unwrap_or(0) as usize
}

fn wait_plies(b: &Browser, n: usize) {
    b.wait(
        &format!("{n} plies in the move list"),
        "return document.querySelectorAll('#moves td.ply').length >= arguments[0];",
        json!([n]),
        WAIT,
    );
}

#[test]
fn play_the_engine_in_chromium() {
    let mut stage = Stage::start(jieqi_server::EngineKind::Search);
    let base = stage.base.clone();
    let b = stage.browser("profile");

    // Lobby, in English (remembered in localStorage across pages).
    b.goto(&format!("{base}/"));
    b.wait_for("#play-engine");
    if b.text("#lang-toggle") == "English" {
        b.click("#lang-toggle");
    }
    b.wait(
        "the English lobby",
        "return document.querySelector('#play-engine').textContent === 'Play the engine';",
        json!([]),
        WAIT,
    );
    b.wait(
        "the lobby lists",
        "return !!document.querySelector('#list-recent ul, #list-recent p:not(:empty)') && !document.querySelector('#list-recent').textContent.includes('…');",
        json!([]),
        WAIT,
    );
    b.page_shots("lobby");
    b.click("#level option[value='1']");
    b.click("#color option[value='red']");
    b.click("#time option[value='10+5']");
    b.click("#play-engine");

    // The game page: we are Red, the board is live and it is our move.
    b.wait(
        "the game page",
        "return location.pathname.startsWith('/game/') && !!document.querySelector('.board-box[data-status=live]');",
        json!([]),
        WAIT,
    );
    let url = b.script("return location.href;", json!([]));
    let id = url
        .as_str()
        .unwrap()
        .split("/game/")
        .nth(1)
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .to_string();
    b.wait_for("#status.mine");
    assert_eq!(
        b.script(
            "return document.querySelectorAll('svg.board .piece.down').length;",
            json!([])
        ),
        json!(30)
    );
    let commitment = b.text("#commitment");
    assert!(
        commitment.starts_with("sha256:") && commitment.len() == 71,
        "commitment shown: {commitment}"
    );

    // No clock runs before our first move: the first-move countdown does, and Abort
    // stands where Resign will be (docs/server.md, "Game start").
    b.wait_for("#first-move[data-color=red]");
    b.wait_for("#abort");
    assert!(b.find("#resign").is_none(), "Abort replaces Resign");
    let black_clock = b.text("#clock-black .game-time");
    let red_clock = b.text("#clock-red .game-time");
    for clock in [&black_clock, &red_clock] {
        assert!(
            clock.ends_with("10:00"),
            "a clock before the first moves: {clock}"
        );
    }

    // First move: the face-down pawn on a3 steps to a4 and is revealed.
    let (_, to) = click_a_move(&b, Some(("a3", "a4")));
    assert_eq!(to, "a4");
    wait_plies(&b, 1);
    let revealed = b.script(
        "const e = document.querySelector(\".piece[data-sq='a4']\"); return e && e.dataset.piece;",
        json!([]),
    );
    let letter = revealed
        .as_str()
        .unwrap_or_else(|| b.fail("no piece on a4 after the move"));
    assert!(
        "ABNRCP".contains(letter),
        "a4 shows a revealed red piece, got {letter}"
    );
    let first = b.text("#moves td.ply[data-n='1']");
    assert!(
        first.starts_with("兵九进一"),
        "Chinese notation of the first move: {first}"
    );

    // The engine replies.
    wait_plies(&b, 2);

    // From Black's first move on our clock runs (局时 counts down locally), the
    // engine's does not; Resign replaces Abort.
    b.wait(
        "Red's clock to tick",
        "return document.querySelector('#clock-red .game-time').textContent !== arguments[0];",
        json!([red_clock]),
        WAIT,
    );
    assert_eq!(b.text("#clock-black .game-time"), black_clock);
    b.wait_for("#resign");
    assert!(b.find("#abort").is_none(), "too late to abort");

    // The lobby leads back to our unfinished game (the seat link is remembered).
    b.goto(&format!("{base}/"));
    let resume = format!("#list-mine li.game-row[data-id='{id}'] a.resume");
    b.wait(
        "our game under 'Your games'",
        "return !!document.querySelector(arguments[0]);",
        json!([resume]),
        WAIT,
    );
    b.click(&resume);
    b.wait_for("#status.mine");
    assert_eq!(plies_shown(&b), 2, "the resumed game has its moves");

    // Looking back: a click on the first move shows the position after it (a3 now
    // occupied, our later moves undone), and the way back restores the game.
    b.click("#moves td.ply[data-n='1']");
    b.wait_for(".board-box[data-browsing='1']");
    assert_eq!(
        b.script(
            "return document.querySelectorAll('svg.board .dest, svg.board .piece.down').length;",
            json!([])
        ),
        json!(29),
        "after ply 1: 29 face-down pieces, nothing playable"
    );
    b.click("#back-to-game");
    b.wait_for(".board-box:not([data-browsing])");
    b.wait_for("#status.mine");

    // Hovering a face-down black piece shows the odds of each identity (pool / total).
    hover(&b, "svg.board .piece.black.down");
    b.wait_for("#odds:not(.hidden) .odds-row");
    let odds = b.script(
        "return [...document.querySelectorAll('#odds .odds-row')].map(r => [r.dataset.role, r.querySelector('.frac').textContent]);",
        json!([]),
    );
    let pool = b.script(
        "return [...document.querySelectorAll('.pool.black .pool-item')].map(e => [e.dataset.role, e.querySelector('.count').textContent]);",
        json!([]),
    );
    let odds = odds.as_array().expect("odds rows");
    let pool = pool.as_array().expect("pool items");
    assert_eq!(
        odds.len(),
        pool.len(),
        "one odds row per pool role: {odds:?} / {pool:?}"
    );
    let total: u64 = pool
        .iter()
        .map(|p| {
            p[1].as_str()
                .unwrap()
                .trim_start_matches('×')
                .parse::<u64>()
                .unwrap()
        })
        .sum();
    for (o, p) in odds.iter().zip(pool) {
        assert_eq!(o[0], p[0]);
        let count = p[1].as_str().unwrap().trim_start_matches('×');
        assert_eq!(o[1].as_str().unwrap(), format!("{count}/{total}"));
    }

    // Two more moves of ours, each answered; between them the server restarts and the
    // page reconnects and resyncs by itself.
    for round in 2..=3 {
        if round == 3 {
            stage.stop_server();
            b.wait_for("#conn:not(.hidden)");
            stage.restart_server();
            b.wait_for("#conn.hidden");
            b.wait(
                "the resynced move list",
                "return document.querySelectorAll('#moves td.ply').length === arguments[0];",
                json!([2 * (round - 1)]),
                WAIT,
            );
        }
        b.wait_for("#status.mine");
        let (from, to) = if round == 2 {
            drag_a_move(&b)
        } else {
            click_a_move(&b, None)
        };
        wait_plies(&b, 2 * round - 1);
        let ours = b.script(
            "const p = document.querySelector('#moves td.ply[data-n=\"' + arguments[0] + '\"]'); return p && p.textContent;",
            json!([2 * round - 1]),
        );
        assert!(
            ours.is_string(),
            "move {from}{to} of round {round} is in the list"
        );
        wait_plies(&b, 2 * round);
    }
    assert!(plies_shown(&b) >= 6);
    b.page_shots("game");

    // Notation switch: ICCS shows the coordinate moves.
    b.click("[data-notation='iccs']");
    let iccs = b.text("#moves td.ply[data-n='1']");
    assert!(iccs.starts_with("a3a4"), "ICCS text: {iccs}");

    // The page's own Chinese notation (used when a server sends no `zh`) agrees with the
    // server's on every ply of this game.
    let zh_vs_page = b.script_async(
        r#"
        const cells = (m) => new Promise((ok) => {
          document.querySelector(`[data-notation='${m}']`).click();
          setTimeout(() => ok([...document.querySelectorAll('#moves td.ply')].map((e) => e.textContent)), 50);
        });
        import('/assets/notation.js').then(async (n) => {
          const zh = await cells('zh');
          const iccs = await cells('iccs');
          let board = n.parseBoard('xxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/X1X1X1X1X/1X5X1/9/XXXXKXXXX w - - 0 1');
          const mine = [];
          for (const uci of iccs) {
            const from = uci.slice(0, 2);
            const down = board.get(from) === 'X' || board.get(from) === 'x';
            // A face-down piece taken: its identity is the last suffix letter, if told.
            const to = uci.slice(2, 4);
            const taken = board.get(to) === 'X' || board.get(to) === 'x';
            const told = uci.slice(down ? 5 : 4, down ? 6 : 5) || null;
            const ply = { from, to, reveal: down ? uci[4] || null : null, captured: taken ? told || board.get(to) : null, uci };
            mine.push(n.chineseMove(board, ply));
            board = n.applyPly(board, ply);
          }
          done([zh, mine]);
        }).catch((e) => done(String(e)));
        "#,
        json!([]),
    );
    assert_eq!(
        zh_vs_page[0], zh_vs_page[1],
        "server zh vs the page's notation"
    );
    b.click("[data-notation='iccs']");

    // Resign (two clicks: arm, confirm) and see the result and the verified deal.
    b.wait_for("#status.mine");
    b.click("#resign");
    b.click("#resign");
    b.wait_for("#result");
    let result = b.script(
        "const r = document.querySelector('#result'); return [r.dataset.result, r.dataset.reason, r.textContent];",
        json!([]),
    );
    assert_eq!(result[0], "0-1", "result: {result}");
    assert_eq!(result[1], "resignation", "reason: {result}");
    assert!(
        result[2].as_str().unwrap().contains("Black wins"),
        "result text: {result}"
    );
    b.wait(
        "the commitment check",
        "const v = document.querySelector('#verify'); return !!v && v.classList.contains('ok');",
        json!([]),
        WAIT,
    );
    b.shot("result");
    // With the deal public, face-down pieces show their identity.
    let real = b.script(
        "const d = document.querySelector('svg.board .piece.down[data-real]'); return d && [d.dataset.sq, d.dataset.real];",
        json!([]),
    );
    assert!(real.is_array(), "face-down pieces show the published deal");

    // Chinese UI after the switch.
    b.click("#lang-toggle");
    b.wait(
        "the Chinese result text",
        "return document.querySelector('#result').textContent.includes('黑胜');",
        json!([]),
        WAIT,
    );

    // Rematch against the engine: a new game at once, colours swapped (we are Black, so
    // the engine opens and the board is turned round).
    b.click("#rematch");
    b.wait(
        "the rematch game",
        "return location.pathname.startsWith('/game/') && !location.pathname.includes(arguments[0]) && !!document.querySelector('.board-box[data-status=live]');",
        json!([id]),
        WAIT,
    );
    wait_plies(&b, 1);
    b.wait_for("#status.mine");
    let bottom = b.script(
        "const k = document.querySelector(\"svg.board .piece[data-piece='k']\").getBoundingClientRect(); \
         const K = document.querySelector(\"svg.board .piece[data-piece='K']\").getBoundingClientRect(); return k.top > K.top;",
        json!([]),
    );
    assert_eq!(
        bottom,
        json!(true),
        "Black's king is at the bottom for the Black player"
    );

    // Replay: step forward with the buttons and the arrow keys.
    b.goto(&format!("{base}/replay/{id}"));
    b.wait_for("#ply-count");
    assert!(b.text("#ply-count").starts_with("0 /"));
    b.click("#next");
    assert!(b.text("#ply-count").starts_with("1 /"));
    b.script(
        "document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));",
        json!([]),
    );
    assert!(b.text("#ply-count").starts_with("2 /"));
    b.click("#last");
    b.page_shots("replay");
    let count = b.text("#ply-count");
    let total: Vec<&str> = count.split(" / ").collect();
    assert_eq!(total[0], total[1], "at the end: {count}");
    b.click("#evaluate");
    b.wait_for("#eval-result");

    // The page tried to reconnect while the server was down.
    assert_no_console_errors_but([&b], &["ERR_CONNECTION_REFUSED"]);
    stage.finish([b]);
}

impl Browser {
    /// Run an async script; it ends by calling `done(value)`.
    fn script_async(&self, js: &str, args: Value) -> Value {
        let wrapped = format!("const done = arguments[arguments.length - 1]; {js}");
        self.cmd(
            "POST",
            "/execute/async",
            Some(json!({ "script": wrapped, "args": args })),
        )
        .unwrap_or_else(|e| panic!("async script failed: {e}\n{js}"))
    }
}

/// The page's own logic, run in the browser: Chinese and WXF notation (RULES.md §6 and
/// the seed-004 example), SHA-256 (the WebCrypto path and the plain-JS fallback agree)
/// and the commitment check against one made by jieqi-core.
#[test]
fn page_logic_in_chromium() {
    let stage = Fixture::start(1);
    let b = &stage.browsers[0];
    b.goto(&format!("{}/", stage.base));
    b.wait_for("#play-engine");

    let deal = jieqi_core::Deal::from_seed(b"browser");
    let commitment = deal.commitment("0123abcd");
    let out = b.script_async(
        r#"
        Promise.all([import('/assets/notation.js'), import('/assets/util.js'), import('/assets/game.js')]).then(async ([n, u, g]) => {
          const start = 'xxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/X1X1X1X1X/1X5X1/9/XXXXKXXXX w A2B2N2R2C2P5a2b2n2r2c2p5 - 0 1';
          const plies = [
            { from: 'c3', to: 'c4', reveal: 'B', uci: 'c3c4B' },
            { from: 'e6', to: 'e5', reveal: 'C', uci: 'e6e5C' },
            { from: 'g0', to: 'e2', reveal: 'R', uci: 'g0e2R' },
            { from: 'e5', to: 'e2', reveal: null, uci: 'e5e2' },
          ];
          const boards = n.boardsBefore(start, plies);
          const zh = plies.map((p, i) => n.chineseMove(boards[i], p));
          const wxf = plies.map((p, i) => n.wxfMove(boards[i], p));
          // The server's `wxf` and `zh` win over the page's own writers.
          const served = plies.map((p, i) => ({ ...p, wxf: `W${i}`, zh: `Z${i}` }));
          const shown = [g.moveTexts(start, served, 'wxf'), g.moveTexts(start, served, 'zh'), g.moveTexts(start, plies, 'wxf')];
          const tandem = (fen, ply) => n.chineseMove(n.parseBoard(fen), ply);
          const t1 = tandem('4k4/9/9/9/4P4/4P4/9/9/9/4K4 w', { from: 'e5', to: 'e6' });
          const t2 = tandem('4k4/9/9/9/2P1P4/2P1P4/9/9/9/4K4 w', { from: 'e5', to: 'e6' });
          const t3 = tandem('4k4/9/9/4P4/4P4/4P4/9/9/9/4K4 w', { from: 'e5', to: 'd5' });
          const t4 = tandem('4k4/9/9/9/9/9/9/9/9/R3K3R w', { from: 'a0', to: 'a5' });
          const t5 = tandem('4k4/9/9/9/9/9/9/9/1r7/1r2K4 b', { from: 'b1', to: 'b5' });
          const long = 'x'.repeat(1000);
          const subtle = await u.sha256Hex(long);
          const plain = Array.from(u.sha256Fallback(new TextEncoder().encode(long)), (b) => b.toString(16).padStart(2, '0')).join('');
          const abc = Array.from(u.sha256Fallback(new TextEncoder().encode('abc')), (b) => b.toString(16).padStart(2, '0')).join('');
          const ok = await u.verifyCommitment(arguments[0], arguments[1], arguments[2]);
          const bad = await u.verifyCommitment(arguments[0], arguments[1] + '0', arguments[2]);
          done({ zh, wxf, shown, tandem: [t1, t2, t3, t4, t5], same: subtle === plain, abc, ok, bad,
                 clock: [u.fmtClock(600000), u.fmtClock(65000), u.fmtClock(9400), u.fmtClock(3723000)] });
        }).catch((e) => done({ error: String(e) }));
        "#,
        json!([deal.to_string(), "0123abcd", commitment]),
    );
    assert!(out.get("error").is_none(), "{out}");
    assert_eq!(
        out["zh"],
        json!(["兵七进一相", "卒5进1炮", "相三进五车", "炮5进3"])
    );
    assert_eq!(out["wxf"], json!(["P7+1=B", "P5+1=C", "E3+5=R", "C5+3"]));
    assert_eq!(
        out["shown"],
        json!([
            ["W0", "W1", "W2", "W3"],
            ["Z0", "Z1", "Z2", "Z3"],
            ["P7+1=B", "P5+1=C", "E3+5=R", "C5+3"]
        ]),
        "server notations are shown when sent, the page's otherwise"
    );
    assert_eq!(
        out["tandem"],
        json!(["前兵进一", "前兵五进一", "中兵平六", "车九进五", "后车退4"])
    );
    assert_eq!(out["same"], json!(true), "WebCrypto and the fallback agree");
    assert_eq!(
        out["abc"],
        json!("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    );
    assert_eq!(
        out["ok"],
        json!(true),
        "the commitment of jieqi-core verifies"
    );
    assert_eq!(out["bad"], json!(false), "a wrong salt fails");
    assert_eq!(out["clock"], json!(["10:00", "1:05", "0:09.4", "1:02:03"]));
    stage.finish();
}

/// Two people in two browsers: one creates a listed friend game (the invite link is
/// shown), the other joins it from the lobby's open games; a move travels across, a
/// draw is offered and accepted, and both see the result.
#[test]
fn friends_in_two_browsers() {
    let f = Fixture::start(2);
    let (a, b, base) = (&f.browsers[0], &f.browsers[1], &f.base);
    let (invite, id) = create_5_3_friend_game(a, base, true);
    assert_eq!(
        a.script(
            "return document.querySelector('.board-box').dataset.status;",
            json!([])
        ),
        json!("waiting")
    );
    // The link comes from the server's `state.invite_url` too: without the copy the
    // lobby kept (another browser of the creator), a reload still shows it.
    let here = a.script("sessionStorage.clear(); return location.href;", json!([]));
    a.goto(here.as_str().expect("page address"));
    a.wait_for("#invite-url");
    assert_eq!(
        a.script(
            "return sessionStorage.length === 0 && document.querySelector('#invite-url').value;",
            json!([])
        ),
        json!(invite),
        "the invite link after a reload without the lobby's copy"
    );

    // The friend finds the game among the open games and takes the free seat.
    b.goto(&format!("{base}/"));
    let row = format!("#list-open li.game-row[data-id='{id}'] button.join");
    b.wait(
        "the open game in the lobby",
        "return !!document.querySelector(arguments[0]);",
        json!([row]),
        WAIT,
    );
    b.click(&row);
    b.wait_for(".board-box[data-status=live]");
    a.wait_for(".board-box[data-status=live]");
    assert_eq!(
        a.script("return document.querySelector('#invite-url');", json!([])),
        Value::Null,
        "no invite link once the game runs"
    );

    // Red moves; Black sees it and is to move.
    a.wait_for("#status.mine");
    click_a_move(a, Some(("c3", "c4")));
    b.wait(
        "Red's move on Black's board",
        "return document.querySelectorAll('#moves td.ply').length === 1 && !!document.querySelector('#status.mine');",
        json!([]),
        WAIT,
    );
    let on_b = b.script(
        "const e = document.querySelector(\".piece[data-sq='c4']\"); return e && e.dataset.piece;",
        json!([]),
    );
    assert!(
        on_b.as_str().is_some_and(|l| "ABNRCP".contains(l)),
        "Black sees the revealed piece: {on_b}"
    );

    // Black replies (before both first moves a game can only be aborted), then
    // offers a draw, and Red accepts.
    click_a_move(b, None);
    a.wait(
        "Black's move on Red's board",
        "return document.querySelectorAll('#moves td.ply').length === 2;",
        json!([]),
        WAIT,
    );
    b.wait_for("#offer-draw");
    b.click("#offer-draw");
    a.wait_for("#accept-draw");
    a.click("#accept-draw");
    for who in [a, b] {
        who.wait_for("#result");
        let r = who.script(
            "const r = document.querySelector('#result'); return [r.dataset.result, r.dataset.reason];",
            json!([]),
        );
        assert_eq!(r, json!(["1/2-1/2", "agreement"]));
    }
    // Anyone may watch: the same game as a spectator shows the result and the deal check.
    b.goto(&format!("{base}/game/{id}"));
    b.wait_for("#result");
    b.wait_for("#verify.ok");
    assert_eq!(
        b.script(
            "return document.querySelectorAll('#resign, #offer-draw, #rematch').length;",
            json!([])
        ),
        json!(0),
        "a spectator has no player buttons"
    );
    f.assert_no_console_errors();
    f.finish();
}

/// A friend game that is not listed: its spectator link gives no seat; the invite link
/// claims the free seat (the address becomes the seat's own link), a reload keeps it,
/// and the used invite link, opened again without that seat, says it is used.
#[test]
fn friend_joins_through_the_invite_link() {
    let f = Fixture::start(2);
    let (a, b, base) = (&f.browsers[0], &f.browsers[1], &f.base);
    let (invite, id) = create_5_3_friend_game(a, base, false);
    let where_ = |who: &Browser| {
        who.script("return location.pathname + location.search;", json!([]))
            .as_str()
            .expect("address")
            .to_string()
    };

    // The spectator link: the game, waiting, and no seat.
    b.goto(&format!("{base}/game/{id}"));
    b.wait_for(".board-box[data-status=waiting]");
    assert!(
        b.find("#invite-url").is_none(),
        "a spectator gets no invite link"
    );
    // The invite link: the free seat, on the seat's own link.
    b.goto(&invite);
    b.wait_for(".board-box[data-status=live]");
    a.wait_for(".board-box[data-status=live]");
    let seat_link = where_(b);
    assert!(
        seat_link.starts_with(&format!("/game/{id}?seat=")),
        "{seat_link}"
    );
    // Red moves; Black sees it and is to move, also after a reload.
    a.wait_for("#status.mine");
    click_a_move(a, None);
    b.wait(
        "Red's move on Black's board",
        "return document.querySelectorAll('#moves td.ply').length === 1 && !!document.querySelector('#status.mine');",
        json!([]),
        WAIT,
    );
    b.goto(&format!("{base}{seat_link}"));
    b.wait_for("#status.mine");
    // The invite link again in the same browser leads back to the seat.
    b.goto(&invite);
    b.wait_for("#status.mine");
    assert_eq!(where_(b), seat_link);
    f.assert_no_console_errors();
    // Without that seat in the browser (another person), the used link says so.
    b.script("localStorage.clear(); return null;", json!([]));
    b.goto(&invite);
    b.wait_for("#invite-error[data-code=seat_taken]");
    f.finish();
}

/// The stage and `people` browsers, each with a profile of its own (two people do
/// not share a `localStorage`).
struct Fixture {
    stage: Stage,
    browsers: Vec<Browser>,
    base: String,
}

impl Fixture {
    fn start(people: usize) -> Fixture {
        let stage = Stage::start(jieqi_server::EngineKind::Search);
        Fixture {
            browsers: stage.browsers(people),
            base: stage.base.clone(),
            stage,
        }
    }

    /// Fails if a page logged an error in any of the browsers.
    fn assert_no_console_errors(&self) {
        assert_no_console_errors(&self.browsers);
    }

    fn finish(self) {
        self.stage.finish(self.browsers);
    }
}

/// In `a`'s browser, from the lobby: a friend game as Red at 5+3, `listed` or not.
/// Returns its invite link (shown on the game page) and its id.
fn create_5_3_friend_game(a: &Browser, base: &str, listed: bool) -> (String, String) {
    let time = "#time option[value='5+3']";
    let choices: &[&str] = if listed { &[time, "#listed"] } else { &[time] };
    create_friend_game(a, base, false, choices)
}
