//! How games end.

use crate::{Color, Role, Square};

/// Why a game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    /// The side to move is in check and has no legal move (将死).
    Checkmate,
    /// The side to move has no legal move and is not in check (困毙): a loss.
    Stalemate,
    /// One piece gave check after each of the loser's last 9 moves (长将).
    PerpetualCheck {
        /// The checking piece's role.
        role: Role,
        /// Where it stands at the end.
        square: Square,
    },
    /// One enemy piece was chased after each of the loser's last 9 moves (长捉).
    PerpetualChase {
        /// The chased piece's role as the board shows it (`None` if face-down).
        role: Option<Role>,
        /// Where it stands at the end.
        square: Square,
    },
    /// 80 plies in a row without a capture.
    NoCapture,
    /// The same position for the third time.
    Repetition,
    /// Neither side has anything but its king.
    BareKings,
    /// A player resigned.
    Resignation,
    /// A player's move time (步时) or game time (局时) ran out.
    Time,
    /// Both players agreed to a draw.
    Agreement,
    /// A player left the game and the opponent claimed it.
    Abandonment,
    /// A player (an engine) sent an illegal move or failed to answer.
    Forfeit,
    /// A referee ended the game (for example at a ply cap).
    Adjudication,
}

impl Reason {
    /// A short machine-friendly name (`checkmate`, `perpetual_check`, …).
    pub fn code(&self) -> &'static str {
        match self {
            Reason::Checkmate => "checkmate",
            Reason::Stalemate => "stalemate",
            Reason::PerpetualCheck { .. } => "perpetual_check",
            Reason::PerpetualChase { .. } => "perpetual_chase",
            Reason::NoCapture => "no_capture",
            Reason::Repetition => "repetition",
            Reason::BareKings => "bare_kings",
            Reason::Resignation => "resignation",
            Reason::Time => "time",
            Reason::Agreement => "agreement",
            Reason::Abandonment => "abandonment",
            Reason::Forfeit => "forfeit",
            Reason::Adjudication => "adjudication",
        }
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reason::Checkmate => f.write_str("checkmate"),
            Reason::Stalemate => f.write_str("stalemate (no legal move)"),
            Reason::PerpetualCheck { role, square } => {
                write!(f, "perpetual check by the {role} on {square}")
            }
            Reason::PerpetualChase {
                role: Some(role),
                square,
            } => {
                write!(f, "perpetual chase of the {role} on {square}")
            }
            Reason::PerpetualChase { role: None, square } => {
                write!(f, "perpetual chase of the face-down piece on {square}")
            }
            Reason::NoCapture => f.write_str("40 moves without a capture"),
            Reason::Repetition => f.write_str("threefold repetition"),
            Reason::BareKings => f.write_str("only kings left"),
            Reason::Resignation => f.write_str("resignation"),
            Reason::Time => f.write_str("time forfeit"),
            Reason::Agreement => f.write_str("draw by agreement"),
            Reason::Abandonment => f.write_str("abandonment"),
            Reason::Forfeit => f.write_str("forfeit (illegal move or no answer)"),
            Reason::Adjudication => f.write_str("adjudication"),
        }
    }
}

/// The result of a finished game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// One side won.
    Win {
        /// The winner.
        winner: Color,
        /// Why.
        reason: Reason,
    },
    /// A draw.
    Draw {
        /// Why.
        reason: Reason,
    },
}

impl Outcome {
    /// The winner, if any.
    pub fn winner(&self) -> Option<Color> {
        match self {
            Outcome::Win { winner, .. } => Some(*winner),
            Outcome::Draw { .. } => None,
        }
    }

    /// Why the game ended.
    pub fn reason(&self) -> Reason {
        match self {
            Outcome::Win { reason, .. } | Outcome::Draw { reason } => *reason,
        }
    }

    /// The PGN result: `1-0` (Red won), `0-1`, `1/2-1/2`.
    pub fn result_str(&self) -> &'static str {
        match self.winner() {
            Some(Color::Red) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Win { winner, reason } => write!(f, "{winner} wins by {reason}"),
            Outcome::Draw { reason } => write!(f, "draw: {reason}"),
        }
    }
}
