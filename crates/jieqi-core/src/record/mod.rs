//! Game records (棋谱): one model, [`Record`], read from and written to PGN in the
//! xiangqi-PGN style ([`pgn`]), JieqiBox's JSON ([`jieqibox`]) and a compact JSON for
//! the web with per-viewer redaction ([`web`]); and their verification ([`verify`]).
//!
//! A record keeps, for every move, what it revealed: the identity of a face-down mover
//! and, when the record's owner knows it, the identity of a captured face-down piece.
//! With a deal (`[Deal]`) missing identities are filled from it; without one the
//! record must carry them, so that replay (打谱) needs nothing else.
//!
//! ```
//! use jieqi_core::record::pgn;
//!
//! let text = "[Deal \"RNBAARNPCCPBPPP/rnbaabnrcpppcpp\"]\n1. 假兵七进一现相 假卒5进1现炮 *";
//! let rec = pgn::read(text).unwrap();
//! let report = rec.verify().unwrap();
//! assert!(report.deal_checked);
//! assert!(rec.final_position().is_check());
//! ```

pub mod jieqibox;
mod json;
pub mod pgn;
pub mod verify;
pub mod web;

pub use verify::{VerifyError, VerifyReason, VerifyReport};

use crate::notation::{Notation, Script, read_move, write_move};
use crate::{Deal, Game, Move, Outcome, Position, Reveals, RuleSet};

/// One move of a record, with what it revealed and what was said about it.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordMove {
    /// The move.
    pub mv: Move,
    /// What it revealed, as the record states it (missing identities are filled from
    /// the deal on replay).
    pub reveals: Reveals,
    /// A comment after the move (clock annotations taken out).
    pub comment: Option<String>,
    /// The clock after the move, from `{[%clk 0:09:58]}`.
    pub clock: Option<String>,
    /// A move-quality mark (`!`, `?!`, …) or a PGN NAG (`$1`).
    pub annotation: Option<String>,
    /// An engine's score for the move (JieqiBox `engineScore`).
    pub engine_score: Option<f64>,
    /// An engine's thinking time in milliseconds (JieqiBox `engineTime`).
    pub engine_time: Option<u64>,
    /// The depth of the engine's search behind `engine_score` (JieqiBox `engineDepth`).
    pub engine_depth: Option<u32>,
    /// The FEN after the move as the source wrote it (JieqiBox `fen`, PGN `[%fen …]`),
    /// kept so that it is written back unchanged while it still fits the move.
    pub fen: Option<String>,
    /// How the source laid out this move's JSON entry ([`JsonKeys`]); empty if not read
    /// from JSON.
    pub json_keys: JsonKeys,
    /// Alternative lines replacing this move, each from the position before it.
    pub variations: Vec<Vec<RecordMove>>,
}

/// The keys of a JSON object as read, in order, each with the raw JSON text of its value
/// when the record has no field that holds it exactly (a key JieqiBox added that we do
/// not model, a number that is not an integer, an empty string). Writing follows this
/// order, so that a file read and written unchanged comes out byte for byte.
pub type JsonKeys = Vec<(String, Option<String>)>;

/// A board or pool edit in the main line (JieqiBox `adjust` entry, PGN
/// `{[%adjust "DATA" FEN]}`): play continues from `position`, as after a `[FEN]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Adjustment {
    /// How many main-line moves come before it.
    pub at: usize,
    /// What was edited, as JieqiBox writes it (`captured_p+`, `P-`, `position_edit:…`).
    pub data: String,
    /// The FEN after the edit, as written.
    pub fen: String,
    /// The position after the edit.
    pub position: Position,
    /// A comment on the edit.
    pub comment: Option<String>,
    /// How the source laid out its JSON entry.
    pub json_keys: JsonKeys,
}

/// How a JieqiBox JSON file was laid out, so that writing it back changes nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JsonLayout {
    /// The top-level keys (`metadata`, `moves` and any other, kept raw).
    pub top: JsonKeys,
    /// The keys of `metadata`.
    pub metadata: JsonKeys,
    /// Written on one line (no indentation) rather than indented by two spaces.
    pub compact: bool,
    /// Whitespace after the closing brace.
    pub trailing: String,
}

impl RecordMove {
    /// A bare move with its reveals.
    pub fn new(mv: Move, reveals: Reveals) -> RecordMove {
        RecordMove {
            mv,
            reveals,
            comment: None,
            clock: None,
            annotation: None,
            engine_score: None,
            engine_time: None,
            engine_depth: None,
            fen: None,
            json_keys: Vec::new(),
            variations: Vec::new(),
        }
    }
}

/// A game record.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// Descriptive tags in order (Event, Site, Date, Round, Red, Black, TimeControl,
    /// Termination, and any other); the typed fields below are not repeated here.
    pub tags: Vec<(String, String)>,
    /// The public starting position (the `[FEN]` tag; the Jieqi start if absent).
    pub start: Position,
    /// The deal, once known (`[Deal]`).
    pub deal: Option<Deal>,
    /// The commitment to the deal published before play (`[DealCommitment]`).
    pub deal_commitment: Option<String>,
    /// The salt of the commitment, published with the deal (`[DealSalt]`).
    pub deal_salt: Option<String>,
    /// The rules played under (`[RuleSet]`, `[CapturedIdentity]`).
    pub rules: RuleSet,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// A comment before the first move.
    pub opening_comment: Option<String>,
    /// The main line.
    pub moves: Vec<RecordMove>,
    /// The start position's FEN as the source wrote it (`[FEN]`, JieqiBox `initialFen`),
    /// kept so that it is written back unchanged.
    pub start_fen: Option<String>,
    /// Board and pool edits in the main line, in order of [`Adjustment::at`].
    pub adjustments: Vec<Adjustment>,
    /// The layout of the JieqiBox file the record was read from.
    pub json_layout: JsonLayout,
}

/// Why a record could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadRecordError {
    /// Malformed syntax (a tag, a comment, brackets, JSON).
    #[error("line {line}: {why}")]
    Syntax {
        /// 1-based line (0 if unknown).
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// A tag value that cannot be used.
    #[error("tag [{tag}]: {why}")]
    Tag {
        /// The tag name.
        tag: String,
        /// What is wrong.
        why: String,
    },
    /// A move that cannot be read or played; `ply` counts from 1.
    #[error("ply {ply} ({text}): {why}")]
    Move {
        /// The ply, 1-based.
        ply: usize,
        /// The move as written.
        text: String,
        /// What is wrong.
        why: String,
    },
}

/// The `Game` tag value every record carries.
pub const GAME_TAG: &str = "Jieqi";

impl Record {
    /// An empty record from the Jieqi start, standard rules, result `*`.
    pub fn new() -> Record {
        Record {
            tags: Vec::new(),
            start: Position::start(),
            deal: None,
            deal_commitment: None,
            deal_salt: None,
            rules: RuleSet::STANDARD,
            result: "*".into(),
            opening_comment: None,
            moves: Vec::new(),
            start_fen: None,
            adjustments: Vec::new(),
            json_layout: JsonLayout::default(),
        }
    }

    /// The referee's record of a game: every reveal and captured identity, the deal, and
    /// the result once the game is over.
    pub fn from_game(game: &Game) -> Record {
        let mut r = Record::new();
        r.start = game.start().clone();
        r.rules = *game.rules();
        r.deal = Some(*game.deal());
        r.moves = game
            .plies()
            .iter()
            .map(|p| RecordMove::new(p.mv, p.reveals))
            .collect();
        if let Some(o) = game.outcome() {
            r.set_outcome(o);
        }
        r
    }

    /// Sets the result and the `Termination` tag from an outcome.
    pub fn set_outcome(&mut self, o: Outcome) {
        self.result = o.result_str().to_string();
        self.set_tag("Termination", o.reason().name());
    }

    /// The value of a tag.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Sets a tag (replacing a previous value).
    pub fn set_tag(&mut self, name: &str, value: &str) {
        match self
            .tags
            .iter_mut()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
        {
            Some(t) => t.1 = value.to_string(),
            None => self.tags.push((name.to_string(), value.to_string())),
        }
    }

    /// Whether the start is the Jieqi start position.
    pub fn standard_start(&self) -> bool {
        self.start == Position::start()
    }

    /// The reveals to play a move with: those written, the mover's identity filled from
    /// the deal when missing, and the captured identity filled from the deal when the
    /// record's owner (the referee, if it has the deal) knows it.
    pub fn effective_reveals(&self, pos: &Position, m: &RecordMove) -> Reveals {
        let mut rv = m.reveals;
        if let Some(d) = &self.deal {
            if rv.mover.is_none() && pos.board().is_hidden(m.mv.from) {
                rv.mover = d.identity_at(m.mv.from);
            }
            if rv.captured.is_none() && pos.board().is_hidden(m.mv.to) {
                rv.captured = d.identity_at(m.mv.to);
            }
        }
        rv
    }

    /// The adjustments made after `at` main-line moves, in order.
    pub fn adjustments_at(&self, at: usize) -> impl Iterator<Item = &Adjustment> {
        self.adjustments.iter().filter(move |a| a.at == at)
    }

    /// The position before main-line move `at` (0-based) given the position after the
    /// move before it: the last adjustment made there, if any.
    fn adjusted(&self, at: usize, pos: Position) -> Position {
        match self.adjustments_at(at).last() {
            Some(a) => a.position.clone(),
            None => pos,
        }
    }

    /// The positions of the main line: before the first move, then after each move
    /// (`moves.len() + 1` positions), played without checks (see [`Record::verify`]).
    /// An adjustment replaces the position it follows.
    pub fn positions(&self) -> Vec<Position> {
        let mut pos = self.adjusted(0, self.start.clone());
        let mut out = vec![pos.clone()];
        for (i, m) in self.moves.iter().enumerate() {
            let rv = self.effective_reveals(&pos, m);
            pos.play_unchecked(m.mv, rv);
            pos = self.adjusted(i + 1, pos);
            out.push(pos.clone());
        }
        out
    }

    /// The position after the last move of the main line (and the edits after it).
    pub fn final_position(&self) -> Position {
        self.positions()
            .pop()
            .unwrap_or_else(|| self.adjusted(0, self.start.clone()))
    }

    /// The main line written in a notation, one string per move.
    pub fn move_texts(&self, notation: Notation) -> Vec<String> {
        let positions = self.positions();
        self.moves
            .iter()
            .zip(&positions)
            .map(|(m, pos)| write_move(pos, m.mv, m.reveals, notation))
            .collect()
    }

    /// A game replayed by a referee, when the record has a deal.
    /// A record with board edits has none: a referee's game cannot be edited.
    pub fn game(&self) -> Option<Result<Game, VerifyError>> {
        if !self.adjustments.is_empty() {
            return None;
        }
        self.deal.map(|d| verify::replay_game(self, d))
    }

    /// Checks the record: the deal against its commitment, every move's legality, every
    /// reveal against the deal (or, without a deal, that each face-down mover's identity
    /// is stated and available), and the result against the rules' adjudication.
    ///
    /// A record with board edits ([`Adjustment`]) is checked stretch by stretch: each
    /// stretch from its edited position, without the deal (which an edit voids), and the
    /// result against the last one; plies are counted over the whole main line.
    pub fn verify(&self) -> Result<VerifyReport, VerifyError> {
        if self.adjustments.is_empty() {
            return verify::verify(self);
        }
        let mut cuts: Vec<usize> = self.adjustments.iter().map(|a| a.at).collect();
        cuts.dedup();
        let mut report = VerifyReport {
            plies: 0,
            deal_checked: false,
            commitment_checked: false,
            outcome: None,
        };
        let mut from = 0;
        let mut start = self.start.clone();
        let mut deal = self.deal;
        for end in cuts.into_iter().chain([self.moves.len()]) {
            let mut part = Record::new();
            part.start = start.clone();
            part.rules = self.rules;
            part.deal = deal.take();
            if from == 0 {
                part.deal_commitment = self.deal_commitment.clone();
                part.deal_salt = self.deal_salt.clone();
            }
            part.moves = self.moves[from..end].to_vec();
            if end == self.moves.len() && self.adjustments_at(end).next().is_none() {
                part.result = self.result.clone();
            }
            let r = part.verify().map_err(|e| VerifyError {
                ply: if e.ply == 0 { 0 } else { e.ply + from },
                reason: e.reason,
            })?;
            report.plies += r.plies;
            report.deal_checked |= r.deal_checked;
            report.commitment_checked |= r.commitment_checked;
            report.outcome = r.outcome;
            start = self.adjusted(end, part.final_position());
            from = end;
            if end == self.moves.len() {
                break;
            }
        }
        Ok(report)
    }
}

impl Default for Record {
    fn default() -> Record {
        Record::new()
    }
}

/// Resolves a written move in `pos` (any notation) for reading records.
pub(crate) fn resolve_text(
    pos: &Position,
    text: &str,
    ply: usize,
) -> Result<(Move, Reveals), ReadRecordError> {
    read_move(pos, text).map_err(|e| ReadRecordError::Move {
        ply,
        text: text.to_string(),
        why: match e {
            crate::notation::ReadMoveError::Resolve { error, .. } => error.to_string(),
            other => other.to_string(),
        },
    })
}

/// Plays a move of a record while reading it: written reveals first, then the deal,
/// and a face-down mover with neither is turned up as its start square's kind (only
/// for finding later moves; [`Record::verify`] reports it).
pub(crate) fn advance(pos: &mut Position, deal: Option<&Deal>, m: Move, rv: Reveals) {
    let mut rv = rv;
    if let Some(d) = deal {
        if rv.mover.is_none() && pos.board().is_hidden(m.from) {
            rv.mover = d.identity_at(m.from);
        }
        if rv.captured.is_none() && pos.board().is_hidden(m.to) {
            rv.captured = d.identity_at(m.to);
        }
    }
    pos.play_unchecked(m, rv);
}

/// Simplified Chinese, the default notation for showing moves.
pub const CHINESE: Notation = Notation::Chinese(Script::Simplified);

/// The file formats of records.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// PGN, moves in the given notation.
    Pgn(Notation),
    /// JieqiBox's JSON.
    JieqiBox,
    /// The compact web JSON, redacted for a viewer.
    Web(crate::Viewer),
}

/// Which format a record text is in: JSON with `metadata` is JieqiBox's, other JSON
/// is the web form, anything else PGN.
pub fn detect_format(text: &str) -> Format {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with('{') {
        if t.contains("\"metadata\"") {
            Format::JieqiBox
        } else {
            Format::Web(crate::Viewer::Referee)
        }
    } else {
        Format::Pgn(CHINESE)
    }
}

/// Reads a record in whichever format it is ([`detect_format`]).
pub fn read_any(text: &str) -> Result<Record, ReadRecordError> {
    let t = text.trim_start_matches('\u{feff}');
    match detect_format(t) {
        Format::JieqiBox => jieqibox::read(t),
        Format::Web(_) => web::read(t),
        Format::Pgn(_) => pgn::read(t),
    }
}

/// Writes a record in a format.
pub fn write(rec: &Record, format: Format) -> String {
    match format {
        Format::Pgn(n) => pgn::write(rec, n),
        Format::JieqiBox => jieqibox::write(rec),
        Format::Web(v) => web::write(rec, v),
    }
}
