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
    /// Direct a tournament kept in a file: Swiss, round robin, knockout, deals.
    Tournament(cli::tournament::TournamentArgs),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Perft(args) => cli::perft::run(args),
        Command::Tournament(args) => cli::tournament::run(args),
    }
}
