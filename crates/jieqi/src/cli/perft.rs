//! `jieqi perft`.

use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;
use jieqi_core::perft::{Mode, divide, perft};
use jieqi_core::{Deal, Position};

/// Arguments of `jieqi perft`.
#[derive(Args)]
pub struct PerftArgs {
    /// Position to count from (default: the Jieqi start position).
    #[arg(long)]
    fen: Option<String>,
    /// Depth in plies.
    #[arg(long)]
    depth: u32,
    /// Reveal face-down movers as this deal says (RED/BLACK, 15 letters each).
    #[arg(long, conflicts_with = "chance")]
    deal: Option<String>,
    /// Branch each face-down move over the distinct identities in the mover's pool.
    #[arg(long)]
    chance: bool,
    /// Print `move: count` per root move.
    #[arg(long)]
    divide: bool,
}

/// Runs `jieqi perft`.
pub fn run(args: PerftArgs) -> anyhow::Result<()> {
    let pos = match &args.fen {
        Some(f) => Position::from_fen(f).with_context(|| format!("bad --fen {f:?}"))?,
        None => Position::start(),
    };
    let deal = match &args.deal {
        Some(d) => Some(Deal::parse(d).with_context(|| format!("bad --deal {d:?}"))?),
        None => None,
    };
    let mode = match (&deal, args.chance) {
        (Some(d), _) => Mode::Deal(d),
        (None, true) => Mode::Chance,
        (None, false) => bail!("say how face-down movers are revealed: --deal DEAL or --chance"),
    };
    let start = Instant::now();
    let cpu_start = cpu_time_ns();
    let nodes = if args.divide {
        let mut total = 0;
        for (m, n) in divide(&pos, args.depth, mode) {
            println!("{m}: {n}");
            total += n;
        }
        println!();
        total
    } else {
        perft(&pos, args.depth, mode)
    };
    let secs = start.elapsed().as_secs_f64();
    println!("Nodes searched: {nodes}");
    let mnps = |s: f64| nodes as f64 / s.max(1e-9) / 1e6;
    match (cpu_start, cpu_time_ns()) {
        (Some(a), Some(b)) => {
            let cpu = (b - a) as f64 / 1e9;
            eprintln!(
                "{secs:.3} s wall, {:.1} M nodes/s; {cpu:.3} s on CPU, {:.1} M nodes per CPU second",
                mnps(secs),
                mnps(cpu)
            );
        }
        _ => eprintln!("{secs:.3} s, {:.1} M nodes/s", mnps(secs)),
    }
    Ok(())
}

/// Time this thread has spent on a CPU (Linux `schedstat`), so that speed can be told
/// apart from time spent waiting for a core on a busy machine.
fn cpu_time_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}
