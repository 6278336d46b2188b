//! `jieqi tournament`: direct an event kept in a JSON file.
//!
//! Every command reads the file, does one thing, and writes it back atomically (a
//! temporary file renamed over the old one). The file holds the unpublished deals, so
//! it is the organiser's secret; `export` makes the public views.

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, bail};
use clap::{Args, Subcommand, ValueEnum};

use crate::runner::record::{EventTags, game_record, pgn_text, today};
use crate::runner::{EngineSpec, GameRecord, GameSettings, RefereeRules, TimeControl, play_game};
use jieqi_core::game::RuleSet;
use jieqi_core::{Color, Deal};
use jieqi_tournament::{
    DealMode, Entropy, Format, GameResult, KnockoutConfig, PairOptions, Player, PlayerId,
    SeededEntropy, Settings, TieBreak, TieBreakGame, Tournament, TournamentError,
};

/// Arguments of `jieqi tournament`.
#[derive(Args)]
pub struct TournamentArgs {
    #[command(subcommand)]
    command: TournamentCommand,
}

#[derive(Subcommand)]
enum TournamentCommand {
    /// Create a new event file.
    New(NewArgs),
    /// Enter a player.
    AddPlayer(AddPlayerArgs),
    /// Withdraw a player from later rounds.
    Withdraw {
        /// The event file.
        file: PathBuf,
        /// Name or start number.
        player: String,
    },
    /// Pair the next round and commit its deals.
    Pair(PairArgs),
    /// Remove the last round if no result is entered yet (to pair it again).
    Unpair {
        /// The event file.
        file: PathBuf,
    },
    /// Enter or correct a result: 1-0, 0-1, 1/2, +- / -+ (forfeit), -- (double forfeit).
    Result(ResultArgs),
    /// Give a player's secret contribution to a joint deal.
    Contribute {
        /// The event file.
        file: PathBuf,
        /// Round number.
        round: usize,
        /// Board number.
        board: usize,
        /// `red` or `black`.
        side: String,
        /// The secret (any text).
        secret: String,
    },
    /// Show the pairings of a round (default: the last).
    Pairings {
        /// The event file.
        file: PathBuf,
        /// Round number.
        round: Option<usize>,
    },
    /// Show the standings (and places once there is a knockout or the event is over).
    Standings {
        /// The event file.
        file: PathBuf,
    },
    /// Write a public view: standings CSV, games CSV, JSON or an HTML page.
    Export(ExportArgs),
    /// Check every published deal against its commitment.
    Verify {
        /// The event file.
        file: PathBuf,
    },
    /// Play the event among UCI engines (each player's `--engine`) with the match
    /// runner: pair, play, record, until the end. Resumable: the file is saved after
    /// every game.
    Run(RunArgs),
}

#[derive(Args)]
struct RunArgs {
    /// The event file.
    file: PathBuf,
    /// Clock per side: seconds+increment.
    #[arg(long, default_value = "10+0.1", conflicts_with = "movetime")]
    tc: String,
    /// Fixed time per move in milliseconds instead of clocks.
    #[arg(long)]
    movetime: Option<u64>,
    /// Milliseconds an engine may overrun its time before it loses.
    #[arg(long, default_value_t = 200)]
    grace_ms: u64,
    /// Plies after which a game is drawn.
    #[arg(long, default_value_t = 400)]
    ply_cap: u32,
    /// Rule set: `standard`, or `tournament` (perpetual chase loses).
    #[arg(long, default_value = "standard")]
    rules: String,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Stop after pairing and playing this many rounds.
    #[arg(long)]
    rounds: Option<usize>,
    /// Append every game to this file as PGN records (`jieqi record verify` checks them).
    #[arg(long)]
    pgn: Option<PathBuf>,
    /// Rewrite this HTML standings page after every round.
    #[arg(long)]
    html: Option<PathBuf>,
    /// Derive deals, salts and joint contributions from this text (reproducible).
    #[arg(long)]
    seed: Option<String>,
    /// No per-game progress lines.
    #[arg(long)]
    quiet: bool,
}

#[derive(Copy, Clone, ValueEnum)]
enum FormatName {
    /// Swiss system.
    Swiss,
    /// Round robin (Berger tables).
    RoundRobin,
    /// Double round robin (colours reversed in the second cycle).
    DoubleRoundRobin,
    /// Single elimination seeded by the ranking list.
    Knockout,
    /// Swiss rounds, then the top players into a knockout.
    SwissKnockout,
    /// The 2011 Hong Kong event (seed 002): 6 Swiss rounds, top 8, best of 3.
    Hk2011,
}

#[derive(Args)]
struct NewArgs {
    /// The event file to create.
    file: PathBuf,
    /// Event name.
    #[arg(long)]
    name: String,
    /// Format.
    #[arg(long, value_enum, default_value = "swiss")]
    format: FormatName,
    /// Swiss rounds.
    #[arg(long, default_value_t = 6)]
    rounds: u32,
    /// Players going through to the knockout (swiss-knockout).
    #[arg(long, default_value_t = 8)]
    qualifiers: u32,
    /// Games per knockout match.
    #[arg(long, default_value_t = 3)]
    best_of: u32,
    /// Tied knockout matches: armageddon, sudden-death or higher-seed.
    #[arg(long, default_value = "armageddon")]
    tie_break: String,
    /// Play a third-place match.
    #[arg(long)]
    third_place: bool,
    /// Default deal mode: random, duplicate, organiser or joint.
    #[arg(long, default_value = "random")]
    deal_mode: String,
    /// Tie-breaks in order, comma separated (buchholz, median, sb, wins, de).
    #[arg(long)]
    tiebreaks: Option<String>,
    /// Points for a bye: 1, 0.5 or 0.
    #[arg(long, default_value = "1")]
    bye_points: String,
    /// Overwrite an existing file.
    #[arg(long)]
    force: bool,
}

#[derive(Args)]
struct AddPlayerArgs {
    /// The event file.
    file: PathBuf,
    /// Unique name.
    name: String,
    /// Rating.
    #[arg(long)]
    rating: Option<u32>,
    /// Organiser's seed (1 = top), ahead of ratings.
    #[arg(long)]
    seed: Option<u32>,
    /// UCI engine command line (for `jieqi tournament run`).
    #[arg(long)]
    engine: Option<String>,
}

#[derive(Args)]
struct PairArgs {
    /// The event file.
    file: PathBuf,
    /// Deal mode for this round (default: the event's).
    #[arg(long)]
    deal_mode: Option<String>,
    /// Organiser deals (RED/BLACK text): once for every board, or once per board.
    #[arg(long = "deal")]
    deals: Vec<String>,
    /// Derive deals and salts from this text instead of the OS generator
    /// (reproducible; for tests and demonstrations only — anyone with it can predict
    /// the deals).
    #[arg(long)]
    seed: Option<String>,
}

#[derive(Args)]
struct ResultArgs {
    /// The event file.
    file: PathBuf,
    /// Round number.
    round: usize,
    /// Board number.
    board: usize,
    /// 1-0, 0-1, 1/2, +-, -+ or --.
    result: String,
    /// Change a result already entered.
    #[arg(long)]
    correct: bool,
}

#[derive(Copy, Clone, ValueEnum)]
enum ExportFormat {
    /// Standings with places.
    Csv,
    /// Every game with deal commitments.
    GamesCsv,
    /// The public JSON view.
    Json,
    /// A self-contained HTML page (standings, crosstable, bracket).
    Html,
}

#[derive(Args)]
struct ExportArgs {
    /// The event file.
    file: PathBuf,
    /// What to write.
    #[arg(long, value_enum)]
    format: ExportFormat,
    /// Output file (default: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// Randomness from the operating system's generator.
pub struct OsEntropy;

impl Entropy for OsEntropy {
    fn fill(&mut self, buf: &mut [u8]) {
        getrandom::fill(buf).expect("the operating system's random generator failed");
    }
}

/// Loads an event file.
pub fn load(path: &Path) -> anyhow::Result<Tournament> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the event file {}", path.display()))?;
    Tournament::from_json(&text).with_context(|| format!("in {}", path.display()))
}

/// Saves an event file atomically.
pub fn save(path: &Path, t: &Tournament) -> anyhow::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, t.to_json() + "\n")
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}

fn parse_mode(s: &str) -> anyhow::Result<DealMode> {
    DealMode::parse(s).with_context(|| {
        format!("unknown deal mode {s:?}; use random, duplicate, organiser or joint")
    })
}

/// Runs `jieqi tournament`.
pub fn run(args: TournamentArgs) -> anyhow::Result<()> {
    match args.command {
        TournamentCommand::New(a) => new(a),
        TournamentCommand::AddPlayer(a) => {
            let mut t = load(&a.file)?;
            let player = Player {
                name: a.name.clone(),
                rating: a.rating,
                seed: a.seed,
                engine: a.engine,
                withdrawn: false,
            };
            let id = t.add_player(player)?;
            save(&a.file, &t)?;
            println!(
                "entered {} ({} players; start number {})",
                t.players[id as usize].name,
                t.players.len(),
                t.start_number(id)
            );
            Ok(())
        }
        TournamentCommand::Withdraw { file, player } => {
            let mut t = load(&file)?;
            let p = t.find_player(&player)?;
            t.withdraw(p)?;
            save(&file, &t)?;
            println!("{} withdrawn from later rounds", t.players[p as usize].name);
            Ok(())
        }
        TournamentCommand::Pair(a) => pair(a),
        TournamentCommand::Unpair { file } => {
            let mut t = load(&file)?;
            let r = t.unpair()?;
            save(&file, &t)?;
            println!("round {r} removed; its deal commitments are withdrawn");
            Ok(())
        }
        TournamentCommand::Result(a) => {
            let mut t = load(&a.file)?;
            let res = GameResult::parse(&a.result).with_context(|| {
                format!(
                    "unknown result {:?}; use 1-0, 0-1, 1/2, +-, -+ or --",
                    a.result
                )
            })?;
            t.set_result(a.round, a.board, res, a.correct)?;
            save(&a.file, &t)?;
            let g = &t.rounds[a.round - 1].games[a.board - 1];
            println!(
                "round {} board {}: {} - {} {}",
                a.round,
                a.board,
                t.players[g.red as usize].name,
                t.players[g.black as usize].name,
                res.text()
            );
            if t.rounds[a.round - 1].complete() {
                println!("round {} is complete", a.round);
            }
            Ok(())
        }
        TournamentCommand::Contribute {
            file,
            round,
            board,
            side,
            secret,
        } => {
            let mut t = load(&file)?;
            let color = match side.to_ascii_lowercase().as_str() {
                "red" | "r" => Color::Red,
                "black" | "b" => Color::Black,
                _ => bail!("side must be red or black, not {side:?}"),
            };
            t.contribute(round, board, color, &secret)?;
            save(&file, &t)?;
            let d = t.rounds[round - 1].games[board - 1].deal.expect("checked");
            match &t.deals[d].commitment {
                Some(c) => println!("both contributions in; deal committed: {c}"),
                None => println!("contribution recorded; waiting for the other side"),
            }
            Ok(())
        }
        TournamentCommand::Pairings { file, round } => {
            let t = load(&file)?;
            let r = round.unwrap_or(t.rounds.len());
            if r == 0 || r > t.rounds.len() {
                bail!("there is no round {r} ({} paired)", t.rounds.len());
            }
            print!("{}", pairings_text(&t, r));
            Ok(())
        }
        TournamentCommand::Standings { file } => {
            let t = load(&file)?;
            print!("{}", standings_text(&t));
            Ok(())
        }
        TournamentCommand::Export(a) => {
            let t = load(&a.file)?;
            let text = match a.format {
                ExportFormat::Csv => t.standings_csv(),
                ExportFormat::GamesCsv => t.games_csv(),
                ExportFormat::Json => {
                    serde_json::to_string_pretty(&t.public_json()).expect("JSON") + "\n"
                }
                ExportFormat::Html => t.standings_html(),
            };
            match a.output {
                Some(p) => std::fs::write(&p, text)
                    .with_context(|| format!("cannot write {}", p.display()))?,
                None => print!("{text}"),
            }
            Ok(())
        }
        TournamentCommand::Run(a) => run_engines(a),
        TournamentCommand::Verify { file } => {
            let t = load(&file)?;
            let (mut ok, mut secret) = (0, 0);
            for (i, d) in t.deals.iter().enumerate() {
                if !d.published {
                    secret += 1;
                    continue;
                }
                if !d.verifies() {
                    bail!("deal {} does NOT match its commitment", i + 1);
                }
                ok += 1;
            }
            println!("{ok} published deal(s) match their commitments; {secret} not yet published");
            Ok(())
        }
    }
}

fn new(a: NewArgs) -> anyhow::Result<()> {
    if a.file.exists() && !a.force {
        bail!("{} exists; pass --force to overwrite it", a.file.display());
    }
    let tie_break = match a.tie_break.as_str() {
        "armageddon" => TieBreakGame::Armageddon,
        "sudden-death" => TieBreakGame::SuddenDeath,
        "higher-seed" => TieBreakGame::HigherSeed,
        s => bail!("unknown tie-break game {s:?}; use armageddon, sudden-death or higher-seed"),
    };
    let ko = KnockoutConfig {
        best_of: a.best_of,
        tie_break,
        third_place: a.third_place,
    };
    let format = match a.format {
        FormatName::Swiss => Format::Swiss { rounds: a.rounds },
        FormatName::RoundRobin => Format::RoundRobin { cycles: 1 },
        FormatName::DoubleRoundRobin => Format::RoundRobin { cycles: 2 },
        FormatName::Knockout => Format::Knockout(ko),
        FormatName::SwissKnockout => Format::SwissKnockout {
            swiss_rounds: a.rounds,
            qualifiers: a.qualifiers,
            knockout: ko,
        },
        FormatName::Hk2011 => Format::hong_kong_2011(),
    };
    let mut settings = Settings::new(format);
    settings.deal_mode = parse_mode(&a.deal_mode)?;
    if let Some(list) = &a.tiebreaks {
        settings.tiebreaks = list
            .split(',')
            .filter(|s| !s.trim().is_empty())
            .map(|s| {
                TieBreak::parse(s).with_context(|| {
                    format!("unknown tie-break {s:?}; use buchholz, median, sb, wins, de")
                })
            })
            .collect::<anyhow::Result<_>>()?;
    }
    settings.bye_half_points = match a.bye_points.as_str() {
        "1" => 2,
        "0.5" | "1/2" | "½" => 1,
        "0" => 0,
        s => bail!("a bye is worth 1, 0.5 or 0 points, not {s:?}"),
    };
    let t = Tournament::new(&a.name, settings)?;
    save(&a.file, &t)?;
    println!("created {}: {}", a.file.display(), t.describe_format());
    Ok(())
}

fn pair(a: PairArgs) -> anyhow::Result<()> {
    let mut t = load(&a.file)?;
    let organiser_deals = a
        .deals
        .iter()
        .map(|d| Deal::parse(d).with_context(|| format!("bad --deal {d:?}")))
        .collect::<anyhow::Result<Vec<Deal>>>()?;
    let mut deal_mode = a.deal_mode.as_deref().map(parse_mode).transpose()?;
    if !organiser_deals.is_empty() && deal_mode.is_none() {
        deal_mode = Some(DealMode::Organiser);
    }
    if deal_mode.unwrap_or(t.settings.deal_mode) == DealMode::Organiser
        && organiser_deals.is_empty()
    {
        bail!("organiser deals: give --deal RED/BLACK once, or once per board");
    }
    let opts = PairOptions {
        deal_mode,
        organiser_deals,
    };
    let r = match &a.seed {
        Some(s) => t.pair(&opts, &mut SeededEntropy::new(s.as_bytes()))?,
        None => t.pair(&opts, &mut OsEntropy)?,
    };
    save(&a.file, &t)?;
    print!("{}", pairings_text(&t, r));
    Ok(())
}

fn pad(s: &str, width: usize) -> String {
    // East Asian characters take two columns in a terminal.
    let cols: usize = s
        .chars()
        .map(|c| if (c as u32) >= 0x1100 { 2 } else { 1 })
        .sum();
    format!("{s}{}", " ".repeat(width.saturating_sub(cols)))
}

/// The pairings of round `r` as text.
pub fn pairings_text(t: &Tournament, r: usize) -> String {
    let round = &t.rounds[r - 1];
    let name = |p: u32| t.players[p as usize].name.as_str();
    let mut s = format!(
        "round {r} ({}, {} deals)",
        t.round_name(r),
        round.deal_mode.name()
    );
    if let Some(rel) = round.relaxed {
        if rel != jieqi_tournament::swiss::Relaxation::None {
            s.push_str(&format!(" — unavoidable: {rel:?} rule relaxed"));
        }
    }
    s.push('\n');
    for (i, g) in round.games.iter().enumerate() {
        let deal = g
            .deal
            .and_then(|d| t.deals.get(d))
            .map(|d| match (d.published, &d.deal, &d.commitment) {
                (true, Some(deal), _) => format!("deal {deal} salt {}", d.salt),
                (_, _, Some(c)) => c.clone(),
                _ => "joint deal: awaiting contributions".to_string(),
            })
            .unwrap_or_default();
        let game = g
            .knockout
            .map(|m| format!(" [match {} game {}]", m.index + 1, m.game))
            .unwrap_or_default();
        s.push_str(&format!(
            "{:3}. {} - {} {:4}{game}  {deal}\n",
            i + 1,
            pad(name(g.red), 16),
            pad(name(g.black), 16),
            g.result.map_or("", |x| x.text()),
        ));
    }
    if let Some(b) = round.bye {
        s.push_str(&format!("     bye: {}\n", name(b)));
    }
    s
}

/// The standings (and places) as text.
pub fn standings_text(t: &Tournament) -> String {
    let mut s = format!("{} — {}\n", t.name, t.describe_format());
    s.push_str(&format!(
        "{:>4} {:>4} {} {:>5}",
        "rk",
        "no",
        pad("name", 18),
        "pts"
    ));
    for tb in &t.settings.tiebreaks {
        s.push_str(&format!(" {:>6}", tb.short()));
    }
    s.push('\n');
    for row in t.standings() {
        s.push_str(&format!(
            "{:>3}{} {:>4} {} {:>5}",
            row.rank,
            if row.shared { "=" } else { " " },
            t.start_number(row.player),
            pad(&t.players[row.player as usize].name, 18),
            row.points
        ));
        for v in &row.tiebreaks {
            s.push_str(&format!(
                " {:>6}",
                v.map_or("-".to_string(), |x| x.to_string())
            ));
        }
        s.push('\n');
    }
    if t.bracket.is_some() || t.is_finished() {
        s.push_str("\nplaces\n");
        for p in t.places() {
            s.push_str(&format!(
                "{:>4} {} {}\n",
                p.place.map_or("-".to_string(), |x| x.to_string()),
                pad(&t.players[p.player as usize].name, 18),
                p.how
            ));
        }
    }
    s
}

/// One game the engines still have to play.
struct Job {
    board: usize,
    red: EngineSpec,
    black: EngineSpec,
    deal: Deal,
}

/// The result the table records for a finished engine game: a side that could not
/// even start its engine loses by forfeit.
fn result_of(rec: &GameRecord) -> GameResult {
    let unplayed = rec.moves.is_empty() && rec.faulty.is_some();
    match rec.outcome.winner() {
        Some(winner) if unplayed => GameResult::forfeit_win(winner),
        _ => GameResult::from(&rec.outcome),
    }
}

fn run_engines(a: RunArgs) -> anyhow::Result<()> {
    let mut t = load(&a.file)?;
    let tc = match a.movetime {
        Some(0) => bail!("--movetime must be positive"),
        Some(ms) => TimeControl::MoveTime(ms),
        None => TimeControl::parse_clock(&a.tc).map_err(anyhow::Error::msg)?,
    };
    let rules = RuleSet::by_name(&a.rules)
        .with_context(|| format!("unknown --rules {:?} (standard, tournament)", a.rules))?;
    let settings = GameSettings {
        tc,
        grace_ms: a.grace_ms,
        rules: RefereeRules {
            rules,
            ply_cap: a.ply_cap,
        },
    };
    let mut specs: HashMap<PlayerId, EngineSpec> = HashMap::new();
    let mut missing = Vec::new();
    for (i, p) in t.players.iter().enumerate() {
        match &p.engine {
            Some(cmd) => {
                let mut spec = EngineSpec::parse(cmd)
                    .with_context(|| format!("player {}: bad engine {cmd:?}", p.name))?;
                spec.name = p.name.clone();
                specs.insert(i as PlayerId, spec.for_rules(&rules));
            }
            None if !p.withdrawn => missing.push(p.name.clone()),
            None => {}
        }
    }
    if !missing.is_empty() {
        bail!(
            "these players have no engine (add-player --engine CMD): {}",
            missing.join(", ")
        );
    }
    let mut pgn = match &a.pgn {
        Some(p) => Some(
            std::fs::File::options()
                .create(true)
                .append(true)
                .open(p)
                .with_context(|| format!("cannot open --pgn {}", p.display()))?,
        ),
        None => None,
    };
    let mut seeded = a.seed.as_deref().map(|s| SeededEntropy::new(s.as_bytes()));
    let mut os = OsEntropy;
    let date = today();
    let mut rounds_done = 0;
    loop {
        let rng: &mut dyn Entropy = match seeded.as_mut() {
            Some(s) => s,
            None => &mut os,
        };
        if t.rounds.last().is_none_or(|r| r.complete()) {
            if a.rounds.is_some_and(|n| rounds_done >= n) || t.is_finished() {
                break;
            }
            if t.settings.deal_mode == DealMode::Organiser {
                bail!("organiser deals: pair each round with `pair --deal`, then `run` plays it");
            }
            match t.pair(&PairOptions::default(), rng) {
                Ok(_) => {}
                Err(TournamentError::Finished) => break,
                Err(e) => return Err(e.into()),
            }
            save(&a.file, &t)?;
        }
        let r = t.rounds.len();
        // Joint deals: engines cannot keep secrets, so the director draws both
        // contributions.
        let boards = t.rounds[r - 1].games.len();
        for b in 1..=boards {
            let g = &t.rounds[r - 1].games[b - 1];
            let Some(d) = g.deal else { continue };
            let rec = &t.deals[d];
            if rec.mode == DealMode::Joint && rec.deal.is_none() {
                let (need_red, need_black) = (
                    rec.red_contribution.is_none(),
                    rec.black_contribution.is_none(),
                );
                for (need, side) in [(need_red, Color::Red), (need_black, Color::Black)] {
                    if need {
                        let secret = jieqi_tournament::deals::random_salt(rng);
                        t.contribute(r, b, side, &secret)?;
                    }
                }
            }
        }
        save(&a.file, &t)?;
        if !a.quiet {
            eprint!("{}", pairings_text(&t, r));
        }
        let mut jobs = VecDeque::new();
        for (i, g) in t.rounds[r - 1].games.iter().enumerate() {
            if g.result.is_some() {
                continue;
            }
            let deal = g
                .deal
                .and_then(|d| t.deals.get(d))
                .and_then(|d| d.parsed())
                .with_context(|| format!("round {r} board {}: no deal to play", i + 1))?;
            jobs.push_back(Job {
                board: i + 1,
                red: specs[&g.red].clone(),
                black: specs[&g.black].clone(),
                deal,
            });
        }
        let total = jobs.len();
        let queue = Mutex::new(jobs);
        let (tx, rx) = std::sync::mpsc::channel::<(usize, GameRecord)>();
        let workers = a.concurrency.clamp(1, total.max(1));
        let mut failure: Option<anyhow::Error> = None;
        std::thread::scope(|scope| {
            for _ in 0..workers {
                let tx = tx.clone();
                let queue = &queue;
                let settings = &settings;
                scope.spawn(move || {
                    loop {
                        let job = queue.lock().expect("queue lock").pop_front();
                        let Some(job) = job else { break };
                        let rec = play_game(&job.red, &job.black, job.deal, settings);
                        if tx.send((job.board, rec)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            for (done, (board, mut rec)) in rx.iter().enumerate() {
                let res = result_of(&rec);
                // Records carry the players' names, not the engines' own.
                let g = &t.rounds[r - 1].games[board - 1];
                rec.red = t.players[g.red as usize].name.clone();
                rec.black = t.players[g.black as usize].name.clone();
                // The salt of the deal's commitment (every played board has a deal).
                let salt = g
                    .deal
                    .and_then(|d| t.deals.get(d))
                    .map(|d| d.salt.clone())
                    .unwrap_or_default();
                if let Err(e) = t.set_result(r, board, res, false) {
                    failure.get_or_insert(e.into());
                    continue;
                }
                if let Err(e) = save(&a.file, &t) {
                    failure.get_or_insert(e);
                }
                if let Some(f) = pgn.as_mut() {
                    let event = EventTags {
                        event: t.name.clone(),
                        round: r as u32,
                        time_control: tc.to_string(),
                        date: date.clone(),
                    };
                    let text = pgn_text(&game_record(&rec, &event, &salt));
                    if let Err(e) = f.write_all(text.as_bytes()) {
                        failure.get_or_insert(anyhow::Error::new(e).context("writing --pgn"));
                    }
                }
                if !a.quiet {
                    let width = 20;
                    let filled = (done + 1) * width / total.max(1);
                    eprintln!(
                        "[{}{}] round {r} {}/{total}  board {board}: {} - {} {} ({}, {} plies)",
                        "#".repeat(filled),
                        ".".repeat(width - filled),
                        done + 1,
                        rec.red,
                        rec.black,
                        res.text(),
                        rec.termination(),
                        rec.moves.len()
                    );
                }
            }
        });
        if let Some(e) = failure {
            return Err(e);
        }
        rounds_done += 1;
        if let Some(h) = &a.html {
            std::fs::write(h, t.standings_html())
                .with_context(|| format!("cannot write {}", h.display()))?;
        }
    }
    print!("{}", standings_text(&t));
    Ok(())
}
