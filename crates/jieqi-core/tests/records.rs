//! Records: PGN and JieqiBox JSON read and written, round trips, verification of
//! tampered records, and per-viewer redaction of the web form.

mod support;
use support::random_game;

use jieqi_core::notation::{Notation, Script};
use jieqi_core::record::web::WebRecord;
use jieqi_core::record::{
    Format, ReadRecordError, Record, RecordMove, VerifyReason, jieqibox, pgn, read_any, write,
};
use jieqi_core::{CapturedIdentity, Color, Deal, Game, Piece, Reveals, Role, RuleSet, Viewer};
use proptest::prelude::*;

fn data(name: &str) -> String {
    let path = format!("{}/tests/data/records/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn decorated_record(g: &Game) -> Record {
    let mut r = Record::from_game(g);
    r.set_tag("Event", "Test \"quoted\" event");
    r.set_tag("Red", "甲");
    r.set_tag("Black", "乙");
    r.set_tag("TimeControl", "600+5");
    let salt = "00ff00ff";
    r.deal_commitment = Some(g.deal().commitment(salt));
    r.deal_salt = Some(salt.into());
    r.opening_comment = Some("opening".into());
    for (i, m) in r.moves.iter_mut().enumerate() {
        if i % 3 == 0 {
            m.clock = Some(format!("0:{:02}:{:02}", 9 - (i / 60) % 10, 59 - i % 60));
        }
        if i % 4 == 1 {
            m.comment = Some(format!("comment {i}"));
        }
    }
    r
}

#[test]
fn seed_004_pgn_replays_with_check_and_capture() {
    let rec = pgn::read(&data("seed004.pgn")).unwrap();
    assert_eq!(rec.moves.len(), 4);
    assert_eq!(
        rec.opening_comment.as_deref(),
        Some("盖棋 form, as the seed writes it")
    );
    assert_eq!(rec.moves[1].comment.as_deref(), Some("叫将"));
    let report = rec.verify().unwrap();
    assert!(report.deal_checked);
    let game = rec.game().unwrap().unwrap();
    let plies = game.plies();
    assert!(plies[1].check, "check after Black's first move");
    assert_eq!(
        plies[3].captured,
        Some(Some(Role::Rook)),
        "2...炮5进3 takes the rook"
    );
    assert_eq!(
        rec.move_texts(Notation::Chinese(Script::Simplified)),
        ["兵七进一相", "卒5进1炮", "相三进五车", "炮5进3"]
    );
    // The same record without the deal still replays: every reveal is written.
    let no_deal = data("seed004.pgn").replace("[Deal \"RNBAARNPCCPBPPP/rnbaabnrcpppcpp\"]\n", "");
    let rec2 = pgn::read(&no_deal).unwrap();
    let report = rec2.verify().unwrap();
    assert!(!report.deal_checked);
    assert_eq!(rec2.final_position(), rec.final_position());
}

#[test]
fn jieqibox_sample_reads_and_round_trips() {
    let rec = jieqibox::read(&data("jieqibox_sample.json")).unwrap();
    assert_eq!(rec.tag("Red"), Some("Player A"));
    assert_eq!(rec.opening_comment.as_deref(), Some("An opening note."));
    assert_eq!(rec.moves.len(), 4);
    // "c3c4" has no suffix: the identity comes from the fen after the move.
    assert_eq!(rec.moves[0].reveals.mover, Some(Role::Elephant));
    assert_eq!(rec.moves[0].annotation.as_deref(), Some("!?"));
    assert_eq!(rec.moves[0].engine_score, Some(35.0));
    assert_eq!(rec.moves[0].engine_time, Some(1250));
    assert_eq!(rec.moves[1].reveals.mover, Some(Role::Cannon));
    rec.verify().unwrap();
    let text = jieqibox::write(&rec);
    let back = jieqibox::read(&text).unwrap();
    assert_eq!(back.moves, rec.moves);
    assert_eq!(back.tags, rec.tags);
    // Written back as read: the suffix-less data, the legacy-order FEN, the unknown key.
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["moves"][0]["data"], "c3c4");
    assert_eq!(v["moves"][0]["type"], "move");
    assert_eq!(v["metadata"]["unknownField"], 42);
    assert_eq!(
        v["metadata"]["initialFen"],
        "xxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/X1X1X1X1X/1X5X1/9/XXXXKXXXX A2B2N2R2C2P5a2b2n2r2c2p5 w - - 0 1"
    );
    // Through PGN the move gains the suffix of its revealed identity.
    let via_pgn = jieqibox::write(&pgn::read(&pgn::write(&rec, Notation::Iccs)).unwrap());
    let v: serde_json::Value = serde_json::from_str(&via_pgn).unwrap();
    assert_eq!(v["moves"][0]["data"], "c3c4B");
}

#[test]
fn pgn_reads_variations_nags_and_clocks() {
    let text = "[Game \"Jieqi\"]\n[Deal \"RNBAARNPCCPBPPP/rnbaabnrcpppcpp\"]\n\n\
        1. c3c4 {[%clk 0:09:58] good} $1 e6e5 (1... a6a5 {side line} 2. C2.5) 2. 假相三进五 炮5进3!? *";
    let rec = pgn::read(text).unwrap();
    assert_eq!(rec.moves.len(), 4);
    assert_eq!(rec.moves[0].clock.as_deref(), Some("0:09:58"));
    assert_eq!(rec.moves[0].comment.as_deref(), Some("good"));
    assert_eq!(rec.moves[0].annotation.as_deref(), Some("$1"));
    assert_eq!(rec.moves[3].annotation.as_deref(), Some("!?"));
    let var = &rec.moves[1].variations[0];
    assert_eq!(var.len(), 2);
    assert_eq!(var[0].mv.to_string(), "a6a5");
    assert_eq!(var[1].mv.to_string(), "h2e2");
    // Reveals come from the deal.
    assert_eq!(
        rec.positions()[4].piece_at(jieqi_core::Square::parse("c4").unwrap()),
        Some(Piece::Up(Color::Red, Role::Elephant))
    );
    rec.verify().unwrap();
    // Written and read again, nothing is lost.
    for n in [
        Notation::Chinese(Script::Simplified),
        Notation::Chinese(Script::Traditional),
        Notation::Wxf,
        Notation::Iccs,
    ] {
        let out = pgn::write(&rec, n);
        let back = pgn::read(&out).unwrap_or_else(|e| panic!("{e}\n{out}"));
        assert_eq!(back.moves[0].clock, rec.moves[0].clock, "{out}");
        assert_eq!(back.moves[1].variations.len(), 1, "{out}");
        assert_eq!(back.moves[1].variations[0][1].mv, var[1].mv, "{out}");
        assert_eq!(back.moves[3].annotation.as_deref(), Some("!?"));
    }
    // Of a multi-game file, the first game is read.
    let two = format!("{text}\n\n[Game \"Jieqi\"]\n1. h2e2 *\n");
    assert_eq!(pgn::read(&two).unwrap().moves.len(), 4);
    // Broken syntax is reported with its line.
    assert!(matches!(
        pgn::read("1. c3c4 {never closed"),
        Err(ReadRecordError::Syntax { line: 1, .. })
    ));
    assert!(matches!(
        pgn::read("1. c3c4 (1. h2e2"),
        Err(ReadRecordError::Syntax { .. })
    ));
    assert!(matches!(
        pgn::read("[Game \"Chess\"]\n1. e2e4"),
        Err(ReadRecordError::Tag { .. })
    ));
    assert!(matches!(
        pgn::read("1. c3c4 e6e5 2. e0e1 e5e0"),
        Err(ReadRecordError::Move { ply: 4, .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]

    /// Random games written as PGN in every notation, as JieqiBox JSON and as the
    /// referee's web JSON read back to the same record.
    #[test]
    fn records_round_trip(seed in any::<u64>()) {
        let g = random_game(seed, 90, RuleSet::STANDARD);
        let rec = decorated_record(&g);
        rec.verify().unwrap();
        for n in [Notation::Chinese(Script::Simplified), Notation::Chinese(Script::Traditional), Notation::Wxf, Notation::Iccs] {
            let text = pgn::write(&rec, n);
            let back = pgn::read(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            // The writer puts the seven-tag roster first; order carries no meaning.
            let mut back = back;
            let (mut a, mut b) = (back.tags.clone(), rec.tags.clone());
            a.sort();
            b.sort();
            prop_assert_eq!(a, b);
            back.tags = rec.tags.clone();
            for (i, (a, b)) in back.moves.iter().zip(&rec.moves).enumerate() {
                prop_assert_eq!(a, b, "ply {} of {:?}", i + 1, n);
            }
            prop_assert!(back == rec, "{}", text);
            // Without the deal the PGN still replays on its own.
            let mut secret = rec.clone();
            secret.deal = None;
            secret.deal_salt = None;
            let back = pgn::read(&pgn::write(&secret, n)).unwrap();
            back.verify().unwrap();
            prop_assert_eq!(back.final_position(), rec.final_position());
        }
        let back = jieqibox::read(&jieqibox::write(&rec)).unwrap();
        prop_assert_eq!(back.final_position(), rec.final_position());
        prop_assert_eq!(back.moves.len(), rec.moves.len());
        let back = read_any(&write(&rec, Format::Web(Viewer::Referee))).unwrap();
        prop_assert_eq!(back.deal, rec.deal);
        prop_assert_eq!(back.final_position(), rec.final_position());
    }

    /// Tampering is caught at the right ply.
    #[test]
    fn tampered_records_are_rejected_at_the_ply(seed in any::<u64>()) {
        let g = random_game(seed, 60, RuleSet::STANDARD);
        let rec = decorated_record(&g);
        rec.verify().unwrap();
        let positions = rec.positions();
        // A reveal changed to another identity that the pool still holds.
        if let Some(i) = rec.moves.iter().enumerate().rposition(|(i, m)| {
            m.reveals.mover.is_some() && positions[i].pool().get(positions[i].turn(), other_role(m.reveals.mover.unwrap(), &positions[i])) > 0
        }) {
            let mut bad = rec.clone();
            let r = bad.moves[i].reveals.mover.unwrap();
            bad.moves[i].reveals.mover = Some(other_role(r, &positions[i]));
            let e = bad.verify().unwrap_err();
            prop_assert_eq!(e.ply, i + 1);
            let is_contradiction = matches!(e.reason, VerifyReason::RevealContradictsDeal { .. });
            prop_assert!(is_contradiction, "{}", e);
            // Through PGN, too: the written reveal wins over the deal when read.
            let e = pgn::read(&pgn::write(&bad, Notation::Chinese(Script::Simplified))).map(|r| r.verify());
            if let Ok(v) = e {
                prop_assert_eq!(v.unwrap_err().ply, i + 1);
            }
        }
        // A different deal breaks the commitment.
        let mut bad = rec.clone();
        bad.deal = Some(Deal::from_seed(b"other"));
        let e = bad.verify().unwrap_err();
        prop_assert_eq!(e.ply, 0);
        let is_mismatch = matches!(e.reason, VerifyReason::CommitmentMismatch { .. });
        prop_assert!(is_mismatch);
        // Without a commitment, a different deal contradicts the reveals.
        bad.deal_commitment = None;
        if rec.moves.iter().any(|m| m.reveals.mover.is_some()) {
            let e = bad.verify().unwrap_err();
            prop_assert!(e.ply >= 1);
        }
        // An illegal move (a move of the wrong side) is caught at its ply.
        if rec.moves.len() >= 4 {
            let mut bad = rec.clone();
            bad.moves.swap(2, 3);
            let e = bad.verify().unwrap_err();
            prop_assert_eq!(e.ply, 3);
        }
    }

    /// What the web form gives a viewer is exactly what the game's `View` discloses,
    /// and changing what that viewer cannot know changes nothing in it.
    #[test]
    fn redaction_never_leaks(seed in any::<u64>(), rule in 0..3u8) {
        let mut rules = RuleSet::STANDARD;
        rules.captured_identity = [CapturedIdentity::Capturer, CapturedIdentity::Nobody, CapturedIdentity::Everyone][rule as usize];
        let g = random_game(seed, 70, rules);
        let mut rec = Record::from_game(&g);
        rec.result = "*".into();
        rec.deal_commitment = Some(g.deal().commitment("s"));
        rec.deal_salt = Some("s".into());
        for viewer in [Viewer::RED, Viewer::BLACK, Viewer::Spectator, Viewer::Referee] {
            let web = WebRecord::from_record(&rec, viewer);
            let view = g.view(viewer);
            let uci: Vec<String> = view.moves().iter().map(|u| u.to_string()).collect();
            let ours: Vec<String> = web.moves.iter().map(|m| m.uci.clone()).collect();
            prop_assert_eq!(ours, uci);
            prop_assert_eq!(&web.fen, &view.fen());
            let live = WebRecord::from_view(&view, &rules, None, rec.deal_commitment.as_deref(), &[]);
            prop_assert_eq!(&live.moves, &web.moves.iter().map(|m| jieqi_core::record::web::WebMove { comment: None, clock: None, ..m.clone() }).collect::<Vec<_>>());
            if viewer != Viewer::Referee {
                prop_assert!(web.deal.is_none() && web.deal_salt.is_none());
                prop_assert!(!web.to_json().contains(&g.deal().to_string()));
                // Perturb the hidden truth this viewer cannot know: another deal, and
                // captured identities it may not learn removed.
                let mut other = rec.clone();
                other.deal = Some(Deal::from_seed(&seed.wrapping_add(1).to_be_bytes()));
                let mut pos = rec.start.clone();
                for m in other.moves.iter_mut() {
                    let capturer = pos.turn();
                    pos.play_unchecked(m.mv, m.reveals);
                    if !jieqi_core::record::web::knows_capture(viewer, rules.captured_identity, capturer) {
                        m.reveals.captured = None;
                    }
                }
                // The other deal must not fill in what was removed: reveals of movers
                // are public and stay as recorded.
                other.deal = None;
                let web2 = WebRecord::from_record(&other, viewer);
                prop_assert_eq!(web2.to_json(), WebRecord { deal_salt: None, ..web.clone() }.to_json());
            }
        }
    }
}

/// Another hideable role than `r`, preferring one the side's pool still holds.
fn other_role(r: Role, pos: &jieqi_core::Position) -> Role {
    Role::HIDDEN
        .into_iter()
        .filter(|&x| x != r)
        .max_by_key(|&x| pos.pool().get(pos.turn(), x))
        .unwrap()
}

#[test]
fn a_multi_game_pgn_reads_game_by_game() {
    let games: Vec<Record> = (0..3u64)
        .map(|seed| {
            let mut r = decorated_record(&random_game(
                seed,
                40 + 30 * seed as usize,
                RuleSet::STANDARD,
            ));
            r.set_tag("Round", &(seed + 1).to_string());
            r
        })
        .collect();
    let text: String = games
        .iter()
        .map(|r| pgn::write(r, Notation::Iccs) + "\n")
        .collect();
    let back = pgn::read_all(&text).unwrap();
    assert_eq!(back.len(), 3);
    for (a, b) in back.iter().zip(&games) {
        assert_eq!(a.tag("Round"), b.tag("Round"));
        assert_eq!(
            (&a.moves, &a.deal, &a.result),
            (&b.moves, &b.deal, &b.result)
        );
        a.verify().unwrap();
    }
    // `read` keeps reading the first game only.
    assert_eq!(pgn::read(&text).unwrap().moves, games[0].moves);
    // Nothing to read is no game; a broken second game is reported with its line.
    assert!(pgn::read_all(" \n").unwrap().is_empty());
    let first_lines = pgn::write(&games[0], Notation::Iccs).lines().count();
    let broken = format!(
        "{}\n[Game \"Jieqi\"]\n1. a0a5 *\n",
        pgn::write(&games[0], Notation::Iccs)
    );
    match pgn::read_all(&broken) {
        Err(ReadRecordError::Move { ply: 1, .. }) => {}
        other => panic!("{other:?}"),
    }
    let unclosed = format!(
        "{}\n[Game \"Jieqi\"]\n1. c3c4 {{never closed",
        pgn::write(&games[0], Notation::Iccs)
    );
    assert!(matches!(
        pgn::read_all(&unclosed),
        Err(ReadRecordError::Syntax { line, .. }) if line == first_lines + 3
    ));
}

#[test]
fn web_record_hides_the_deal_until_the_end() {
    let g = random_game(7, 30, RuleSet::STANDARD);
    let mut rec = Record::from_game(&g);
    rec.result = "*".into();
    rec.deal_commitment = Some(g.deal().commitment("salt"));
    rec.deal_salt = Some("salt".into());
    let json = write(&rec, Format::Web(Viewer::BLACK));
    assert!(
        !json.contains("\"deal\"") && !json.contains("salt\""),
        "{json}"
    );
    assert!(json.contains("dealCommitment"));
    let json = write(&rec, Format::Web(Viewer::Referee));
    assert!(json.contains("\"deal\"") && json.contains("\"dealSalt\""));
    rec.result = "1-0".into();
    let json = write(&rec, Format::Web(Viewer::Spectator));
    assert!(
        json.contains(&g.deal().to_string()),
        "deal published after the end"
    );
    // A player's copy reads back as a record of what that player knew.
    let rec2 = read_any(&write(&rec, Format::Web(Viewer::RED))).unwrap();
    assert_eq!(rec2.moves.len(), rec.moves.len());
    let _ = RecordMove::new(rec.moves[0].mv, Reveals::NONE);
    // The captured identity of a face-down piece: the referee and the capturer see it,
    // the spectator and the other player do not.
    let i = g
        .plies()
        .iter()
        .position(|p| p.captured_hidden())
        .expect("a face-down capture");
    let capturer = g.plies()[i].color;
    let uci = |v: Viewer| WebRecord::from_record(&rec, v).moves[i].uci.clone();
    let full = uci(Viewer::Referee);
    assert_eq!(uci(Viewer::Player(capturer)), full);
    assert!(uci(Viewer::Spectator).len() < full.len(), "{full}");
    assert!(uci(Viewer::Player(!capturer)).len() < full.len());
}

#[test]
fn tampered_files_are_rejected() {
    let e = pgn::read(&data("seed004_bad_reveal.pgn"))
        .unwrap()
        .verify()
        .unwrap_err();
    assert_eq!(e.ply, 3);
    assert_eq!(
        e.to_string(),
        "ply 3: the face-down piece on g0 is a rook under the deal, the record says horse"
    );
    let e = pgn::read(&data("seed004_bad_commitment.pgn"))
        .unwrap()
        .verify()
        .unwrap_err();
    assert_eq!(e.ply, 0);
    assert!(matches!(e.reason, VerifyReason::CommitmentMismatch { .. }));
    // With the right commitment it passes.
    let deal = Deal::parse("RNBAARNPCCPBPPP/rnbaabnrcpppcpp").unwrap();
    let good = data("seed004_bad_commitment.pgn").replace(
        "sha256:0000000000000000000000000000000000000000000000000000000000000000",
        &deal.commitment("abc"),
    );
    let report = pgn::read(&good).unwrap().verify().unwrap();
    assert!(report.commitment_checked && report.deal_checked);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    /// Damaged records (characters cut out or inserted) never panic a reader, and what
    /// is read can be verified and written.
    #[test]
    fn damaged_records_never_panic(cut in 0usize..8000, len in 0usize..8, insert in "[\\[\\]{}()\"0-9a-z;%.一进吃]{0,3}", which in 0..3u8) {
        let text = data(["seed004.pgn", "jieqibox_sample.json", "jieqibox_analysis.json"][usize::from(which)]);
        let chars: Vec<char> = text.chars().collect();
        let at = cut % chars.len();
        let end = (at + len).min(chars.len());
        let damaged: String = chars[..at].iter().collect::<String>() + &insert + &chars[end..].iter().collect::<String>();
        if let Ok(rec) = read_any(&damaged) {
            let verified = rec.verify().is_ok();
            let _ = write(&rec, Format::Web(Viewer::Spectator));
            // Our own JieqiBox output reads back and is written again unchanged.
            let json = jieqibox::write(&rec);
            let again = jieqibox::read(&json).unwrap_or_else(|e| panic!("{e}\n{json}"));
            prop_assert_eq!(jieqibox::write(&again), json);
            // Readers accept syntax and leave meaning to `verify`; a record that
            // verifies must survive a PGN round trip, any other must not panic in one.
            let back = pgn::read(&pgn::write(&rec, Notation::Iccs));
            if verified {
                prop_assert_eq!(back.unwrap().moves.len(), rec.moves.len());
            }
        }
    }
}
