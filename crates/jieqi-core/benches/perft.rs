//! Move generator speed: deal perft (last ply bulk-counted) from the start position and
//! from middlegame positions. `cargo bench -p jieqi-core --bench perft`.
#![allow(missing_docs)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use jieqi_core::perft::{Mode, perft};
use jieqi_core::{Deal, Position};

/// (name, FEN, deal, depth)
const CASES: &[(&str, &str, &str, u32)] = &[
    (
        "start_d4",
        jieqi_core::START_FEN,
        "RNBAABNRCCPPPPP/rnbaabnrccppppp",
        4,
    ),
    (
        "middlegame_a_d4",
        "3pk1xxC/na2rR3/4pr3/8n/bA1cP1p1p/N5P2/9/P1P1P1N1C/2A1B3R/4KX3 w B1a1b1 - 7 21",
        "APPBBPNRACNRPPC/pnprrabpanbccpp",
        4,
    ),
    (
        "middlegame_b_d4",
        "1b1xk2r1/4b4/2n1n1p1c/4x1x1x/p1a6/B1P3Ap1/1p7/P3R3R/1P2C2P1/1N1XKXXXX b A1B1N1C1P1a1r1c1p1 - 25 13",
        "NPRBPACNPPBPCAR/bnnpbcprpppacra",
        4,
    ),
    (
        "revealed_d5",
        "5k1r1/2A6/6B2/P8/2B1A4/3ab4/6a1p/R1b6/9/3K5 w - - 0 1",
        "RNBAABNRCCPPPPP/rnbaabnrccppppp",
        5,
    ),
];

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for &(name, fen, deal, depth) in CASES {
        let pos = Position::from_fen(fen).unwrap();
        let deal = Deal::parse(deal).unwrap();
        let nodes = perft(&pos, depth, Mode::Deal(&deal));
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(name, |b| b.iter(|| perft(&pos, depth, Mode::Deal(&deal))));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
