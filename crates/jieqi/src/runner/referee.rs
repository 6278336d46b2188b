//! The referee: the true game (deal, history, adjudication) and what each side is told.
//!
//! This is the one place the runner asks the rules about a game: it wraps
//! `jieqi_core::Game` (deal, history, adjudication of RULES.md §5) and keeps, move by
//! move, each side's position and the move strings it was sent, through that side's
//! `View`, so a side is never told a captured identity it may not know.

use jieqi_core::game::{Game, GameError, Outcome, Reason, RuleSet};
use jieqi_core::notation::{Notation, write_move};
use jieqi_core::view::{CapturedIdentity, Viewer};
use jieqi_core::{ByColor, Color, Deal, Move, Piece, Position, Role, UciMove};

use super::outcome::Ending;

/// The rules the referee applies: a `jieqi_core` rule set plus the runner's ply cap.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RefereeRules {
    /// The rule set (captured-identity option, chase rule, …).
    pub rules: RuleSet,
    /// Plies after which the game is drawn by adjudication (0: no cap).
    pub ply_cap: u32,
}

impl RefereeRules {
    /// The standard rule set with this captured-identity option.
    pub fn with_captured_identity(captured_identity: CapturedIdentity) -> RefereeRules {
        RefereeRules {
            rules: RuleSet {
                captured_identity,
                ..RuleSet::STANDARD
            },
            ..RefereeRules::default()
        }
    }
}

impl Default for RefereeRules {
    fn default() -> RefereeRules {
        RefereeRules {
            rules: RuleSet::STANDARD,
            ply_cap: 400,
        }
    }
}

/// A captured piece as the game saw it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Capture {
    /// The ply index of the capture (0-based).
    pub ply: usize,
    /// The side that captured.
    pub by: Color,
    /// The piece as it stood (`Piece::Down` if face-down).
    pub piece: Piece,
    /// Its true identity.
    pub identity: Role,
}

/// The true game and each side's knowledge of it.
#[derive(Clone, Debug)]
pub struct Referee {
    game: Game,
    ply_cap: u32,
    views: ByColor<Position>,
    /// Each side's position before the last move (to describe that move).
    before: ByColor<Position>,
    start_fen: String,
    told: ByColor<Vec<String>>,
    record: Vec<String>,
    captures: Vec<Capture>,
    ending: Option<Ending>,
}

impl Referee {
    /// A game from the Jieqi start with this deal.
    pub fn new(deal: Deal, rules: RefereeRules) -> Referee {
        Referee::wrap(Game::new(deal, rules.rules), rules.ply_cap)
    }

    /// A game from `start`, the position as the referee knows it (its pools must be
    /// the deal's identities of the face-down pieces); both sides start knowing the same.
    pub fn from_position(
        start: Position,
        deal: Deal,
        rules: RefereeRules,
    ) -> Result<Referee, GameError> {
        Ok(Referee::wrap(
            Game::from_position(start, deal, rules.rules)?,
            rules.ply_cap,
        ))
    }

    fn wrap(game: Game, ply_cap: u32) -> Referee {
        let start = game.start().clone();
        let mut r = Referee {
            start_fen: start.fen(),
            views: ByColor::new_with(|_| start.clone()),
            before: ByColor::new_with(|_| start.clone()),
            told: ByColor::new_with(|_| Vec::new()),
            record: Vec::new(),
            captures: Vec::new(),
            ending: None,
            ply_cap,
            game,
        };
        // A start without a legal move is decided before any move.
        if start.is_game_over_by_moves() {
            let reason = if start.is_check() {
                Reason::Checkmate
            } else {
                Reason::Stalemate
            };
            r.finish(Ending::win(!start.turn(), reason));
        }
        r
    }

    /// The underlying `jieqi_core` game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The deal.
    pub fn deal(&self) -> &Deal {
        self.game.deal()
    }

    /// The position as the referee knows it.
    pub fn truth(&self) -> &Position {
        self.game.position()
    }

    /// The position as `side` knows it (its pools and the identities it captured).
    pub fn view(&self, side: Color) -> &Position {
        &self.views[side]
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.game.turn()
    }

    /// The start FEN (the same for every viewer).
    pub fn start_fen(&self) -> &str {
        &self.start_fen
    }

    /// The moves with every identity (for records kept by the referee).
    pub fn record(&self) -> &[String] {
        &self.record
    }

    /// The moves as `side` was told them.
    pub fn moves_told(&self, side: Color) -> &[String] {
        &self.told[side]
    }

    /// The last move as `side` was told it, written in `notation` (Chinese, WXF,
    /// ICCS); `None` before the first move.
    pub fn last_move_text(&self, side: Color, notation: Notation) -> Option<String> {
        let told = self.told[side].last()?;
        let before = &self.before[side];
        let (m, rv) = UciMove::parse(told).ok()?.resolve(before).ok()?;
        Some(write_move(before, m, rv, notation))
    }

    /// The last move played.
    pub fn last_move(&self) -> Option<Move> {
        self.game.plies().last().map(|p| p.mv)
    }

    /// Every capture so far, in order.
    pub fn captures(&self) -> &[Capture] {
        &self.captures
    }

    /// Whether `viewer` knows the identity of this capture.
    pub fn knows_capture(&self, viewer: Color, c: &Capture) -> bool {
        self.game
            .plies()
            .get(c.ply)
            .is_some_and(|ply| self.game.view(Viewer::Player(viewer)).knows_capture(ply))
    }

    /// The UCI `position` command for `side`: the start FEN and the moves with the
    /// suffix letters it may see.
    pub fn position_command(&self, side: Color) -> String {
        let mut s = format!("position fen {}", self.start_fen);
        if !self.told[side].is_empty() {
            s.push_str(" moves");
            for m in &self.told[side] {
                s.push(' ');
                s.push_str(m);
            }
        }
        s
    }

    /// The outcome, once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.ending.as_ref().map(|e| e.outcome)
    }

    /// The outcome with the runner's detail, once the game is over.
    pub fn ending(&self) -> Option<&Ending> {
        self.ending.as_ref()
    }

    /// Ends the game from outside the board (time, illegal move, crash, resignation).
    pub fn finish(&mut self, ending: Ending) {
        if self.ending.is_none() {
            // The game may already be over in the core only if we are, so this succeeds.
            let _ = self.game.finish(ending.outcome);
            self.ending = Some(ending);
        }
    }

    /// Plays `m` for the side to move, revealing identities from the deal, telling each
    /// side what it may know, and adjudicating. Fails (changing nothing) if the move is
    /// illegal or the game is over.
    pub fn play(&mut self, m: Move) -> Result<Option<Outcome>, GameError> {
        if let Some(o) = self.outcome() {
            return Err(GameError::Over(o));
        }
        let us = self.game.turn();
        let rv = self.game.reveals_for(m);
        let target = self.game.position().piece_at(m.to);
        let record = UciMove::from_move(self.game.position(), m, rv).to_string();
        let ply = self.game.play(m)?.clone();
        for side in Color::ALL {
            let told = self.game.view(Viewer::Player(side)).reveals(&ply);
            self.before[side] = self.views[side].clone();
            let view = &mut self.views[side];
            self.told[side].push(UciMove::from_move(view, m, told).to_string());
            view.play_unchecked(m, told);
        }
        if let Some(piece) = target {
            let identity = match piece {
                Piece::Up(_, r) => r,
                Piece::Down(_) => rv.captured.unwrap_or(Role::Pawn),
            };
            self.captures.push(Capture {
                ply: self.record.len(),
                by: us,
                piece,
                identity,
            });
        }
        self.record.push(record);
        if let Some(o) = self.game.outcome() {
            self.ending = Some(Ending::new(o));
        } else if self.ply_cap > 0 && self.record.len() as u32 >= self.ply_cap {
            self.finish(Ending::draw(Reason::Adjudication).with_detail("ply cap"));
        }
        Ok(self.outcome())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jieqi_core::Square;

    fn mv(s: &str) -> Move {
        UciMove::parse(s).unwrap().to_plain()
    }

    fn play_all(r: &mut Referee, moves: &str) -> Option<Outcome> {
        for m in moves.split_whitespace() {
            if let Some(o) = r.play(mv(m)).unwrap() {
                return Some(o);
            }
        }
        r.outcome()
    }

    #[test]
    fn only_the_capturer_learns_a_captured_identity() {
        let deal = Deal::parse("RNBAABNRCCPPPPP/rnbaabnrccppppp").unwrap();
        let mut r = Referee::new(deal, RefereeRules::default());
        // Red's face-down cannon on h2 (a cannon in this deal) takes the face-down
        // horse on h9.
        assert!(play_all(&mut r, "h2h9").is_none());
        assert_eq!(r.record(), ["h2h9Cn"]);
        assert_eq!(r.moves_told(Color::Red), ["h2h9Cn"]);
        assert_eq!(r.moves_told(Color::Black), ["h2h9C"]);
        assert_eq!(
            r.view(Color::Red).captured().get(Color::Black, Role::Horse),
            1
        );
        assert_eq!(
            r.view(Color::Black)
                .captured()
                .get(Color::Black, Role::Horse),
            0
        );
        assert_eq!(
            r.view(Color::Black).pool().get(Color::Black, Role::Horse),
            2
        );
        assert_eq!(r.view(Color::Red).pool().get(Color::Black, Role::Horse), 1);
        assert!(r.position_command(Color::Black).ends_with("moves h2h9C"));
        let zh = Notation::Chinese(jieqi_core::notation::Script::Simplified);
        let red_text = r.last_move_text(Color::Red, zh).unwrap();
        let black_text = r.last_move_text(Color::Black, zh).unwrap();
        assert!(red_text.starts_with("炮二进七"), "{red_text}");
        assert!(
            red_text.contains('马'),
            "the capturer learns the horse: {red_text}"
        );
        assert!(!black_text.contains('马'), "{black_text}");
        assert_eq!(
            r.last_move_text(Color::Red, Notation::Iccs).unwrap(),
            "h2h9Cn"
        );
        // Black's face-down rook on i9 takes the revealed cannon: face-up, so both know.
        play_all(&mut r, "i9h9");
        assert_eq!(r.moves_told(Color::Red)[1], "i9h9r");
        assert_eq!(r.moves_told(Color::Black)[1], "i9h9r");
        assert!(!r.knows_capture(Color::Black, &r.captures()[0]));
        assert!(r.knows_capture(Color::Red, &r.captures()[0]));
        assert!(r.knows_capture(Color::Red, &r.captures()[1]));
    }

    #[test]
    fn captured_identity_options() {
        let deal = Deal::standard();
        for (opt, red_sees, black_sees) in [
            (CapturedIdentity::Nobody, "h2h9C", "h2h9C"),
            (CapturedIdentity::Everyone, "h2h9Cn", "h2h9Cn"),
        ] {
            let mut r = Referee::new(deal, RefereeRules::with_captured_identity(opt));
            play_all(&mut r, "h2h9");
            assert_eq!(r.moves_told(Color::Red), [red_sees]);
            assert_eq!(r.moves_told(Color::Black), [black_sees]);
        }
    }

    #[test]
    fn illegal_moves_are_refused_without_change() {
        let mut r = Referee::new(Deal::standard(), RefereeRules::default());
        assert!(r.play(mv("e0e2")).is_err());
        assert!(r.play(mv("a9a8")).is_err());
        assert!(r.record().is_empty());
        assert_eq!(r.turn(), Color::Red);
    }

    fn from(fen: &str) -> Referee {
        Referee::from_position(
            Position::from_fen(fen).unwrap(),
            Deal::standard(),
            RefereeRules::default(),
        )
        .unwrap()
    }

    #[test]
    fn checkmate_and_stalemate_lose() {
        // The rook ladder: b0b8 holds rank 8, a7a9 mates on rank 9.
        let mut r = from("4k4/9/R8/9/9/9/9/9/9/1R1K5 w - - 0 1");
        let o = play_all(&mut r, "b0b8 e9f9 a7a9").unwrap();
        assert_eq!(o, Ending::win(Color::Red, Reason::Checkmate).outcome);
        // Stalemate (困毙) loses: the black king on d9 has no move and is not in check.
        let mut r = from("3k5/9/9/4R4/9/9/9/9/9/4K4 w - - 0 1");
        let o = play_all(&mut r, "e6e8").unwrap();
        assert_eq!(o, Ending::win(Color::Red, Reason::Stalemate).outcome);
    }

    #[test]
    fn third_repetition_draws() {
        let mut r = from("r4k3/9/9/9/9/9/9/9/9/R2K5 w - - 0 1");
        assert!(play_all(&mut r, "a0a1 a9a8 a1a0 a8a9 a0a1 a9a8 a1a0").is_none());
        let o = play_all(&mut r, "a8a9").unwrap();
        assert_eq!(o, Ending::draw(Reason::Repetition).outcome);
    }

    #[test]
    fn perpetual_check_by_one_rook_loses_even_through_repetitions() {
        let mut r = from("5k3/9/9/9/9/9/9/9/9/R2K5 w - - 0 1");
        let cycle =
            "a0a9 f9f8 a9a8 f8f9 a8a9 f9f8 a9a8 f8f9 a8a9 f9f8 a9a8 f8f9 a8a9 f9f8 a9a8 f8f9";
        assert_eq!(play_all(&mut r, cycle), None, "no end before the 9th check");
        let o = play_all(&mut r, "a8a9").unwrap();
        assert_eq!(
            o,
            Ending::win(
                Color::Black,
                Reason::PerpetualCheck {
                    role: Role::Rook,
                    square: Square::parse("a9").unwrap()
                }
            )
            .outcome
        );
    }

    #[test]
    fn perpetual_check_by_a_pawn_is_allowed_and_draws_by_repetition() {
        let mut r = from("5k3/4P4/9/9/9/9/9/9/9/3K5 w - - 0 1");
        assert!(play_all(&mut r, "e8f8 f9e9 f8e8 e9f9 e8f8 f9e9 f8e8").is_none());
        let o = play_all(&mut r, "e9f9").unwrap();
        assert_eq!(o, Ending::draw(Reason::Repetition).outcome);
    }

    #[test]
    fn no_capture_rule_and_ply_cap() {
        let mut r = from("r4k3/9/9/9/9/9/9/9/9/R2K5 w - - 79 40");
        let o = play_all(&mut r, "a0a1").unwrap();
        assert_eq!(o, Ending::draw(Reason::NoCapture).outcome);
        let mut r = Referee::from_position(
            Position::from_fen("r4k3/9/9/9/9/9/9/9/9/R2K5 w - - 0 1").unwrap(),
            Deal::standard(),
            RefereeRules {
                ply_cap: 3,
                ..RefereeRules::default()
            },
        )
        .unwrap();
        let o = play_all(&mut r, "a0a1 a9a8 a1a2").unwrap();
        assert_eq!(o, Ending::draw(Reason::Adjudication).outcome);
        assert_eq!(r.ending().unwrap().termination(), "ply cap");
    }

    #[test]
    fn bare_kings_draw() {
        let mut r = from("5k3/9/9/9/9/9/9/9/3p5/3K5 w - - 0 1");
        let o = play_all(&mut r, "d0d1").unwrap();
        assert_eq!(o, Ending::draw(Reason::BareKings).outcome);
        assert_eq!(r.captures()[0].identity, Role::Pawn);
    }
}
