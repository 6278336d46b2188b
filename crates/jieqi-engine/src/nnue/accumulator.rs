//! The accumulators of a searched line: one pair (Red's and Black's perspective) per
//! ply, each made from its parent by adding and subtracting the weight rows of the
//! inputs the move turned on and off ([`features::MoveChange`]): the mover leaves its
//! square, a reveal puts a face-up piece where a face-down one left, a capture removes
//! the taken piece, and pool inputs go as identities leave the pools. Taking a move
//! back pops a pair.

use jieqi_core::{Color, Material, Move, Piece, Position};

use super::features::{self, MoveChange};
use super::{Network, simd};

/// The accumulator pairs of the current line, root first.
#[derive(Clone, Debug)]
pub struct Accumulators<'a> {
    net: &'a Network,
    /// Per ply, `2 × hidden` lanes: Red's perspective, then Black's.
    data: Vec<i16>,
    top: usize,
}

impl<'a> Accumulators<'a> {
    /// The accumulators for a line starting at `root`.
    pub fn new(net: &'a Network, root: &Position) -> Accumulators<'a> {
        let mut a = Accumulators {
            net,
            data: vec![0; 2 * net.hidden() * 128],
            top: 0,
        };
        a.refresh(root);
        a
    }

    /// Recomputes the current pair from scratch for `pos`.
    pub fn refresh(&mut self, pos: &Position) {
        let h = self.net.hidden();
        let base = self.top * 2 * h;
        let (red, black) = self.data[base..base + 2 * h].split_at_mut(h);
        self.net.refresh(pos, Color::Red, red);
        self.net.refresh(pos, Color::Black, black);
    }

    /// Pushes the pair of the position `after` reached by the move `change`.
    #[inline]
    pub fn push(&mut self, change: &MoveChange, after: &Position) {
        let h = self.net.hidden();
        let w = 2 * h;
        self.grow();
        let (deltas, ok) = {
            let r = change.delta(Color::Red);
            let b = change.delta(Color::Black);
            (
                (r.unwrap_or_default(), b.unwrap_or_default()),
                r.is_some() && b.is_some(),
            )
        };
        self.top += 1;
        if !ok {
            self.refresh(after);
            return;
        }
        let (head, tail) = self.data.split_at_mut(self.top * w);
        let src = &head[(self.top - 1) * w..];
        let dst = &mut tail[..w];
        for (k, d) in [deltas.0, deltas.1].iter().enumerate() {
            let mut added: [&[i16]; features::MAX_ADDED] = [&[]; features::MAX_ADDED];
            let mut removed: [&[i16]; features::MAX_REMOVED] = [&[]; features::MAX_REMOVED];
            for (slot, &i) in added.iter_mut().zip(d.added()) {
                *slot = self.net.row(usize::from(i));
            }
            for (slot, &i) in removed.iter_mut().zip(d.removed()) {
                *slot = self.net.row(usize::from(i));
            }
            simd::update(
                &mut dst[k * h..(k + 1) * h],
                &src[k * h..(k + 1) * h],
                &added[..d.added_len],
                &removed[..d.removed_len],
            );
        }
    }

    /// Pushes the pair of `after`, reached by `m` from the position whose pieces on
    /// `m.from` and `m.to` were `moved` and `captured` and whose pools were
    /// `pool_before` (what the search knows when it makes a move).
    #[inline]
    pub fn push_move(
        &mut self,
        m: Move,
        moved: Option<Piece>,
        captured: Option<Piece>,
        pool_before: Material,
        after: &Position,
    ) {
        match (moved, after.piece_at(m.to)) {
            (Some(moved), Some(arrived)) => self.push(
                &MoveChange {
                    from: m.from,
                    to: m.to,
                    moved,
                    arrived,
                    captured,
                    pool_before,
                    pool_after: *after.pool(),
                },
                after,
            ),
            // Not a move of a piece: never from the generator; stay exact anyway.
            _ => {
                self.grow();
                self.top += 1;
                self.refresh(after);
            }
        }
    }

    /// The network evaluating.
    pub fn network(&self) -> &'a Network {
        self.net
    }

    fn grow(&mut self) {
        if (self.top + 2) * 2 * self.net.hidden() > self.data.len() {
            self.data.resize(self.data.len() * 2, 0);
        }
    }

    /// Pops the current pair (the move that pushed it is taken back).
    #[inline]
    pub fn pop(&mut self) {
        self.top -= 1;
    }

    /// The current accumulator from `perspective`.
    #[inline]
    pub fn current(&self, perspective: Color) -> &[i16] {
        let h = self.net.hidden();
        let base = self.top * 2 * h + perspective.index() * h;
        &self.data[base..base + h]
    }

    /// The evaluation of `pos` (the current position of the line) for its side to move.
    #[inline]
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let us = pos.turn();
        self.net
            .output(self.current(us), self.current(!us), self.net.bucket_of(pos))
    }
}
