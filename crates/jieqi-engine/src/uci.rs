//! The UCI dialect of the Jieqi GUIs (JieqiBox and others); see `docs/uci.md`.
//!
//! [`run`] reads commands on a thread of its own that feeds a channel, so a running
//! search sees `stop` at once; the search runs on another thread and prints `info`
//! lines and the final `bestmove`. Malformed input never ends the loop: it is answered
//! with `info string error …`.

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use jieqi_core::game::Judge;
use jieqi_core::perft::{Mode, divide_each};
use jieqi_core::{Move, Position, RuleSet, UciMove};

use crate::engine::{Engine, Info, Limits, Options};

/// The engine's name, as told to the GUI.
pub const ENGINE_NAME: &str = concat!("jieqi ", env!("CARGO_PKG_VERSION"));

type Out = Arc<Mutex<Box<dyn Write + Send>>>;

fn say(out: &Out, line: &str) {
    // A closed output (the GUI went away) is not an error worth dying for.
    let mut w = out.lock().unwrap_or_else(|e| e.into_inner());
    let _ = writeln!(w, "{line}");
    let _ = w.flush();
}

struct State {
    out: Out,
    engine: Option<Engine>,
    search: Option<JoinHandle<Engine>>,
    stop: Arc<AtomicBool>,
    ponder: Arc<AtomicBool>,
    options: Options,
    show_wdl: bool,
    /// The position of the last `position` command; `None` after a refused one, so
    /// that a `go` never searches a position the GUI did not mean.
    position: Option<Position>,
    history: Judge,
}

/// Runs the UCI loop until `quit` or the end of `input`.
pub fn run<R, W>(input: R, output: W)
where
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
{
    let (tx, rx) = mpsc::channel::<Option<String>>();
    let reader = std::thread::spawn(move || {
        let mut input = input;
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match input.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            // A line that is not UTF-8 is reported and skipped, not the end of input.
            let line = String::from_utf8(std::mem::take(&mut buf)).ok();
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let engine = Engine::new(Options::default());
    let mut st = State {
        out: Arc::new(Mutex::new(Box::new(output))),
        stop: engine.stop_flag(),
        ponder: engine.ponder_flag(),
        options: engine.options().clone(),
        engine: Some(engine),
        search: None,
        show_wdl: false,
        position: Some(Position::start()),
        history: Judge::new(RuleSet::STANDARD, &Position::start()),
    };
    for line in rx.iter() {
        let Some(line) = line else {
            st.error("input line is not UTF-8; ignored");
            continue;
        };
        if !st.command(line.trim()) {
            break;
        }
    }
    st.finish_search(true);
    // The reader ends with its input; do not wait for it when told to quit while
    // input is still open (stdin of a GUI).
    drop(reader);
}

impl State {
    fn say(&self, line: &str) {
        say(&self.out, line);
    }

    fn error(&self, msg: &str) {
        self.say(&format!("info string error {msg}"));
    }

    /// Waits for the running search, first stopping it if `stop`.
    fn finish_search(&mut self, stop: bool) {
        if let Some(h) = self.search.take() {
            if stop {
                self.ponder.store(false, Ordering::SeqCst);
                self.stop.store(true, Ordering::SeqCst);
            }
            match h.join() {
                Ok(engine) => self.engine = Some(engine),
                Err(_) => {
                    self.error("the search thread failed; starting a fresh engine");
                    let e = Engine::new(self.options.clone());
                    self.stop = e.stop_flag();
                    self.ponder = e.ponder_flag();
                    self.engine = Some(e);
                }
            }
        }
    }

    fn engine(&mut self) -> &mut Engine {
        self.finish_search(true);
        self.engine
            .as_mut()
            .expect("engine is back after the search")
    }

    /// Handles one line; false to quit.
    fn command(&mut self, line: &str) -> bool {
        let mut words = line.split_whitespace();
        let Some(cmd) = words.next() else {
            return true;
        };
        let rest: Vec<&str> = words.collect();
        match cmd {
            "uci" => self.uci(),
            "isready" => self.say("readyok"),
            "ucinewgame" => {
                self.engine().new_game();
                self.position = Some(Position::start());
                self.history = Judge::new(RuleSet::STANDARD, &Position::start());
            }
            "setoption" => self.setoption(&rest),
            "position" => self.position(&rest),
            "go" => self.go(&rest),
            "stop" => {
                self.ponder.store(false, Ordering::SeqCst);
                self.stop.store(true, Ordering::SeqCst);
                self.finish_search(false);
            }
            "ponderhit" => self.ponder.store(false, Ordering::SeqCst),
            "quit" => return false,
            "d" => self.display(),
            "eval" => {
                let Some(pos) = self.current() else {
                    return true;
                };
                let v = self.engine().evaluate(&pos);
                self.say(&format!("info string eval {v} (side to move)"));
            }
            "bench" => {
                let depth = rest.first().and_then(|d| d.parse().ok());
                self.finish_search(true);
                let out = Arc::clone(&self.out);
                let features = self.options.features;
                let use_nnue = self.options.use_nnue;
                let net = self.engine().network().filter(|_| use_nnue).cloned();
                let r = crate::bench::run_with_network(depth, features, net, &mut |l: &str| {
                    say(&out, l)
                });
                self.say(&r.summary());
            }
            _ => self.error(&format!("unknown command {cmd:?}")),
        }
        true
    }

    fn uci(&self) {
        self.say(&format!("id name {ENGINE_NAME}"));
        self.say("id author the jieqi project");
        for o in [
            "option name Hash type spin default 16 min 1 max 16384",
            "option name Threads type spin default 1 min 1 max 256",
            "option name MultiPV type spin default 1 min 1 max 128",
            "option name Move Overhead type spin default 50 min 0 max 5000",
            "option name Skill Level type spin default 20 min 0 max 20",
            "option name UCI_LimitStrength type check default false",
            "option name UCI_Elo type spin default 2800 min 800 max 2800",
            "option name UCI_ShowWDL type check default false",
            "option name Chase Rule type check default false",
            "option name Ponder type check default false",
            "option name Clear Hash type button",
            "option name EvalFile type string default <builtin>",
            "option name Use NNUE type check default true",
        ] {
            self.say(o);
        }
        let defaults = crate::features::Features::default();
        for (name, _) in crate::features::OPTIONS {
            let on = defaults.get(name).unwrap_or(true);
            self.say(&format!("option name {name} type check default {on}"));
        }
        self.say("uciok");
    }

    fn setoption(&mut self, args: &[&str]) {
        // setoption name <words> [value <words>]
        if args.first() != Some(&"name") {
            return self.error("setoption needs: setoption name <name> [value <value>]");
        }
        let vpos = args.iter().position(|&w| w == "value");
        let name = args[1..vpos.unwrap_or(args.len())].join(" ");
        let value = vpos.map(|i| args[i + 1..].join(" ")).unwrap_or_default();
        let mut o = self.options.clone();
        let spin = |min: i64, max: i64| -> Result<i64, String> {
            parse_int(&value)
                .ok_or_else(|| format!("option {name}: {value:?} is not a number"))
                .map(|v| v.clamp(min, max))
        };
        let check = || -> Result<bool, String> {
            match value.to_ascii_lowercase().as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                _ => Err(format!("option {name}: {value:?} is not true or false")),
            }
        };
        let r: Result<(), String> = match name.to_ascii_lowercase().as_str() {
            "hash" => spin(1, 16384).map(|v| o.hash_mb = v as usize),
            "threads" => spin(1, 256).map(|v| o.threads = v as usize),
            "multipv" => spin(1, 128).map(|v| o.multipv = v as usize),
            "move overhead" => {
                spin(0, 5000).map(|v| o.move_overhead = Duration::from_millis(v as u64))
            }
            "skill level" => spin(0, 20).map(|v| o.skill_level = v as u8),
            "uci_limitstrength" => check().map(|v| o.limit_strength = v),
            "uci_elo" => spin(800, 2800).map(|v| o.elo = v as u32),
            "uci_showwdl" => check().map(|v| self.show_wdl = v),
            "chase rule" => check().map(|v| {
                o.rules = if v {
                    RuleSet::TOURNAMENT
                } else {
                    RuleSet::STANDARD
                }
            }),
            "ponder" => check().map(|_| ()),
            "clear hash" => {
                self.engine().new_game();
                Ok(())
            }
            "evalfile" => match load_eval_file(&value) {
                Ok(EvalFile::Params(p)) => {
                    self.engine().set_params(p);
                    Ok(())
                }
                Ok(EvalFile::Network(n)) => {
                    self.engine().set_network(Some(Arc::new(n)));
                    Ok(())
                }
                Ok(EvalFile::Builtin) => {
                    self.engine().set_params(crate::eval::Params::default());
                    self.engine().set_network(crate::nnue::Network::embedded());
                    Ok(())
                }
                Err(e) => Err(e),
            },
            "use nnue" => match check() {
                Ok(true) if self.engine().network().is_none() => Err(
                    "option Use NNUE: no net loaded; set EvalFile to a net file first (docs/nnue.md)"
                        .to_string(),
                ),
                Ok(v) => {
                    o.use_nnue = v;
                    Ok(())
                }
                Err(e) => Err(e),
            },
            other => match check() {
                Ok(v) if o.features.set(other, v) => Ok(()),
                Err(e) if o.features.get(other).is_some() => Err(e),
                _ => Err(format!("unknown option {name:?}")),
            },
        };
        match r {
            Ok(()) => {
                if o != self.options {
                    self.options = o.clone();
                    self.engine().set_options(o);
                }
            }
            Err(e) => self.error(&e),
        }
    }

    fn position(&mut self, args: &[&str]) {
        match parse_position(args) {
            Ok((pos, history)) => {
                self.position = Some(pos);
                self.history = history;
            }
            Err(e) => {
                // Keeping the previous position would answer the next `go` for a
                // position the GUI has left: better no move than a wrong one.
                self.position = None;
                self.error(&format!("{e}; no position until the next valid one"));
            }
        }
    }

    /// The current position, or an error line when the last `position` was refused.
    fn current(&self) -> Option<Position> {
        if self.position.is_none() {
            self.error("no position: the last position command was refused");
        }
        self.position.clone()
    }

    fn display(&self) {
        let Some(pos) = self.current() else {
            return;
        };
        let pos = &pos;
        let mut s = String::new();
        for rank in (0..10).rev() {
            s.push_str(&format!(" {rank} "));
            for file in 0..9 {
                let sq = jieqi_core::Square::from_xy(file, rank).expect("on board");
                s.push(pos.piece_at(sq).map_or('.', |p| p.fen_char()));
                s.push(' ');
            }
            s.push('\n');
        }
        s.push_str("   a b c d e f g h i\n");
        s.push_str(&format!("Fen: {}\n", pos.fen()));
        s.push_str(&format!("Key: {:016x}\n", pos.hash()));
        s.push_str(&format!(
            "Side to move: {}{}",
            pos.turn(),
            if pos.is_check() { " (in check)" } else { "" }
        ));
        for l in s.lines() {
            self.say(l);
        }
    }

    fn go(&mut self, args: &[&str]) {
        if args.first() == Some(&"perft") {
            return self.perft(args.get(1).copied());
        }
        let Some(pos) = self.current() else {
            // A `go` is always answered, even when there is nothing to search.
            self.finish_search(true);
            return self.say("bestmove (none)");
        };
        let (limits, ponder) = match parse_go(args, &pos) {
            Ok(x) => x,
            Err(e) => return self.error(&format!("{e}; go ignored")),
        };
        self.finish_search(true);
        let mut engine = self.engine.take().expect("engine is idle");
        engine.clear_stop();
        self.ponder.store(ponder, Ordering::SeqCst);
        let history = self.history.clone();
        let out = Arc::clone(&self.out);
        let show_wdl = self.show_wdl;
        let handle = std::thread::Builder::new()
            .name("search".into())
            .stack_size(16 << 20)
            .spawn(move || {
                let mut cb = |i: &Info| say(&out, &info_line(i, show_wdl));
                match engine.search_with_info(&pos, &limits, &history, &mut cb) {
                    Some(r) => {
                        let ponder = r.ponder.map(|p| format!(" ponder {p}")).unwrap_or_default();
                        say(&out, &format!("bestmove {}{ponder}", r.best));
                    }
                    None => {
                        // Wait for stop on an infinite search even with nothing to search.
                        if limits.infinite {
                            let stop = engine.stop_flag();
                            while !stop.load(Ordering::Relaxed) {
                                std::thread::sleep(Duration::from_millis(1));
                            }
                        }
                        say(&out, "info string no legal moves");
                        say(&out, "bestmove (none)");
                    }
                }
                engine
            });
        match handle {
            Ok(h) => self.search = Some(h),
            Err(e) => self.error(&format!("cannot start the search thread: {e}")),
        }
    }

    /// `go perft N` on the search thread: `isready` is answered meanwhile and `stop`
    /// ends the count after the current root move.
    fn perft(&mut self, depth: Option<&str>) {
        let Some(depth) = depth.and_then(|d| d.parse::<u32>().ok()) else {
            return self.error("go perft needs a depth: go perft N");
        };
        if depth > 8 {
            return self.error("go perft depth is limited to 8");
        }
        let Some(pos) = self.current() else {
            return;
        };
        self.finish_search(true);
        let engine = self.engine.take().expect("engine is idle");
        engine.clear_stop();
        let stop = engine.stop_flag();
        let out = Arc::clone(&self.out);
        let handle = std::thread::Builder::new()
            .name("perft".into())
            .spawn(move || {
                let start = Instant::now();
                let mut total = 0;
                let mut stopped = false;
                divide_each(&pos, depth, Mode::Chance, &mut |m, n| {
                    say(&out, &format!("{m}: {n}"));
                    total += n;
                    stopped = stop.load(Ordering::Relaxed);
                    !stopped
                });
                let ms = start.elapsed().as_millis();
                say(&out, "");
                say(&out, &format!("Nodes searched: {total}"));
                let note = if stopped { " stopped" } else { "" };
                say(
                    &out,
                    &format!("info string perft {depth} (chance) nodes {total} time {ms}{note}"),
                );
                engine
            });
        match handle {
            Ok(h) => self.search = Some(h),
            Err(e) => self.error(&format!("cannot start the perft thread: {e}")),
        }
    }
}

/// The `info` line of one progress report.
pub fn info_line(i: &Info, show_wdl: bool) -> String {
    let mut s = format!(
        "info depth {} seldepth {} multipv {} score {}",
        i.depth, i.seldepth, i.multipv, i.score
    );
    if show_wdl {
        let (w, d, l) = i.score.wdl();
        s.push_str(&format!(" wdl {w} {d} {l}"));
    }
    s.push_str(&format!(
        " nodes {} nps {} hashfull {} time {} pv",
        i.nodes,
        i.nps,
        i.hashfull,
        i.time.as_millis()
    ));
    for m in &i.pv {
        s.push_str(&format!(" {m}"));
    }
    s
}

/// Reads the arguments of `position`: the position and the game that led to it,
/// judged for repetitions and the perpetual rules (the engine's rules apply when it
/// searches). A move by a face-down piece must carry its revealed identity (`c3c4B`);
/// without it the whole command is rejected.
pub fn parse_position(args: &[&str]) -> Result<(Position, Judge), String> {
    let moves_at = args.iter().position(|&w| w == "moves");
    let (head, moves) = match moves_at {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &args[..0]),
    };
    let mut pos = match head.first() {
        Some(&"startpos") if head.len() == 1 => Position::start(),
        Some(&"fen") if head.len() > 1 => {
            let fen = head[1..].join(" ");
            Position::from_fen(&fen).map_err(|e| format!("bad fen {fen:?}: {e}"))?
        }
        _ => return Err("expected: position startpos|fen FEN [moves ...]".into()),
    };
    let mut history = Judge::new(RuleSet::STANDARD, &pos);
    for &text in moves {
        let um = UciMove::parse(text).map_err(|e| format!("bad move {text:?}: {e}"))?;
        let (m, rv) = um
            .resolve(&pos)
            .map_err(|e| format!("move {text:?} does not fit the position {}: {e}", pos.fen()))?;
        let undo = pos
            .play(m, rv)
            .map_err(|e| format!("move {text:?} cannot be played: {e}"))?;
        history.push(&pos, &undo);
    }
    Ok((pos, history))
}

/// An integer as the GUIs write it; a number too large for `i64` saturates (a clock
/// of 10^20 ms is simply a very long one).
fn parse_int(text: &str) -> Option<i64> {
    if let Ok(v) = text.parse::<i64>() {
        return Some(v);
    }
    let (negative, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(if negative { i64::MIN } else { i64::MAX })
}

/// The words of `go` that start a new argument (they end a `searchmoves` list).
const GO_WORDS: &[&str] = &[
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "movetime",
    "depth",
    "nodes",
    "infinite",
    "ponder",
    "mate",
    "searchmoves",
];

/// Reads the arguments of `go` (not `perft`) for the position `pos` (which the moves
/// of `searchmoves` must be legal in); the flag says `ponder`.
pub fn parse_go(args: &[&str], pos: &Position) -> Result<(Limits, bool), String> {
    let mut l = Limits::default();
    let mut ponder = false;
    let mut it = args.iter().peekable();
    let ms = |v: Option<&&str>, name: &str| -> Result<Duration, String> {
        let v = v.ok_or_else(|| format!("go {name} needs a value"))?;
        let n = parse_int(v).ok_or_else(|| format!("go {name}: {v:?} is not a number"))?;
        Ok(Duration::from_millis(n.max(0) as u64))
    };
    let num = |v: Option<&&str>, name: &str| -> Result<u64, String> {
        let v = v.ok_or_else(|| format!("go {name} needs a value"))?;
        let n = parse_int(v).ok_or_else(|| format!("go {name}: {v:?} is not a number"))?;
        Ok(n.max(0) as u64)
    };
    while let Some(&w) = it.next() {
        match w {
            "wtime" => l.wtime = Some(ms(it.next(), w)?),
            "btime" => l.btime = Some(ms(it.next(), w)?),
            "winc" => l.winc = Some(ms(it.next(), w)?),
            "binc" => l.binc = Some(ms(it.next(), w)?),
            "movestogo" => l.movestogo = Some(num(it.next(), w)?.min(1000) as u32),
            "movetime" => l.movetime = Some(ms(it.next(), w)?),
            "depth" => l.depth = Some(num(it.next(), w)?.clamp(1, 100) as u32),
            "nodes" => l.nodes = Some(num(it.next(), w)?),
            "infinite" => l.infinite = true,
            "ponder" => ponder = true,
            "mate" => {
                // Searched as a depth limit of 2n plies.
                l.depth = Some(num(it.next(), w)?.saturating_mul(2).clamp(1, 100) as u32);
            }
            "searchmoves" => {
                while let Some(&&m) = it.peek() {
                    if GO_WORDS.contains(&m) {
                        break;
                    }
                    l.searchmoves.push(legal_move(m, pos)?);
                    it.next();
                }
                if l.searchmoves.is_empty() {
                    return Err("go searchmoves needs at least one move".into());
                }
            }
            _ => return Err(format!("unknown go argument {w:?}")),
        }
    }
    Ok((l, ponder))
}

/// A move of `go searchmoves`: legal in `pos`, with or without its suffix letters.
fn legal_move(text: &str, pos: &Position) -> Result<Move, String> {
    let um = UciMove::parse(text).map_err(|e| format!("bad move {text:?}: {e}"))?;
    let m = um.to_plain();
    if !pos.is_legal(m) {
        return Err(format!(
            "searchmoves: {text:?} is not a legal move in {}",
            pos.fen()
        ));
    }
    Ok(m)
}

/// What the `EvalFile` option names.
enum EvalFile {
    /// The built-in parameters and net (an empty value or `<builtin>`).
    Builtin,
    /// Evaluation parameters written by `jieqi-engine tune`.
    Params(crate::eval::Params),
    /// An NNUE net written by `jieqi train` (told apart by its magic bytes).
    Network(crate::nnue::Network),
}

/// Reads the file named by the `EvalFile` option.
fn load_eval_file(value: &str) -> Result<EvalFile, String> {
    if value.is_empty() || value == "<builtin>" {
        return Ok(EvalFile::Builtin);
    }
    let bytes =
        std::fs::read(value).map_err(|e| format!("option EvalFile: cannot read {value:?}: {e}"))?;
    if bytes.starts_with(crate::nnue::MAGIC) {
        return crate::nnue::Network::from_bytes(&bytes)
            .map(EvalFile::Network)
            .map_err(|e| format!("option EvalFile: {value:?}: {e}"));
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("option EvalFile: {value:?} is neither a net nor a parameter file"))?;
    crate::eval::Params::parse(&text)
        .map(EvalFile::Params)
        .map_err(|e| format!("option EvalFile: {value:?}: {e}"))
}
