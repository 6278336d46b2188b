//! `jieqi`: the command-line front end of the Jieqi (揭棋) workspace.

mod cli;
mod runner;

/// mimalloc instead of the C library's allocator: the server allocates and frees a few
/// hundred small buffers per move across its threads, and glibc's malloc took ≈ 10 % of
/// its CPU (BENCHMARKS.md, issue 19 item 3).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    /// Run the game server and web UI (http://127.0.0.1:8080 by default).
    Serve(cli::serve::ServeArgs),
    /// Drive many concurrent games over WebSockets and measure the server.
    Loadtest(cli::loadtest::LoadtestArgs),
    /// Speak the engine's UCI dialect on stdin/stdout (docs/uci.md).
    Uci,
    /// Engine bench: fixed positions, fixed depth; node signature and nodes/s.
    Bench(cli::engine::BenchArgs),
    /// Game records: convert between PGN, JieqiBox JSON and web JSON; show; verify.
    Record(cli::record::RecordArgs),
    /// Direct a tournament kept in a file: Swiss, round robin, knockout, deals.
    Tournament(cli::tournament::TournamentArgs),
    /// Play a match between two UCI engines, with Elo, LOS and SPRT statistics.
    Match(cli::match_cmd::MatchArgs),
    /// Self-play training data for the NNUE evaluation (docs/nnue.md).
    Datagen(cli::nnue::DatagenArgs),
    /// Train an NNUE net on `jieqi datagen` files (docs/nnue.md).
    Train(cli::nnue::TrainArgs),
    /// Play against an engine in the terminal.
    Play(cli::play::PlayArgs),
    /// A built-in baseline engine (random or greedy) speaking UCI on stdin/stdout.
    #[command(hide = true)]
    BuiltinEngine(cli::builtin::BuiltinArgs),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Perft(args) => cli::perft::run(args),
        Command::Serve(args) => cli::serve::run(args),
        Command::Loadtest(args) => cli::loadtest::run(args),
        Command::Uci => cli::engine::uci(),
        Command::Bench(args) => cli::engine::bench(args),
        Command::Record(args) => cli::record::run(args),
        Command::Tournament(args) => cli::tournament::run(args),
        Command::Match(args) => cli::match_cmd::run(args),
        Command::Datagen(args) => cli::nnue::datagen(args),
        Command::Train(args) => cli::nnue::train(args),
        Command::Play(args) => cli::play::run(args),
        Command::BuiltinEngine(args) => cli::builtin::run(args),
    }
}
