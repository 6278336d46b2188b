//! Property tests over positions from random games: FEN round trip, make/unmake,
//! incremental hash, and the fast generator against a slow, obviously-correct one.

mod support;
use support::Rng;

use std::collections::BTreeSet;

use jieqi_core::perft::{Mode, perft};
use jieqi_core::{Color, Deal, Move, Piece, Position, Reveals, Role, Square};
use proptest::prelude::*;

/// Positions of a random game under a random deal (referee's view).
fn playout(seed: u64, plies: usize) -> Vec<Position> {
    let deal = Deal::from_seed(&seed.to_le_bytes());
    let mut rng = Rng(seed | 1);
    let mut pos = Position::start();
    let mut out = vec![pos.clone()];
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        // Prefer captures now and then so games open up.
        let m = moves[rng.below(moves.len())];
        let rv = deal.reveals(&pos, m);
        pos.play(m, rv).unwrap();
        out.push(pos.clone());
    }
    out
}

// ---- the slow generator -------------------------------------------------------------

type Cells = [Option<(Color, Role, bool)>; 90]; // colour, movement role, face-down

fn cells(pos: &Position) -> Cells {
    let mut c = [None; 90];
    for sq in Square::all() {
        if let Some(p) = pos.piece_at(sq) {
            c[sq.index()] = Some((
                p.color(),
                pos.movement_role(sq).unwrap(),
                matches!(p, Piece::Down(_)),
            ));
        }
    }
    c
}

fn xy(s: usize) -> (i32, i32) {
    ((s % 9) as i32, (s / 9) as i32)
}
fn at(f: i32, r: i32) -> Option<usize> {
    ((0..9).contains(&f) && (0..10).contains(&r)).then(|| (r * 9 + f) as usize)
}
fn in_palace(s: usize, c: Color) -> bool {
    let (f, r) = xy(s);
    (3..=5).contains(&f) && if c == Color::Red { r <= 2 } else { r >= 7 }
}

/// Squares the piece on `s` could move to or capture on, ignoring its own king.
fn targets(c: &Cells, s: usize) -> Vec<usize> {
    let (color, role, hidden) = c[s].unwrap();
    let (f, r) = xy(s);
    let mut out = Vec::new();
    let fwd = if color == Color::Red { 1 } else { -1 };
    match role {
        Role::King => {
            for (df, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                if let Some(t) = at(f + df, r + dr).filter(|&t| in_palace(t, color)) {
                    out.push(t);
                }
            }
        }
        Role::Advisor => {
            for (df, dr) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                if let Some(t) = at(f + df, r + dr).filter(|&t| !hidden || in_palace(t, color)) {
                    out.push(t);
                }
            }
        }
        Role::Elephant => {
            for (df, dr) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                if let (Some(t), Some(eye)) = (at(f + 2 * df, r + 2 * dr), at(f + df, r + dr))
                    && c[eye].is_none()
                {
                    out.push(t);
                }
            }
        }
        Role::Horse => {
            for (df, dr) in [
                (1i32, 2i32),
                (-1, 2),
                (1, -2),
                (-1, -2),
                (2, 1),
                (2, -1),
                (-2, 1),
                (-2, -1),
            ] {
                let leg = if dr.abs() == 2 {
                    at(f, r + dr / 2)
                } else {
                    at(f + df / 2, r)
                };
                if let (Some(t), Some(leg)) = (at(f + df, r + dr), leg)
                    && c[leg].is_none()
                {
                    out.push(t);
                }
            }
        }
        Role::Rook | Role::Cannon => {
            for (df, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                let mut screens = 0;
                let (mut x, mut y) = (f + df, r + dr);
                while let Some(t) = at(x, y) {
                    match (role, c[t].is_some(), screens) {
                        (Role::Rook, false, _) | (Role::Cannon, false, 0) => out.push(t),
                        (Role::Rook, true, _) => {
                            out.push(t);
                            break;
                        }
                        (_, true, 0) => screens = 1,
                        (_, true, _) => {
                            out.push(t);
                            break;
                        }
                        _ => {}
                    }
                    x += df;
                    y += dr;
                }
            }
        }
        Role::Pawn => {
            if let Some(t) = at(f, r + fwd) {
                out.push(t);
            }
            let crossed = if color == Color::Red { r >= 5 } else { r <= 4 };
            if crossed {
                for df in [-1, 1] {
                    if let Some(t) = at(f + df, r) {
                        out.push(t);
                    }
                }
            }
        }
    }
    out
}

fn king_exposed(c: &Cells, color: Color) -> bool {
    let k = (0..90)
        .find(|&s| matches!(c[s], Some((col, Role::King, false)) if col == color))
        .unwrap();
    let ek = (0..90)
        .find(|&s| matches!(c[s], Some((col, Role::King, false)) if col != color))
        .unwrap();
    if k % 9 == ek % 9
        && ((k.min(ek) + 9)..k.max(ek))
            .step_by(9)
            .all(|s| c[s].is_none())
    {
        return true;
    }
    (0..90).any(|s| matches!(c[s], Some((col, _, _)) if col != color) && targets(c, s).contains(&k))
}

fn slow_moves(pos: &Position) -> BTreeSet<(usize, usize)> {
    let c = cells(pos);
    let us = pos.turn();
    let mut out = BTreeSet::new();
    for s in 0..90 {
        if !matches!(c[s], Some((col, _, _)) if col == us) {
            continue;
        }
        for t in targets(&c, s) {
            if matches!(c[t], Some((col, _, _)) if col == us) {
                continue;
            }
            let mut after = c;
            after[t] = after[s];
            after[s] = None;
            if !king_exposed(&after, us) {
                out.insert((s, t));
            }
        }
    }
    out
}

fn fast_moves(pos: &Position) -> BTreeSet<(usize, usize)> {
    pos.legal_moves()
        .iter()
        .map(|m| (m.from.index(), m.to.index()))
        .collect()
}

fn check_position(pos: &Position) {
    // Generators agree.
    assert_eq!(
        fast_moves(pos),
        slow_moves(pos),
        "generators disagree on {}",
        pos.fen()
    );
    assert_eq!(pos.count_legal() as usize, pos.legal_moves().len());
    // FEN round trip.
    let fen = pos.fen();
    let back = Position::from_fen(&fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    assert_eq!(back.fen(), fen);
    assert_eq!(back.hash(), pos.hash());
    // Incremental hash equals a from-scratch hash.
    assert_eq!(pos.hash(), pos.compute_hash(), "{fen}");
    // Make/unmake restores everything, for every move and every possible reveal.
    for &m in pos.legal_moves().iter() {
        let hidden = pos.board().is_hidden(m.from);
        let reveals: Vec<Option<Role>> = if hidden {
            Role::HIDDEN
                .iter()
                .copied()
                .filter(|&r| pos.pool().get(pos.turn(), r) > 0)
                .map(Some)
                .collect()
        } else {
            vec![None]
        };
        for mover in reveals {
            let mut p = pos.clone();
            let undo = p.play_unchecked(
                m,
                Reveals {
                    mover,
                    captured: None,
                },
            );
            assert_eq!(p.hash(), p.compute_hash(), "hash after {m} in {fen}");
            p.unplay(undo);
            assert_eq!(&p, pos, "unplay of {m} in {fen}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_game_positions_hold_every_invariant(seed in any::<u64>(), plies in 0usize..120) {
        for pos in playout(seed, plies) {
            check_position(&pos);
        }
    }

    #[test]
    fn fen_text_round_trips(seed in any::<u64>(), plies in 0usize..100) {
        let pos = playout(seed, plies).pop().unwrap();
        let fen = pos.fen();
        prop_assert_eq!(Position::from_fen(&fen).unwrap().fen(), fen);
    }
}

#[test]
fn testdata_positions_hold_every_invariant() {
    for file in ["perft_revealed.txt", "perft_deal.txt", "perft_chance.txt"] {
        let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
        for line in std::fs::read_to_string(path).unwrap().lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let fen = line.split(';').next().unwrap();
            check_position(&Position::from_fen(fen).unwrap());
        }
    }
}

#[test]
fn perft_by_deal_matches_the_slow_generator() {
    fn slow_perft(pos: &Position, deal: &Deal, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        slow_moves(pos)
            .into_iter()
            .map(|(s, t)| {
                let m = Move::new(Square::new(s as u8).unwrap(), Square::new(t as u8).unwrap());
                let mut p = pos.clone();
                let rv = deal.reveals(&p, m);
                p.play(m, rv).unwrap();
                slow_perft(&p, deal, depth - 1)
            })
            .sum()
    }
    let deal = Deal::from_seed(&7u64.to_le_bytes());
    for pos in playout(7, 30).iter().step_by(10) {
        assert_eq!(
            perft(pos, 2, Mode::Deal(&deal)),
            slow_perft(pos, &deal, 2),
            "{}",
            pos.fen()
        );
    }
}
