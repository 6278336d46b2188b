//! Search behaviour: mates, legality over many positions, chance-node values, time.

use std::time::{Duration, Instant};

use jieqi_core::game::Judge;
use jieqi_core::{Deal, Move, Position, Reveals, Role, RuleSet, Square};
use jieqi_engine::eval::{Params, evaluate};
use jieqi_engine::{Engine, Info, Limits, Options, Score};

/// The judge of a game that starts at `pos`.
fn fresh(pos: &Position) -> Judge {
    Judge::new(RuleSet::STANDARD, pos)
}

fn mv(s: &str) -> Move {
    Move::new(
        Square::parse(&s[0..2]).unwrap(),
        Square::parse(&s[2..4]).unwrap(),
    )
}

/// Brute force, from the rules core only: can the side to move force a position with
/// no legal move for the opponent (mate or stalemate, both losses) within `n` of its
/// moves? Positions here have no face-down pieces.
fn forced_win(pos: &Position, n: u32) -> bool {
    if n == 0 {
        return false;
    }
    pos.legal_moves().iter().any(|&m| {
        let mut p = pos.clone();
        p.play(m, Reveals::NONE).unwrap();
        let replies = p.legal_moves();
        replies.is_empty()
            || replies.iter().all(|&r| {
                let mut q = p.clone();
                q.play(r, Reveals::NONE).unwrap();
                forced_win(&q, n - 1)
            })
    })
}

fn wins_in(pos: &Position, m: Move, n: u32) -> bool {
    let mut p = pos.clone();
    p.play(m, Reveals::NONE).unwrap();
    let replies = p.legal_moves();
    replies.is_empty()
        || (n > 1
            && replies.iter().all(|&r| {
                let mut q = p.clone();
                q.play(r, Reveals::NONE).unwrap();
                forced_win(&q, n - 1)
            }))
}

#[test]
fn finds_mate_in_one() {
    // Rook a8 holds rank 8; several moves leave the king on d9 no legal move.
    let pos = Position::from_fen("3k5/R8/9/9/9/9/9/9/9/1R2K4 w - - 0 1").unwrap();
    assert!(forced_win(&pos, 1));
    let mut e = Engine::new(Options::default());
    let r = e.search(&pos, &Limits::depth(3), &fresh(&pos)).unwrap();
    assert_eq!(r.score, Score::Mate(1));
    assert!(wins_in(&pos, r.best, 1), "{} does not mate", r.best);
}

#[test]
fn finds_mate_in_two() {
    // No mate in one here (checked by brute force), but a mate in two.
    let pos = Position::from_fen("R8/4k4/9/8p/9/9/9/9/9/3K4R w - - 0 1").unwrap();
    assert!(!forced_win(&pos, 1));
    assert!(forced_win(&pos, 2));
    let mut e = Engine::new(Options::default());
    let r = e.search(&pos, &Limits::depth(6), &fresh(&pos)).unwrap();
    assert_eq!(r.score, Score::Mate(2), "best {} pv {:?}", r.best, r.pv);
    assert!(wins_in(&pos, r.best, 2), "{} is not a mate in two", r.best);
}

#[test]
fn mated_side_sees_its_loss_and_no_move_means_none() {
    // Black to move, already mated by the rooks: no result.
    let pos = Position::from_fen("1R1k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1").unwrap();
    assert!(pos.legal_moves().is_empty());
    let mut e = Engine::new(Options::default());
    assert!(e.search(&pos, &Limits::depth(2), &fresh(&pos)).is_none());
}

/// A small deterministic generator for the random games.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn never_returns_an_illegal_move() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut e = Engine::new(Options {
        hash_mb: 4,
        ..Options::default()
    });
    let mut checked = 0;
    for game in 0..12u32 {
        let deal = Deal::from_seed(&game.to_le_bytes());
        let mut pos = Position::start();
        let plies = 10 + rng.next() % 50;
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[(rng.next() % moves.len() as u64) as usize];
            let rv = Reveals {
                mover: if pos.board().is_hidden(m.from) {
                    deal.identity_at(m.from)
                } else {
                    None
                },
                captured: if pos.board().is_hidden(m.to) {
                    deal.identity_at(m.to)
                } else {
                    None
                },
            };
            pos.play(m, rv).unwrap();
        }
        let limits = Limits {
            nodes: Some(3000),
            ..Limits::default()
        };
        match e.search(&pos, &limits, &fresh(&pos)) {
            Some(r) => {
                assert!(pos.is_legal(r.best), "{} illegal in {}", r.best, pos.fen());
                // The PV is a legal line as far as it goes without reveals.
                assert_eq!(r.pv.first(), Some(&r.best));
                checked += 1;
            }
            None => assert!(pos.legal_moves().is_empty()),
        }
    }
    assert!(checked >= 8);
}

#[test]
fn chance_node_is_the_count_weighted_mean_of_the_reveals() {
    // Red's only face-down piece stands on a3 (a pawn square: it steps to a4). Red's
    // pool holds one rook and two pawns, so a3a4 reveals a rook with weight 1 and a
    // pawn with weight 2. Black has nothing to capture, so at depth 1 each outcome is
    // worth its static evaluation.
    let pos = Position::from_fen("5k3/9/9/9/9/9/X8/9/9/4K4 w R1P2 - 0 1").unwrap();
    let params = Params::default();
    let m = mv("a3a4");
    let outcome = |role| {
        let mut p = pos.clone();
        p.play(
            m,
            Reveals {
                mover: Some(role),
                captured: None,
            },
        )
        .unwrap();
        // Black to move: its evaluation, negated for Red.
        -evaluate(&params, &p)
    };
    let expected = (outcome(Role::Rook) + 2 * outcome(Role::Pawn)).div_euclid(3);
    // The expectation is worked out with the hand-written evaluation.
    let mut e = Engine::new(Options {
        multipv: 20,
        use_nnue: false,
        ..Options::default()
    });
    let mut lines: Vec<Info> = Vec::new();
    e.search_with_info(&pos, &Limits::depth(1), &fresh(&pos), &mut |i| {
        lines.push(i.clone())
    })
    .unwrap();
    let line = lines
        .iter()
        .find(|i| i.pv.first() == Some(&m))
        .expect("a3a4 reported");
    assert_eq!(line.score, Score::Cp(expected));
    // The rook outcome is better than the pawn one, and the mean lies between.
    assert!(outcome(Role::Rook) > expected && expected > outcome(Role::Pawn));
}

#[test]
fn movetime_is_respected() {
    let pos = Position::start();
    let mut e = Engine::new(Options::default());
    let t = Instant::now();
    let r = e
        .search(
            &pos,
            &Limits::movetime(Duration::from_millis(300)),
            &fresh(&pos),
        )
        .unwrap();
    let took = t.elapsed();
    assert!(pos.is_legal(r.best));
    assert!(took < Duration::from_millis(900), "took {took:?}");
}

#[test]
fn clock_time_is_respected() {
    let pos = Position::start();
    let mut e = Engine::new(Options::default());
    let limits = Limits {
        wtime: Some(Duration::from_millis(1000)),
        winc: Some(Duration::from_millis(10)),
        ..Limits::default()
    };
    let t = Instant::now();
    let r = e.search(&pos, &limits, &fresh(&pos)).unwrap();
    assert!(pos.is_legal(r.best));
    // The hard budget is at most a quarter of the time left; allow scheduling slack.
    assert!(
        t.elapsed() < Duration::from_millis(1000),
        "took {:?}",
        t.elapsed()
    );
}

#[test]
fn stop_flag_ends_an_infinite_search() {
    let pos = Position::start();
    let mut e = Engine::new(Options::default());
    let stop = e.stop_flag();
    let h = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let limits = Limits {
        infinite: true,
        ..Limits::default()
    };
    let r = e.search(&pos, &limits, &fresh(&pos)).unwrap();
    h.join().unwrap();
    assert!(pos.is_legal(r.best));
}

#[test]
fn repetition_history_makes_a_draw() {
    // Black is a rook down. If the game's history already holds the position after
    // i6i5, that move repeats it: a draw, which Black takes; without the history the
    // same search sees a lost position.
    let start = Position::from_fen("3k5/9/9/8p/9/9/9/9/9/R4K3 b - - 10 20").unwrap();
    // Black's king and Red's rook went out and came back: the position after d9e9
    // occurred in the game.
    let moves = ["d9e9", "a0a1", "e9d9", "a1a0"].map(|m| (mv(m), Reveals::NONE));
    let (history, pos) = Judge::replay(RuleSet::STANDARD, &start, moves).unwrap();
    assert_eq!(pos.hash(), start.hash());
    let mut e = Engine::new(Options::default());
    let r = e.search(&pos, &Limits::depth(3), &history).unwrap();
    assert_eq!(r.best, mv("d9e9"));
    assert_eq!(r.score, Score::Cp(0));
    e.new_game();
    let r = e.search(&pos, &Limits::depth(3), &fresh(&pos)).unwrap();
    match r.score {
        Score::Cp(c) => assert!(c < -300, "{c}"),
        Score::Mate(n) => assert!(n < 0),
    }
}

#[test]
fn transposition_table_keys_cover_pools() {
    // Same board, different pools: different hashes (the table must not confuse them).
    let a = Position::from_fen("3k5/9/9/9/9/9/X8/9/9/4K4 w R1P2 - 0 1").unwrap();
    let b = Position::from_fen("3k5/9/9/9/9/9/X8/9/9/4K4 w R2P1 - 0 1").unwrap();
    assert_ne!(a.hash(), b.hash());
    // Searching one then the other with a shared table gives each its own value.
    let mut e = Engine::new(Options {
        multipv: 20,
        ..Options::default()
    });
    let score_of = |e: &mut Engine, pos: &Position| {
        let mut lines: Vec<Info> = Vec::new();
        e.search_with_info(pos, &Limits::depth(2), &fresh(pos), &mut |i| {
            lines.push(i.clone())
        })
        .unwrap();
        lines
            .iter()
            .rev()
            .find(|i| i.pv.first() == Some(&mv("a3a4")))
            .map(|i| i.score)
            .unwrap()
    };
    let sa = score_of(&mut e, &a);
    let sb = score_of(&mut e, &b);
    let (Score::Cp(sa), Score::Cp(sb)) = (sa, sb) else {
        panic!("no mate expected")
    };
    // More rooks in the pool make revealing worth more.
    assert!(sb > sa, "{sb} <= {sa}");
}

#[test]
fn skill_level_plays_legal_moves() {
    let pos = Position::start();
    let mut e = Engine::new(Options {
        skill_level: 0,
        ..Options::default()
    });
    for _ in 0..3 {
        let r = e.search(&pos, &Limits::depth(5), &fresh(&pos)).unwrap();
        assert!(pos.is_legal(r.best));
        assert!(r.depth <= 1);
    }
}

#[test]
fn threads_search_together() {
    let pos = Position::from_fen(jieqi_engine::bench::MIDDLEGAMES[1]).unwrap();
    let mut e = Engine::new(Options {
        threads: 2,
        ..Options::default()
    });
    let r = e.search(&pos, &Limits::depth(2), &fresh(&pos)).unwrap();
    assert!(pos.is_legal(r.best));
    assert!(r.nodes > 0);
}

/// The game from `fen` with the coordinate `moves` played, judged under `rules`.
fn game(fen: &str, rules: RuleSet, moves: &str) -> (Judge, Position) {
    let start = Position::from_fen(fen).unwrap();
    let moves = moves.split_whitespace().map(|m| (mv(m), Reveals::NONE));
    Judge::replay(rules, &start, moves).unwrap()
}

#[test]
fn the_search_avoids_a_ninth_chase() {
    // Red, a cannon down, has chased the black cannon between a7 and b7 with each of
    // its last 8 moves; b2a2 would be the 9th chase of one piece: a loss under the
    // chase rule, so the engine plays anything else. Under the standard rules the same
    // move only repeats the position, a draw, which Red takes.
    let fen = "3aka3/4r4/c8/9/9/9/9/1R7/9/3K5 w - - 10 20";
    let cycle = "b2a2 a7b7 a2b2 b7a7";
    let (history, pos) = game(fen, RuleSet::TOURNAMENT, &[cycle; 4].join(" "));
    let mut e = Engine::new(Options {
        rules: RuleSet::TOURNAMENT,
        ..Options::default()
    });
    let r = e.search(&pos, &Limits::depth(4), &history).unwrap();
    assert_ne!(r.best, mv("b2a2"));
    assert!(!matches!(r.score, Score::Mate(_)), "{:?}", r.score);
    let (history, pos) = game(fen, RuleSet::STANDARD, cycle);
    let mut e = Engine::new(Options::default());
    let r = e.search(&pos, &Limits::depth(4), &history).unwrap();
    assert_eq!(r.best, mv("b2a2"));
    assert_eq!(r.score, Score::Cp(0));
}

#[test]
fn the_search_forces_the_opponent_into_a_ninth_chase() {
    // Red's rook has chased the black horse between c5 and b3 with each of its last 8
    // moves (d3d5, d5d3, …). Black's rook now checks from a0: Red's only legal reply
    // is d3d0, which opens the line of the rook on i3 to the horse — a new attack on
    // it, the 9th chase of one piece (the chasing pieces may differ), which loses for
    // Red under the chase rule. (The cannon on d8 guards d0 over its screen, so
    // without the rule the check leads nowhere.)
    let fen = "r3k4/3C5/9/3P5/2n6/9/3R4R/7n1/9/5K3 w - - 0 1";
    let cycle = ["d3d5 c5b3 d5d3 b3c5"; 4].join(" ");
    let (history, _) = cycle.rsplit_once(' ').unwrap();
    let (judge, pos) = game(fen, RuleSet::TOURNAMENT, history);
    let mut e = Engine::new(Options {
        rules: RuleSet::TOURNAMENT,
        ..Options::default()
    });
    let r = e.search(&pos, &Limits::depth(3), &judge).unwrap();
    assert_eq!(r.best, mv("a9a0"));
    assert!(matches!(r.score, Score::Mate(m) if m > 0), "{:?}", r.score);
    // Without the chase rule the check wins nothing decisive.
    let mut e = Engine::new(Options::default());
    let r = e.search(&pos, &Limits::depth(3), &judge).unwrap();
    assert!(!matches!(r.score, Score::Mate(m) if m > 0), "{:?}", r.score);
}

/// A fresh single-thread engine's search of `fen` under `limits`: the move, the depth
/// and the nodes.
fn fresh_search(fen: &str, limits: &Limits) -> (Move, u32, u64) {
    let pos = Position::from_fen(fen).unwrap();
    let r = Engine::new(Options::default())
        .search(&pos, limits, &fresh(&pos))
        .unwrap();
    (r.best, r.depth, r.nodes)
}

#[test]
fn an_aborted_iteration_keeps_the_better_move_it_proved() {
    // Find a middlegame whose best move changes from depth d to d + 1, then stop the
    // search of depth d + 1 shortly before it ends (by nodes, so the test does not
    // depend on the machine): the deeper move has been proven by then and is played,
    // not depth d's move.
    let mut cases = 0;
    for fen in jieqi_engine::bench::MIDDLEGAMES
        .iter()
        .chain(jieqi_engine::bench::ENDGAMES)
    {
        for d in 1..=3 {
            let (shallow, _, _) = fresh_search(fen, &Limits::depth(d));
            let (deep, _, n_deep) = fresh_search(fen, &Limits::depth(d + 1));
            if shallow == deep {
                continue;
            }
            cases += 1;
            let limits = Limits {
                nodes: Some(n_deep.saturating_sub(1024)),
                ..Limits::depth(d + 1)
            };
            let (best, depth, nodes) = fresh_search(fen, &limits);
            assert!(nodes < n_deep, "stopped before the end");
            if best == deep {
                assert_eq!(depth, d + 1, "{fen} at depth {d}");
                return;
            }
        }
    }
    panic!("no aborted iteration kept its proven move ({cases} positions changed move)");
}
