//! Quick pairing in a real browser (headless Chromium through chromedriver, like
//! `tests/browser.rs`): two browsers sign up and click the same time-control tile and
//! both land on one new rated game with opposite colours; a guest's custom seek is
//! accepted from the other browser's live seek list; and the whole path of issue 17:
//! pair, play to the end, see the new ratings and the history, with a spectator
//! talking in his own chat room.
//!
//! Needs `chromium` and `chromium-driver`.

use serde_json::{Value, json};

mod webdriver;
use webdriver::*;

/// Opens the lobby and waits until its lobby socket has brought the seek list (and,
/// for a logged-in player, until the page knows who he is).
fn open_lobby(b: &Browser, base: &str, logged_in: bool) {
    b.goto(&format!("{base}/"));
    b.wait_for("#quick-pairing[data-online=true]");
    if logged_in {
        b.wait_for("#seek-rated");
    }
}

/// On a game page reached from a pairing: the game id and the colour the page plays
/// (the seat marked "(you)"), once the game is live.
fn landed(b: &Browser) -> (String, String) {
    b.wait_for(".board-box[data-status=live]");
    let v = b.script(
        "const m = location.pathname.match(/^\\/game\\/([a-z0-9]+)$/);
         const seat = new URLSearchParams(location.search).get('seat');
         const mine = ['red', 'black'].filter((c) => {
           const e = document.querySelector(`#player-${c} .name`);
           return e && e.textContent.includes('(you)');
         });
         return [m ? m[1] : null, seat, mine];",
        json!([]),
    );
    let id = v[0]
        .as_str()
        .unwrap_or_else(|| b.fail("not on a game page"));
    assert_eq!(v[1].as_str().map(str::len), Some(32), "a seat link: {v}");
    let mine = v[2].as_array().expect("colours");
    assert_eq!(mine.len(), 1, "the page plays one colour: {v}");
    (id.to_string(), mine[0].as_str().unwrap().to_string())
}

fn summary(s: &Stage, id: &str) -> Value {
    let r =
        s.rt.block_on(jieqi_server::client::http(
            s.addr,
            "GET",
            &format!("/api/games/{id}"),
            None,
        ))
        .expect("the game's summary");
    r.json().expect("JSON")
}

fn finish(s: Stage, browsers: Vec<Browser>) {
    assert_no_console_errors(&browsers);
    s.finish(browsers);
}

#[test]
fn quick_pair_tile_pairs_two_accounts() {
    let s = Stage::start(jieqi_server::EngineKind::Greedy);
    let a = s.browser("profile-a");
    let b = s.browser("profile-b");
    sign_up(&a, &s.base, "Alice");
    sign_up(&b, &s.base, "Bob");

    // Alice clicks the 3+2 tile: it waits, and the seek is in both lists.
    open_lobby(&a, &s.base, true);
    let tile = "button.tile[data-time='3+2'][data-move-time='']";
    assert_eq!(
        a.text(&format!("{tile} .cat")),
        "Blitz",
        "the tile names its category"
    );
    a.click(tile);
    a.wait_for(".tile-box.waiting[data-time='3+2'] .tile-cancel");
    a.wait_for("#seek-list tr.seek-row.own[data-time='3+2']");
    a.shot("seeks-waiting");
    assert!(
        !a.text("#quick-pairing").contains("null"),
        "no stray text: {}",
        a.text("#quick-pairing")
    );
    open_lobby(&b, &s.base, true);
    b.wait(
        "Alice's seek in Bob's list",
        "const r = document.querySelector(\"#seek-list tr.seek-row[data-time='3+2']\");
         return !!r && r.textContent.includes('Alice') && !!r.querySelector('button.accept');",
        json!([]),
        WAIT,
    );

    // Bob clicks the same tile: both land on the same game, with opposite colours.
    b.click(tile);
    let (id_a, color_a) = landed(&a);
    let (id_b, color_b) = landed(&b);
    assert_eq!(id_a, id_b, "one game for both");
    assert_ne!(color_a, color_b, "opposite colours");
    for (who, other_color, other) in [(&a, &color_b, "Bob"), (&b, &color_a, "Alice")] {
        who.wait(
            "the opponent's name",
            "const e = document.querySelector(`#player-${arguments[0]} .name`); return !!e && e.textContent.includes(arguments[1]);",
            json!([other_color, other]),
            WAIT,
        );
    }
    let g = summary(&s, &id_a);
    assert_eq!(
        (&g["time"], &g["rated"], &g["category"]),
        (&json!("3+2"), &json!(true), &json!("blitz")),
        "a logged-in player's tile seeks rated: {g}"
    );
    let names = [g["red"]["name"].clone(), g["black"]["name"].clone()];
    let alice_color = if names[0] == "Alice" { "red" } else { "black" };
    assert_eq!(alice_color, color_a, "{g}");
    finish(s, vec![a, b]);
}

#[test]
fn custom_seek_is_accepted_from_the_seek_list() {
    let s = Stage::start(jieqi_server::EngineKind::Greedy);
    let a = s.browser("profile-a");
    let b = s.browser("profile-b");

    // A guest seeks 10+0 with a 60 s step time, as Red, from the custom form.
    open_lobby(&a, &s.base, false);
    a.click("details.custom summary");
    a.click("#seek-time option[value='10+0']");
    a.click("#seek-move-time option[value='60']");
    a.click("#seek-color option[value='red']");
    a.click("#create-seek");
    a.wait_for("#seek-list tr.seek-row.own[data-time='10+0'] button.cancel");
    a.wait_for(".tile-box.waiting[data-time='10+0'][data-move-time='60']");

    // Another guest accepts it from the list.
    open_lobby(&b, &s.base, false);
    let row = "#seek-list tr.seek-row[data-time='10+0']";
    b.wait_for(&format!("{row} button.accept"));
    b.shot("seeks-list");
    assert!(
        b.text(row).contains("Anonymous"),
        "a guest's seek: {}",
        b.text(row)
    );
    b.click(&format!("{row} button.accept"));
    let (id_a, color_a) = landed(&a);
    let (id_b, color_b) = landed(&b);
    assert_eq!(id_a, id_b);
    assert_eq!(
        (color_a.as_str(), color_b.as_str()),
        ("red", "black"),
        "the seeker chose Red"
    );
    let g = summary(&s, &id_a);
    assert_eq!(
        (&g["time"], &g["move_time"], &g["rated"]),
        (&json!("10+0"), &json!(60), &json!(false))
    );
    finish(s, vec![a, b]);
}

/// Types `text` into the chat box and sends it.
fn say(b: &Browser, text: &str) {
    b.wait_for("#chat:not(.hidden) #chat-input");
    set_value(b, "#chat-input", text);
    b.click("#chat-send");
}

/// The texts of the chat lines shown.
fn chat_texts(b: &Browser) -> Vec<String> {
    let v = b.script(
        "return [...document.querySelectorAll('#chat-lines li.chat-line .chat-text')].map(e => e.textContent);",
        json!([]),
    );
    serde_json::from_value(v).expect("texts")
}

/// Waits until a chat line with exactly `text` is shown.
fn wait_line(b: &Browser, text: &str) {
    b.wait(
        "the chat line",
        "return [...document.querySelectorAll('#chat-lines .chat-text')].some(e => e.textContent === arguments[0]);",
        json!([text]),
        WAIT,
    );
}

/// Waits until the move list shows at least `n` plies.
fn wait_plies(b: &Browser, n: usize) {
    b.wait(
        &format!("{n} plies in the move list"),
        "return document.querySelectorAll('#moves td.ply').length >= arguments[0];",
        json!([n]),
        WAIT,
    );
}

/// The rating shown for `category` on the profile page now open, and whether it is
/// marked provisional (a trailing "?").
fn shown_rating(b: &Browser, category: &str) -> (i64, bool) {
    let text = b.script(
        "return document.querySelector(`#ratings tr[data-category=${arguments[0]}] .rating`).textContent;",
        json!([category]),
    );
    let text = text.as_str().expect("a rating");
    let n = text.trim_end_matches('?').parse().expect("a number");
    (n, text.ends_with('?'))
}

/// Issue 17's whole path in one go: two accounts sign up, click the same quick-pair
/// tile, play the rated game they land on to its end (moves by both, then a
/// resignation); a third browser watches (the page marks the game rated) and talks
/// in the spectator chat, which the players never see; both players then find their new (provisional) ratings on their
/// profiles and the game in their histories, linking to its replay.
#[test]
fn two_accounts_quick_pair_play_rate_and_a_spectator_chats() {
    let s = Stage::start(jieqi_server::EngineKind::Greedy);
    let a = s.browser("profile-a");
    let b = s.browser("profile-b");
    let c = s.browser("profile-c");
    sign_up(&a, &s.base, "Alice");
    sign_up(&b, &s.base, "Bob");
    for who in [&a, &b] {
        assert_eq!(shown_rating(who, "blitz"), (1500, true), "a new player");
    }

    // Both click the 3+2 tile: one rated blitz game, opposite colours.
    let tile = "button.tile[data-time='3+2'][data-move-time='']";
    open_lobby(&a, &s.base, true);
    a.click(tile);
    a.wait_for("#seek-list tr.seek-row.own[data-time='3+2']");
    open_lobby(&b, &s.base, true);
    b.wait_for("#seek-list tr.seek-row[data-time='3+2'] button.accept");
    b.click(tile);
    let (id, color_a) = landed(&a);
    let (id_b, color_b) = landed(&b);
    assert_eq!((id.as_str(), color_a != color_b), (id_b.as_str(), true));
    let g = summary(&s, &id);
    assert_eq!(
        (&g["rated"], &g["category"]),
        (&json!(true), &json!("blitz"))
    );
    let (red, black) = if color_a == "red" { (&a, &b) } else { (&b, &a) };

    // The third browser watches the game and talks in the spectator room.
    c.goto(&format!("{}/game/{id}", s.base));
    c.wait_for(".board-box[data-status=live]");
    c.wait_for("#chat[data-room=spectators]");
    for who in [&a, &b, &c] {
        who.wait_for("#game-mode .badge.rated");
    }
    say(&c, "nice opening, both of you");
    wait_line(&c, "nice opening, both of you");

    // Three moves each, Red first; the spectator's board follows.
    for ply in 0..6 {
        let mover = if ply % 2 == 0 { red } else { black };
        wait_plies(mover, ply);
        mover.wait_for("#status.mine");
        click_a_move(mover, None);
    }
    for who in [&a, &b, &c] {
        wait_plies(who, 6);
    }

    // A player's line reaches both players; by then the spectator's line, sent
    // earlier through the same game, would have too had it been theirs to read.
    say(&a, "good game so far");
    for who in [&a, &b] {
        wait_line(who, "good game so far");
        assert_eq!(
            chat_texts(who),
            ["good game so far"],
            "players do not read the spectator room"
        );
    }
    assert_eq!(chat_texts(&c), ["nice opening, both of you"]);

    // Bob resigns (arm, confirm); everyone sees the end.
    b.wait_for("#resign");
    b.click("#resign");
    b.click("#resign");
    let expected = if color_b == "red" { "0-1" } else { "1-0" };
    for who in [&a, &b, &c] {
        who.wait_for("#result");
        let r = who.script(
            "const r = document.querySelector('#result'); return [r.dataset.result, r.dataset.reason];",
            json!([]),
        );
        assert_eq!(r, json!([expected, "resignation"]));
    }

    // Both profiles: a new blitz rating, still provisional, and the game in the
    // history with its replay link.
    for (who, name, won) in [(&a, "Alice", true), (&b, "Bob", false)] {
        who.goto(&format!("{}/@/{name}", s.base));
        who.wait(
            "the game in the history",
            "return !!document.querySelector(`#history li.game-row[data-id='${arguments[0]}'] a.replay`);",
            json!([id]),
            WAIT,
        );
        let (rating, provisional) = shown_rating(who, "blitz");
        assert!(provisional, "{name}: one game is a provisional rating");
        assert_eq!(rating > 1500, won, "{name}: {rating}");
        assert_ne!(rating, 1500, "{name}'s rating changed");
        let row = who.script(
            "const r = document.querySelector(`#history li.game-row[data-id='${arguments[0]}']`);
             return [r.classList.contains(arguments[1]), r.querySelector('a.replay').getAttribute('href')];",
            json!([id, if won { "win" } else { "loss" }]),
        );
        assert_eq!(row, json!([true, format!("/replay/{id}")]), "{name}");
    }
    b.click(&format!("#history li.game-row[data-id='{id}'] a.replay"));
    b.wait(
        "the replay with the names",
        "const r = document.querySelector('.red-name'), k = document.querySelector('.black-name');
         return !!r && !!k && (r.textContent + k.textContent).includes('Alice') && (r.textContent + k.textContent).includes('Bob');",
        json!([]),
        WAIT,
    );
    b.shot("quick-pair-whole-path");
    finish(s, vec![a, b, c]);
}
