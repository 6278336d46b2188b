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
    /// The reason's name, without its piece: `checkmate`, `perpetual_check`, … The web
    /// protocol's `reason` field and the PGN `Termination` tag carry it.
    pub fn name(&self) -> &'static str {
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

    /// The whole reason as machine-friendly text, read back by [`Reason::from_code`]:
    /// the [name](Reason::name), and for a perpetual its piece as `:<role>:<square>`
    /// with the role's English name (`hidden` for a face-down chased piece):
    /// `perpetual_check:rook:h2`, `perpetual_chase:hidden:c6`.
    pub fn code(&self) -> String {
        match self {
            Reason::PerpetualCheck { role, square } => format!("{}:{role}:{square}", self.name()),
            Reason::PerpetualChase { role, square } => {
                let role = role.map_or(HIDDEN, Role::name);
                format!("{}:{role}:{square}", self.name())
            }
            _ => self.name().to_string(),
        }
    }

    /// Reads what [`Reason::code`] writes; `None` for anything else. A perpetual's
    /// piece is required: the bare `perpetual_check` and `perpetual_chase` (the code
    /// before reasons carried their piece) are not read, as the piece cannot be known
    /// from them; whoever stored them must recover it from the game's moves.
    pub fn from_code(code: &str) -> Option<Reason> {
        let mut parts = code.split(':');
        let name = parts.next()?;
        let piece = (parts.next(), parts.next(), parts.next());
        let square = |s: &str| Square::parse(s).filter(|q| q.to_string() == s);
        let role = |s: &str| Role::ALL.into_iter().find(|r| r.name() == s);
        let reason = match (name, piece) {
            ("perpetual_check", (Some(r), Some(q), None)) => Reason::PerpetualCheck {
                role: role(r)?,
                square: square(q)?,
            },
            ("perpetual_chase", (Some(r), Some(q), None)) => Reason::PerpetualChase {
                role: if r == HIDDEN { None } else { Some(role(r)?) },
                square: square(q)?,
            },
            (_, (None, _, _)) => match name {
                "checkmate" => Reason::Checkmate,
                "stalemate" => Reason::Stalemate,
                "no_capture" => Reason::NoCapture,
                "repetition" => Reason::Repetition,
                "bare_kings" => Reason::BareKings,
                "resignation" => Reason::Resignation,
                "time" => Reason::Time,
                "agreement" => Reason::Agreement,
                "abandonment" => Reason::Abandonment,
                "forfeit" => Reason::Forfeit,
                "adjudication" => Reason::Adjudication,
                _ => return None,
            },
            _ => return None,
        };
        Some(reason)
    }
}

/// The role word of a face-down chased piece in [`Reason::code`].
const HIDDEN: &str = "hidden";

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

#[cfg(test)]
mod tests {
    use super::*;

    /// The variants in declaration order, with the index each has in [`every_reason`]'s
    /// coverage. A new variant breaks this match: add it here and to [`every_reason`].
    fn variant(r: &Reason) -> usize {
        match r {
            Reason::Checkmate => 0,
            Reason::Stalemate => 1,
            Reason::PerpetualCheck { .. } => 2,
            Reason::PerpetualChase { .. } => 3,
            Reason::NoCapture => 4,
            Reason::Repetition => 5,
            Reason::BareKings => 6,
            Reason::Resignation => 7,
            Reason::Time => 8,
            Reason::Agreement => 9,
            Reason::Abandonment => 10,
            Reason::Forfeit => 11,
            Reason::Adjudication => 12,
        }
    }

    const VARIANTS: usize = 13;

    /// Every reason: each data-less variant, and each perpetual with every role (and
    /// face-down) on every square.
    fn every_reason() -> Vec<Reason> {
        let mut all = vec![
            Reason::Checkmate,
            Reason::Stalemate,
            Reason::NoCapture,
            Reason::Repetition,
            Reason::BareKings,
            Reason::Resignation,
            Reason::Time,
            Reason::Agreement,
            Reason::Abandonment,
            Reason::Forfeit,
            Reason::Adjudication,
        ];
        for square in Square::all() {
            for role in Role::ALL {
                all.push(Reason::PerpetualCheck { role, square });
                all.push(Reason::PerpetualChase {
                    role: Some(role),
                    square,
                });
            }
            all.push(Reason::PerpetualChase { role: None, square });
        }
        all
    }

    #[test]
    fn every_reason_round_trips_through_its_code() {
        let all = every_reason();
        let mut seen = [false; VARIANTS];
        for r in &all {
            seen[variant(r)] = true;
            assert_eq!(Reason::from_code(&r.code()), Some(*r), "{}", r.code());
            assert!(r.code().starts_with(r.name()));
        }
        assert_eq!(
            seen, [true; VARIANTS],
            "a variant is missing from every_reason"
        );
        let codes: std::collections::HashSet<String> = all.iter().map(Reason::code).collect();
        assert_eq!(codes.len(), all.len(), "two reasons share a code");
    }

    #[test]
    fn perpetual_codes_name_the_piece() {
        let h2 = Square::parse("h2").unwrap();
        let check = Reason::PerpetualCheck {
            role: Role::Rook,
            square: h2,
        };
        assert_eq!(check.code(), "perpetual_check:rook:h2");
        assert_eq!(check.name(), "perpetual_check");
        let chase = Reason::PerpetualChase {
            role: None,
            square: h2,
        };
        assert_eq!(chase.code(), "perpetual_chase:hidden:h2");
        assert_eq!(Reason::Time.code(), "time");
    }

    #[test]
    fn malformed_codes_are_not_read() {
        for code in [
            "",
            "perpetual_check",
            "perpetual_chase",
            "perpetual_check:rook",
            "perpetual_check:hidden:h2",
            "perpetual_check:rook:h2:x",
            "perpetual_check:rook:H2",
            "perpetual_check:rook:j2",
            "perpetual_chase:queen:a0",
            "checkmate:rook:h2",
            "Checkmate",
            "time ",
            "ply_cap",
        ] {
            assert_eq!(Reason::from_code(code), None, "{code:?}");
        }
    }
}
