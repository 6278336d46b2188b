//! `jieqi uci` and `jieqi bench`: the engine's front ends.

use clap::Args;

/// Arguments of `jieqi bench`.
#[derive(Args)]
pub struct BenchArgs {
    /// Search depth in plies (default: the bench's own).
    #[arg(long)]
    depth: Option<u32>,
}

/// Runs the UCI protocol on stdin/stdout (`docs/uci.md`).
pub fn uci() -> anyhow::Result<()> {
    let stdin = std::io::BufReader::new(std::io::stdin());
    jieqi_engine::uci::run(stdin, std::io::stdout());
    Ok(())
}

/// Runs the bench: fixed positions at a fixed depth; prints the node signature and nodes/s.
pub fn bench(args: BenchArgs) -> anyhow::Result<()> {
    let r = jieqi_engine::bench::run(args.depth, &mut |l| println!("{l}"));
    println!("{}", r.summary());
    Ok(())
}
