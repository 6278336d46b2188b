//! Games: the referee's record of one game — position, deal, history — and the
//! adjudication of every rule of RULES.md §5.

mod chase;
mod outcome;
mod rules;

pub use outcome::{Outcome, Reason};
pub use rules::RuleSet;

use crate::{
    Color, Deal, Material, Move, PlayError, Position, Reveals, Role, Square, UciMove, UciMoveError,
    View, Viewer,
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
    /// Ids of the non-exempt pieces giving check after the move (for 长将).
    check_ids: Vec<u8>,
    /// Ids of enemy pieces chased after the move (for 长捉).
    chase_ids: Vec<u8>,
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
    ids: [u8; 90],
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
        let mut ids = [0u8; 90];
        for (id, (sq, _)) in (1..).zip(start.board().pieces()) {
            ids[sq.index()] = id;
        }
        Ok(Game {
            position: start.clone(),
            start,
            deal,
            rules,
            plies: Vec::new(),
            ids,
            outcome: None,
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
        self.position.play(m, rv)?;
        let id = self.ids[m.from.index()];
        self.ids[m.from.index()] = 0;
        self.ids[m.to.index()] = id;
        let check = self.position.is_check();
        let check_ids = if check {
            self.checking_ids(color)
        } else {
            Vec::new()
        };
        let chase_ids = if self.rules.chase_rule {
            self.chased_ids(color)
        } else {
            Vec::new()
        };
        self.plies.push(Ply {
            mv: m,
            color,
            reveals: rv,
            captured,
            check,
            hash: self.position.hash(),
            check_ids,
            chase_ids,
        });
        self.outcome = self.adjudicate();
        Ok(self.plies.last().expect("just pushed"))
    }

    /// Ids of `by`'s pieces giving check, except pawns, elephants and advisors.
    fn checking_ids(&self, by: Color) -> Vec<u8> {
        let b = self.position.board();
        b.checkers(!by)
            .into_iter()
            .filter(|&sq| {
                !matches!(
                    b.movement_role(sq),
                    Some(Role::Pawn | Role::Elephant | Role::Advisor)
                )
            })
            .map(|sq| self.ids[sq.index()])
            .collect()
    }

    fn chased_ids(&self, by: Color) -> Vec<u8> {
        self.position
            .board()
            .chased(by)
            .into_iter()
            .map(|sq| self.ids[sq.index()])
            .collect()
    }

    fn square_of(&self, id: u8) -> Option<Square> {
        self.ids
            .iter()
            .position(|&x| x == id)
            .and_then(|i| Square::new(i as u8))
    }

    /// The id common to `color`'s last `n` moves under `pick`, if every one has it.
    fn perpetual_id(&self, color: Color, n: usize, pick: impl Fn(&Ply) -> &[u8]) -> Option<u8> {
        let own: Vec<&Ply> = self
            .plies
            .iter()
            .rev()
            .filter(|p| p.color == color)
            .take(n)
            .collect();
        if own.len() < n {
            return None;
        }
        // Consecutive own moves: no gap is possible, both sides alternate.
        pick(own[0])
            .iter()
            .copied()
            .find(|id| own.iter().all(|p| pick(p).contains(id)))
    }

    /// Length of `color`'s current streak of moves sharing one id under `pick`.
    fn streak(&self, color: Color, pick: impl Fn(&Ply) -> &[u8]) -> usize {
        let own: Vec<&Ply> = self
            .plies
            .iter()
            .rev()
            .filter(|p| p.color == color)
            .collect();
        let Some(first) = own.first() else { return 0 };
        pick(first)
            .iter()
            .map(|id| own.iter().take_while(|p| pick(p).contains(id)).count())
            .max()
            .unwrap_or(0)
    }

    fn adjudicate(&self) -> Option<Outcome> {
        let mover = !self.position.turn();
        if self.position.count_legal() == 0 {
            let reason = if self.position.is_check() {
                Reason::Checkmate
            } else {
                Reason::Stalemate
            };
            return Some(Outcome::Win {
                winner: mover,
                reason,
            });
        }
        let n = self.rules.perpetual_moves;
        if let Some(id) = self.perpetual_id(mover, n, |p| &p.check_ids) {
            let square = self
                .square_of(id)
                .expect("a checking piece is on the board");
            let role = self.position.movement_role(square).expect("occupied");
            return Some(Outcome::Win {
                winner: !mover,
                reason: Reason::PerpetualCheck { role, square },
            });
        }
        if self.rules.chase_rule
            && let Some(id) = self.perpetual_id(mover, n, |p| &p.chase_ids)
        {
            let square = self.square_of(id).expect("a chased piece is on the board");
            let role = match self.position.piece_at(square) {
                Some(crate::Piece::Up(_, r)) => Some(r),
                _ => None,
            };
            return Some(Outcome::Win {
                winner: !mover,
                reason: Reason::PerpetualChase { role, square },
            });
        }
        if self.position.bare_kings() {
            return Some(Outcome::Draw {
                reason: Reason::BareKings,
            });
        }
        if self.position.halfmove() >= self.rules.no_capture_plies {
            return Some(Outcome::Draw {
                reason: Reason::NoCapture,
            });
        }
        if self.repetitions() >= 3 && !self.perpetual_in_progress() {
            return Some(Outcome::Draw {
                reason: Reason::Repetition,
            });
        }
        None
    }

    /// How many times the current position has occurred (same board, side and pools).
    pub fn repetitions(&self) -> usize {
        let h = self.position.hash();
        self.plies.iter().filter(|p| p.hash == h).count() + usize::from(self.start.hash() == h)
    }

    /// Whether a side has checked (or chased) with one piece on every move it made since
    /// the current position first occurred: a repetition is then not a draw, and the
    /// perpetual rule decides (不变作和 covers only the allowed perpetuals).
    fn perpetual_in_progress(&self) -> bool {
        let h = self.position.hash();
        let first = if self.start.hash() == h {
            0
        } else {
            self.plies
                .iter()
                .position(|p| p.hash == h)
                .map_or(self.plies.len(), |i| i + 1)
        };
        let cycle = &self.plies[first..];
        Color::ALL.into_iter().any(|c| {
            let moves = cycle.iter().filter(|p| p.color == c).count();
            moves > 0
                && (self.streak(c, |p| &p.check_ids) >= moves
                    || (self.rules.chase_rule && self.streak(c, |p| &p.chase_ids) >= moves))
        })
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
