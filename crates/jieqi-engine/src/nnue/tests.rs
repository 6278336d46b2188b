//! Tests of the NNUE inference: incremental accumulators against accumulators
//! computed from scratch along random games (reveals, captures of face-down pieces
//! with and without the identity learnt), and the search evaluating with a net.

use std::sync::Arc;

use jieqi_core::game::Judge;
use jieqi_core::{Color, Position, Reveals, Role, RuleSet};

use super::{Accumulators, INPUTS, Network, Parts};
use crate::engine::{Engine, Limits, Options};

/// A small net with reproducible weights (not trained: for format and kernel tests).
pub(crate) fn test_net(hidden: usize) -> Network {
    test_net_buckets(hidden, 1)
}

/// [`test_net`] with `buckets` output buckets.
pub(crate) fn test_net_buckets(hidden: usize, buckets: usize) -> Network {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = |m: i64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        ((x % (2 * m as u64 + 1)) as i64 - m) as i16
    };
    Network::from_parts(Parts {
        hidden,
        buckets,
        qa: 255,
        qb: 64,
        scale: 400,
        input_weights: (0..INPUTS * hidden).map(|_| next(120)).collect(),
        input_bias: (0..hidden).map(|_| next(100)).collect(),
        output_weights: (0..2 * hidden * buckets).map(|_| next(127)).collect(),
        output_bias: (0..buckets as i32).map(|b| 1234 - 300 * b).collect(),
    })
    .expect("valid parts")
}

/// A reproducible random number stream.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random identity of `color`'s pool in `pos`, weighted by the counts.
fn draw(pos: &Position, color: Color, rng: &mut Rng) -> Option<Role> {
    let total: u32 = Role::HIDDEN
        .iter()
        .map(|&r| u32::from(pos.pool().get(color, r)))
        .sum();
    if total == 0 {
        return None;
    }
    let mut k = rng.below(total as usize) as u32;
    for r in Role::HIDDEN {
        let n = u32::from(pos.pool().get(color, r));
        if k < n {
            return Some(r);
        }
        k -= n;
    }
    None
}

/// The scratch accumulators of `pos` equal the incremental ones, and so do the
/// evaluations.
fn assert_consistent(net: &Network, acc: &Accumulators<'_>, pos: &Position) {
    for c in Color::ALL {
        let mut fresh = vec![0; net.hidden()];
        net.refresh(pos, c, &mut fresh);
        assert_eq!(
            acc.current(c),
            &fresh[..],
            "{c:?} perspective, {}",
            pos.fen()
        );
    }
    assert_eq!(acc.evaluate(pos), net.evaluate(pos), "{}", pos.fen());
}

#[test]
fn incremental_accumulators_match_scratch_along_random_games() {
    let net = test_net(32);
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let mut plies = 0;
    for _game in 0..40 {
        let mut pos = Position::start();
        let mut acc = Accumulators::new(&net, &pos);
        let mut undos = Vec::new();
        for _ in 0..160 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Now and then take a move back, to test the pops as well.
            if !undos.is_empty() && rng.below(6) == 0 {
                pos.unplay(undos.pop().expect("a move"));
                acc.pop();
                assert_consistent(&net, &acc, &pos);
                continue;
            }
            let m = moves[rng.below(moves.len())];
            let (moved, captured) = (pos.piece_at(m.from), pos.piece_at(m.to));
            let mut rv = Reveals::NONE;
            if pos.board().is_hidden(m.from) {
                rv.mover = draw(&pos, pos.turn(), &mut rng);
            }
            // A captured face-down piece's identity, learnt half the time.
            if pos.board().is_hidden(m.to) && rng.below(2) == 0 {
                rv.captured = draw(&pos, !pos.turn(), &mut rng);
            }
            let pool = *pos.pool();
            undos.push(pos.play_unchecked(m, rv));
            acc.push_move(m, moved, captured, pool, &pos);
            assert_consistent(&net, &acc, &pos);
            plies += 1;
        }
    }
    assert!(plies > 2000, "the games were long enough: {plies} plies");
}

#[test]
fn a_move_that_changes_two_pools_is_followed() {
    // Red's face-down piece on b2 (a cannon's square, so it moves as a cannon) takes
    // Black's face-down piece on b9 over the screen on b7, is revealed as a horse and
    // learns that it took a pawn: Red's pool and Black's pool both shrink.
    let net = test_net(16);
    let mut pos = Position::start();
    let m = pos
        .legal_moves()
        .iter()
        .copied()
        .find(|m| m.to_string() == "b2b9")
        .expect("the cannon capture b2b9");
    let (moved, captured) = (pos.piece_at(m.from), pos.piece_at(m.to));
    let pool = *pos.pool();
    let mut acc = Accumulators::new(&net, &pos);
    pos.play_unchecked(
        m,
        Reveals {
            mover: Some(Role::Horse),
            captured: Some(Role::Pawn),
        },
    );
    assert_eq!(pos.pool().get(Color::Red, Role::Horse), 1);
    assert_eq!(pos.pool().get(Color::Black, Role::Pawn), 4);
    acc.push_move(m, moved, captured, pool, &pos);
    assert_consistent(&net, &acc, &pos);
}

#[test]
fn the_search_evaluates_with_the_net() {
    // The search's own check (debug builds) compares the incremental evaluation with
    // the evaluation from scratch at every node it evaluates.
    let net = Arc::new(test_net(32));
    let mut engine = Engine::new(Options {
        use_nnue: true,
        ..Options::default()
    });
    engine.set_network(Some(Arc::clone(&net)));
    let fen = "3pk1xxC/na2rR3/4pr3/8n/bA1cP1p1p/N5P2/9/P1P1P1N1C/2A1B3R/4KX3 w B1a1b1 - 7 21";
    let pos = Position::from_fen(fen).expect("valid");
    let history = Judge::new(RuleSet::STANDARD, &pos);
    let with_net = engine
        .search(&pos, &Limits::depth(4), &history)
        .expect("moves");
    assert_eq!(engine.evaluate(&pos), net.evaluate(&pos));
    // A different evaluation leads the same search elsewhere.
    let mut plain = Engine::new(Options::default());
    let without = plain
        .search(&pos, &Limits::depth(4), &history)
        .expect("moves");
    assert_ne!(
        (with_net.nodes, with_net.score),
        (without.nodes, without.score)
    );
    assert_ne!(engine.evaluate(&pos), plain.evaluate(&pos));
}

#[test]
fn parts_of_the_wrong_size_are_refused() {
    let bad = Parts {
        hidden: 16,
        buckets: 1,
        qa: 255,
        qb: 64,
        scale: 400,
        input_weights: vec![0; INPUTS * 16 - 1],
        input_bias: vec![0; 16],
        output_weights: vec![0; 32],
        output_bias: vec![0],
    };
    assert!(Network::from_parts(bad.clone()).is_err());
    let too_big = Parts {
        input_weights: vec![0; INPUTS * 16],
        output_weights: vec![200; 32],
        ..bad
    };
    assert!(matches!(
        Network::from_parts(too_big),
        Err(super::NetworkError::OutputWeight(200))
    ));
}

#[test]
fn output_buckets_follow_the_piece_count() {
    use super::{MAX_BUCKETS, NetworkError, bucket};
    // The buckets cut 2–32 pieces into equal parts, the ends included.
    assert_eq!(bucket(32, 8), 7);
    assert_eq!(bucket(2, 8), 0);
    assert_eq!(bucket(17, 1), 0);
    assert!((2..=32).all(|n| bucket(n, 8) <= bucket(n + 1, 8)));
    assert_eq!((2..=32).map(|n| bucket(n, 4)).max(), Some(3));

    let net = test_net_buckets(32, 4);
    let bytes = net.to_bytes();
    assert_eq!(Network::from_bytes(&bytes), Ok(net.clone()));
    let start = Position::start();
    assert_eq!(net.bucket_of(&start), 3);
    let mut us = vec![0; 32];
    let mut them = vec![0; 32];
    net.refresh(&start, Color::Red, &mut us);
    net.refresh(&start, Color::Black, &mut them);
    assert_eq!(net.evaluate(&start), net.output(&us, &them, 3));
    assert_ne!(net.output(&us, &them, 3), net.output(&us, &them, 0));
    // A bare-kings-and-rook position takes the first bucket.
    let end = Position::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1").expect("valid");
    assert_eq!(net.bucket_of(&end), 0);

    let mut bad = bytes.clone();
    bad[28] = (MAX_BUCKETS + 1) as u8;
    assert_eq!(
        Network::from_bytes(&bad),
        Err(NetworkError::Buckets(MAX_BUCKETS as u32 + 1))
    );
}
