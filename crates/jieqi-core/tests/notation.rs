//! Notation: every legal move written in Chinese (both scripts), WXF and ICCS reads
//! back as the same move; the seeds' disambiguation examples; the seed-004 record.

mod support;
use support::Rng;

use jieqi_core::notation::{
    ChineseMove, Notation, ResolveError, Script, WxfMove, read_move, write_move,
};
use jieqi_core::{Color, Deal, Move, Piece, Position, Reveals, Role, Setup, Square};
use proptest::prelude::*;

const NOTATIONS: [Notation; 4] = [
    Notation::Chinese(Script::Simplified),
    Notation::Chinese(Script::Traditional),
    Notation::Wxf,
    Notation::Iccs,
];

fn sq(s: &str) -> Square {
    Square::parse(s).unwrap()
}

fn mv(s: &str) -> Move {
    Move::new(sq(&s[..2]), sq(&s[2..4]))
}

/// The reveals a referee knows for `m` under `deal`.
fn referee_reveals(pos: &Position, deal: &Deal, m: Move) -> Reveals {
    Reveals {
        mover: pos
            .board()
            .is_hidden(m.from)
            .then(|| deal.identity_at(m.from))
            .flatten(),
        captured: pos
            .board()
            .is_hidden(m.to)
            .then(|| deal.identity_at(m.to))
            .flatten(),
    }
}

/// Writes every legal move of `pos` in every notation and reads it back; returns how
/// many moves were checked.
fn check_all_moves(pos: &Position, deal: Option<&Deal>) -> usize {
    let mut n = 0;
    for &m in pos.legal_moves().iter() {
        let rv = match deal {
            Some(d) => referee_reveals(pos, d, m),
            None => Reveals {
                mover: None,
                captured: None,
            },
        };
        for notation in NOTATIONS {
            let text = write_move(pos, m, rv, notation);
            let back = read_move(pos, &text).unwrap_or_else(|e| {
                panic!("{notation:?}: {text} (for {m}) did not read back in {pos:?}: {e}")
            });
            assert_eq!(back, (m, rv), "{notation:?}: {text} in {pos:?}");
        }
        n += 1;
    }
    n
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, .. ProptestConfig::default() })]

    /// Random games under random deals: ~40 games × up to 120 plies.
    #[test]
    fn every_move_of_random_games_round_trips(seed in any::<u64>()) {
        let deal = Deal::from_seed(&seed.to_le_bytes());
        let mut rng = Rng(seed | 1);
        let mut pos = Position::start();
        let mut positions = 0;
        for _ in 0..120 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            check_all_moves(&pos, Some(&deal));
            positions += 1;
            let m = moves[rng.below(moves.len())];
            let rv = referee_reveals(&pos, &deal, m);
            pos.play(m, rv).unwrap();
        }
        prop_assert!(positions > 0);
    }

    /// Random crowded positions: many same-kind pieces on shared files, face-down
    /// pieces among them, which is where disambiguation is hard.
    #[test]
    fn every_move_of_crowded_positions_round_trips(seed in any::<u64>()) {
        let mut rng = Rng(seed | 1);
        let mut checked = 0;
        for _ in 0..60 {
            if let Some(pos) = crowded_position(&mut rng) {
                check_all_moves(&pos, None);
                checked += 1;
            }
        }
        prop_assert!(checked > 0);
    }
}

/// A random legal position with face-up pieces crowded onto a few files and random
/// face-down pieces on start squares, or None if the draw was not legal.
fn crowded_position(rng: &mut Rng) -> Option<Position> {
    let mut s = Setup::start();
    s.board = [None; 90];
    let mut pool = jieqi_core::Material::full_hidden();
    for color in Color::ALL {
        let palace: Vec<Square> = Square::all().filter(|q| q.in_palace(color)).collect();
        let k = palace[rng.below(palace.len())];
        s.board[k.index()] = Some(Piece::Up(color, Role::King));
        let mut hidden = 0;
        for &(f, r) in &jieqi_core::START_SQUARES {
            let r = if color == Color::Red { r } else { 9 - r };
            let q = Square::from_xy(i32::from(f), i32::from(r)).unwrap();
            if s.board[q.index()].is_none() && rng.below(2) == 0 {
                s.board[q.index()] = Some(Piece::Down(color));
                hidden += 1;
            }
        }
        let files = [rng.below(9), rng.below(9)];
        for role in Role::HIDDEN {
            for _ in 0..role.count() {
                if rng.below(3) == 0 || pool.total(color) <= hidden + 1 {
                    continue;
                }
                let f = files[rng.below(2)];
                let r = rng.below(10);
                let q = Square::from_xy(f as i32, r as i32).unwrap();
                if s.board[q.index()].is_some() {
                    continue;
                }
                if role == Role::Pawn && !q.on_own_half(!color) && rng.below(2) == 0 {
                    continue;
                }
                s.board[q.index()] = Some(Piece::Up(color, role));
                *pool.get_mut(color, role) -= 1;
            }
        }
    }
    s.pool = pool;
    s.turn = if rng.below(2) == 0 {
        Color::Red
    } else {
        Color::Black
    };
    Position::from_setup(s).ok()
}

fn read(pos: &Position, text: &str) -> (Move, Reveals) {
    read_move(pos, text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn seed_example_two_middle_pawn_of_two_crowded_files() {
    // Six "pawns" on files 五 (e) and 九 (a), three each: face-down pawns on e3 and
    // a3 count as pawns. The middle one of file 五 is e5.
    let pos =
        Position::from_fen("3k5/4P4/9/P8/P3P4/9/X3X4/9/9/4K4 w A2B2N2R2C2P1a2b2n2r2c2p5 - 0 1")
            .unwrap();
    let m = mv("e5e6");
    assert_eq!(
        ChineseMove::from_move(&pos, m, Reveals::NONE).to_string(),
        "中兵五进一"
    );
    for text in [
        "中兵五进一",
        "二兵五进一",
        "中兵５进１",
        "中兵5進1",
        "二兵五進一",
    ] {
        assert_eq!(read(&pos, text).0, m, "{text}");
    }
    assert_eq!(
        WxfMove::from_move(&pos, m, Reveals::NONE).to_string(),
        "55+1"
    );
    assert_eq!(read(&pos, "55+1").0, m);
    // The front pawn of file 九 is a6; the rear one is face-down on a3.
    assert_eq!(read(&pos, "前兵九进一").0, mv("a6a7"));
    let (m, rv) = read(&pos, "后兵九进一兵");
    assert_eq!((m, rv.mover), (mv("a3a4"), Some(Role::Pawn)));
    // Without the file, 中兵 could be a5 or e5, but only e5 can step forward.
    assert_eq!(read(&pos, "中兵进一").0, mv("e5e6"));
    // 前兵 without the file: a6 and e8 both can, and the error names both.
    match read_move(&pos, "前兵进一") {
        Err(jieqi_core::notation::ReadMoveError::Resolve {
            error: ResolveError::Ambiguous { candidates, .. },
            ..
        }) => assert_eq!(candidates.len(), 2),
        other => panic!("expected ambiguity, got {other:?}"),
    }
}

#[test]
fn seed_example_three_four_pawns_on_one_file() {
    // Four pawns on file 五 only: e8 e7 e5 and the face-down e3, front to back.
    let pos =
        Position::from_fen("3k5/4P4/4P4/9/4P4/9/4X4/9/9/4K4 w A2B2N2R2C2P2a2b2n2r2c2p5 - 0 1")
            .unwrap();
    let m = mv("e5e6");
    assert_eq!(
        ChineseMove::from_move(&pos, m, Reveals::NONE).to_string(),
        "三兵进一"
    );
    assert_eq!(
        ChineseMove::from_move(&pos, m, Reveals::NONE).to_text(Script::Traditional),
        "三兵進一"
    );
    for text in ["三兵进一", "三兵五进一", "3兵5进1"] {
        assert_eq!(read(&pos, text).0, m, "{text}");
    }
    assert_eq!(
        read(&pos, "一兵进一").0,
        mv("e8e9").min(mv("e8d8")).max(mv("e8e9"))
    );
    // WXF: four pawns in a file: ++, P+, P-, --.
    assert_eq!(
        WxfMove::from_move(&pos, m, Reveals::NONE).to_string(),
        "P-+1"
    );
    assert_eq!(read(&pos, "P-+1").0, m);
    assert_eq!(read(&pos, "--+1").0, mv("e3e4"));
    // 中 needs an odd number of pawns.
    assert!(matches!(
        read_move(&pos, "中兵进一"),
        Err(jieqi_core::notation::ReadMoveError::Resolve {
            error: ResolveError::NoSuchPlace { .. },
            ..
        })
    ));
}

#[test]
fn seed_example_four_rooks_on_two_files() {
    // Four "rooks": face-down on a0 and i0, face-up on a4 and i4. The rear one of file
    // 九 (a0) moves to file 八 and turns out to be a cannon.
    let pos =
        Position::from_fen("3k5/9/9/9/9/R7R/9/9/9/X3K3X w A2B2N2R0C2P5a2b2n2r2c2p5 - 0 1").unwrap();
    let m = mv("a0b0");
    let rv = Reveals {
        mover: Some(Role::Cannon),
        captured: None,
    };
    assert_eq!(
        ChineseMove::from_move(&pos, m, rv).to_string(),
        "后车九平八炮"
    );
    assert_eq!(
        ChineseMove::from_move(&pos, m, rv).to_text(Script::Traditional),
        "後俥九平八炮"
    );
    for text in [
        "后车九平八炮",
        "二车九平八炮",
        "後車九平八炮",
        "后车9平8炮",
        "假车九平八现炮",
    ] {
        assert_eq!(read(&pos, text), (m, rv), "{text}");
    }
    assert_eq!(WxfMove::from_move(&pos, m, rv).to_string(), "R-9.8=C");
    assert_eq!(read(&pos, "R-9.8=C"), (m, rv));
    // Both rooks of file 九 can go to file 八: naming only the file is ambiguous and
    // the error names both.
    let err = read_move(&pos, "车九平八").unwrap_err().to_string();
    assert!(err.contains("a0") && err.contains("a4"), "{err}");
    // 前车 without a file: files 一 and 九 both hold two.
    let err = read_move(&pos, "前车进一").unwrap_err().to_string();
    assert!(err.contains("a4") && err.contains("i4"), "{err}");
    // Nothing of the kind on the file.
    let err = read_move(&pos, "车五进一").unwrap_err().to_string();
    assert!(err.contains("file 5"), "{err}");
    // The revealed identity must be in the pool (no rook left).
    assert!(read_move(&pos, "后车九平八车").is_err());
    // 假 for a face-up piece is wrong.
    assert!(read_move(&pos, "假前车九平八").is_err());
    assert!(read_move(&pos, "假前车九平八现炮").is_err());
}

#[test]
fn jieqibox_forms_and_captured_identity() {
    // Red's face-down cannon on h2 takes Black's face-down horse on h9... not legal
    // without a screen; use a plain start-position move instead.
    let pos = Position::start();
    let m = mv("h2e2");
    let rv = Reveals {
        mover: Some(Role::Horse),
        captured: None,
    };
    for text in [
        "炮二平五马",
        "炮二平五翻马",
        "炮2平5马",
        "炮二平五 翻马",
        "h2e2N",
        "H2-E2N",
        "C2.5=H",
        "c2.5=h",
        "炮二平五傌",
    ] {
        assert_eq!(read(&pos, text), (m, rv), "{text}");
    }
    // Without a reveal the identity is left for a referee.
    assert_eq!(read(&pos, "炮二平五"), (m, Reveals::NONE));
    // Seed 002, example 1: the face-down horse of file 二 goes to file 三 and is a cannon.
    let rv = Reveals {
        mover: Some(Role::Cannon),
        captured: None,
    };
    assert_eq!(read(&pos, "马二进三炮"), (mv("h0g2"), rv));
    assert_eq!(
        write_move(&pos, mv("h0g2"), rv, Notation::Chinese(Script::Simplified)),
        "马二进三炮"
    );
    assert_eq!(
        write_move(&pos, mv("h0g2"), rv, Notation::Chinese(Script::Traditional)),
        "傌二進三炮"
    );
    // A face-up rook takes a face-down piece: 「吃马」 and `xH`, `h0h9n` agree.
    let pos = Position::from_fen(
        "xxxxkxxxx/9/1x5x1/x1x1x1x1x/8R/9/X1X1X1X2/1X5X1/9/XXXXKXXX1 w A2B2N2R1C2P5a2b2n2r2c2p5 - 0 1",
    )
    .unwrap();
    let m = mv("i5i6");
    let rv = Reveals {
        mover: None,
        captured: Some(Role::Horse),
    };
    assert_eq!(
        ChineseMove::from_move(&pos, m, rv).to_string(),
        "车一进一吃马"
    );
    assert_eq!(WxfMove::from_move(&pos, m, rv).to_string(), "R1+1xH");
    for text in ["车一进一吃马", "俥一進一吃馬", "R1+1xH", "i5i6n", "I5-I6n"] {
        assert_eq!(read(&pos, text), (m, rv), "{text}");
    }
    // A captured identity on a face-up target is rejected.
    let err = read_move(&pos, "车一进一吃将");
    assert!(err.is_err());
}

#[test]
fn impossible_moves_say_why() {
    let pos = Position::start();
    let e = read_move(&pos, "马二平三").unwrap_err().to_string();
    assert!(e.contains("diagonal"), "{e}");
    let e = read_move(&pos, "相三进四").unwrap_err().to_string();
    assert!(e.contains("two away"), "{e}");
    let e = read_move(&pos, "车一进三").unwrap_err().to_string();
    assert!(e.contains("i0") && e.contains("cannot play"), "{e}");
    let e = read_move(&pos, "帅五进一现车").unwrap_err().to_string();
    assert!(e.contains("face-up"), "{e}");
    assert!(read_move(&pos, "兵").is_err());
    assert!(read_move(&pos, "兵七进").is_err());
    assert!(read_move(&pos, "兵七跳一").is_err());
    assert!(read_move(&pos, "Q2.5").is_err());
    assert!(read_move(&pos, "z9z9").is_err());
}

/// Seed 004's worked example, written in its 盖棋 form, with a deal that fits it.
#[test]
fn seed_004_record_replays() {
    let deal = Deal::parse("RNBAARNPCCPBPPP/rnbaabnrcpppcpp").unwrap();
    let record = "1. 假兵七进一现相 假卒5进1现炮 2. 假相三进五现车 炮5进3";
    let mut pos = Position::start();
    let mut events = Vec::new();
    for token in record.split_whitespace().filter(|t| !t.ends_with('.')) {
        let (m, rv) = read(&pos, token);
        assert_eq!(
            rv.mover,
            pos.board()
                .is_hidden(m.from)
                .then(|| deal.identity_at(m.from))
                .flatten(),
            "{token}"
        );
        let capture = pos.piece_at(m.to);
        pos.play(m, rv).unwrap();
        events.push((m.to_string(), pos.is_check(), capture));
    }
    assert_eq!(events[0], ("c3c4".into(), false, None));
    assert_eq!(
        events[1],
        ("e6e5".into(), true, None),
        "check after Black's first move"
    );
    assert_eq!(events[2], ("g0e2".into(), false, None));
    assert_eq!(
        events[3],
        (
            "e5e2".into(),
            false,
            Some(Piece::Up(Color::Red, Role::Rook))
        ),
        "2...炮5进3 takes the rook"
    );
    // Written back in the seed-002 form and in WXF.
    let mut pos = Position::start();
    let mut written = Vec::new();
    for token in record.split_whitespace().filter(|t| !t.ends_with('.')) {
        let (m, rv) = read(&pos, token);
        written.push((
            write_move(&pos, m, rv, Notation::Chinese(Script::Simplified)),
            write_move(&pos, m, rv, Notation::Wxf),
        ));
        pos.play(m, rv).unwrap();
    }
    let zh: Vec<&str> = written.iter().map(|w| w.0.as_str()).collect();
    assert_eq!(zh, ["兵七进一相", "卒5进1炮", "相三进五车", "炮5进3"]);
    let wxf: Vec<&str> = written.iter().map(|w| w.1.as_str()).collect();
    assert_eq!(wxf, ["P7+1=E", "P5+1=C", "E3+5=R", "C5+3"]);
    assert_eq!(
        pos.fen(),
        "xxxxkxxxx/9/1x5x1/x1x3x1x/9/2B6/X3X1X1X/1X2c2X1/9/XXXXKX1XX w A2B1N2R1C2P5a2b2n2r2c1p5 - 0 3"
    );
}

/// The tandem-pawn examples of the WXF notation standard, and its tandem-piece forms.
#[test]
fn wxf_standard_tandem_forms() {
    // Three pawns on Red's file 3 (g5 g6 g7), crossing to file 4.
    let pos = Position::from_fen("3k5/9/6P2/6P2/6P2/9/9/9/9/4K4 w A2B2N2R2C2P2a2b2n2r2c2p5 - 0 1")
        .unwrap();
    for (text, m) in [("P+.4", "g7f7"), ("P3.4", "g6f6"), ("P-.4", "g5f5")] {
        assert_eq!(read(&pos, text).0, mv(m), "{text}");
        assert_eq!(write_move(&pos, mv(m), Reveals::NONE, Notation::Wxf), text);
    }
    // Plus two pawns on file 7 (c5 c6): the file digit replaces the letter.
    let pos =
        Position::from_fen("3k5/9/6P2/2P3P2/2P3P2/9/9/9/9/4K4 w A2B2N2R2C2P0a2b2n2r2c2p5 - 0 1")
            .unwrap();
    for (text, m) in [
        ("3+.4", "g7f7"),
        ("33.4", "g6f6"),
        ("3-.4", "g5f5"),
        ("7+.6", "c6d6"),
        ("7-.6", "c5d5"),
    ] {
        assert_eq!(read(&pos, text).0, mv(m), "{text}");
        assert_eq!(write_move(&pos, mv(m), Reveals::NONE, Notation::Wxf), text);
    }
    // Tandem rooks: R+ / R- and the prefix spelling +R / -R.
    let pos =
        Position::from_fen("3k5/9/9/9/9/9/R8/9/9/R3K4 w A2B2N2R0C2P5a2b2n2r2c2p5 - 0 1").unwrap();
    for (text, m) in [
        ("R+.3", "a3g3"),
        ("+R.3", "a3g3"),
        ("R+-1", "a3a2"),
        ("-R+1", "a0a1"),
    ] {
        assert_eq!(read(&pos, text).0, mv(m), "{text}");
    }
    assert_eq!(
        write_move(&pos, mv("a0a1"), Reveals::NONE, Notation::Wxf),
        "R-+1"
    );
    assert_eq!(
        write_move(
            &pos,
            mv("a0a1"),
            Reveals::NONE,
            Notation::Chinese(Script::Simplified)
        ),
        "后车进一"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    /// Arbitrary text made of notation characters never panics the reader, and anything
    /// it accepts is a legal move that writes back to itself.
    #[test]
    fn garbage_never_panics(text in "[假前中后後一二三四五六七八九1-9１９车車马炮兵卒相仕帅将进進退平现翻吃a-iA-Z0-9+.=x -]{0,12}") {
        let positions = [
            Position::start(),
            Position::from_fen("3k5/9/9/9/9/R7R/9/9/9/X3K3X w A2B2N2R0C2P5a2b2n2r2c2p5 - 0 1").unwrap(),
        ];
        for pos in &positions {
            if let Ok((m, rv)) = read_move(pos, &text) {
                prop_assert!(pos.is_legal(m));
                for n in NOTATIONS {
                    prop_assert_eq!(read_move(pos, &write_move(pos, m, rv, n)).unwrap(), (m, rv));
                }
            }
        }
    }
}
