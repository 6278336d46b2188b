//! `jieqi datagen` and `jieqi train`: the NNUE pipeline (docs/nnue.md).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Args;
use jieqi_engine::datagen::{self, Config};
use jieqi_engine::nnue::Network;
use jieqi_train::{FloatNet, TrainConfig, data};

/// Arguments of `jieqi datagen`.
#[derive(Args)]
pub struct DatagenArgs {
    /// The data file: created, or resumed when it exists (same seed, nodes and random
    /// plies).
    #[arg(long)]
    out: PathBuf,
    /// Games in the run (indices 0..GAMES; a resumed run skips those in the file).
    #[arg(long, default_value_t = 1000)]
    games: u32,
    /// Nodes searched per move.
    #[arg(long, default_value_t = 5000)]
    nodes: u64,
    /// The run's seed: game g's deal and random opening come from (seed, g).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Random legal moves at the start of each game.
    #[arg(long, default_value_t = 4)]
    random_plies: u32,
    /// Games played at once (one search thread each).
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Seconds between progress lines.
    #[arg(long, default_value_t = 5)]
    every: u64,
}

/// Runs `jieqi datagen`.
pub fn datagen(args: DatagenArgs) -> anyhow::Result<()> {
    let cfg = Config {
        games: args.games,
        nodes: args.nodes,
        seed: args.seed,
        random_plies: args.random_plies,
        threads: args.threads.max(1),
    };
    let mut last = Instant::now();
    let every = Duration::from_secs(args.every);
    let p = datagen::run(&cfg, &args.out, &mut |p| {
        if last.elapsed() >= every {
            last = Instant::now();
            eprintln!("{}", p.line());
        }
    })
    .with_context(|| format!("datagen into {}", args.out.display()))?;
    eprintln!("{}", p.line());
    eprintln!(
        "done: {} games this session, {} positions in {:.1} s",
        p.session_games,
        p.positions,
        p.elapsed.as_secs_f64()
    );
    Ok(())
}

/// Arguments of `jieqi train`.
#[derive(Args)]
pub struct TrainArgs {
    /// Data files written by `jieqi datagen`.
    #[arg(required = true)]
    data: Vec<PathBuf>,
    /// Where to write the quantised net (loadable with the engine's `EvalFile`).
    #[arg(long)]
    out: PathBuf,
    /// Hidden units per perspective (a multiple of 16).
    #[arg(long, default_value_t = 128)]
    hidden: usize,
    /// Output buckets, by the number of pieces on the board (1 to 16; 1: one output).
    #[arg(long, default_value_t = 1)]
    buckets: usize,
    /// Passes over the training positions.
    #[arg(long, default_value_t = 10)]
    epochs: u32,
    /// Positions per gradient step.
    #[arg(long, default_value_t = 16384)]
    batch: usize,
    /// Adam's learning rate in the first epoch.
    #[arg(long, default_value_t = 0.001)]
    lr: f32,
    /// Factor applied to the learning rate after each epoch.
    #[arg(long, default_value_t = 0.85)]
    lr_decay: f32,
    /// Centipawns of a net output of 1.0 (the target is sigmoid(score / scale)).
    #[arg(long, default_value_t = 500)]
    scale: u32,
    /// Weight of the search score in the target (the rest is the game result).
    #[arg(long, default_value_t = 0.7)]
    lambda: f32,
    /// Threads sharing each batch.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Seed of the initial weights and the shuffles.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Hold out the games whose index is a multiple of this (0: none).
    #[arg(long, default_value_t = 10)]
    valid_every: u32,
    /// Do not add the training positions mirrored left to right.
    #[arg(long)]
    no_mirror: bool,
    /// Train on about one position in this many of each game (1: all); held-out games
    /// are taken whole.
    #[arg(long, default_value_t = 1)]
    sample: u32,
    /// Go on training this net (a file `jieqi train` wrote) instead of starting from
    /// random weights; it must have the --buckets and --scale given, and at most the
    /// --hidden given: a smaller net is widened to it (its units kept, new units added
    /// that contribute nothing at first), so it starts from the same evaluation.
    #[arg(long)]
    init: Option<PathBuf>,
}

/// The net of `jieqi train --init`, checked against the shape and scale asked for and
/// widened to `--hidden` units if it has fewer.
fn initial_net(path: &Path, args: &TrainArgs) -> anyhow::Result<FloatNet> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let net = Network::from_bytes(&bytes)
        .with_context(|| format!("{} is not a net the engine can load", path.display()))?;
    let p = net.parts();
    if p.hidden > args.hidden || (p.buckets, p.scale) != (args.buckets, args.scale as i32) {
        bail!(
            "{} has {} hidden units, {} output buckets and scale {}; \
             pass --hidden {} (or more) --buckets {} --scale {} to go on training it",
            path.display(),
            p.hidden,
            p.buckets,
            p.scale,
            p.hidden,
            p.buckets,
            p.scale
        );
    }
    let float = FloatNet::from_network(&net);
    if p.hidden < args.hidden {
        eprintln!(
            "widening {} from {} to {} hidden units",
            path.display(),
            p.hidden,
            args.hidden
        );
        return Ok(float.widen(args.hidden, args.seed));
    }
    Ok(float)
}

/// Runs `jieqi train`.
pub fn train(args: TrainArgs) -> anyhow::Result<()> {
    if args.hidden == 0 || args.hidden % 16 != 0 {
        bail!("--hidden must be a positive multiple of 16");
    }
    if !(1..=jieqi_engine::nnue::MAX_BUCKETS).contains(&args.buckets) {
        bail!(
            "--buckets must be between 1 and {}",
            jieqi_engine::nnue::MAX_BUCKETS
        );
    }
    let init = args
        .init
        .as_deref()
        .map(|p| initial_net(p, &args))
        .transpose()?;
    let start = Instant::now();
    if args.sample == 0 {
        bail!("--sample must be at least 1");
    }
    let selection = data::Selection {
        valid_every: args.valid_every,
        sample: args.sample,
        mirror: !args.no_mirror,
    };
    let (train, valid) = data::load(&args.data, selection)?;
    if train.is_empty() {
        bail!("no training positions in {:?}", args.data);
    }
    eprintln!(
        "loaded {} training and {} held-out positions in {:.1} s",
        train.len(),
        valid.len(),
        start.elapsed().as_secs_f64()
    );
    eprintln!(
        "hand-written evaluation as the output: train loss {:.6} held-out loss {:.6}",
        train.hand_written_loss(args.scale as f32, args.lambda),
        valid.hand_written_loss(args.scale as f32, args.lambda)
    );
    let cfg = TrainConfig {
        hidden: args.hidden,
        buckets: args.buckets,
        epochs: args.epochs,
        batch: args.batch,
        lr: args.lr,
        lr_decay: args.lr_decay,
        scale: args.scale as f32,
        lambda: args.lambda,
        threads: args.threads.max(1),
        seed: args.seed,
    };
    let init = init.unwrap_or_else(|| FloatNet::new(cfg.hidden, cfg.buckets, cfg.seed));
    let (net, reports) = jieqi_train::train_from(&cfg, init, &train, &valid, &mut |r| {
        eprintln!(
            "epoch {:>3} lr {:.6} train loss {:.6} held-out loss {:.6} {:.0} pos/s",
            r.epoch, r.lr, r.train_loss, r.valid_loss, r.positions_per_second
        );
    });
    if let Some(b) = reports[1..]
        .iter()
        .min_by(|a, b| a.valid_loss.total_cmp(&b.valid_loss))
        .filter(|_| !valid.is_empty())
    {
        eprintln!(
            "kept the net of epoch {} (held-out loss {:.6})",
            b.epoch, b.valid_loss
        );
    }
    let q = net
        .quantise(args.scale as i32)
        .context("the trained net does not fit the engine's format")?;
    std::fs::write(&args.out, q.to_bytes())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    eprintln!(
        "wrote {} ({} hidden units, {} output buckets)",
        args.out.display(),
        args.hidden,
        args.buckets
    );
    Ok(())
}
