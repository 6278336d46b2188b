//! FEN corpora: valid inputs read and round-trip; invalid ones give the right error.

use jieqi_core::{Position, START_FEN, Setup};

fn lines(file: &str) -> Vec<String> {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn valid_fens_read_and_round_trip() {
    let mut n = 0;
    for fen in lines("fen_valid.txt")
        .iter()
        .filter(|l| !l.trim().is_empty())
    {
        let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let out = pos.fen();
        assert_eq!(Position::from_fen(&out).unwrap().fen(), out, "{fen}");
        assert_eq!(out.split(' ').count(), 6);
        n += 1;
    }
    assert!(n >= 10);
}

#[test]
fn every_accepted_form_of_the_start_reads_the_same() {
    let start = Position::start();
    assert_eq!(start.fen(), START_FEN);
    for fen in lines("fen_valid.txt")
        .iter()
        .take(6)
        .filter(|l| l.starts_with("xxxxkxxxx"))
    {
        assert_eq!(Position::from_fen(fen).unwrap(), start, "{fen}");
    }
}

#[test]
fn invalid_fens_give_errors_naming_the_problem() {
    let mut n = 0;
    for line in lines("fen_invalid.txt") {
        let Some((fen, word)) = line.rsplit_once('|') else {
            continue;
        };
        let err = Position::from_fen(fen).expect_err(fen).to_string();
        assert!(
            err.contains(word),
            "{fen}: error {err:?} should mention {word:?}"
        );
        n += 1;
    }
    assert!(n >= 20);
}

#[test]
fn all_problems_are_listed_at_once() {
    let err = Position::from_fen("9/9/9/9/9/9/9/9/9/K8 w K1 - 0 1")
        .unwrap_err()
        .to_string();
    for word in ["outside its palace", "black has 0 kings", "king listed"] {
        assert!(err.contains(word), "{err}");
    }
    // A setup can hold anything; only the position is checked.
    assert!(Setup::from_fen("9/9/9/9/9/9/9/9/9/K8 w K1 - 0 1").is_ok());
}

#[test]
fn garbage_never_panics() {
    for s in [
        "",
        " ",
        "/",
        "//////////",
        "9/9/9/9/9/9/9/9/9/9/9 w",
        "x w x x x x",
        "\u{0}",
        "é/é",
        "99999999999999999999/9",
    ] {
        let _ = Position::from_fen(s);
    }
}
