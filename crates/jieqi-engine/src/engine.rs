//! The in-process engine: options, limits, iterative deepening over the threads, and
//! the strength limiter.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use jieqi_core::game::Judge;
use jieqi_core::{Move, Position, RuleSet};

use crate::busy::Busy;
use crate::eval::Params;
use crate::features::Features;
use crate::nnue::Network;
use crate::search::tunables::{ASPIRATION_DELTA, ASPIRATION_MAX_DELTA, ASPIRATION_MIN_DEPTH};
use crate::search::{Histories, INF, MATE, MATE_BOUND, MAX_PLY, RootMove, Searcher, Shared};
use crate::time::budget;
use crate::tt::Tt;

/// Engine settings (the UCI options).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Transposition table size in MiB.
    pub hash_mb: usize,
    /// Search threads (Lazy SMP over the shared table).
    pub threads: usize,
    /// Number of best lines to report.
    pub multipv: usize,
    /// Time kept back per move for communication delays.
    pub move_overhead: Duration,
    /// Strength 0 (weakest) to 20 (full strength).
    pub skill_level: u8,
    /// When set, the strength comes from `elo` instead of `skill_level`.
    pub limit_strength: bool,
    /// Target strength for `limit_strength`, 800–2800.
    pub elo: u32,
    /// Search features (all on by default; turned off only for testing).
    pub features: Features,
    /// The rules searched under (RULES.md §5: the chase rule, the capture-free count,
    /// the perpetual limit); the game's history is judged by them too.
    pub rules: RuleSet,
    /// Evaluate with the NNUE net ([`Engine::set_network`]; net 1 won its SPRT against
    /// the hand-written evaluation and each embedded net since its SPRT against the one
    /// before, so on by default) instead of the hand-written evaluation (without a net
    /// the hand-written evaluation is used).
    pub use_nnue: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            hash_mb: 16,
            threads: 1,
            multipv: 1,
            move_overhead: Duration::from_millis(50),
            skill_level: 20,
            limit_strength: false,
            elo: 2800,
            features: Features::default(),
            rules: RuleSet::STANDARD,
            use_nnue: true,
        }
    }
}

impl Options {
    /// The skill level in effect, 0–20, from `skill_level` or `elo`.
    pub fn effective_skill(&self) -> u8 {
        if self.limit_strength {
            ((self.elo.clamp(800, 2800) - 800) / 100) as u8
        } else {
            self.skill_level.min(20)
        }
    }
}

/// What bounds one search. With nothing set the search runs to the maximum depth.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Greatest depth in plies.
    pub depth: Option<u32>,
    /// Node budget (checked every 256 nodes).
    pub nodes: Option<u64>,
    /// Exact time for this move.
    pub movetime: Option<Duration>,
    /// Red's clock.
    pub wtime: Option<Duration>,
    /// Black's clock.
    pub btime: Option<Duration>,
    /// Red's increment.
    pub winc: Option<Duration>,
    /// Black's increment.
    pub binc: Option<Duration>,
    /// Moves to the next time control.
    pub movestogo: Option<u32>,
    /// Search until stopped (the result only comes after the stop flag is set).
    pub infinite: bool,
    /// Search only these root moves (all legal moves when empty; illegal ones are
    /// ignored).
    pub searchmoves: Vec<Move>,
}

impl Limits {
    /// Limits of a fixed depth.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// Limits of a fixed time.
    pub fn movetime(t: Duration) -> Limits {
        Limits {
            movetime: Some(t),
            ..Limits::default()
        }
    }
}

/// A score from the side to move's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns (±20000 is a decisive result reached through a reveal or a perpetual).
    Cp(i32),
    /// Mate in this many moves (negative: being mated).
    Mate(i32),
}

impl Score {
    /// From an internal search score.
    pub fn from_internal(v: i32) -> Score {
        if v >= MATE_BOUND {
            Score::Mate((MATE - v + 1) / 2)
        } else if v <= -MATE_BOUND {
            Score::Mate(-((MATE + v) / 2))
        } else {
            Score::Cp(v)
        }
    }

    /// Win/draw/loss in permille (a simple logistic model of the centipawn score).
    pub fn wdl(self) -> (u32, u32, u32) {
        match self {
            Score::Mate(n) if n > 0 => (1000, 0, 0),
            Score::Mate(_) => (0, 0, 1000),
            Score::Cp(cp) => {
                let f = |x: f64| 1.0 / (1.0 + (-x).exp());
                let cp = f64::from(cp);
                let w = (1000.0 * f((cp - 150.0) / 120.0)).round() as u32;
                let l = (1000.0 * f((-cp - 150.0) / 120.0)).round() as u32;
                (w, 1000 - w - l, l)
            }
        }
    }
}

impl std::fmt::Display for Score {
    /// The UCI form: `cp 35` or `mate -3`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Cp(c) => write!(f, "cp {c}"),
            Score::Mate(m) => write!(f, "mate {m}"),
        }
    }
}

/// Progress of a search: one line per completed depth and PV line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    /// Depth completed.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// 1-based line number (MultiPV).
    pub multipv: usize,
    /// The line's score.
    pub score: Score,
    /// Nodes so far, all threads.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Time since the search started.
    pub time: Duration,
    /// Table fill in permille.
    pub hashfull: u32,
    /// The line; it stops after a move of a face-down piece, whose sequel depends on the reveal.
    pub pv: Vec<Move>,
}

/// The result of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The move to play (write it with 4 characters: `Move`'s `Display`).
    pub best: Move,
    /// The expected reply, if known.
    pub ponder: Option<Move>,
    /// The score of the best line.
    pub score: Score,
    /// Depth completed.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Principal variation, starting with the best line's move.
    pub pv: Vec<Move>,
    /// Nodes searched, all threads.
    pub nodes: u64,
    /// Time taken.
    pub time: Duration,
}

/// The engine: a transposition table, options and a stop flag, reused across searches.
pub struct Engine {
    options: Options,
    tt: Arc<Tt>,
    stop: Arc<AtomicBool>,
    pondering: Arc<AtomicBool>,
    params: Arc<Params>,
    network: Option<Arc<Network>>,
    rng: u64,
    /// Per search thread, the histories its last search learnt (`Use KeepHistory`).
    histories: Vec<Histories>,
}

impl Engine {
    /// A new engine with these options.
    pub fn new(options: Options) -> Engine {
        let tt = Arc::new(Tt::new(options.hash_mb));
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0x1234_5678, |d| d.as_nanos() as u64);
        Engine {
            options,
            tt,
            stop: Arc::new(AtomicBool::new(false)),
            pondering: Arc::new(AtomicBool::new(false)),
            params: Arc::new(Params::default()),
            network: Network::embedded(),
            rng: seed | 1,
            histories: Vec::new(),
        }
    }

    /// The options in effect.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Changes the options (a new `hash_mb` reallocates and clears the table).
    pub fn set_options(&mut self, options: Options) {
        if options.hash_mb != self.options.hash_mb {
            self.tt = Arc::new(Tt::new(options.hash_mb));
        }
        self.options = options;
    }

    /// Replaces the evaluation parameters (e.g. tuned ones).
    pub fn set_params(&mut self, params: Params) {
        self.params = Arc::new(params);
    }

    /// The evaluation parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Replaces the NNUE net (used when [`Options::use_nnue`] is on); starts with the
    /// embedded one, if the build has one.
    pub fn set_network(&mut self, net: Option<Arc<Network>>) {
        self.network = net;
    }

    /// The NNUE net, if one is loaded.
    pub fn network(&self) -> Option<&Arc<Network>> {
        self.network.as_ref()
    }

    /// The static evaluation of `pos` for its side to move, by the evaluation in use.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        match (&self.network, self.options.use_nnue) {
            (Some(net), true) => net.evaluate(pos),
            _ => crate::eval::evaluate(&self.params, pos),
        }
    }

    /// The flag that stops a running search when set. [`Engine::search`] does not clear
    /// it: store `false` (or call [`Engine::clear_stop`]) before the next search.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }

    /// Clears the stop flag.
    pub fn clear_stop(&self) {
        self.stop.store(false, Ordering::SeqCst);
    }

    /// The flag that marks a ponder search: while set, time limits do not apply;
    /// clearing it is the UCI `ponderhit`.
    pub fn ponder_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.pondering)
    }

    /// Forgets what earlier searches learnt (a new game).
    pub fn new_game(&mut self) {
        self.tt.clear();
        self.histories.clear();
    }

    /// Searches `pos` (the engine's own view: it never sees a deal). `history` is the
    /// game so far as the engine saw it ([`Judge::push`] for each move, its latest
    /// position `pos`), for repetitions and the perpetual rules, judged under
    /// [`Options::rules`]. `None` when the side to move has no legal move.
    pub fn search(
        &mut self,
        pos: &Position,
        limits: &Limits,
        history: &Judge,
    ) -> Option<SearchResult> {
        self.search_with_info(pos, limits, history, &mut |_| {})
    }

    fn next_random(&mut self) -> u64 {
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.rng = x;
        x
    }

    /// As [`Engine::search`], calling `info` after each completed depth and line.
    pub fn search_with_info(
        &mut self,
        pos: &Position,
        limits: &Limits,
        history: &Judge,
        info: &mut dyn FnMut(&Info),
    ) -> Option<SearchResult> {
        if pos.legal_moves().is_empty() {
            return None;
        }
        let start = Instant::now();
        self.tt.new_search();
        let skill = self.options.effective_skill();
        let mut max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 10)
            .clamp(1, MAX_PLY as u32 - 10);
        let mut multipv = self.options.multipv.max(1);
        if skill < 20 {
            max_depth = max_depth.min(1 + u32::from(skill) / 2);
            multipv = multipv.max(4);
        }
        let b = budget(limits, pos.turn(), self.options.move_overhead);
        let done = AtomicBool::new(false);
        let nodes = AtomicU64::new(0);
        let threads = self.options.threads.clamp(1, 256);
        let busy = (threads > 1).then(Busy::new);
        let shared = Shared {
            tt: &self.tt,
            stop: &self.stop,
            done: &done,
            nodes: &nodes,
            pondering: &self.pondering,
            busy: busy.as_ref(),
        };
        let params: &Params = &self.params;
        let network = self.network.as_deref().filter(|_| self.options.use_nnue);
        let infinite = limits.infinite;
        let only = &limits.searchmoves[..];
        let features = self.options.features;
        let mut judge = history.clone();
        judge.set_rules(self.options.rules);
        let history = &judge;
        // The histories of the previous search, one per thread, if they are kept.
        let mut kept = if features.keep_history {
            std::mem::take(&mut self.histories)
        } else {
            Vec::new()
        };
        kept.resize_with(threads, Histories::new);
        let mut kept = kept.into_iter();
        let main_histories = kept.next().expect("one thread at least");
        let (roots, depth, learnt) = std::thread::scope(|scope| {
            let helpers: Vec<_> = kept
                .map(|histories| {
                    let shared = &shared;
                    let pos = pos.clone();
                    scope.spawn(move || {
                        let mut s =
                            Searcher::new(pos, history, shared, params, false, start, b, None);
                        s.features = features;
                        s.histories = histories;
                        s.set_network(network);
                        iterate(&mut s, MAX_PLY as u32 - 10, 1, None, infinite, only);
                        s.flush_nodes();
                        s.histories
                    })
                })
                .collect();
            let mut s = Searcher::new(
                pos.clone(),
                history,
                &shared,
                params,
                true,
                start,
                b,
                limits.nodes,
            );
            s.features = features;
            s.histories = main_histories;
            s.set_network(network);
            let (roots, depth) = iterate(&mut s, max_depth, multipv, Some(info), infinite, only);
            s.flush_nodes();
            // An infinite or ponder search reports only once told to stop.
            while (infinite || shared.pondering.load(Ordering::Relaxed))
                && !shared.stop.load(Ordering::Relaxed)
            {
                std::thread::sleep(Duration::from_millis(1));
            }
            done.store(true, Ordering::Relaxed);
            let mut learnt = vec![s.histories];
            learnt.extend(
                helpers
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|_| Histories::new())),
            );
            (roots, depth, learnt)
        });
        if features.keep_history {
            self.histories = learnt;
        }
        let total_nodes = nodes.load(Ordering::Relaxed);
        let lines = multipv.min(roots.len());
        let mut chosen = 0;
        if skill < 20 && lines > 1 {
            let amplitude = u64::from(20 - skill) * 30 + 1;
            let mut best_v = i64::MIN;
            for (i, r) in roots[..lines].iter().enumerate() {
                if r.score <= -INF {
                    continue;
                }
                let v = i64::from(r.score) + (self.next_random() % amplitude) as i64;
                if v > best_v {
                    best_v = v;
                    chosen = i;
                }
            }
        }
        let r = &roots[chosen];
        let score = if r.score <= -INF { 0 } else { r.score };
        Some(SearchResult {
            best: r.mv,
            ponder: r.pv.get(1).copied(),
            score: Score::from_internal(score),
            depth,
            seldepth: r.seldepth as u32,
            pv: r.pv.clone(),
            nodes: total_nodes,
            time: start.elapsed(),
        })
    }
}

/// Iterative deepening on one thread; returns the root moves of the last completed
/// depth (or the ordered moves if none completed) and that depth. Only the moves in
/// `only` are searched, if any of them is legal.
///
/// An iteration aborted (by time, nodes or `stop`) after it searched its first root move
/// fully, or found a better one, is not thrown away: that move, the best the deeper
/// search has proven ([`Searcher::proven`]), goes first, with its score and line, and
/// the depth returned is the aborted one (with one line only: MultiPV and the
/// strength limiter need every line of a depth).
fn iterate(
    s: &mut Searcher<'_>,
    max_depth: u32,
    multipv: usize,
    mut info: Option<&mut dyn FnMut(&Info)>,
    infinite: bool,
    only: &[Move],
) -> (Vec<RootMove>, u32) {
    let mut roots = s.root_moves();
    if roots.iter().any(|r| only.contains(&r.mv)) {
        roots.retain(|r| only.contains(&r.mv));
    }
    let mut completed = (roots.clone(), 0);
    let budget = s.budget();
    for depth in 1..=max_depth {
        s.new_iteration(&mut roots);
        let lines = multipv.min(roots.len());
        for pv_idx in 0..lines {
            let prev = roots[pv_idx].prev_score;
            let mut delta = ASPIRATION_DELTA;
            let (mut alpha, mut beta) = if s.features.aspiration
                && depth >= ASPIRATION_MIN_DEPTH
                && prev > -MATE_BOUND
                && prev < MATE_BOUND
            {
                (prev - delta, prev + delta)
            } else {
                (-INF, INF)
            };
            loop {
                let v = s.search_root(&mut roots, pv_idx, depth as i32, alpha, beta);
                if s.aborted {
                    break;
                }
                if v <= alpha && alpha > -INF {
                    beta = (alpha + beta) / 2;
                    alpha = (v - delta).max(-INF);
                } else if v >= beta && beta < INF {
                    beta = (v + delta).min(INF);
                } else {
                    break;
                }
                delta += delta;
                if delta > ASPIRATION_MAX_DELTA {
                    alpha = -INF;
                    beta = INF;
                }
            }
            if s.aborted {
                break;
            }
        }
        if s.aborted {
            if lines == 1
                && let Some(best) = s.proven.take()
            {
                let (mut done, _) = completed;
                done.retain(|r| r.mv != best.mv);
                done.insert(0, best);
                completed = (done, depth);
                report(s, &mut info, &completed.0[..1], depth);
            }
            break;
        }
        completed = (roots.clone(), depth);
        report(s, &mut info, &roots[..lines], depth);
        if !infinite && !s.is_pondering() && !budget.may_deepen(s.elapsed()) {
            break;
        }
        // A forced mate found within the depth searched will not change.
        if !infinite
            && roots[0].score.abs() >= MATE_BOUND
            && (MATE - roots[0].score.abs()) < depth as i32
        {
            break;
        }
    }
    completed
}

/// Reports `lines` (best first) of `depth` to `info`, if any.
fn report(
    s: &mut Searcher<'_>,
    info: &mut Option<&mut dyn FnMut(&Info)>,
    lines: &[RootMove],
    depth: u32,
) {
    let Some(cb) = info.as_mut() else {
        return;
    };
    s.flush_nodes();
    let nodes = s.shared_nodes();
    let time = s.elapsed();
    let ms = time.as_millis().max(1) as u64;
    for (i, r) in lines.iter().enumerate() {
        cb(&Info {
            depth,
            seldepth: r.seldepth.max(depth as usize) as u32,
            multipv: i + 1,
            score: Score::from_internal(r.score.max(-MATE)),
            nodes,
            nps: nodes * 1000 / ms,
            time,
            hashfull: s.tt_hashfull(),
            pv: r.pv.clone(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jieqi_core::RuleSet;

    /// Searches the first bench middlegame to depth 4 with `engine`.
    fn search_middlegame(engine: &mut Engine) {
        let pos = Position::from_fen(crate::bench::MIDDLEGAMES[0]).expect("a legal position");
        let judge = Judge::new(RuleSet::STANDARD, &pos);
        engine
            .search(&pos, &Limits::depth(4), &judge)
            .expect("a legal move");
    }

    #[test]
    fn the_default_engine_evaluates_with_the_embedded_net() {
        let pos = Position::from_fen(crate::bench::MIDDLEGAMES[0]).expect("a legal position");
        let net = crate::nnue::Network::embedded().expect("a net is embedded");
        assert_eq!(
            Engine::new(Options::default()).evaluate(&pos),
            net.evaluate(&pos)
        );
        let hand = Options {
            use_nnue: false,
            ..Options::default()
        };
        assert_eq!(
            Engine::new(hand).evaluate(&pos),
            crate::eval::evaluate(&Params::default(), &pos)
        );
    }

    #[test]
    fn histories_are_kept_between_searches_until_a_new_game() {
        let mut engine = Engine::new(Options::default());
        search_middlegame(&mut engine);
        assert_eq!(engine.histories.len(), 1);
        assert!(!engine.histories[0].is_empty());
        engine.new_game();
        assert!(engine.histories.is_empty());

        let mut options = Options::default();
        options.features.keep_history = false;
        let mut engine = Engine::new(options);
        search_middlegame(&mut engine);
        assert!(engine.histories.is_empty());
    }
}
