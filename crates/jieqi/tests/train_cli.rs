//! `jieqi datagen` and `jieqi train` as a user runs them, `--init` included.

use std::path::Path;
use std::process::Command;

/// Runs `jieqi` with `args`; whether it succeeded, and its stderr.
fn jieqi(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_jieqi"))
        .args(args)
        .output()
        .expect("run jieqi");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The held-out loss of epoch `e` in `jieqi train`'s report.
fn held_out(report: &str, e: u32) -> f64 {
    let line = report
        .lines()
        .find(|l| l.split_whitespace().take(2).eq(["epoch", &e.to_string()]))
        .unwrap_or_else(|| panic!("no epoch {e} in:\n{report}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let i = words
        .iter()
        .position(|w| *w == "held-out")
        .expect("held-out");
    words[i + 2].parse().expect("a loss")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[test]
fn train_goes_on_from_a_written_net_and_refuses_a_mismatched_one() {
    let dir = std::env::temp_dir().join(format!("jieqi-train-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let data = dir.join("run.bin");
    let (first, second) = (dir.join("a.nnue"), dir.join("b.nnue"));
    let (ok, err) = jieqi(&[
        "datagen",
        "--out",
        s(&data),
        "--games",
        "10",
        "--nodes",
        "300",
        "--seed",
        "3",
    ]);
    assert!(ok, "{err}");
    let shape = [
        "--hidden",
        "16",
        "--buckets",
        "2",
        "--batch",
        "64",
        "--valid-every",
        "3",
        "--lr",
        "0.01",
    ];
    let mut args = vec!["train", s(&data), "--out", s(&first), "--epochs", "8"];
    args.extend(shape);
    let (ok, a) = jieqi(&args);
    assert!(ok, "{a}");

    let mut args = vec!["train", s(&data), "--out", s(&second), "--epochs", "1"];
    args.extend(shape);
    args.extend(["--init", s(&first)]);
    let (ok, b) = jieqi(&args);
    assert!(ok, "{b}");
    // The resumed run starts where the first one ended, not from random weights.
    let kept = (1..=8)
        .map(|e| held_out(&a, e))
        .fold(f64::INFINITY, f64::min);
    assert!(
        (held_out(&b, 0) - kept).abs() < (held_out(&a, 0) - kept).abs() / 10.0,
        "first run:\n{a}\nresumed:\n{b}"
    );

    // A narrower net is widened: the wider one starts from the same evaluation (the
    // new units contribute nothing until trained), not from random weights.
    let wide = dir.join("c.nnue");
    let mut args = vec!["train", s(&data), "--out", s(&wide), "--epochs", "1"];
    args.extend(shape.map(|a| if a == "16" { "32" } else { a }));
    args.extend(["--init", s(&first)]);
    let (ok, c) = jieqi(&args);
    assert!(ok, "{c}");
    assert!(c.contains("from 16 to 32 hidden units"), "{c}");
    assert!(
        (held_out(&c, 0) - held_out(&b, 0)).abs() < 1e-6,
        "narrow:\n{b}\nwidened:\n{c}"
    );

    // A wider net, a net of other buckets, and a file that is no net, are refused with
    // the reason.
    let refused = |hidden: &str, buckets: &str, init: &Path| {
        let (ok, err) = jieqi(&[
            "train",
            s(&data),
            "--out",
            s(&second),
            "--hidden",
            hidden,
            "--buckets",
            buckets,
            "--init",
            s(init),
        ]);
        assert!(!ok, "{err}");
        err
    };
    let err = refused("16", "2", &wide);
    assert!(
        err.contains("--hidden 32 (or more) --buckets 2 --scale 500"),
        "{err}"
    );
    let err = refused("32", "3", &first);
    assert!(
        err.contains("--hidden 16 (or more) --buckets 2 --scale 500"),
        "{err}"
    );
    let err = refused("16", "2", &data);
    assert!(err.contains("is not a net the engine can load"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
