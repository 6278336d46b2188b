//! An analysis request from the analysis board, checked before the engine sees it: a
//! FEN of what the viewer knows, the moves played on the board from it (each face-down
//! mover with the identity the user chose to reveal), and the width and depth wanted.

use std::time::Duration;

use jieqi_core::{Color, Position, Role, UciMove};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::engine::AnalysisLimits;

/// The longest FEN accepted (a full board with pools and captured fields is ~120).
pub const MAX_FEN_BYTES: usize = 256;
/// The most moves a request may play from its FEN.
pub const MAX_LINE_MOVES: usize = 400;
/// The most lines (MultiPV) one analysis shows.
pub const MAX_MULTIPV: usize = 5;
/// The deepest iteration one analysis may ask for.
pub const MAX_DEPTH: u32 = 40;
/// The longest one analysis runs before it stops by itself (the user asks again to
/// go on): an analysis holds a thread of the shared pool.
pub const MAX_TIME: Duration = Duration::from_secs(15);

/// `analyse`: analyse the position after `moves` from `fen`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalyseIn {
    /// The client's number for this request, repeated in every answer.
    #[serde(default)]
    pub n: u64,
    /// The start position as the viewer knows it (`X`/`x` for face-down pieces).
    pub fen: String,
    /// Coordinate moves from `fen` (`c3c4B`: a face-down mover revealed as an elephant).
    #[serde(default)]
    pub moves: Vec<String>,
    /// Lines wanted (1–5, default 3).
    pub multipv: Option<usize>,
    /// Deepest iteration (default [`MAX_DEPTH`]).
    pub depth: Option<u32>,
    /// Longest run in ms (default and at most [`MAX_TIME`]).
    pub movetime_ms: Option<u64>,
}

/// Why a request was refused; each has a protocol code (docs/protocol.md §9).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    /// Over a size limit.
    #[error("{0}")]
    TooBig(String),
    /// The FEN does not read or is not a legal position.
    #[error("bad FEN: {0}")]
    BadFen(String),
    /// A move that cannot be played.
    #[error("move {index} ({mv}): {why}")]
    BadMove {
        /// 1-based index in `moves`.
        index: usize,
        /// The move as sent.
        mv: String,
        /// Why.
        why: String,
    },
    /// A limit out of range.
    #[error("{0}")]
    BadLimit(String),
}

impl RequestError {
    /// The protocol code.
    pub fn code(&self) -> &'static str {
        match self {
            RequestError::TooBig(_) => "too_big",
            RequestError::BadFen(_) => "bad_fen",
            RequestError::BadMove { .. } => "illegal_move",
            RequestError::BadLimit(_) => "bad_limit",
        }
    }
}

/// A checked request: the position to analyse and how.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The position after the moves: all the engine will see.
    pub pos: Position,
    /// Depth, time and width.
    pub limits: AnalysisLimits,
}

/// Checks a request and plays its moves.
pub fn prepare(req: &AnalyseIn) -> Result<Prepared, RequestError> {
    if req.fen.len() > MAX_FEN_BYTES {
        return Err(RequestError::TooBig(format!(
            "a FEN is at most {MAX_FEN_BYTES} bytes"
        )));
    }
    if req.moves.len() > MAX_LINE_MOVES {
        return Err(RequestError::TooBig(format!(
            "at most {MAX_LINE_MOVES} moves from the FEN"
        )));
    }
    let multipv = req.multipv.unwrap_or(3);
    if !(1..=MAX_MULTIPV).contains(&multipv) {
        return Err(RequestError::BadLimit(format!(
            "multipv is 1 to {MAX_MULTIPV}"
        )));
    }
    let depth = req.depth.unwrap_or(MAX_DEPTH);
    if !(1..=MAX_DEPTH).contains(&depth) {
        return Err(RequestError::BadLimit(format!("depth is 1 to {MAX_DEPTH}")));
    }
    let movetime = req
        .movetime_ms
        .map_or(MAX_TIME, Duration::from_millis)
        .clamp(Duration::from_millis(10), MAX_TIME);
    let mut pos = Position::from_fen(&req.fen).map_err(|e| RequestError::BadFen(e.to_string()))?;
    for (i, text) in req.moves.iter().enumerate() {
        let bad = |why: String| RequestError::BadMove {
            index: i + 1,
            mv: text.chars().take(8).collect(),
            why,
        };
        let uci = UciMove::parse(text).map_err(|e| bad(e.to_string()))?;
        let (m, reveals) = uci.resolve(&pos).map_err(|e| bad(e.to_string()))?;
        pos.play(m, reveals).map_err(|e| bad(e.to_string()))?;
    }
    Ok(Prepared {
        pos,
        limits: AnalysisLimits {
            depth,
            movetime,
            multipv,
        },
    })
}

/// The `position` answer: the position reached, its legal moves (a face-down mover's
/// without a reveal letter: the board asks which identity) and what each side's
/// face-down pieces may be.
pub fn position_out(n: u64, pos: &Position) -> Value {
    let legal: Vec<String> = pos
        .legal_moves()
        .as_slice()
        .iter()
        .map(ToString::to_string)
        .collect();
    let pool = |c: Color| {
        let mut m = serde_json::Map::new();
        for r in Role::HIDDEN {
            let k = pos.pool().get(c, r);
            if k > 0 {
                m.insert(r.upper_char().to_string(), json!(k));
            }
        }
        Value::Object(m)
    };
    json!({
        "n": n,
        "fen": pos.fen(),
        "turn": pos.turn().name(),
        "check": pos.is_check(),
        "over": legal.is_empty(),
        "legal": legal,
        "pool": { "red": pool(Color::Red), "black": pool(Color::Black) },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(fen: &str, moves: &[&str]) -> AnalyseIn {
        AnalyseIn {
            fen: fen.to_string(),
            moves: moves.iter().map(|s| s.to_string()).collect(),
            ..AnalyseIn::default()
        }
    }

    const START: &str = jieqi_core::START_FEN;

    #[test]
    fn plays_moves_with_the_chosen_reveals() {
        let p = prepare(&req(START, &["b2e2C", "b7b5"])).unwrap_err();
        assert_eq!(
            p.code(),
            "illegal_move",
            "b7 is face-down: it needs a reveal"
        );
        let p = prepare(&req(START, &["b2e2C", "h7e7R"])).unwrap();
        assert!(
            p.pos.fen().starts_with("xxxxkxxxx/9/1x2r4/"),
            "{}",
            p.pos.fen()
        );
        assert!(
            p.pos.fen().contains("R2C1"),
            "red's pool lost a cannon: {}",
            p.pos.fen()
        );
        assert_eq!(p.limits.multipv, 3);
    }

    #[test]
    fn refuses_bad_fens_moves_and_limits() {
        assert_eq!(
            prepare(&req("nonsense", &[])).unwrap_err().code(),
            "bad_fen"
        );
        assert_eq!(
            prepare(&req(&"x".repeat(1000), &[])).unwrap_err().code(),
            "too_big"
        );
        let many: Vec<&str> = vec!["a3a4P"; MAX_LINE_MOVES + 1];
        assert_eq!(prepare(&req(START, &many)).unwrap_err().code(), "too_big");
        let e = prepare(&req(START, &["b2e2C", "zz"])).unwrap_err();
        assert!(matches!(e, RequestError::BadMove { index: 2, .. }), "{e}");
        // A reveal the pool cannot give: Red has no third cannon left face-down.
        let e = prepare(&req(START, &["b2e2C", "b7e7c", "h2h3C", "h7h6c", "a3a4C"])).unwrap_err();
        assert_eq!(e.code(), "illegal_move");
        assert!(e.to_string().contains("move 5"), "{e}");
        // A king is never a reveal.
        assert_eq!(
            prepare(&req(START, &["b2e2K"])).unwrap_err().code(),
            "illegal_move"
        );
        let mut r = req(START, &[]);
        r.multipv = Some(9);
        assert_eq!(prepare(&r).unwrap_err().code(), "bad_limit");
        r.multipv = Some(2);
        r.depth = Some(0);
        assert_eq!(prepare(&r).unwrap_err().code(), "bad_limit");
    }

    #[test]
    fn position_answer_lists_legal_moves_and_pools() {
        let p = prepare(&req(START, &[])).unwrap();
        let v = position_out(7, &p.pos);
        assert_eq!(v["n"], 7);
        assert_eq!(v["turn"], "red");
        assert_eq!(v["over"], false);
        assert!(v["legal"].as_array().unwrap().iter().any(|m| m == "b2e2"));
        assert_eq!(v["pool"]["red"]["P"], 5);
        assert_eq!(v["pool"]["black"]["R"], 2);
    }
}
