#![no_main]
//! Any text as a record (PGN, JieqiBox JSON, web JSON): never panics; a record that is
//! read can be verified and written in every format, and its PGN reads back.

use jieqi_core::Viewer;
use jieqi_core::notation::Notation;
use jieqi_core::record::{Format, pgn, read_any, write};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(rec) = read_any(text) else { return };
    let _ = rec.verify();
    for f in [
        Format::JieqiBox,
        Format::Web(Viewer::Spectator),
        Format::Web(Viewer::Referee),
    ] {
        let _ = write(&rec, f);
    }
    let out = pgn::write(&rec, Notation::Iccs);
    let back = pgn::read(&out).expect("our own PGN reads back");
    assert_eq!(back.moves.len(), rec.moves.len());
});
