//! WXF notation: `C2.5`, `H8+7`, tandem pieces `R+.3` / `C--1`, tandem pawns `++.4`,
//! `P+.4`, `P3.4`, `3+.4`; the Jieqi additions `=N` (the identity a face-down mover
//! reveals) and `xR` (the identity of a captured face-down piece).
//!
//! Read as well: the prefix form `+R.3` / `-C-1`, `B`/`N` for elephant/horse, `=` for
//! sideways, lower case. Where the WXF standard has no form (several files each with
//! two or more non-pawn pieces of a kind, or more than five on a file, possible in
//! Jieqi because face-down pieces count as their start square's kind), the place is
//! written between letter and file: `R-9.8` (the rear rook of file 9), `P49+1` (the
//! 4th pawn from the front on file 9).

use super::descriptive::{Descriptive, Direction, Locator, Pick, ResolveError};
use crate::{Move, Position, Reveals, Role};

/// A move in WXF notation as written, before it is matched to a position.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct WxfMove {
    /// The kind the mover moves as.
    pub role: Role,
    /// Which piece of that kind.
    pub locator: Locator,
    /// `+`, `-` or `.`.
    pub direction: Direction,
    /// Destination file or number of steps, 1–9.
    pub target: u8,
    /// `=X`: the identity a face-down mover reveals.
    pub reveal: Option<Role>,
    /// `xX`: the identity of a captured face-down piece.
    pub captured: Option<Role>,
}

/// Why a text is not WXF notation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a WXF move: {why}")]
pub struct ParseWxfError {
    /// The text.
    pub text: String,
    /// What is wrong.
    pub why: String,
}

/// WXF letters: K A E H R C P.
const fn wxf_letter(role: Role) -> char {
    match role {
        Role::King => 'K',
        Role::Advisor => 'A',
        Role::Elephant => 'E',
        Role::Horse => 'H',
        Role::Rook => 'R',
        Role::Cannon => 'C',
        Role::Pawn => 'P',
    }
}

fn letter_role(c: char) -> Option<Role> {
    Role::from_char(c)
}

fn digit(c: char) -> Option<u8> {
    c.to_digit(10)
        .filter(|d| (1..=9).contains(d))
        .map(|d| d as u8)
}

impl WxfMove {
    /// Reads a WXF move.
    pub fn parse(text: &str) -> Result<WxfMove, ParseWxfError> {
        let err = |why: String| ParseWxfError {
            text: text.to_string(),
            why,
        };
        let mut c: Vec<char> = text.trim().chars().collect();
        // Check and quality marks after a suffix-free move body ("C2.5+", "H2+3!?").
        while c.len() > 4 && matches!(c.last(), Some('!' | '?' | '#')) {
            c.pop();
        }
        let mut reveal = None;
        let mut captured = None;
        // Suffixes from the end: "=N" and "xR" (each at most once).
        for _ in 0..2 {
            let n = c.len();
            if n < 6 {
                break;
            }
            let (mark, letter) = (c[n - 2], c[n - 1]);
            if !letter.is_ascii_alphabetic() {
                break;
            }
            let role = letter_role(letter)
                .filter(|r| *r != Role::King)
                .ok_or_else(|| err(format!("{letter:?} is not a hideable piece letter")))?;
            match mark {
                '=' if reveal.is_none() => reveal = Some(role),
                'x' | 'X' if captured.is_none() => captured = Some(role),
                _ => break,
            }
            c.truncate(n - 2);
        }
        if c.len() < 4 || c.len() > 5 {
            return Err(err(
                "expected a piece, its file or place, +, - or ., and a number (like C2.5)".into(),
            ));
        }
        let n = c.len();
        let direction = match c[n - 2] {
            '+' => Direction::Forward,
            '-' => Direction::Backward,
            '.' | '=' => Direction::Sideways,
            x => {
                return Err(err(format!(
                    "expected +, - or . before the target, found {x:?}"
                )));
            }
        };
        let target = digit(c[n - 1])
            .ok_or_else(|| err(format!("the target {:?} is not a digit 1–9", c[n - 1])))?;
        let head = &c[..n - 2];
        let sign = |x: char| match x {
            '+' => Some(Pick::Front),
            '-' => Some(Pick::Back),
            _ => None,
        };
        let (role, locator) = match *head {
            [a, b] if letter_role(a).is_some() => {
                let role = letter_role(a).unwrap_or(Role::Pawn);
                if let Some(f) = digit(b) {
                    (role, Locator::FileOrMiddle(f))
                } else {
                    let pick = match b {
                        '+' => Pick::WxfPlus,
                        '-' => Pick::WxfMinus,
                        _ => return Err(err(format!("{b:?} is neither a file nor + or -"))),
                    };
                    (role, Locator::Pick { pick, file: None })
                }
            }
            [a, b] if sign(a).is_some() && letter_role(b).is_some() => (
                letter_role(b).unwrap_or(Role::Pawn),
                Locator::Pick {
                    pick: sign(a).unwrap_or(Pick::Front),
                    file: None,
                },
            ),
            ['+', '+'] => (
                Role::Pawn,
                Locator::Pick {
                    pick: Pick::Front,
                    file: None,
                },
            ),
            ['-', '-'] => (
                Role::Pawn,
                Locator::Pick {
                    pick: Pick::Back,
                    file: None,
                },
            ),
            [a, b] if digit(a).is_some() => {
                let f = digit(a).unwrap_or(1);
                let pick = match b {
                    '+' => Pick::Front,
                    '-' => Pick::Back,
                    _ if digit(b) == Some(f) => Pick::Middle,
                    _ => {
                        return Err(err(format!(
                            "a pawn on file {f} is followed by +, - or its file again, not {b:?}"
                        )));
                    }
                };
                (
                    Role::Pawn,
                    Locator::Pick {
                        pick,
                        file: Some(f),
                    },
                )
            }
            [a, m, f] if letter_role(a).is_some() && digit(f).is_some() => {
                let pick = match m {
                    '+' => Pick::Front,
                    '-' => Pick::Back,
                    _ => Pick::Nth(
                        digit(m)
                            .ok_or_else(|| err(format!("{m:?} is not a place (+, - or 1–9)")))?,
                    ),
                };
                (
                    letter_role(a).unwrap_or(Role::Pawn),
                    Locator::Pick {
                        pick,
                        file: digit(f),
                    },
                )
            }
            _ => {
                return Err(err(format!(
                    "{:?} does not name a piece (like C2, R+, +R, ++, 3+ or R-9)",
                    head.iter().collect::<String>()
                )));
            }
        };
        Ok(WxfMove {
            role,
            locator,
            direction,
            target,
            reveal,
            captured,
        })
    }

    /// Matches the move to `pos` (see [`super::ChineseMove::resolve`]).
    pub fn resolve(&self, pos: &Position) -> Result<(Move, Reveals), ResolveError> {
        Descriptive {
            role: self.role,
            locator: self.locator,
            direction: self.direction,
            target: self.target,
            reveal: self.reveal,
            captured: self.captured,
            face_down: false,
        }
        .resolve(pos)
    }

    /// The WXF description of a legal move `m` of `pos`, with `=X` and `xX` suffixes
    /// for the reveals given.
    pub fn from_move(pos: &Position, m: Move, rv: Reveals) -> WxfMove {
        let (d, pl) = Descriptive::from_move(pos, m, rv);
        let (n, k) = (pl.count, pl.index);
        let pawn = pl.role == Role::Pawn;
        let edge = |k: usize| {
            if k == 0 {
                Pick::Front
            } else if k + 1 == n {
                Pick::Back
            } else {
                Pick::Nth(k as u8 + 1)
            }
        };
        let locator = if n <= 1 {
            Locator::FileOrMiddle(pl.file)
        } else if pl.tandem_files <= 1 && (n <= 3 || (pawn && n <= 5)) {
            match (n, k) {
                (3, 1) | (5, 2) => Locator::FileOrMiddle(pl.file),
                (4 | 5, 0) => Locator::Pick {
                    pick: Pick::Front,
                    file: None,
                },
                (4 | 5, k) if k + 1 == n => Locator::Pick {
                    pick: Pick::Back,
                    file: None,
                },
                (_, 0) | (4 | 5, 1) => Locator::Pick {
                    pick: Pick::WxfPlus,
                    file: None,
                },
                _ => Locator::Pick {
                    pick: Pick::WxfMinus,
                    file: None,
                },
            }
        } else {
            Locator::Pick {
                pick: if pawn && n == 3 && k == 1 {
                    Pick::Middle
                } else {
                    edge(k)
                },
                file: Some(pl.file),
            }
        };
        WxfMove {
            role: pl.role,
            locator,
            direction: d.direction,
            target: d.target,
            reveal: d.reveal,
            captured: d.captured,
        }
    }
}

impl std::fmt::Display for WxfMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let l = wxf_letter(self.role);
        let pawn = self.role == Role::Pawn;
        match self.locator {
            Locator::File(n) | Locator::FileOrMiddle(n) => write!(f, "{l}{n}")?,
            Locator::Pick { pick, file: None } => match pick {
                Pick::Front if pawn => f.write_str("++")?,
                Pick::Back if pawn => f.write_str("--")?,
                Pick::Front | Pick::WxfPlus => write!(f, "{l}+")?,
                Pick::Back | Pick::WxfMinus => write!(f, "{l}-")?,
                Pick::Middle => write!(f, "{l}")?,
                Pick::Nth(k) => write!(f, "{l}{k}")?,
            },
            Locator::Pick {
                pick,
                file: Some(n),
            } => {
                let m = match pick {
                    Pick::Front | Pick::WxfPlus => '+',
                    Pick::Back | Pick::WxfMinus => '-',
                    Pick::Middle => (b'0' + n) as char,
                    Pick::Nth(k) => (b'0' + k) as char,
                };
                // The standard pawn form "3+" / "33" / "3-" covers up to three on a file.
                if pawn && !matches!(pick, Pick::Nth(_)) {
                    write!(f, "{n}{m}")?;
                } else {
                    write!(f, "{l}{m}{n}")?;
                }
            }
        }
        let op = match self.direction {
            Direction::Forward => '+',
            Direction::Backward => '-',
            Direction::Sideways => '.',
        };
        write!(f, "{op}{}", self.target)?;
        if let Some(r) = self.reveal {
            write!(f, "={}", wxf_letter(r))?;
        }
        if let Some(r) = self.captured {
            write!(f, "x{}", wxf_letter(r))?;
        }
        Ok(())
    }
}

impl std::str::FromStr for WxfMove {
    type Err = ParseWxfError;
    fn from_str(s: &str) -> Result<WxfMove, ParseWxfError> {
        WxfMove::parse(s)
    }
}
