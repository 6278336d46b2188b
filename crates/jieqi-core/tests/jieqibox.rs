//! JieqiBox JSON files as JieqiBox writes them: read and written back byte for byte,
//! and through PGN without losing moves, FENs, comments, engine data or board edits.

mod support;
use support::random_game;

use jieqi_core::notation::{Notation, Script, read_move, write_move};
use jieqi_core::record::{ReadRecordError, Record, jieqibox, pgn};
use jieqi_core::{Deal, Game, Position, RuleSet};
use proptest::prelude::*;
use serde_json::Value;

fn data(name: &str) -> String {
    let path = format!("{}/tests/data/records/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

const FIXTURES: [&str; 5] = [
    "jieqibox_long.json",
    "jieqibox_from_fen.json",
    "jieqibox_analysis.json",
    "jieqibox_legacy5.json",
    "jieqibox_sample.json",
];

/// The fields JieqiBox → PGN → JieqiBox must keep, entry by entry.
fn kept(v: &Value) -> Vec<Vec<Value>> {
    v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            [
                "type",
                "data",
                "fen",
                "comment",
                "annotation",
                "engineScore",
                "engineTime",
            ]
            .iter()
            .map(|k| e[*k].clone())
            .collect()
        })
        .collect()
}

#[test]
fn jieqibox_files_write_back_byte_for_byte() {
    for name in FIXTURES {
        let text = data(name);
        let rec = jieqibox::read(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(jieqibox::write(&rec), text, "{name}");
    }
}

#[test]
fn jieqibox_through_pgn_keeps_moves_fens_comments_engine_data_and_edits() {
    for name in FIXTURES {
        let text = data(name);
        let rec = jieqibox::read(&text).unwrap();
        for n in [
            Notation::Iccs,
            Notation::Chinese(Script::Simplified),
            Notation::Chinese(Script::JieqiBox),
        ] {
            let p = pgn::write(&rec, n);
            let back = pgn::read(&p).unwrap_or_else(|e| panic!("{name} {n:?}: {e}\n{p}"));
            let out = jieqibox::write(&back);
            let (a, b): (Value, Value) = (
                serde_json::from_str(&text).unwrap(),
                serde_json::from_str(&out).unwrap(),
            );
            let (ka, kb) = (kept(&a), kept(&b));
            assert_eq!(ka.len(), kb.len(), "{name}");
            for (i, (x, y)) in ka.iter().zip(&kb).enumerate() {
                // A `data` without the suffix we would write gains it through PGN.
                let mut x = x.clone();
                if name == "jieqibox_sample.json" && i == 0 {
                    x[1] = y[1].clone();
                }
                assert_eq!(&x, y, "{name} {n:?} entry {}\n{p}", i + 1);
            }
            for k in [
                "initialFen",
                "currentFen",
                "result",
                "event",
                "white",
                "flipMode",
            ] {
                assert_eq!(a["metadata"][k], b["metadata"][k], "{name} {k}\n{p}");
            }
        }
    }
}

#[test]
fn the_long_game_has_what_the_issue_lost() {
    let text = data("jieqibox_long.json");
    let rec = jieqibox::read(&text).unwrap();
    assert_eq!(rec.moves.len(), 70);
    assert!(
        rec.moves
            .iter()
            .filter(|m| m.reveals.captured.is_some())
            .count()
            >= 3
    );
    let engine = rec
        .moves
        .iter()
        .filter(|m| m.engine_score.is_some())
        .count()
        + rec.moves.iter().filter(|m| m.engine_time.is_some()).count();
    assert_eq!(engine, 126);
    let p = pgn::write(&rec, Notation::Chinese(Script::Simplified));
    assert_eq!(
        p.matches("[%eval ").count() + p.matches("[%emt ").count(),
        126
    );
    // Every FEN JieqiBox wrote is ours too: no [%fen] needed, six fields everywhere.
    assert!(!p.contains("[%fen"), "{p}");
    assert!(
        p.contains("[%eval 299.95,"),
        "a mate score is a number like any other"
    );
    let out = jieqibox::write(&pgn::read(&p).unwrap());
    let v: Value = serde_json::from_str(&out).unwrap();
    for e in v["moves"].as_array().unwrap() {
        assert_eq!(e["fen"].as_str().unwrap().split(' ').count(), 6);
    }
    // Integers stay integers.
    assert!(!out.contains(".0,") && !out.contains(".0\n"));
    rec.verify().unwrap();
}

#[test]
fn a_game_from_a_fen_keeps_its_start() {
    let rec = jieqibox::read(&data("jieqibox_from_fen.json")).unwrap();
    assert!(!rec.standard_start());
    assert_eq!(rec.start.turn(), jieqi_core::Color::Black);
    let p = pgn::write(&rec, Notation::Wxf);
    assert!(p.contains("[FEN \""), "{p}");
    assert!(
        p.contains("\n7... "),
        "numbering from the FEN's move number: {p}"
    );
    rec.verify().unwrap();
}

#[test]
fn adjust_entries_are_new_positions() {
    let text = data("jieqibox_analysis.json");
    let rec = jieqibox::read(&text).unwrap();
    assert_eq!(rec.adjustments.len(), 3);
    let datas: Vec<&str> = rec.adjustments.iter().map(|a| a.data.as_str()).collect();
    assert_eq!(
        datas,
        ["captured_a+", "position_edit:移除 i7 炮 [c] {x}", "c+"]
    );
    assert_eq!(
        rec.adjustments.iter().map(|a| a.at).collect::<Vec<_>>(),
        [1, 6, 14]
    );
    assert_eq!(
        rec.adjustments[1].comment.as_deref(),
        Some("删掉黑炮再分析")
    );
    // The position after the edit is the edit's FEN, and play goes on from it.
    let positions = rec.positions();
    assert_eq!(positions[6], rec.adjustments[1].position);
    assert_eq!(rec.final_position(), rec.adjustments[2].position);
    assert_eq!(
        rec.final_position()
            .pool()
            .get(jieqi_core::Color::Black, jieqi_core::Role::Cannon),
        2
    );
    // Checked stretch by stretch; a referee game cannot be edited.
    assert_eq!(rec.verify().unwrap().plies, 14);
    assert!(rec.game().is_none());
    let p = pgn::write(&rec, Notation::Iccs);
    assert!(p.contains("{[%adjust \"captured_a+\" "), "{p}");
    assert!(
        p.contains("\\u005d") && !p.contains("[c]"),
        "brackets escaped: {p}"
    );
    let back = pgn::read(&p).unwrap();
    assert_eq!(back.adjustments.len(), 3);
    for (a, b) in back.adjustments.iter().zip(&rec.adjustments) {
        assert_eq!(
            (a.at, &a.data, &a.fen, &a.comment),
            (b.at, &b.data, &b.fen, &b.comment)
        );
    }
    // A PGN edit inside a variation, or with a bad FEN, is an error with its line.
    let bad = p.replacen(
        "{[%adjust \"captured_a+\" xxxxkxx",
        "{[%adjust \"captured_a+\" xxxxkxk",
        1,
    );
    assert!(matches!(
        pgn::read(&bad),
        Err(ReadRecordError::Syntax { .. })
    ));
}

#[test]
fn a_legacy_five_field_file_stays_five_field() {
    let text = data("jieqibox_legacy5.json");
    let rec = jieqibox::read(&text).unwrap();
    let p = pgn::write(&rec, Notation::Iccs);
    assert_eq!(p.matches("[%fen ").count(), rec.moves.len(), "{p}");
    let out = jieqibox::write(&pgn::read(&p).unwrap());
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["metadata"]["initialFen"]
            .as_str()
            .unwrap()
            .split(' ')
            .count(),
        5
    );
    for e in v["moves"].as_array().unwrap() {
        assert_eq!(e["fen"].as_str().unwrap().split(' ').count(), 5);
    }
}

#[test]
fn a_game_written_for_jieqibox_carries_the_captured_field() {
    let deal = Deal::from_seed(b"captured");
    let mut g = Game::new(deal, RuleSet::STANDARD);
    // 1. h2h9 takes the face-down horse-square piece on h9.
    let m = jieqi_core::Move::new(
        jieqi_core::Square::parse("h2").unwrap(),
        jieqi_core::Square::parse("h9").unwrap(),
    );
    g.play(m).unwrap();
    let rec = Record::from_game(&g);
    let out = jieqibox::write(&rec);
    let v: Value = serde_json::from_str(&out).unwrap();
    let fen = v["moves"][0]["fen"].as_str().unwrap();
    let fields: Vec<&str> = fen.split(' ').collect();
    assert_eq!(fields.len(), 6, "{fen}");
    assert_ne!(fields[3], "-", "{fen}");
    assert_eq!(v["metadata"]["currentFen"].as_str().unwrap(), fen);
    assert_eq!(
        v["metadata"]["initialFen"],
        "xxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/X1X1X1X1X/1X5X1/9/XXXXKXXXX w R2r2N2n2B2b2A2a2C2c2P5p5 - 0 1"
    );
}

#[test]
fn bad_jieqibox_input_is_an_error_not_a_panic() {
    let text = data("jieqibox_analysis.json");
    let cases: Vec<(String, &str)> = vec![
        (text[..text.len() / 2].to_string(), "broken JSON"),
        ("[1, 2]".into(), "not an object"),
        ("{\"moves\": []}".into(), "no metadata"),
        (
            text.replacen("\"fen\": \"xxxxkxxAx", "\"fen\": \"xxxxkxxAxx", 1),
            "bad fen in a move",
        ),
        (
            text.replacen(
                "\"data\": \"captured_a+\",\n      \"fen\"",
                "\"data\": \"captured_a+\",\n      \"fan\"",
                1,
            ),
            "adjust without fen",
        ),
        (
            text.replacen(
                "c2P4p3 N1a1 9 8\"\n    }\n  ]",
                "c3P4p3 N1a1 9 8\"\n    }\n  ]",
                1,
            ),
            "impossible adjust fen",
        ),
        (
            text.replacen("\"type\": \"move\"", "\"type\": \"note\"", 1),
            "unknown entry",
        ),
        (
            text.replacen("\"data\": \"h2h9A\"", "\"data\": 7", 1),
            "data not a string",
        ),
        (
            text.replacen("\"moves\": [", "\"moves\": [3,", 1),
            "entry not an object",
        ),
    ];
    for (t, what) in cases {
        assert_ne!(t, text, "{what}: the fixture changed");
        let e = jieqibox::read(&t).expect_err(what);
        assert!(!e.to_string().is_empty());
    }
}

#[test]
fn jieqibox_chinese_is_read_and_written() {
    // Two black files each hold a pair of elephants, counting the face-down ones on
    // c9 and g9: JieqiBox writes 「前象进９」 without the file.
    let pos = Position::from_fen(
        "xxxxkxxxx/9/1xb3bx1/2x1x1x2/9/9/X1X1X1X1X/1X5X1/9/XXXXKXXXX b R2N2B2A2C2P5r2n2a2c2p5 - 0 1",
    )
    .unwrap();
    let (m, _) = read_move(&pos, "前象进９").unwrap();
    assert_eq!(m.to_string(), "g7i5");
    let jb = Notation::Chinese(Script::JieqiBox);
    assert_eq!(write_move(&pos, m, Default::default(), jb), "前象进９");
    let ours = write_move(
        &pos,
        m,
        Default::default(),
        Notation::Chinese(Script::Simplified),
    );
    assert_eq!(ours, "前象7进9");
    // 翻 and 吃, full-width numbers for Black.
    let start = Position::start();
    let (m, rv) = read_move(&start, "炮二平五翻马").unwrap();
    assert_eq!(write_move(&start, m, rv, jb), "炮二平五翻马");
    let mut after = start.clone();
    after.play_unchecked(m, rv);
    let (m2, rv2) = read_move(&after, "b7b0rN").unwrap();
    assert_eq!(write_move(&after, m2, rv2, jb), "炮２进７翻车吃马");
    assert_eq!(read_move(&after, "炮２进７翻车吃马").unwrap(), (m2, rv2));
    assert_eq!(Notation::parse_name("jieqibox"), Some(jb));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    /// Engine data, comments and edits survive JieqiBox → PGN → JieqiBox exactly, and
    /// JieqiBox output read and written again is the same text.
    #[test]
    fn jieqibox_pgn_round_trips(
        seed in any::<u64>(),
        scores in proptest::collection::vec((-40000i64..40000, 0u32..3, 0u64..100_000_000, 0u32..60), 80),
        edit in "[a-zA-Z0-9_+:\\-\\[\\]{}\"\\\\ 局面编辑]{0,16}",
        edit_at in 0usize..90,
    ) {
        let g = random_game(seed, 80, RuleSet::STANDARD);
        let mut rec = Record::from_game(&g);
        rec.deal = None;
        for (m, &(s, half, t, d)) in rec.moves.iter_mut().zip(&scores) {
            if s % 3 != 0 {
                m.engine_score = Some(s as f64 + f64::from(half) * 0.5 - 0.5 * f64::from(half > 1));
                m.engine_depth = (d % 2 == 0).then_some(d);
            }
            m.engine_time = (t % 4 != 0).then_some(t);
            if s % 7 == 0 {
                m.comment = Some(format!("评注 {s} \"q\""));
            }
        }
        // An edit that changes nothing but is recorded, as JieqiBox's pool edits are.
        let at = edit_at.min(rec.moves.len());
        let pos = rec.positions()[at].clone();
        rec.adjustments.push(jieqi_core::record::Adjustment {
            at,
            data: edit.clone(),
            fen: pos.fen(),
            position: pos,
            comment: None,
            json_keys: Vec::new(),
        });
        let text = jieqibox::write(&rec);
        let read = jieqibox::read(&text).unwrap();
        prop_assert_eq!(jieqibox::write(&read), text.clone());
        for n in [Notation::Iccs, Notation::Chinese(Script::Traditional), Notation::Wxf] {
            let p = pgn::write(&read, n);
            let back = pgn::read(&p).unwrap_or_else(|e| panic!("{e}\n{p}"));
            prop_assert_eq!(&back.adjustments[0].data, &edit);
            prop_assert_eq!(jieqibox::write(&back), text.clone(), "{}", p);
        }
    }

    /// JieqiBox's Chinese style reads back to the same move, unless JieqiBox's own
    /// file-less naming leaves it ambiguous.
    #[test]
    fn jieqibox_style_reads_back(seed in any::<u64>()) {
        let g = random_game(seed, 60, RuleSet::STANDARD);
        let rec = Record::from_game(&g);
        let jb = Notation::Chinese(Script::JieqiBox);
        for (p, pos) in g.plies().iter().zip(rec.positions()) {
            let text = write_move(&pos, p.mv, p.reveals, jb);
            match read_move(&pos, &text) {
                Ok((m, _)) => prop_assert_eq!(m, p.mv, "{}", text),
                Err(e) => prop_assert!(e.to_string().contains("ambiguous"), "{}: {}", text, e),
            }
        }
    }
}

#[test]
fn values_we_have_no_field_for_are_kept_as_written() {
    // One line (as JieqiBox's autosave writes), a newline after, values of other types.
    let text = concat!(
        r#"{"metadata":{"event":"揭棋对局","round":3,"result":"*","initialFen":"","#,
        r#""flipMode":"random","currentFen":null,"openingComment":""},"moves":[{"type":"move","#,
        r#""data":"h2e2N","fen":"xxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/X1X1X1X1X/1X2N4/9/XXXXKXXXX b R2r2N1n2B2b2A2a2C2c2P5p5 - 0 1","#,
        r#""lastMove":{"from":{"row":7,"col":7},"to":{"row":7,"col":4}},"engineScore":null,"#,
        r#""engineTime":12.5,"engineDepth":-1,"comment":"","timestamp":1763600000000}],"#,
        r#""currentMoveIndex":1}"#,
        "\n"
    );
    let rec = jieqibox::read(text).unwrap();
    assert_eq!(rec.moves[0].engine_time, None);
    assert_eq!(rec.tag("Round"), None);
    assert_eq!(jieqibox::write(&rec), text);
    // A field set since reading wins over the raw value.
    let mut rec = rec;
    rec.moves[0].comment = Some("新".into());
    assert!(jieqibox::write(&rec).contains(r#""comment":"新","timestamp""#));
}
