//! Time management: how long one search may take.

use std::time::Duration;

use jieqi_core::Color;

use crate::Limits;

/// The time a search aims for (`soft`: do not start another iteration past
/// [`NEW_ITERATION_SHARE`] of it; none for a fixed move time, which is all used) and may
/// never exceed (`hard`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Target time; iterative deepening stops starting new depths near it.
    pub soft: Option<Duration>,
    /// Absolute limit; the search is aborted when it passes.
    pub hard: Option<Duration>,
}

/// How many moves the clock is planned to last without `movestogo`. Jieqi games are
/// short (in the 10 s + 0.1 s gauntlet of BENCHMARKS.md the median game is 33 moves a
/// side, a quarter end by move 26), and planning for 40 left about 7 s of 10 unused.
pub const MOVES_HORIZON: u32 = 20;

/// The share of the planned time (numerator, denominator) after which no new iteration
/// is started: the next one would rarely finish before the hard limit.
pub const NEW_ITERATION_SHARE: (u32, u32) = (2, 5);

impl Budget {
    /// Whether a search that has run `elapsed` may start another iteration.
    pub fn may_deepen(&self, elapsed: Duration) -> bool {
        let (num, den) = NEW_ITERATION_SHARE;
        self.soft.is_none_or(|soft| elapsed < soft * num / den)
    }
}

/// Works out the budget for `turn` from the limits and the move overhead (the time lost
/// between the GUI's clock and ours, per move).
pub fn budget(limits: &Limits, turn: Color, overhead: Duration) -> Budget {
    if limits.infinite {
        return Budget {
            soft: None,
            hard: None,
        };
    }
    let mut soft: Option<Duration> = None;
    let mut hard: Option<Duration> = None;
    if let Some(mt) = limits.movetime {
        // The overhead comes off, but never more than a quarter of a short move time
        // (in-process callers asking for 20 ms still get 15 ms of search).
        let t = mt
            .saturating_sub(overhead.min(mt / 4))
            .max(Duration::from_millis(1));
        // No soft limit: a fixed move time is all spent, since an iteration cut short
        // still gives the move it has proven (`engine::iterate`).
        hard = Some(t);
    }
    let (time, inc) = match turn {
        Color::Red => (limits.wtime, limits.winc),
        Color::Black => (limits.btime, limits.binc),
    };
    if let Some(time) = time {
        let inc = inc.unwrap_or(Duration::ZERO);
        // Keep a reserve: the overhead and a little more for each move to come.
        let left = time.saturating_sub(overhead);
        let moves = limits.movestogo.map_or(MOVES_HORIZON, |m| m.clamp(1, 50));
        let base = left / moves + inc * 3 / 4;
        // Never plan to use more than a fraction of what is left.
        let cap = left * 2 / 5;
        let s = base.min(cap).max(Duration::from_millis(1));
        let h = (s * 2).min(left / 4).max(Duration::from_millis(1));
        soft = Some(soft.map_or(s, |x| x.min(s)));
        hard = Some(hard.map_or(h, |x| x.min(h)));
    }
    Budget { soft, hard }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_stay_inside_the_clock() {
        let ms = Duration::from_millis;
        let l = Limits {
            wtime: Some(ms(10_000)),
            winc: Some(ms(100)),
            ..Limits::default()
        };
        let b = budget(&l, Color::Red, ms(50));
        assert!(b.hard.unwrap() <= ms(10_000) / 4);
        assert!(b.soft.unwrap() <= b.hard.unwrap());
        // Nearly flagged: still a positive budget well below the time left.
        let l = Limits {
            btime: Some(ms(60)),
            binc: Some(ms(100)),
            ..Limits::default()
        };
        let b = budget(&l, Color::Black, ms(50));
        assert!(b.hard.unwrap() <= ms(3));
        let l = Limits {
            movetime: Some(ms(500)),
            ..Limits::default()
        };
        assert_eq!(budget(&l, Color::Red, ms(20)).hard, Some(ms(480)));
        assert_eq!(budget(&l, Color::Red, ms(20)).soft, None);
        // A clock as well: its plan is the soft limit, the smaller limit the hard one.
        let both = Limits {
            wtime: Some(ms(100_000)),
            ..l.clone()
        };
        let b = budget(&both, Color::Red, ms(20));
        assert_eq!(b.soft, Some(ms(99_980) / MOVES_HORIZON));
        assert_eq!(b.hard, Some(ms(480)));
        let short = Limits {
            movetime: Some(ms(20)),
            ..Limits::default()
        };
        assert_eq!(budget(&short, Color::Red, ms(50)).hard, Some(ms(15)));
        let l = Limits {
            infinite: true,
            ..l
        };
        assert_eq!(budget(&l, Color::Red, ms(20)).hard, None);
    }

    #[test]
    fn new_iterations_stop_at_the_share_of_the_plan() {
        let ms = Duration::from_millis;
        let (num, den) = NEW_ITERATION_SHARE;
        let b = Budget {
            soft: Some(ms(1000)),
            hard: Some(ms(2000)),
        };
        let share = ms(1000) * num / den;
        assert!(b.may_deepen(share - ms(1)));
        assert!(!b.may_deepen(share));
        // No plan (fixed move time, infinite): deepening is never stopped by the clock.
        let none = Budget {
            soft: None,
            hard: Some(ms(500)),
        };
        assert!(none.may_deepen(ms(10_000)));
    }
}
