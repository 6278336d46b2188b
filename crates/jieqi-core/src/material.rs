//! Counts of identities per side and role: pools (暗子池) and captured lists.

use crate::{ByColor, ByRole, Color, Role};

/// How many pieces of each colour and role; the FEN pool and captured fields.
///
/// Text form: letter + count pairs, upper case Red, in any order, zero counts allowed,
/// `-` when empty (`A2B2N2R2C2P5a2b2n2r2c2p5`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Material(pub ByColor<ByRole<u8>>);

/// Why a pool or captured field could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseMaterialError {
    /// A character that is not a piece letter where one was expected.
    #[error("unexpected character {0:?} (expected a piece letter such as A, b, N, p)")]
    Letter(char),
    /// A letter without a count after it.
    #[error("piece letter {0:?} has no count after it")]
    MissingCount(char),
    /// A count above the number of such pieces in a set.
    #[error("count {count} for {letter:?} is more than the {max} such pieces a side has")]
    TooMany {
        /// The piece letter.
        letter: char,
        /// The count given (summed when a letter repeats).
        count: u32,
        /// The most possible.
        max: u8,
    },
}

impl Material {
    /// No pieces.
    pub const EMPTY: Material = Material(ByColor {
        red: ByRole([0; 7]),
        black: ByRole([0; 7]),
    });

    /// Every non-king piece of both sides: the pool at the start of a game.
    pub fn full_hidden() -> Material {
        let mut m = Material::EMPTY;
        for c in Color::ALL {
            for r in Role::HIDDEN {
                m.0[c][r] = r.count();
            }
        }
        m
    }

    /// The count for `color` and `role`.
    pub fn get(&self, color: Color, role: Role) -> u8 {
        self.0[color][role]
    }

    /// Mutable count for `color` and `role`.
    pub fn get_mut(&mut self, color: Color, role: Role) -> &mut u8 {
        &mut self.0[color][role]
    }

    /// Total pieces of `color`.
    pub fn total(&self, color: Color) -> u32 {
        self.0[color].0.iter().map(|&n| u32::from(n)).sum()
    }

    /// Whether no piece is counted.
    pub fn is_empty(&self) -> bool {
        self.total(Color::Red) == 0 && self.total(Color::Black) == 0
    }

    /// Parses the text form.
    pub fn parse(s: &str) -> Result<Material, ParseMaterialError> {
        let mut m = Material::EMPTY;
        if s == "-" {
            return Ok(m);
        }
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            let role = Role::from_char(c).ok_or(ParseMaterialError::Letter(c))?;
            let color = if c.is_ascii_uppercase() {
                Color::Red
            } else {
                Color::Black
            };
            let mut count: Option<u32> = None;
            while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                chars.next();
                count = Some(count.unwrap_or(0).saturating_mul(10).saturating_add(d));
            }
            let count = count.ok_or(ParseMaterialError::MissingCount(c))?;
            let total = u32::from(m.0[color][role]) + count;
            if total > u32::from(role.count()) {
                return Err(ParseMaterialError::TooMany {
                    letter: c,
                    count: total,
                    max: role.count(),
                });
            }
            m.0[color][role] = total as u8;
        }
        Ok(m)
    }
}

impl std::fmt::Display for Material {
    /// Writes every non-zero count, Red then Black, in the order K A B N R C P; `-` if none.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_empty() {
            return f.write_str("-");
        }
        for c in Color::ALL {
            for r in Role::ALL {
                let n = self.0[c][r];
                if n > 0 {
                    let l = r.upper_char();
                    let l = if c == Color::Black {
                        l.to_ascii_lowercase()
                    } else {
                        l
                    };
                    write!(f, "{l}{n}")?;
                }
            }
        }
        Ok(())
    }
}
