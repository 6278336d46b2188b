//! Game chat (docs/server.md, "Chat"): two rooms per game, what a line may hold, and
//! the limits on how much one sender may say. The room ([`crate::room`]) decides who
//! may post where and who hears it; this file only knows lines and limits.

use std::collections::VecDeque;
use std::time::Duration;

use jieqi_core::Color;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

/// A game's chat room.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatRoom {
    /// The two players (during the game, only they read it).
    Players,
    /// Everyone watching.
    Spectators,
}

impl ChatRoom {
    /// The protocol's name.
    pub const fn name(self) -> &'static str {
        match self {
            ChatRoom::Players => "players",
            ChatRoom::Spectators => "spectators",
        }
    }

    /// The room of a name.
    pub fn parse(s: &str) -> Option<ChatRoom> {
        [ChatRoom::Players, ChatRoom::Spectators]
            .into_iter()
            .find(|r| r.name() == s)
    }
}

/// One chat line, as stored and as sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatLine {
    /// Its number in the game's chat (both rooms), from 1.
    pub n: u32,
    /// The room.
    pub room: ChatRoom,
    /// The sender's seat; `None` for a spectator.
    pub color: Option<Color>,
    /// The sender's account; `None` for a guest.
    pub user: Option<String>,
    /// The text, cleaned by [`clean`].
    pub text: String,
    /// When it was said (Unix ms).
    pub at_ms: u64,
}

/// How much may be said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatLimits {
    /// The longest line, in characters (after cleaning).
    pub max_chars: usize,
    /// Lines one sender may post in [`ChatLimits::window`].
    pub per_window: usize,
    /// The window of [`ChatLimits::per_window`].
    pub window: Duration,
    /// Lines a room of one game keeps; more are refused.
    pub max_lines: usize,
}

impl Default for ChatLimits {
    fn default() -> ChatLimits {
        ChatLimits {
            max_chars: 140,
            per_window: 5,
            window: Duration::from_secs(10),
            max_lines: 300,
        }
    }
}

/// Why a line was refused before any rate or room check.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// Nothing left after cleaning.
    #[error("the message is empty")]
    Empty,
    /// Longer than [`ChatLimits::max_chars`].
    #[error("the message has {chars} characters: at most {max} are allowed")]
    TooLong {
        /// Its length.
        chars: usize,
        /// The limit.
        max: usize,
    },
}

/// Whether `c` is dropped from chat text: control characters (C0, DEL, C1: line
/// breaks, escapes, NUL) and the invisible direction overrides and isolates, which
/// could make a line read as something else (`U+202A`–`U+202E`, `U+2066`–`U+2069`).
fn is_dropped(c: char) -> bool {
    c.is_control()
        || ('\u{202A}'..='\u{202E}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// The text of a line as it is kept: line breaks and tabs become spaces, the other
/// dropped characters go, outer white space is trimmed, and the length is checked
/// against `max_chars`. Markup is kept as the text it is: pages show chat as text,
/// never as HTML.
pub fn clean(text: &str, max_chars: usize) -> Result<String, LineError> {
    let kept: String = text
        .chars()
        .filter_map(|c| match c {
            '\n' | '\r' | '\t' => Some(' '),
            c if is_dropped(c) => None,
            c => Some(c),
        })
        .collect();
    let kept = kept.trim();
    if kept.is_empty() {
        return Err(LineError::Empty);
    }
    let chars = kept.chars().count();
    if chars > max_chars {
        return Err(LineError::TooLong {
            chars,
            max: max_chars,
        });
    }
    Ok(kept.to_string())
}

/// The times of one sender's recent lines: a sliding window.
#[derive(Clone, Debug, Default)]
pub struct Recent(VecDeque<Instant>);

impl Recent {
    /// Whether one more line at `now` stays within the limits; if so it is counted.
    pub fn allow(&mut self, limits: &ChatLimits, now: Instant) -> bool {
        while self
            .0
            .front()
            .is_some_and(|&t| now.saturating_duration_since(t) >= limits.window)
        {
            self.0.pop_front();
        }
        if self.0.len() >= limits.per_window {
            return false;
        }
        self.0.push_back(now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_and_overrides_go_and_markup_stays_text() {
        assert_eq!(
            clean("  hi\u{0}\nthere\u{7f}\u{202e}\u{1b} ", 140).unwrap(),
            "hi there"
        );
        let markup = "<img src=x onerror=alert(1)>";
        assert_eq!(clean(markup, 140).unwrap(), markup);
        assert_eq!(clean("\u{1b}\u{0}\r\n\t\u{85}", 140), Err(LineError::Empty));
        assert_eq!(clean("", 140), Err(LineError::Empty));
    }

    #[test]
    fn length_counts_characters_not_bytes() {
        assert!(clean(&"将".repeat(140), 140).is_ok());
        assert_eq!(
            clean(&"a".repeat(141), 140),
            Err(LineError::TooLong {
                chars: 141,
                max: 140
            })
        );
    }

    #[test]
    fn the_window_slides() {
        let limits = ChatLimits::default();
        let t0 = Instant::now();
        let mut r = Recent::default();
        for i in 0..5 {
            assert!(r.allow(&limits, t0 + Duration::from_secs(i)));
        }
        assert!(!r.allow(&limits, t0 + Duration::from_secs(9)));
        // The first line leaves the window at 10 s.
        assert!(r.allow(&limits, t0 + Duration::from_secs(10)));
        assert!(!r.allow(&limits, t0 + Duration::from_secs(10)));
    }

    #[test]
    fn rooms_have_names() {
        for r in [ChatRoom::Players, ChatRoom::Spectators] {
            assert_eq!(ChatRoom::parse(r.name()), Some(r));
            assert_eq!(serde_json::to_value(r).unwrap(), r.name());
        }
    }
}
