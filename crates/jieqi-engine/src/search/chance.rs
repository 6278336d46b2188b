//! Chance nodes: the move of a face-down piece (暗子), valued over the identities it
//! may turn out to be (the model is in the docs of [`crate::search`]).

use jieqi_core::{Color, Move, Position, Reveals, Role};

use super::tunables::CHANCE_CLAMP;
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

/// The weighted mean of a chance node's outcome values. Each value counts clamped to
/// `±CHANCE_CLAMP` when `clamp` is on, unless every value lies at or beyond it on the
/// same side (a reveal that wins, or loses, whatever the piece), where the mean of the
/// values clamped to `±DECISIVE` is taken instead; without `clamp`, always the latter.
/// The value is monotone in each outcome, so bounds give bounds.
struct ChanceMean {
    clamp: bool,
    narrow: i64,
    wide: i64,
    total: i64,
    all_won: bool,
    all_lost: bool,
}

impl ChanceMean {
    fn new(clamp: bool) -> ChanceMean {
        ChanceMean {
            clamp,
            narrow: 0,
            wide: 0,
            total: 0,
            all_won: true,
            all_lost: true,
        }
    }

    fn add(&mut self, v: i32, weight: u8) {
        let w = i64::from(weight);
        self.narrow += w * i64::from(v.clamp(-CHANCE_CLAMP, CHANCE_CLAMP));
        self.wide += w * i64::from(v.clamp(-DECISIVE, DECISIVE));
        self.total += w;
        self.all_won &= v >= CHANCE_CLAMP;
        self.all_lost &= v <= -CHANCE_CLAMP;
    }

    fn value(&self) -> i32 {
        let sum = if !self.clamp || self.all_won || self.all_lost {
            self.wide
        } else {
            self.narrow
        };
        floor_div(sum, self.total) as i32
    }
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
        let mut mean = ChanceMean::new(self.features.chance_clamp);
        for &(role, w) in outcomes {
            let v = self.outcome(m, Some(role), depth, (lo, hi), ply, qs, pv);
            if self.aborted {
                return 0;
            }
            mean.add(v, w);
        }
        mean.value()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean(clamp: bool, outcomes: &[(i32, u8)]) -> i32 {
        let mut m = ChanceMean::new(clamp);
        for &(v, w) in outcomes {
            m.add(v, w);
        }
        m.value()
    }

    #[test]
    fn a_mate_among_the_outcomes_counts_as_a_large_advantage() {
        // One chance in five of a mate, else a pawn down.
        let outcomes = [(29_990, 1), (-100, 4)];
        assert_eq!(mean(true, &outcomes), (CHANCE_CLAMP - 400) / 5);
        assert_eq!(mean(false, &outcomes), (DECISIVE - 400) / 5);
        let lost = [(-29_990, 1), (100, 4)];
        assert_eq!(mean(true, &lost), (-CHANCE_CLAMP + 400) / 5);
    }

    #[test]
    fn a_reveal_won_or_lost_whatever_the_piece_keeps_its_size() {
        let won = [(29_990, 1), (CHANCE_CLAMP, 2), (5_000, 1)];
        assert_eq!(mean(true, &won), mean(false, &won));
        assert_eq!(mean(true, &won), (DECISIVE + 2 * CHANCE_CLAMP + 5_000) / 4);
        let lost = [(-29_990, 2), (-CHANCE_CLAMP, 1)];
        assert_eq!(mean(true, &lost), mean(false, &lost));
    }

    #[test]
    fn the_clamped_mean_is_monotone_in_each_outcome() {
        let values = [
            -29_990,
            -DECISIVE,
            -CHANCE_CLAMP - 1,
            -CHANCE_CLAMP,
            -50,
            0,
            700,
            CHANCE_CLAMP - 1,
            CHANCE_CLAMP,
            4_000,
            29_990,
        ];
        for &a in &values {
            for &b in &values {
                let mut last = i32::MIN;
                for &c in &values {
                    let v = mean(true, &[(a, 2), (b, 1), (c, 3)]);
                    assert!(v >= last, "{a} {b} {c}: {v} after {last}");
                    last = v;
                }
            }
        }
    }
}
