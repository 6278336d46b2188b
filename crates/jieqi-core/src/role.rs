//! Kinds of pieces.

use std::ops::{Index, IndexMut};

/// The kind of a piece (兵种).
#[repr(u8)]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// King (帅/将).
    King = 1,
    /// Advisor (仕/士); in Jieqi it roams the whole board once face-up.
    Advisor = 2,
    /// Elephant (相/象); in Jieqi it may cross the river once face-up.
    Elephant = 3,
    /// Horse (马).
    Horse = 4,
    /// Rook (车).
    Rook = 5,
    /// Cannon (炮).
    Cannon = 6,
    /// Pawn (兵/卒).
    Pawn = 7,
}

impl Role {
    /// All roles, king first.
    pub const ALL: [Role; 7] = [
        Role::King,
        Role::Advisor,
        Role::Elephant,
        Role::Horse,
        Role::Rook,
        Role::Cannon,
        Role::Pawn,
    ];

    /// The roles that can be hidden (all but the king).
    pub const HIDDEN: [Role; 6] = [
        Role::Advisor,
        Role::Elephant,
        Role::Horse,
        Role::Rook,
        Role::Cannon,
        Role::Pawn,
    ];

    /// 0-based index in [`Role::ALL`].
    pub const fn index(self) -> usize {
        self as usize - 1
    }

    /// The role from its 1-based code (1 king … 7 pawn).
    pub const fn from_code(code: u8) -> Option<Role> {
        match code {
            1 => Some(Role::King),
            2 => Some(Role::Advisor),
            3 => Some(Role::Elephant),
            4 => Some(Role::Horse),
            5 => Some(Role::Rook),
            6 => Some(Role::Cannon),
            7 => Some(Role::Pawn),
            _ => None,
        }
    }

    /// How many of this role each side has.
    pub const fn count(self) -> u8 {
        match self {
            Role::King => 1,
            Role::Pawn => 5,
            _ => 2,
        }
    }

    /// The upper-case FEN letter.
    pub const fn upper_char(self) -> char {
        match self {
            Role::King => 'K',
            Role::Advisor => 'A',
            Role::Elephant => 'B',
            Role::Horse => 'N',
            Role::Rook => 'R',
            Role::Cannon => 'C',
            Role::Pawn => 'P',
        }
    }

    /// The role of a FEN letter, either case; accepts `E` for elephant and `H` for horse.
    pub const fn from_char(c: char) -> Option<Role> {
        match c.to_ascii_uppercase() {
            'K' => Some(Role::King),
            'A' => Some(Role::Advisor),
            'B' | 'E' => Some(Role::Elephant),
            'N' | 'H' => Some(Role::Horse),
            'R' => Some(Role::Rook),
            'C' => Some(Role::Cannon),
            'P' => Some(Role::Pawn),
            _ => None,
        }
    }

    /// English name, lower case.
    pub const fn name(self) -> &'static str {
        match self {
            Role::King => "king",
            Role::Advisor => "advisor",
            Role::Elephant => "elephant",
            Role::Horse => "horse",
            Role::Rook => "rook",
            Role::Cannon => "cannon",
            Role::Pawn => "pawn",
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One value per role, indexed by [`Role`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByRole<T>(pub [T; 7]);

impl<T> ByRole<T> {
    /// Iterates `(role, value)` pairs, king first.
    pub fn iter(&self) -> impl Iterator<Item = (Role, &T)> {
        Role::ALL.iter().map(move |&r| (r, &self.0[r.index()]))
    }
}

impl<T> Index<Role> for ByRole<T> {
    type Output = T;
    fn index(&self, r: Role) -> &T {
        &self.0[r.index()]
    }
}

impl<T> IndexMut<Role> for ByRole<T> {
    fn index_mut(&mut self, r: Role) -> &mut T {
        &mut self.0[r.index()]
    }
}
