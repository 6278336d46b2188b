//! Perft suites as data files: `fen;depth;nodes` (chance or revealed) and
//! `fen;deal;depth;nodes` (deal). Cases above `MAX_NODES` run only with `--ignored`.

use jieqi_core::perft::{Mode, perft};
use jieqi_core::{Deal, Position};

const MAX_NODES: u64 = 3_000_000;

struct Case {
    line: usize,
    fen: String,
    deal: Option<Deal>,
    depth: u32,
    nodes: u64,
}

fn cases(file: &str, with_deal: bool) -> Vec<Case> {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split(';').collect();
        let (fen, deal, rest) = if with_deal {
            (f[0], Some(Deal::parse(f[1]).expect("deal")), &f[2..])
        } else {
            (f[0], None, &f[1..])
        };
        out.push(Case {
            line: i + 1,
            fen: fen.to_string(),
            deal,
            depth: rest[0].parse().expect("depth"),
            nodes: rest[1].parse().expect("nodes"),
        });
    }
    assert!(!out.is_empty(), "{file} has no cases");
    out
}

fn run(file: &str, with_deal: bool, chance: bool, big: bool) {
    let mut ran = 0;
    for c in cases(file, with_deal) {
        if (c.nodes > MAX_NODES) != big {
            continue;
        }
        let pos = Position::from_fen(&c.fen).unwrap_or_else(|e| panic!("{file}:{}: {e}", c.line));
        let mode = match (&c.deal, chance) {
            (Some(d), _) => Mode::Deal(d),
            (None, true) => Mode::Chance,
            (None, false) => Mode::Deal(
                &const {
                    Deal(jieqi_core::ByColor {
                        red: [jieqi_core::Role::Pawn; 15],
                        black: [jieqi_core::Role::Pawn; 15],
                    })
                },
            ),
        };
        let got = perft(&pos, c.depth, mode);
        assert_eq!(
            got, c.nodes,
            "{file}:{}: {} depth {}",
            c.line, c.fen, c.depth
        );
        ran += 1;
    }
    if !big {
        assert!(ran > 0);
    }
}

#[test]
fn revealed() {
    run("perft_revealed.txt", false, false, false);
}

#[test]
fn deal() {
    run("perft_deal.txt", true, false, false);
}

#[test]
fn chance() {
    run("perft_chance.txt", false, true, false);
}

#[test]
fn local_suite() {
    run("perft_local.txt", true, false, false);
}

#[test]
#[ignore = "slow: run with --ignored"]
fn big_cases() {
    run("perft_revealed.txt", false, false, true);
    run("perft_deal.txt", true, false, true);
    run("perft_chance.txt", false, true, true);
}
