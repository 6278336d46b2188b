//! Hand-edited or damaged state files: loading either refuses them with a reason or
//! yields a state on which every operation works without panicking.

mod common;

use common::Rng;
use jieqi_tournament::{
    DealMode, Format, GameResult, PairOptions, Player, SeededEntropy, Settings, Tournament,
};
use serde_json::Value;

fn sample() -> Tournament {
    let mut s = Settings::new(Format::SwissKnockout {
        swiss_rounds: 2,
        qualifiers: 4,
        knockout: jieqi_tournament::KnockoutConfig {
            best_of: 2,
            tie_break: jieqi_tournament::TieBreakGame::SuddenDeath,
            third_place: true,
        },
    });
    s.deal_mode = DealMode::Duplicate;
    let mut t = Tournament::new("sample", s).unwrap();
    for i in 0..7 {
        let mut p = Player::named(&format!("p{i}"));
        p.rating = Some(1500 + i * 10);
        t.add_player(p).unwrap();
    }
    let mut rng = SeededEntropy::new(b"sample");
    for _ in 0..4 {
        let r = t.pair(&PairOptions::default(), &mut rng).unwrap();
        for b in 1..=t.rounds[r - 1].games.len() {
            t.set_result(r, b, GameResult::RedWin, false).unwrap();
        }
    }
    t.pair(&PairOptions::default(), &mut rng).unwrap();
    t
}

/// Every number-valued leaf, by path.
fn leaves(v: &Value, path: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                path.push(Value::String(k.clone()));
                leaves(x, path, out);
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                path.push(Value::from(i));
                leaves(x, path, out);
                path.pop();
            }
        }
        _ => out.push(path.clone()),
    }
}

fn at<'a>(v: &'a mut Value, path: &[Value]) -> &'a mut Value {
    let mut cur = v;
    for p in path {
        cur = match p {
            Value::String(k) => &mut cur[k.as_str()],
            Value::Number(n) => &mut cur[n.as_u64().unwrap() as usize],
            _ => unreachable!(),
        };
    }
    cur
}

fn exercise(mut t: Tournament) {
    let _ = t.standings();
    let _ = t.places();
    let _ = t.standings_html();
    let _ = t.public_json();
    let _ = t.standings_csv();
    let _ = t.games_csv();
    let _ = t.is_finished();
    let mut rng = SeededEntropy::new(b"x");
    let n = t.rounds.len();
    for b in 1..=4 {
        let _ = t.set_result(n, b, GameResult::Draw, true);
    }
    let _ = t.pair(&PairOptions::default(), &mut rng);
    let _ = t.unpair();
    let _ = t.contribute(1, 1, jieqi_core::Color::Red, "s");
    let _ = t.pair(&PairOptions::default(), &mut rng);
}

#[test]
fn mutated_files_never_panic() {
    let good = sample();
    exercise(good.clone());
    let base: Value = serde_json::from_str(&good.to_json()).unwrap();
    let mut paths = Vec::new();
    leaves(&base, &mut Vec::new(), &mut paths);
    let mut rng = Rng(0xdead_beef);
    let (mut refused, mut accepted) = (0, 0);
    for _ in 0..4000 {
        let mut v = base.clone();
        for _ in 0..1 + rng.below(3) {
            let path = &paths[rng.below(paths.len() as u64) as usize];
            let slot = at(&mut v, path);
            *slot = match rng.below(6) {
                0 => Value::from(rng.below(12)),
                1 => Value::from(rng.below(3)),
                2 => Value::Null,
                3 => Value::from("1-0"),
                4 => Value::Bool(rng.below(2) == 0),
                _ => Value::from(u64::MAX - rng.below(2)),
            };
        }
        // Some structural damage too: drop an element of a random array.
        if rng.below(4) == 0 {
            let path = &paths[rng.below(paths.len() as u64) as usize];
            let k = rng.below(path.len() as u64) as usize;
            if let Value::Array(a) = at(&mut v, &path[..k]) {
                if rng.below(2) == 0 {
                    a.pop();
                } else {
                    a.clear();
                }
            }
        }
        match Tournament::from_json(&v.to_string()) {
            Ok(t) => {
                accepted += 1;
                exercise(t);
            }
            Err(e) => {
                refused += 1;
                assert!(!e.to_string().is_empty());
            }
        }
    }
    assert!(
        refused > 100 && accepted > 100,
        "refused {refused}, accepted {accepted}"
    );
}
