//! The one judge of the rules of RULES.md §5 that depend on a game's history: check
//! and chase streaks (pieces followed as they move), repetitions and the capture-free
//! count, driven by a [`RuleSet`] one ply at a time. The referee ([`crate::Game`]),
//! record verification, the match runner, the server and the engine's search all use
//! it, so they cannot disagree.
//!
//! It works on any position — the referee's or a player's view — since everything it
//! judges depends only on what the board shows; the repetition keys are the
//! positions' own hashes (which cover the pools the viewer sees).

use super::chase::{self, Squares};
use super::{Outcome, Reason, RuleSet};
use crate::position::Undo;
use crate::{Move, Position, Square};

/// Pieces followed from one move of a side to its next, each with the number of that
/// side's consecutive moves after which it was checking (its own pieces) or chased (the
/// enemy's), the current move included. At most four are followed (more than four
/// pieces chased by one move never happens in practice, and a streak needs one piece).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Streaks {
    len: u8,
    squares: [u8; 4],
    runs: [u8; 4],
}

impl Streaks {
    /// The streaks after one more move of the side: `now` holds the pieces checking or
    /// chased after it, and `before` gives the square a piece now on a square stood on
    /// at the side's previous move (it may have moved since).
    pub fn extend(&self, now: Squares, before: impl Fn(u8) -> u8) -> Streaks {
        let mut out = Streaks::default();
        let mut rest = now;
        while rest != 0 && (out.len as usize) < out.squares.len() {
            let sq = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            let was = before(sq);
            let run = (0..self.len as usize)
                .find(|&i| self.squares[i] == was)
                .map_or(0, |i| self.runs[i]);
            out.squares[out.len as usize] = sq;
            out.runs[out.len as usize] = run.saturating_add(1);
            out.len += 1;
        }
        out
    }

    /// The longest streak (0 when none).
    pub fn longest(&self) -> u8 {
        self.runs[..self.len as usize]
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
    }

    /// Where the piece of the longest streak stands now.
    pub fn longest_square(&self) -> Option<Square> {
        (0..self.len as usize)
            .max_by_key(|&i| self.runs[i])
            .and_then(|i| Square::new(self.squares[i]))
    }
}

/// Where the piece now on `sq` stood before `m` (if `m` was played).
#[inline]
fn before(m: Option<Move>, sq: u8) -> u8 {
    match m {
        Some(m) if m.to.index() as u8 == sq => m.from.index() as u8,
        _ => sq,
    }
}

/// One position of the game, as the judge keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    /// [`Position::hash`].
    key: u64,
    /// The move that led here (`None` for the first position and after a null move).
    mv: Option<Move>,
    /// Whether the side to move stands in check.
    in_check: bool,
    /// The checking pieces (rooks, horses, cannons) of the side that moved here,
    /// followed over its consecutive moves.
    check: Streaks,
    /// The enemy pieces chased by the side that moved here, followed likewise.
    chase: Streaks,
    /// Whether the chases of the move that led here were worked out (the search
    /// skips them where no streak could reach the limit; a cycle through such a move
    /// is replayed to judge it).
    chases_known: bool,
}

/// A side that has just broken a perpetual rule, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Perpetual {
    /// One rook, horse or cannon (on this square now) checked after each of the side's
    /// last [`RuleSet::perpetual_moves`] moves.
    Check(Square),
    /// One enemy piece (on this square now) was chased after each of them.
    Chase(Square),
}

/// The history of a game as the perpetual, repetition and capture-free rules need it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judge {
    rules: RuleSet,
    entries: Vec<Entry>,
}

impl Judge {
    /// A judge for a game that starts at `start`.
    pub fn new(rules: RuleSet, start: &Position) -> Judge {
        let mut entries = Vec::with_capacity(256);
        entries.push(Entry {
            key: start.hash(),
            mv: None,
            in_check: start.is_check(),
            check: Streaks::default(),
            chase: Streaks::default(),
            chases_known: true,
        });
        Judge { rules, entries }
    }

    /// A judge for the game from `start` with `moves` played (each with what it
    /// revealed to the viewer whose positions these are).
    pub fn replay(
        rules: RuleSet,
        start: &Position,
        moves: impl IntoIterator<Item = (Move, crate::Reveals)>,
    ) -> Result<(Judge, Position), crate::PlayError> {
        let mut judge = Judge::new(rules, start);
        let mut pos = start.clone();
        for (m, rv) in moves {
            let undo = pos.play(m, rv)?;
            judge.push(&pos, &undo);
        }
        Ok((judge, pos))
    }

    /// The rules judged by.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// Judges by other rules from now on (chases are always recorded by
    /// [`Judge::push`], so the history is judged exactly under either rule set).
    pub fn set_rules(&mut self, rules: RuleSet) {
        self.rules = rules;
    }

    /// Makes room for `more` positions (the search reserves its deepest line).
    pub fn reserve(&mut self, more: usize) {
        self.entries.reserve(more);
    }

    /// Positions recorded, the first one included.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Always false: a judge holds at least its first position.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether the side to move of the latest position stands in check.
    #[inline]
    pub fn in_check(&self) -> bool {
        self.last().in_check
    }

    #[inline]
    fn last(&self) -> &Entry {
        self.entries
            .last()
            .expect("a judge holds its first position")
    }

    /// Records the move of `undo`, which left `after`, with its checks and chases.
    pub fn push(&mut self, after: &Position, undo: &Undo) {
        self.push_entry(after, undo, true);
    }

    /// As [`Judge::push`] for a search with `depth` plies left below the move: chases
    /// are worked out only under the chase rule, and only where the mover's streak
    /// could still reach [`RuleSet::perpetual_moves`] within that depth (elsewhere the
    /// streak is recorded as broken; the deeper positions of that line could not
    /// reach the limit either, since they have less depth left).
    #[inline]
    pub fn push_searched(&mut self, after: &Position, undo: &Undo, depth: i32) {
        let chases = self.rules.chase_rule && {
            let n = self.entries.len();
            let before = n
                .checked_sub(2)
                .map_or(0, |k| self.entries[k].chase.longest());
            // This move, and one more for every two plies left (one spare for the
            // check extension).
            usize::from(before) + 2 + depth.max(0) as usize / 2 >= self.rules.perpetual_moves
        };
        self.push_entry(after, undo, chases);
    }

    #[inline]
    fn push_entry(&mut self, after: &Position, undo: &Undo, chases: bool) {
        let m = undo.mv();
        let n = self.entries.len();
        let in_check = after.is_check();
        let checkers = if in_check {
            chase::counting_checkers(after.board(), after.turn())
        } else {
            0
        };
        let own = n.checked_sub(2).map(|k| self.entries[k]);
        let check = own
            .map(|e| e.check)
            .unwrap_or_default()
            .extend(checkers, |sq| before(Some(m), sq));
        let chase = if chases {
            let chased = chase::chased_by(after.board(), undo);
            let theirs = self.entries[n - 1].mv;
            own.map(|e| e.chase)
                .unwrap_or_default()
                .extend(chased, |sq| before(theirs, sq))
        } else {
            Streaks::default()
        };
        self.entries.push(Entry {
            key: after.hash(),
            mv: Some(m),
            in_check,
            check,
            chase,
            chases_known: chases,
        });
    }

    /// Records the next move of `seen`, a judge of the same game kept on another
    /// viewer's positions (the boards are the same, the pools may differ), as it left
    /// `after`, this judge's viewer's position: only the repetition key differs, so the
    /// checks and chases are not worked out again.
    ///
    /// # Panics
    /// If `seen` does not hold the position after that move.
    pub fn push_seen(&mut self, after: &Position, seen: &Judge) {
        let entry = seen.entries[self.entries.len()];
        self.entries.push(Entry {
            key: after.hash(),
            ..entry
        });
    }

    /// Records a null move (the search's pass), which left `after`: it checks and
    /// chases nothing.
    pub fn push_null(&mut self, after: &Position) {
        self.entries.push(Entry {
            key: after.hash(),
            mv: None,
            in_check: false,
            check: Streaks::default(),
            chase: Streaks::default(),
            chases_known: true,
        });
    }

    /// Forgets the latest position (the search's unmake).
    #[inline]
    pub fn pop(&mut self) {
        debug_assert!(self.entries.len() > 1, "the first position stays");
        self.entries.pop();
    }

    /// The perpetual rule that the side which has just moved broke with that move, if
    /// any: one same rook, horse or cannon checked, or (under the chase rule) one same
    /// enemy piece was chased, after each of its last [`RuleSet::perpetual_moves`]
    /// moves. A check streak comes first when both end on one move (it cannot: a check
    /// is not a chase).
    pub fn perpetual(&self) -> Option<Perpetual> {
        let e = self.last();
        let n = self.rules.perpetual_moves;
        if usize::from(e.check.longest()) >= n {
            return e.check.longest_square().map(Perpetual::Check);
        }
        if self.rules.chase_rule && usize::from(e.chase.longest()) >= n {
            return e.chase.longest_square().map(Perpetual::Chase);
        }
        None
    }

    /// Whether, over the last `plies` plies (a cycle that ends in `pos`, the latest
    /// position, which repeats the one it began with), each side checked with one same
    /// piece, or (under the chase rule) chased one same piece, after every one of its
    /// moves: (the side that has just moved, the side to move).
    pub fn cycle_keepers(&self, pos: &Position, plies: usize) -> (bool, bool) {
        let n = self.entries.len() - 1;
        let moves = plies / 2;
        if moves == 0 || plies > n {
            return (false, false);
        }
        let runs = |k: usize, s: fn(&Entry) -> Streaks| usize::from(s(&self.entries[k]).longest());
        let mut mover = runs(n, |e| e.check) >= moves;
        let mut other = runs(n - 1, |e| e.check) >= moves;
        if self.rules.chase_rule && !(mover && other) {
            let (m, o) = if self.entries[n + 1 - plies..].iter().all(|e| e.chases_known) {
                (
                    runs(n, |e| e.chase) >= moves,
                    runs(n - 1, |e| e.chase) >= moves,
                )
            } else {
                self.cycle_chases(pos, plies)
            };
            mover |= m;
            other |= o;
        }
        (mover, other)
    }

    /// [`Judge::cycle_keepers`] for chases, by replaying the cycle from `pos` (its
    /// moves neither capture nor reveal, or the position could not repeat), the chased
    /// pieces followed as they flee.
    fn cycle_chases(&self, pos: &Position, plies: usize) -> (bool, bool) {
        let n = self.entries.len() - 1;
        let bit = |sq: Square| 1u128 << sq.index();
        let mut p = pos.clone();
        // Per colour: the enemy pieces it chased with each of its moves so far.
        let mut kept: [Option<Squares>; 2] = [None, None];
        for e in &self.entries[n + 1 - plies..] {
            let Some(m) = e.mv else {
                return (false, false);
            };
            let mover = p.turn();
            let undo = p.play_unchecked(m, crate::Reveals::NONE);
            if let Some(set) = kept[(!mover).index()]
                && set & bit(m.from) != 0
            {
                kept[(!mover).index()] = Some(set & !bit(m.from) | bit(m.to));
            }
            let now = chase::chased_by(p.board(), &undo);
            let own = &mut kept[mover.index()];
            *own = Some(own.map_or(now, |set| set & now));
        }
        let keeps = |c: crate::Color| kept[c.index()].is_some_and(|set| set != 0);
        (keeps(!pos.turn()), keeps(pos.turn()))
    }

    /// The most recent earlier occurrence of the latest position within the last
    /// `within` plies, as its distance in plies (a repetition needs the same side to
    /// move, so only even distances of 4 or more are looked at).
    #[inline]
    pub fn repeats(&self, within: usize) -> Option<usize> {
        let n = self.entries.len() - 1;
        let key = self.entries[n].key;
        let limit = within.min(n);
        (4..=limit)
            .step_by(2)
            .find(|&i| self.entries[n - i].key == key)
    }

    /// How many times the latest position has occurred, this time included.
    pub fn occurrences(&self) -> usize {
        let key = self.last().key;
        self.entries.iter().filter(|e| e.key == key).count()
    }

    /// Whether the latest position is a threefold repetition that draws: its third
    /// occurrence (or later), unless since it first occurred one side checked with one
    /// same piece or (under the chase rule) chased one same piece with every move —
    /// then play goes on and the 9-move rule decides (不变作和 covers only the allowed
    /// perpetuals).
    pub fn repetition_draws(&self, pos: &Position) -> bool {
        if self.occurrences() < 3 {
            return false;
        }
        let key = self.last().key;
        let first = self
            .entries
            .iter()
            .position(|e| e.key == key)
            .expect("the latest position occurs");
        let (mover, other) = self.cycle_keepers(pos, self.entries.len() - 1 - first);
        !mover && !other
    }

    /// The end of the game at `pos`, the latest position, by the rules of RULES.md §5
    /// that moves decide, in their order of precedence: checkmate and stalemate; a
    /// perpetual check or chase (the side that has just moved loses); a draw by bare
    /// kings, by the capture-free count, by threefold repetition.
    pub fn verdict(&self, pos: &Position) -> Option<Outcome> {
        debug_assert_eq!(pos.hash(), self.last().key, "the judge's latest position");
        let mover = !pos.turn();
        if pos.count_legal() == 0 {
            let reason = if pos.is_check() {
                Reason::Checkmate
            } else {
                Reason::Stalemate
            };
            return Some(Outcome::Win {
                winner: mover,
                reason,
            });
        }
        if let Some(p) = self.perpetual() {
            let reason = match p {
                Perpetual::Check(square) => Reason::PerpetualCheck {
                    role: pos.movement_role(square).expect("the checker stands there"),
                    square,
                },
                Perpetual::Chase(square) => Reason::PerpetualChase {
                    role: chase::shown_role(pos.board(), square),
                    square,
                },
            };
            return Some(Outcome::Win {
                winner: !mover,
                reason,
            });
        }
        if pos.bare_kings() {
            return Some(Outcome::Draw {
                reason: Reason::BareKings,
            });
        }
        if pos.halfmove() >= self.rules.no_capture_plies {
            return Some(Outcome::Draw {
                reason: Reason::NoCapture,
            });
        }
        if self.repetition_draws(pos) {
            return Some(Outcome::Draw {
                reason: Reason::Repetition,
            });
        }
        None
    }
}
