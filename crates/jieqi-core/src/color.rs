//! Sides.

use std::ops::{Index, IndexMut, Not};

/// A side: Red (红, moves first) or Black (黑).
#[repr(u8)]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// Red, at the bottom, ranks 0–4; moves first.
    Red = 0,
    /// Black, at the top, ranks 5–9.
    Black = 1,
}

impl Color {
    /// Both colours, Red first.
    pub const ALL: [Color; 2] = [Color::Red, Color::Black];

    /// The colour from its index (0 Red, 1 Black).
    pub const fn from_index(i: usize) -> Color {
        if i == 0 { Color::Red } else { Color::Black }
    }

    /// 0 for Red, 1 for Black.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The FEN side letter: `w` for Red, `b` for Black.
    pub const fn fen_char(self) -> char {
        match self {
            Color::Red => 'w',
            Color::Black => 'b',
        }
    }

    /// English name, lower case.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Red => "red",
            Color::Black => "black",
        }
    }

    /// Parses `red`/`black` (also `r`, `b`, `w`, `white`), case-insensitive.
    pub fn parse_name(s: &str) -> Option<Color> {
        match s.to_ascii_lowercase().as_str() {
            "red" | "r" | "w" | "white" => Some(Color::Red),
            "black" | "b" => Some(Color::Black),
            _ => None,
        }
    }
}

impl Not for Color {
    type Output = Color;
    fn not(self) -> Color {
        match self {
            Color::Red => Color::Black,
            Color::Black => Color::Red,
        }
    }
}

impl std::fmt::Display for Color {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One value per colour, indexed by [`Color`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByColor<T> {
    /// Red's value.
    pub red: T,
    /// Black's value.
    pub black: T,
}

impl<T> ByColor<T> {
    /// Builds both values from a function of the colour.
    pub fn new_with(mut f: impl FnMut(Color) -> T) -> ByColor<T> {
        ByColor {
            red: f(Color::Red),
            black: f(Color::Black),
        }
    }

    /// The value of `color`.
    pub const fn get(&self, color: Color) -> &T {
        match color {
            Color::Red => &self.red,
            Color::Black => &self.black,
        }
    }

    /// The value of `color`, mutable.
    pub const fn get_mut(&mut self, color: Color) -> &mut T {
        match color {
            Color::Red => &mut self.red,
            Color::Black => &mut self.black,
        }
    }
}

impl<T> Index<Color> for ByColor<T> {
    type Output = T;
    fn index(&self, c: Color) -> &T {
        self.get(c)
    }
}

impl<T> IndexMut<Color> for ByColor<T> {
    fn index_mut(&mut self, c: Color) -> &mut T {
        self.get_mut(c)
    }
}
