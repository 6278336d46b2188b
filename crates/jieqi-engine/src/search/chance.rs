//! Chance nodes: the move of a face-down piece (暗子), valued over the identities it
//! may turn out to be (the model is in the docs of [`crate::search`]).

use jieqi_core::{Color, Move, Position, Reveals, Role};

use super::{DECISIVE, Searcher};

/// `a / b` rounded towards minus infinity.
fn floor_div(a: i64, b: i64) -> i64 {
    a.div_euclid(b)
}

/// `a / b` rounded towards plus infinity.
fn ceil_div(a: i64, b: i64) -> i64 {
    -((-a).div_euclid(b))
}

/// The weighted outcomes of revealing a face-down piece of `color`: distinct identities
/// in the pool with their counts, most likely first.
pub fn reveal_outcomes(pos: &Position, color: Color) -> ([(Role, u8); 6], usize) {
    let mut out = [(Role::Pawn, 0u8); 6];
    let mut n = 0;
    for r in Role::HIDDEN {
        let c = pos.pool().get(color, r);
        if c > 0 {
            out[n] = (r, c);
            n += 1;
        }
    }
    out[..n].sort_by_key(|o| std::cmp::Reverse(o.1));
    (out, n)
}

/// The total weight (count) of reveal `outcomes`.
fn total_weight(outcomes: &[(Role, u8)]) -> i64 {
    outcomes.iter().map(|o| i64::from(o.1)).sum()
}

impl Searcher<'_> {
    /// The value, for the side to move, of playing `m`: a chance node if the mover is
    /// face-down (see the module docs), else the negated value of the child.
    /// `depth` is the child's depth; `qs > 0` searches the child by quiescence instead,
    /// `qs` being the child's quiescence ply.
    ///
    /// The child is a PV node when this move's window is open (`beta - alpha > 1`),
    /// not by the window of each outcome: Star1 opens the window of an outcome far
    /// beyond the chance node's own (the first outcome is searched with nearly the
    /// whole decisive range), and a zero-window search must not turn into a PV search
    /// below a reveal (no table cut-offs, no pruning) just because of that.
    pub(super) fn child(
        &mut self,
        m: Move,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        qs: u32,
    ) -> i32 {
        let us = self.pos.turn();
        let pv = beta - alpha > 1;
        if !self.pos.board().is_hidden(m.from) {
            return self.outcome(m, None, depth, (alpha, beta), ply, qs, pv);
        }
        let (outcomes, n) = reveal_outcomes(&self.pos, us);
        if n <= 1 {
            let mover = (n == 1).then_some(outcomes[0].0);
            return self.outcome(m, mover, depth, (alpha, beta), ply, qs, pv);
        }
        if self.features.chance_windows {
            return self.chance_mean(m, &outcomes[..n], depth, (alpha, beta), ply, qs);
        }
        let total = total_weight(&outcomes[..n]);
        let (lo_bound, hi_bound) = (i64::from(-DECISIVE), i64::from(DECISIVE));
        let (a, b) = (i64::from(alpha), i64::from(beta));
        let mut sum = 0i64;
        let mut rest = total;
        for &(role, w) in &outcomes[..n] {
            let w = i64::from(w);
            rest -= w;
            let a_raw = floor_div(a * total - sum - rest * hi_bound, w);
            let b_raw = ceil_div(b * total - sum - rest * lo_bound, w);
            if a_raw > hi_bound {
                // Even the best outcome cannot lift the mean above alpha.
                return alpha;
            }
            if b_raw < lo_bound {
                return beta;
            }
            let lo = a_raw.max(lo_bound - 1);
            let hi = b_raw.min(hi_bound + 1);
            let window = (lo as i32, hi as i32);
            let v = self.outcome(m, Some(role), depth, window, ply, qs, pv);
            if self.aborted {
                return 0;
            }
            let v = i64::from(v);
            let value = if v <= lo {
                if lo >= lo_bound {
                    return alpha;
                }
                lo_bound
            } else if v >= hi {
                if hi <= hi_bound {
                    return beta;
                }
                hi_bound
            } else {
                v.clamp(lo_bound, hi_bound)
            };
            sum += w * value;
        }
        floor_div(sum, total) as i32
    }

    /// The value, for the side to move, of `m` played with the mover revealed as
    /// `mover` (`None`: not revealed), its child searched to `depth` (by quiescence at
    /// quiescence ply `qs` if `qs > 0`) with the window `(alpha, beta)` of this side,
    /// as a PV node if `pv`.
    #[allow(clippy::too_many_arguments)]
    fn outcome(
        &mut self,
        m: Move,
        mover: Option<Role>,
        depth: i32,
        (alpha, beta): (i32, i32),
        ply: usize,
        qs: u32,
        pv: bool,
    ) -> i32 {
        let u = self.make(
            m,
            Reveals {
                mover,
                captured: None,
            },
            depth,
        );
        let v = -self.node(depth, -beta, -alpha, ply + 1, qs, pv);
        self.unmake(u);
        v
    }

    /// The chance node of `m` (a face-down piece's move with these `outcomes`) under
    /// the move's own window: every outcome is searched with `(alpha, beta)` and the
    /// value is the weighted mean of the clamped fail-soft values (the module docs
    /// give the model and its error).
    fn chance_mean(
        &mut self,
        m: Move,
        outcomes: &[(Role, u8)],
        depth: i32,
        (alpha, beta): (i32, i32),
        ply: usize,
        qs: u32,
    ) -> i32 {
        // Chance values lie in [-DECISIVE, DECISIVE]: outside it the answer is known,
        // and a window reaching beyond it only needs to reach one past it.
        if alpha >= DECISIVE {
            return DECISIVE;
        }
        if beta <= -DECISIVE {
            return -DECISIVE;
        }
        let lo = alpha.max(-DECISIVE - 1);
        let hi = beta.min(DECISIVE + 1);
        let pv = beta - alpha > 1;
        let mut sum = 0i64;
        for &(role, w) in outcomes {
            let v = self.outcome(m, Some(role), depth, (lo, hi), ply, qs, pv);
            if self.aborted {
                return 0;
            }
            sum += i64::from(w) * i64::from(v.clamp(-DECISIVE, DECISIVE));
        }
        floor_div(sum, total_weight(outcomes)) as i32
    }
}
