//! Adjudication (RULES.md §5) on hand-built positions, and the seed-004 example.

use jieqi_core::{
    CapturedIdentity, Color, Deal, Game, GameError, Outcome, Position, Reason, Role, RuleSet,
    Square, Viewer,
};

fn game(fen: &str, rules: RuleSet) -> Game {
    let pos = Position::from_fen(fen).unwrap();
    Game::from_position(pos, Deal::standard(), rules).unwrap()
}

fn play(g: &mut Game, moves: &str) {
    for m in moves.split_whitespace() {
        g.play_uci(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
}

#[test]
fn seed_004_example_replays_with_check_and_capture() {
    // Deal that fits the reveals: c3 is an elephant, g0 a rook, e6 a cannon.
    let deal = Deal::parse("PNBAARNRCCPBPPP/rnbaabnrpcppcpp").unwrap();
    let mut g = Game::new(deal, RuleSet::STANDARD);
    // 1. 兵七进一(现相) 卒5进1(现炮)  2. 相三进五(现车) 炮5进3
    let ply = g.play_uci("c3c4").unwrap().clone();
    assert_eq!(ply.reveals.mover, Some(Role::Elephant));
    let ply = g.play_uci("e6e5").unwrap().clone();
    assert_eq!(ply.reveals.mover, Some(Role::Cannon));
    assert!(
        ply.check,
        "the revealed cannon checks through the screen on e3"
    );
    let ply = g.play_uci("g0e2").unwrap().clone();
    assert_eq!(ply.reveals.mover, Some(Role::Rook));
    assert!(!g.position().is_check());
    let ply = g.play_uci("e5e2").unwrap().clone();
    assert_eq!(
        ply.captured,
        Some(Some(Role::Rook)),
        "炮5进3 takes the rook"
    );
    assert_eq!(g.outcome(), None);
    // Suffixes that contradict the deal are refused.
    let mut g2 = Game::new(deal, RuleSet::STANDARD);
    assert!(matches!(g2.play_uci("c3c4N"), Err(GameError::Uci(_))));
    assert!(g2.play_uci("c3c4B").is_ok());
}

#[test]
fn checkmate_wins() {
    let mut g = game("3bkp3/4p4/9/3N5/9/9/9/9/9/4K4 w - - 0 1", RuleSet::STANDARD);
    play(&mut g, "d6c8");
    assert_eq!(
        g.outcome(),
        Some(Outcome::Win {
            winner: Color::Red,
            reason: Reason::Checkmate
        })
    );
    assert!(matches!(g.play_uci("e9e8"), Err(GameError::Over(_))));
}

#[test]
fn stalemate_is_a_loss_for_the_side_without_moves() {
    // After Ra8, Black's king on d9 may go neither to d8 (rank 8) nor e9 (the e-file).
    let mut g = game("3k5/9/R8/9/9/9/9/9/4R4/5K3 w - - 0 1", RuleSet::STANDARD);
    play(&mut g, "a7a8");
    assert!(!g.position().is_check());
    assert_eq!(
        g.outcome(),
        Some(Outcome::Win {
            winner: Color::Red,
            reason: Reason::Stalemate
        })
    );
    let _ = sq("a8");
}

fn sq(s: &str) -> Square {
    Square::parse(s).unwrap()
}

#[test]
fn perpetual_check_by_a_rook_loses_after_nine_checks() {
    let mut g = game("4k4/R8/9/9/9/9/9/4P4/9/3K5 w - - 0 1", RuleSet::STANDARD);
    let cycle = ["a8a9", "e9e8", "a9a8", "e8e9"];
    let mut checks = 0;
    for i in 0.. {
        let m = cycle[i % 4];
        g.play_uci(m).unwrap_or_else(|e| panic!("ply {i} {m}: {e}"));
        if g.turn() == Color::Black {
            checks += 1;
        }
        if g.outcome().is_some() {
            break;
        }
    }
    assert_eq!(checks, 9);
    match g.outcome() {
        Some(Outcome::Win {
            winner: Color::Black,
            reason: Reason::PerpetualCheck { role, .. },
        }) => {
            assert_eq!(role, Role::Rook)
        }
        o => panic!("expected Black to win by perpetual check, got {o:?}"),
    }
}

#[test]
fn perpetual_check_by_a_pawn_is_allowed_and_repetition_draws() {
    // A red pawn beyond the river checks the king from the side, back and forth.
    let mut g = game("9/3k5/2P6/9/9/9/9/9/9/5K3 w - - 0 1", RuleSet::STANDARD);
    play(&mut g, "c7d7 d8e8 d7e7 e8d8");
    let cycle = ["e7d7", "d8e8", "d7e7", "e8d8"];
    for m in cycle.iter().cycle().take(40) {
        if g.outcome().is_some() {
            break;
        }
        let fen = g.position().fen();
        g.play_uci(m)
            .unwrap_or_else(|e| panic!("{m}: {e} in {fen}"));
    }
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw {
            reason: Reason::Repetition
        })
    );
}

#[test]
fn quiet_repetition_draws_on_the_third_occurrence() {
    let mut g = game("4k4/8r/9/9/9/9/9/4P4/R8/3K5 w - - 0 1", RuleSet::STANDARD);
    play(&mut g, "a1a2 i8i7 a2a1 i7i8 a1a2 i8i7 a2a1");
    assert_eq!(g.outcome(), None);
    play(&mut g, "i7i8");
    assert_eq!(g.repetitions(), 3);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw {
            reason: Reason::Repetition
        })
    );
}

#[test]
fn perpetual_chase_loses_under_tournament_rules_only() {
    let fen = "4k4/8R/c8/9/4P4/9/9/9/9/4K4 w - - 0 1";
    let cycle = ["i8i7", "a7a8", "i7i8", "a8a7"];
    let mut standard = game(fen, RuleSet::STANDARD);
    for m in cycle.iter().cycle().take(40) {
        if standard.outcome().is_some() {
            break;
        }
        play(&mut standard, m);
    }
    assert_eq!(
        standard.outcome(),
        Some(Outcome::Draw {
            reason: Reason::Repetition
        })
    );

    let mut t = game(fen, RuleSet::TOURNAMENT);
    let mut red_moves = 0;
    for m in cycle.iter().cycle().take(40) {
        if t.outcome().is_some() {
            break;
        }
        if t.turn() == Color::Red {
            red_moves += 1;
        }
        play(&mut t, m);
    }
    assert_eq!(red_moves, 9);
    assert!(matches!(
        t.outcome(),
        Some(Outcome::Win {
            winner: Color::Black,
            reason: Reason::PerpetualChase {
                role: Some(Role::Cannon),
                ..
            }
        })
    ));
}

#[test]
fn eighty_plies_without_capture_draw() {
    let mut g = game("4k4/8r/9/9/9/9/9/4P4/R8/3K5 w - - 79 50", RuleSet::STANDARD);
    play(&mut g, "a1a2");
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw {
            reason: Reason::NoCapture
        })
    );
}

#[test]
fn a_mate_on_the_eightieth_ply_still_wins() {
    let mut g = game(
        "3bkp3/4p4/9/3N5/9/9/9/9/9/4K4 w - - 79 50",
        RuleSet::STANDARD,
    );
    play(&mut g, "d6c8");
    assert_eq!(
        g.outcome(),
        Some(Outcome::Win {
            winner: Color::Red,
            reason: Reason::Checkmate
        })
    );
}

#[test]
fn bare_kings_draw() {
    let mut g = game("4k4/4P4/9/9/9/9/9/9/9/3K5 b - - 0 1", RuleSet::STANDARD);
    play(&mut g, "e9e8");
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw {
            reason: Reason::BareKings
        })
    );
}

#[test]
fn resignation_time_and_agreement() {
    let mut g = Game::new(Deal::from_seed(b"r"), RuleSet::STANDARD);
    assert_eq!(
        g.resign(Color::Red).unwrap(),
        Outcome::Win {
            winner: Color::Black,
            reason: Reason::Resignation
        }
    );
    assert!(g.agree_draw().is_err(), "a finished game stays finished");
    let mut g = Game::new(Deal::from_seed(b"t"), RuleSet::STANDARD);
    assert_eq!(g.time_out(Color::Black).unwrap().winner(), Some(Color::Red));
    let mut g = Game::new(Deal::from_seed(b"a"), RuleSet::STANDARD);
    assert_eq!(
        g.agree_draw().unwrap(),
        Outcome::Draw {
            reason: Reason::Agreement
        }
    );
}

#[test]
fn deal_must_fit_the_position() {
    let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/9/XXXXKXXXX w R2 - 0 1").unwrap_err();
    let _ = pos;
    let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/9/X3K4 w R1 - 0 1").unwrap();
    assert!(Game::from_position(pos.clone(), Deal::standard(), RuleSet::STANDARD).is_ok());
    let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/9/X3K4 w N1 - 0 1").unwrap();
    assert!(matches!(
        Game::from_position(pos, Deal::standard(), RuleSet::STANDARD),
        Err(GameError::DealMismatch(_))
    ));
}

#[test]
fn views_hide_captured_identities_per_option() {
    for (option, red, black, spectator) in [
        (CapturedIdentity::Capturer, true, false, false),
        (CapturedIdentity::Nobody, false, false, false),
        (CapturedIdentity::Everyone, true, true, true),
    ] {
        let rules = RuleSet {
            captured_identity: option,
            ..RuleSet::STANDARD
        };
        let mut g = Game::new(Deal::standard(), rules);
        // Red's face-down cannon b2 (really a cannon) jumps over b7... b2b9 takes the
        // face-down horse on b9 (screen b7).
        play(&mut g, "b2b9");
        let ply = g.plies()[0].clone();
        assert!(ply.captured_hidden());
        assert_eq!(ply.reveals.captured, Some(Role::Horse));
        for (viewer, knows) in [
            (Viewer::RED, red),
            (Viewer::BLACK, black),
            (Viewer::Spectator, spectator),
            (Viewer::Referee, true),
        ] {
            let v = g.view(viewer);
            let m = v.moves()[0].to_string();
            assert_eq!(
                m,
                if knows { "b2b9Cn" } else { "b2b9C" },
                "{option:?} {viewer:?}"
            );
            let pool = v.pools();
            assert_eq!(
                pool.get(Color::Black, Role::Horse),
                if knows { 1 } else { 2 }
            );
            assert_eq!(
                v.position().captured().get(Color::Black, Role::Horse),
                u8::from(knows)
            );
            assert_eq!(v.deal().is_some(), viewer == Viewer::Referee);
            // The viewer's FEN reads back as a legal position.
            Position::from_fen(&v.fen()).unwrap();
        }
        g.resign(Color::Black).unwrap();
        assert!(
            g.view(Viewer::Spectator).deal().is_some(),
            "the deal is public after the end"
        );
    }
}

/// The squares that the move `m` (no reveal) chases in `fen` (RULES.md §5).
fn chases(fen: &str, m: &str) -> Vec<String> {
    let mut pos = Position::from_fen(fen).unwrap();
    let mv = jieqi_core::UciMove::parse(m).unwrap().to_plain();
    let undo = pos.play(mv, jieqi_core::Reveals::NONE).unwrap();
    let set = jieqi_core::game::chased_by(pos.board(), &undo);
    Square::all()
        .filter(|s| set >> s.index() & 1 == 1)
        .map(|s| s.to_string())
        .collect()
}

#[test]
fn a_chase_is_an_attack_the_move_made() {
    // The rook steps onto the cannon's file: a new attack on an unprotected piece.
    let fen = "4k4/9/c8/9/9/9/9/1R7/9/3K5 w - - 0 1";
    assert_eq!(chases(fen, "b2a2"), ["a7"]);
    assert!(chases(fen, "b2c2").is_empty(), "no attack");
    // Standing attacks are not renewed: by a move elsewhere, nor by the attacker
    // moving along the line it already attacked on.
    let standing = "4k4/9/c8/9/9/9/9/R8/9/3K5 w - - 0 1";
    assert!(chases(standing, "d0d1").is_empty());
    assert!(chases(standing, "a2a3").is_empty());
}

#[test]
fn discovered_chases_by_an_opened_line_and_a_new_cannon_screen() {
    // The horse leaves the rook's file: the rook now attacks the cannon on a7.
    assert_eq!(
        chases("4k4/9/c8/9/9/N8/9/R8/9/3K5 w - - 0 1", "a4b6"),
        ["a7"]
    );
    // The horse becomes the screen of the cannon on a2, which now attacks a7.
    assert_eq!(
        chases("4k4/9/n8/9/9/9/2N6/C8/9/3K5 w - - 0 1", "c3a4"),
        ["a7"]
    );
}

#[test]
fn the_king_protects_as_it_really_can() {
    // The king beside the cannon takes back on d9: no chase.
    assert!(chases("3ck4/9/9/9/9/9/9/2R6/9/5K3 w - - 0 1", "c2d2").is_empty());
    // Two points away it cannot: a chase.
    assert_eq!(
        chases("3c1k3/9/9/9/9/9/9/2R6/9/4K4 w - - 0 1", "c2d2"),
        ["d9"]
    );
    // Far down the king's open file the king protects nothing (it is no rook).
    assert_eq!(
        chases("4k4/9/9/9/4c4/9/9/R8/9/3K5 w - - 0 1", "a2a5"),
        ["e5"]
    );
}

#[test]
fn exchanges_rooks_and_checks() {
    // The black rook attacks the red rook in return: an offered exchange, no chase.
    assert!(chases("4k4/9/r8/9/9/9/9/1R7/9/3K5 w - - 0 1", "b2a2").is_empty());
    // A rook attacked by a horse is chased even when protected (the horse on c8)…
    assert_eq!(
        chases("4k4/2n6/r8/9/9/3N5/9/9/9/3K5 w - - 0 1", "d4c6"),
        ["a7"]
    );
    // … a protected cannon is not.
    assert!(chases("4k4/2n6/c8/9/9/3N5/9/9/9/3K5 w - - 0 1", "d4c6").is_empty());
    // A check is not a chase: the horse's new attack on f6 counts only without check.
    assert!(chases("4k4/9/9/5c3/2N6/9/9/9/9/3K5 w - - 0 1", "c5d7").is_empty());
    assert_eq!(
        chases("5k3/9/9/5c3/2N6/9/9/9/9/3K5 w - - 0 1", "c5d7"),
        ["f6"]
    );
}

#[test]
fn a_stalemated_start_is_over_before_any_move() {
    // Black to move has no legal move: Red has won, and no move may follow.
    let g = game("3k5/4P4/9/9/9/9/9/9/9/5K3 b - - 0 1", RuleSet::STANDARD);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Win {
            winner: Color::Red,
            reason: Reason::Stalemate
        })
    );
}
