//! Games: the referee's record of one game — position, deal, history — and the
//! adjudication of every rule of RULES.md §5.

mod chase;
mod judge;
mod outcome;
mod rules;

pub use chase::{Squares, chased_by, counting_checkers};
pub use judge::{Judge, Perpetual, Streaks};
pub use outcome::{Outcome, Reason};
pub use rules::RuleSet;

use crate::{
    Color, Deal, Material, Move, PlayError, Position, Reveals, Role, UciMove, UciMoveError, View,
    Viewer,
};

/// One ply as the referee saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ply {
    /// The move.
    pub mv: Move,
    /// Who moved.
    pub color: Color,
    /// Every identity the move uncovered: the mover's if it was face-down, and the
    /// captured piece's if it was face-down (public or not: see [`View`]).
    pub reveals: Reveals,
    /// What was captured, as the board showed it (`Some(None)` a face-down piece).
    pub captured: Option<Option<Role>>,
    /// Whether the move gave check.
    pub check: bool,
    /// Position hash after the move (referee's pools).
    pub hash: u64,
}

impl Ply {
    /// Whether a face-down piece was captured.
    pub fn captured_hidden(&self) -> bool {
        self.captured == Some(None)
    }
}

/// Why the game refused a move or an action.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// The game is over.
    #[error("the game is over: {0}")]
    Over(Outcome),
    /// The move cannot be played.
    #[error(transparent)]
    Play(#[from] PlayError),
    /// The coordinate move cannot be read or does not fit.
    #[error("{0}")]
    Uci(String),
    /// The deal and the starting position disagree.
    #[error("the deal does not fit the position: {0}")]
    DealMismatch(String),
}

impl From<UciMoveError> for GameError {
    fn from(e: UciMoveError) -> GameError {
        match e {
            UciMoveError::Play(p) => GameError::Play(p),
            other => GameError::Uci(other.to_string()),
        }
    }
}

/// A game under a referee who knows the deal.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    deal: Deal,
    rules: RuleSet,
    position: Position,
    plies: Vec<Ply>,
    judge: Judge,
    outcome: Option<Outcome>,
}

impl Game {
    /// A new game from the start position with this deal.
    pub fn new(deal: Deal, rules: RuleSet) -> Game {
        Game::from_position(Position::start(), deal, rules)
            .expect("the start position fits every deal")
    }

    /// A game from a referee's position: its pools must be exactly the deal's identities
    /// of the face-down pieces on the board.
    pub fn from_position(start: Position, deal: Deal, rules: RuleSet) -> Result<Game, GameError> {
        let mut expected = Material::EMPTY;
        for (sq, p) in start.board().pieces() {
            if let crate::Piece::Down(c) = p {
                let role = deal
                    .identity_at(sq)
                    .expect("face-down pieces stand on start squares");
                *expected.get_mut(c, role) += 1;
            }
        }
        if expected != *start.pool() {
            return Err(GameError::DealMismatch(format!(
                "the pool field is {} but the face-down pieces are {} under this deal",
                start.pool(),
                expected
            )));
        }
        let judge = Judge::new(rules, &start);
        // A start that already ends the game (no legal move, bare kings, the
        // capture-free count reached) is judged at once.
        let outcome = judge.verdict(&start);
        Ok(Game {
            position: start.clone(),
            start,
            deal,
            rules,
            plies: Vec::new(),
            judge,
            outcome,
        })
    }

    /// The referee's current position.
    pub fn position(&self) -> &Position {
        &self.position
    }
    /// The referee's starting position.
    pub fn start(&self) -> &Position {
        &self.start
    }
    /// The deal (secret until the game ends; serve players through [`Game::view`]).
    pub fn deal(&self) -> &Deal {
        &self.deal
    }
    /// The rules.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }
    /// The plies played.
    pub fn plies(&self) -> &[Ply] {
        &self.plies
    }
    /// The result, once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }
    /// The side to move.
    pub fn turn(&self) -> Color {
        self.position.turn()
    }
    /// What `viewer` may know of this game.
    pub fn view(&self, viewer: Viewer) -> View<'_> {
        View::new(self, viewer)
    }

    /// The identities a move uncovers, from the deal.
    pub fn reveals_for(&self, m: Move) -> Reveals {
        self.deal.reveals(&self.position, m)
    }

    /// Plays a coordinate move (suffix letters, if any, must agree with the deal).
    pub fn play_uci(&mut self, s: &str) -> Result<&Ply, GameError> {
        let u = UciMove::parse(s).map_err(|e| GameError::Uci(e.to_string()))?;
        let m = u.to_plain();
        if u.suffix.iter().any(Option::is_some) {
            let (_, rv) = u.resolve(&self.position)?;
            let truth = self.reveals_for(m);
            if rv.mover.is_some_and(|r| Some(r) != truth.mover)
                || rv.captured.is_some_and(|r| Some(r) != truth.captured)
            {
                return Err(GameError::Uci(format!(
                    "{s}: the suffix letters contradict the deal"
                )));
            }
        }
        self.play(m)
    }

    /// Plays a move; the deal supplies what it reveals. Then adjudicates.
    pub fn play(&mut self, m: Move) -> Result<&Ply, GameError> {
        if let Some(o) = self.outcome {
            return Err(GameError::Over(o));
        }
        let color = self.position.turn();
        let rv = self.reveals_for(m);
        let captured = self.position.piece_at(m.to).map(|p| match p {
            crate::Piece::Up(_, r) => Some(r),
            crate::Piece::Down(_) => None,
        });
        let undo = self.position.play(m, rv)?;
        self.judge.push(&self.position, &undo);
        self.plies.push(Ply {
            mv: m,
            color,
            reveals: rv,
            captured,
            check: self.judge.in_check(),
            hash: self.position.hash(),
        });
        self.outcome = self.judge.verdict(&self.position);
        Ok(self.plies.last().expect("just pushed"))
    }

    /// The judge of the history rules (streaks, repetitions), at the current position.
    pub fn judge(&self) -> &Judge {
        &self.judge
    }

    /// How many times the current position has occurred (same board, side and pools).
    pub fn repetitions(&self) -> usize {
        self.judge.occurrences()
    }

    /// Ends the game: `color` resigns.
    pub fn resign(&mut self, color: Color) -> Result<Outcome, GameError> {
        self.finish(Outcome::Win {
            winner: !color,
            reason: Reason::Resignation,
        })
    }

    /// Ends the game: `color` ran out of time.
    pub fn time_out(&mut self, color: Color) -> Result<Outcome, GameError> {
        self.finish(Outcome::Win {
            winner: !color,
            reason: Reason::Time,
        })
    }

    /// Ends the game as a draw both players agreed to.
    pub fn agree_draw(&mut self) -> Result<Outcome, GameError> {
        self.finish(Outcome::Draw {
            reason: Reason::Agreement,
        })
    }

    /// Ends the game with any outcome (abandonment, forfeit, adjudication).
    pub fn finish(&mut self, outcome: Outcome) -> Result<Outcome, GameError> {
        if let Some(o) = self.outcome {
            return Err(GameError::Over(o));
        }
        self.outcome = Some(outcome);
        Ok(outcome)
    }
}
