//! `jieqi`: the command-line front end of the Jieqi (揭棋) workspace.

mod cli;

use clap::{Parser, Subcommand};

/// Jieqi (揭棋): rules, engine, records, server and tournaments.
#[derive(Parser)]
#[command(name = "jieqi", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count leaf nodes of the legal move tree (move generator test and speed measure).
    Perft(cli::perft::PerftArgs),
    /// Speak the engine's UCI dialect on stdin/stdout (docs/uci.md).
    Uci,
    /// Engine bench: fixed positions, fixed depth; node signature and nodes/s.
    Bench(cli::engine::BenchArgs),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Perft(args) => cli::perft::run(args),
        Command::Uci => cli::engine::uci(),
        Command::Bench(args) => cli::engine::bench(args),
    }
}
