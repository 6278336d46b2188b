//! The perpetual rules of RULES.md §5 at their boundaries, as records checked by
//! `jieqi record verify`: each scenario in `jieqi-core/tests/data/perpetual/` states
//! the verdict it must get (`[Verdict]`, the end as `verify` prints it, or `none`), and
//! must get it both as written (no deal: reveals taken as written) and with a
//! `[Deal]` tag, which puts it under the referee.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The standard array: it fits every scenario (their face-down pieces and pools are
/// those of the ordinary xiangqi array).
const DEAL: &str = "RNBAABNRCCPPPPP/rnbaabnrccppppp";

fn scenarios() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../jieqi-core/tests/data/perpetual");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    files.sort();
    files
}

fn verify(file: &Path) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_jieqi"))
        .args(["record", "verify"])
        .arg(file)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

fn tag<'a>(text: &'a str, name: &str) -> &'a str {
    let start = format!("[{name} \"");
    let line = text
        .lines()
        .find(|l| l.starts_with(&start))
        .unwrap_or_else(|| panic!("no [{name}]"));
    &line[start.len()..line.len() - 2]
}

#[test]
fn every_scenario_gets_its_verdict_with_and_without_the_deal() {
    let files = scenarios();
    assert!(files.len() >= 10, "{files:?}");
    let dir = tempfile::tempdir().unwrap();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let (verdict, result) = (tag(&text, "Verdict"), tag(&text, "Result"));
        let expected = if verdict == "none" {
            format!("result: {result}")
        } else {
            format!("end: {verdict} ({result})")
        };
        let with_deal = dir.path().join(file.file_name().unwrap());
        std::fs::write(
            &with_deal,
            text.replacen("[Format", &format!("[Deal \"{DEAL}\"]\n[Format"), 1),
        )
        .unwrap();
        for (f, deal) in [(&file, "none given"), (&with_deal, "every reveal agrees")] {
            let (ok, out) = verify(f);
            assert!(ok, "{}: {out}", f.display());
            assert!(out.contains(&expected), "{}: {out}", f.display());
            assert!(out.contains(deal), "{}: {out}", f.display());
        }
    }
}

#[test]
fn a_move_after_the_end_or_a_wrong_result_is_refused_without_a_deal() {
    let files = scenarios();
    let chase9 = files.iter().find(|f| f.ends_with("chase_9.pgn")).unwrap();
    let text = std::fs::read_to_string(chase9).unwrap();
    let dir = tempfile::tempdir().unwrap();
    // One more move after the perpetual chase ended the game.
    let after = dir.path().join("after.pgn");
    std::fs::write(&after, text.replace("9. b2a2 0-1", "9. b2a2 a7b7 0-1")).unwrap();
    let (ok, out) = verify(&after);
    assert!(!ok, "{out}");
    assert!(
        out.contains("ply 18") && out.contains("already over"),
        "{out}"
    );
    // The rules decided a win for Black; the record claims a draw.
    let wrong = dir.path().join("wrong.pgn");
    std::fs::write(&wrong, text.replace("0-1", "1/2-1/2")).unwrap();
    let (ok, out) = verify(&wrong);
    assert!(!ok, "{out}");
    assert!(out.contains("perpetual chase"), "{out}");
}
