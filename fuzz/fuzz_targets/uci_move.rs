#![no_main]
//! Any text as a coordinate move, resolved against the start position and a middlegame:
//! never panics, and anything accepted is legal and writes back.

use jieqi_core::{Position, UciMove};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(u) = UciMove::parse(text) else { return };
    assert_eq!(UciMove::parse(&u.to_string()).unwrap(), u);
    let fens = [
        jieqi_core::START_FEN,
        "1xx5P/1ba2k3/4pr3/2x1xpx1p/1A2C3b/9/2X1X1X1X/A7N/N3B3P/3PKX3 w B1R2P2n2r1c2 a1p1 5 28",
    ];
    for fen in fens {
        let pos = Position::from_fen(fen).unwrap();
        if let Ok((m, rv)) = u.resolve(&pos) {
            assert!(pos.is_legal(m));
            let mut p = pos.clone();
            p.play(m, rv).expect("a resolved move plays");
        }
    }
});
