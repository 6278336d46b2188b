//! `jieqi match`: two UCI engines, game pairs on shared deals, a progress bar, and
//! W/D/L, Elo, LOS, pentanomial counts and an SPRT verdict at the end.

use std::fs::File;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use jieqi_core::game::RuleSet;

use crate::runner::matches::{FinishedGame, MatchConfig, MatchResult, run_match};
use crate::runner::record::{EventTags, game_record, pgn_text, today};
use crate::runner::stats::{Sprt, SprtVerdict};
use crate::runner::{CapturedIdentity, EngineSpec, GameSettings, RefereeRules, TimeControl};

/// Who learns a captured face-down identity.
#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum CapturedArg {
    /// The capturing side only.
    Capturer,
    /// Nobody.
    Nobody,
    /// Both sides.
    Everyone,
}

/// Arguments of `jieqi match`.
#[derive(Args, Debug)]
pub struct MatchArgs {
    /// An engine command, twice: `builtin:random`, `builtin:greedy`, or a command line
    /// (quotes as in a shell). Results are from the first engine's side.
    #[arg(long = "engine", required = true, num_args = 1)]
    engines: Vec<String>,
    /// Number of games (played in pairs: one deal, colours swapped).
    #[arg(long, default_value_t = 20)]
    games: u32,
    /// Clock per side: seconds+increment.
    #[arg(long, default_value = "10+0.1", conflicts_with = "movetime")]
    tc: String,
    /// Fixed time per move in milliseconds instead of clocks.
    #[arg(long)]
    movetime: Option<u64>,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Stop once decided: `elo0=0,elo1=5[,alpha=0.05,beta=0.05]`.
    #[arg(long)]
    sprt: Option<String>,
    /// Append the games to this file as PGN records (`jieqi record verify` checks them).
    #[arg(long)]
    pgn: Option<PathBuf>,
    /// Seed for reproducible deals (random deals without it).
    #[arg(long)]
    seed: Option<String>,
    /// Milliseconds an engine may overrun its time before it loses.
    #[arg(long, default_value_t = 200)]
    grace_ms: u64,
    /// Plies after which a game is drawn.
    #[arg(long, default_value_t = 400)]
    ply_cap: u32,
    /// Rule set: `standard`, or `tournament` (perpetual chase loses).
    #[arg(long, default_value = "standard")]
    rules: String,
    /// Who learns the identity of a captured face-down piece.
    #[arg(long, value_enum, default_value = "capturer")]
    captured_identity: CapturedArg,
    /// A UCI option, `NAME=VALUE` for both engines or `1:NAME=VALUE` / `2:NAME=VALUE`
    /// for one (repeatable).
    #[arg(long = "option")]
    options: Vec<String>,
    /// No progress output.
    #[arg(long)]
    quiet: bool,
}

/// Runs `jieqi match`.
pub fn run(args: MatchArgs) -> anyhow::Result<()> {
    if args.engines.len() != 2 {
        bail!("give exactly two engines (--engine CMD --engine CMD)");
    }
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let mut specs = Vec::new();
    for (i, cmd) in args.engines.iter().enumerate() {
        let mut spec = EngineSpec::parse(cmd).with_context(|| format!("bad --engine {cmd:?}"))?;
        for o in &args.options {
            let (only, k, v) = parse_option(o)?;
            if only.is_none_or(|n| n == i + 1) {
                spec = spec.with_option(k, v);
            }
        }
        specs.push(spec);
    }
    let tc = match args.movetime {
        Some(0) => bail!("--movetime must be positive"),
        Some(ms) => TimeControl::MoveTime(ms),
        None => TimeControl::parse_clock(&args.tc).map_err(anyhow::Error::msg)?,
    };
    let sprt = match &args.sprt {
        Some(s) => Some(Sprt::parse(s).map_err(|e| anyhow::anyhow!("bad --sprt {s:?}: {e}"))?),
        None => None,
    };
    let rules = RuleSet::by_name(&args.rules)
        .with_context(|| format!("unknown --rules {:?} (standard, tournament)", args.rules))?;
    let specs: Vec<EngineSpec> = specs.into_iter().map(|s| s.for_rules(&rules)).collect();
    let captured_identity = match args.captured_identity {
        CapturedArg::Capturer => CapturedIdentity::Capturer,
        CapturedArg::Nobody => CapturedIdentity::Nobody,
        CapturedArg::Everyone => CapturedIdentity::Everyone,
    };
    let config = MatchConfig {
        engines: [specs[0].clone(), specs[1].clone()],
        games: args.games,
        settings: GameSettings {
            tc,
            grace_ms: args.grace_ms,
            rules: RefereeRules {
                rules: RuleSet {
                    captured_identity,
                    ..rules
                },
                ply_cap: args.ply_cap,
            },
        },
        concurrency: args.concurrency.max(1),
        sprt,
        seed: args.seed.clone(),
        interrupt: Some(interrupt_on_ctrl_c()?),
    };
    let mut pgn = match &args.pgn {
        Some(p) => Some(
            File::options()
                .create(true)
                .append(true)
                .open(p)
                .with_context(|| format!("cannot open --pgn {}", p.display()))?,
        ),
        None => None,
    };
    let tty = std::io::stderr().is_terminal();
    let date = today();
    let mut pgn_error = None;
    let result = run_match(&config, |g, r| {
        if let Some(f) = pgn.as_mut() {
            let event = EventTags {
                event: format!("{} vs {}", r.names[0], r.names[1]),
                round: g.number,
                time_control: tc.to_string(),
                date: date.clone(),
            };
            let rec = game_record(&g.record, &event, &g.salt);
            if let Err(e) = f.write_all(pgn_text(&rec).as_bytes()) {
                pgn_error.get_or_insert(e);
            }
        }
        if !args.quiet {
            progress(g, r, tty);
        }
    })
    .context("the match could not start")?;
    if tty && !args.quiet {
        eprintln!();
    }
    if let Some(e) = pgn_error {
        eprintln!("warning: writing the PGN file failed: {e}");
    }
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(summary(&result, &config).as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

/// Reads `[1:|2:]NAME=VALUE`: the engine it is for (1 or 2; `None` both), name, value.
fn parse_option(o: &str) -> anyhow::Result<(Option<usize>, &str, &str)> {
    let (only, rest) = match o.split_once(':') {
        Some((n @ ("1" | "2"), rest)) => (n.parse().ok(), rest),
        _ => (None, o),
    };
    let (k, v) = rest
        .split_once('=')
        .with_context(|| format!("bad --option {o:?}: expected [1:|2:]NAME=VALUE"))?;
    if k.trim().is_empty() {
        bail!("bad --option {o:?}: empty option name");
    }
    Ok((only, k.trim(), v.trim()))
}

/// One progress update: a redrawn bar on a terminal, a line per game otherwise.
fn progress(g: &FinishedGame, r: &MatchResult, tty: bool) {
    let t = &r.trinomial;
    let done = t.games();
    let elo = r.elo().map_or_else(|| "-".to_string(), |e| e.to_string());
    if tty {
        let width = 30usize;
        let filled = (done as usize * width) / r.scheduled.max(1) as usize;
        eprint!(
            "\r[{}{}] {done}/{}  +{} ={} -{}  Elo {elo}   ",
            "#".repeat(filled),
            ".".repeat(width - filled.min(width)),
            r.scheduled,
            t.wins,
            t.draws,
            t.losses
        );
    } else {
        eprintln!(
            "game {}/{}: {} - {} {} ({}) | +{} ={} -{} Elo {elo}",
            done,
            r.scheduled,
            g.record.red,
            g.record.black,
            g.record.outcome.result_str(),
            g.record.termination(),
            t.wins,
            t.draws,
            t.losses
        );
    }
    let _ = std::io::stderr().flush();
}

/// The final report.
pub fn summary(r: &MatchResult, config: &MatchConfig) -> String {
    let t = &r.trinomial;
    let n = t.games();
    let mut s = String::new();
    let score = if n > 0 {
        (f64::from(t.wins) + f64::from(t.draws) / 2.0) / f64::from(n)
    } else {
        0.0
    };
    s += &format!(
        "Match {} vs {}: {n} games, {}, concurrency {}\n",
        r.names[0], r.names[1], config.settings.tc, config.concurrency
    );
    s += &format!(
        "Score of {}: W {} D {} L {}  ({:.1}%)\n",
        r.names[0],
        t.wins,
        t.draws,
        t.losses,
        100.0 * score
    );
    match r.elo() {
        Some(e) => {
            let basis = if r.pentanomial.pairs() > 0 {
                format!("pentanomial, {} pairs", r.pentanomial.pairs())
            } else {
                format!("trinomial, {n} games")
            };
            s += &format!("Elo {e} (95%, {basis})\n");
        }
        None => s += "Elo: no games\n",
    }
    s += &format!("LOS {:.1}%\n", 100.0 * r.los());
    s += &format!("Pentanomial [0, 0.5, 1, 1.5, 2]: {:?}\n", r.pentanomial.0);
    if let Some(line) = sprt_line(r) {
        s += &line;
    }
    let mut terms: Vec<_> = r.terminations.iter().collect();
    terms.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let terms: Vec<String> = terms.iter().map(|(k, v)| format!("{k} {v}")).collect();
    s += &format!("Terminations: {}\n", terms.join(", "));
    if r.interrupted {
        s += &format!("Interrupted after {n} of {} games\n", r.scheduled);
    }
    s
}

/// The SPRT line of the report: the decision at the first crossing of a bound, and the
/// final LLR when games in flight then moved it.
fn sprt_line(r: &MatchResult) -> Option<String> {
    let (sprt, llr, verdict) = r.sprt?;
    let n = r.trinomial.games();
    let (lo, hi) = sprt.bounds();
    let name = |v: SprtVerdict| match v {
        SprtVerdict::H1 => "H1 accepted (elo1)",
        SprtVerdict::H0 => "H0 accepted (elo0)",
        SprtVerdict::Continue => "undecided",
    };
    let head = format!(
        "SPRT elo0={} elo1={} alpha={} beta={}:",
        sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta
    );
    Some(match r.decided {
        // The decision is the first crossing; the games then in flight count in the
        // totals above and may leave the final LLR elsewhere.
        Some((games, at, v)) if games < n || (at - llr).abs() > 1e-9 => format!(
            "{head} {} at game {games} (LLR {at:.2} [{lo:.2}, {hi:.2}]), stopped early; \
             LLR {llr:.2} after the {} games in flight then\n",
            name(v),
            n.saturating_sub(games)
        ),
        _ => format!(
            "{head} LLR {llr:.2} [{lo:.2}, {hi:.2}] {}{}\n",
            name(verdict),
            if r.stopped_early() {
                ", stopped early"
            } else {
                ""
            }
        ),
    })
}

/// A flag set by the first Ctrl-C (SIGINT) or SIGTERM: the match then plays out the
/// games in progress and prints its result so far. A second signal ends the process
/// at once (exit status 130 for SIGINT).
fn interrupt_on_ctrl_c() -> anyhow::Result<Arc<AtomicBool>> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let flag = Arc::new(AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        // The order matters: the second registration sees the flag set by the first
        // signal and ends the process on the next one.
        signal_hook::flag::register_conditional_shutdown(sig, 130, Arc::clone(&flag))
            .context("cannot watch for Ctrl-C")?;
        signal_hook::flag::register(sig, Arc::clone(&flag)).context("cannot watch for Ctrl-C")?;
    }
    let watched = Arc::clone(&flag);
    std::thread::spawn(move || {
        while !watched.load(std::sync::atomic::Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        eprintln!("\ninterrupted: finishing the games in progress (Ctrl-C again to quit now)");
    });
    Ok(flag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_for_one_or_both_engines() {
        assert_eq!(parse_option("Hash=64").unwrap(), (None, "Hash", "64"));
        assert_eq!(
            parse_option("2:Skill Level = 3").unwrap(),
            (Some(2), "Skill Level", "3")
        );
        assert_eq!(parse_option("3:x=1").unwrap(), (None, "3:x", "1"));
        assert!(parse_option("Hash").is_err());
        assert!(parse_option("1:=4").is_err());
    }

    #[test]
    fn the_sprt_line_keeps_the_decision_made_before_the_games_in_flight() {
        let sprt = Sprt::parse("elo0=0,elo1=20").unwrap();
        let mut r = MatchResult::default();
        r.scheduled = 20;
        for _ in 0..10 {
            r.trinomial.add(1.0);
        }
        assert_eq!(sprt_line(&r), None);
        // Crossed the lower bound at game 8; two more games brought the LLR back in.
        r.sprt = Some((sprt, -2.71, SprtVerdict::Continue));
        r.decided = Some((8, -2.95, SprtVerdict::H0));
        let line = sprt_line(&r).unwrap();
        assert!(
            line.contains("H0 accepted (elo0) at game 8 (LLR -2.95"),
            "{line}"
        );
        assert!(line.contains("stopped early"), "{line}");
        assert!(
            line.contains("LLR -2.71 after the 2 games in flight"),
            "{line}"
        );
        // Decided by the last game counted: one plain line.
        r.sprt = Some((sprt, 3.0, SprtVerdict::H1));
        r.decided = Some((10, 3.0, SprtVerdict::H1));
        let line = sprt_line(&r).unwrap();
        assert!(
            line.ends_with("LLR 3.00 [-2.94, 2.94] H1 accepted (elo1), stopped early\n"),
            "{line}"
        );
    }
}
