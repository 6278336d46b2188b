//! JieqiBox's JSON records: `metadata` (`event`, `site`, `date`, `round`, `white` (Red's
//! name), `black`, `result`, `initialFen`, `flipMode`, `currentFen`, `openingComment`)
//! and `moves`, each `{"type": "move", "data": "<UCI move with suffixes>", "fen": "<FEN
//! after the move>", "comment", "annotation", "engineScore", "engineTime"}`.
//!
//! Reading accepts both of JieqiBox's FEN orders. A face-down mover whose `data` has no
//! suffix letter takes its identity from the `fen` after the move. Writing uses the
//! 5-field FEN JieqiBox writes by default (`<board> <side> <pool> <halfmove>
//! <fullmove>`). Entries of type `adjust` (board edits) are refused.

use serde::{Deserialize, Serialize};

use super::{ReadRecordError, Record, RecordMove, advance};
use crate::notation::{parse_iccs, resolve_iccs};
use crate::{Piece, Position, Setup, UciMove};

#[derive(Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct BoxFile {
    metadata: BoxMeta,
    #[serde(default)]
    moves: Vec<BoxMove>,
}

#[derive(Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct BoxMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    event: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    site: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    round: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    white: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    black: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    initial_fen: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    flip_mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    current_fen: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    opening_comment: Option<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct BoxMove {
    #[serde(rename = "type")]
    kind: String,
    data: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fen: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    comment: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    annotation: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    engine_score: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    engine_time: Option<f64>,
}

/// The 5-field FEN JieqiBox writes: the captured field left out.
fn box_fen(pos: &Position) -> String {
    let f: Vec<String> = pos.fen().split(' ').map(str::to_string).collect();
    if f.len() == 6 {
        format!("{} {} {} {} {}", f[0], f[1], f[2], f[4], f[5])
    } else {
        f.join(" ")
    }
}

/// Reads a JieqiBox JSON record.
pub fn read(text: &str) -> Result<Record, ReadRecordError> {
    let file: BoxFile = serde_json::from_str(text).map_err(|e| ReadRecordError::Syntax {
        line: e.line(),
        why: format!("not a JieqiBox record: {e}"),
    })?;
    let meta = file.metadata;
    let mut rec = Record::new();
    if let Some(fen) = meta.initial_fen.as_deref().filter(|f| !f.trim().is_empty()) {
        rec.start = Position::from_fen(fen).map_err(|e| ReadRecordError::Tag {
            tag: "initialFen".into(),
            why: e.to_string(),
        })?;
    }
    for (k, v) in [
        ("Event", meta.event),
        ("Site", meta.site),
        ("Date", meta.date),
        ("Round", meta.round),
        ("Red", meta.white),
        ("Black", meta.black),
        ("FlipMode", meta.flip_mode),
    ] {
        if let Some(v) = v {
            rec.tags.push((k.to_string(), v));
        }
    }
    rec.result = meta.result.unwrap_or_else(|| "*".into());
    if !matches!(rec.result.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
        return Err(ReadRecordError::Tag {
            tag: "result".into(),
            why: format!("{:?} is not 1-0, 0-1, 1/2-1/2 or *", rec.result),
        });
    }
    rec.opening_comment = meta.opening_comment.filter(|c| !c.is_empty());
    let mut pos = rec.start.clone();
    for (i, bm) in file.moves.into_iter().enumerate() {
        let ply = i + 1;
        let bad = |why: String| ReadRecordError::Move {
            ply,
            text: bm.data.clone(),
            why,
        };
        if bm.kind != "move" {
            return Err(bad(format!(
                "entries of type {:?} (board edits) are not supported; only \"move\"",
                bm.kind
            )));
        }
        let u = parse_iccs(&bm.data).map_err(|e| bad(e.to_string()))?;
        let (m, mut rv) = resolve_iccs(&u, &pos).map_err(|e| bad(e.to_string()))?;
        if rv.mover.is_none()
            && pos.board().is_hidden(m.from)
            && let Some(fen) = &bm.fen
        {
            let after =
                Setup::from_fen(fen).map_err(|e| bad(format!("fen after the move: {e}")))?;
            match after.board[m.to.index()] {
                Some(Piece::Up(c, r)) if c == pos.turn() => rv.mover = Some(r),
                _ => {
                    return Err(bad(format!(
                        "the fen after the move does not show the revealed piece on {}",
                        m.to
                    )));
                }
            }
        }
        advance(&mut pos, None, m, rv);
        let mut rm = RecordMove::new(m, rv);
        rm.comment = bm.comment.filter(|c| !c.is_empty());
        rm.annotation = bm.annotation.filter(|c| !c.is_empty());
        rm.engine_score = bm.engine_score;
        rm.engine_time = bm.engine_time.map(|t| t.max(0.0).round() as u64);
        rec.moves.push(rm);
    }
    Ok(rec)
}

/// Writes a record as JieqiBox JSON (`flipMode` `random`: the reveals are the record's).
pub fn write(rec: &Record) -> String {
    let mut pos = rec.start.clone();
    let mut moves = Vec::new();
    for m in &rec.moves {
        let rv = rec.effective_reveals(&pos, m);
        let data = UciMove::from_move(&pos, m.mv, rv).to_string();
        pos.play_unchecked(m.mv, rv);
        moves.push(BoxMove {
            kind: "move".into(),
            data,
            fen: Some(box_fen(&pos)),
            comment: m.comment.clone(),
            annotation: m.annotation.clone(),
            engine_score: m.engine_score,
            engine_time: m.engine_time.map(|t| t as f64),
        });
    }
    let tag = |k: &str| rec.tag(k).map(str::to_string);
    let file = BoxFile {
        metadata: BoxMeta {
            event: tag("Event"),
            site: tag("Site"),
            date: tag("Date"),
            round: tag("Round"),
            white: tag("Red"),
            black: tag("Black"),
            result: Some(rec.result.clone()),
            initial_fen: Some(box_fen(&rec.start)),
            flip_mode: Some(tag("FlipMode").unwrap_or_else(|| "random".into())),
            current_fen: Some(box_fen(&pos)),
            opening_comment: rec.opening_comment.clone(),
        },
        moves,
    };
    serde_json::to_string_pretty(&file).expect("a record always serializes")
}
