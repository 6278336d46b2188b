//! Engine players: a small trait so the server does not care which engine plays, a
//! built-in greedy player, and a bounded pool that runs engines off the async runtime.
//!
//! An engine only ever receives a [`Position`] built from its own side's view, so it
//! cannot play on knowledge its side does not have.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use jieqi_core::RuleSet;
use jieqi_core::game::Judge;
use jieqi_core::{Color, Move, Piece, Position, Reveals, Role};
use tokio::sync::Semaphore;

/// An engine's judgement of a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evaluation {
    /// Centipawns for the side to move; `None` when it has no legal move.
    pub score_cp: Option<i32>,
    /// The best move found.
    pub best: Option<Move>,
    /// Search depth reached (plies).
    pub depth: u32,
}

/// Something that plays Jieqi from one side's view.
pub trait Engine: Send + Sync + 'static {
    /// A short name (shown with evaluations).
    fn name(&self) -> &str;
    /// The move to play at `level` (1 = weakest) within about `budget`; `None` only
    /// when there is no legal move. `history` is the game judged on this side's
    /// positions up to `pos`, under the game's rules (repetitions, the perpetual
    /// rules).
    fn choose(&self, pos: &Position, level: u8, budget: Duration, history: &Judge) -> Option<Move>;
    /// Evaluates the position for the side to move.
    fn evaluate(&self, pos: &Position, budget: Duration) -> Evaluation;
    /// Analyses `pos` for the analysis board, calling `line` for each line found
    /// (MultiPV, deepening) until `limits` or `stop`. The default evaluates once.
    fn analyse(
        &self,
        pos: &Position,
        limits: &AnalysisLimits,
        stop: &AtomicBool,
        line: &mut dyn FnMut(&AnalysisLine),
    ) {
        let _ = stop;
        let ev = self.evaluate(pos, limits.movetime);
        if let (Some(cp), Some(best)) = (ev.score_cp, ev.best) {
            line(&AnalysisLine {
                multipv: 1,
                depth: ev.depth,
                score: LineScore::Cp(cp),
                wdl: None,
                pv: vec![best],
                nodes: 0,
            });
        }
    }
}

/// How long and how wide an analysis runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AnalysisLimits {
    /// Deepest iteration.
    pub depth: u32,
    /// Longest run.
    pub movetime: Duration,
    /// Lines (MultiPV).
    pub multipv: usize,
}

/// A score of an analysis line, for the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LineScore {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (negative: being mated).
    Mate(i32),
}

/// One line of an analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysisLine {
    /// 1-based line number.
    pub multipv: usize,
    /// Depth completed.
    pub depth: u32,
    /// The score for the side to move.
    pub score: LineScore,
    /// Win/draw/loss per mille as the engine models it, if it does.
    pub wdl: Option<(u32, u32, u32)>,
    /// The moves; they stop after a face-down piece's move, whose sequel depends on
    /// the reveal.
    pub pv: Vec<Move>,
    /// Nodes searched so far.
    pub nodes: u64,
}

/// The built-in player: level 1 plays a random legal move; higher levels take the move
/// with the best one-ply material balance (expected value for face-down pieces, a
/// penalty for leaving the moved piece attacked), ties broken at random.
#[derive(Copy, Clone, Debug, Default)]
pub struct GreedyEngine;

fn value(role: Role) -> i32 {
    match role {
        Role::King => 10_000,
        Role::Rook => 900,
        Role::Cannon => 450,
        Role::Horse => 400,
        Role::Elephant | Role::Advisor => 200,
        Role::Pawn => 100,
    }
}

/// The expected value of one of `color`'s face-down pieces under `pos`'s pool.
fn hidden_value(pos: &Position, color: Color) -> i32 {
    let pool = pos.pool();
    let (mut sum, mut n) = (0i32, 0i32);
    for r in Role::HIDDEN {
        let c = i32::from(pool.get(color, r));
        sum += c * value(r);
        n += c;
    }
    if n == 0 { 300 } else { sum / n }
}

fn piece_value(pos: &Position, p: Piece) -> i32 {
    match p {
        Piece::Up(_, r) => value(r),
        Piece::Down(c) => hidden_value(pos, c),
    }
}

fn random_u32() -> u32 {
    let mut b = [0u8; 4];
    getrandom::fill(&mut b).expect("the operating system's random generator failed");
    u32::from_le_bytes(b)
}

impl GreedyEngine {
    /// Scores every legal move; returns the best (random among equals).
    fn best(&self, pos: &Position) -> Option<(Move, i32)> {
        let us = pos.turn();
        let mut best: Option<(Move, i32)> = None;
        let mut ties = 0u32;
        let mut scratch = pos.clone();
        for &m in pos.legal_moves().as_slice() {
            let gain = pos.piece_at(m.to).map_or(0, |p| piece_value(pos, p));
            let mover = pos.piece_at(m.from).map_or(0, |p| piece_value(pos, p));
            let undo = scratch.play_unchecked(m, Reveals::NONE);
            let board = scratch.board();
            let attacked = board
                .pieces()
                .any(|(sq, p)| p.color() != us && board.piece_attacks(sq, m.to));
            let mut score = gain - if attacked { mover } else { 0 };
            if scratch.is_check() {
                score += 30;
            }
            if scratch.count_legal() == 0 {
                score += 100_000;
            }
            scratch.unplay(undo);
            match best {
                Some((_, s)) if s > score => {}
                Some((_, s)) if s == score => {
                    ties += 1;
                    if random_u32() % (ties + 1) == 0 {
                        best = Some((m, score));
                    }
                }
                _ => {
                    ties = 0;
                    best = Some((m, score));
                }
            }
        }
        best
    }

    /// Material balance for the side to move.
    fn material(pos: &Position) -> i32 {
        let us = pos.turn();
        pos.board()
            .pieces()
            .filter(|(_, p)| !matches!(p, Piece::Up(_, Role::King)))
            .map(|(_, p)| {
                let v = piece_value(pos, p);
                if p.color() == us { v } else { -v }
            })
            .sum()
    }
}

impl Engine for GreedyEngine {
    fn name(&self) -> &str {
        "greedy"
    }

    fn choose(
        &self,
        pos: &Position,
        level: u8,
        _budget: Duration,
        _history: &Judge,
    ) -> Option<Move> {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        if level <= 1 {
            let i = random_u32() as usize % moves.len();
            return Some(moves.as_slice()[i]);
        }
        self.best(pos).map(|(m, _)| m)
    }

    fn evaluate(&self, pos: &Position, _budget: Duration) -> Evaluation {
        match self.best(pos) {
            None => Evaluation {
                score_cp: None,
                best: None,
                depth: 1,
            },
            Some((m, s)) => Evaluation {
                score_cp: Some(Self::material(pos) + s.clamp(-10_000, 10_000)),
                best: Some(m),
                depth: 1,
            },
        }
    }
}

/// The project's search engine (`jieqi_engine`): level 1–8 maps to skill levels
/// 0–20, the move time to the budget the game allows. Engines (each with its own
/// transposition table) are reused between moves.
pub struct SearchEngine {
    idle: std::sync::Mutex<Vec<jieqi_engine::Engine>>,
    hash_mb: usize,
}

impl SearchEngine {
    /// Engines with `hash_mb` MiB of table each.
    pub fn new(hash_mb: usize) -> SearchEngine {
        SearchEngine {
            idle: std::sync::Mutex::new(Vec::new()),
            hash_mb,
        }
    }

    fn with_engine<T>(
        &self,
        skill: u8,
        rules: RuleSet,
        f: impl FnOnce(&mut jieqi_engine::Engine) -> T,
    ) -> T {
        let taken = self.idle.lock().ok().and_then(|mut v| v.pop());
        let mut e = taken.unwrap_or_else(|| {
            jieqi_engine::Engine::new(jieqi_engine::Options {
                hash_mb: self.hash_mb,
                ..jieqi_engine::Options::default()
            })
        });
        let mut opts = e.options().clone();
        opts.skill_level = skill;
        opts.threads = 1;
        opts.rules = rules;
        e.set_options(opts);
        e.new_game();
        e.clear_stop();
        let r = f(&mut e);
        if let Ok(mut v) = self.idle.lock() {
            v.push(e);
        }
        r
    }
}

/// Skill level 0–20 of a server level 1–8.
pub fn skill_of(level: u8) -> u8 {
    match level {
        0 | 1 => 0,
        8.. => 20,
        l => (l - 1) * 3,
    }
}

impl Engine for SearchEngine {
    fn name(&self) -> &str {
        "jieqi-engine"
    }

    fn choose(&self, pos: &Position, level: u8, budget: Duration, history: &Judge) -> Option<Move> {
        let limits = jieqi_engine::Limits::movetime(budget.max(Duration::from_millis(20)));
        self.with_engine(skill_of(level), *history.rules(), |e| {
            e.search(pos, &limits, history).map(|r| r.best)
        })
    }

    fn analyse(
        &self,
        pos: &Position,
        limits: &AnalysisLimits,
        stop: &AtomicBool,
        line: &mut dyn FnMut(&AnalysisLine),
    ) {
        let search_limits = jieqi_engine::Limits {
            depth: Some(limits.depth.max(1)),
            movetime: Some(limits.movetime),
            ..jieqi_engine::Limits::default()
        };
        let history = Judge::new(RuleSet::STANDARD, pos);
        self.with_engine(20, RuleSet::STANDARD, |e| {
            let mut opts = e.options().clone();
            opts.multipv = limits.multipv.clamp(1, 8);
            e.set_options(opts);
            let engine_stop = e.stop_flag();
            let finished = AtomicBool::new(false);
            // The search polls its own flag; this watcher carries the caller's over.
            std::thread::scope(|scope| {
                scope.spawn(|| {
                    while !finished.load(Ordering::Relaxed) {
                        if stop.load(Ordering::Relaxed) {
                            engine_stop.store(true, Ordering::SeqCst);
                            return;
                        }
                        std::thread::sleep(Duration::from_millis(10));
                    }
                });
                e.search_with_info(pos, &search_limits, &history, &mut |info| {
                    let score = match info.score {
                        jieqi_engine::Score::Cp(c) => LineScore::Cp(c),
                        jieqi_engine::Score::Mate(m) => LineScore::Mate(m),
                    };
                    line(&AnalysisLine {
                        multipv: info.multipv,
                        depth: info.depth,
                        score,
                        wdl: Some(info.score.wdl()),
                        pv: info.pv.clone(),
                        nodes: info.nodes,
                    });
                });
                finished.store(true, Ordering::Relaxed);
            });
            let mut opts = e.options().clone();
            opts.multipv = 1;
            e.set_options(opts);
        });
    }

    fn evaluate(&self, pos: &Position, budget: Duration) -> Evaluation {
        let limits = jieqi_engine::Limits::movetime(budget);
        let history = Judge::new(RuleSet::STANDARD, pos);
        self.with_engine(20, RuleSet::STANDARD, |e| {
            match e.search(pos, &limits, &history) {
                None => Evaluation {
                    score_cp: None,
                    best: None,
                    depth: 0,
                },
                Some(r) => Evaluation {
                    score_cp: Some(match r.score {
                        jieqi_engine::Score::Cp(c) => c,
                        jieqi_engine::Score::Mate(m) if m > 0 => 100_000 - m,
                        jieqi_engine::Score::Mate(m) => -100_000 - m,
                    }),
                    best: Some(r.best),
                    depth: r.depth,
                },
            }
        })
    }
}

/// Runs the engine of engine games on blocking threads, at most `threads` at a time.
/// Nothing else uses these threads (analysis has its own [`AnalysisPool`]), so a move
/// waits only behind other games' moves.
#[derive(Clone)]
pub struct EnginePool {
    engine: Arc<dyn Engine>,
    permits: Arc<Semaphore>,
    stats: Arc<PoolCounters>,
}

#[derive(Default)]
struct PoolCounters {
    asked: AtomicU64,
    waited: AtomicU64,
}

/// What a pool has done.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PoolStats {
    /// Requests.
    pub asked: u64,
    /// Requests that found every thread taken and queued.
    pub waited: u64,
}

/// The pool is saturated (or the client has as many requests running as it may).
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the engine pool is busy")]
pub struct Busy;

impl EnginePool {
    /// A pool running `engine` on at most `threads` threads at once.
    pub fn new(engine: Arc<dyn Engine>, threads: usize) -> EnginePool {
        EnginePool {
            engine,
            permits: Arc::new(Semaphore::new(threads.max(1))),
            stats: Arc::default(),
        }
    }

    /// The engine's name.
    pub fn name(&self) -> String {
        self.engine.name().to_string()
    }

    /// Requests so far, and how many had to queue.
    pub fn stats(&self) -> PoolStats {
        PoolStats {
            asked: self.stats.asked.load(Ordering::Relaxed),
            waited: self.stats.waited.load(Ordering::Relaxed),
        }
    }

    /// The engine's move (waits for a free thread).
    pub async fn choose(
        &self,
        pos: Position,
        level: u8,
        budget: Duration,
        history: Judge,
    ) -> Option<Move> {
        self.stats.asked.fetch_add(1, Ordering::Relaxed);
        let permit = match Arc::clone(&self.permits).try_acquire_owned() {
            Ok(p) => p,
            Err(_) => {
                self.stats.waited.fetch_add(1, Ordering::Relaxed);
                Arc::clone(&self.permits).acquire_owned().await.ok()?
            }
        };
        let engine = Arc::clone(&self.engine);
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            engine.choose(&pos, level, budget, &history)
        })
        .await
        .ok()
        .flatten()
    }
}

/// A reserved analysis thread of one client: held while its work runs.
pub struct AnalysisSlot {
    _permit: tokio::sync::OwnedSemaphorePermit,
    _client: ClientSlot,
}

/// Runs analysis (`/eval`) on threads of its own, at most `threads` at a time and at
/// most `per_client` at a time for one client address; a request beyond either is
/// refused at once ([`Busy`]), never queued.
pub struct AnalysisPool {
    engine: Arc<dyn Engine>,
    permits: Arc<Semaphore>,
    per_client: usize,
    running: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// A client's running request, uncounted when dropped.
struct ClientSlot {
    running: Arc<Mutex<HashMap<IpAddr, usize>>>,
    client: IpAddr,
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        let mut m = self.running.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = m.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                m.remove(&self.client);
            }
        }
    }
}

impl AnalysisPool {
    /// A pool running `engine` on `threads` threads, `per_client` per client.
    pub fn new(engine: Arc<dyn Engine>, threads: usize, per_client: usize) -> AnalysisPool {
        AnalysisPool {
            engine,
            permits: Arc::new(Semaphore::new(threads.max(1))),
            per_client: per_client.max(1),
            running: Arc::default(),
        }
    }

    /// The engine's name.
    pub fn name(&self) -> String {
        self.engine.name().to_string()
    }

    /// Reserves a thread for `client`, or [`Busy`] at once (the analysis board and
    /// whole-game analysis hold it while they run).
    pub fn reserve(&self, client: IpAddr) -> Result<AnalysisSlot, Busy> {
        let slot = {
            let mut m = self.running.lock().unwrap_or_else(|p| p.into_inner());
            let n = m.entry(client).or_default();
            if *n >= self.per_client {
                return Err(Busy);
            }
            *n += 1;
            ClientSlot {
                running: Arc::clone(&self.running),
                client,
            }
        };
        let permit = Arc::clone(&self.permits)
            .try_acquire_owned()
            .map_err(|_| Busy)?;
        Ok(AnalysisSlot {
            _permit: permit,
            _client: slot,
        })
    }

    /// The engine, to run on a reserved [`AnalysisSlot`].
    pub fn engine(&self) -> Arc<dyn Engine> {
        Arc::clone(&self.engine)
    }

    /// An evaluation for `client`, or [`Busy`] at once.
    pub async fn evaluate(
        &self,
        client: IpAddr,
        pos: Position,
        budget: Duration,
    ) -> Result<Evaluation, Busy> {
        let slot = {
            let mut m = self.running.lock().unwrap_or_else(|p| p.into_inner());
            let n = m.entry(client).or_default();
            if *n >= self.per_client {
                return Err(Busy);
            }
            *n += 1;
            ClientSlot {
                running: Arc::clone(&self.running),
                client,
            }
        };
        let permit = Arc::clone(&self.permits)
            .try_acquire_owned()
            .map_err(|_| Busy)?;
        let engine = Arc::clone(&self.engine);
        tokio::task::spawn_blocking(move || {
            let _held = (permit, slot);
            engine.evaluate(&pos, budget)
        })
        .await
        .map_err(|_| Busy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_engine_plays_legal_moves_at_every_level() {
        let e = SearchEngine::new(1);
        let start = Position::start();
        let fresh = Judge::new(RuleSet::STANDARD, &start);
        for level in [1, 4, 8] {
            let m = e
                .choose(&start, level, Duration::from_millis(30), &fresh)
                .unwrap();
            assert!(start.is_legal(m));
        }
        let pos = Position::from_fen("3k5/9/r8/9/9/R8/9/9/9/4K4 w - - 0 1").unwrap();
        let ev = e.evaluate(&pos, Duration::from_millis(50));
        assert!(ev.best.is_some_and(|m| pos.is_legal(m)));
        assert_eq!(skill_of(1), 0);
        assert_eq!(skill_of(8), 20);
    }

    #[test]
    fn search_engine_follows_the_games_chase_rule() {
        // Red, far behind, has chased the black cannon between a7 and b7; b2a2 repeats
        // the chase: the drawing move under the standard rules, a loss with the chase
        // rule.
        let start = Position::from_fen("3aka1nn/9/c8/9/9/9/9/1R7/9/3K5 w - - 10 20").unwrap();
        let moves = ["b2a2", "a7b7", "a2b2", "b7a7"].map(|t| {
            (
                jieqi_core::UciMove::parse(t).unwrap().to_plain(),
                Default::default(),
            )
        });
        let e = SearchEngine::new(1);
        let choose = |rules| {
            let (history, pos) = Judge::replay(rules, &start, moves).unwrap();
            e.choose(&pos, 8, Duration::from_millis(100), &history)
                .map(|m| m.to_string())
        };
        assert_eq!(choose(RuleSet::STANDARD).as_deref(), Some("b2a2"));
        assert_ne!(choose(RuleSet::TOURNAMENT).as_deref(), Some("b2a2"));
    }

    #[test]
    fn greedy_takes_a_free_rook_and_plays_only_legal_moves() {
        // Red rook on a5 can take an undefended black rook on a8.
        let pos = Position::from_fen("3k5/9/r8/9/9/R8/9/9/9/4K4 w - - 0 1").unwrap();
        let e = GreedyEngine;
        assert_eq!(
            e.choose(
                &pos,
                5,
                Duration::ZERO,
                &Judge::new(RuleSet::STANDARD, &pos)
            )
            .map(|m| m.to_string()),
            Some("a4a7".to_string())
        );
        let start = Position::start();
        for level in 1..=3 {
            let m = e
                .choose(
                    &start,
                    level,
                    Duration::ZERO,
                    &Judge::new(RuleSet::STANDARD, &start),
                )
                .unwrap();
            assert!(start.is_legal(m));
        }
        let ev = e.evaluate(&pos, Duration::ZERO);
        assert_eq!(ev.best.map(|m| m.to_string()), Some("a4a7".to_string()));
        assert!(ev.score_cp.unwrap() > 0);
    }
}
