//! UCI sessions: the loop driven through in-memory pipes, and the real binary.

use std::io::{Read, Write};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jieqi_core::{Position, UciMove};

/// The reading end of an in-memory pipe fed line by line by the test.
struct PipeIn {
    rx: Receiver<Vec<u8>>,
    buf: Vec<u8>,
    at: usize,
}

impl Read for PipeIn {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.at >= self.buf.len() {
            match self.rx.recv() {
                Ok(b) => {
                    self.buf = b;
                    self.at = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.buf.len() - self.at);
        out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[derive(Clone, Default)]
struct SharedOut(Arc<Mutex<Vec<u8>>>);

impl Write for SharedOut {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct Session {
    tx: Option<Sender<Vec<u8>>>,
    out: SharedOut,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Session {
    fn start() -> Session {
        let (tx, rx) = channel();
        let out = SharedOut::default();
        let o = out.clone();
        let handle = std::thread::spawn(move || {
            let input = std::io::BufReader::new(PipeIn {
                rx,
                buf: Vec::new(),
                at: 0,
            });
            jieqi_engine::uci::run(input, o);
        });
        Session {
            tx: Some(tx),
            out,
            handle: Some(handle),
        }
    }

    fn send(&self, line: &str) {
        self.tx
            .as_ref()
            .unwrap()
            .send(format!("{line}\n").into_bytes())
            .unwrap();
    }

    fn lines(&self) -> Vec<String> {
        String::from_utf8_lossy(&self.out.0.lock().unwrap())
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Waits (up to a generous limit) for a line starting with `prefix`, counting only
    /// lines after the first `skip`.
    fn wait_for(&self, prefix: &str, skip: usize) -> String {
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(60) {
            if let Some(l) = self
                .lines()
                .into_iter()
                .skip(skip)
                .find(|l| l.starts_with(prefix))
            {
                return l;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("no {prefix:?} line; output:\n{}", self.lines().join("\n"));
    }

    fn quit(mut self) {
        self.send("quit");
        self.tx.take();
        self.handle.take().unwrap().join().unwrap();
    }
}

#[test]
fn handshake_and_options() {
    let s = Session::start();
    s.send("uci");
    s.wait_for("uciok", 0);
    let lines = s.lines();
    assert!(lines.iter().any(|l| l.starts_with("id name ")));
    for opt in [
        "Hash",
        "Threads",
        "MultiPV",
        "Move Overhead",
        "Skill Level",
        "UCI_ShowWDL",
        "UCI_Elo",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("option name {opt} type"))),
            "missing option {opt}"
        );
    }
    s.send("setoption name Hash value 8");
    s.send("setoption name Threads value 2");
    s.send("setoption name UCI_ShowWDL value true");
    s.sync();
    assert!(
        !s.lines().iter().any(|l| l.contains("error")),
        "{:?}",
        s.lines()
    );
    s.quit();
}

#[test]
fn position_with_suffixed_moves_then_go_depth() {
    let s = Session::start();
    s.send("setoption name UCI_ShowWDL value true");
    // A face-down pawn revealed as an elephant, a face-down cannon square revealed as
    // a rook, then a capture of a face-down piece with its identity.
    s.send("position startpos moves c3c4B c6c5P b2b9Rn");
    s.send("d");
    let fen_line = s.wait_for("Fen: ", 0);
    let mut expect = Position::start();
    for m in ["c3c4B", "c6c5P", "b2b9Rn"] {
        let (mv, rv) = UciMove::parse(m).unwrap().resolve(&expect).unwrap();
        expect.play(mv, rv).unwrap();
    }
    assert_eq!(fen_line, format!("Fen: {}", expect.fen()));
    let n = s.lines().len();
    s.send("go depth 1");
    let best = s.wait_for("bestmove ", n);
    let mv = best.split_whitespace().nth(1).unwrap();
    assert_eq!(mv.len(), 4, "bestmove is 4 characters: {best}");
    let m = UciMove::parse(mv).unwrap().to_plain();
    assert!(expect.is_legal(m));
    let info = s
        .lines()
        .into_iter()
        .skip(n)
        .find(|l| l.starts_with("info depth"))
        .expect("an info line");
    for field in [
        " seldepth ",
        " score ",
        " nodes ",
        " nps ",
        " hashfull ",
        " time ",
        " pv ",
        " wdl ",
    ] {
        assert!(info.contains(field), "{field:?} missing in {info}");
    }
    s.quit();
}

#[test]
fn face_down_move_without_suffix_is_rejected_and_leaves_no_position() {
    let s = Session::start();
    s.send("position startpos moves c3c4B");
    s.send("position startpos moves c3c4B c6c5");
    let err = s.wait_for("info string error", 0);
    assert!(err.contains("c6c5"), "{err}");
    let n = s.lines().len();
    s.send("d");
    let err = s.wait_for("info string error no position", n);
    s.sync();
    assert!(
        !s.lines().iter().any(|l| l.starts_with("Fen: ")),
        "no board after a refused position: {err}"
    );
    s.quit();
}

const START_FEN: &str =
    "xxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/X1X1X1X1X/1X5X1/9/XXXXKXXXX w A2B2N2R2C2P5a2b2n2r2c2p5 - 0 1";

/// Black to move with a pool of 14 for its 15 face-down pieces: refused.
const REFUSED_FEN: &str =
    "xxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/X1X1X1X1X/1X5X1/9/XXXXKXXXX b A2B2N2R2C2P5a2b2n2r2c2p4 - 0 1";

#[test]
fn a_refused_position_is_never_searched_as_the_previous_one() {
    assert!(Position::from_fen(REFUSED_FEN).is_err());
    let s = Session::start();
    s.send(&format!("position fen {START_FEN}"));
    s.send("go movetime 200");
    let first = s.wait_for("bestmove ", 0);
    assert_ne!(first, "bestmove (none)");
    let n = s.lines().len();
    s.send(&format!("position fen {REFUSED_FEN}"));
    let err = s.wait_for("info string error", n);
    assert!(err.contains("bad fen"), "{err}");
    s.send("go movetime 200");
    assert_eq!(s.wait_for("bestmove ", n), "bestmove (none)");
    let after = &s.lines()[n..];
    assert!(
        after
            .iter()
            .any(|l| l.starts_with("info string error no position")),
        "{after:?}"
    );
    assert!(
        !after.iter().any(|l| l.starts_with("info depth")),
        "nothing is searched: {after:?}"
    );
    for cmd in ["go perft 1", "eval", "d"] {
        let m = s.lines().len();
        s.send(cmd);
        s.wait_for("info string error no position", m);
    }
    // A valid position afterwards is searched again, Black's moves for Black.
    let n = s.lines().len();
    s.send("position startpos moves h2e2N");
    s.send("go depth 1");
    let best = s.wait_for("bestmove ", n);
    let mut p = Position::start();
    let (m, rv) = UciMove::parse("h2e2N").unwrap().resolve(&p).unwrap();
    p.play(m, rv).unwrap();
    let mv = UciMove::parse(best.split_whitespace().nth(1).unwrap()).unwrap();
    assert!(p.is_legal(mv.to_plain()), "{best}");
    s.quit();
}

#[test]
fn stop_ends_an_infinite_search() {
    let s = Session::start();
    s.send("position startpos");
    s.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !s.lines().iter().any(|l| l.starts_with("bestmove")),
        "an infinite search must wait for stop"
    );
    s.send("stop");
    let best = s.wait_for("bestmove ", 0);
    let m = UciMove::parse(best.split_whitespace().nth(1).unwrap()).unwrap();
    assert!(Position::start().is_legal(m.to_plain()));
    s.quit();
}

#[test]
fn garbage_input_survives() {
    let s = Session::start();
    for junk in [
        "xyzzy",
        "position",
        "position fen",
        "position fen not/a/fen w - - 0 1",
        "position startpos moves zz99",
        "position startpos moves e0e5",
        "position startpos moves h2e2Kq",
        "go depth",
        "go wtime abc",
        "go perft",
        "go perft 99",
        "setoption",
        "setoption name Hash value lots",
        "setoption name Nonsense value 3",
        "\u{1F600} \u{0} \t",
        "go movetime -5 depth 1",
    ] {
        s.send(junk);
    }
    s.sync();
    let errors = s
        .lines()
        .iter()
        .filter(|l| l.starts_with("info string error"))
        .count();
    assert!(errors >= 13, "{:?}", s.lines());
    // Still works.
    let n = s.lines().len();
    s.send("ucinewgame");
    s.send("position startpos");
    s.send("go depth 1");
    s.wait_for("bestmove ", n);
    s.quit();
}

#[test]
fn go_perft_counts_chance_leaves() {
    let s = Session::start();
    s.send("position startpos");
    s.send("go perft 2");
    let total = s.wait_for("Nodes searched: ", 0);
    let expect = jieqi_core::perft::perft(&Position::start(), 2, jieqi_core::perft::Mode::Chance);
    assert_eq!(total, format!("Nodes searched: {expect}"));
    s.quit();
}

#[test]
fn fen_forms_are_accepted() {
    let s = Session::start();
    for fen in [
        // 6 fields, 5 fields (no captured), 3 fields, legacy order.
        "xxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/X1X1X1X1X/1X5X1/9/XXXXKXXXX w A2B2N2R2C2P5a2b2n2r2c2p5 - 0 1",
        "xxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/X1X1X1X1X/1X5X1/9/XXXXKXXXX w A2B2N2R2C2P5a2b2n2r2c2p5 0 1",
        "xxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/X1X1X1X1X/1X5X1/9/XXXXKXXXX w A2B2N2R2C2P5a2b2n2r2c2p5",
        "xxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/X1X1X1X1X/1X5X1/9/XXXXKXXXX A2B2N2R2C2P5a2b2n2r2c2p5 w - - 0 1",
    ] {
        s.send(&format!("position fen {fen}"));
    }
    s.sync();
    assert!(
        !s.lines().iter().any(|l| l.contains("error")),
        "{:?}",
        s.lines()
    );
    s.quit();
}

#[test]
fn real_binary_speaks_uci_at_once() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_jieqi-engine"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "uci").unwrap();
    writeln!(stdin, "position startpos moves h2e2C").unwrap();
    writeln!(stdin, "go movetime 200").unwrap();
    stdin.flush().unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    let mut saw_uciok = false;
    let mut best = None;
    for line in out.lines() {
        let line = line.unwrap();
        if line == "uciok" {
            saw_uciok = true;
        }
        if line.starts_with("bestmove") {
            best = Some(line);
            break;
        }
    }
    writeln!(stdin, "quit").unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert!(saw_uciok);
    let best = best.expect("a bestmove");
    assert_eq!(best.split_whitespace().nth(1).unwrap().len(), 4);
}

/// The node count, score and best move of a fixed-depth search from the start.
fn search_signature(s: &Session) -> (String, String) {
    let n = s.lines().len();
    s.send("ucinewgame");
    s.send("position startpos");
    s.send("go depth 1");
    let best = s.wait_for("bestmove ", n);
    let info = s
        .lines()
        .into_iter()
        .skip(n)
        .rfind(|l| l.starts_with("info depth 1 "))
        .expect("a depth-1 info line");
    let field = |f: &str| {
        info.split(f)
            .nth(1)
            .unwrap()
            .split(' ')
            .take(2)
            .collect::<Vec<_>>()
            .join(" ")
    };
    (format!("{} {}", field(" nodes "), field(" score ")), best)
}

#[test]
fn eval_file_loads_tuned_parameters_and_refuses_bad_ones() {
    let dir = std::env::temp_dir().join(format!("jieqi-evalfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let same = dir.join("same.txt");
    std::fs::write(&same, jieqi_engine::eval::Params::default().to_text()).unwrap();
    let mut changed = jieqi_engine::eval::Params::default();
    changed.w.iter_mut().for_each(|w| *w = *w * 3 / 2 + 7);
    let other = dir.join("other.txt");
    std::fs::write(&other, changed.to_text()).unwrap();
    let broken = dir.join("broken.txt");
    std::fs::write(&broken, "1 2 3").unwrap();

    let s = Session::start();
    s.send("setoption name Threads value 1");
    let builtin = search_signature(&s);
    s.send(&format!("setoption name EvalFile value {}", same.display()));
    assert_eq!(
        search_signature(&s),
        builtin,
        "the built-in parameters, from a file"
    );
    s.send(&format!(
        "setoption name EvalFile value {}",
        other.display()
    ));
    assert_ne!(
        search_signature(&s).0,
        builtin.0,
        "other parameters search differently"
    );
    // Bad files are refused with a reason and the loaded parameters stay.
    let n = s.lines().len();
    s.send(&format!(
        "setoption name EvalFile value {}",
        broken.display()
    ));
    let err = s.wait_for("info string error", n);
    assert!(
        err.contains("EvalFile") && err.contains("expected"),
        "{err}"
    );
    let n = s.lines().len();
    s.send("setoption name EvalFile value /nonexistent/params.txt");
    assert!(s.wait_for("info string error", n).contains("cannot read"));
    assert_ne!(search_signature(&s).0, builtin.0);
    s.send("setoption name EvalFile value <builtin>");
    assert_eq!(search_signature(&s), builtin);
    s.quit();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Nodes of the last `info depth` line after line `skip`.
fn last_nodes(s: &Session, skip: usize) -> u64 {
    let info = s
        .lines()
        .into_iter()
        .skip(skip)
        .rev()
        .find(|l| l.starts_with("info depth"))
        .expect("an info line");
    let at = info.find(" nodes ").expect("nodes field") + 7;
    info[at..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn feature_toggles_are_options_that_change_the_search() {
    let s = Session::start();
    s.send("uci");
    s.wait_for("uciok", 0);
    for (name, _) in jieqi_engine::features::OPTIONS {
        let line = format!("option name {name} type check default true");
        assert!(s.lines().contains(&line), "missing {line:?}");
    }
    let fen = jieqi_engine::bench::ENDGAMES[2];
    let mut counts = Vec::new();
    for setting in [
        "",
        "setoption name Use LMR value false",
        "setoption name use lmr value TRUE",
    ] {
        if !setting.is_empty() {
            s.send(setting);
        }
        s.send("ucinewgame");
        s.send(&format!("position fen {fen}"));
        let n = s.lines().len();
        s.send("go depth 6");
        s.wait_for("bestmove ", n);
        counts.push(last_nodes(&s, n));
    }
    assert_ne!(counts[0], counts[1], "LMR off must change the search");
    assert_eq!(counts[0], counts[2], "LMR back on restores it");
    let n = s.lines().len();
    s.send("setoption name Use NullMove value maybe");
    let err = s.wait_for("info string error", n);
    assert!(err.contains("not true or false"), "{err}");
    s.quit();
}

impl Session {
    fn send_bytes(&self, bytes: &[u8]) {
        self.tx.as_ref().unwrap().send(bytes.to_vec()).unwrap();
    }

    /// Sends `isready` and waits for its answer; returns the lines up to it.
    fn sync(&self) -> Vec<String> {
        let n = self.lines().len();
        self.send("isready");
        self.wait_for("readyok", n);
        self.lines()
    }
}

#[test]
fn a_line_that_is_not_utf8_is_reported_and_skipped() {
    let s = Session::start();
    s.send_bytes(b"isready\n\xc3\x28 go\nposition startpos\n");
    s.send("go depth 1");
    let best = s.wait_for("bestmove ", 0);
    let lines = s.lines();
    assert!(
        lines
            .iter()
            .any(|l| l == "info string error input line is not UTF-8; ignored"),
        "{lines:?}"
    );
    assert_eq!(lines.iter().filter(|l| *l == "readyok").count(), 1);
    assert!(best.starts_with("bestmove "));
    s.quit();
}

#[test]
fn huge_numbers_saturate_and_still_give_a_bestmove() {
    let s = Session::start();
    s.send("setoption name Skill Level value 999999999999999999999");
    s.send("position startpos");
    s.send("go wtime 99999999999999999999999 btime 18446744073709551615 winc 0 binc 0 depth 2");
    let best = s.wait_for("bestmove ", 0);
    let lines = s.lines();
    assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
    let m = UciMove::parse(best.split_whitespace().nth(1).unwrap()).unwrap();
    assert!(Position::start().is_legal(m.to_plain()));
    s.quit();
}

#[test]
fn searchmoves_limits_the_root_moves() {
    let s = Session::start();
    s.send("position startpos");
    // Neither is the move the engine would choose unrestricted at depth 1 for sure,
    // so check the answer is one of them over several choices.
    for (only, allowed) in [
        ("a3a4", vec!["a3a4"]),
        ("i0i1 b2b9 depth 2", vec!["i0i1", "b2b9"]),
    ] {
        let n = s.lines().len();
        s.send(&format!("go searchmoves {only} depth 2"));
        let best = s.wait_for("bestmove ", n);
        let mv = best.split_whitespace().nth(1).unwrap();
        assert!(allowed.contains(&mv), "{only}: {best}");
        for l in s
            .lines()
            .iter()
            .skip(n)
            .filter(|l| l.starts_with("info depth"))
        {
            let pv_first = l.split(" pv ").nth(1).unwrap().split(' ').next().unwrap();
            assert!(allowed.contains(&&pv_first[..4]), "{l}");
        }
    }
    let n = s.lines().len();
    s.send("go searchmoves e0e5 depth 1");
    let lines = s.sync();
    assert!(
        lines[n..]
            .iter()
            .any(|l| l.starts_with("info string error searchmoves")),
        "{lines:?}"
    );
    assert!(!lines[n..].iter().any(|l| l.starts_with("bestmove")));
    s.quit();
}

#[test]
fn perft_runs_beside_the_command_loop_and_stops() {
    let s = Session::start();
    s.send("position startpos");
    // Depth 4 of the start in chance mode takes seconds (every first move reveals).
    s.send("go perft 4");
    let lines = s.sync();
    assert!(
        !lines.iter().any(|l| l.starts_with("Nodes searched")),
        "isready waited for the perft"
    );
    s.send("stop");
    let end = s.wait_for("info string perft 4", 0);
    assert!(end.ends_with(" stopped"), "{end}");
    // Then a normal search.
    let n = s.lines().len();
    s.send("go depth 1");
    s.wait_for("bestmove ", n);
    s.quit();
}

#[test]
fn multipv_reports_distinct_lines() {
    let s = Session::start();
    s.send("setoption name MultiPV value 3");
    s.send("position startpos");
    s.send("go depth 2");
    s.wait_for("bestmove ", 0);
    let lines = s.lines();
    let depth2: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth 2 "))
        .collect();
    assert_eq!(depth2.len(), 3, "{lines:?}");
    let mut firsts = Vec::new();
    for (i, l) in depth2.iter().enumerate() {
        assert!(l.contains(&format!(" multipv {} ", i + 1)), "{l}");
        firsts.push(l.split(" pv ").nth(1).unwrap().split(' ').next().unwrap());
    }
    firsts.sort();
    firsts.dedup();
    assert_eq!(firsts.len(), 3, "{depth2:?}");
    s.quit();
}

#[test]
fn a_mate_is_reported_as_score_mate() {
    // Red mates at once: the rook on a8 holds rank 8, the other goes to i9.
    let fen = "4k4/R8/8R/9/9/9/9/9/9/3K5 w - - 0 1";
    let s = Session::start();
    s.send(&format!("position fen {fen}"));
    s.send("go depth 3");
    let best = s.wait_for("bestmove ", 0);
    let lines = s.lines();
    let last = lines.iter().rfind(|l| l.starts_with("info depth")).unwrap();
    assert!(last.contains(" score mate 1 "), "{last}");
    let pos = Position::from_fen(fen).unwrap();
    let m = UciMove::parse(best.split_whitespace().nth(1).unwrap()).unwrap();
    let mut after = pos.clone();
    after.play(m.to_plain(), jieqi_core::Reveals::NONE).unwrap();
    assert!(after.legal_moves().is_empty(), "{best} does not mate");
    s.quit();
}

#[test]
fn clocks_through_the_loop_leave_time_on_the_clock() {
    let s = Session::start();
    s.send("position startpos moves h2e2C");
    let t = Instant::now();
    s.send("go wtime 1000 btime 1000 winc 0 binc 0");
    s.wait_for("bestmove ", 0);
    let used = t.elapsed();
    assert!(
        used < Duration::from_millis(1000),
        "used {used:?} of a 1 s clock"
    );
    s.quit();
}

#[test]
fn the_strength_limiter_plays_legal_moves_at_every_level() {
    let s = Session::start();
    s.send("setoption name UCI_LimitStrength value true");
    for elo in ["800", "1500", "2800"] {
        s.send(&format!("setoption name UCI_Elo value {elo}"));
        s.send("position startpos");
        let n = s.lines().len();
        s.send("go depth 2");
        let best = s.wait_for("bestmove ", n);
        let m = UciMove::parse(best.split_whitespace().nth(1).unwrap()).unwrap();
        assert!(Position::start().is_legal(m.to_plain()), "{elo}: {best}");
        // Below full strength the engine weighs several lines and picks among them
        // (and searches shallower); at full strength only the best line.
        let infos: Vec<String> = s
            .lines()
            .into_iter()
            .skip(n)
            .filter(|l| l.starts_with("info depth"))
            .collect();
        let several = infos.iter().any(|l| l.contains(" multipv 4 "));
        assert_eq!(several, elo != "2800", "{elo}: {infos:?}");
    }
    assert!(!s.lines().iter().any(|l| l.contains("error")));
    s.quit();
}

#[test]
fn the_chase_rule_option_makes_a_repeated_chase_a_loss() {
    // Red, a rook down, has chased the lone black cannon between a7 and b7: b2a2
    // repeats the chase, a draw under the standard rules, a loss with the chase rule.
    let fen = "3aka3/4r4/c8/9/9/9/9/1R7/9/3K5 w - - 10 20";
    let s = Session::start();
    let search = |skip: usize| {
        s.send("ucinewgame");
        s.send(&format!("position fen {fen} moves b2a2 a7b7 a2b2 b7a7"));
        s.send("go depth 4");
        let best = s.wait_for("bestmove ", skip);
        let lines = s.lines();
        let last = lines.iter().rfind(|l| l.starts_with("info depth")).unwrap();
        (best, last.clone())
    };
    let (best, info) = search(0);
    assert_eq!(best, "bestmove b2a2", "{info}");
    assert!(info.contains(" score cp 0 "), "{info}");
    let skip = s.lines().len();
    s.send("setoption name Chase Rule value true");
    let (best, info) = search(skip);
    assert_ne!(best, "bestmove b2a2", "{info}");
    assert!(!info.contains(" score cp 0 "), "{info}");
    s.send("setoption name Chase Rule value maybe");
    s.sync();
    assert!(
        s.lines()
            .iter()
            .any(|l| l.starts_with("info string error") && l.contains("Chase Rule")),
        "{:?}",
        s.lines()
    );
    s.quit();
}
