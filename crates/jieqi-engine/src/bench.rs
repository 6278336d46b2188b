//! `bench`: a fixed search of fixed positions. The total node count is a signature
//! that changes only when the search or evaluation changes functionally; the speed is
//! nodes per second on one thread.

use std::sync::Arc;
use std::time::{Duration, Instant};

use jieqi_core::game::Judge;
use jieqi_core::{Position, RuleSet};

use crate::engine::{Engine, Limits, Options};
use crate::features::Features;
use crate::nnue::Network;

/// Default depth of `bench`.
pub const DEFAULT_DEPTH: u32 = 6;

/// Middlegame positions from self-play, with face-down pieces, pools and captured
/// identities (also used to measure nodes per second).
pub const MIDDLEGAMES: &[&str] = &[
    "1p1xkxxb1/9/4p2x1/x1x3x1x/9/4p4/X1X3X1X/1n2C4/3P5/X2XKXXXX w A1B2N1R2C1P3a1b1n1r2c2p1 a1p1 4 7",
    "x1xk1xxxx/9/4r4/x1x1x1x1x/9/9/XPX1X1X1X/9/4K4/XXnX1XXXX b A1B2N2R2C1P4a1b2n1c2p5 C1a1r1 1 6",
    "x2k2xxx/4p4/4pr3/x1x3x1x/9/9/XPX1X1b1X/3nKN3/9/X2X1XXXX w B2N1R2C1P4a1b1n1c2p3 A1C1a1r1 6 12",
    "1p1xkxxxx/9/4bn3/x5x1x/2a4C1/R3P4/2X3X1X/4P4/1b3N3/XXXXKX3 w A2B1N1R1C1P2a1r2c2p3 P1n1 10 8",
    "1nxxkx1xx/9/4p2N1/x1x1x1x1x/9/4C4/X1X3X1X/4R4/1a7/XX1XKXXA1 b A1B2N1R1P4a1b2n1r2c1p3 C1p1 5 5",
    "3xkx1x1/3n5/a3p4/x1xNx1x1x/9/C8/X1X3XrX/4P4/3R5/1X1XKX1A1 w A1B1N1R1P3b2n1r1c1p3 B1C1p1 7 15",
    "1bxxkxx2/9/4c4/x3x1x1x/2p6/5rN2/X1X1X3X/4P1C2/1p1BN4/X3KXX1X w A1B1R1C1P4a1b1n2r1c1p2 a1p1 14 10",
    "3xkxxxx/9/4p2R1/2x1x1x1x/p8/1r7/2N3X1X/4R4/9/XX1XKXXP1 b A1B1N1C2P2a1b1n1r1c2p3 B1P1n1 1 8",
    "1p1xkxxxx/9/4b2R1/9/5c1Cc/2PaP4/6X1X/4P4/1b3N3/XXXXKX3 b A2B1N1R1C1P1r2p3 P1a1n1 2 12",
];

/// Endgame positions from self-play.
pub const ENDGAMES: &[&str] = &[
    "1B1k4A/4p4/4p4/7R1/9/6p2/4X1b1P/n8/9/1P1XKXXX1 w A1B1R1C1P1 N1C1P2a1n1r2c1p2 1 19",
    "3b3a1/4k4/9/x7x/5n3/1a2B4/X1X3X1X/5N3/9/1A2K4 w A1N1P2r1p1 B1R1C1P1b1n1r1p2 0 17",
    "R4C3/3kpbN2/4p4/8x/p1r1c4/4B4/X8/3rP4/9/3XKX1A1 w A1N1R1n1 B1C1P2b1p2 4 32",
];

/// The outcome of a bench run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchResult {
    /// Total nodes (the signature).
    pub nodes: u64,
    /// Total search time.
    pub time: Duration,
    /// CPU time of the searching thread, where the system tells it (Linux).
    pub cpu: Option<Duration>,
}

/// CPU time used so far by the calling thread (`/proc/thread-self/schedstat`), if known.
pub fn thread_cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

impl BenchResult {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        (u128::from(self.nodes) * 1000 / self.time.as_millis().max(1)) as u64
    }

    /// Nodes per second of CPU time of the searching thread, if known: less sensitive
    /// than [`BenchResult::nps`] to other programs sharing the machine.
    pub fn nodes_per_cpu_second(&self) -> Option<u64> {
        self.cpu
            .map(|c| (u128::from(self.nodes) * 1_000_000 / c.as_micros().max(1)) as u64)
    }

    /// The closing lines: time, nodes, nodes/s, and CPU time and nodes per CPU second
    /// where known.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "===========================\nTotal time (ms) : {}\nNodes searched  : {}\nNodes/second    : {}",
            self.time.as_millis(),
            self.nodes,
            self.nps()
        );
        if let (Some(cpu), Some(n)) = (self.cpu, self.nodes_per_cpu_second()) {
            s.push_str(&format!(
                "\nCPU time (ms)   : {}\nNodes/CPU second: {n}",
                cpu.as_millis()
            ));
        }
        s
    }
}

/// Depth of the start position: its tree is chance nodes at every ply (every move but
/// the king's reveals a piece), so it is searched shallower than the others.
pub const START_DEPTH: u32 = 2;

/// Runs the bench at `depth` (default [`DEFAULT_DEPTH`]; the start position at most
/// [`START_DEPTH`]) on one thread with a fresh 16 MiB table per position, with the
/// default options (the embedded NNUE net when the build has one), reporting a line
/// per position to `out`.
pub fn run(depth: Option<u32>, out: &mut dyn FnMut(&str)) -> BenchResult {
    let network = Options::default()
        .use_nnue
        .then(Network::embedded)
        .flatten();
    run_with_network(depth, Features::default(), network, out)
}

/// As [`run`], with some search features turned off (for testing them).
pub fn run_with(depth: Option<u32>, features: Features, out: &mut dyn FnMut(&str)) -> BenchResult {
    run_with_network(depth, features, None, out)
}

/// As [`run_with`], evaluating with the NNUE net `network` when one is given.
pub fn run_with_network(
    depth: Option<u32>,
    features: Features,
    network: Option<Arc<Network>>,
    out: &mut dyn FnMut(&str),
) -> BenchResult {
    let net = &network;
    let depth = depth.unwrap_or(DEFAULT_DEPTH).max(1);
    let mut r = run_positions_net(
        &[jieqi_core::START_FEN],
        depth.min(START_DEPTH),
        features,
        net.clone(),
        out,
    );
    // Each position gets a fresh table, so running the groups apart changes nothing.
    let mg = run_positions_net(MIDDLEGAMES, depth, features, net.clone(), out);
    if let Some(n) = mg.nodes_per_cpu_second() {
        out(&format!(
            "info string bench middlegames nodes {} cpu_ms {} nodes_per_cpu_second {n}",
            mg.nodes,
            mg.cpu.unwrap_or_default().as_millis()
        ));
    }
    let eg = run_positions_net(ENDGAMES, depth, features, net.clone(), out);
    for r2 in [mg, eg] {
        r.nodes += r2.nodes;
        r.time += r2.time;
        r.cpu = r.cpu.zip(r2.cpu).map(|(a, b)| a + b);
    }
    r
}

/// Runs a fixed-depth search of each FEN (invalid ones are reported and skipped).
pub fn run_positions(fens: &[&str], depth: u32, out: &mut dyn FnMut(&str)) -> BenchResult {
    run_positions_with(fens, depth, Features::default(), out)
}

/// As [`run_positions`], with these search features.
pub fn run_positions_with(
    fens: &[&str],
    depth: u32,
    features: Features,
    out: &mut dyn FnMut(&str),
) -> BenchResult {
    run_positions_net(fens, depth, features, None, out)
}

/// As [`run_positions_with`], evaluating with `network` when one is given.
fn run_positions_net(
    fens: &[&str],
    depth: u32,
    features: Features,
    network: Option<Arc<Network>>,
    out: &mut dyn FnMut(&str),
) -> BenchResult {
    let mut engine = Engine::new(Options {
        features,
        use_nnue: network.is_some(),
        ..Options::default()
    });
    engine.set_network(network);
    let mut nodes = 0;
    let mut time = Duration::ZERO;
    let mut cpu = Some(Duration::ZERO);
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
        let cpu_start = thread_cpu_time();
        let history = Judge::new(RuleSet::STANDARD, &pos);
        let r = engine.search(&pos, &Limits::depth(depth), &history);
        time += start.elapsed();
        cpu = cpu
            .zip(cpu_start.zip(thread_cpu_time()))
            .map(|(sum, (a, b))| sum + b.saturating_sub(a));
        let n = r.as_ref().map_or(0, |r| r.nodes);
        nodes += n;
        out(&format!(
            "info string bench {}/{} nodes {n} bestmove {}",
            i + 1,
            fens.len(),
            r.map_or("(none)".to_string(), |r| r.best.to_string())
        ));
    }
    BenchResult { nodes, time, cpu }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nodes of a small fixed search with these features: an endgame at depth 7, deep
    /// enough for every feature to act (aspiration windows start at depth 5) and
    /// small enough for the test profile (about 50 000 nodes).
    fn nodes(features: Features) -> u64 {
        run_positions_with(&ENDGAMES[2..3], 7, features, &mut |_| {}).nodes
    }

    #[test]
    fn each_feature_toggle_changes_the_search() {
        let r = run_positions_with(&ENDGAMES[2..3], 7, Features::default(), &mut |_| {});
        if cfg!(target_os = "linux") {
            assert!(r.cpu.is_some_and(|c| c > Duration::ZERO));
            assert!(r.summary().contains("Nodes/CPU second: "));
        }
        let base = nodes(Features::default());
        assert_eq!(
            base,
            nodes(Features::default()),
            "the bench is deterministic"
        );
        for (name, flag) in crate::features::OPTIONS {
            if *name == "Use ABDADA" {
                // Acts only between threads; the bench has one (tested in `search`).
                continue;
            }
            if *name == "Use KeepHistory" {
                // Acts between searches; the bench starts each afresh (tested in
                // `engine`).
                continue;
            }
            if *name == "Use HistoryLMR" {
                // Acts once the history scores pass a ply's worth, beyond this small
                // search (tested in `search` with deeper ones).
                continue;
            }
            let mut f = Features::default();
            *flag(&mut f) = false;
            let n = nodes(f);
            assert_ne!(n, base, "turning {name} off does not change the search");
        }
    }
}
