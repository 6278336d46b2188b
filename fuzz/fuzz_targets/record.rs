#![no_main]
//! Any text as a record (PGN, JieqiBox JSON, web JSON), and as the comment of a PGN
//! move: never panics; a record that is read can be verified and written in every
//! format; its PGN reads back with the same moves, edits and engine data; its JieqiBox
//! JSON reads back and is written again unchanged.

use jieqi_core::Viewer;
use jieqi_core::notation::{Notation, Script};
use jieqi_core::record::{Format, Record, jieqibox, pgn, read_any, write};
use libfuzzer_sys::fuzz_target;

fn check(rec: &Record) {
    let _ = rec.verify();
    for f in [Format::Web(Viewer::Spectator), Format::Web(Viewer::Referee)] {
        let _ = write(rec, f);
    }
    for n in [Notation::Iccs, Notation::Chinese(Script::JieqiBox)] {
        let out = pgn::write(rec, n);
        let back = pgn::read(&out).expect("our own PGN reads back");
        assert_eq!(back.moves.len(), rec.moves.len());
        assert_eq!(back.adjustments.len(), rec.adjustments.len());
        for (a, b) in back.moves.iter().zip(&rec.moves) {
            assert_eq!(a.engine_score, b.engine_score);
            assert_eq!(a.engine_time, b.engine_time);
        }
    }
    let json = jieqibox::write(rec);
    let back = jieqibox::read(&json).expect("our own JieqiBox JSON reads back");
    assert_eq!(jieqibox::write(&back), json);
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(rec) = read_any(text) {
        check(&rec);
    }
    // The text as a comment (PGN commands: [%clk], [%eval], [%emt], [%fen], [%adjust]).
    let comment = text.replace('}', "");
    if let Ok(rec) = pgn::read(&format!("1. h2e2N {{{comment}}} *")) {
        check(&rec);
    }
});
