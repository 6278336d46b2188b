//! How a game ended: the winner (or a draw) and the reason, as the referee states it.

use jieqi_core::Color;
use jieqi_core::game::{Outcome as CoreOutcome, Reason as CoreReason};

/// Why a game ended (RULES.md §5, plus the match runner's own ends).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The side to move is in check with no legal move (将死).
    Checkmate,
    /// The side to move has no legal move and is not in check (困毙, a loss).
    Stalemate,
    /// The loser gave check with one piece after each of its last 9 moves (长将).
    PerpetualCheck,
    /// The loser chased one enemy piece after each of its last 9 moves (长捉).
    PerpetualChase,
    /// Both sides agreed to a draw.
    Agreement,
    /// The same position for the third time.
    Repetition,
    /// 80 plies in a row without a capture.
    NoCapture,
    /// Neither side has anything but its king.
    BareKings,
    /// The runner's ply cap was reached.
    PlyCap,
    /// The loser sent a move that is not legal, or not a move at all.
    IllegalMove(String),
    /// The loser's process died or closed its pipes.
    Crash(String),
    /// The loser ran out of time or never answered.
    Time,
    /// The loser resigned.
    Resignation,
    /// The game was stopped before its end (the loser left).
    Abandoned,
}

/// The end of a game: who won (`None`: a draw) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The winner, or `None` for a draw.
    pub winner: Option<Color>,
    /// Why the game ended.
    pub reason: Reason,
}

impl Outcome {
    /// A win for `winner`.
    pub fn win(winner: Color, reason: Reason) -> Outcome {
        Outcome {
            winner: Some(winner),
            reason,
        }
    }

    /// A draw.
    pub fn draw(reason: Reason) -> Outcome {
        Outcome {
            winner: None,
            reason,
        }
    }

    /// The PGN result: `1-0`, `0-1` or `1/2-1/2`.
    pub fn result_str(&self) -> &'static str {
        match self.winner {
            Some(Color::Red) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }

    /// Red's score: 1, 0.5 or 0.
    pub fn red_score(&self) -> f64 {
        match self.winner {
            Some(Color::Red) => 1.0,
            Some(Color::Black) => 0.0,
            None => 0.5,
        }
    }

    /// The Termination tag text.
    pub fn termination(&self) -> String {
        match &self.reason {
            Reason::Checkmate => "checkmate".into(),
            Reason::Stalemate => "stalemate".into(),
            Reason::PerpetualCheck => "perpetual check".into(),
            Reason::PerpetualChase => "perpetual chase".into(),
            Reason::Agreement => "agreement".into(),
            Reason::Repetition => "threefold repetition".into(),
            Reason::NoCapture => "80 plies without capture".into(),
            Reason::BareKings => "bare kings".into(),
            Reason::PlyCap => "ply cap".into(),
            Reason::IllegalMove(m) => format!("illegal move {m}"),
            Reason::Crash(why) => format!("engine crashed: {why}"),
            Reason::Time => "time forfeit".into(),
            Reason::Resignation => "resignation".into(),
            Reason::Abandoned => "abandonment".into(),
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.winner {
            Some(c) => write!(
                f,
                "{} {} wins by {}",
                self.result_str(),
                color_title(c),
                self.termination()
            ),
            None => write!(f, "{} draw by {}", self.result_str(), self.termination()),
        }
    }
}

/// `Red` or `Black`.
pub fn color_title(c: Color) -> &'static str {
    match c {
        Color::Red => "Red",
        Color::Black => "Black",
    }
}

impl From<CoreOutcome> for Outcome {
    fn from(o: CoreOutcome) -> Outcome {
        let reason = match o.reason() {
            CoreReason::Checkmate => Reason::Checkmate,
            CoreReason::Stalemate => Reason::Stalemate,
            CoreReason::PerpetualCheck { .. } => Reason::PerpetualCheck,
            CoreReason::PerpetualChase { .. } => Reason::PerpetualChase,
            CoreReason::NoCapture => Reason::NoCapture,
            CoreReason::Repetition => Reason::Repetition,
            CoreReason::BareKings => Reason::BareKings,
            CoreReason::Resignation => Reason::Resignation,
            CoreReason::Time => Reason::Time,
            CoreReason::Agreement => Reason::Agreement,
            CoreReason::Abandonment => Reason::Abandoned,
            CoreReason::Forfeit => Reason::IllegalMove(String::new()),
            CoreReason::Adjudication => Reason::PlyCap,
        };
        Outcome {
            winner: o.winner(),
            reason,
        }
    }
}

impl Outcome {
    /// The same end in `jieqi_core`'s terms (details such as the illegal move dropped).
    pub fn to_core(&self) -> CoreOutcome {
        let reason = match &self.reason {
            Reason::Checkmate => CoreReason::Checkmate,
            Reason::Stalemate => CoreReason::Stalemate,
            // The square and role are known only to the game that found the perpetual.
            Reason::PerpetualCheck | Reason::PerpetualChase => CoreReason::Adjudication,
            Reason::NoCapture => CoreReason::NoCapture,
            Reason::Repetition => CoreReason::Repetition,
            Reason::BareKings => CoreReason::BareKings,
            Reason::Agreement => CoreReason::Agreement,
            Reason::PlyCap => CoreReason::Adjudication,
            Reason::IllegalMove(_) | Reason::Crash(_) => CoreReason::Forfeit,
            Reason::Time => CoreReason::Time,
            Reason::Resignation => CoreReason::Resignation,
            Reason::Abandoned => CoreReason::Abandonment,
        };
        match self.winner {
            Some(winner) => CoreOutcome::Win { winner, reason },
            None => CoreOutcome::Draw { reason },
        }
    }
}
