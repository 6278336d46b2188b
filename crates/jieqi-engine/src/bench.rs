//! `bench`: a fixed search of fixed positions. The total node count is a signature
//! that changes only when the search or evaluation changes functionally; the speed is
//! nodes per second on one thread.

use std::time::{Duration, Instant};

use jieqi_core::Position;

use crate::engine::{Engine, Limits, Options};

/// Default depth of `bench`.
pub const DEFAULT_DEPTH: u32 = 7;

/// The bench positions: the start, opening and middlegame positions with face-down
/// pieces and pools, and a few endgames.
pub const POSITIONS: &[&str] = &[jieqi_core::START_FEN, BENCH_MIDDLEGAMES[0]];

/// Middlegame positions (also used to measure nodes per second).
pub const BENCH_MIDDLEGAMES: &[&str] = &[
    "xxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/X1X1X1X1X/1X5X1/9/XXXXKXXXX w A2B2N2R2C2P5a2b2n2r2c2p5 - 0 1",
];

/// The outcome of a bench run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchResult {
    /// Total nodes (the signature).
    pub nodes: u64,
    /// Total search time.
    pub time: Duration,
}

impl BenchResult {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        (u128::from(self.nodes) * 1000 / self.time.as_millis().max(1)) as u64
    }

    /// The closing lines: time, nodes, nodes/s.
    pub fn summary(&self) -> String {
        format!(
            "===========================\nTotal time (ms) : {}\nNodes searched  : {}\nNodes/second    : {}",
            self.time.as_millis(),
            self.nodes,
            self.nps()
        )
    }
}

/// Runs the bench at `depth` (default [`DEFAULT_DEPTH`]) on one thread with a fresh
/// 16 MiB table per position, reporting a line per position to `out`.
pub fn run(depth: Option<u32>, out: &mut dyn FnMut(&str)) -> BenchResult {
    run_positions(POSITIONS, depth.unwrap_or(DEFAULT_DEPTH), out)
}

/// Runs a fixed-depth search of each FEN (invalid ones are reported and skipped).
pub fn run_positions(fens: &[&str], depth: u32, out: &mut dyn FnMut(&str)) -> BenchResult {
    let mut engine = Engine::new(Options::default());
    let mut nodes = 0;
    let mut time = Duration::ZERO;
    for (i, fen) in fens.iter().enumerate() {
        let pos = match Position::from_fen(fen) {
            Ok(p) => p,
            Err(e) => {
                out(&format!("info string error bench position {}: {e}", i + 1));
                continue;
            }
        };
        engine.new_game();
        let start = Instant::now();
        let r = engine.search(&pos, &Limits::depth(depth), &[]);
        time += start.elapsed();
        let n = r.as_ref().map_or(0, |r| r.nodes);
        nodes += n;
        out(&format!(
            "info string bench {}/{} nodes {n} bestmove {}",
            i + 1,
            fens.len(),
            r.map_or("(none)".to_string(), |r| r.best.to_string())
        ));
    }
    BenchResult { nodes, time }
}
