//! Accounts in a real browser (headless Chromium through chromedriver, like
//! `tests/browser.rs`): two browsers sign up, one creates a rated game, the other takes
//! its seat through the invite link, they play it to the end (a resignation), and both
//! then find their new ratings, the rating graph and the game on their profile pages.
//! And a player who logs in on another device finds his unfinished game in the lobby
//! and plays on in his seat.
//!
//! Needs `chromium` and `chromium-driver`.

use serde_json::json;

mod webdriver;
use webdriver::*;

/// Signs up (the shared helper) and checks that the header names the new player.
fn sign_up_and_check_header(b: &Browser, base: &str, name: &str) {
    sign_up(b, base, name);
    assert_eq!(
        b.script(
            "return document.querySelector('#nav-me').textContent;",
            json!([])
        ),
        json!(name),
        "the header names the logged-in player"
    );
}

/// The rating shown for `category` on the profile page now open, without the "?".
fn shown_rating(b: &Browser, category: &str) -> (i64, bool) {
    let text = b.script(
        "return document.querySelector(`#ratings tr[data-category=${arguments[0]}] .rating`).textContent;",
        json!([category]),
    );
    let text = text.as_str().expect("a rating").to_string();
    let provisional = text.ends_with('?');
    let n = text.trim_end_matches('?').parse().expect("a number");
    (n, provisional)
}

/// Opens `name`'s profile and waits for game `id` in its history.
fn profile_with_game(b: &Browser, base: &str, name: &str, id: &str) {
    b.goto(&format!("{base}/@/{name}"));
    b.wait(
        "the game in the history",
        "return !!document.querySelector(`#history li.game-row[data-id='${arguments[0]}'] a.replay`);",
        json!([id]),
        WAIT,
    );
}

#[test]
fn two_players_sign_up_play_rated_and_see_their_ratings() {
    let stage = Stage::start(jieqi_server::EngineKind::Greedy);
    let base = stage.base.clone();
    let a = stage.browser("profile-a");
    let b = stage.browser("profile-b");

    sign_up_and_check_header(&a, &base, "Alice");
    sign_up_and_check_header(&b, &base, "Bob");
    assert_eq!(shown_rating(&a, "blitz"), (1500, true), "a new player");

    // Alice creates a rated 3+2 (blitz) friend game as Red.
    let (invite, id) =
        create_friend_game(&a, &base, true, &["#time option[value='3+2']", "#rated"]);

    // Bob takes the seat through the invite link; both see both names.
    b.goto(&invite);
    b.wait_for(".board-box[data-status=live]");
    a.wait_for(".board-box[data-status=live]");
    for (who, color, name) in [(&a, "black", "Bob"), (&b, "red", "Alice")] {
        who.wait(
            "the opponent's name",
            "const e = document.querySelector(`#player-${arguments[0]} .name`); return !!e && e.textContent.includes(arguments[1]);",
            json!([color, name]),
            WAIT,
        );
    }

    // Both make a first move (before that the page offers Abort, not Resign); then
    // Bob resigns (two clicks: arm, confirm); both see the end.
    a.wait_for("#abort");
    assert!(a.find("#resign").is_none(), "Abort replaces Resign");
    a.wait_for("#status.mine");
    click_a_move(&a, None);
    b.wait_for("#status.mine");
    click_a_move(&b, None);
    b.wait_for("#resign");
    b.click("#resign");
    b.click("#resign");
    for who in [&a, &b] {
        who.wait_for("#result");
        let r = who.script(
            "const r = document.querySelector('#result'); return [r.dataset.result, r.dataset.reason];",
            json!([]),
        );
        assert_eq!(r, json!(["1-0", "resignation"]));
    }

    // Both profiles: the new blitz rating, the graph, the game with its replay link.
    profile_with_game(&a, &base, "Alice", &id);
    a.page_shots("account");
    let (alice, provisional) = shown_rating(&a, "blitz");
    assert!(alice > 1500 && provisional, "Alice won: {alice}");
    profile_with_game(&b, &base, "Bob", &id);
    let (bob, _) = shown_rating(&b, "blitz");
    assert!(bob < 1500, "Bob lost: {bob}");
    for (who, result) in [(&a, "win"), (&b, "loss")] {
        let row = who.script(
            "const r = document.querySelector(`#history li.game-row[data-id='${arguments[0]}']`);
             return [r.classList.contains(arguments[1]), !!document.querySelector('#rating-graph polyline.line-blitz'),
                     r.querySelector('a.replay').getAttribute('href')];",
            json!([id, result]),
        );
        assert_eq!(
            row,
            json!([true, true, format!("/replay/{id}")]),
            "{result}"
        );
    }
    // The opponent's name links to the opponent's profile.
    let link = a.script(
        "return document.querySelector('#history a.opponent').getAttribute('href');",
        json!([]),
    );
    assert_eq!(link, json!("/@/Bob"));
    // The replay names the players too.
    a.click(&format!("#history li.game-row[data-id='{id}'] a.replay"));
    a.wait(
        "the replay with the names",
        "const e = document.querySelector('.black-name'); return !!e && e.textContent.includes('Bob');",
        json!([]),
        WAIT,
    );
    assert_no_console_errors([&a, &b]);
    stage.finish([a, b]);
}

#[test]
fn a_player_logged_in_on_another_device_plays_on_in_his_seat() {
    let stage = Stage::start(jieqi_server::EngineKind::Greedy);
    let base = stage.base.clone();
    let a = stage.browser("device-a");
    let b = stage.browser("friend");
    sign_up(&a, &base, "Alice");

    // On device A Alice creates a friend game as Red; a guest friend takes the seat.
    let (invite, id) = create_friend_game(&a, &base, true, &[]);
    b.goto(&invite);
    b.wait_for(".board-box[data-status=live]");
    a.wait_for(".board-box[data-status=live]");

    // Device C has never seen the game: empty storage, then Alice logs in.
    let c = stage.browser("device-c");
    c.goto(&format!("{base}/"));
    c.wait_for("#play-friend");
    assert_eq!(
        c.script("return localStorage.getItem('jieqi.mygames');", json!([])),
        json!(null),
        "a fresh device remembers no seat"
    );
    assert!(
        c.find("#list-mine li.game-row").is_none(),
        "a guest here has no games"
    );
    log_in(&c, &base, "Alice");
    c.goto(&format!("{base}/"));
    let row = format!("#list-mine li.game-row[data-id='{id}']");
    c.wait_for(&format!("{row} a.resume"));
    assert!(
        c.find(&format!("{row} .badge.turn")).is_some(),
        "Red is to move: the row says it is her move"
    );
    c.click(&format!("{row} a.resume"));
    c.wait_for(".board-box[data-status=live]");
    c.wait(
        "the seat's own link",
        "return new URLSearchParams(location.search).has('seat');",
        json!([]),
        WAIT,
    );
    c.wait_for("#status.mine");
    click_a_move(&c, None);
    for who in [&a, &b, &c] {
        who.wait(
            "the move on every board",
            "return document.querySelectorAll('#moves td.ply').length >= 1;",
            json!([]),
            WAIT,
        );
    }
    assert_no_console_errors([&a, &b, &c]);
    stage.finish([a, b, c]);
}
