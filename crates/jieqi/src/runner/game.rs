//! One game between two engine processes, refereed move by move.

use std::time::{Duration, Instant};

use jieqi_core::{ByColor, Color, Deal, Game, Outcome, Reason, UciMove};

use super::engine::{Engine, EngineError, EngineSpec, Score};
use super::outcome::{self, Ending};
use super::referee::{Referee, RefereeRules};

/// How much thinking time the engines get.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// A clock per side: base time, and an increment after each move (milliseconds).
    Clock {
        /// Starting time.
        base_ms: u64,
        /// Added after each move.
        inc_ms: u64,
    },
    /// A fixed time per move (milliseconds), sent as `go movetime`.
    MoveTime(u64),
}

impl TimeControl {
    /// Reads `10+0.1` (seconds + increment seconds) or `10` (no increment).
    pub fn parse_clock(s: &str) -> Result<TimeControl, String> {
        let (base, inc) = s.split_once('+').unwrap_or((s, "0"));
        let secs = |t: &str| -> Result<u64, String> {
            let v: f64 = t
                .trim()
                .parse()
                .map_err(|_| format!("{s:?}: expected seconds+increment like 10+0.1"))?;
            if !(0.0..=1e7).contains(&v) {
                return Err(format!("{s:?}: times must be between 0 and 10^7 seconds"));
            }
            Ok((v * 1000.0).round() as u64)
        };
        let (base_ms, inc_ms) = (secs(base)?, secs(inc)?);
        if base_ms == 0 && inc_ms == 0 {
            return Err(format!("{s:?}: no time at all"));
        }
        Ok(TimeControl::Clock { base_ms, inc_ms })
    }
}

impl std::fmt::Display for TimeControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            TimeControl::Clock { base_ms, inc_ms } => {
                write!(f, "{}+{}", base_ms as f64 / 1000.0, inc_ms as f64 / 1000.0)
            }
            TimeControl::MoveTime(ms) => write!(f, "movetime {ms} ms"),
        }
    }
}

/// Everything about a game but the players and the deal.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GameSettings {
    /// Thinking time.
    pub tc: TimeControl,
    /// Time an engine may overrun its clock or move time before it loses (for process
    /// and pipe latency), in milliseconds.
    pub grace_ms: u64,
    /// Referee options.
    pub rules: RefereeRules,
}

impl Default for GameSettings {
    fn default() -> GameSettings {
        GameSettings {
            tc: TimeControl::Clock {
                base_ms: 10_000,
                inc_ms: 100,
            },
            grace_ms: 200,
            rules: RefereeRules::default(),
        }
    }
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// Red's engine name.
    pub red: String,
    /// Black's engine name.
    pub black: String,
    /// The moves with every identity (the referee's record).
    pub moves: Vec<String>,
    /// What each move cost and what its engine said of it, one per move.
    pub notes: Vec<MoveNote>,
    /// How it ended.
    pub outcome: Outcome,
    /// What exactly happened, where the outcome's reason does not say it (which illegal
    /// move, why the engine died, the ply cap): see [`Ending::detail`].
    pub detail: Option<String>,
    /// The referee's `jieqi_core` game: start, rules, deal, every ply with its reveals,
    /// and the end in the core's terms (what the game record is made of).
    pub game: Game,
    /// The side whose engine misbehaved (crash, illegal move, time), to be restarted.
    pub faulty: Option<Color>,
}

/// What one engine move cost and what the engine said of it (the comments of the
/// match's PGN records).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveNote {
    /// Milliseconds from `go` to `bestmove`, as the runner measured them.
    pub time_ms: u64,
    /// The mover's clock after the move, increment included (none for a fixed move
    /// time).
    pub clock_ms: Option<u64>,
    /// The engine's last score of its first PV, from its own view.
    pub score: Option<Score>,
    /// The depth of that score.
    pub depth: Option<u32>,
}

/// Plays one game between two engine specs, starting and stopping their processes.
pub fn play_game(
    red: &EngineSpec,
    black: &EngineSpec,
    deal: Deal,
    settings: &GameSettings,
) -> GameRecord {
    let start = |spec: &EngineSpec| Engine::start(spec);
    match (start(red), start(black)) {
        (Ok(mut r), Ok(mut b)) => {
            let rec = play_game_with(&mut r, &mut b, deal, settings);
            r.quit();
            b.quit();
            rec
        }
        (Err(e), _) => not_started(
            red.name.clone(),
            black.name.clone(),
            deal,
            settings.rules,
            Color::Red,
            e.to_string(),
        ),
        (_, Err(e)) => not_started(
            red.name.clone(),
            black.name.clone(),
            deal,
            settings.rules,
            Color::Black,
            e.to_string(),
        ),
    }
}

/// The record of a game one side could not even start.
pub fn not_started(
    red: String,
    black: String,
    deal: Deal,
    rules: RefereeRules,
    loser: Color,
    why: String,
) -> GameRecord {
    let mut referee = Referee::new(deal, rules);
    let ending = crashed(loser, &why);
    referee.finish(ending.clone());
    GameRecord {
        red,
        black,
        moves: Vec::new(),
        notes: Vec::new(),
        outcome: ending.outcome,
        detail: ending.detail,
        game: referee.game().clone(),
        faulty: Some(loser),
    }
}

/// Plays one game between two running engines (`ucinewgame` first). Each engine is
/// sent `position fen <start> moves …` with only the suffix letters its side may know.
pub fn play_game_with(
    red: &mut Engine,
    black: &mut Engine,
    deal: Deal,
    settings: &GameSettings,
) -> GameRecord {
    let mut referee = Referee::new(deal, settings.rules);
    let mut faulty = None;
    let names = ByColor {
        red: red.name.clone(),
        black: black.name.clone(),
    };
    for (side, e) in [(Color::Red, &mut *red), (Color::Black, &mut *black)] {
        if referee.outcome().is_none()
            && let Err(err) = e.new_game()
        {
            referee.finish(fault_ending(side, err));
            faulty = Some(side);
        }
    }
    let mut clocks = start_clocks(settings.tc);
    let mut notes = Vec::new();
    while referee.outcome().is_none() {
        let side = referee.turn();
        let engine: &mut Engine = match side {
            Color::Red => red,
            Color::Black => black,
        };
        match engine_turn(engine, &mut referee, settings, &mut clocks) {
            Ok(note) => notes.push(note),
            Err(ending) => {
                referee.finish(ending);
                faulty = Some(side);
            }
        }
    }
    // The loop ends only once the referee has an end.
    let ending = referee
        .ending()
        .cloned()
        .unwrap_or(Ending::draw(Reason::Abandonment));
    GameRecord {
        red: names.red,
        black: names.black,
        moves: referee.record().to_vec(),
        notes,
        outcome: ending.outcome,
        detail: ending.detail,
        game: referee.game().clone(),
        faulty,
    }
}

/// Each side's starting time budget in milliseconds (the move time for `MoveTime`).
pub fn start_clocks(tc: TimeControl) -> ByColor<u64> {
    ByColor::new_with(|_| match tc {
        TimeControl::Clock { base_ms, .. } => base_ms,
        TimeControl::MoveTime(ms) => ms,
    })
}

/// Lets `engine` move for the side to move: sends the position as that side may
/// know it and `go`, waits for `bestmove` within the time left plus the grace, charges
/// the clock and plays the move on the referee, returning what the move cost and what
/// the engine said of it. On failure returns the outcome that the engine's side lost
/// by (time, crash, illegal move); the referee is unchanged then.
pub fn engine_turn(
    engine: &mut Engine,
    referee: &mut Referee,
    settings: &GameSettings,
    clocks: &mut ByColor<u64>,
) -> Result<MoveNote, Ending> {
    let side = referee.turn();
    let go = match settings.tc {
        TimeControl::Clock { inc_ms, .. } => format!(
            "go wtime {} btime {} winc {inc_ms} binc {inc_ms}",
            clocks.red, clocks.black
        ),
        TimeControl::MoveTime(ms) => format!("go movetime {ms}"),
    };
    let grace = Duration::from_millis(settings.grace_ms);
    let sent = engine
        .send(&referee.position_command(side))
        .and_then(|()| engine.send(&go));
    let started = Instant::now();
    let budget = Duration::from_millis(clocks[side]);
    let answer = sent.and_then(|()| engine.wait_bestmove(started + budget + grace));
    let elapsed = started.elapsed();
    let answer = answer.map_err(|err| fault_ending(side, err))?;
    if elapsed > budget + grace {
        return Err(Ending::win(!side, Reason::Time));
    }
    let used = elapsed.as_millis() as u64;
    let mut clock_ms = None;
    if let TimeControl::Clock { inc_ms, .. } = settings.tc {
        clocks[side] = clocks[side].saturating_sub(used) + inc_ms;
        clock_ms = Some(clocks[side]);
    }
    let note = MoveNote {
        time_ms: used,
        clock_ms,
        score: answer.score,
        depth: answer.depth,
    };
    let text = answer.mv;
    // Engines answer with four letters; suffixes, if any, are ignored: the referee
    // reveals identities from the deal.
    let played = UciMove::parse(&text)
        .map_err(|e| e.to_string())
        .and_then(|m| {
            referee
                .play(m.to_plain())
                .map(|_| note)
                .map_err(|e| e.to_string())
        });
    played.map_err(|why| {
        let shown = if text.is_empty() { "(none)" } else { &text };
        Ending::win(!side, Reason::Forfeit).with_detail(format!("illegal move {shown}: {why}"))
    })
}

/// The end when `side`'s engine fails to answer properly.
fn fault_ending(side: Color, err: EngineError) -> Ending {
    match err {
        EngineError::Timeout { .. } => Ending::win(!side, Reason::Time),
        other => crashed(side, &other.to_string()),
    }
}

/// The end when `loser`'s engine died, closed its pipes or could not start.
fn crashed(loser: Color, why: &str) -> Ending {
    Ending::win(!loser, Reason::Forfeit).with_detail(format!("engine crashed: {why}"))
}

impl GameRecord {
    /// The Termination tag text (the detail if any, else the reason's).
    pub fn termination(&self) -> String {
        outcome::termination(&self.outcome, self.detail.as_deref())
    }

    /// Red's score: 1, 0.5 or 0.
    pub fn red_score(&self) -> f64 {
        outcome::red_score(&self.outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_clocks() {
        assert_eq!(
            TimeControl::parse_clock("10+0.1"),
            Ok(TimeControl::Clock {
                base_ms: 10_000,
                inc_ms: 100
            })
        );
        assert_eq!(
            TimeControl::parse_clock("60"),
            Ok(TimeControl::Clock {
                base_ms: 60_000,
                inc_ms: 0
            })
        );
        assert!(TimeControl::parse_clock("x+1").is_err());
        assert!(TimeControl::parse_clock("0+0").is_err());
        assert!(TimeControl::parse_clock("-1+0").is_err());
    }

    /// A fake engine in `sh`: answers the handshake, then replies to every `go` with
    /// the next word of `answers` (after which it goes silent or exits).
    fn scripted(answers: &str, then: &str) -> EngineSpec {
        scripted_slow(answers, then, "")
    }

    /// As [`scripted`], running `delay` (shell commands) before each answer.
    fn scripted_slow(answers: &str, then: &str, delay: &str) -> EngineSpec {
        let script = format!(
            "set -- {answers}; while read -r line; do case \"$line\" in \
             uci) echo 'id name scripted'; echo uciok;; isready) echo readyok;; \
             go*) if [ $# -eq 0 ]; then {then}; fi; {delay} echo \"bestmove $1\"; shift;; \
             quit) exit 0;; esac; done"
        );
        EngineSpec {
            name: "scripted".into(),
            argv: vec!["sh".into(), "-c".into(), script],
            options: vec![],
            rule_options: vec![],
        }
    }

    fn settings() -> GameSettings {
        GameSettings {
            tc: TimeControl::MoveTime(50),
            grace_ms: 1500,
            rules: RefereeRules::default(),
        }
    }

    #[test]
    fn an_illegal_move_loses() {
        let red = scripted("e3e4 a0a5", "cat >/dev/null");
        let black = scripted("e6e5 a9a8", "cat >/dev/null");
        let rec = play_game(&red, &black, Deal::standard(), &settings());
        assert_eq!(
            rec.outcome.winner(),
            Some(Color::Black),
            "{:?}",
            rec.outcome
        );
        assert_eq!(rec.outcome.reason(), Reason::Forfeit);
        assert!(
            rec.termination().starts_with("illegal move a0a5: "),
            "{rec:?}"
        );
        assert_eq!(rec.moves, ["e3e4P", "e6e5p"]);
        assert_eq!(rec.faulty, Some(Color::Red));
        // Garbage is illegal too.
        let red = scripted("e3e4", "cat >/dev/null");
        let black = scripted("hello", "cat >/dev/null");
        let rec = play_game(&red, &black, Deal::standard(), &settings());
        assert_eq!(rec.outcome.winner(), Some(Color::Red));
        assert_eq!(rec.outcome.reason(), Reason::Forfeit);
        assert!(
            rec.termination().starts_with("illegal move hello: "),
            "{rec:?}"
        );
    }

    #[test]
    fn each_move_keeps_its_time_clock_and_last_score() {
        let talker = |answers: &str| {
            scripted_slow(
                answers,
                "cat >/dev/null",
                "echo 'info depth 2 score cp 10 pv a0a1'; \
                 echo 'info depth 3 multipv 2 score cp -99 pv a0a1'; \
                 echo 'info depth 3 score mate 2 nodes 5 pv a0a1';",
            )
        };
        let red = talker("e3e4 c3c4");
        let black = scripted("e6e5 hello", "cat >/dev/null");
        let s = GameSettings {
            tc: TimeControl::Clock {
                base_ms: 5_000,
                inc_ms: 100,
            },
            ..settings()
        };
        let rec = play_game(&red, &black, Deal::standard(), &s);
        // Red moved twice, Black once before its illegal answer: three notes.
        assert_eq!(rec.notes.len(), 3, "{:?}", rec.notes);
        assert_eq!(rec.notes.len(), rec.moves.len());
        let red_first = rec.notes[0];
        assert_eq!(
            (red_first.score, red_first.depth),
            (Some(Score::Mate(2)), Some(3))
        );
        assert_eq!((rec.notes[1].score, rec.notes[1].depth), (None, None));
        for n in &rec.notes[..2] {
            let clock = n.clock_ms.unwrap();
            assert_eq!(clock, 5_000 - n.time_ms + 100, "{n:?}");
        }
        let red_second = rec.notes[2];
        assert_eq!(
            red_second.clock_ms,
            Some(red_first.clock_ms.unwrap() - red_second.time_ms + 100)
        );
    }

    #[test]
    fn a_crash_loses() {
        let red = scripted("e3e4", "exit 3");
        let black = scripted("e6e5", "exit 0");
        let rec = play_game(&red, &black, Deal::standard(), &settings());
        assert_eq!(
            rec.outcome.winner(),
            Some(Color::Black),
            "{:?}",
            rec.outcome
        );
        assert_eq!(rec.outcome.reason(), Reason::Forfeit);
        assert!(rec.termination().starts_with("engine crashed: "), "{rec:?}");
    }

    #[test]
    fn no_answer_loses_on_time() {
        let red = scripted("e3e4 c3c4", "cat >/dev/null");
        let black = scripted("e6e5", "cat >/dev/null");
        let s = GameSettings {
            grace_ms: 100,
            ..settings()
        };
        let rec = play_game(&red, &black, Deal::standard(), &s);
        assert_eq!(rec.outcome, Ending::win(Color::Red, Reason::Time).outcome);
        assert_eq!(rec.termination(), "time forfeit");
        assert_eq!(rec.faulty, Some(Color::Black));
    }

    #[test]
    fn a_slow_engine_runs_out_of_its_clock() {
        // Each answer of the slow side takes 0.4 s against a 1 s clock without
        // increment: its third move comes too late, whatever the machine's load.
        let red = scripted_slow("e3e4 c3c4 g3g4", "cat >/dev/null", "sleep 0.4;");
        let black = scripted("e6e5 c6c5 g6g5", "cat >/dev/null");
        let s = GameSettings {
            tc: TimeControl::Clock {
                base_ms: 1000,
                inc_ms: 0,
            },
            grace_ms: 100,
            rules: RefereeRules::default(),
        };
        let rec = play_game(&red, &black, Deal::standard(), &s);
        assert_eq!(rec.outcome, Ending::win(Color::Black, Reason::Time).outcome);
        assert!(rec.moves.len() <= 4, "{:?}", rec.moves);
    }

    #[test]
    fn an_engine_that_cannot_start_loses() {
        let red = scripted("e3e4", "cat >/dev/null");
        let black = EngineSpec::parse("/nonexistent/engine").unwrap();
        let rec = play_game(&red, &black, Deal::standard(), &settings());
        assert_eq!(rec.outcome.winner(), Some(Color::Red));
        assert_eq!(rec.outcome.reason(), Reason::Forfeit);
        assert!(rec.termination().starts_with("engine crashed: "), "{rec:?}");
        assert!(rec.moves.is_empty());
    }
}
