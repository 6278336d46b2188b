//! What a client is told, built only from that client's [`View`] of the game.
//!
//! The server keeps, for each kind of viewer (Red, Black, spectator), the position as
//! that viewer knows it, advanced with the reveals [`View::reveals`] allows it. Every
//! identity in a message comes from those positions or those reveals, never from the
//! deal directly (the deal goes out only in [`EndOut`], once the game is over).

use jieqi_core::game::{Judge, Ply};
use jieqi_core::notation::{Notation, Script, write_move};
use jieqi_core::{
    ByColor, Color, Game, Material, Move, MoveList, Outcome, Piece, Position, Role, UciMove, Viewer,
};
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

/// The three kinds of viewer the server serves.
pub const VIEWERS: [Viewer; 3] = [Viewer::RED, Viewer::BLACK, Viewer::Spectator];

/// Index of a served viewer in [`VIEWERS`].
pub fn viewer_index(v: Viewer) -> usize {
    match v {
        Viewer::Player(Color::Red) => 0,
        Viewer::Player(Color::Black) => 1,
        _ => 2,
    }
}

/// The name of a viewer in messages (`you`).
pub fn viewer_name(v: Viewer) -> &'static str {
    match v {
        Viewer::Player(c) => c.name(),
        _ => "spectator",
    }
}

/// When and with how much time a ply was played.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PlyMeta {
    /// Accepted at (Unix ms).
    pub at_ms: u64,
    /// The mover's game time left after it.
    pub clock_ms: Option<u64>,
}

/// One ply as a receiver may see it.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct PlyOut {
    /// Ply number (1 = Red's first move).
    pub n: usize,
    /// Mover.
    pub color: &'static str,
    /// Move with the suffix letters this receiver may see.
    pub uci: String,
    /// Origin.
    pub from: String,
    /// Destination.
    pub to: String,
    /// The identity a face-down mover revealed (public).
    pub reveal: Option<String>,
    /// What was taken, as this receiver knows it.
    pub captured: Option<String>,
    /// Gives check.
    pub check: bool,
    /// Chinese notation (as this receiver may see the move).
    pub zh: Option<String>,
    /// WXF notation (as this receiver may see the move: `=X` reveal, `xX` captured).
    pub wxf: Option<String>,
    /// Mover's game time left.
    pub clock_ms: Option<u64>,
    /// When.
    pub at_ms: u64,
}

fn letter(color: Color, role: Role) -> String {
    Piece::Up(color, role).fen_char().to_string()
}

/// The ply `ply` (number `n`) as a receiver whose position before it was `before`
/// sees it, with `captured` the identity of a captured face-down piece if that
/// receiver may know it.
pub fn ply_out(
    before: &Position,
    ply: &Ply,
    captured: Option<Role>,
    n: usize,
    meta: PlyMeta,
) -> PlyOut {
    let rv = jieqi_core::Reveals {
        mover: ply.reveals.mover,
        captured,
    };
    let them = !ply.color;
    // A face-down piece taken whose identity this receiver may not know: the capture
    // itself is public, so the notation says so with 「吃暗」 (WXF `x?`).
    let hidden_capture = ply.captured == Some(None) && captured.is_none();
    let captured = match ply.captured {
        None => None,
        Some(Some(role)) => Some(letter(them, role)),
        Some(None) => Some(match captured {
            Some(role) => letter(them, role),
            None => Piece::Down(them).fen_char().to_string(),
        }),
    };
    PlyOut {
        n,
        color: ply.color.name(),
        uci: UciMove::from_move(before, ply.mv, rv).to_string(),
        from: ply.mv.from.to_string(),
        to: ply.mv.to.to_string(),
        reveal: ply.reveals.mover.map(|r| letter(ply.color, r)),
        captured,
        check: ply.check,
        zh: Some(
            write_move(before, ply.mv, rv, Notation::Chinese(Script::Simplified))
                + if hidden_capture { "吃暗" } else { "" },
        ),
        wxf: Some(
            write_move(before, ply.mv, rv, Notation::Wxf) + if hidden_capture { "x?" } else { "" },
        ),
        clock_ms: meta.clock_ms,
        at_ms: meta.at_ms,
    }
}

/// Every ply of `game` as `viewer` may see it.
pub fn plies_for(game: &Game, viewer: Viewer, metas: &[PlyMeta]) -> Vec<PlyOut> {
    let view = game.view(viewer);
    let mut pos = game.start().clone();
    game.plies()
        .iter()
        .enumerate()
        .map(|(i, ply)| {
            let rv = view.reveals(ply);
            let meta = metas.get(i).copied().unwrap_or(PlyMeta {
                at_ms: 0,
                clock_ms: None,
            });
            let out = ply_out(&pos, ply, rv.captured, i + 1, meta);
            pos.play_unchecked(ply.mv, rv);
            out
        })
        .collect()
}

/// Pools (and known captured identities) as a receiver knows them.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct PoolsOut {
    /// Red's unplaced identities.
    pub red: Counts,
    /// Black's.
    pub black: Counts,
    /// Captured face-down pieces whose identity the receiver knows.
    pub known_captured: ByColorOut<Counts>,
}

/// A per-colour pair with `red`/`black` keys.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ByColorOut<T> {
    /// Red's.
    pub red: T,
    /// Black's.
    pub black: T,
}

/// One colour's identity counts of a [`Material`], written as the JSON object
/// `{"A": 2, "R": 1, …}` (upper-case letters, zero counts omitted) straight from the
/// material, without building a map.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Counts {
    material: Material,
    color: Color,
}

impl Counts {
    /// The counts of `color` in `material`.
    pub fn of(material: &Material, color: Color) -> Counts {
        Counts {
            material: *material,
            color,
        }
    }

    /// The count for an upper-case role letter, `None` when zero (absent in JSON).
    pub fn get(&self, letter: char) -> Option<u8> {
        let role = Role::HIDDEN.iter().find(|r| r.upper_char() == letter)?;
        Some(self.material.get(self.color, *role)).filter(|&n| n > 0)
    }

    /// Whether every count is zero (`{}`).
    pub fn is_empty(&self) -> bool {
        Role::HIDDEN
            .iter()
            .all(|&r| self.material.get(self.color, r) == 0)
    }
}

impl Serialize for Counts {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        for &r in Role::HIDDEN.iter() {
            let n = self.material.get(self.color, r);
            if n > 0 {
                map.serialize_entry(&r.upper_char(), &n)?;
            }
        }
        map.end()
    }
}

/// The pools of a receiver's position.
pub fn pools_out(pos: &Position) -> PoolsOut {
    PoolsOut {
        red: Counts::of(pos.pool(), Color::Red),
        black: Counts::of(pos.pool(), Color::Black),
        known_captured: ByColorOut {
            red: Counts::of(pos.captured(), Color::Red),
            black: Counts::of(pos.captured(), Color::Black),
        },
    }
}

/// A list of moves written as a JSON array of plain coordinate strings (`"h2e2"`),
/// straight from the move list, without a string per move.
#[derive(Clone, Default)]
pub struct LegalOut(Option<MoveList>);

impl LegalOut {
    /// No moves (`[]`).
    pub fn none() -> LegalOut {
        LegalOut(None)
    }

    /// The legal moves of `pos`.
    pub fn of(pos: &Position) -> LegalOut {
        LegalOut(Some(pos.legal_moves()))
    }

    /// The moves.
    pub fn moves(&self) -> &[Move] {
        self.0.as_ref().map_or(&[], |l| l.as_slice())
    }
}

/// A move's four coordinate characters.
struct MoveText([u8; 4]);

impl MoveText {
    fn of(m: Move) -> MoveText {
        let sq = |s: jieqi_core::Square| [s.file().char() as u8, s.rank().char() as u8];
        let [a, b] = sq(m.from);
        let [c, d] = sq(m.to);
        MoveText([a, b, c, d])
    }
}

impl Serialize for MoveText {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(std::str::from_utf8(&self.0).unwrap_or("????"))
    }
}

impl Serialize for LegalOut {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.moves().iter().map(|&m| MoveText::of(m)))
    }
}

impl std::fmt::Debug for LegalOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.moves()).finish()
    }
}

/// The end of the game: public to everyone.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct EndOut {
    /// `1-0`, `0-1`, `1/2-1/2`, or `*` for an aborted game.
    pub result: &'static str,
    /// Winner.
    pub winner: Option<&'static str>,
    /// Reason code.
    pub reason: &'static str,
    /// Sentence.
    pub text: String,
    /// The deal.
    pub deal: String,
    /// The salt.
    pub salt: String,
    /// The commitment published at creation.
    pub commitment: String,
    /// Whether deal + salt match the commitment.
    pub commitment_ok: bool,
    /// Every move with every suffix letter.
    pub moves: Vec<String>,
    /// Whether the deal, the salt and the moves are held back: a tournament game whose
    /// deal is still in play on another board (duplicate deals) keeps them until the
    /// event publishes the round's deal.
    pub withheld: bool,
}

impl EndOut {
    /// This end with the deal, the salt and the fully suffixed moves held back.
    pub fn withhold(mut self) -> EndOut {
        self.deal.clear();
        self.salt.clear();
        self.moves.clear();
        self.commitment_ok = false;
        self.withheld = true;
        self
    }
}

/// The end of an aborted game (result `*`, reason `aborted`). An aborted game is over
/// like any finished one, so its deal is public too; the caller says it was aborted
/// (the referee's game has no outcome, so [`end_out`] would give nothing).
pub fn aborted_end_out(game: &Game, salt: &str, commitment: &str) -> EndOut {
    let deal = game.deal();
    EndOut {
        result: "*",
        winner: None,
        reason: "aborted",
        text: "Game aborted".to_string(),
        deal: deal.to_string(),
        salt: salt.to_string(),
        commitment: commitment.to_string(),
        commitment_ok: deal.verify_commitment(salt, commitment),
        moves: game
            .view(Viewer::Referee)
            .moves()
            .iter()
            .map(ToString::to_string)
            .collect(),
        withheld: false,
    }
}

/// The end of a finished game; `None` while it runs (so the deal cannot escape early).
pub fn end_out(game: &Game, salt: &str, commitment: &str) -> Option<EndOut> {
    let outcome = game.outcome()?;
    // A spectator's view exposes the deal only once the game is over.
    let deal = game.view(Viewer::Spectator).deal()?;
    Some(EndOut {
        result: outcome.result_str(),
        winner: outcome.winner().map(Color::name),
        reason: outcome.reason().name(),
        text: outcome_text(outcome),
        deal: deal.to_string(),
        salt: salt.to_string(),
        commitment: commitment.to_string(),
        commitment_ok: deal.verify_commitment(salt, commitment),
        moves: game
            .view(Viewer::Referee)
            .moves()
            .iter()
            .map(ToString::to_string)
            .collect(),
        withheld: false,
    })
}

/// "Red wins by checkmate".
pub fn outcome_text(o: Outcome) -> String {
    let s = o.to_string();
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => s,
    }
}

/// The three viewers' positions, kept move by move, each with the game judged on that
/// viewer's positions (what an engine playing that side uses for repetitions and the
/// perpetual rules: the referee's judge with the viewer's repetition keys).
#[derive(Clone, Debug)]
pub struct ViewerPositions(pub [Position; 3], pub [Judge; 3]);

impl ViewerPositions {
    /// The current positions of `game` for each served viewer.
    pub fn of(game: &Game) -> ViewerPositions {
        let n = game.plies().len();
        ViewerPositions(
            VIEWERS.map(|v| game.view(v).position()),
            VIEWERS.map(|v| {
                let view = game.view(v);
                let mut judge = Judge::new(*game.rules(), &view.position_after(0));
                for i in 1..=n {
                    judge.push_seen(&view.position_after(i), game.judge());
                }
                judge
            }),
        )
    }

    /// The game judged on `v`'s positions, up to its current one.
    pub fn history(&self, v: Viewer) -> &Judge {
        &self.1[viewer_index(v)]
    }

    /// The position of `v`.
    pub fn get(&self, v: Viewer) -> &Position {
        &self.0[viewer_index(v)]
    }

    /// Advances every viewer by the game's last ply; returns each viewer's [`PlyOut`].
    pub fn advance(&mut self, game: &Game, meta: PlyMeta) -> [PlyOut; 3] {
        let n = game.plies().len();
        let ply = game.plies().last().expect("a ply was just played");
        let mut outs: Vec<PlyOut> = Vec::with_capacity(3);
        let mut seen: Vec<(jieqi_core::Reveals, usize)> = Vec::with_capacity(3);
        for (i, v) in VIEWERS.iter().enumerate() {
            let rv = game.view(*v).reveals(ply);
            // The boards of all viewers are the same (only pools and captured
            // identities differ), so a viewer with the same reveals as an earlier one
            // sees the same ply: write its notations once.
            let same = seen
                .iter()
                .find(|(r, j)| *r == rv && self.0[*j].board() == self.0[i].board())
                .map(|&(_, j)| j);
            let out = match same {
                Some(j) => outs[j].clone(),
                None => ply_out(&self.0[i], ply, rv.captured, n, meta),
            };
            outs.push(out);
            seen.push((rv, i));
            self.0[i].play_unchecked(ply.mv, rv);
            // The viewers' boards are the referee's: only the repetition key differs.
            self.1[i].push_seen(&self.0[i], game.judge());
        }
        let [a, b, c]: [PlyOut; 3] = outs.try_into().expect("three viewers");
        [a, b, c]
    }
}

/// Per-seat presence line.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct SeatOut {
    /// `human` / `engine`.
    pub kind: &'static str,
    /// Engine level.
    pub level: Option<u8>,
    /// The account's user name; `null` for a guest (shown as "Anonymous") or an
    /// engine.
    pub name: Option<String>,
    /// Ever joined.
    pub joined: bool,
    /// Connected now.
    pub connected: bool,
    /// Absent for how long.
    pub away_ms: Option<u64>,
}

/// Convenience: a `ByColor` as a JSON pair.
pub fn pair<T: Clone>(b: &ByColor<T>) -> ByColorOut<T> {
    ByColorOut {
        red: b.red.clone(),
        black: b.black.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jieqi_core::{Deal, RuleSet};

    /// A spectator must not see the identity of a captured face-down piece under the
    /// default rule, the capturer must.
    #[test]
    fn captured_identity_reaches_only_the_capturer() {
        let deal = Deal::standard();
        let mut g = Game::new(deal, RuleSet::STANDARD);
        let mut vp = ViewerPositions::of(&g);
        let meta = PlyMeta {
            at_ms: 1,
            clock_ms: None,
        };
        // Red's face-down cannon from b2 takes black's face-down horse on b9.
        g.play_uci("b2b9").unwrap();
        let [red, black, spec] = vp.advance(&g, meta);
        assert_eq!(red.uci, "b2b9Cn");
        assert!(
            red.zh.as_deref().unwrap().starts_with("炮八进七"),
            "{:?}",
            red.zh
        );
        assert_eq!(red.captured.as_deref(), Some("n"));
        assert_eq!(red.wxf.as_deref(), Some("C8+7=CxH"));
        // Black sees that a face-down piece was taken, not which.
        assert_eq!(black.wxf.as_deref(), Some("C8+7=Cx?"));
        assert!(
            black.zh.as_deref().unwrap().ends_with("吃暗"),
            "{:?}",
            black.zh
        );
        assert_eq!(black.uci, "b2b9C");
        assert_eq!(black.captured.as_deref(), Some("x"));
        assert_eq!(spec, black);
        assert_eq!(
            pools_out(vp.get(Viewer::RED)).known_captured.black.get('N'),
            Some(1)
        );
        assert!(
            pools_out(vp.get(Viewer::Spectator))
                .known_captured
                .black
                .is_empty()
        );
        assert_eq!(pools_out(vp.get(Viewer::Spectator)).black.get('N'), Some(2));
        for v in VIEWERS {
            assert_eq!(vp.get(v).fen(), g.view(v).fen());
            assert_eq!(plies_for(&g, v, &[meta])[0].uci, vp_uci(v));
        }
        assert!(end_out(&g, "s", "c").is_none());
        // The histories kept ply by ply are those built from the whole game, per viewer
        // (their keys differ: Red knows the captured horse).
        for uci in ["a6a5", "a3a4"] {
            g.play_uci(uci).unwrap();
            vp.advance(&g, meta);
        }
        let whole = ViewerPositions::of(&g);
        for v in VIEWERS {
            assert_eq!(vp.history(v), whole.history(v));
        }
        assert_ne!(vp.history(Viewer::RED), vp.history(Viewer::Spectator));
        fn vp_uci(v: Viewer) -> &'static str {
            if v == Viewer::RED { "b2b9Cn" } else { "b2b9C" }
        }
    }
}
