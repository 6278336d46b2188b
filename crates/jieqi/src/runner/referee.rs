//! The referee: the true game (deal, history, adjudication) and what each side is told.
//!
//! This is the one place the runner asks the rules about a game. It builds on
//! `jieqi_core::Position` and `Deal`; the adjudication of RULES.md §5 lives in
//! [`Adjudicator`] and can be swapped for `jieqi_core::Game` when that lands.

use std::collections::HashMap;

use jieqi_core::{ByColor, Color, Deal, Move, Piece, PlayError, Position, Reveals, Role, UciMove};

use super::outcome::{Outcome, Reason};

/// Who learns the identity of a captured face-down piece (RULES.md §4).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum CapturedIdentity {
    /// Only the capturing side (the default).
    #[default]
    Capturer,
    /// Nobody (the strict tournament rule).
    Nobody,
    /// Both sides.
    Everyone,
}

impl CapturedIdentity {
    /// Whether `receiver` learns the identity of a face-down piece captured by `capturer`.
    pub fn known_to(self, receiver: Color, capturer: Color) -> bool {
        match self {
            CapturedIdentity::Capturer => receiver == capturer,
            CapturedIdentity::Nobody => false,
            CapturedIdentity::Everyone => true,
        }
    }
}

/// The rules the referee applies beyond the fixed ones of RULES.md.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RefereeRules {
    /// Who learns captured face-down identities.
    pub captured_identity: CapturedIdentity,
    /// Plies after which the game is drawn (0: no cap).
    pub ply_cap: u32,
}

impl Default for RefereeRules {
    fn default() -> RefereeRules {
        RefereeRules {
            captured_identity: CapturedIdentity::Capturer,
            ply_cap: 400,
        }
    }
}

/// A captured piece as the game saw it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Capture {
    /// The side that captured.
    pub by: Color,
    /// The piece as it stood (`Piece::Down` if face-down).
    pub piece: Piece,
    /// Its true identity.
    pub identity: Role,
}

/// The true game and each side's knowledge of it.
#[derive(Clone, Debug)]
pub struct Referee {
    deal: Deal,
    rules: RefereeRules,
    truth: Position,
    views: ByColor<Position>,
    start_fen: ByColor<String>,
    start_truth: String,
    told: ByColor<Vec<String>>,
    record: Vec<String>,
    moves: Vec<Move>,
    captures: Vec<Capture>,
    adjudicator: Adjudicator,
    outcome: Option<Outcome>,
}

impl Referee {
    /// A game from the Jieqi start with this deal.
    pub fn new(deal: Deal, rules: RefereeRules) -> Referee {
        Referee::from_position(Position::start(), deal, rules)
    }

    /// A game from `start`, the position as the referee knows it; both sides start
    /// knowing the same (nothing captured face-down is secret at the start).
    pub fn from_position(start: Position, deal: Deal, rules: RefereeRules) -> Referee {
        let fen = start.fen();
        let mut r = Referee {
            deal,
            rules,
            views: ByColor::new_with(|_| start.clone()),
            start_fen: ByColor::new_with(|_| fen.clone()),
            start_truth: fen,
            told: ByColor::new_with(|_| Vec::new()),
            record: Vec::new(),
            moves: Vec::new(),
            captures: Vec::new(),
            adjudicator: Adjudicator::new(&start),
            truth: start,
            outcome: None,
        };
        r.outcome = r.adjudicator.at_start(&r.truth);
        r
    }

    /// The deal.
    pub fn deal(&self) -> &Deal {
        &self.deal
    }

    /// The position as the referee knows it.
    pub fn truth(&self) -> &Position {
        &self.truth
    }

    /// The position as `side` knows it (its pools and the identities it captured).
    pub fn view(&self, side: Color) -> &Position {
        &self.views[side]
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.truth.turn()
    }

    /// The start FEN as the referee knows it.
    pub fn start_fen(&self) -> &str {
        &self.start_truth
    }

    /// The moves with every identity (for records kept by the referee).
    pub fn record(&self) -> &[String] {
        &self.record
    }

    /// The moves as `side` was told them.
    pub fn moves_told(&self, side: Color) -> &[String] {
        &self.told[side]
    }

    /// The plain moves played.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The last move played.
    pub fn last_move(&self) -> Option<Move> {
        self.moves.last().copied()
    }

    /// Every capture so far, in order.
    pub fn captures(&self) -> &[Capture] {
        &self.captures
    }

    /// Whether `viewer` knows the identity of this capture.
    pub fn knows_capture(&self, viewer: Color, c: &Capture) -> bool {
        matches!(c.piece, Piece::Up(..)) || self.rules.captured_identity.known_to(viewer, c.by)
    }

    /// The UCI `position` command for `side`: its start FEN and the moves with the
    /// suffix letters it may see.
    pub fn position_command(&self, side: Color) -> String {
        let mut s = format!("position fen {}", self.start_fen[side]);
        if !self.told[side].is_empty() {
            s.push_str(" moves");
            for m in &self.told[side] {
                s.push(' ');
                s.push_str(m);
            }
        }
        s
    }

    /// The outcome, once the game is over.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// Ends the game from outside the board (time, illegal move, crash, resignation).
    pub fn finish(&mut self, outcome: Outcome) {
        if self.outcome.is_none() {
            self.outcome = Some(outcome);
        }
    }

    /// Plays `m` for the side to move, revealing identities from the deal, telling each
    /// side what it may know, and adjudicating. Fails (changing nothing) if the move is
    /// illegal or the game is over.
    pub fn play(&mut self, m: Move) -> Result<Option<&Outcome>, PlayError> {
        if self.outcome.is_some() {
            return Err(PlayError::Illegal { mv: m });
        }
        let us = self.truth.turn();
        let board = self.truth.board();
        let hidden_from = board.is_hidden(m.from);
        let target = self.truth.piece_at(m.to);
        let rv = Reveals {
            mover: if hidden_from {
                self.deal.identity_at(m.from)
            } else {
                None
            },
            captured: match target {
                Some(Piece::Down(_)) => self.deal.identity_at(m.to),
                _ => None,
            },
        };
        let record = UciMove::from_move(&self.truth, m, rv).to_string();
        self.truth.play(m, rv)?;
        for side in Color::ALL {
            let told = Reveals {
                mover: rv.mover,
                captured: rv
                    .captured
                    .filter(|_| self.rules.captured_identity.known_to(side, us)),
            };
            let view = &mut self.views[side];
            self.told[side].push(UciMove::from_move(view, m, told).to_string());
            view.play_unchecked(m, told);
        }
        if let Some(piece) = target {
            let identity = match piece {
                Piece::Up(_, r) => r,
                Piece::Down(_) => rv.captured.unwrap_or(Role::Pawn),
            };
            self.captures.push(Capture {
                by: us,
                piece,
                identity,
            });
        }
        self.record.push(record);
        self.moves.push(m);
        self.outcome = self.adjudicator.after_move(&self.truth, m, us, &self.rules);
        Ok(self.outcome.as_ref())
    }
}

/// The rules of RULES.md §5 that end a game on the board, plus the ply cap.
///
/// Order after each move: the opponent without a legal move loses (checkmate or
/// stalemate; this wins even on the 80th ply); a perpetual checker loses; a third
/// repetition draws, unless one side has checked with one same non-exempt piece on
/// every one of its moves since the first occurrence (then the game goes on until the
/// perpetual-check rule decides); 80 plies without capture draw; bare kings draw; the
/// ply cap draws. The perpetual-chase rule is off (the `standard` rule set).
#[derive(Clone, Debug)]
pub struct Adjudicator {
    /// A stable identity number per piece on each square (0: empty), moved with it.
    ids: [u8; 90],
    /// Per side: the pieces that gave check after each of its last moves, with the
    /// length of their unbroken run.
    check_runs: ByColor<Vec<(u8, u32)>>,
    /// Hash of every position so far (index = ply).
    history: Vec<u64>,
    /// Occurrences of each hash.
    seen: HashMap<u64, u32>,
}

/// Consecutive checks by one piece after which the checking side loses.
pub const PERPETUAL_CHECKS: u32 = 9;
/// Plies without a capture after which the game is drawn.
pub const NO_CAPTURE_PLIES: u32 = 80;

impl Adjudicator {
    /// Starts tracking from `start`.
    pub fn new(start: &Position) -> Adjudicator {
        let mut ids = [0u8; 90];
        let mut next = 1u8;
        for (sq, _) in start.board().pieces() {
            ids[sq.index()] = next;
            next = next.saturating_add(1);
        }
        let mut seen = HashMap::new();
        seen.insert(start.hash(), 1);
        Adjudicator {
            ids,
            check_runs: ByColor::new_with(|_| Vec::new()),
            history: vec![start.hash()],
            seen,
        }
    }

    /// A start position may already be decided (no legal move, bare kings).
    pub fn at_start(&self, pos: &Position) -> Option<Outcome> {
        if pos.is_game_over_by_moves() {
            let reason = if pos.is_check() {
                Reason::Checkmate
            } else {
                Reason::Stalemate
            };
            return Some(Outcome::win(!pos.turn(), reason));
        }
        pos.bare_kings().then(|| Outcome::draw(Reason::BareKings))
    }

    /// Adjudicates `pos`, reached by `mover` playing `m`.
    pub fn after_move(
        &mut self,
        pos: &Position,
        m: Move,
        mover: Color,
        rules: &RefereeRules,
    ) -> Option<Outcome> {
        let id = self.ids[m.from.index()];
        self.ids[m.from.index()] = 0;
        self.ids[m.to.index()] = id;

        let them = !mover;
        // Perpetual check: which non-exempt pieces of `mover` give check now.
        let mut runs = Vec::new();
        for sq in pos.board().checkers(them) {
            let role = match pos.piece_at(sq) {
                Some(Piece::Up(_, r)) => Some(r),
                Some(Piece::Down(_)) => pos.movement_role(sq),
                None => None,
            };
            if matches!(
                role,
                Some(Role::Pawn | Role::Elephant | Role::Advisor) | None
            ) {
                continue;
            }
            let pid = self.ids[sq.index()];
            let before = self.check_runs[mover]
                .iter()
                .find(|(p, _)| *p == pid)
                .map_or(0, |(_, n)| *n);
            runs.push((pid, before + 1));
        }
        self.check_runs[mover] = runs;

        let hash = pos.hash();
        self.history.push(hash);
        let count = {
            let n = self.seen.entry(hash).or_insert(0);
            *n += 1;
            *n
        };

        if pos.is_game_over_by_moves() {
            let reason = if pos.is_check() {
                Reason::Checkmate
            } else {
                Reason::Stalemate
            };
            return Some(Outcome::win(mover, reason));
        }
        if self.run(mover) >= PERPETUAL_CHECKS {
            return Some(Outcome::win(them, Reason::PerpetualCheck));
        }
        if count >= 3 {
            let ply = self.history.len() - 1;
            let first = self.history.iter().position(|&h| h == hash).unwrap_or(ply);
            let moves_each = ((ply - first) / 2) as u32;
            let forbidden = Color::ALL.iter().any(|&c| self.run(c) >= moves_each.max(1));
            if !forbidden {
                return Some(Outcome::draw(Reason::Repetition));
            }
        }
        if pos.halfmove() >= NO_CAPTURE_PLIES {
            return Some(Outcome::draw(Reason::NoCapture));
        }
        if pos.bare_kings() {
            return Some(Outcome::draw(Reason::BareKings));
        }
        if rules.ply_cap > 0 && (self.history.len() - 1) as u32 >= rules.ply_cap {
            return Some(Outcome::draw(Reason::PlyCap));
        }
        None
    }

    /// The longest run of checks by one piece of `side`.
    fn run(&self, side: Color) -> u32 {
        self.check_runs[side]
            .iter()
            .map(|&(_, n)| n)
            .max()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(s: &str) -> Move {
        UciMove::parse(s).unwrap().to_plain()
    }

    fn play_all(r: &mut Referee, moves: &str) -> Option<Outcome> {
        for m in moves.split_whitespace() {
            if let Some(o) = r.play(mv(m)).unwrap() {
                return Some(o.clone());
            }
        }
        r.outcome().cloned()
    }

    #[test]
    fn only_the_capturer_learns_a_captured_identity() {
        let deal = Deal::parse("RNBAABNRCCPPPPP/rnbaabnrccppppp").unwrap();
        let mut r = Referee::new(deal, RefereeRules::default());
        // Red's face-down cannon on h2 (a cannon in this deal) takes the face-down
        // horse on h9.
        assert!(play_all(&mut r, "h2h9").is_none());
        assert_eq!(r.record(), ["h2h9Cn"]);
        assert_eq!(r.moves_told(Color::Red), ["h2h9Cn"]);
        assert_eq!(r.moves_told(Color::Black), ["h2h9C"]);
        assert_eq!(
            r.view(Color::Red).captured().get(Color::Black, Role::Horse),
            1
        );
        assert_eq!(
            r.view(Color::Black)
                .captured()
                .get(Color::Black, Role::Horse),
            0
        );
        assert_eq!(
            r.view(Color::Black).pool().get(Color::Black, Role::Horse),
            2
        );
        assert_eq!(r.view(Color::Red).pool().get(Color::Black, Role::Horse), 1);
        assert!(r.position_command(Color::Black).ends_with("moves h2h9C"));
        // Black's face-down rook on i9 takes the revealed cannon: face-up, so both know.
        play_all(&mut r, "i9h9");
        assert_eq!(r.moves_told(Color::Red)[1], "i9h9r");
        assert_eq!(r.moves_told(Color::Black)[1], "i9h9r");
        assert!(!r.knows_capture(Color::Black, &r.captures()[0]));
        assert!(r.knows_capture(Color::Red, &r.captures()[0]));
        assert!(r.knows_capture(Color::Red, &r.captures()[1]));
    }

    #[test]
    fn captured_identity_options() {
        let deal = Deal::standard();
        for (opt, red_sees, black_sees) in [
            (CapturedIdentity::Nobody, "h2h9C", "h2h9C"),
            (CapturedIdentity::Everyone, "h2h9Cn", "h2h9Cn"),
        ] {
            let rules = RefereeRules {
                captured_identity: opt,
                ..RefereeRules::default()
            };
            let mut r = Referee::new(deal, rules);
            play_all(&mut r, "h2h9");
            assert_eq!(r.moves_told(Color::Red), [red_sees]);
            assert_eq!(r.moves_told(Color::Black), [black_sees]);
        }
    }

    #[test]
    fn illegal_moves_are_refused_without_change() {
        let mut r = Referee::new(Deal::standard(), RefereeRules::default());
        assert!(r.play(mv("e0e2")).is_err());
        assert!(r.play(mv("a9a8")).is_err());
        assert!(r.record().is_empty());
        assert_eq!(r.turn(), Color::Red);
    }

    fn from(fen: &str) -> Referee {
        Referee::from_position(
            Position::from_fen(fen).unwrap(),
            Deal::standard(),
            RefereeRules::default(),
        )
    }

    #[test]
    fn checkmate_and_stalemate_lose() {
        // The rook ladder: b0b8 holds rank 8, a7a9 mates on rank 9.
        let mut r = from("4k4/9/R8/9/9/9/9/9/9/1R1K5 w - - 0 1");
        let o = play_all(&mut r, "b0b8 e9f9 a7a9").unwrap();
        assert_eq!(o, Outcome::win(Color::Red, Reason::Checkmate));
        // Stalemate (困毙) loses: the black king on d9 has no move and is not in check.
        let mut r = from("3k5/9/9/4R4/9/9/9/9/9/4K4 w - - 0 1");
        let o = play_all(&mut r, "e6e8").unwrap();
        assert_eq!(o, Outcome::win(Color::Red, Reason::Stalemate));
    }

    #[test]
    fn third_repetition_draws() {
        let mut r = from("r4k3/9/9/9/9/9/9/9/9/R2K5 w - - 0 1");
        assert!(play_all(&mut r, "a0a1 a9a8 a1a0 a8a9 a0a1 a9a8 a1a0").is_none());
        let o = play_all(&mut r, "a8a9").unwrap();
        assert_eq!(o, Outcome::draw(Reason::Repetition));
    }

    #[test]
    fn perpetual_check_by_one_rook_loses_even_through_repetitions() {
        let mut r = from("5k3/9/9/9/9/9/9/9/9/R2K5 w - - 0 1");
        let cycle =
            "a0a9 f9f8 a9a8 f8f9 a8a9 f9f8 a9a8 f8f9 a8a9 f9f8 a9a8 f8f9 a8a9 f9f8 a9a8 f8f9";
        assert_eq!(play_all(&mut r, cycle), None, "no end before the 9th check");
        let o = play_all(&mut r, "a8a9").unwrap();
        assert_eq!(o, Outcome::win(Color::Black, Reason::PerpetualCheck));
    }

    #[test]
    fn perpetual_check_by_a_pawn_is_allowed_and_draws_by_repetition() {
        let mut r = from("5k3/4P4/9/9/9/9/9/9/9/3K5 w - - 0 1");
        assert!(play_all(&mut r, "e8f8 f9e9 f8e8 e9f9 e8f8 f9e9 f8e8").is_none());
        let o = play_all(&mut r, "e9f9").unwrap();
        assert_eq!(o, Outcome::draw(Reason::Repetition));
    }

    #[test]
    fn no_capture_rule_and_ply_cap() {
        let mut r = from("r4k3/9/9/9/9/9/9/9/9/R2K5 w - - 79 40");
        let o = play_all(&mut r, "a0a1").unwrap();
        assert_eq!(o, Outcome::draw(Reason::NoCapture));
        let mut r = Referee::from_position(
            Position::from_fen("r4k3/9/9/9/9/9/9/9/9/R2K5 w - - 0 1").unwrap(),
            Deal::standard(),
            RefereeRules {
                ply_cap: 3,
                ..RefereeRules::default()
            },
        );
        let o = play_all(&mut r, "a0a1 a9a8 a1a2").unwrap();
        assert_eq!(o, Outcome::draw(Reason::PlyCap));
    }

    #[test]
    fn bare_kings_draw() {
        let mut r = from("5k3/9/9/9/9/9/9/9/3p5/3K5 w - - 0 1");
        let o = play_all(&mut r, "d0d1").unwrap();
        assert_eq!(o, Outcome::draw(Reason::BareKings));
        assert_eq!(r.captures()[0].identity, Role::Pawn);
    }
}
