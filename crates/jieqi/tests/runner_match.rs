//! `jieqi match` end to end: real engine subprocesses, statistics, PGN records read back
//! and verified, and what each side is told.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use jieqi_core::record;
use jieqi_core::{Color, Deal, Position, UciMove};

const EXE: &str = env!("CARGO_BIN_EXE_jieqi");

/// Runs `jieqi`; a `match` gets a generous grace so that a loaded test machine never
/// turns an instant answer into a time forfeit (timing is not under test here).
fn jieqi(args: &[&str]) -> Output {
    let mut cmd = Command::new(EXE);
    cmd.args(args);
    if args.first() == Some(&"match") && !args.contains(&"--grace-ms") {
        cmd.args(["--grace-ms", "5000"]);
    }
    cmd.output().expect("run jieqi")
}

/// `jieqi match` of the greedy baseline (the first engine) against the random one.
fn greedy_vs_random(args: &[&str]) -> Output {
    let mut all = vec![
        "match",
        "--engine",
        "builtin:greedy",
        "--engine",
        "builtin:random",
    ];
    all.extend_from_slice(args);
    jieqi(&all)
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("jieqi-runner-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    let _ = std::fs::remove_file(&p);
    p
}

/// `(wins, draws, losses)` of the first engine from the summary.
fn score(stdout: &str) -> (u32, u32, u32) {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("Score of "))
        .unwrap_or_else(|| panic!("no score line in {stdout}"));
    let num = |key: &str| -> u32 {
        let rest = &line[line.find(key).unwrap() + key.len()..];
        rest.split_whitespace().next().unwrap().parse().unwrap()
    };
    (num(" W "), num(" D "), num(" L "))
}

#[test]
fn greedy_beats_random_in_a_short_match() {
    let pgn = tmp("greedy.pgn");
    let out = greedy_vs_random(&[
        "--games",
        "6",
        "--movetime",
        "20",
        "--concurrency",
        "2",
        "--seed",
        "runner-test",
        "--sprt",
        "elo0=0,elo1=20",
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (w, d, l) = score(&stdout);
    assert_eq!(w + d + l, 6, "{stdout}");
    assert!(2 * l < 6 && w > l, "greedy should beat random: {stdout}");
    assert!(stdout.contains("Elo "), "{stdout}");
    assert!(stdout.contains("LOS "), "{stdout}");
    let penta = stdout
        .lines()
        .find(|l| l.starts_with("Pentanomial"))
        .unwrap();
    let counts: u32 = penta[penta.find('[').unwrap()..]
        .trim_matches(|c| c == '[' || c == ']' || c == ':' || c == ' ')
        .rsplit('[')
        .next()
        .unwrap()
        .trim_end_matches(']')
        .split(',')
        .map(|n| n.trim().parse::<u32>().unwrap())
        .sum();
    assert_eq!(counts, 3, "three pairs: {penta}");
    assert!(stdout.contains("SPRT elo0=0 elo1=20"), "{stdout}");
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Game \"Jieqi\"]").count(), 6);
    assert_eq!(text.matches("[Deal \"").count(), 6);
    assert!(text.contains("[Termination \""));
    // Pairs share a deal: every deal appears exactly twice.
    let deals: Vec<&str> = text.lines().filter(|l| l.starts_with("[Deal ")).collect();
    for d in &deals {
        assert_eq!(deals.iter().filter(|x| x == &d).count(), 2, "{d}");
    }
}

/// The per-game progress lines (stderr is not a terminal here): `(red, black, result,
/// termination)` in the order the games finished.
fn progress_lines(stderr: &str) -> Vec<(String, String, String, String)> {
    stderr
        .lines()
        .filter(|l| l.starts_with("game "))
        .map(|l| {
            // game 3/4: RED - BLACK 1-0 (checkmate) | +2 =0 -1 Elo …
            let rest = l.split_once(": ").unwrap().1;
            let (players, rest) = rest.split_once(" (").unwrap();
            let termination = rest.rsplit_once(") | ").unwrap().0;
            let (players, result) = players.rsplit_once(' ').unwrap();
            let (red, black) = players.split_once(" - ").unwrap();
            (red.into(), black.into(), result.into(), termination.into())
        })
        .collect()
}

#[test]
fn pgn_records_read_back_verify_and_agree_with_the_match() {
    let pgn = tmp("records.pgn");
    let seed = "pgn-records";
    let games = 4;
    let out = greedy_vs_random(&[
        "--games",
        &games.to_string(),
        "--movetime",
        "10",
        "--seed",
        seed,
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // One worker: games finish in the order they are numbered.
    let played = progress_lines(&stderr);
    assert_eq!(played.len(), games, "{stderr}");
    let text = std::fs::read_to_string(&pgn).unwrap();
    let records = record::pgn::read_all(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(records.len(), games, "{text}");
    let (mut first_wins, mut first_losses) = (0, 0);
    for (i, (rec, (red, black, result, termination))) in records.iter().zip(&played).enumerate() {
        let number = i + 1;
        let report = rec
            .verify()
            .unwrap_or_else(|e| panic!("game {number}: {e}\n{text}"));
        assert!(
            report.deal_checked && report.commitment_checked,
            "{report:?}"
        );
        assert_eq!(report.plies, rec.moves.len());
        // The pair's deal, the players, the result and its reason, as the match had them.
        let pair = i / 2;
        assert_eq!(
            rec.deal,
            Some(Deal::from_seed(format!("{seed}:{pair}").as_bytes())),
            "game {number}"
        );
        assert_eq!(rec.result, *result, "game {number}");
        if let Some(o) = report.outcome {
            assert_eq!(o.result_str(), result, "game {number}");
        }
        assert_eq!(rec.tag("Red"), Some(red.as_str()));
        assert_eq!(rec.tag("Black"), Some(black.as_str()));
        assert_eq!(rec.tag("Termination"), Some(termination.as_str()));
        assert_eq!(rec.tag("Round"), Some(number.to_string().as_str()));
        assert_eq!(rec.tag("TimeControl"), Some("movetime 10 ms"));
        assert_eq!(
            rec.tag("PlyCount"),
            Some(rec.moves.len().to_string().as_str())
        );
        assert!(rec.tag("Event").is_some_and(|e| e.contains(" vs ")));
        assert!(rec.tag("Date").is_some_and(|d| d.len() == 10));
        // Colours swap within a pair: the first engine (greedy) is Red in odd games.
        let first_is_red = i % 2 == 0;
        assert_eq!(red.ends_with("greedy"), first_is_red, "{red}");
        match (result.as_str(), first_is_red) {
            ("1-0", true) | ("0-1", false) => first_wins += 1,
            ("1-0", false) | ("0-1", true) => first_losses += 1,
            _ => {}
        }
    }
    let (w, d, l) = score(&stdout);
    assert_eq!((w, l), (first_wins, first_losses), "{stdout}");
    assert_eq!(w + d + l, games as u32);
    // Moves carry their reveals: the first move of a game reveals a face-down piece.
    assert!(
        text.lines()
            .any(|l| l.starts_with("1. ")
                && l.split_whitespace().nth(1).is_some_and(|m| m.len() > 4)),
        "{text}"
    );
    // `jieqi record verify` checks every game of the file.
    let out = jieqi(&["record", "verify", pgn.to_str().unwrap()]);
    let verified = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{verified}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for n in 1..=games {
        assert!(
            verified.contains(&format!("records.pgn game {n}: ok")),
            "{verified}"
        );
    }
    assert_eq!(verified.matches("it matches its commitment").count(), games);
}

fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// An engine command that logs everything it receives into `log`.
fn logged(kind: &str, log: &Path) -> String {
    let inner = format!(
        "tee -a {} | {} builtin-engine {kind}",
        sh_quote(log.to_str().unwrap()),
        sh_quote(EXE)
    );
    format!("sh -c {}", sh_quote(&inner))
}

/// Checks every `position` command one engine received. Returns how many captures of
/// face-down pieces it was told about as capturer, and as the side that lost them.
fn check_transcript(log: &Path) -> (u32, u32) {
    let text = std::fs::read_to_string(log).unwrap();
    let (mut own, mut theirs) = (0, 0);
    for line in text.lines().filter(|l| l.starts_with("position ")) {
        let moves: Vec<&str> = match line.split_once(" moves ") {
            Some((_, m)) => m.split_whitespace().collect(),
            None => vec![],
        };
        // The receiver is the side to move after these moves.
        let receiver = if moves.len() % 2 == 0 {
            Color::Red
        } else {
            Color::Black
        };
        let fen = line
            .trim_start_matches("position fen ")
            .split(" moves ")
            .next()
            .unwrap();
        let mut pos = Position::from_fen(fen).unwrap();
        for text in moves {
            let um = UciMove::parse(text).unwrap();
            let mover = pos.turn();
            let hidden_mover = pos.board().is_hidden(um.from);
            let hidden_victim = pos.board().is_hidden(um.to);
            let letters = text.len() - 4;
            if hidden_victim {
                let expect = usize::from(hidden_mover) + usize::from(mover == receiver);
                assert_eq!(letters, expect, "{text} sent to {receiver:?} in {line}");
                if mover == receiver {
                    own += 1;
                } else {
                    theirs += 1;
                }
            } else {
                assert_eq!(letters, usize::from(hidden_mover), "{text} in {line}");
            }
            let (m, rv) = um.resolve(&pos).unwrap();
            pos.play(m, rv).unwrap();
        }
    }
    (own, theirs)
}

#[test]
fn each_side_is_told_only_what_it_may_know() {
    let (log_a, log_b) = (tmp("a.log"), tmp("b.log"));
    let out = jieqi(&[
        "match",
        "--engine",
        &logged("greedy", &log_a),
        "--engine",
        &logged("greedy", &log_b),
        "--games",
        "2",
        "--movetime",
        "20",
        "--grace-ms",
        "2000",
        "--seed",
        "transcript",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (w, d, l) = score(&stdout);
    assert_eq!(w + d + l, 2);
    let (own_a, theirs_a) = check_transcript(&log_a);
    let (own_b, theirs_b) = check_transcript(&log_b);
    // Greedy engines capture face-down pieces early and often: the check has teeth.
    assert!(
        own_a + own_b > 0 && theirs_a + theirs_b > 0,
        "{own_a} {theirs_a} {own_b} {theirs_b}"
    );
}

#[test]
fn a_cheating_engine_loses_every_game() {
    // Answers every `go` with a move that is never legal for either side.
    let script = "while read -r l; do case \"$l\" in uci) echo uciok;; isready) echo readyok;; \
                  go*) echo 'bestmove e0e2';; quit) exit 0;; esac; done";
    let cheat = format!("sh -c {}", sh_quote(script));
    let out = jieqi(&[
        "match",
        "--engine",
        &cheat,
        "--engine",
        "builtin:random",
        "--games",
        "2",
        "--movetime",
        "20",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert_eq!(score(&stdout), (0, 0, 2), "{stdout}");
    assert!(stdout.contains("illegal move e0e2"), "{stdout}");
}

#[test]
fn a_broken_engine_command_is_a_clear_error() {
    let out = jieqi(&[
        "match",
        "--engine",
        "/nonexistent/engine",
        "--engine",
        "builtin:random",
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot start engine"), "{stderr}");
    let out = jieqi(&["match", "--engine", "builtin:random"]);
    assert!(!out.status.success());
    let out = jieqi(&["match", "--engine", "a", "--engine", "b", "--tc", "fast"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("seconds+increment"));
    let out = jieqi(&[
        "match",
        "--engine",
        "a",
        "--engine",
        "b",
        "--sprt",
        "elo0=3,elo1=1",
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("elo0 must be smaller"));
}

#[test]
fn the_sprt_stops_a_decided_match() {
    let out = greedy_vs_random(&[
        "--games",
        "400",
        "--movetime",
        "10",
        "--concurrency",
        "2",
        "--seed",
        "sprt",
        "--sprt",
        "elo0=0,elo1=50",
        "--option",
        "2:Seed=7",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let (w, d, l) = score(&stdout);
    assert!(w + d + l < 400, "{stdout}");
    assert!(stdout.contains("H1 accepted (elo1)"), "{stdout}");
    assert!(stdout.contains("stopped early"), "{stdout}");
}

#[test]
fn ctrl_c_ends_the_match_with_the_result_so_far() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::Stdio;
    let mut child = Command::new(EXE)
        .args([
            "match",
            "--engine",
            "builtin:greedy",
            "--engine",
            "builtin:random",
            "--games",
            "1000000",
            "--seed",
            "interrupt",
            "--grace-ms",
            "5000",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run jieqi");
    // Wait for the first finished games, then press Ctrl-C.
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.starts_with("game 3/") {
        line.clear();
        assert!(err.read_line(&mut line).unwrap() > 0, "stderr ended early");
    }
    // The shell's own `kill`, so no procps is needed.
    let status = Command::new("sh")
        .args(["-c", &format!("kill -INT {}", child.id())])
        .status()
        .unwrap();
    assert!(status.success());
    let mut rest = String::new();
    err.read_to_string(&mut rest).unwrap();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}\n{rest}");
    let (w, d, l) = score(&out);
    let played = w + d + l;
    assert!((3..1_000_000).contains(&played), "{out}");
    assert!(
        out.contains(&format!("Interrupted after {played} of 1000000 games")),
        "{out}"
    );
}
