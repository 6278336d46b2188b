//! Pieces, face-up and face-down.

use crate::{Color, Role, Square};

/// A piece as it stands on the board: its colour, and either its true role (face-up,
/// 明子) or only the fact that it is face-down (暗子).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    /// A face-up piece of known role.
    Up(Color, Role),
    /// A face-down piece (暗子); it moves as the piece of its start square.
    Down(Color),
}

impl Piece {
    /// The piece's colour.
    pub const fn color(self) -> Color {
        match self {
            Piece::Up(c, _) | Piece::Down(c) => c,
        }
    }

    /// The FEN letter: role letter (upper case Red) or `X`/`x` for face-down.
    pub const fn fen_char(self) -> char {
        let c = match self {
            Piece::Up(_, r) => r.upper_char(),
            Piece::Down(_) => 'X',
        };
        match self.color() {
            Color::Red => c,
            Color::Black => c.to_ascii_lowercase(),
        }
    }

    /// Parses a FEN letter (`X`/`x` for face-down; `E`/`H` accepted).
    pub const fn from_fen_char(c: char) -> Option<Piece> {
        let color = if c.is_ascii_uppercase() {
            Color::Red
        } else {
            Color::Black
        };
        if c == 'X' || c == 'x' {
            return Some(Piece::Down(color));
        }
        match Role::from_char(c) {
            Some(r) => Some(Piece::Up(color, r)),
            None => None,
        }
    }

    /// Chinese name: 帅仕相马车炮兵 for Red, 将士象马车炮卒 for Black, 暗 face-down.
    pub const fn chinese(self) -> char {
        match self {
            Piece::Down(_) => '暗',
            Piece::Up(c, r) => role_chinese(c, r),
        }
    }

    /// The compact cell code used by [`crate::Board`]: bits 0–2 movement role,
    /// bit 3 black, bit 4 face-down; 0 is empty. A face-down piece carries the role of
    /// its start square, so `sq` is needed for it.
    pub(crate) fn code_at(self, sq: Square) -> Option<u8> {
        match self {
            Piece::Up(c, r) => Some(r as u8 | ((c as u8) << 3)),
            Piece::Down(c) => {
                let (color, role) = crate::deal::start_role(sq)?;
                (color == c).then_some(role as u8 | ((c as u8) << 3) | crate::board::HIDDEN)
            }
        }
    }
}

/// The Chinese character of a face-up role for a colour (simplified forms).
pub const fn role_chinese(c: Color, r: Role) -> char {
    match (c, r) {
        (Color::Red, Role::King) => '帅',
        (Color::Black, Role::King) => '将',
        (Color::Red, Role::Advisor) => '仕',
        (Color::Black, Role::Advisor) => '士',
        (Color::Red, Role::Elephant) => '相',
        (Color::Black, Role::Elephant) => '象',
        (_, Role::Horse) => '马',
        (_, Role::Rook) => '车',
        (_, Role::Cannon) => '炮',
        (Color::Red, Role::Pawn) => '兵',
        (Color::Black, Role::Pawn) => '卒',
    }
}

impl std::fmt::Display for Piece {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.fen_char())
    }
}
