//! Move notation (记谱, RULES.md §6): Chinese, WXF and ICCS/UCI coordinates.
//!
//! Each notation has a syntax type that is read without a position ([`ChineseMove`],
//! [`WxfMove`], [`UciMove`]) and becomes a `(Move, Reveals)` only against a
//! [`Position`], failing with a [`ResolveError`] that names the pieces that could be
//! meant or says why none can. Writing goes the other way: [`write_move`] describes a
//! legal move of a position in the notation asked for.
//!
//! Chinese and WXF are *descriptive*: a piece kind, which of the pieces of that kind
//! (its file, or its place on a file counted from the front), a direction and a file or
//! a number of steps. A face-down piece counts as the piece of its start square, both
//! for its name and for telling same-kind pieces apart.
//!
//! ```
//! use jieqi_core::Position;
//! use jieqi_core::notation::{Notation, Script, read_move, write_move};
//!
//! let pos = Position::start();
//! let (m, rv) = read_move(&pos, "炮二平五翻马").unwrap();
//! assert_eq!(m.to_string(), "h2e2");
//! assert_eq!(write_move(&pos, m, rv, Notation::Wxf), "C2.5=H");
//! assert_eq!(write_move(&pos, m, rv, Notation::Iccs), "h2e2N");
//! assert_eq!(write_move(&pos, m, rv, Notation::Chinese(Script::Traditional)), "炮二平五傌");
//! ```

mod chinese;
mod descriptive;
mod iccs;
mod wxf;

pub use chinese::{ChineseMove, ParseChineseError, Script};
pub use descriptive::{Direction, Locator, Pick, ResolveError};
pub use iccs::{parse_iccs, resolve_iccs};
pub use wxf::{ParseWxfError, WxfMove};

use crate::{Move, ParseUciError, Position, Reveals, UciMove};

/// A notation to write moves in.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Notation {
    /// Chinese (「炮二平五」, 「马二进三炮」) in the given script.
    Chinese(Script),
    /// WXF (`C2.5`, `H8+7=C`).
    Wxf,
    /// ICCS/UCI coordinates with suffix letters (`h2e2`, `c3c4B`).
    Iccs,
}

impl Notation {
    /// Parses `chinese`, `chinese-traditional` (or `traditional`), `jieqibox` (Chinese in
    /// JieqiBox's style), `wxf`, `iccs`/`uci`.
    pub fn parse_name(s: &str) -> Option<Notation> {
        match s.to_ascii_lowercase().as_str() {
            "chinese" | "zh" | "chinese-simplified" | "simplified" => {
                Some(Notation::Chinese(Script::Simplified))
            }
            "chinese-traditional" | "traditional" | "zh-hant" => {
                Some(Notation::Chinese(Script::Traditional))
            }
            "jieqibox" | "chinese-jieqibox" => Some(Notation::Chinese(Script::JieqiBox)),
            "wxf" => Some(Notation::Wxf),
            "iccs" | "uci" => Some(Notation::Iccs),
            _ => None,
        }
    }

    /// The name used by the PGN `Format` tag: `Chinese`, `WXF` or `ICCS`.
    pub fn format_tag(self) -> &'static str {
        match self {
            Notation::Chinese(_) => "Chinese",
            Notation::Wxf => "WXF",
            Notation::Iccs => "ICCS",
        }
    }
}

/// Why a move text could not be read in any notation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadMoveError {
    /// Not valid Chinese notation.
    #[error(transparent)]
    Chinese(#[from] ParseChineseError),
    /// Not valid WXF notation.
    #[error(transparent)]
    Wxf(#[from] ParseWxfError),
    /// Not valid coordinates.
    #[error(transparent)]
    Iccs(#[from] ParseUciError),
    /// Readable, but not a move of this position.
    #[error("{text}: {error}")]
    Resolve {
        /// The move as written.
        text: String,
        /// Why it does not fit the position.
        error: ResolveError,
    },
}

/// Which notation a move text is written in, guessed from its characters: any CJK
/// character means Chinese; a square name first (`h2e2`, `H2-E2`) means ICCS;
/// anything else is tried as WXF.
pub fn detect(text: &str) -> Notation {
    let t = text.trim();
    if t.chars().any(|c| !c.is_ascii() && c != '\u{3000}') {
        return Notation::Chinese(Script::Simplified);
    }
    let b = t.as_bytes();
    let file = |c: u8| matches!(c.to_ascii_lowercase(), b'a'..=b'i');
    if b.len() >= 4
        && file(b[0])
        && b[1].is_ascii_digit()
        && (file(b[2]) || (b[2] == b'-' && b.len() >= 5 && file(b[3])))
    {
        return Notation::Iccs;
    }
    Notation::Wxf
}

/// Reads a move in whichever notation it is written ([`detect`]) and resolves it in
/// `pos`. A face-down mover with no revealed identity in the text is allowed: the
/// returned [`Reveals::mover`] is then `None`, to be filled from a deal or by a referee.
pub fn read_move(pos: &Position, text: &str) -> Result<(Move, Reveals), ReadMoveError> {
    let resolve_err = |error| ReadMoveError::Resolve {
        text: text.trim().to_string(),
        error,
    };
    match detect(text) {
        Notation::Chinese(_) => ChineseMove::parse(text)?.resolve(pos).map_err(resolve_err),
        Notation::Iccs => {
            let u = parse_iccs(text)?;
            resolve_iccs(&u, pos).map_err(resolve_err)
        }
        Notation::Wxf => WxfMove::parse(text)?.resolve(pos).map_err(resolve_err),
    }
}

/// Writes a legal move of `pos` in `notation`, with the reveals given (the mover's
/// revealed identity, and a captured face-down identity when it is to be shown).
pub fn write_move(pos: &Position, m: Move, rv: Reveals, notation: Notation) -> String {
    match notation {
        Notation::Chinese(script) => ChineseMove::from_move_in(pos, m, rv, script).to_text(script),
        Notation::Wxf => WxfMove::from_move(pos, m, rv).to_string(),
        Notation::Iccs => UciMove::from_move(pos, m, rv).to_string(),
    }
}
