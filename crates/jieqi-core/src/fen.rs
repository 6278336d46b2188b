//! FEN (RULES.md §7): `<board> <side> <pool> <captured> <halfmove> <fullmove>`.
//!
//! Also read: the 5-field form without `captured`, the 3-field form without clocks, the
//! 2-field form (pool derived as every identity not face-up on the board), and the
//! legacy order `<board> <pool> <side> - - <halfmove> <fullmove>`.

use crate::{Color, Material, ParseMaterialError, Piece, Position, PositionError, Role, Setup};

/// The FEN of the Jieqi start position.
pub const START_FEN: &str =
    "xxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/X1X1X1X1X/1X5X1/9/XXXXKXXXX w A2B2N2R2C2P5a2b2n2r2c2p5 - 0 1";

/// Why a FEN was rejected; each variant names the field at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseFenError {
    /// Nothing to read.
    #[error("empty FEN")]
    Empty,
    /// A field count no form has.
    #[error("a FEN has 2 to 7 fields, this one has {0}")]
    FieldCount(usize),
    /// The board field.
    #[error("board field: {0}")]
    Board(String),
    /// The side-to-move field.
    #[error("side field: {0:?} is not w (Red) or b (Black)")]
    Side(String),
    /// The pool field.
    #[error("pool field: {0}")]
    Pool(ParseMaterialError),
    /// The captured field.
    #[error("captured field: {0}")]
    Captured(ParseMaterialError),
    /// The halfmove clock.
    #[error("halfmove field: {0:?} is not a number")]
    Halfmove(String),
    /// The move number.
    #[error("fullmove field: {0:?} is not a positive number")]
    Fullmove(String),
    /// Readable, but not a legal position.
    #[error(transparent)]
    Position(#[from] PositionError),
}

fn parse_side(s: &str) -> Option<Color> {
    match s {
        "w" | "r" | "W" | "R" => Some(Color::Red),
        "b" | "B" => Some(Color::Black),
        _ => None,
    }
}

fn parse_board(s: &str) -> Result<[Option<Piece>; 90], ParseFenError> {
    let mut board = [None; 90];
    let rows: Vec<&str> = s.split('/').collect();
    if rows.len() != 10 {
        return Err(ParseFenError::Board(format!(
            "{} ranks, expected 10 separated by '/'",
            rows.len()
        )));
    }
    for (i, row) in rows.iter().enumerate() {
        let rank = 9 - i;
        let mut file = 0usize;
        for ch in row.chars() {
            if let Some(d) = ch.to_digit(10) {
                if d == 0 {
                    return Err(ParseFenError::Board(format!(
                        "rank {rank}: a skip count of 0"
                    )));
                }
                file += d as usize;
            } else {
                let p = Piece::from_fen_char(ch).ok_or_else(|| {
                    ParseFenError::Board(format!("rank {rank}: {ch:?} is not a piece letter"))
                })?;
                if file >= 9 {
                    return Err(ParseFenError::Board(format!(
                        "rank {rank}: more than 9 files"
                    )));
                }
                board[rank * 9 + file] = Some(p);
                file += 1;
            }
            if file > 9 {
                return Err(ParseFenError::Board(format!(
                    "rank {rank}: more than 9 files"
                )));
            }
        }
        if file != 9 {
            return Err(ParseFenError::Board(format!(
                "rank {rank}: {file} files, expected 9"
            )));
        }
    }
    Ok(board)
}

fn parse_clock(s: &str) -> Option<u32> {
    if s == "-" { Some(0) } else { s.parse().ok() }
}

impl Setup {
    /// Reads any of the accepted FEN forms, without checking legality.
    pub fn from_fen(fen: &str) -> Result<Setup, ParseFenError> {
        let f: Vec<&str> = fen.split_whitespace().collect();
        if f.is_empty() {
            return Err(ParseFenError::Empty);
        }
        if f.len() > 7 {
            return Err(ParseFenError::FieldCount(f.len()));
        }
        let board = parse_board(f[0])?;
        if f.len() == 1 {
            return Err(ParseFenError::FieldCount(1));
        }
        let legacy = parse_side(f[1]).is_none() && f.get(2).and_then(|s| parse_side(s)).is_some();
        let (turn, pool, captured, half, full) = if legacy {
            // <board> <pool> <side> - - <halfmove> <fullmove>
            (f[2], Some(f[1]), None, f.get(5).copied(), f.get(6).copied())
        } else {
            let turn = f[1];
            match f.len() {
                2 => (turn, None, None, None, None),
                3 => (turn, Some(f[2]), None, None, None),
                4 if parse_clock(f[3]).is_some() && f[3] != "-" => {
                    (turn, Some(f[2]), None, Some(f[3]), None)
                }
                4 => (turn, Some(f[2]), Some(f[3]), None, None),
                5 => (turn, Some(f[2]), None, Some(f[3]), Some(f[4])),
                6 => (turn, Some(f[2]), Some(f[3]), Some(f[4]), Some(f[5])),
                n => return Err(ParseFenError::FieldCount(n)),
            }
        };
        let turn = parse_side(turn).ok_or_else(|| ParseFenError::Side(turn.to_string()))?;
        let captured = match captured {
            Some(c) => Material::parse(c).map_err(ParseFenError::Captured)?,
            None => Material::EMPTY,
        };
        let pool = match pool {
            Some(p) => Material::parse(p).map_err(ParseFenError::Pool)?,
            None => derived_pool(&board, &captured),
        };
        let halfmove = match half {
            Some(h) => parse_clock(h).ok_or_else(|| ParseFenError::Halfmove(h.to_string()))?,
            None => 0,
        };
        let fullmove = match full {
            Some(n) => parse_clock(n)
                .filter(|&n| n > 0 || n == 0 && full == Some("-"))
                .ok_or_else(|| ParseFenError::Fullmove(n.to_string()))?
                .max(1),
            None => 1,
        };
        Ok(Setup {
            board,
            turn,
            pool,
            captured,
            halfmove,
            fullmove,
        })
    }

    /// The 6-field FEN of this setup.
    pub fn fen(&self) -> String {
        let mut s = String::new();
        for rank in (0..10).rev() {
            let mut empty = 0;
            for file in 0..9 {
                match self.board[rank * 9 + file] {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            s.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        s.push(p.fen_char());
                    }
                }
            }
            if empty > 0 {
                s.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                s.push('/');
            }
        }
        format!(
            "{s} {} {} {} {} {}",
            self.turn.fen_char(),
            self.pool,
            self.captured,
            self.halfmove,
            self.fullmove
        )
    }
}

/// The pool when a FEN gives none: every identity not face-up and not captured.
fn derived_pool(board: &[Option<Piece>; 90], captured: &Material) -> Material {
    let mut pool = Material::full_hidden();
    for p in board.iter().flatten() {
        if let Piece::Up(c, r) = *p
            && r != Role::King
        {
            let n = pool.get_mut(c, r);
            *n = n.saturating_sub(1);
        }
    }
    for c in Color::ALL {
        for r in Role::HIDDEN {
            let n = pool.get_mut(c, r);
            *n = n.saturating_sub(captured.get(c, r));
        }
    }
    pool
}

impl Position {
    /// Reads a FEN (any accepted form) and checks the position.
    pub fn from_fen(fen: &str) -> Result<Position, ParseFenError> {
        Ok(Position::from_setup(Setup::from_fen(fen)?)?)
    }

    /// The 6-field FEN.
    pub fn fen(&self) -> String {
        self.to_setup().fen()
    }

    /// The board field of the FEN alone.
    pub fn board_fen(&self) -> String {
        let fen = self.fen();
        fen.split(' ').next().unwrap_or_default().to_string()
    }
}

impl std::str::FromStr for Position {
    type Err = ParseFenError;
    fn from_str(s: &str) -> Result<Position, ParseFenError> {
        Position::from_fen(s)
    }
}
