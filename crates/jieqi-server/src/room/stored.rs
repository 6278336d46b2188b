//! Between a room and the store: a new game's record, and a stored game replayed.

use jieqi_core::{ByColor, Color, Deal, Game, RuleSet, UciMove};

use crate::GameOptions;
use crate::clock::TimeControl;
use crate::knowledge::PlyMeta;
use crate::store::{NewGame, SeatRecord, StoreError, StoredGame};
use crate::util::now_ms;

fn corrupt(id: &str, why: impl Into<String>) -> StoreError {
    StoreError::Corrupt {
        id: id.to_string(),
        why: why.into(),
    }
}

/// The referee's game of a stored game, with each ply's time and clock.
pub fn replay_stored(
    s: &StoredGame,
) -> Result<(Game, Vec<PlyMeta>, Option<TimeControl>), StoreError> {
    let id = &s.new.id;
    let deal = Deal::parse(&s.new.deal).map_err(|e| corrupt(id, e.to_string()))?;
    let rules = rules_of(&s.new.rules, &s.new.captured_identity)
        .ok_or_else(|| corrupt(id, "unknown rules"))?;
    let tc = TimeControl::parse(&s.new.time, s.new.move_time_s)
        .map_err(|e| corrupt(id, e.to_string()))?;
    let mut game = Game::new(deal, rules);
    let mut metas = Vec::with_capacity(s.moves.len());
    for m in &s.moves {
        let u = UciMove::parse(&m.uci).map_err(|e| corrupt(id, e.to_string()))?;
        let color = game.turn();
        game.play(u.to_plain())
            .map_err(|e| corrupt(id, format!("move {}: {e}", m.n)))?;
        metas.push(PlyMeta {
            at_ms: m.at_ms,
            clock_ms: tc.map(|_| match color {
                Color::Red => m.red_ms,
                Color::Black => m.black_ms,
            }),
        });
    }
    if game.outcome().is_none()
        && let Some(o) = s.finish.and_then(|f| f.end.outcome())
    {
        let _ = game.finish(o);
    }
    Ok((game, metas, tc))
}

/// The game as it was before its last ply, replayed from the start. Used only when a
/// move could not be stored (rare), so that no copy of the game is made before every
/// move.
pub fn without_last_ply(game: &Game) -> Result<Game, jieqi_core::GameError> {
    first_plies(game, game.plies().len().saturating_sub(1))
}

/// The game replayed to its first `keep` plies (a takeback).
pub fn first_plies(game: &Game, keep: usize) -> Result<Game, jieqi_core::GameError> {
    let mut g = Game::from_position(game.start().clone(), *game.deal(), *game.rules())?;
    for p in game.plies().iter().take(keep) {
        g.play(p.mv)?;
    }
    Ok(g)
}

/// The rules of a stored game.
pub fn rules_of(name: &str, captured_identity: &str) -> Option<RuleSet> {
    let mut r = RuleSet::by_name(name)?;
    r.captured_identity = jieqi_core::CapturedIdentity::parse(captured_identity)?;
    Some(r)
}

/// The invite link of game `id`: the page claims the invite seat with `invite_token`
/// (docs/protocol.md §2.2) and continues on the seat's own link.
pub fn invite_url(id: &str, invite_token: &str) -> String {
    format!("/game/{id}?invite={invite_token}")
}

/// A new game's seats and tokens, for [`crate::Shared::create_game`].
pub fn new_game_record(
    id: &str,
    opts: &GameOptions,
    tokens: &ByColor<String>,
    invite_token: Option<String>,
    deal: &Deal,
    salt: &str,
) -> NewGame {
    NewGame {
        id: id.to_string(),
        created_ms: now_ms(),
        deal: deal.to_string(),
        salt: salt.to_string(),
        commitment: deal.commitment(salt),
        rules: opts.rules.name.to_string(),
        captured_identity: opts.rules.captured_identity.name().to_string(),
        time: crate::clock::time_text(opts.tc.as_ref()),
        move_time_s: opts.tc.and_then(|t| t.move_ms).map(|m| m / 1000),
        seats: ByColor::new_with(|c| SeatRecord {
            engine_level: opts.engine[c],
            token: tokens[c].clone(),
            joined: opts.engine[c].is_some(),
            user: opts.users[c].clone(),
        }),
        invite: opts.invite,
        invite_token,
        listed: opts.listed,
        rematch_of: opts.rematch_of.clone(),
        rated: opts.rated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_is_taken_back_by_replaying_the_others() {
        let mut g = Game::new(Deal::from_seed(b"take back"), RuleSet::STANDARD);
        let mut before = None;
        for i in 0..12 {
            if i == 11 {
                before = Some(g.clone());
            }
            let m = g.position().legal_moves().as_slice()[i % 3];
            g.play(m).unwrap();
        }
        let before = before.unwrap();
        let back = without_last_ply(&g).unwrap();
        assert_eq!(back.plies(), before.plies());
        assert_eq!(back.position().fen(), before.position().fen());
        assert_eq!(back.turn(), before.turn());
        // Back again to the start, and nothing to take back there.
        let start = Game::new(Deal::from_seed(b"take back"), RuleSet::STANDARD);
        assert!(without_last_ply(&start).unwrap().plies().is_empty());
    }
}
