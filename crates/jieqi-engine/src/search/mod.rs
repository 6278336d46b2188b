//! The search: principal-variation alpha-beta on the engine's own view, with chance
//! nodes for reveals.
//!
//! # Chance nodes
//! A move by a face-down piece (暗子) turns it face-up as an identity drawn from the
//! mover's pool, each identity weighted by its count. Such a move is searched as a
//! chance node: one child per distinct identity, valued by the weighted mean of the
//! children. Child values are clamped to `[-DECISIVE, DECISIVE]` first (a mate after a
//! reveal is not a certain mate), so a chance value is bounded. Under the move's own
//! window (below) they are clamped further, to `±CHANCE_CLAMP` (`Use ChanceClamp`),
//! unless every outcome lies beyond that on the same side.
//!
//! **The move's own window** (the default, `Use ChanceWindows`): every outcome is
//! searched with the window `(alpha, beta)` of the move (narrowed to one past
//! `±DECISIVE`), and the chance value is the weighted mean of the children's clamped
//! fail-soft values, as the Pikafish Jieqi branches do. The model takes a value that
//! failed outside the window as the outcome's value. It is
//! - exact when every outcome ends inside the window;
//! - a correct bound when all outcomes fail the same way: all at or above `beta`, the
//!   mean is a lower bound at or above `beta`; all at or below `alpha`, an upper bound;
//! - approximate when some fail high and others low: an outcome that failed high counts
//!   at its lower bound and one that failed low at its upper bound, so the mean is off
//!   by up to `Σ wᵢ·|trueᵢ − vᵢ| / Σ wᵢ` over the outcomes outside the window, in either
//!   direction, and the node may fail the wrong way; the error reaches the table as a
//!   wrong bound. Under a null window (most nodes) every outcome fails one way or the
//!   other, so this is the common case; it is biggest when the outcomes differ most (a
//!   rook that wins against a pawn that loses), and the fail-soft values from stand pat
//!   and static pruning, close to the true values, keep it small in practice.
//!
//! In exchange, the windows below a reveal are the parent's, so table cut-offs, null
//! move, futility and reverse futility act there as anywhere else: the start position
//! to depth 2 takes 66 510 nodes instead of 795 338, and the bench middlegames reach
//! 2 to 5 plies deeper in the same nodes (BENCHMARKS.md, 2026-12-02).
//!
//! **Star1** (`Use ChanceWindows` off; exact): the Star1 rule of Ballard. Before
//! searching child `i`, the children already searched and the bounds `±DECISIVE` of
//! those still to come give the window child `i` must reach for the mean to leave
//! `(alpha, beta)`; the child is searched with that window, and when it fails outside
//! it the whole chance node is cut off (returning `alpha` or `beta`, fail-hard).
//! Windows are rounded outwards, so the cut-offs are exact, never approximate. With
//! bounds of `±DECISIVE`, the first four or five outcomes of a pool of six kinds get
//! windows wider than the decisive range itself, so below them nothing is cut off and
//! the search is close to a full expectimax tree.
//!
//! The capture of a face-down enemy piece is not a chance node: the searcher does not
//! branch on the captured identity (it stays in the enemy pool of the searched
//! positions) and the capture is valued at the pool expectation.
//!
//! # Other features
//! Iterative deepening with aspiration windows, a shared transposition table, quiescence
//! search over captures (and check evasions near the horizon), move ordering by hash
//! move, MVV-LVA, killers and history (kept from one search of a game to the next),
//! check extension, null-move pruning, reverse
//! futility pruning, late-move pruning and reductions (all less eager for a side
//! whose static evaluation improved since its last move: the improving flag; the
//! reductions also less for a quiet move with a good history, more for a bad one),
//! mate-distance pruning, and repetition
//! awareness: a repeated position is a draw, except that a side that gave check with
//! a rook, horse or cannon after every move of a repetition cycle is scored as losing
//! (RULES.md §5, perpetual check; checks by pawns, elephants and advisors are allowed).
//! The rules are judged by the referee's own [`Judge`], carried along the searched
//! line: the cycle may begin in the game's history, so the engine neither keeps up a
//! perpetual check that the referee will punish nor escapes one it is winning against.
//! Without a repetition, a side that checked with one same piece after each of its
//! last [`jieqi_core::RuleSet::perpetual_moves`] moves loses as well (pieces are
//! followed from move to move). Under the chase rule of the judge's rule set, chases of
//! one same enemy piece (made by moves, RULES.md §5) count in the same two ways.
//! Each pruning, reduction, extension and ordering feature can be switched off for
//! testing ([`crate::features`]).
//!
//! # Speed
//! Quiescence stands pat before generating anything and then generates pseudo-legal
//! captures, testing legality only for those it plays; the evaluation is incremental
//! ([`crate::eval::Acc`], updated in `make`, popped in `unmake`).
//!
//! # Layout
//! This file holds the [`Searcher`], the alpha-beta [`Searcher::search`] and the root;
//! `chance.rs` the chance nodes (Star1 and the move's own window), `quiescence.rs`
//! [`Searcher::qsearch`], `ordering.rs` the move scores and history, `pruning.rs` the
//! margins and reductions, `stack.rs` the per-ply frames of the searched line, and
//! `tunables.rs` every number chosen rather than derived.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use jieqi_core::game::Judge;
use jieqi_core::{Move, Piece, Position, Reveals, Role};

use crate::busy::Busy;
use crate::eval::{Acc, Evaluator, Params};
use crate::features::Features;
use crate::nnue::{Accumulators, Network};
use crate::time::Budget;
use crate::tt::{Bound, Entry, Tt};

mod chance;
mod ordering;
mod pruning;
mod quiescence;
mod stack;
#[cfg(test)]
mod tests;
pub(crate) mod tunables;

pub use chance::reveal_outcomes;
pub use ordering::Histories;
use ordering::pick_best;
use pruning::{
    LmrTable, futility_margin, history_reduction, lmp_count, null_move_reduction,
    reverse_futility_margin,
};
use stack::Stack;
use tunables::{
    ABDADA_DEPTH, FUTILITY_MAX_DEPTH, HISTORY_MAX_BONUS, LMP_MAX_DEPTH, LMR_MIN_DEPTH,
    LMR_MIN_MOVE, NMP_MIN_DEPTH, RFP_MAX_DEPTH, SECOND_KILLER_SCORE,
};

/// The score of giving mate now; mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30000;
/// Scores at least this far from zero are mates.
pub const MATE_BOUND: i32 = MATE - 1000;
/// The bound of chance values and of perpetual-check wins and losses.
pub const DECISIVE: i32 = 20000;
/// Larger than any score.
pub const INF: i32 = 31000;
/// Deepest ply searched.
pub const MAX_PLY: usize = 120;
/// Nodes a thread counts before it adds them to the shared counter and checks
/// whether to stop.
const NODES_PER_CHECK: u64 = 256;
/// Quiet moves remembered per node for the history malus of a cut-off.
const MAX_QUIETS_TRIED: usize = 32;

/// One root move with its latest score and principal variation.
#[derive(Clone, Debug)]
pub struct RootMove {
    /// The move.
    pub mv: Move,
    /// Score of the last completed search of this move (or `-INF`).
    pub score: i32,
    /// Score from the previous iteration.
    pub prev_score: i32,
    /// Principal variation starting with `mv`.
    pub pv: Vec<Move>,
    /// Deepest ply reached below this move.
    pub seldepth: usize,
}

/// What a search thread shares with the others.
pub struct Shared<'a> {
    /// The transposition table.
    pub tt: &'a Tt,
    /// Set by the user to stop the search.
    pub stop: &'a AtomicBool,
    /// Set by the main thread when it is done (helpers stop then).
    pub done: &'a AtomicBool,
    /// Nodes searched by all threads, updated in batches.
    pub nodes: &'a AtomicU64,
    /// Set while pondering: time limits do not apply yet.
    pub pondering: &'a AtomicBool,
    /// Moves being searched by some thread, when more than one searches.
    pub busy: Option<&'a Busy>,
}

/// One search thread's state.
pub struct Searcher<'a> {
    pub(crate) pos: Position,
    shared: &'a Shared<'a>,
    ev: Evaluator,
    /// The evaluation's accumulators of the searched line, the current position last.
    accs: Vec<Acc>,
    /// The NNUE accumulators of the searched line, when the net evaluates.
    nnue: Option<Accumulators<'a>>,
    main: bool,
    /// Nodes of this thread not yet added to the shared counter.
    pending_nodes: u64,
    /// Nodes of this thread.
    pub nodes: u64,
    start: Instant,
    budget: Budget,
    node_limit: Option<u64>,
    /// The game's positions then the searched line's, as the rules judge them (keys,
    /// checks, perpetual streaks); the current position last.
    judge: Judge,
    /// The histories of quiet moves, for ordering (the engine may hand in those of
    /// its previous search).
    pub histories: Histories,
    /// Per ply of the searched line: killers, static evaluation, principal variation.
    stack: Stack,
    /// Deepest ply reached.
    pub seldepth: usize,
    /// Set when the search was stopped; all values computed since are void.
    pub aborted: bool,
    /// Base late-move reductions.
    lmr: LmrTable,
    /// The search features in use (all on by default).
    pub features: Features,
    /// Moves put off because another thread was searching them ([`crate::busy`]).
    pub deferred: u64,
    /// The last root move that raised alpha in [`Searcher::search_root`] since
    /// [`Searcher::new_iteration`]: searched fully at the current depth and better
    /// than every move before it, so worth playing even if the iteration is aborted.
    pub proven: Option<RootMove>,
}

/// Mate scores are stored relative to the node, not the root.
fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// A score of the table, stored relative to the node, as seen from the root at `ply`.
fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// The score of the table's entry `e` at `ply` if its bound settles the window
/// `(alpha, beta)`: exact, a lower bound at or above `beta`, or an upper bound at or
/// below `alpha`.
fn tt_cutoff(e: Entry, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
    let s = from_tt(e.score, ply);
    let cut = match e.bound {
        Bound::Exact => true,
        Bound::Lower => s >= beta,
        Bound::Upper => s <= alpha,
    };
    cut.then_some(s)
}

impl<'a> Searcher<'a> {
    /// A searcher for `pos`, with the game so far judged by `history` (whose latest
    /// position is `pos`; its rule set is the one searched under).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        pos: Position,
        history: &Judge,
        shared: &'a Shared<'a>,
        params: &'a Params,
        main: bool,
        start: Instant,
        budget: Budget,
        node_limit: Option<u64>,
    ) -> Searcher<'a> {
        let mut judge = history.clone();
        judge.reserve(MAX_PLY + 8);
        let ev = Evaluator::new(params);
        let mut accs = Vec::with_capacity(MAX_PLY + 8);
        accs.push(ev.acc(&pos));
        Searcher {
            pos,
            shared,
            ev,
            accs,
            nnue: None,
            main,
            pending_nodes: 0,
            nodes: 0,
            start,
            budget,
            node_limit,
            judge,
            histories: Histories::new(),
            stack: Stack::new(),
            seldepth: 0,
            aborted: false,
            lmr: LmrTable::new(),
            features: Features::default(),
            deferred: 0,
            proven: None,
        }
    }

    /// The position being searched (the root between searches).
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The time budget.
    pub(crate) fn budget(&self) -> Budget {
        self.budget
    }

    /// Nodes counted so far by all threads.
    pub(crate) fn shared_nodes(&self) -> u64 {
        self.shared.nodes.load(Ordering::Relaxed)
    }

    /// The table's fill in permille.
    pub(crate) fn tt_hashfull(&self) -> u32 {
        self.shared.tt.hashfull()
    }

    /// Whether a ponder search is still pondering.
    pub(crate) fn is_pondering(&self) -> bool {
        self.shared.pondering.load(Ordering::Relaxed)
    }

    /// Time since the search started.
    pub fn elapsed(&self) -> std::time::Duration {
        self.start.elapsed()
    }

    /// Adds this thread's pending nodes to the shared counter.
    pub fn flush_nodes(&mut self) {
        if self.pending_nodes > 0 {
            self.shared
                .nodes
                .fetch_add(self.pending_nodes, Ordering::Relaxed);
            self.pending_nodes = 0;
        }
    }

    /// Counts a node; every [`NODES_PER_CHECK`] nodes, shares the count and checks
    /// whether to stop.
    #[inline]
    fn count_node(&mut self) {
        self.nodes += 1;
        self.pending_nodes += 1;
        if self.pending_nodes >= NODES_PER_CHECK {
            self.flush_nodes();
            self.check_stop();
        }
    }

    /// Sets [`Searcher::aborted`] if the search must stop: stopped by the user, done
    /// on the main thread, or (on the main thread) out of nodes or time.
    fn check_stop(&mut self) {
        if self.shared.stop.load(Ordering::Relaxed) || self.shared.done.load(Ordering::Relaxed) {
            self.aborted = true;
            return;
        }
        if !self.main {
            return;
        }
        if let Some(limit) = self.node_limit
            && self.shared.nodes.load(Ordering::Relaxed) >= limit
        {
            self.aborted = true;
            return;
        }
        if let Some(hard) = self.budget.hard
            && !self.shared.pondering.load(Ordering::Relaxed)
            && self.start.elapsed() >= hard
        {
            self.aborted = true;
        }
    }

    /// Evaluates with `net` (NNUE) instead of the hand-written evaluation, or with the
    /// latter again for `None`.
    pub fn set_network(&mut self, net: Option<&'a Network>) {
        self.nnue = net.map(|n| Accumulators::new(n, &self.pos));
    }

    /// The static evaluation of the current position (side to move's view).
    #[inline]
    pub fn evaluate(&self) -> i32 {
        if let Some(nnue) = &self.nnue {
            let v = nnue.evaluate(&self.pos);
            debug_assert_eq!(v, nnue.network().evaluate(&self.pos), "{}", self.pos.fen());
            return v;
        }
        let acc = self.accs.last().expect("the root's accumulator");
        let v = self.ev.evaluate_with(&self.pos, acc);
        debug_assert_eq!(v, self.ev.evaluate(&self.pos), "{}", self.pos.fen());
        v
    }

    /// The value of `p` for ordering and quiescence pruning (a face-down piece at its
    /// pool's expectation).
    fn piece_value(&self, p: Piece) -> i32 {
        match p {
            Piece::Up(_, r) => self.ev.value(r),
            Piece::Down(c) => self.ev.hidden_value(&self.pos, c),
        }
    }

    /// Plays `m` with `rv` (with `depth` plies left below it), recording the new
    /// position with the judge.
    #[inline]
    fn make(&mut self, m: Move, rv: Reveals, depth: i32) -> jieqi_core::position::Undo {
        let b = self.pos.board();
        let (moved, captured) = (b.piece_at(m.from), b.piece_at(m.to));
        let pool_before = self.nnue.as_ref().map(|_| *self.pos.pool());
        let u = self.pos.play_unchecked(m, rv);
        if let (Some(nnue), Some(pool)) = (&mut self.nnue, pool_before) {
            nnue.push_move(m, moved, captured, pool, &self.pos);
        }
        if let (Some(moved), Some(arrived)) = (moved, self.pos.board().piece_at(m.to)) {
            let acc = self.accs.last().expect("the root's accumulator");
            let next = self.ev.update(acc, m.from, m.to, moved, arrived, captured);
            self.accs.push(next);
        } else {
            // Not a move of a piece: never from the generator; stay exact anyway.
            self.accs.push(self.ev.acc(&self.pos));
        }
        self.judge.push_searched(&self.pos, &u, depth);
        u
    }

    /// Takes back the move of `u`, played by [`Searcher::make`].
    #[inline]
    fn unmake(&mut self, u: jieqi_core::position::Undo) {
        self.accs.pop();
        if let Some(nnue) = &mut self.nnue {
            nnue.pop();
        }
        self.judge.pop();
        self.pos.unplay(u);
    }

    /// The value of a repetition of the current position, if it repeats one since the
    /// last capture: a draw, except that a side that checked with one same piece or
    /// (under the chase rule) chased one same piece after every one of its moves of the
    /// cycle is scored as losing — the referee would let play go on, and the 9-move
    /// rule would end it against that side if it kept on.
    fn repetition(&self) -> Option<i32> {
        let i = self.judge.repeats(self.pos.halfmove() as usize)?;
        if !self.features.perpetual {
            return Some(0);
        }
        let (them, us) = self.judge.cycle_keepers(&self.pos, i);
        Some(match (us, them) {
            (true, false) => -DECISIVE,
            (false, true) => DECISIVE,
            _ => 0,
        })
    }

    /// Whether the side that has just moved has now broken a perpetual rule (RULES.md
    /// §5), so that it loses — unless that move left the side to move without a legal
    /// move, which ends the game first.
    fn perpetual_violated(&self) -> bool {
        self.features.perpetual && self.judge.perpetual().is_some() && self.pos.count_legal() > 0
    }

    /// Whether the side to move has a piece other than its king and face-up pawns
    /// (face-down pieces count), so that a null move is no zugzwang risk.
    fn has_non_pawn_material(&self) -> bool {
        let us = self.pos.turn();
        let b = self.pos.board();
        let mut occ = b.occupancy(us);
        while occ != 0 {
            let sq = jieqi_core::Square::new(occ.trailing_zeros() as u8).expect("square");
            occ &= occ - 1;
            match b.piece_at(sq) {
                Some(Piece::Up(_, Role::King | Role::Pawn)) => {}
                Some(_) => return true,
                None => {}
            }
        }
        false
    }

    /// The table of moves in progress, if this node (of remaining `depth`) shares out
    /// its moves with other threads.
    fn work_sharing(&self, depth: i32) -> Option<&'a Busy> {
        self.shared
            .busy
            .filter(|_| self.features.abdada && depth >= ABDADA_DEPTH)
    }

    /// Searches the current position: by [`Searcher::qsearch`] at quiescence ply `qs`
    /// if `qs > 0`, else by [`Searcher::search`] to `depth`.
    #[inline]
    fn node(&mut self, depth: i32, alpha: i32, beta: i32, ply: usize, qs: u32, pv: bool) -> i32 {
        if qs > 0 {
            self.qsearch(alpha, beta, ply, qs)
        } else {
            self.search(depth, alpha, beta, ply, pv, true)
        }
    }

    /// Alpha-beta search of the current position to `depth` plies, fail-soft. `pv`:
    /// whether this is a node of the principal variation (searched with an open
    /// window by its parent; see `Searcher::child`).
    pub fn search(
        &mut self,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        pv: bool,
        null_ok: bool,
    ) -> i32 {
        let pv_node = pv && beta - alpha > 1;
        self.stack[ply].clear_pv();
        if self.aborted {
            return 0;
        }
        let in_check = self.judge.in_check();
        if in_check && self.features.check_extension && ply < MAX_PLY / 2 {
            depth += 1;
        }
        if depth <= 0 {
            return self.qsearch(alpha, beta, ply, 0);
        }
        self.count_node();
        self.seldepth = self.seldepth.max(ply);
        if ply > 0 {
            // A perpetual-rule loss stands above a repetition (RULES.md §5).
            if self.perpetual_violated() {
                // The game ends here as by a mate, won by the side to move: a side
                // about to lose either way prefers the later end.
                return MATE - ply as i32;
            }
            if let Some(v) = self.repetition() {
                return v;
            }
            if self.pos.halfmove() >= self.judge.rules().no_capture_plies {
                return 0;
            }
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        if ply >= MAX_PLY {
            return self.evaluate();
        }
        let key = self.pos.hash();
        let tte = self.shared.tt.probe(key);
        let tt_move = tte.and_then(|e| e.mv);
        if let Some(e) = tte
            && self.features.tt_cutoffs
            && !pv_node
            && e.depth >= depth
            && let Some(s) = tt_cutoff(e, ply, alpha, beta)
        {
            return s;
        }
        let static_eval = if in_check {
            -INF
        } else if let Some(e) = tte {
            e.eval
        } else {
            self.evaluate()
        };
        self.stack[ply].static_eval = static_eval;
        let improving = self.features.improving && !in_check && self.stack.improving(ply);
        // Not improving, with the flag in use: pruned and reduced more.
        let worsening = self.features.improving && !improving;
        if !pv_node && !in_check && ply > 0 {
            // Reverse futility: far above beta near the horizon.
            if self.features.reverse_futility
                && depth <= RFP_MAX_DEPTH
                && static_eval - reverse_futility_margin(depth, improving) >= beta
                && beta.abs() < MATE_BOUND
            {
                return static_eval;
            }
            // Null move: passing is rarely better than moving in Jieqi, except with only
            // pawns (zugzwang-like endings), where it is not tried.
            if self.features.null_move
                && null_ok
                && depth >= NMP_MIN_DEPTH
                && static_eval >= beta
                && self.has_non_pawn_material()
            {
                let r = null_move_reduction(depth);
                let nu = self.pos.play_null();
                self.judge.push_null(&self.pos);
                let v = -self.search(depth - 1 - r, -beta, -beta + 1, ply + 1, false, false);
                self.judge.pop();
                self.pos.unplay_null(nu);
                if self.aborted {
                    return 0;
                }
                if v >= beta {
                    return if v >= MATE_BOUND { beta } else { v };
                }
            }
        }

        let moves = self.pos.legal_moves();
        if moves.is_empty() {
            // Checkmate and stalemate (困毙) both lose.
            return -MATE + ply as i32;
        }
        let mut scores = [0i32; jieqi_core::movegen::MAX_MOVES];
        self.score_moves(&moves, tt_move, ply, &mut scores);
        let mut order: [Move; jieqi_core::movegen::MAX_MOVES] =
            [Move::new(jieqi_core::Square::E0, jieqi_core::Square::E0);
                jieqi_core::movegen::MAX_MOVES];
        let n = moves.len();
        order[..n].copy_from_slice(&moves);

        let mut best = -INF;
        let mut best_move = None;
        let orig_alpha = alpha;
        let mut quiets_tried = [order[0]; MAX_QUIETS_TRIED];
        let mut quiet_count = 0;
        // Work sharing with the other threads (see `crate::busy`): from the second move
        // on, a move another thread is searching right now waits for a second pass.
        let busy = self.work_sharing(depth);
        let mut deferred = [0u8; jieqi_core::movegen::MAX_MOVES];
        let mut n_deferred = 0;
        let mut step = 0;
        loop {
            let first_pass = step < n;
            let i = if first_pass {
                pick_best(&mut order[..n], &mut scores[..n], step);
                step
            } else if step - n < n_deferred {
                usize::from(deferred[step - n])
            } else {
                break;
            };
            step += 1;
            let m = order[i];
            let is_capture = self.pos.piece_at(m.to).is_some();
            let quiet = !is_capture;
            let new_depth = depth - 1;
            // Killers (and better) are neither pruned nor reduced.
            let late = scores[i] < SECOND_KILLER_SCORE;
            if i > 0 && quiet && !pv_node && !in_check && best > -MATE_BOUND && late {
                // Late-move pruning: near the horizon, quiet moves this far down the
                // ordering rarely matter; each costs a chance node's worth of searches.
                if self.features.late_move_pruning
                    && depth <= LMP_MAX_DEPTH
                    && quiet_count >= lmp_count(depth, !worsening)
                {
                    continue;
                }
                // Futility pruning: a quiet move cannot lift a position this far below
                // alpha near the horizon.
                if self.features.futility
                    && depth <= FUTILITY_MAX_DEPTH
                    && static_eval + futility_margin(depth) <= alpha
                {
                    continue;
                }
            }
            let mark = busy.map(|_| Busy::mark_of(key, m));
            if let (Some(b), Some(mark)) = (busy, mark) {
                if first_pass && i > 0 && b.contains(mark) {
                    self.deferred += 1;
                    deferred[n_deferred] = i as u8;
                    n_deferred += 1;
                    continue;
                }
                b.enter(mark);
            }
            let v = if i == 0 {
                self.child(m, new_depth, alpha, beta, ply, 0)
            } else {
                let mut r = 0;
                if self.features.lmr
                    && depth >= LMR_MIN_DEPTH
                    && quiet
                    && i >= LMR_MIN_MOVE
                    && !in_check
                    && late
                {
                    r = self.lmr.get(depth, i);
                    if pv_node {
                        r -= 1;
                    }
                    if worsening {
                        r += 1;
                    }
                    if self.features.history_lmr {
                        // A late quiet move's ordering score is its history.
                        r -= history_reduction(scores[i]);
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                let mut v = self.child(m, new_depth - r, alpha, alpha + 1, ply, 0);
                if v > alpha && r > 0 && !self.aborted {
                    v = self.child(m, new_depth, alpha, alpha + 1, ply, 0);
                }
                if v > alpha && v < beta && pv_node && !self.aborted {
                    v = self.child(m, new_depth, alpha, beta, ply, 0);
                }
                v
            };
            if let (Some(b), Some(mark)) = (busy, mark) {
                b.leave(mark);
            }
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                if v > alpha {
                    best_move = Some(m);
                    alpha = v;
                    self.update_pv(ply, m);
                    if v >= beta {
                        if quiet {
                            if self.features.killers {
                                self.stack[ply].add_killer(m);
                            }
                            let bonus = (depth * depth).min(HISTORY_MAX_BONUS);
                            self.update_history(m, bonus);
                            for &q in &quiets_tried[..quiet_count] {
                                self.update_history(q, -bonus);
                            }
                        }
                        break;
                    }
                }
            }
            if quiet && quiet_count < quiets_tried.len() {
                quiets_tried[quiet_count] = m;
                quiet_count += 1;
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > orig_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.shared.tt.store(
            key,
            Entry {
                mv: best_move.or(tt_move),
                score: to_tt(best, ply),
                eval: if in_check { 0 } else { static_eval },
                depth,
                bound,
            },
        );
        best
    }

    /// Makes `m`, just searched from the current position at `ply`, the head of the
    /// principal variation there.
    fn update_pv(&mut self, ply: usize, m: Move) {
        // A chance child's line depends on the reveal: the PV stops at a face-down move.
        let deterministic = !self.pos.board().is_hidden(m.from);
        self.stack.update_pv(ply, m, deterministic);
    }

    /// The root moves, ordered by the hash move and MVV-LVA.
    pub fn root_moves(&self) -> Vec<RootMove> {
        let moves = self.pos.legal_moves();
        let tt_move = self.shared.tt.probe(self.pos.hash()).and_then(|e| e.mv);
        let mut scores = [0i32; jieqi_core::movegen::MAX_MOVES];
        self.score_moves(&moves, tt_move, 0, &mut scores);
        let mut v: Vec<(i32, Move)> = moves
            .iter()
            .enumerate()
            .map(|(i, &m)| (scores[i], m))
            .collect();
        v.sort_by_key(|e| std::cmp::Reverse(e.0));
        v.into_iter()
            .map(|(_, mv)| RootMove {
                mv,
                score: -INF,
                prev_score: -INF,
                pv: vec![mv],
                seldepth: 0,
            })
            .collect()
    }

    /// Searches the root moves from index `first` on, at `depth`, within `(alpha,
    /// beta)`; updates their scores and PVs and sorts them, best first. Returns the
    /// best score (fail-soft).
    pub fn search_root(
        &mut self,
        roots: &mut [RootMove],
        first: usize,
        depth: i32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        let mut best = -INF;
        self.stack[0].clear_pv();
        // Work sharing as in `search`: a root move another thread is on comes last.
        let busy = self.work_sharing(depth);
        let key = self.pos.hash();
        let n = roots.len();
        let mut deferred = Vec::new();
        let mut step = first;
        loop {
            let first_pass = step < n;
            let i = if first_pass {
                step
            } else if step - n < deferred.len() {
                deferred[step - n]
            } else {
                break;
            };
            step += 1;
            let m = roots[i].mv;
            let mark = busy.map(|_| Busy::mark_of(key, m));
            if let (Some(b), Some(mark)) = (busy, mark) {
                if first_pass && i > first && b.contains(mark) {
                    self.deferred += 1;
                    deferred.push(i);
                    continue;
                }
                b.enter(mark);
            }
            self.seldepth = 0;
            let v = if i == first {
                self.child(m, depth - 1, alpha, beta, 0, 0)
            } else {
                let mut v = self.child(m, depth - 1, alpha, alpha + 1, 0, 0);
                if v > alpha && v < beta && !self.aborted {
                    v = self.child(m, depth - 1, alpha, beta, 0, 0);
                }
                v
            };
            if let (Some(b), Some(mark)) = (busy, mark) {
                b.leave(mark);
            }
            if self.aborted {
                break;
            }
            roots[i].seldepth = self.seldepth;
            if v > alpha || i == first {
                roots[i].score = v;
                self.update_pv(0, m);
                roots[i].pv = self.stack[0].pv().to_vec();
            } else {
                roots[i].score = -INF;
            }
            if v > best {
                best = v;
            }
            if v > alpha {
                alpha = v;
                self.proven = Some(roots[i].clone());
                if v >= beta {
                    break;
                }
            }
        }
        // Stable: moves that failed low keep their previous order.
        roots[first..].sort_by_key(|r| std::cmp::Reverse(r.score));
        best
    }

    /// Marks the start of a new iteration for the root moves.
    pub fn new_iteration(&mut self, roots: &mut [RootMove]) {
        self.proven = None;
        for r in roots {
            r.prev_score = r.score;
        }
    }
}
