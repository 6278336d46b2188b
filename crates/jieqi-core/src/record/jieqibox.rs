//! JieqiBox's JSON records, as its `generateGameNotation` writes them: `metadata`
//! (`event`, `site`, `date`, `round`, `white` (Red's name), `black`, `result`,
//! `initialFen`, `flipMode`, `currentFen`, `openingComment`) and `moves`, each
//! `{"type": "move", "data": "<UCI move with suffixes>", "fen": "<FEN after>",
//! "engineScore", "engineTime", "engineDepth", "comment", "annotation", …}` or
//! `{"type": "adjust", "data": "captured_p+" | "P-" | "position_edit:…", "fen"}`.
//!
//! Nothing is lost between reading and writing: every FEN is kept as written (any of
//! JieqiBox's forms, pool order included) while it still fits its move; keys keep their
//! order; keys we have no field for are kept raw; numbers are written as JavaScript
//! writes them. A FEN we have to make (a record from PGN or a game) is JieqiBox's
//! 6-field form with its pool order ([`fen_of`]). A face-down mover whose `data` has no
//! suffix letter takes its identity from the `fen` after the move.

use super::json::Json;
use super::{Adjustment, JsonKeys, ReadRecordError, Record, RecordMove, advance};
use crate::notation::{parse_iccs, resolve_iccs};
use crate::{Color, Material, Piece, Position, Role, Setup, UciMove};

/// The kinds in the order JieqiBox lists pools (`RNBAKCP`, Red before Black each).
const BOX_ORDER: [Role; 6] = [
    Role::Rook,
    Role::Horse,
    Role::Elephant,
    Role::Advisor,
    Role::Cannon,
    Role::Pawn,
];

/// A pool or captured field in JieqiBox's order: `R2r2N2n2…`, zero counts left out,
/// `-` when empty.
fn box_material(m: &Material) -> String {
    let mut s = String::new();
    for r in BOX_ORDER {
        for c in Color::ALL {
            let n = m.get(c, r);
            if n > 0 {
                s.push(Piece::Up(c, r).fen_char());
                s.push_str(&n.to_string());
            }
        }
    }
    if s.is_empty() { "-".into() } else { s }
}

/// The FEN JieqiBox writes for a position: `<board> <side> <pool> <captured> <halfmove>
/// <fullmove>`, pools in its order (`R2r2N2n2B2b2A2a2C2c2P5p5`).
pub fn fen_of(pos: &Position) -> String {
    let s = pos.to_setup();
    let fen = s.fen();
    let board = fen.split(' ').next().unwrap_or_default();
    format!(
        "{board} {} {} {} {} {}",
        s.turn.fen_char(),
        box_material(&s.pool),
        box_material(&s.captured),
        s.halfmove,
        s.fullmove
    )
}

/// Whether a FEN as written still describes `pos` (same board and side to move; pools
/// and clocks may be written differently or know more).
pub(crate) fn fen_fits(fen: &str, pos: &Position) -> bool {
    Setup::from_fen(fen).is_ok_and(|s| {
        let p = pos.to_setup();
        s.board == p.board && s.turn == p.turn
    })
}

/// The FEN to write for `pos`: the one written in the source while it fits, else ours.
fn fen_to_write(written: Option<&str>, pos: &Position) -> String {
    match written {
        Some(f) if fen_fits(f, pos) => f.to_string(),
        _ => fen_of(pos),
    }
}

fn syntax(why: impl Into<String>) -> ReadRecordError {
    ReadRecordError::Syntax {
        line: 0,
        why: why.into(),
    }
}

/// Metadata keys with a field in the record: (key, tag it is kept in).
const META_TAGS: [(&str, &str); 7] = [
    ("event", "Event"),
    ("site", "Site"),
    ("date", "Date"),
    ("round", "Round"),
    ("white", "Red"),
    ("black", "Black"),
    ("flipMode", "FlipMode"),
];

/// The order of metadata keys when the record was not read from JieqiBox JSON.
const META_ORDER: [&str; 11] = [
    "event",
    "site",
    "date",
    "round",
    "white",
    "black",
    "result",
    "initialFen",
    "flipMode",
    "currentFen",
    "openingComment",
];

/// The order of a move's keys when not read from JSON (JieqiBox's: engine data at once,
/// comment and annotation when added).
const MOVE_ORDER: [&str; 8] = [
    "type",
    "data",
    "fen",
    "engineScore",
    "engineTime",
    "engineDepth",
    "comment",
    "annotation",
];

const ADJUST_ORDER: [&str; 4] = ["type", "data", "fen", "comment"];

/// The tag that keeps a `currentFen` other than the last position's FEN (JieqiBox saves
/// the position on screen, which may be an earlier one).
pub const CURRENT_FEN_TAG: &str = "CurrentFEN";

/// Reads a JieqiBox JSON record. Errors name the entry of `moves` at fault (as `ply`,
/// 1-based, counting `adjust` entries too).
pub fn read(text: &str) -> Result<Record, ReadRecordError> {
    let text = text.trim_start_matches('\u{feff}');
    let root = Json::parse(text).map_err(|e| ReadRecordError::Syntax {
        line: e.line(),
        why: format!("not a JieqiBox record: {e}"),
    })?;
    let Json::Object(top) = root else {
        return Err(syntax("not a JieqiBox record: expected a JSON object"));
    };
    let mut rec = Record::new();
    rec.json_layout.compact = !text.trim().contains('\n');
    rec.json_layout.trailing = text[text.trim_end().len()..].to_string();
    let mut meta = None;
    let mut entries = Vec::new();
    for (k, v) in top {
        match (k.as_str(), v) {
            ("metadata", Json::Object(m)) => meta = Some(m),
            ("metadata", _) => return Err(syntax("\"metadata\" must be an object")),
            ("moves", Json::Array(a)) => entries = a,
            ("moves", _) => return Err(syntax("\"moves\" must be an array")),
            (_, v) => {
                rec.json_layout.top.push((k, Some(v.compact())));
                continue;
            }
        }
        rec.json_layout.top.push((k, None));
    }
    let meta = meta.ok_or_else(|| syntax("not a JieqiBox record: no \"metadata\""))?;
    let mut current_fen = None;
    for (k, v) in meta {
        let s = v.as_str().map(str::to_string);
        let known = match (k.as_str(), s) {
            (key, Some(s)) if META_TAGS.iter().any(|(m, _)| *m == key) => {
                let tag = META_TAGS.iter().find(|(m, _)| *m == key).map(|t| t.1);
                rec.tags.push((tag.unwrap_or(key).to_string(), s));
                true
            }
            ("result", Some(r)) => {
                if !matches!(r.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
                    return Err(ReadRecordError::Tag {
                        tag: "result".into(),
                        why: format!("{r:?} is not 1-0, 0-1, 1/2-1/2 or *"),
                    });
                }
                rec.result = r;
                true
            }
            ("initialFen", Some(f)) if !f.trim().is_empty() => {
                rec.start = Position::from_fen(&f).map_err(|e| ReadRecordError::Tag {
                    tag: "initialFen".into(),
                    why: e.to_string(),
                })?;
                rec.start_fen = Some(f);
                true
            }
            ("currentFen", Some(f)) => {
                current_fen = Some(f);
                true
            }
            ("openingComment", Some(c)) if !c.is_empty() => {
                rec.opening_comment = Some(c);
                true
            }
            _ => false,
        };
        let raw = (!known).then(|| v.compact());
        rec.json_layout.metadata.push((k, raw));
    }
    let mut pos = rec.start.clone();
    let mut last_fen: Option<String> = None;
    for (i, entry) in entries.into_iter().enumerate() {
        let n = i + 1;
        let Json::Object(fields) = entry else {
            return Err(ReadRecordError::Move {
                ply: n,
                text: entry.compact(),
                why: "an entry of \"moves\" must be an object".into(),
            });
        };
        let get = |key: &str| fields.iter().find(|(k, _)| k == key).map(|(_, v)| v);
        let data = get("data").and_then(Json::as_str).unwrap_or_default();
        let bad = |why: String| ReadRecordError::Move {
            ply: n,
            text: data.to_string(),
            why,
        };
        let kind = get("type")
            .and_then(Json::as_str)
            .ok_or_else(|| bad("no \"type\" (\"move\" or \"adjust\")".into()))?;
        if get("data").and_then(Json::as_str).is_none() {
            return Err(bad("no \"data\" string".into()));
        }
        let fen = match get("fen") {
            None => None,
            Some(Json::Str(f)) => Some(f.clone()),
            Some(_) => return Err(bad("\"fen\" must be a string".into())),
        };
        let comment = get("comment")
            .and_then(Json::as_str)
            .filter(|c| !c.is_empty());
        match kind {
            "move" => {
                let after = match &fen {
                    Some(f) => Some(
                        Setup::from_fen(f).map_err(|e| bad(format!("fen after the move: {e}")))?,
                    ),
                    None => None,
                };
                let u = parse_iccs(data).map_err(|e| bad(e.to_string()))?;
                let (m, mut rv) = resolve_iccs(&u, &pos).map_err(|e| bad(e.to_string()))?;
                if rv.mover.is_none()
                    && pos.board().is_hidden(m.from)
                    && let Some(after) = &after
                {
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
                let ours = UciMove::from_move(&pos, m, rv).to_string();
                advance(&mut pos, None, m, rv);
                last_fen = Some(fen_to_write(fen.as_deref(), &pos));
                let mut rm = RecordMove::new(m, rv);
                rm.comment = comment.map(str::to_string);
                rm.annotation = get("annotation")
                    .and_then(Json::as_str)
                    .filter(|c| !c.is_empty())
                    .map(str::to_string);
                rm.engine_score = get("engineScore").and_then(Json::as_f64);
                rm.engine_time = get("engineTime").and_then(Json::as_u64);
                rm.engine_depth = get("engineDepth")
                    .and_then(Json::as_u64)
                    .and_then(|d| u32::try_from(d).ok());
                rm.fen = fen.clone();
                rm.json_keys = fields
                    .iter()
                    .map(|(k, v)| {
                        let held = match k.as_str() {
                            "type" | "fen" => true,
                            "data" => data == ours,
                            "comment" => rm.comment.is_some(),
                            "annotation" => rm.annotation.is_some(),
                            "engineScore" => rm.engine_score.is_some(),
                            "engineTime" => rm.engine_time.is_some(),
                            "engineDepth" => rm.engine_depth.is_some(),
                            _ => false,
                        };
                        (k.clone(), (!held).then(|| v.compact()))
                    })
                    .collect();
                rec.moves.push(rm);
            }
            "adjust" => {
                let f =
                    fen.ok_or_else(|| bad("an adjust entry needs the \"fen\" after it".into()))?;
                pos = Position::from_fen(&f)
                    .map_err(|e| bad(format!("fen after the adjustment: {e}")))?;
                last_fen = Some(f.clone());
                let json_keys: JsonKeys = fields
                    .iter()
                    .map(|(k, v)| {
                        let held = match k.as_str() {
                            "type" | "data" | "fen" => true,
                            "comment" => comment.is_some(),
                            _ => false,
                        };
                        (k.clone(), (!held).then(|| v.compact()))
                    })
                    .collect();
                rec.adjustments.push(Adjustment {
                    at: rec.moves.len(),
                    data: data.to_string(),
                    fen: f,
                    position: pos.clone(),
                    comment: comment.map(str::to_string),
                    json_keys,
                });
            }
            other => {
                return Err(bad(format!(
                    "entries of type {other:?} are not supported; only \"move\" and \"adjust\""
                )));
            }
        }
    }
    if let Some(f) = current_fen {
        let end = last_fen.unwrap_or_else(|| fen_to_write(rec.start_fen.as_deref(), &rec.start));
        if f != end {
            rec.set_tag(CURRENT_FEN_TAG, &f);
        }
    }
    Ok(rec)
}

/// The value of a known key of a move entry, if the record has one.
fn move_value(key: &str, m: &RecordMove, data: &str, fen: &str) -> Option<Json> {
    Some(match key {
        "type" => Json::Str("move".into()),
        "data" => Json::Str(data.to_string()),
        "fen" => Json::Str(fen.to_string()),
        "engineScore" => Json::number(m.engine_score?),
        "engineTime" => Json::Int(i128::from(m.engine_time?)),
        "engineDepth" => Json::Int(i128::from(m.engine_depth?)),
        "comment" => Json::Str(m.comment.clone()?),
        "annotation" => Json::Str(m.annotation.clone()?),
        _ => return None,
    })
}

fn adjust_value(key: &str, a: &Adjustment) -> Option<Json> {
    Some(match key {
        "type" => Json::Str("adjust".into()),
        "data" => Json::Str(a.data.clone()),
        "fen" => Json::Str(a.fen.clone()),
        "comment" => Json::Str(a.comment.clone()?),
        _ => return None,
    })
}

/// An object from the keys read (known ones filled by `value`, others raw), then the
/// known keys not read, in `order`.
fn object(keys: &JsonKeys, order: &[&str], value: impl Fn(&str) -> Option<Json>) -> Json {
    let mut out: Vec<(String, Json)> = Vec::new();
    for (k, raw) in keys {
        let v = match raw {
            // A value we have a field for, changed since reading, wins over the raw text.
            Some(r) => value(k).or_else(|| Json::parse(r).ok()),
            None => value(k),
        };
        if let Some(v) = v {
            out.push((k.clone(), v));
        }
    }
    for k in order {
        if !keys.iter().any(|(key, _)| key == k)
            && let Some(v) = value(k)
        {
            out.push((k.to_string(), v));
        }
    }
    Json::Object(out)
}

/// Writes a record as JieqiBox JSON (6-field FENs, `flipMode` `random` unless the
/// record says otherwise). A record read from JieqiBox JSON and not changed is written
/// back byte for byte (see `docs/records.md` for the exceptions).
pub fn write(rec: &Record) -> String {
    let initial_fen = fen_to_write(rec.start_fen.as_deref(), &rec.start);
    let mut entries = Vec::new();
    let mut last_fen = initial_fen.clone();
    let mut pos = rec.start.clone();
    for i in 0..=rec.moves.len() {
        for a in rec.adjustments_at(i) {
            pos = a.position.clone();
            last_fen = a.fen.clone();
            entries.push(object(&a.json_keys, &ADJUST_ORDER, |k| adjust_value(k, a)));
        }
        let Some(m) = rec.moves.get(i) else { break };
        let rv = rec.effective_reveals(&pos, m);
        let ours = UciMove::from_move(&pos, m.mv, rv).to_string();
        let data = m
            .json_keys
            .iter()
            .find(|(k, _)| k == "data")
            .and_then(|(_, raw)| raw.as_deref())
            .and_then(|r| Json::parse(r).ok())
            .and_then(|v| v.as_str().map(str::to_string))
            .filter(|d| {
                parse_iccs(d)
                    .ok()
                    .and_then(|u| resolve_iccs(&u, &pos).ok())
                    .is_some_and(|(mv, _)| mv == m.mv)
            })
            .unwrap_or(ours);
        pos.play_unchecked(m.mv, rv);
        let fen = fen_to_write(m.fen.as_deref(), &pos);
        last_fen = fen.clone();
        let mut keys = m.json_keys.clone();
        // The data kept raw is used above only while it still names the move.
        for (k, raw) in &mut keys {
            if k == "data" {
                *raw = None;
            }
        }
        entries.push(object(&keys, &MOVE_ORDER, |k| {
            move_value(k, m, &data, &fen)
        }));
    }
    let tag = |k: &str| rec.tag(k).map(|v| Json::Str(v.to_string()));
    let from_json = !rec.json_layout.metadata.is_empty();
    let meta_value = |key: &str| -> Option<Json> {
        if let Some((_, t)) = META_TAGS.iter().find(|(m, _)| *m == key) {
            return match (key, tag(t)) {
                ("flipMode", None) if !from_json => Some(Json::Str("random".into())),
                (_, v) => v,
            };
        }
        let read = rec.json_layout.metadata.iter().find(|(k, _)| k == key);
        let listed = read.is_some();
        if read.is_some_and(|(_, raw)| raw.is_some()) && key != "openingComment" {
            // Read as something we keep raw (not a string, an empty initialFen): as read.
            return None;
        }
        match key {
            "result" if listed || !from_json || rec.result != "*" => {
                Some(Json::Str(rec.result.clone()))
            }
            "initialFen" if listed || !from_json || !rec.standard_start() => {
                Some(Json::Str(initial_fen.clone()))
            }
            "currentFen" if listed || !from_json => {
                Some(tag(CURRENT_FEN_TAG).unwrap_or_else(|| Json::Str(last_fen.clone())))
            }
            "openingComment" => rec.opening_comment.clone().map(Json::Str),
            _ => None,
        }
    };
    let metadata = object(&rec.json_layout.metadata, &META_ORDER, meta_value);
    let mut metadata = Some(metadata);
    let mut entries = Some(Json::Array(entries));
    let top_value = |key: &str, metadata: &mut Option<Json>, entries: &mut Option<Json>| match key {
        "metadata" => metadata.take(),
        "moves" => entries.take(),
        _ => None,
    };
    let mut top: Vec<(String, Json)> = Vec::new();
    for (k, raw) in &rec.json_layout.top {
        let v = match raw {
            Some(r) => Json::parse(r).ok(),
            None => top_value(k, &mut metadata, &mut entries),
        };
        if let Some(v) = v {
            top.push((k.clone(), v));
        }
    }
    for k in ["metadata", "moves"] {
        if let Some(v) = top_value(k, &mut metadata, &mut entries) {
            top.push((k.to_string(), v));
        }
    }
    let mut text = Json::Object(top).to_text(rec.json_layout.compact);
    text.push_str(&rec.json_layout.trailing);
    text
}
