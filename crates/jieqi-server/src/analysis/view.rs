//! Whose knowledge the analysis board starts from: in a live game a player sees his
//! own seat's view and anyone else the public view; a finished game's record is
//! public (every captured identity is told at the end; the deal never reaches the
//! engine, whose FEN keeps `X`/`x` for face-down pieces).

use jieqi_core::{Color, Game, Viewer};

use crate::store::StoredGame;
use crate::util;

/// The viewer a request for game `stored` is served as: a seat's player when `token`
/// is that seat's (a human seat's) token while the game runs; the referee's public
/// record once it is over; a spectator otherwise.
pub fn viewer_of(stored: &StoredGame, finished: bool, token: Option<&str>) -> Viewer {
    if finished {
        return Viewer::Referee;
    }
    if let Some(token) = token {
        for c in Color::ALL {
            let seat = stored.new.seats.get(c);
            if seat.engine_level.is_none() && util::same_secret(&seat.token, token) {
                return Viewer::Player(c);
            }
        }
    }
    Viewer::Spectator
}

/// The name of a viewer in answers: `red`, `black`, `spectator` or `record`.
pub fn viewer_label(v: Viewer) -> &'static str {
    match v {
        Viewer::Player(c) => c.name(),
        Viewer::Spectator => "spectator",
        Viewer::Referee => "record",
    }
}

/// The FEN after `ply` plies of `game` as `viewer` knows it.
pub fn fen_for(game: &Game, viewer: Viewer, ply: usize) -> String {
    game.view(viewer).position_after(ply).fen()
}

/// The FEN the mover of ply `n + 1` saw before moving (whole-game analysis: the
/// engine judges each position as the side to move knew it).
pub fn mover_fen(game: &Game, n: usize) -> String {
    let turn = if n % 2 == 0 {
        game.start().turn()
    } else {
        !game.start().turn()
    };
    fen_for(game, Viewer::Player(turn), n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jieqi_core::{Deal, RuleSet, UciMove};

    fn game() -> Game {
        let deal = Deal::parse("RNBAABNRCCPPPPP/rnbaabnrccppppp").unwrap();
        let mut g = Game::new(deal, RuleSet::STANDARD);
        // Red's face-down cannon (dealt a pawn's identity? no: the deal gives b2 a C)
        // takes Black's face-down piece on b9 at once.
        for m in ["b2b9", "a9b9"] {
            g.play(UciMove::parse(m).unwrap().to_plain()).unwrap();
        }
        g
    }

    #[test]
    fn players_see_their_own_view_and_others_the_public_one() {
        let g = game();
        let red = fen_for(&g, Viewer::RED, 2);
        let black = fen_for(&g, Viewer::Player(Color::Black), 2);
        let public = fen_for(&g, Viewer::Spectator, 2);
        // Nothing but face-down letters for the opponent's unmoved pieces.
        for fen in [&red, &black, &public] {
            assert!(fen.starts_with("1xxxkxxxx/") || fen.contains('x'), "{fen}");
        }
        // The captured face-down piece's identity: known only to whom the rules say.
        assert_ne!(red, public, "red knows what he took: {red} vs {public}");
        assert_eq!(mover_fen(&g, 2), red, "at ply 2 Red moves");
        assert_eq!(
            mover_fen(&g, 1),
            fen_for(&g, Viewer::Player(Color::Black), 1)
        );
    }
}
