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
        &["--seed", "7", "--movetime", "30", "--style", "plain"],
        "help\nzz\ne0e5\n\u{9a6c}\u{4e8c}\u{8fdb}\u{4e09}\nh2e2\nmoves\nresign\n",
    );
    assert!(ok, "{out}");
    assert!(out.contains("九 八 七 六 五 四 三 二 一"), "{out}");
    assert!(out.contains("not a move"), "{out}");
    assert!(out.contains("e0e5 is not a legal move"), "{out}");
    assert!(out.contains("You play h2e2"), "{out}");
    assert!(out.contains("jieqi-builtin-greedy plays "), "{out}");
    assert!(
        out.contains("Game over: 0-1 Black wins by resignation. You lose."),
        "{out}"
    );
    assert!(out.contains("Deal: "), "{out}");
}

#[test]
fn end_of_input_leaves_the_game() {
    let (ok, out) = play(
        &["--color", "black", "--movetime", "30", "--level", "3"],
        "",
    );
    assert!(ok, "{out}");
    // The engine (Red) moved first, then the input ended.
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
