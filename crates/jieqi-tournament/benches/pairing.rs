//! Swiss pairing and standings speed on fields of 42, 200 and 1000 players.
#![allow(missing_docs)]

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use jieqi_tournament::{
    Format, GameResult, PairOptions, Player, SeededEntropy, Settings, Tournament,
};

/// An event of `n` players after `rounds` rounds under a fixed result rule.
fn event(n: u32, rounds: u32) -> Tournament {
    let mut t = Tournament::new("bench", Settings::new(Format::Swiss { rounds: rounds + 1 }))
        .expect("settings");
    for i in 0..n {
        let mut p = Player::named(&format!("p{i}"));
        p.rating = Some(2500 - i);
        t.add_player(p).expect("player");
    }
    let mut rng = SeededEntropy::new(b"bench");
    for _ in 0..rounds {
        let r = t.pair(&PairOptions::default(), &mut rng).expect("pair");
        let games = t.rounds[r - 1].games.clone();
        for (b, g) in games.iter().enumerate() {
            let res = match (g.red * 7 + g.black * 3 + r as u32) % 5 {
                0 => GameResult::Draw,
                1 | 2 => GameResult::RedWin,
                _ => GameResult::BlackWin,
            };
            t.set_result(r, b + 1, res, false).expect("result");
        }
    }
    t
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("swiss_pair");
    g.sample_size(10);
    for (n, rounds) in [(42, 5), (200, 6), (1000, 6)] {
        let t = event(n, rounds);
        g.bench_with_input(
            BenchmarkId::new("round", format!("{n}p_r{}", rounds + 1)),
            &t,
            |b, t| {
                b.iter(|| {
                    let mut t = t.clone();
                    t.pair(&PairOptions::default(), &mut SeededEntropy::new(b"x"))
                        .expect("pair")
                })
            },
        );
    }
    g.finish();
    let mut g = c.benchmark_group("standings");
    g.sample_size(10);
    for n in [42, 200] {
        let t = event(n, 6);
        g.bench_with_input(
            BenchmarkId::new("standings", format!("{n}p_r6")),
            &t,
            |b, t| b.iter(|| t.standings()),
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
