//! The binary training-data format (`docs/nnue.md`): a 32-byte header, then records of
//! 52 bytes, each one position as the side to move saw it with its search score and the
//! game's result.
//!
//! Header: magic `JQDATA01`, then `u64` seed, `u64` nodes per move, `u32` random
//! opening plies, `u32` reserved (0), little-endian.
//!
//! | bytes | record field |
//! | --- | --- |
//! | 0–11 | occupancy: bit `i` set when square `i` (a0 = 0 … i9 = 89) holds a piece |
//! | 12–27 | one nibble per occupied square in square order, low nibble first: bit 3 Black, bits 0–2 the role code (1 king … 7 pawn), 0 for a face-down piece |
//! | 28–33 | pools (the side to move's view): 12 nibbles, Red A B N R C P then Black |
//! | 34–39 | captured identities the side to move knows: 12 nibbles, same order |
//! | 40 | flags: bit 0 Black to move, bit 1 the last record of its game |
//! | 41 | plies since the last capture (at most 255) |
//! | 42–43 | `u16` move number |
//! | 44–45 | `i16` search score, centipawns for the side to move |
//! | 46 | result for the side to move: 0 loss, 1 draw, 2 win |
//! | 47 | reserved (0) |
//! | 48–51 | `u32` game index (the game's deal and opening come from the seed and it) |

use jieqi_core::{Color, Material, Piece, Position, PositionError, Role, Setup};

/// Bytes of a file header.
pub const HEADER_LEN: usize = 32;
/// Bytes of a record.
pub const RECORD_LEN: usize = 52;
/// The first bytes of a data file.
pub const MAGIC: &[u8; 8] = b"JQDATA01";

/// The settings a data file was generated with (its header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The run's seed: game `g` uses a deal and an opening drawn from `(seed, g)`.
    pub seed: u64,
    /// Nodes searched per move.
    pub nodes: u64,
    /// Random plies at the start of each game.
    pub random_plies: u32,
}

/// Why bytes could not be read as data.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RecordError {
    /// The header's magic is not [`MAGIC`].
    #[error("not a jieqi training-data file (it does not start with JQDATA01)")]
    Magic,
    /// The header is cut short.
    #[error("the header is cut short")]
    Header,
    /// More than 32 pieces, or a piece code that names no piece.
    #[error("record has a bad piece list")]
    Pieces,
    /// A result byte other than 0, 1, 2.
    #[error("record has result byte {0} (expected 0, 1 or 2)")]
    Result(u8),
    /// The arrangement is not a legal position.
    #[error("record holds no legal position: {0}")]
    Position(#[from] PositionError),
}

impl Header {
    /// The header's bytes.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[..8].copy_from_slice(MAGIC);
        b[8..16].copy_from_slice(&self.seed.to_le_bytes());
        b[16..24].copy_from_slice(&self.nodes.to_le_bytes());
        b[24..28].copy_from_slice(&self.random_plies.to_le_bytes());
        b
    }

    /// Reads a header.
    pub fn decode(b: &[u8]) -> Result<Header, RecordError> {
        if b.len() < 8 || &b[..8] != MAGIC {
            return Err(RecordError::Magic);
        }
        if b.len() < HEADER_LEN {
            return Err(RecordError::Header);
        }
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        Ok(Header {
            seed: u64_at(8),
            nodes: u64_at(16),
            random_plies: u32::from_le_bytes(b[24..28].try_into().expect("4 bytes")),
        })
    }
}

/// One training position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The position as its side to move saw it (its pools, its captured identities).
    pub position: Position,
    /// The search score, centipawns for the side to move.
    pub score: i16,
    /// The game's result for the side to move: 0 loss, 1 draw, 2 win.
    pub result: u8,
    /// The game's index in its run.
    pub game: u32,
    /// Whether this is the last record written for its game.
    pub last: bool,
}

fn put_material(m: &Material, out: &mut [u8]) {
    let mut i = 0;
    for c in Color::ALL {
        for r in Role::HIDDEN {
            let n = m.get(c, r).min(15);
            out[i / 2] |= n << (4 * (i % 2));
            i += 1;
        }
    }
}

fn get_material(b: &[u8]) -> Material {
    let mut m = Material::EMPTY;
    let mut i = 0;
    for c in Color::ALL {
        for r in Role::HIDDEN {
            *m.get_mut(c, r) = (b[i / 2] >> (4 * (i % 2))) & 15;
            i += 1;
        }
    }
    m
}

fn piece_code(p: Piece) -> u8 {
    let black = if p.color() == Color::Black { 8 } else { 0 };
    match p {
        Piece::Up(_, r) => black | r as u8,
        Piece::Down(_) => black,
    }
}

fn code_piece(code: u8) -> Option<Piece> {
    let color = if code & 8 != 0 {
        Color::Black
    } else {
        Color::Red
    };
    match code & 7 {
        0 => Some(Piece::Down(color)),
        r => Role::from_code(r).map(|r| Piece::Up(color, r)),
    }
}

impl Record {
    /// The record's bytes.
    pub fn encode(&self) -> [u8; RECORD_LEN] {
        let mut b = [0u8; RECORD_LEN];
        let pos = &self.position;
        let mut occ = 0u128;
        for (n, (sq, p)) in pos.board().pieces().enumerate() {
            occ |= 1 << sq.index();
            b[12 + n / 2] |= piece_code(p) << (4 * (n % 2));
        }
        b[..12].copy_from_slice(&occ.to_le_bytes()[..12]);
        put_material(pos.pool(), &mut b[28..34]);
        put_material(pos.captured(), &mut b[34..40]);
        b[40] = u8::from(pos.turn() == Color::Black) | (u8::from(self.last) << 1);
        b[41] = pos.halfmove().min(255) as u8;
        b[42..44].copy_from_slice(&(pos.fullmove().min(65535) as u16).to_le_bytes());
        b[44..46].copy_from_slice(&self.score.to_le_bytes());
        b[46] = self.result;
        b[48..52].copy_from_slice(&self.game.to_le_bytes());
        b
    }

    /// Reads a record.
    pub fn decode(b: &[u8; RECORD_LEN]) -> Result<Record, RecordError> {
        let mut occ_bytes = [0u8; 16];
        occ_bytes[..12].copy_from_slice(&b[..12]);
        let mut occ = u128::from_le_bytes(occ_bytes);
        if occ.count_ones() > 32 || occ >> 90 != 0 {
            return Err(RecordError::Pieces);
        }
        let mut board = [None; 90];
        let mut n = 0;
        while occ != 0 {
            let sq = occ.trailing_zeros() as usize;
            occ &= occ - 1;
            let code = (b[12 + n / 2] >> (4 * (n % 2))) & 15;
            board[sq] = Some(code_piece(code).ok_or(RecordError::Pieces)?);
            n += 1;
        }
        if b[46] > 2 {
            return Err(RecordError::Result(b[46]));
        }
        let setup = Setup {
            board,
            turn: if b[40] & 1 != 0 {
                Color::Black
            } else {
                Color::Red
            },
            pool: get_material(&b[28..34]),
            captured: get_material(&b[34..40]),
            halfmove: u32::from(b[41]),
            fullmove: u32::from(u16::from_le_bytes([b[42], b[43]])),
        };
        Ok(Record {
            position: Position::from_setup(setup)?,
            score: i16::from_le_bytes([b[44], b[45]]),
            result: b[46],
            game: u32::from_le_bytes([b[48], b[49], b[50], b[51]]),
            last: b[40] & 2 != 0,
        })
    }

    /// The game index and last-record flag of encoded bytes, without decoding the
    /// position (for scanning a file on resume).
    pub fn peek(b: &[u8; RECORD_LEN]) -> (u32, bool) {
        (
            u32::from_le_bytes([b[48], b[49], b[50], b[51]]),
            b[40] & 2 != 0,
        )
    }
}

/// Reads a whole data file's bytes: its header and records (a cut-off last record is
/// ignored).
pub fn read_all(bytes: &[u8]) -> Result<(Header, Vec<Record>), RecordError> {
    let header = Header::decode(bytes)?;
    let body = &bytes[HEADER_LEN..];
    let records = body
        .chunks_exact(RECORD_LEN)
        .map(|c| Record::decode(c.try_into().expect("a whole record")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((header, records))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        for (fen, score, result, game, last) in [
            (jieqi_core::START_FEN, 12, 1, 0, false),
            (
                "3pk1xxC/na2rR3/4pr3/8n/bA1cP1p1p/N5P2/9/P1P1P1N1C/2A1B3R/4KX3 w B1a1b1 - 7 21",
                -350,
                0,
                77,
                true,
            ),
            (
                "4k4/9/9/9/9/9/9/9/9/R2K5 b - - 0 60",
                i16::MIN,
                2,
                u32::MAX,
                true,
            ),
        ] {
            let position = Position::from_fen(fen).expect("valid FEN");
            let r = Record {
                position,
                score,
                result,
                game,
                last,
            };
            let b = r.encode();
            assert_eq!(Record::decode(&b), Ok(r.clone()), "{fen}");
            assert_eq!(Record::peek(&b), (game, last));
        }
    }

    #[test]
    fn the_captured_field_survives() {
        // A Black view that learnt a captured Red rook: pool R1, captured R1.
        let fen = "xxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/X1X1X1X1X/1X5X1/9/XXXXK1XXX b A2B2N2R1C2P5a2b2n2r2c2p5 R1 0 1";
        let position = Position::from_fen(fen).expect("valid FEN");
        let r = Record {
            position: position.clone(),
            score: 5,
            result: 1,
            game: 3,
            last: false,
        };
        let back = Record::decode(&r.encode()).expect("decodes");
        assert_eq!(back.position.fen(), position.fen());
        assert_eq!(back.position.captured().get(Color::Red, Role::Rook), 1);
    }

    #[test]
    fn bad_bytes_are_refused() {
        assert_eq!(Header::decode(b"JQNNUE01xxxxxxxx"), Err(RecordError::Magic));
        let h = Header {
            seed: 9,
            nodes: 5000,
            random_plies: 6,
        };
        assert_eq!(Header::decode(&h.encode()), Ok(h));
        let mut b = Record {
            position: Position::start(),
            score: 0,
            result: 1,
            game: 0,
            last: false,
        }
        .encode();
        b[46] = 3;
        assert_eq!(Record::decode(&b), Err(RecordError::Result(3)));
        b[46] = 1;
        b[12] = 0x99; // two Black kings where a face-down and a king stood
        assert!(matches!(Record::decode(&b), Err(RecordError::Position(_))));
    }
}
