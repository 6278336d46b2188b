//! Tests of the search: chance nodes, the perpetual rules and work sharing.

use super::*;
use jieqi_core::RuleSet;

/// Runs `f` on a searcher of `pos` (after the game's `history`) with a fresh 4 MiB
/// table, no limits and `busy` as the table of moves in progress.
fn with_searcher<R>(
    pos: &Position,
    history: &Judge,
    busy: Option<&Busy>,
    f: impl FnOnce(&mut Searcher<'_>) -> R,
) -> R {
    let tt = Tt::new(4);
    let flags = [
        AtomicBool::new(false),
        AtomicBool::new(false),
        AtomicBool::new(false),
    ];
    let nodes = AtomicU64::new(0);
    let shared = Shared {
        tt: &tt,
        stop: &flags[0],
        done: &flags[1],
        nodes: &nodes,
        pondering: &flags[2],
        busy,
    };
    let params = Params::default();
    let budget = Budget {
        soft: None,
        hard: None,
    };
    let mut s = Searcher::new(
        pos.clone(),
        history,
        &shared,
        &params,
        true,
        Instant::now(),
        budget,
        None,
    );
    f(&mut s)
}

/// The value of `m` in `pos` searched with a fresh table and window `(alpha, beta)`.
fn value(pos: &Position, m: Move, child_depth: i32, alpha: i32, beta: i32) -> i32 {
    with_searcher(pos, &Judge::new(RuleSet::STANDARD, pos), None, |s| {
        s.child(m, child_depth, alpha, beta, 0, 0)
    })
}

/// As [`value`], with chance nodes searched by exact Star1 windows (`star1`) or by
/// the move's own window; also the nodes searched.
fn value_by(
    pos: &Position,
    m: Move,
    child_depth: i32,
    (alpha, beta): (i32, i32),
    star1: bool,
) -> (i32, u64) {
    with_searcher(pos, &Judge::new(RuleSet::STANDARD, pos), None, |s| {
        s.features.chance_windows = !star1;
        // The models of the window are compared on the same outcome values: Star1
        // does not clamp them below the decisive range.
        s.features.chance_clamp = false;
        let v = s.child(m, child_depth, alpha, beta, 0, 0);
        (v, s.nodes)
    })
}

/// A middlegame of the bench and a move of a face-down piece there (four or more
/// identities in the pool).
fn reveal_in_middlegame() -> (Position, Move) {
    let pos = Position::from_fen(crate::bench::MIDDLEGAMES[1]).unwrap();
    let m = pos
        .legal_moves()
        .iter()
        .copied()
        .find(|&m| pos.board().is_hidden(m.from))
        .expect("a face-down piece can move");
    assert!(reveal_outcomes(&pos, pos.turn()).1 >= 4);
    (pos, m)
}

/// Red's lone face-down piece on a3 with Red's pool `pool`, Black's king alone, and
/// the piece's step to a4: a reveal whose outcomes all have a static value.
fn lone_reveal(pool: &str) -> (Position, Move) {
    let fen = format!("5k3/9/9/9/9/9/X8/9/9/4K4 w {pool} - 0 1");
    (Position::from_fen(&fen).unwrap(), mv("a3a4"))
}

#[test]
fn a_null_window_below_a_reveal_prunes() {
    // Star1 gives the first outcomes windows near the whole decisive range, so
    // below them nothing is cut; the move's own window lets pruning act.
    let (pos, m) = reveal_in_middlegame();
    let (exact, _) = value_by(&pos, m, 2, (-INF, INF), true);
    for alpha in [exact - 50, exact + 50] {
        let (_, star1) = value_by(&pos, m, 2, (alpha, alpha + 1), true);
        let (_, mean) = value_by(&pos, m, 2, (alpha, alpha + 1), false);
        assert!(mean * 2 < star1, "alpha {alpha}: {mean} nodes vs {star1}");
    }
}

#[test]
fn the_chance_mean_is_exact_inside_the_window_and_bounds_one_sided_failures() {
    // Every outcome of this reveal has a static value: windows that contain all of
    // them give the exact mean, and windows above or below all of them fail the
    // right way.
    let (pos, m) = lone_reveal("R1N1C1P2");
    for depth in [0, 1, 2] {
        let (exact, _) = value_by(&pos, m, depth, (-INF, INF), true);
        for window in [(-INF, INF), (-3000, 3000)] {
            let (inside, _) = value_by(&pos, m, depth, window, false);
            assert_eq!(inside, exact, "depth {depth} window {window:?}");
        }
        // The outcomes' own values, each searched on its own.
        let (outcomes, n) = reveal_outcomes(&pos, pos.turn());
        let values: Vec<i32> = outcomes[..n]
            .iter()
            .map(|&(role, _)| {
                with_searcher(&pos, &Judge::new(RuleSet::STANDARD, &pos), None, |s| {
                    let rv = Reveals {
                        mover: Some(role),
                        captured: None,
                    };
                    let u = s.make(m, rv, depth);
                    let v = -s.search(depth, -INF, INF, 1, true, true);
                    s.unmake(u);
                    v.clamp(-DECISIVE, DECISIVE)
                })
            })
            .collect();
        let (min, max) = (*values.iter().min().unwrap(), *values.iter().max().unwrap());
        assert!(min < exact && exact < max, "{values:?}");
        // Above every outcome: all fail low, and so does the mean.
        let (high, _) = value_by(&pos, m, depth, (max + 50, max + 51), false);
        assert!(high <= max + 50, "depth {depth}: {high} {values:?}");
        // Below every outcome: all fail high, and so does the mean.
        let (low, _) = value_by(&pos, m, depth, (min - 51, min - 50), false);
        assert!(low >= min - 50, "depth {depth}: {low} {values:?}");
        // Between them the mean is approximate, but still a chance value.
        let (mid, _) = value_by(&pos, m, depth, (exact, exact + 1), false);
        assert!(
            (min..=max).contains(&mid),
            "depth {depth}: {mid} {values:?}"
        );
    }
}

#[test]
fn a_reveal_that_may_mate_counts_the_mate_as_a_large_advantage() {
    // A lone face-down piece against a lone king: as a rook or a horse it mates
    // soon, as a pawn it does not.
    let (pos, m) = lone_reveal("R1N1P2");
    let by = |clamp: bool| {
        with_searcher(&pos, &Judge::new(RuleSet::STANDARD, &pos), None, |s| {
            s.features.chance_clamp = clamp;
            s.child(m, 6, -INF, INF, 0, 0)
        })
    };
    let (clamped, wide) = (by(true), by(false));
    assert!(wide > tunables::CHANCE_CLAMP, "{wide}");
    assert!(clamped <= tunables::CHANCE_CLAMP, "{clamped}");
    assert!(clamped > 0, "{clamped}");
}

fn sq(t: &str) -> jieqi_core::Square {
    jieqi_core::Square::parse(t).unwrap()
}

fn mv(t: &str) -> Move {
    Move::new(sq(&t[0..2]), sq(&t[2..4]))
}

/// The game from `fen` with `moves` played (no reveals), judged under `rules`.
fn replay(fen: &str, rules: RuleSet, moves: &str) -> (Judge, Position) {
    let start = Position::from_fen(fen).unwrap();
    let moves = moves.split_whitespace().map(|t| (mv(t), Reveals::NONE));
    Judge::replay(rules, &start, moves).unwrap()
}

/// Whether `m`, played after the game `fen` + `moves` under `rules`, breaks a
/// perpetual rule in the search's eyes.
fn violated(fen: &str, rules: RuleSet, moves: &str, m: &str, perpetual: bool) -> bool {
    let (judge, pos) = replay(fen, rules, moves);
    with_searcher(&pos, &judge, None, |s| {
        s.features.perpetual = perpetual;
        let u = s.make(mv(m), Reveals::NONE, 0);
        let v = s.perpetual_violated();
        s.unmake(u);
        v
    })
}

/// The value of the searcher's current position as a repetition, after the game
/// `fen` + `moves` under `rules`.
fn repetition_value(fen: &str, rules: RuleSet, moves: &str) -> Option<i32> {
    let (judge, pos) = replay(fen, rules, moves);
    with_searcher(&pos, &judge, None, |s| s.repetition())
}

/// Red's rook checks from a9 and a8 as Black's king steps between e9 and e8.
const ROOK_CHECKS: &str = "4k4/R8/9/9/9/9/9/9/9/3K5 w - - 0 40";
/// The cycle of [`ROOK_CHECKS`]: Red checks after each of its moves.
const CHECK_CYCLE: &str = "a8a9 e9e8 a9a8 e8e9";
/// Red's rook on b2 and a lone black cannon on a7 that flees between a7 and b7.
const ROOK_AND_CANNON: &str = "4k4/9/c8/9/9/9/9/1R7/9/3K5 w - - 0 40";
/// The cycle of [`ROOK_AND_CANNON`]: Red's rook chases the cannon after each of its moves.
const CHASE_CYCLE: &str = "b2a2 a7b7 a2b2 b7a7";

/// Checks that after four times the `cycle` of four moves from `fen` under `rules`
/// (eight checks or chases by the side that starts it), its first move again breaks
/// a perpetual rule, `other` in its place (no check or chase) does not, and neither
/// does the eighth such move.
fn assert_the_ninth_breaks_the_rule(fen: &str, rules: RuleSet, cycle: &str, other: &str) {
    let eight = [cycle; 4].join(" ");
    let moves: Vec<&str> = cycle.split_whitespace().collect();
    assert!(violated(fen, rules, &eight, moves[0], true), "the ninth");
    assert!(!violated(fen, rules, &eight, other, true), "{other}");
    let seven = [cycle; 3].join(" ") + " " + &moves[..2].join(" ");
    assert!(!violated(fen, rules, &seven, moves[2], true), "the eighth");
}

#[test]
fn a_ninth_check_by_one_piece_loses() {
    let standard = RuleSet::STANDARD;
    assert_the_ninth_breaks_the_rule(ROOK_CHECKS, standard, CHECK_CYCLE, "a8b8");
    // … as a mate would at that ply: a side lost either way plays for the later end.
    let eight = [CHECK_CYCLE; 4].join(" ");
    let (judge, pos) = replay(ROOK_CHECKS, standard, &eight);
    let v = with_searcher(&pos, &judge, None, |s| {
        s.child(mv("a8a9"), 3, -INF, INF, 0, 0)
    });
    assert_eq!(v, -(MATE - 1));
    assert!(
        !violated(ROOK_CHECKS, standard, &eight, "a8a9", false),
        "the perpetual rules switched off"
    );
}

#[test]
fn a_ninth_chase_of_one_fleeing_piece_loses_under_the_chase_rule() {
    // The rook has chased the cannon after each of Red's last eight moves while it
    // fled between a7 and b7 (followed as it moves); b2a2 chases it a ninth time.
    let t = RuleSet::TOURNAMENT;
    assert_the_ninth_breaks_the_rule(ROOK_AND_CANNON, t, CHASE_CYCLE, "b2c2");
    let eight = [CHASE_CYCLE; 4].join(" ");
    assert!(
        !violated(ROOK_AND_CANNON, RuleSet::STANDARD, &eight, "b2a2", true),
        "no chase rule"
    );
}

#[test]
fn perpetual_chases_lose_only_under_the_chase_rule() {
    let value = |fen: &str, cycle: &str| {
        (
            repetition_value(fen, RuleSet::TOURNAMENT, cycle),
            repetition_value(fen, RuleSet::STANDARD, cycle),
        )
    };
    // Red's rook attacks the lone black cannon anew with each of its moves, and the
    // cannon flees: a perpetual chase of one piece, which Red, to move again, loses
    // by under the rule; a draw without it.
    assert_eq!(
        value(ROOK_AND_CANNON, CHASE_CYCLE),
        (Some(-DECISIVE), Some(0))
    );
    // Seen from the cycle's other phase: Black, to move, wins.
    let fen = "4k4/9/c8/9/9/9/9/R8/9/3K5 b - - 0 40";
    assert_eq!(value(fen, "a7b7 a2b2 b7a7 b2a2"), (Some(DECISIVE), Some(0)));
    // The rook attacks one cannon, then the other: no one piece was chased after
    // every move, so the repetition is a draw.
    let fen = "4k4/9/cc7/9/9/9/9/1R7/9/3K5 w - - 0 40";
    assert_eq!(value(fen, "b2a2 e9e8 a2b2 e8e9"), (Some(0), Some(0)));
    // A protected piece is not chased: the horse on c8 guards a7, so the attack from
    // a2 is no chase.
    let fen = "4k4/2n6/c8/9/9/9/9/1R7/9/3K5 w - - 0 40";
    assert_eq!(value(fen, CHASE_CYCLE), (Some(0), Some(0)));
}

#[test]
fn perpetual_checks_by_rooks_lose_and_by_pawns_draw() {
    let standard = RuleSet::STANDARD;
    // Red checked with its rook after each move of the cycle: Red, to move, loses.
    assert_eq!(
        repetition_value(ROOK_CHECKS, standard, CHECK_CYCLE),
        Some(-DECISIVE)
    );
    // One ply on, Black to move in a repeated position: Black wins.
    assert_eq!(
        repetition_value(
            ROOK_CHECKS,
            standard,
            "a8a9 e9e8 a9a8 e8e9 a8a9 e9e8 a9a8 e8e9 a8a9"
        ),
        Some(DECISIVE)
    );
    // A pawn's checks are allowed however long they go on: the king steps between
    // d9 and e9 and the pawn follows it, checking every time.
    let pawn = "4k4/3P5/9/9/9/9/9/9/9/5K3 w - - 0 40";
    assert_eq!(
        repetition_value(pawn, standard, "d8e8 e9d9 e8d8 d9e9"),
        Some(0)
    );
    // With the perpetual rules switched off every repetition is a draw.
    let (judge, pos) = replay(ROOK_CHECKS, standard, CHECK_CYCLE);
    let off = with_searcher(&pos, &judge, None, |s| {
        s.features.perpetual = false;
        s.repetition()
    });
    assert_eq!(off, Some(0));
}

#[test]
fn star1_cutoffs_agree_with_the_full_window_value() {
    // A face-down pawn-square piece with four possible identities; Black has
    // nothing to capture, so every outcome has a well-defined static value.
    let (pos, m) = lone_reveal("R1N1C1P2");
    let value = |pos: &Position, m, depth, a, b| value_by(pos, m, depth, (a, b), true).0;
    for depth in [0, 1] {
        let exact = value(&pos, m, depth, -INF, INF);
        let mut windows = Vec::new();
        for d in [-700, -300, -120, -40, -7, -1, 0, 1, 7, 40, 120, 300, 700] {
            windows.push((exact + d - 1, exact + d + 1));
            windows.push((exact + d - 60, exact + d + 25));
        }
        for (a, b) in windows {
            let v = value(&pos, m, depth, a, b);
            if exact <= a {
                assert!(
                    v <= a,
                    "depth {depth} exact {exact} window ({a},{b}) gave {v}"
                );
            } else if exact >= b {
                assert!(
                    v >= b,
                    "depth {depth} exact {exact} window ({a},{b}) gave {v}"
                );
            } else {
                assert_eq!(v, exact, "depth {depth} window ({a},{b})");
            }
        }
    }
}

#[test]
fn chance_values_stay_within_the_decisive_bound() {
    // Even when one outcome mates, the mean of a chance node is not a mate score.
    let (pos, m) = lone_reveal("R1P1");
    let v = value(&pos, m, 2, -INF, INF);
    assert!(v.abs() <= DECISIVE);
}

/// Work sharing between threads ([`crate::busy`]).
mod work_sharing {
    use super::*;

    /// The value of `pos` searched to `depth` by an exact (order-independent) search
    /// with `busy` as the table of moves in progress: the value, the best move, the
    /// moves deferred and the move searched first.
    fn exact_root(pos: &Position, depth: i32, busy: Option<&Busy>) -> (i32, Move, u64, Move) {
        let judge = Judge::new(jieqi_core::RuleSet::STANDARD, pos);
        super::with_searcher(pos, &judge, busy, |s| {
            // Without pruning, reductions and table cut-offs, the full-window value does
            // not depend on the order the moves are searched in.
            let mut f = Features::default();
            for (name, _) in crate::features::OPTIONS {
                f.set(name, false);
            }
            f.quiescence = true;
            f.abdada = true;
            s.features = f;
            let mut roots = s.root_moves();
            let first = roots[0].mv;
            let v = s.search_root(&mut roots, 0, depth, -INF, INF);
            (v, roots[0].mv, s.deferred, first)
        })
    }

    /// Marks, as if another thread were searching them, every move of `pos` and every
    /// move of each position one move (and reveal) later.
    fn mark_two_plies(pos: &Position, busy: &Busy) {
        let mut pos = pos.clone();
        for m in pos.legal_moves().iter().copied() {
            busy.enter(Busy::mark_of(pos.hash(), m));
            let (outcomes, n) = reveal_outcomes(&pos, pos.turn());
            let hidden = pos.board().is_hidden(m.from);
            let movers: Vec<Option<Role>> = if hidden && n > 0 {
                outcomes[..n].iter().map(|o| Some(o.0)).collect()
            } else {
                vec![None]
            };
            for mover in movers {
                let rv = Reveals {
                    mover,
                    captured: None,
                };
                let u = pos.play_unchecked(m, rv);
                for &reply in pos.legal_moves().iter() {
                    busy.enter(Busy::mark_of(pos.hash(), reply));
                }
                pos.unplay(u);
            }
        }
    }

    #[test]
    fn deferred_moves_are_searched_in_the_second_pass() {
        // Endgames where the move searched first is not the best, so a search that
        // dropped the moves it deferred would find another value or move.
        let mut tested = 0;
        for fen in crate::bench::ENDGAMES {
            let pos = Position::from_fen(fen).unwrap();
            let (exact, best, none_deferred, first) = exact_root(&pos, 3, None);
            assert_eq!(none_deferred, 0);
            if best == first {
                continue;
            }
            let busy = Busy::new();
            mark_two_plies(&pos, &busy);
            let (v, shared_best, deferred, _) = exact_root(&pos, 3, Some(&busy));
            assert_eq!(v, exact, "{fen}");
            assert_eq!(shared_best, best, "{fen}");
            // The marks took effect: moves were put off to the second pass.
            assert!(deferred > 0, "{fen}");
            tested += 1;
        }
        assert!(
            tested > 0,
            "no endgame has a best move other than the first searched"
        );
    }
}

/// The nodes of an iterative deepening of a bench middlegame to `depth` (one table and
/// one history throughout, as in a game) with the features set by `f`.
fn nodes_with(depth: i32, f: impl FnOnce(&mut Features)) -> u64 {
    let pos = Position::from_fen(crate::bench::MIDDLEGAMES[1]).unwrap();
    with_searcher(&pos, &Judge::new(RuleSet::STANDARD, &pos), None, |s| {
        f(&mut s.features);
        for d in 1..=depth {
            s.search(d, -INF, INF, 0, true, true);
        }
        s.nodes
    })
}

#[test]
fn the_history_of_a_late_quiet_move_adjusts_its_reduction() {
    use super::pruning::history_reduction;
    use super::tunables::HISTORY_LIMIT;
    assert_eq!(history_reduction(HISTORY_LIMIT), 4);
    assert_eq!(history_reduction(-HISTORY_LIMIT), -4);
    assert_eq!(history_reduction(0), 0);
    // Deep enough for cut-offs to fill the history past a ply's worth, the
    // reductions change the tree.
    let on = nodes_with(7, |_| {});
    let off = nodes_with(7, |f| f.history_lmr = false);
    assert_ne!(on, off);
}
