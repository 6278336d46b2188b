#![no_main]
//! Any text: reading a FEN never panics; whatever reads writes back to itself, and its
//! generated moves are legal (playing each keeps the mover's king safe).

use jieqi_core::{Position, Reveals, Role};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(pos) = Position::from_fen(text) else { return };
    let fen = pos.fen();
    let back = Position::from_fen(&fen).expect("a written FEN reads back");
    assert_eq!(back.fen(), fen);
    assert_eq!(pos.hash(), pos.compute_hash());
    for &m in pos.legal_moves().iter() {
        let mut p = pos.clone();
        let mover = Role::HIDDEN.into_iter().find(|&r| pos.pool().get(pos.turn(), r) > 0);
        let rv = Reveals { mover: if pos.board().is_hidden(m.from) { mover } else { None }, captured: None };
        let undo = p.play_unchecked(m, rv);
        assert!(!p.board().in_check(pos.turn()), "{m} leaves the king attacked in {fen}");
        p.unplay(undo);
        assert_eq!(p, pos);
    }
});
