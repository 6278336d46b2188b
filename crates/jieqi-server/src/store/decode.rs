//! What both databases share: turning stored columns into the store's types and back,
//! so that SQLite and PostgreSQL read and write a game's end, a tally, a chat line the
//! same way.

use jieqi_core::{Color, Outcome, Reason};

use super::{FinishRecord, GameEnd, HistoryEntry, PlayerResult, StoreError, Summary, Tally};
use super::{RatingChange, RatingRecord};
use crate::chat::{ChatLine, ChatRoom};
use crate::rating::{Category, Rating};

/// A stored takeback request (`red:12`: who asked, at how many plies).
pub(super) fn takeback_from(text: &str) -> Option<(Color, u32)> {
    let (c, n) = text.split_once(':')?;
    Some((Color::parse_name(c)?, n.parse().ok()?))
}

/// A takeback request as stored ([`takeback_from`] reads it back).
pub(super) fn takeback_text((c, n): (Color, u32)) -> String {
    format!("{}:{n}", c.name())
}

/// The `reason` of an aborted game (its `result` is `*`).
pub(super) const ABORTED: &str = "aborted";

/// A `u64` as the databases' signed 64-bit integer (saturating).
pub(super) fn i(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// A stored signed 64-bit integer as a `u64` (a negative one as 0).
pub(super) fn u(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

/// The end columns of a game's row as stored: `result`, `winner`, `reason`,
/// `finished_ms`.
pub(super) type FinishColumns = (Option<String>, Option<String>, Option<String>, Option<i64>);

/// The `result`, `winner` and `reason` columns of an end.
pub(super) fn finish_columns(f: &FinishRecord) -> (&'static str, Option<&'static str>, String) {
    (
        f.end.result_str(),
        f.end.outcome().and_then(|o| o.winner()).map(Color::name),
        match f.end {
            GameEnd::Result(o) => o.reason().code(),
            GameEnd::Aborted => ABORTED.to_string(),
        },
    )
}

/// Reads a game's end from its row (`None`: not over). A row whose end cannot be read
/// is reported (logged with the game's id) and is an error: no end is made up for it.
pub(super) fn finish_from(
    id: &str,
    cols: FinishColumns,
) -> Result<Option<FinishRecord>, StoreError> {
    let (result, winner, reason, at) = cols;
    let Some(result) = result else {
        return Ok(None);
    };
    if result == "*" && reason.as_deref() == Some(ABORTED) && winner.is_none() {
        return Ok(Some(FinishRecord {
            end: GameEnd::Aborted,
            at_ms: u(at.unwrap_or(0)),
        }));
    }
    let read = || -> Result<FinishRecord, String> {
        let winner = match winner.as_deref() {
            None => None,
            Some(w) => Some(Color::parse_name(w).ok_or(format!("unknown winner {w:?}"))?),
        };
        let code = reason.ok_or("no reason")?;
        let reason = Reason::from_code(&code).ok_or(format!("unreadable reason {code:?}"))?;
        let outcome = match winner {
            Some(winner) => Outcome::Win { winner, reason },
            None => Outcome::Draw { reason },
        };
        if outcome.result_str() != result {
            return Err(format!("result {result:?} but winner {winner:?}"));
        }
        Ok(FinishRecord {
            end: GameEnd::Result(outcome),
            at_ms: u(at.unwrap_or(0)),
        })
    };
    read().map(Some).map_err(|why| {
        tracing::error!(game = %id, "stored end unreadable: {why}");
        StoreError::Corrupt {
            id: id.to_string(),
            why,
        }
    })
}

/// A chat line from its columns `(n, room, color, user, text, at_ms)`; `None` for a
/// line that cannot be read (an unknown room), which is left out rather than failing
/// the game.
pub(super) fn chat_line(
    (n, room, color, user, text, at_ms): (u32, String, Option<String>, Option<String>, String, u64),
) -> Option<ChatLine> {
    Some(ChatLine {
        n,
        room: ChatRoom::parse(&room)?,
        color: color.as_deref().and_then(Color::parse_name),
        user,
        text,
        at_ms,
    })
}

/// A user's ratings from rows `(category, rating, games)`, in category order (a row of
/// an unknown category is left out).
pub(super) fn rating_records(rows: Vec<(String, Rating, u32)>) -> Vec<RatingRecord> {
    let mut out: Vec<RatingRecord> = rows
        .into_iter()
        .filter_map(|(cat, rating, games)| {
            Some(RatingRecord {
                category: Category::parse(&cat)?,
                rating,
                games,
            })
        })
        .collect();
    out.sort_by_key(|r| r.category);
    out
}

/// A user's rating changes from rows `(game, category, at_ms, before, after)`.
pub(super) fn rating_changes(
    rows: Vec<(String, String, u64, Rating, Rating)>,
) -> Vec<RatingChange> {
    rows.into_iter()
        .filter_map(|(game, cat, at_ms, before, after)| {
            Some(RatingChange {
                game,
                category: Category::parse(&cat)?,
                at_ms,
                before,
                after,
            })
        })
        .collect()
}

/// Tallies from rows `(category, rated, result for the user, count)`, ordered by
/// category (untimed last), rated first.
pub(super) fn tallies(rows: Vec<(Option<String>, bool, String, u32)>) -> Vec<Tally> {
    let mut out: Vec<Tally> = Vec::new();
    for (cat, rated, result, n) in rows {
        let category = cat.as_deref().and_then(Category::parse);
        let i = match out
            .iter()
            .position(|t| t.category == category && t.rated == rated)
        {
            Some(i) => i,
            None => {
                out.push(Tally {
                    category,
                    rated,
                    ..Tally::default()
                });
                out.len() - 1
            }
        };
        match PlayerResult::parse(&result) {
            Some(PlayerResult::Win) => out[i].wins += n,
            Some(PlayerResult::Draw) => out[i].draws += n,
            Some(PlayerResult::Loss) => out[i].losses += n,
            None => {}
        }
    }
    out.sort_by_key(|t| (t.category.is_none(), t.category, !t.rated));
    out
}

/// A history line of `user` from a game's lobby line and the user's rating change.
pub(super) fn history_entry(
    user: &str,
    summary: Summary,
    rating: Option<(Rating, Rating)>,
) -> HistoryEntry {
    HistoryEntry {
        color: if summary.users.red.as_deref() == Some(user) {
            Color::Red
        } else {
            Color::Black
        },
        rated: summary.rated,
        rating,
        summary,
    }
}
