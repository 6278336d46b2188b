//! `jieqi tournament`: direct an event kept in a JSON file.
//!
//! Every command reads the file, does one thing, and writes it back atomically (a
//! temporary file renamed over the old one). The file holds the unpublished deals, so
//! it is the organiser's secret; `export` makes the public views.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::{Args, Subcommand, ValueEnum};
use jieqi_core::{Color, Deal};
use jieqi_tournament::{
    DealMode, Entropy, Format, GameResult, KnockoutConfig, PairOptions, Player, SeededEntropy,
    Settings, TieBreak, TieBreakGame, Tournament,
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
        "round {r} ({:?}, {} deals)",
        round.phase,
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
