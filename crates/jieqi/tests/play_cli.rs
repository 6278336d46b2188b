//! `jieqi play` driven through piped stdin.

use std::io::Write;
use std::process::{Command, Stdio};

fn play(args: &[&str], input: &str) -> (bool, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_jieqi"))
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run jieqi play");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn moves_garbage_and_resignation() {
    let (ok, out) = play(
        &[
            "--seed",
            "7",
            "--movetime",
            "30",
            "--style",
            "plain",
            "--engine",
            "builtin:greedy",
        ],
        "help\nzz\ne0e5\n马二进三\nmoves\nresign\n",
    );
    assert!(ok, "{out}");
    assert!(out.contains("九 八 七 六 五 四 三 二 一"), "{out}");
    assert!(out.contains("Chinese notation"), "help: {out}");
    assert!(out.contains("not a move here: \"zz\""), "{out}");
    assert!(out.contains("e0e5: no legal move fits"), "{out}");
    // Chinese input; the face-down horse-square piece on h0 is a pawn in this deal.
    assert!(out.contains("You play h0g2P (马二进三兵)"), "{out}");
    assert!(out.contains("Last move: h0g2P (傌二進三兵)"), "{out}");
    assert!(out.contains("jieqi-builtin-greedy plays "), "{out}");
    assert!(out.contains("e3e4=兵五进一"), "moves: {out}");
    assert!(
        out.contains("Game over: 0-1 Black wins by resignation. You lose."),
        "{out}"
    );
    assert!(out.contains("Deal: "), "{out}");
}

#[test]
fn coordinates_and_other_notations() {
    let (ok, out) = play(
        &[
            "--seed",
            "1",
            "--movetime",
            "30",
            "--notation",
            "wxf",
            "--style",
            "ascii",
        ],
        "h2e2\nresign\n",
    );
    assert!(ok, "{out}");
    assert!(out.contains("You play h2e2"), "{out}");
    assert!(out.contains("(C2.5"), "WXF shown: {out}");
    let (ok, out) = play(&["--notation", "klingon"], "");
    assert!(!ok);
    assert!(out.contains("unknown --notation"), "{out}");
}

#[test]
fn end_of_input_leaves_the_game() {
    let (ok, out) = play(
        &["--color", "black", "--movetime", "30", "--level", "3"],
        "",
    );
    assert!(ok, "{out}");
    // Our engine (the default) played Red's first move, then the input ended.
    assert!(out.contains("against jieqi "), "{out}");
    assert!(out.contains("plays "), "{out}");
    assert!(out.contains("end of input"), "{out}");
    assert!(out.contains("Red wins by abandonment"), "{out}");
}

#[test]
fn bad_options_are_refused() {
    let (ok, out) = play(&["--level", "99"], "");
    assert!(!ok, "{out}");
    let (ok, out) = play(&["--engine", "/nonexistent/engine"], "");
    assert!(!ok);
    assert!(out.contains("cannot start the engine"), "{out}");
}
