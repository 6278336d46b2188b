#![no_main]
//! Any text as a move in any notation (Chinese, WXF, ICCS), resolved against the start
//! position and a middlegame: never panics, anything accepted is legal, and it writes
//! back in every notation to the same move.

use jieqi_core::Position;
use jieqi_core::notation::{Notation, Script, read_move, write_move};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let fens = [
        jieqi_core::START_FEN,
        "1xx5P/1ba2k3/4pr3/2x1xpx1p/1A2C3b/9/2X1X1X1X/A7N/N3B3P/3PKX3 w B1R2P2n2r1c2 a1p1 5 28",
    ];
    for fen in fens {
        let pos = Position::from_fen(fen).unwrap();
        if let Ok((m, rv)) = read_move(&pos, text) {
            assert!(pos.is_legal(m));
            for n in [
                Notation::Chinese(Script::Simplified),
                Notation::Chinese(Script::Traditional),
                Notation::Wxf,
                Notation::Iccs,
            ] {
                let written = write_move(&pos, m, rv, n);
                assert_eq!(read_move(&pos, &written).unwrap(), (m, rv), "{written}");
            }
        }
    }
});
