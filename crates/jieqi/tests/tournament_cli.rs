//! `jieqi tournament` end to end over a file.

use std::path::{Path, PathBuf};
use std::process::Command;

fn jieqi(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_jieqi"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .output()
        .expect("run jieqi");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ok(args: &[&str]) -> String {
    let (success, out, err) = jieqi(args);
    assert!(success, "jieqi {args:?} failed: {err}");
    out
}

fn fails(args: &[&str], message: &str) {
    let (success, _, err) = jieqi(args);
    assert!(!success, "jieqi {args:?} should fail");
    assert!(
        err.contains(message),
        "jieqi {args:?}: {err:?} lacks {message:?}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "jieqi-tournament-cli-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_small_swiss_then_knockout_over_a_file() {
    let dir = scratch("event");
    let file = dir.join("cup.json");
    let f = s(&file);
    ok(&[
        "tournament",
        "new",
        f,
        "--name",
        "Cup",
        "--format",
        "swiss-knockout",
        "--rounds",
        "2",
        "--qualifiers",
        "2",
        "--best-of",
        "1",
        "--tie-break",
        "higher-seed",
        "--deal-mode",
        "duplicate",
    ]);
    fails(&["tournament", "new", f, "--name", "again"], "exists");
    for (name, rating) in [
        ("符传咏", "2100"),
        ("洪清谱", "2000"),
        ("C", "1900"),
        ("D", "1800"),
        ("E", "1700"),
    ] {
        ok(&["tournament", "add-player", f, name, "--rating", rating]);
    }
    fails(&["tournament", "add-player", f, "C"], "already entered");

    let out = ok(&["tournament", "pair", f, "--seed", "demo"]);
    assert!(out.contains("round 1") && out.contains("bye: E"), "{out}");
    assert_eq!(out.matches("sha256:").count(), 2, "{out}");
    // Re-pair before any result: same pairing, the deal commitment withdrawn.
    ok(&["tournament", "unpair", f]);
    let again = ok(&["tournament", "pair", f]);
    let boards = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.contains(". "))
            .map(|l| l.split("sha256").next().unwrap().to_string())
            .collect()
    };
    assert_eq!(boards(&out), boards(&again));
    fails(&["tournament", "pair", f], "not finished");
    fails(
        &["tournament", "result", f, "1", "1", "2-0"],
        "unknown result",
    );
    fails(&["tournament", "result", f, "1", "7", "1-0"], "no board 7");
    ok(&["tournament", "result", f, "1", "1", "1-0"]);
    fails(&["tournament", "result", f, "1", "1", "0-1"], "--correct");
    ok(&["tournament", "result", f, "1", "1", "0-1", "--correct"]);
    fails(&["tournament", "unpair", f], "has started");
    let done = ok(&["tournament", "result", f, "1", "2", "1/2"]);
    assert!(done.contains("round 1 is complete"));
    // The deal is published after the round and verifies.
    let verify = ok(&["tournament", "verify", f]);
    assert!(verify.contains("1 published deal(s) match"), "{verify}");

    ok(&["tournament", "pair", f]);
    ok(&["tournament", "result", f, "2", "1", "1-0"]);
    ok(&["tournament", "result", f, "2", "2", "0-1"]);
    let final_round = ok(&["tournament", "pair", f]);
    assert!(final_round.contains("match 1 game 1"), "{final_round}");
    ok(&["tournament", "result", f, "3", "1", "1-0"]);
    fails(&["tournament", "pair", f], "finished");

    let standings = ok(&["tournament", "standings", f]);
    assert!(
        standings.contains("places") && standings.contains("champion"),
        "{standings}"
    );
    let html = dir.join("cup.html");
    ok(&[
        "tournament",
        "export",
        f,
        "--format",
        "html",
        "-o",
        s(&html),
    ]);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.starts_with("<!DOCTYPE html>")
            && page.contains("Crosstable")
            && page.contains("Knockout")
    );
    assert!(page.contains("符传咏"));
    let csv = ok(&["tournament", "export", f, "--format", "csv"]);
    assert_eq!(csv.lines().count(), 6);
    let games = ok(&["tournament", "export", f, "--format", "games-csv"]);
    assert!(games.lines().count() >= 6);
    let json = ok(&["tournament", "export", f, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["finished"], true);
    assert_eq!(v["places"].as_array().unwrap().len(), 5);

    // A damaged file is refused with a reason, not a panic.
    std::fs::write(&file, "{\"version\": 1").unwrap();
    fails(&["tournament", "standings", f], "not readable");
    fails(
        &["tournament", "standings", s(&dir.join("missing.json"))],
        "cannot read",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn organiser_and_joint_deals_from_the_command_line() {
    let dir = scratch("deals");
    let file = dir.join("rr.json");
    let f = s(&file);
    ok(&[
        "tournament",
        "new",
        f,
        "--name",
        "RR",
        "--format",
        "round-robin",
        "--deal-mode",
        "joint",
    ]);
    for n in ["A", "B", "C", "D"] {
        ok(&["tournament", "add-player", f, n]);
    }
    let out = ok(&["tournament", "pair", f]);
    assert!(out.contains("awaiting contributions"), "{out}");
    let first = ok(&["tournament", "contribute", f, "1", "1", "red", "my secret"]);
    assert!(first.contains("waiting"));
    fails(
        &["tournament", "contribute", f, "1", "1", "red", "again"],
        "already contributed",
    );
    fails(
        &["tournament", "contribute", f, "1", "1", "green", "x"],
        "red or black",
    );
    let second = ok(&["tournament", "contribute", f, "1", "1", "black", "theirs"]);
    assert!(second.contains("committed: sha256:"));
    ok(&["tournament", "result", f, "1", "1", "1-0"]);
    ok(&["tournament", "result", f, "1", "2", "1-0"]);
    fails(
        &["tournament", "add-player", f, "late"],
        "round robin has begun",
    );
    fails(
        &["tournament", "pair", f, "--deal", "nonsense"],
        "bad --deal",
    );
    fails(
        &["tournament", "pair", f, "--deal-mode", "organiser"],
        "give --deal",
    );
    let deal = "RNBAABNRCCPPPPP/rnbaabnrccppppp";
    let out = ok(&["tournament", "pair", f, "--deal", deal]);
    assert!(out.contains("organiser deals"), "{out}");
    ok(&["tournament", "result", f, "2", "1", "1/2"]);
    ok(&["tournament", "result", f, "2", "2", "1/2"]);
    let shown = ok(&["tournament", "pairings", f, "2"]);
    assert!(shown.contains(&format!("deal {deal}")), "{shown}");
    let verify = ok(&["tournament", "verify", f]);
    assert!(verify.contains("2 published deal(s) match"), "{verify}");
    let _ = std::fs::remove_dir_all(&dir);
}
