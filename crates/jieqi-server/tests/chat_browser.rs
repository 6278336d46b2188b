//! Game start and chat in a real browser (headless Chromium through chromedriver, like
//! `tests/browser.rs`): two browsers play a friend game, a third watches it. The
//! spectator talks in the spectator chat and a player in the player chat, each room
//! reaching only its own readers; markup in a line shows as text; a muted opponent's
//! line does not arrive; Abort replaces Resign until both have moved and ends the game
//! without a result.
//!
//! Needs `chromium` and `chromium-driver`.

use serde_json::{Value, json};

mod webdriver;
use webdriver::*;

/// Types `text` into the chat box and sends it.
fn say(b: &Browser, text: &str) {
    b.wait_for("#chat:not(.hidden) #chat-input");
    b.script(
        "document.querySelector('#chat-input').value = arguments[0];",
        json!([text]),
    );
    b.click("#chat-send");
}

/// The chat lines shown: `[sender, text]` each, read as text.
fn lines(b: &Browser) -> Value {
    b.script(
        "return [...document.querySelectorAll('#chat-lines li.chat-line')]
           .map(li => [li.querySelector('.chat-who').textContent, li.querySelector('.chat-text').textContent]);",
        json!([]),
    )
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

fn texts(b: &Browser) -> Vec<String> {
    lines(b)
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l[1].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn spectator_and_player_chat() {
    let stage = Stage::start(jieqi_server::EngineKind::Greedy);
    let base = stage.base.clone();
    let a = stage.browser("profile-a");
    let b = stage.browser("profile-b");
    let c = stage.browser("profile-c");

    // A friend game (as Red, 10+5): the friend joins through the invite link.
    let (invite, id) = create_friend_game(&a, &base, false, &[]);
    b.goto(&invite);
    for who in [&a, &b] {
        who.wait_for(".board-box[data-status=live]");
        // Before both have moved: Abort instead of Resign, and the first-move countdown.
        who.wait_for("#abort");
        assert!(who.find("#resign").is_none(), "Abort replaces Resign");
        who.wait_for("#first-move[data-color=red]");
        who.wait_for("#chat[data-room=players]");
    }
    // The third browser watches.
    c.goto(&format!("{base}/game/{id}"));
    c.wait_for(".board-box[data-status=live]");
    c.wait_for("#chat[data-room=spectators]");
    assert!(
        c.find("#chat-mute.hidden").is_some(),
        "spectators mute nobody"
    );

    // The spectator's line, with markup: shown as text, to spectators only.
    let markup = "<img src=x onerror=\"document.body.dataset.pwned=1\"><b>bold</b>";
    say(&c, markup);
    wait_line(&c, markup);
    assert_eq!(texts(&c), [markup]);
    let who = lines(&c)[0][0].as_str().unwrap().to_string();
    assert!(
        !who.is_empty() && who != markup,
        "a guest spectator is named as such: {who}"
    );
    let injected = c.script(
        "return [document.querySelectorAll('#chat-lines img, #chat-lines b, #chat img').length, document.body.dataset.pwned || null];",
        json!([]),
    );
    assert_eq!(injected, json!([0, null]), "markup stays text");

    // A player's line reaches both players, not the spectators.
    say(&a, "good luck <i>have fun</i>");
    for who in [&a, &b] {
        wait_line(who, "good luck <i>have fun</i>");
    }
    assert_eq!(texts(&b), ["good luck <i>have fun</i>"]);
    assert!(
        !texts(&a).contains(&markup.to_string()),
        "players do not read spectators"
    );
    assert_eq!(texts(&c), [markup], "spectators do not read players");

    // Too long a line is refused with a message, and the box keeps working.
    say(&b, &"x".repeat(150));
    b.wait(
        "the chat error",
        "const e = document.querySelector('#chat-error'); return !!e && !e.classList.contains('hidden') && e.textContent.length > 0;",
        json!([]),
        WAIT,
    );

    // Black mutes Red: Red's next line does not reach him.
    b.click("#chat-mute");
    b.wait_for("#chat-mute[data-muted=true]");
    say(&a, "can you hear me");
    wait_line(&a, "can you hear me");
    say(&b, "quiet now");
    wait_line(&a, "quiet now");
    wait_line(&b, "quiet now");
    assert!(!texts(&b).contains(&"can you hear me".to_string()), "muted");

    // Red moves: Black's first move is awaited, both may still abort; Black aborts.
    a.wait_for("#status.mine");
    click_a_move(&a, None);
    b.wait_for("#first-move[data-color=black]");
    b.wait_for("#abort");
    b.click("#abort");
    for who in [&a, &b, &c] {
        who.wait_for("#result");
        let r = who.script(
            "const r = document.querySelector('#result'); return [r.dataset.result, r.dataset.reason];",
            json!([]),
        );
        assert_eq!(r, json!(["*", "aborted"]));
    }
    assert!(a.find("#abort").is_none() && a.find("#resign").is_none());

    // The replay shows both rooms, as text.
    a.goto(&format!("{base}/replay/{id}"));
    a.wait_for("#replay-chat");
    let shown = a.script(
        "return [...document.querySelectorAll('#replay-chat .chat-room')]
           .map(r => [r.dataset.room, [...r.querySelectorAll('.chat-text')].map(e => e.textContent)]);",
        json!([]),
    );
    assert_eq!(
        shown,
        json!([
            [
                "players",
                ["good luck <i>have fun</i>", "can you hear me", "quiet now"]
            ],
            ["spectators", [markup]]
        ])
    );
    assert_eq!(
        a.script(
            "return document.querySelectorAll('#replay-chat img, #replay-chat i').length;",
            json!([])
        ),
        json!(0)
    );
    assert_no_console_errors([&a, &b, &c]);
    stage.finish([a, b, c]);
}
