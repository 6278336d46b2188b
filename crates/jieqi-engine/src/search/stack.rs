//! The search stack: one [`Frame`] per ply of the searched line, holding what the
//! search remembers about that ply (viridithas `stack.rs`, Stockfish `Stack`), so that
//! what belongs to one ply is kept together instead of in arrays kept in step by hand.
//!
//! The evaluation's accumulators are not on it: they follow the moves made along the
//! line (a null move makes none), not the plies.

use std::ops::{Index, IndexMut};

use jieqi_core::{Move, Square};

use super::{INF, MAX_PLY};

/// Frames on the stack: one per ply from the root to [`MAX_PLY`], and one beyond it
/// for the children of the deepest node.
const FRAMES: usize = MAX_PLY + 2;

/// What the search keeps about one ply of the searched line.
#[derive(Clone, Debug)]
pub(super) struct Frame {
    /// The latest two quiet moves that made a node at this ply fail high (killers),
    /// the latest first.
    pub killers: [Option<Move>; 2],
    /// The static evaluation of the line's node at this ply, for the improving flag;
    /// `-INF` when it was in check or not evaluated.
    pub static_eval: i32,
    /// The principal variation from this ply on, in its first `pv_len` moves.
    pv: [Move; MAX_PLY + 1],
    /// The length of `pv`.
    pv_len: usize,
}

impl Frame {
    /// A frame with no killers, no evaluation and an empty variation.
    fn new() -> Frame {
        Frame {
            killers: [None; 2],
            static_eval: -INF,
            pv: [Move::new(Square::E0, Square::E0); MAX_PLY + 1],
            pv_len: 0,
        }
    }

    /// Makes `m` the first killer, the previous first the second (unless `m` already
    /// is the first).
    pub fn add_killer(&mut self, m: Move) {
        if self.killers[0] != Some(m) {
            self.killers[1] = self.killers[0];
            self.killers[0] = Some(m);
        }
    }

    /// Empties the principal variation (done when a node is entered).
    pub fn clear_pv(&mut self) {
        self.pv_len = 0;
    }

    /// The principal variation from this ply on.
    pub fn pv(&self) -> &[Move] {
        &self.pv[..self.pv_len]
    }
}

/// The frames of the searched line, indexed by ply.
pub(super) struct Stack {
    /// One frame per ply, the root's first.
    frames: Box<[Frame]>,
}

impl Stack {
    /// A stack of empty frames.
    pub fn new() -> Stack {
        Stack {
            frames: vec![Frame::new(); FRAMES].into_boxed_slice(),
        }
    }

    /// Whether the side to move at `ply` is improving: its static evaluation is above
    /// the one of two plies before, when this side was last to move.
    pub fn improving(&self, ply: usize) -> bool {
        ply >= 2 && {
            let before = self.frames[ply - 2].static_eval;
            before > -INF && self.frames[ply].static_eval > before
        }
    }

    /// Sets the principal variation at `ply` to `m`, followed by the variation of the
    /// child at `ply + 1` if `extend` (a chance child's line depends on the reveal, so
    /// it is not followed).
    pub fn update_pv(&mut self, ply: usize, m: Move, extend: bool) {
        let (here, below) = self.frames.split_at_mut(ply + 1);
        let (frame, child) = (&mut here[ply], &below[0]);
        frame.pv[0] = m;
        let tail = if extend { child.pv_len } else { 0 };
        frame.pv[1..=tail].copy_from_slice(&child.pv[..tail]);
        frame.pv_len = 1 + tail;
    }
}

impl Index<usize> for Stack {
    type Output = Frame;

    fn index(&self, ply: usize) -> &Frame {
        &self.frames[ply]
    }
}

impl IndexMut<usize> for Stack {
    fn index_mut(&mut self, ply: usize) -> &mut Frame {
        &mut self.frames[ply]
    }
}
