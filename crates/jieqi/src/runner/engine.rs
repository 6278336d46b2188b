//! A UCI engine running as a child process: spawn, send lines, read lines with a
//! deadline, and a transcript of everything sent (to check what an engine was told).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread;
use std::time::{Duration, Instant};

/// How to start one engine: a name for records, the program and its arguments, and
/// UCI options to set after the handshake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// Name used in records until the engine says its own (`id name`).
    pub name: String,
    /// Program followed by its arguments.
    pub argv: Vec<String>,
    /// `setoption name N value V` pairs sent after `uciok`.
    pub options: Vec<(String, String)>,
    /// Options that tell the engine the rules of the game ([`EngineSpec::for_rules`]),
    /// sent before `options` and only when the engine declares them.
    pub rule_options: Vec<(String, String)>,
}

/// Why an engine could not be talked to.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The process could not be started.
    #[error("cannot start engine {cmd:?}: {source}")]
    Spawn {
        /// The command line.
        cmd: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The process closed its output or its input (crashed or quit).
    #[error("engine {0} exited or closed its pipes")]
    Died(String),
    /// No expected answer before the deadline.
    #[error("engine {name} did not answer {waiting_for:?} within {ms} ms")]
    Timeout {
        /// The engine's name.
        name: String,
        /// What was awaited.
        waiting_for: String,
        /// The deadline in milliseconds.
        ms: u128,
    },
    /// An empty command line.
    #[error("empty engine command")]
    Empty,
    /// A command line with an unbalanced quote.
    #[error("unbalanced quote in engine command {0:?}")]
    Quote(String),
}

impl EngineSpec {
    /// Parses an engine command: `builtin:search` (our engine, this executable's `uci`
    /// subcommand), `builtin:random`, `builtin:greedy` (its `builtin-engine`
    /// subcommand), or a command line split like a shell does for
    /// plain words, single and double quotes (no variables, no globs).
    pub fn parse(cmd: &str) -> Result<EngineSpec, EngineError> {
        if let Some(kind) = cmd.strip_prefix("builtin:") {
            let exe = std::env::current_exe()
                .map_err(|source| EngineError::Spawn {
                    cmd: cmd.to_string(),
                    source,
                })?
                .to_string_lossy()
                .into_owned();
            // `builtin:search` is our own engine (`jieqi uci`); the others are the
            // baselines of `jieqi builtin-engine`.
            let argv = match kind {
                "search" => vec![exe, "uci".into()],
                _ => vec![exe, "builtin-engine".into(), kind.to_string()],
            };
            return Ok(EngineSpec {
                name: cmd.to_string(),
                argv,
                options: Vec::new(),
                rule_options: Vec::new(),
            });
        }
        let argv = split_command(cmd)?;
        if argv.is_empty() {
            return Err(EngineError::Empty);
        }
        let name = std::path::Path::new(&argv[0])
            .file_name()
            .map_or_else(|| argv[0].clone(), |s| s.to_string_lossy().into_owned());
        Ok(EngineSpec {
            name,
            argv,
            options: Vec::new(),
            rule_options: Vec::new(),
        })
    }

    /// This spec with one more UCI option.
    pub fn with_option(mut self, name: &str, value: &str) -> EngineSpec {
        self.options.push((name.to_string(), value.to_string()));
        self
    }

    /// This spec telling an engine that declares the option `Chase Rule` whether
    /// perpetual chase loses under `rules` (docs/uci.md). An engine without the option
    /// is told nothing; an `--option` of the same name still wins.
    pub fn for_rules(mut self, rules: &jieqi_core::game::RuleSet) -> EngineSpec {
        self.rule_options = vec![("Chase Rule".to_string(), rules.chase_rule.to_string())];
        self
    }
}

/// Splits a command line into words: whitespace separates, `'…'` keeps everything
/// literally, `"…"` keeps everything but `\"` and `\\`, a backslash outside quotes
/// escapes the next character.
pub fn split_command(s: &str) -> Result<Vec<String>, EngineError> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => return Err(EngineError::Quote(s.to_string())),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => cur.push(c),
                            Some(c) => {
                                cur.push('\\');
                                cur.push(c);
                            }
                            None => return Err(EngineError::Quote(s.to_string())),
                        },
                        Some(c) => cur.push(c),
                        None => return Err(EngineError::Quote(s.to_string())),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    cur.push(c);
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

/// Forwards lines from `reader` to `tx` until end of input or until nobody listens.
/// A line longer than [`MAX_LINE`] is cut there (the rest comes as further lines), so
/// a hostile engine cannot make the runner hoard memory.
fn pump(mut reader: impl BufRead, tx: &Sender<String>) {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match (&mut reader).take(MAX_LINE).read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                if tx.send(line).is_err() {
                    break;
                }
            }
        }
    }
}

/// A running engine process.
pub struct Engine {
    /// Its name: the spec's, replaced by the engine's `id name` after the handshake.
    pub name: String,
    spec: EngineSpec,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    transcript: Vec<String>,
    dead: bool,
}

/// The longest line read from an engine, in bytes.
pub const MAX_LINE: u64 = 64 * 1024;

/// How long the handshake (`uci`/`uciok`, `isready`/`readyok`) may take.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(20);

impl Engine {
    /// Starts the process and performs the UCI handshake, setting the spec's options.
    pub fn start(spec: &EngineSpec) -> Result<Engine, EngineError> {
        let cmd = spec.argv.join(" ");
        let (program, args) = spec.argv.split_first().ok_or(EngineError::Empty)?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|source| EngineError::Spawn {
                cmd: cmd.clone(),
                source,
            })?;
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => (i, o),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(EngineError::Died(spec.name.clone()));
            }
        };
        let (tx, rx) = channel();
        // The reader thread ends when the pipe closes, which drops `tx`: the receiver
        // then reports a disconnect, which is how a crash is seen.
        thread::spawn(move || pump(BufReader::new(stdout), &tx));
        let mut engine = Engine {
            name: spec.name.clone(),
            spec: spec.clone(),
            child,
            stdin,
            lines: rx,
            transcript: Vec::new(),
            dead: false,
        };
        engine.send("uci")?;
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        let mut declared: Vec<String> = Vec::new();
        loop {
            let line = engine.recv_until(deadline, "uciok")?;
            if line.trim() == "uciok" {
                break;
            }
            if let Some(name) = line.trim().strip_prefix("id name ") {
                engine.name = name.trim().to_string();
            }
            if let Some(rest) = line.trim().strip_prefix("option name ") {
                let name = rest.split(" type ").next().unwrap_or(rest).trim();
                declared.push(name.to_ascii_lowercase());
            }
        }
        let chosen = |name: &str| {
            spec.options
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case(name))
        };
        for (name, value) in &spec.rule_options {
            if declared.contains(&name.to_ascii_lowercase()) && !chosen(name) {
                engine.send(&format!("setoption name {name} value {value}"))?;
            }
        }
        for (name, value) in spec.options.clone() {
            engine.send(&format!("setoption name {name} value {value}"))?;
        }
        engine.sync()?;
        Ok(engine)
    }

    /// The spec this engine was started from.
    pub fn spec(&self) -> &EngineSpec {
        &self.spec
    }

    /// Every line sent to the engine so far.
    pub fn transcript(&self) -> &[String] {
        &self.transcript
    }

    /// Whether the process was seen to die or was killed.
    pub fn is_dead(&self) -> bool {
        self.dead
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), EngineError> {
        self.transcript.push(line.to_string());
        let ok = writeln!(self.stdin, "{line}").is_ok() && self.stdin.flush().is_ok();
        if ok {
            Ok(())
        } else {
            self.dead = true;
            Err(EngineError::Died(self.name.clone()))
        }
    }

    /// The next line, waiting until `deadline`.
    pub fn recv_until(
        &mut self,
        deadline: Instant,
        waiting_for: &str,
    ) -> Result<String, EngineError> {
        let now = Instant::now();
        let wait = deadline.saturating_duration_since(now);
        match self.lines.recv_timeout(wait) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(EngineError::Timeout {
                name: self.name.clone(),
                waiting_for: waiting_for.to_string(),
                ms: wait.as_millis(),
            }),
            Err(RecvTimeoutError::Disconnected) => {
                self.dead = true;
                Err(EngineError::Died(self.name.clone()))
            }
        }
    }

    /// `isready` and wait for `readyok`.
    pub fn sync(&mut self) -> Result<(), EngineError> {
        self.send("isready")?;
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        while self.recv_until(deadline, "readyok")?.trim() != "readyok" {}
        Ok(())
    }

    /// Prepares for a new game: `ucinewgame`, then `isready`/`readyok`.
    pub fn new_game(&mut self) -> Result<(), EngineError> {
        self.send("ucinewgame")?;
        self.sync()
    }

    /// Waits for `bestmove` until `deadline`; returns the move text (first word after
    /// `bestmove`, or empty) with the score and depth of the last `info` line of the
    /// first PV that had a score (other lines are skipped).
    pub fn wait_bestmove(&mut self, deadline: Instant) -> Result<Answer, EngineError> {
        let mut answer = Answer::default();
        loop {
            let line = self.recv_until(deadline, "bestmove")?;
            let mut words = line.split_whitespace();
            match words.next() {
                Some("bestmove") => {
                    answer.mv = words.next().unwrap_or("").to_string();
                    return Ok(answer);
                }
                Some("info") => answer.read_info(&line),
                _ => {}
            }
        }
    }

    /// Asks the engine to quit, then makes sure the process is gone.
    pub fn quit(mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        // Drop kills it.
    }
}

/// An engine's answer to `go`: its move and what its last reported line said of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Answer {
    /// The move text, as the engine wrote it after `bestmove` (empty if none).
    pub mv: String,
    /// The last score of the first PV, from the engine's (the mover's) view.
    pub score: Option<Score>,
    /// The depth of that score's search.
    pub depth: Option<u32>,
}

/// A UCI score.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    /// `score cp N`: centipawns.
    Cp(i32),
    /// `score mate N`: mate in N moves (negative: being mated).
    Mate(i32),
}

impl Answer {
    /// Takes the score and depth of an `info` line, if it carries a score of the first
    /// PV (`multipv 1` or none). A line that does not read is ignored: the engine's
    /// move, not its commentary, is what the game needs.
    pub fn read_info(&mut self, line: &str) {
        let mut words = line.split_whitespace().skip(1);
        let (mut score, mut depth, mut first_pv) = (None, None, true);
        while let Some(w) = words.next() {
            match w {
                "depth" => depth = words.next().and_then(|d| d.parse().ok()),
                "multipv" => first_pv = words.next() == Some("1"),
                "score" => {
                    let kind = words.next();
                    let n = words.next().and_then(|n| n.parse().ok());
                    score = match (kind, n) {
                        (Some("cp"), Some(n)) => Some(Score::Cp(n)),
                        (Some("mate"), Some(n)) => Some(Score::Mate(n)),
                        _ => None,
                    };
                }
                // The rest of the line is the PV's moves, or free text.
                "pv" | "string" => break,
                _ => {}
            }
        }
        if first_pv && let Some(score) = score {
            self.score = Some(score);
            self.depth = depth;
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_commands_like_a_shell() {
        assert_eq!(split_command("a b  c").unwrap(), ["a", "b", "c"]);
        assert_eq!(
            split_command(r#"sh -c 'tee x | y' "a \"b\"" c\ d"#).unwrap(),
            ["sh", "-c", "tee x | y", "a \"b\"", "c d"]
        );
        assert_eq!(split_command("''").unwrap(), [""]);
        assert!(matches!(split_command("a 'b"), Err(EngineError::Quote(_))));
        assert!(split_command("   ").unwrap().is_empty());
    }

    #[test]
    fn builtin_maps_to_this_executable() {
        let s = EngineSpec::parse("builtin:greedy").unwrap();
        assert_eq!(&s.argv[1..], ["builtin-engine", "greedy"]);
        let s = EngineSpec::parse("builtin:search").unwrap();
        assert_eq!(&s.argv[1..], ["uci"]);
        assert!(matches!(EngineSpec::parse(""), Err(EngineError::Empty)));
    }

    #[test]
    fn a_missing_program_is_a_spawn_error() {
        let spec = EngineSpec::parse("/nonexistent/jieqi-no-such-engine").unwrap();
        assert!(matches!(
            Engine::start(&spec),
            Err(EngineError::Spawn { .. })
        ));
    }

    #[test]
    fn overlong_lines_are_cut() {
        let mut input = vec![b'a'; 200_000];
        input.extend_from_slice(b"\r\nbestmove h2e2\n\xff\n");
        let (tx, rx) = channel();
        pump(std::io::Cursor::new(input), &tx);
        drop(tx);
        let lines: Vec<String> = rx.iter().collect();
        assert!(lines.iter().all(|l| l.len() as u64 <= MAX_LINE));
        assert_eq!(
            lines.len(),
            6,
            "200000 bytes = 3 full pieces + 1 rest, then 2 lines"
        );
        assert_eq!(lines[4], "bestmove h2e2");
        assert_eq!(lines[5], "\u{fffd}");
    }

    #[test]
    fn the_chase_rule_is_told_only_to_engines_that_declare_it() {
        let tournament = jieqi_core::game::RuleSet::by_name("tournament").unwrap();
        let engine = |options: &str| {
            format!(
                "sh -c 'read x; echo \"id name t\"; {options} echo uciok; \
                 while read y; do [ \"$y\" = isready ] && echo readyok; done'"
            )
        };
        let declares = engine("echo \"option name Chase Rule type check default false\";");
        let spec = EngineSpec::parse(&declares).unwrap().for_rules(&tournament);
        let e = Engine::start(&spec).unwrap();
        assert_eq!(
            e.transcript(),
            ["uci", "setoption name Chase Rule value true", "isready"]
        );
        // The user's own setting wins over the rules.
        let spec = spec.with_option("Chase Rule", "false");
        let e = Engine::start(&spec).unwrap();
        assert_eq!(
            e.transcript(),
            ["uci", "setoption name Chase Rule value false", "isready"]
        );
        let silent = engine("echo \"option name Hash type spin default 1 min 1 max 2\";");
        let spec = EngineSpec::parse(&silent).unwrap().for_rules(&tournament);
        let e = Engine::start(&spec).unwrap();
        assert_eq!(e.transcript(), ["uci", "isready"]);
    }

    #[test]
    fn a_silent_engine_times_out_and_a_dead_one_is_seen() {
        let spec =
            EngineSpec::parse("sh -c 'read x; echo uciok; read y; echo readyok; exit 0'").unwrap();
        let mut e = Engine::start(&spec).unwrap();
        assert_eq!(e.transcript(), ["uci", "isready"]);
        let r = e.wait_bestmove(Instant::now() + Duration::from_millis(2000));
        assert!(matches!(r, Err(EngineError::Died(_))), "{r:?}");
        assert!(e.is_dead());
    }

    #[test]
    fn an_answer_keeps_the_last_score_of_the_first_pv() {
        let mut a = Answer::default();
        a.read_info("info depth 3 seldepth 5 score cp 41 nodes 900 pv h2e2 h9g7");
        assert_eq!((a.score, a.depth), (Some(Score::Cp(41)), Some(3)));
        // A second PV, a line without a score and a broken score change nothing.
        a.read_info("info depth 4 multipv 2 score cp -80 pv c3c4");
        a.read_info("info depth 5 currmove h2e2 currmovenumber 1");
        a.read_info("info depth 5 score cp");
        a.read_info("info string score cp 999 depth 99");
        assert_eq!((a.score, a.depth), (Some(Score::Cp(41)), Some(3)));
        a.read_info("info depth 6 multipv 1 score mate -3 lowerbound pv e3e4");
        assert_eq!((a.score, a.depth), (Some(Score::Mate(-3)), Some(6)));
    }
}
