//! `jieqi tournament run`: a whole engine event with the match runner, using the
//! built-in baseline engines.

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

#[test]
fn engines_play_a_swiss_then_a_knockout() {
    let dir = std::env::temp_dir().join(format!("jieqi-tournament-run-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("engines.json");
    let f = file.to_str().unwrap();
    let pgn = dir.join("games.pgn");
    let html = dir.join("live.html");
    ok(&[
        "tournament",
        "new",
        f,
        "--name",
        "Engines",
        "--format",
        "swiss-knockout",
        "--rounds",
        "2",
        "--qualifiers",
        "2",
        "--best-of",
        "2",
        "--tie-break",
        "armageddon",
        "--deal-mode",
        "duplicate",
    ]);
    // A player without an engine is refused by `run`.
    ok(&["tournament", "add-player", f, "human"]);
    let (success, _, err) = jieqi(&["tournament", "run", f, "--movetime", "20"]);
    assert!(
        !success && err.contains("no engine") && err.contains("human"),
        "{err}"
    );
    ok(&["tournament", "withdraw", f, "human"]);
    for (name, engine) in [
        ("random-1", "builtin:random"),
        ("random-2", "builtin:random"),
        ("greedy-1", "builtin:greedy"),
        ("greedy-2", "builtin:greedy"),
        ("greedy-3", "builtin:greedy"),
    ] {
        ok(&["tournament", "add-player", f, name, "--engine", engine]);
    }
    // One round only first (resumable), then the rest.
    let (success, _, err) = jieqi(&[
        "tournament",
        "run",
        f,
        "--movetime",
        "20",
        "--rounds",
        "1",
        "--seed",
        "engines",
    ]);
    assert!(success, "{err}");
    assert!(err.contains("round 1 2/2"), "progress lines: {err}");
    let text = std::fs::read_to_string(&file).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["rounds"].as_array().unwrap().len(), 1);
    let out = ok(&[
        "tournament",
        "run",
        f,
        "--movetime",
        "20",
        "--seed",
        "engines",
        "--pgn",
        pgn.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(out.contains("champion"), "{out}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let rounds = v["rounds"].as_array().unwrap();
    // Two Swiss rounds, then at least two knockout games.
    assert!(rounds.len() >= 4);
    let games_after_first: usize = rounds[1..]
        .iter()
        .map(|r| r["games"].as_array().unwrap().len())
        .sum();
    let records = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(
        records.matches("[Event \"Engines\"]").count(),
        games_after_first
    );
    assert!(records.contains("[Red \"") && records.contains("greedy-"));
    assert!(rounds.iter().all(|r| {
        r["games"]
            .as_array()
            .unwrap()
            .iter()
            .all(|g| !g["result"].is_null())
    }));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("Knockout"));
    let verify = ok(&["tournament", "verify", f]);
    assert!(verify.contains("0 not yet published"), "{verify}");
    let _ = std::fs::remove_dir_all(&dir);
}
