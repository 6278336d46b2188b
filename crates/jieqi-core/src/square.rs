//! Files, ranks and the 90 points of the board.

/// A file, `a`–`i` from Red's left.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct File(u8);

/// A rank, `0`–`9` from Red's back rank.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rank(u8);

impl File {
    /// The file with index `i` (0 = `a`), if `i < 9`.
    pub const fn new(i: u8) -> Option<File> {
        if i < 9 { Some(File(i)) } else { None }
    }
    /// 0 for `a` … 8 for `i`.
    pub const fn index(self) -> u8 {
        self.0
    }
    /// The letter `a`–`i`.
    pub const fn char(self) -> char {
        (b'a' + self.0) as char
    }
}

impl Rank {
    /// The rank with index `i`, if `i < 10`.
    pub const fn new(i: u8) -> Option<Rank> {
        if i < 10 { Some(Rank(i)) } else { None }
    }
    /// 0 … 9.
    pub const fn index(self) -> u8 {
        self.0
    }
    /// The digit `0`–`9`.
    pub const fn char(self) -> char {
        (b'0' + self.0) as char
    }
}

/// One of the 90 points, numbered `rank * 9 + file` (`a0` = 0, `i9` = 89).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Number of squares.
    pub const COUNT: usize = 90;
    /// Red king's start, `e0`.
    pub const E0: Square = Square(4);
    /// Black king's start, `e9`.
    pub const E9: Square = Square(85);

    /// The square with index `i`, if `i < 90`.
    pub const fn new(i: u8) -> Option<Square> {
        if i < 90 { Some(Square(i)) } else { None }
    }

    /// The square with index `i`; `i` must be below 90.
    pub(crate) const fn new_unchecked(i: u8) -> Square {
        debug_assert!(i < 90);
        Square(i)
    }

    /// The square on `file` and `rank`.
    pub const fn from_coords(file: File, rank: Rank) -> Square {
        Square(rank.0 * 9 + file.0)
    }

    /// The square at file index `f` and rank index `r`, if both are on the board.
    pub const fn from_xy(f: i32, r: i32) -> Option<Square> {
        if f >= 0 && f < 9 && r >= 0 && r < 10 {
            Some(Square((r * 9 + f) as u8))
        } else {
            None
        }
    }

    /// 0 … 89.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The file.
    pub const fn file(self) -> File {
        File(self.0 % 9)
    }

    /// The rank.
    pub const fn rank(self) -> Rank {
        Rank(self.0 / 9)
    }

    /// All squares, `a0` first.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..90).map(Square)
    }

    /// Whether the square is in `color`'s palace (九宫).
    pub const fn in_palace(self, color: crate::Color) -> bool {
        let f = self.0 % 9;
        let r = self.0 / 9;
        let ranks_ok = match color {
            crate::Color::Red => r <= 2,
            crate::Color::Black => r >= 7,
        };
        f >= 3 && f <= 5 && ranks_ok
    }

    /// Whether the square lies on `color`'s own half of the board.
    pub const fn on_own_half(self, color: crate::Color) -> bool {
        match color {
            crate::Color::Red => self.0 / 9 <= 4,
            crate::Color::Black => self.0 / 9 >= 5,
        }
    }

    /// The square seen from the other side (rotated 180°).
    pub const fn flip(self) -> Square {
        Square(89 - self.0)
    }

    /// Parses a name like `e0`.
    pub fn parse(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let f = b[0].to_ascii_lowercase().checked_sub(b'a')?;
        let r = b[1].checked_sub(b'0')?;
        Some(Square::from_coords(File::new(f)?, Rank::new(r)?))
    }
}

impl std::fmt::Display for Square {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.file().char(), self.rank().char())
    }
}
