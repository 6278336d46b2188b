//! The compact JSON record for the web layer, redacted per viewer (RULES.md §4): a
//! player or spectator gets exactly what it may know — every reveal of a mover (public),
//! the identity of a captured face-down piece only under the `captured_identity` rule
//! (the capturer, nobody or everyone; the referee always), pools computed from that
//! knowledge, and the deal (with its salt) only for the referee or once the game is
//! over. The commitment is public.
//!
//! ```json
//! {"v":1,"viewer":"red","tags":[["Event","…"]],"rules":"standard",
//!  "capturedIdentity":"capturer","start":"<FEN>","moves":[{"uci":"c3c4B","zh":"兵七进一相"}],
//!  "fen":"<FEN now, as the viewer knows it>","result":"*","dealCommitment":"sha256:…"}
//! ```

use serde::{Deserialize, Serialize};

use super::{ReadRecordError, Record, RecordMove, advance};
use crate::notation::{ChineseMove, Script, parse_iccs, resolve_iccs};
use crate::view::CapturedIdentity;
use crate::{Color, Deal, Outcome, Position, Reveals, RuleSet, UciMove, View, Viewer};

/// The compact web record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebRecord {
    /// Format version (1).
    pub v: u32,
    /// Whom this copy is for: `red`, `black`, `spectator` or `referee`.
    pub viewer: String,
    /// Descriptive tags, in order.
    #[serde(default)]
    pub tags: Vec<(String, String)>,
    /// The rule set's name.
    pub rules: String,
    /// Who learns captured face-down identities.
    pub captured_identity: String,
    /// The starting FEN.
    pub start: String,
    /// The moves as this viewer may see them.
    pub moves: Vec<WebMove>,
    /// The position after the last move, as this viewer knows it.
    pub fen: String,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// The deal, only if this viewer may know it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deal: Option<String>,
    /// The public commitment to the deal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deal_commitment: Option<String>,
    /// The commitment's salt, only with the deal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deal_salt: Option<String>,
}

/// One move of a [`WebRecord`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WebMove {
    /// Coordinates with the suffix letters this viewer may see.
    pub uci: String,
    /// Chinese notation with the same knowledge.
    pub zh: String,
    /// Whether the move gives check.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub check: bool,
    /// Comment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// Clock after the move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
}

/// The viewer's name in the JSON.
pub fn viewer_name(v: Viewer) -> &'static str {
    match v {
        Viewer::Player(Color::Red) => "red",
        Viewer::Player(Color::Black) => "black",
        Viewer::Spectator => "spectator",
        Viewer::Referee => "referee",
    }
}

/// Parses `red`, `black`, `spectator`, `referee`.
pub fn parse_viewer(s: &str) -> Option<Viewer> {
    match s.to_ascii_lowercase().as_str() {
        "red" => Some(Viewer::RED),
        "black" => Some(Viewer::BLACK),
        "spectator" => Some(Viewer::Spectator),
        "referee" => Some(Viewer::Referee),
        _ => None,
    }
}

/// Whether `viewer` learns the identity of a face-down piece captured by `capturer`
/// (the same rule as [`View::knows_capture`]).
pub fn knows_capture(viewer: Viewer, rule: CapturedIdentity, capturer: Color) -> bool {
    match (viewer, rule) {
        (Viewer::Referee, _) | (_, CapturedIdentity::Everyone) => true,
        (_, CapturedIdentity::Nobody) | (Viewer::Spectator, _) => false,
        (Viewer::Player(c), CapturedIdentity::Capturer) => c == capturer,
    }
}

/// Builds a move list from positions and the reveals one viewer may see.
fn web_moves<'a>(
    start: &Position,
    moves: impl Iterator<Item = (crate::Move, Reveals, Option<&'a RecordMove>)>,
) -> (Vec<WebMove>, Position) {
    let mut pos = start.clone();
    let mut out = Vec::new();
    for (m, rv, rm) in moves {
        let uci = UciMove::from_move(&pos, m, rv).to_string();
        let zh = ChineseMove::from_move(&pos, m, rv).to_text(Script::Simplified);
        pos.play_unchecked(m, rv);
        out.push(WebMove {
            uci,
            zh,
            check: pos.is_check(),
            comment: rm.and_then(|r| r.comment.clone()),
            clock: rm.and_then(|r| r.clock.clone()),
        });
    }
    (out, pos)
}

impl WebRecord {
    /// The copy of a record that `viewer` may see. The record is taken as the
    /// referee's (identities it lacks are filled from its deal, if it has one).
    pub fn from_record(rec: &Record, viewer: Viewer) -> WebRecord {
        let rule = rec.rules.captured_identity;
        let mut pos = rec.start.clone();
        let mut seen = Vec::new();
        for m in &rec.moves {
            let full = rec.effective_reveals(&pos, m);
            let rv = Reveals {
                mover: full.mover,
                captured: full
                    .captured
                    .filter(|_| knows_capture(viewer, rule, pos.turn())),
            };
            seen.push((m.mv, rv, Some(m)));
            pos.play_unchecked(m.mv, full);
        }
        let (moves, now) = web_moves(&rec.start, seen.into_iter());
        let deal_visible = viewer == Viewer::Referee || rec.result != "*";
        WebRecord {
            v: 1,
            viewer: viewer_name(viewer).into(),
            tags: rec.tags.clone(),
            rules: rec.rules.name.into(),
            captured_identity: rule.name().into(),
            start: rec.start.fen(),
            moves,
            fen: now.fen(),
            result: rec.result.clone(),
            deal: rec.deal.filter(|_| deal_visible).map(|d| d.to_string()),
            deal_commitment: rec.deal_commitment.clone(),
            deal_salt: rec
                .deal_salt
                .clone()
                .filter(|_| deal_visible && rec.deal.is_some()),
        }
    }

    /// The copy of a live game for the viewer of `view`, built only from what the view
    /// discloses.
    pub fn from_view(
        view: &View<'_>,
        rules: &RuleSet,
        outcome: Option<Outcome>,
        deal_commitment: Option<&str>,
        tags: &[(String, String)],
    ) -> WebRecord {
        let start = Position::from_fen(&view.start_fen()).expect("a view's start FEN is legal");
        let mut pos = start.clone();
        let mut seen = Vec::new();
        for u in view.moves() {
            let (m, rv) = resolve_iccs(&u, &pos).expect("a view's moves replay");
            seen.push((m, rv, None));
            pos.play_unchecked(m, rv);
        }
        let (moves, _) = web_moves(&start, seen.into_iter());
        WebRecord {
            v: 1,
            viewer: viewer_name(view.viewer()).into(),
            tags: tags.to_vec(),
            rules: rules.name.into(),
            captured_identity: rules.captured_identity.name().into(),
            start: start.fen(),
            moves,
            fen: view.fen(),
            result: outcome.map_or("*", |o| o.result_str()).into(),
            deal: view.deal().map(Deal::to_string),
            deal_commitment: deal_commitment.map(str::to_string),
            deal_salt: None,
        }
    }

    /// The JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a web record always serializes")
    }

    /// Turns the web record back into a record (what its viewer knows).
    pub fn to_record(&self) -> Result<Record, ReadRecordError> {
        let tag = |t: &str, why: String| ReadRecordError::Tag { tag: t.into(), why };
        let mut rec = Record::new();
        rec.tags = self.tags.clone();
        rec.start = Position::from_fen(&self.start).map_err(|e| tag("start", e.to_string()))?;
        rec.rules = RuleSet::by_name(&self.rules)
            .ok_or_else(|| tag("rules", format!("{:?} is not a rule set", self.rules)))?;
        rec.rules.captured_identity = CapturedIdentity::parse(&self.captured_identity)
            .ok_or_else(|| tag("capturedIdentity", format!("{:?}", self.captured_identity)))?;
        rec.result = self.result.clone();
        rec.deal = match &self.deal {
            Some(d) => Some(Deal::parse(d).map_err(|e| tag("deal", e.to_string()))?),
            None => None,
        };
        rec.deal_commitment = self.deal_commitment.clone();
        rec.deal_salt = self.deal_salt.clone();
        let mut pos = rec.start.clone();
        for (i, wm) in self.moves.iter().enumerate() {
            let bad = |why: String| ReadRecordError::Move {
                ply: i + 1,
                text: wm.uci.clone(),
                why,
            };
            let u = parse_iccs(&wm.uci).map_err(|e| bad(e.to_string()))?;
            let (m, rv) = resolve_iccs(&u, &pos).map_err(|e| bad(e.to_string()))?;
            advance(&mut pos, rec.deal.as_ref(), m, rv);
            let mut rm = RecordMove::new(m, rv);
            rm.comment = wm.comment.clone();
            rm.clock = wm.clock.clone();
            rec.moves.push(rm);
        }
        Ok(rec)
    }
}

/// Reads a web record's JSON into a record.
pub fn read(text: &str) -> Result<Record, ReadRecordError> {
    let w: WebRecord = serde_json::from_str(text).map_err(|e| ReadRecordError::Syntax {
        line: e.line(),
        why: format!("not a jieqi web record: {e}"),
    })?;
    w.to_record()
}

/// Writes the copy of a record that `viewer` may see, as JSON.
pub fn write(rec: &Record, viewer: Viewer) -> String {
    WebRecord::from_record(rec, viewer).to_json()
}
