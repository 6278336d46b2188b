//! Coordinate moves with Jieqi suffix letters (RULES.md §6): `h2e2`, `c3c4B` (a
//! face-down mover revealed as an elephant), `h2h9n` (a face-down black horse
//! captured), `b2b9Cr` (revealed as a cannon, capturing a face-down rook).

use crate::{Move, Piece, PlayError, Position, Reveals, Role, Square};

/// A coordinate move as written, before it is checked against a position.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct UciMove {
    /// Origin.
    pub from: Square,
    /// Destination.
    pub to: Square,
    /// Up to two suffix letters, in order; their meaning depends on the position.
    pub suffix: [Option<Piece>; 2],
}

/// Why a coordinate move could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseUciError {
    /// Wrong length.
    #[error("{0:?}: a move is 4 to 6 characters, like h2e2, c3c4B or b2b9Cr")]
    Length(String),
    /// A square name that is not on the board.
    #[error("{0:?}: {1:?} is not a square (files a-i, ranks 0-9)")]
    Square(String, String),
    /// A suffix that is not a piece letter.
    #[error("{0:?}: suffix {1:?} is not a piece letter (A B N R C P, upper case Red)")]
    Suffix(String, char),
}

/// Why a coordinate move does not fit a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UciMoveError {
    /// The move cannot be played.
    #[error(transparent)]
    Play(#[from] PlayError),
    /// A suffix letter that means nothing for this move.
    #[error("{mv}: suffix {letter:?} does not fit: {why}")]
    Suffix {
        /// The move as written.
        mv: String,
        /// The letter.
        letter: char,
        /// Why it does not fit.
        why: &'static str,
    },
}

impl UciMove {
    /// Reads `h2e2`, `c3c4B`, `b2b9Cr`.
    pub fn parse(s: &str) -> Result<UciMove, ParseUciError> {
        let chars: Vec<char> = s.chars().collect();
        if !(4..=6).contains(&chars.len()) || !s.is_ascii() {
            return Err(ParseUciError::Length(s.to_string()));
        }
        let from = Square::parse(&s[0..2])
            .ok_or_else(|| ParseUciError::Square(s.to_string(), s[0..2].to_string()))?;
        let to = Square::parse(&s[2..4])
            .ok_or_else(|| ParseUciError::Square(s.to_string(), s[2..4].to_string()))?;
        let mut suffix = [None; 2];
        for (i, &c) in chars[4..].iter().enumerate() {
            let p = Piece::from_fen_char(c)
                .filter(|p| matches!(p, Piece::Up(_, r) if *r != Role::King))
                .ok_or(ParseUciError::Suffix(s.to_string(), c))?;
            suffix[i] = Some(p);
        }
        Ok(UciMove { from, to, suffix })
    }

    /// The plain move, without suffixes.
    pub fn to_plain(self) -> Move {
        Move::new(self.from, self.to)
    }

    /// Interprets the suffixes in `pos` and checks the move: the 5th letter is the
    /// identity revealed by a face-down mover, otherwise the identity of a captured
    /// face-down piece; a 6th letter is the captured identity after a reveal.
    /// Letter case is not trusted for colour; the position decides whose piece it is.
    pub fn resolve(&self, pos: &Position) -> Result<(Move, Reveals), UciMoveError> {
        let m = self.to_plain();
        let role_of = |p: Option<Piece>| match p {
            Some(Piece::Up(_, r)) => Some(r),
            _ => None,
        };
        let mover_hidden = pos.board().is_hidden(self.from);
        let target_hidden = pos.board().is_hidden(self.to);
        let bad = |letter: Option<Piece>, why| UciMoveError::Suffix {
            mv: self.to_string(),
            letter: letter.map_or('?', Piece::fen_char),
            why,
        };
        let rv = if mover_hidden {
            if self.suffix[1].is_some() && !target_hidden {
                return Err(bad(self.suffix[1], "the captured piece is not face-down"));
            }
            Reveals {
                mover: role_of(self.suffix[0]),
                captured: role_of(self.suffix[1]),
            }
        } else {
            if self.suffix[1].is_some() {
                return Err(bad(
                    self.suffix[1],
                    "a face-up mover takes at most one suffix",
                ));
            }
            if self.suffix[0].is_some() && !target_hidden {
                return Err(bad(
                    self.suffix[0],
                    "the mover is face-up and captures no face-down piece",
                ));
            }
            Reveals {
                mover: None,
                captured: role_of(self.suffix[0]),
            }
        };
        pos.check_move(m, rv)?;
        Ok((m, rv))
    }

    /// Writes a move with the suffixes a receiver may see: the mover's revealed
    /// identity, then the captured face-down identity if given.
    pub fn from_move(pos: &Position, m: Move, rv: Reveals) -> UciMove {
        let us = pos.turn();
        let mut suffix = [None; 2];
        let mut i = 0;
        if pos.board().is_hidden(m.from)
            && let Some(r) = rv.mover
        {
            suffix[0] = Some(Piece::Up(us, r));
            i = 1;
        }
        if pos.board().is_hidden(m.to)
            && let Some(r) = rv.captured
        {
            suffix[i] = Some(Piece::Up(!us, r));
        }
        UciMove {
            from: m.from,
            to: m.to,
            suffix,
        }
    }
}

impl From<Move> for UciMove {
    fn from(m: Move) -> UciMove {
        UciMove {
            from: m.from,
            to: m.to,
            suffix: [None; 2],
        }
    }
}

impl std::str::FromStr for UciMove {
    type Err = ParseUciError;
    fn from_str(s: &str) -> Result<UciMove, ParseUciError> {
        UciMove::parse(s)
    }
}

impl std::fmt::Display for UciMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.from, self.to)?;
        for p in self.suffix.iter().flatten() {
            write!(f, "{}", p.fen_char())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Color, Deal, Game, RuleSet};

    #[test]
    fn parse_and_display() {
        for s in ["h2e2", "c3c4B", "h2h9n", "b2b9Cr"] {
            assert_eq!(UciMove::parse(s).unwrap().to_string(), s);
        }
        assert!(matches!(
            UciMove::parse("h2e"),
            Err(ParseUciError::Length(_))
        ));
        assert!(matches!(
            UciMove::parse("h2e2Bnn"),
            Err(ParseUciError::Length(_))
        ));
        assert!(matches!(
            UciMove::parse("j2e2"),
            Err(ParseUciError::Square(..))
        ));
        assert!(matches!(
            UciMove::parse("h2eA"),
            Err(ParseUciError::Square(..))
        ));
        assert!(matches!(
            UciMove::parse("h2e2K"),
            Err(ParseUciError::Suffix(..))
        ));
        assert!(matches!(
            UciMove::parse("h2e2x"),
            Err(ParseUciError::Suffix(..))
        ));
        assert!(UciMove::parse("h2e2é").is_err());
    }

    #[test]
    fn resolve_reads_suffixes_by_position() {
        let pos = Position::start();
        let (m, rv) = UciMove::parse("c3c4B").unwrap().resolve(&pos).unwrap();
        assert_eq!(m.to_string(), "c3c4");
        assert_eq!(
            rv,
            Reveals {
                mover: Some(Role::Elephant),
                captured: None
            }
        );
        // A face-down mover needs its identity.
        assert!(matches!(
            UciMove::parse("c3c4").unwrap().resolve(&pos),
            Err(UciMoveError::Play(PlayError::MissingReveal { .. }))
        ));
        // A face-down cannon jumping to capture a face-down piece: reveal + capture.
        let (_, rv) = UciMove::parse("b2b9Cn").unwrap().resolve(&pos).unwrap();
        assert_eq!(
            rv,
            Reveals {
                mover: Some(Role::Cannon),
                captured: Some(Role::Horse)
            }
        );
        // Not a legal move.
        assert!(matches!(
            UciMove::parse("c3c5P").unwrap().resolve(&pos),
            Err(UciMoveError::Play(PlayError::Illegal { .. }))
        ));
        // A suffix on a quiet move of a face-up piece means nothing.
        let mut g = Game::new(Deal::standard(), RuleSet::STANDARD);
        g.play_uci("h2e2").unwrap();
        g.play_uci("h7e7").unwrap();
        let pos = g.position().clone();
        assert!(matches!(
            UciMove::parse("e2e1n").unwrap().resolve(&pos),
            Err(UciMoveError::Suffix { .. })
        ));
        assert!(UciMove::parse("e2e1").unwrap().resolve(&pos).is_ok());
        // A face-up cannon taking a face-down piece: one suffix, the captured identity.
        let (_, rv) = UciMove::parse("e2e6p").unwrap().resolve(&pos).unwrap();
        assert_eq!(
            rv,
            Reveals {
                mover: None,
                captured: Some(Role::Pawn)
            }
        );
        let u = UciMove::from_move(&pos, rv_move("e2e6"), rv);
        assert_eq!(u.to_string(), "e2e6p");
        assert_eq!(Piece::Up(Color::Black, Role::Pawn).fen_char(), 'p');
    }

    fn rv_move(s: &str) -> Move {
        UciMove::parse(s).unwrap().to_plain()
    }
}
