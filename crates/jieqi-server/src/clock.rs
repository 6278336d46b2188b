//! Time controls and the server's clocks: game time (局时) with an increment, and an
//! optional step time (步时) per move (RULES.md §5).

use std::time::Duration;

use jieqi_core::{ByColor, Color};
use tokio::time::Instant;

/// A time control: `base` minutes for the game, `increment` seconds after each own
/// move, and optionally a limit on every single move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Game time 局时 at the start, per side.
    pub base_ms: u64,
    /// Added to the mover's game time after each move.
    pub increment_ms: u64,
    /// Step time 步时: the longest one move may take.
    pub move_ms: Option<u64>,
}

/// Why a time control text was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimeControlError {
    /// Not `M+S`, `M` or `none`.
    #[error(
        "time {0:?}: expected \"M+S\" (minutes + seconds increment, e.g. \"10+5\"), \"M\" or \"none\""
    )]
    Syntax(String),
    /// Minutes out of range.
    #[error("time {0:?}: minutes must be 1 to 180")]
    Minutes(String),
    /// Increment out of range.
    #[error("time {0:?}: the increment must be 0 to 60 seconds")]
    Increment(String),
    /// Step time out of range.
    #[error("move_time {0}: must be 5 to 600 seconds")]
    MoveTime(u64),
    /// Step time without a clock.
    #[error("move_time needs a clock: time \"none\" has none")]
    MoveTimeWithoutClock,
}

impl TimeControl {
    /// Parses `"10+5"`, `"10"` or `"none"` (→ `None`), with an optional step time in
    /// seconds.
    pub fn parse(
        time: &str,
        move_time_s: Option<u64>,
    ) -> Result<Option<TimeControl>, TimeControlError> {
        let t = time.trim();
        if t.eq_ignore_ascii_case("none") {
            return match move_time_s {
                Some(_) => Err(TimeControlError::MoveTimeWithoutClock),
                None => Ok(None),
            };
        }
        let (m, s) = t.split_once('+').unwrap_or((t, "0"));
        let syntax = || TimeControlError::Syntax(time.to_string());
        let minutes: u64 = m.trim().parse().map_err(|_| syntax())?;
        let secs: u64 = s.trim().parse().map_err(|_| syntax())?;
        if !(1..=180).contains(&minutes) {
            return Err(TimeControlError::Minutes(time.to_string()));
        }
        if secs > 60 {
            return Err(TimeControlError::Increment(time.to_string()));
        }
        if let Some(mt) = move_time_s
            && !(5..=600).contains(&mt)
        {
            return Err(TimeControlError::MoveTime(mt));
        }
        Ok(Some(TimeControl {
            base_ms: minutes * 60_000,
            increment_ms: secs * 1000,
            move_ms: move_time_s.map(|s| s * 1000),
        }))
    }

    /// The `M+S` text (the step time is not part of it).
    pub fn text(&self) -> String {
        format!("{}+{}", self.base_ms / 60_000, self.increment_ms / 1000)
    }
}

/// The text of an optional time control: `M+S` or `none`.
pub fn time_text(tc: Option<&TimeControl>) -> String {
    tc.map_or_else(|| "none".to_string(), TimeControl::text)
}

/// Both sides' clocks of one game. Time is charged only to the running side, from the
/// instant its turn began.
#[derive(Clone, Debug)]
pub struct Clock {
    tc: TimeControl,
    remaining: ByColor<u64>,
    running: Option<(Color, Instant)>,
}

/// The running side's time ran out.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Flagged(pub Color);

impl Clock {
    /// Fresh clocks, not running.
    pub fn new(tc: TimeControl) -> Clock {
        Clock {
            tc,
            remaining: ByColor {
                red: tc.base_ms,
                black: tc.base_ms,
            },
            running: None,
        }
    }

    /// Clocks restored with the given remaining game times (after a restart).
    pub fn restored(tc: TimeControl, remaining: ByColor<u64>) -> Clock {
        Clock {
            tc,
            remaining,
            running: None,
        }
    }

    /// The time control.
    pub fn control(&self) -> &TimeControl {
        &self.tc
    }

    /// Starts `color`'s turn at `now`.
    pub fn start(&mut self, color: Color, now: Instant) {
        self.running = Some((color, now));
    }

    /// Stops the clocks, charging the running side.
    pub fn stop(&mut self, now: Instant) {
        if let Some((c, since)) = self.running.take() {
            let used = ms_between(since, now);
            self.remaining[c] = self.remaining[c].saturating_sub(used);
        }
    }

    /// The side whose clock runs.
    pub fn running(&self) -> Option<Color> {
        self.running.map(|(c, _)| c)
    }

    /// `color`'s game time left at `now`.
    pub fn left(&self, color: Color, now: Instant) -> u64 {
        match self.running {
            Some((c, since)) if c == color => {
                self.remaining[c].saturating_sub(ms_between(since, now))
            }
            _ => self.remaining[color],
        }
    }

    /// Step time left for the running side's move at `now`.
    pub fn move_left(&self, now: Instant) -> Option<u64> {
        let (_, since) = self.running?;
        let limit = self.tc.move_ms?;
        Some(limit.saturating_sub(ms_between(since, now)))
    }

    /// When the running side's game time or step time reaches zero.
    pub fn deadline(&self) -> Option<(Color, Instant)> {
        let (c, since) = self.running?;
        let mut budget = self.remaining[c];
        if let Some(m) = self.tc.move_ms {
            budget = budget.min(m);
        }
        Some((c, since + Duration::from_millis(budget)))
    }

    /// Whether the running side has run out of time at `now`.
    pub fn flagged(&self, now: Instant) -> Option<Flagged> {
        let (c, _) = self.running?;
        let out = self.left(c, now) == 0 || self.move_left(now) == Some(0);
        out.then_some(Flagged(c))
    }

    /// The running side moved at `now`: charges it, adds the increment and starts the
    /// other side. Returns the mover's game time left, or the flag if it was too late.
    pub fn moved(&mut self, now: Instant) -> Result<u64, Flagged> {
        let Some((c, since)) = self.running else {
            return Ok(0);
        };
        if let Some(f) = self.flagged(now) {
            return Err(f);
        }
        let used = ms_between(since, now);
        self.remaining[c] = self.remaining[c].saturating_sub(used) + self.tc.increment_ms;
        self.running = Some((!c, now));
        Ok(self.remaining[c])
    }

    /// Game time left for both sides, as stored (not counting the running turn).
    pub fn stored(&self) -> ByColor<u64> {
        self.remaining
    }
}

fn ms_between(a: Instant, b: Instant) -> u64 {
    u64::try_from(b.saturating_duration_since(a).as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_time_controls() {
        let tc = TimeControl::parse("10+5", Some(60)).unwrap().unwrap();
        assert_eq!(tc.base_ms, 600_000);
        assert_eq!(tc.increment_ms, 5_000);
        assert_eq!(tc.move_ms, Some(60_000));
        assert_eq!(tc.text(), "10+5");
        assert_eq!(
            TimeControl::parse("3", None).unwrap().unwrap().text(),
            "3+0"
        );
        assert_eq!(TimeControl::parse("none", None).unwrap(), None);
        assert!(TimeControl::parse("none", Some(30)).is_err());
        assert!(TimeControl::parse("0+5", None).is_err());
        assert!(TimeControl::parse("10+61", None).is_err());
        assert!(TimeControl::parse("x+1", None).is_err());
        assert!(TimeControl::parse("10+5", Some(1)).is_err());
    }

    #[test]
    fn charges_only_the_running_side_and_adds_increment() {
        let tc = TimeControl::parse("1+2", Some(10)).unwrap().unwrap();
        let mut c = Clock::new(tc);
        let t0 = Instant::now();
        c.start(Color::Red, t0);
        assert_eq!(c.left(Color::Black, t0 + Duration::from_secs(5)), 60_000);
        assert_eq!(c.left(Color::Red, t0 + Duration::from_secs(5)), 55_000);
        assert_eq!(c.move_left(t0 + Duration::from_secs(5)), Some(5_000));
        assert_eq!(c.moved(t0 + Duration::from_secs(5)), Ok(57_000));
        assert_eq!(c.running(), Some(Color::Black));
        // Black exceeds the 10 s step time although it has game time left.
        let late = t0 + Duration::from_secs(16);
        assert_eq!(c.flagged(late), Some(Flagged(Color::Black)));
        assert_eq!(c.moved(late), Err(Flagged(Color::Black)));
        let (who, at) = c.deadline().unwrap();
        assert_eq!(who, Color::Black);
        assert_eq!(at, t0 + Duration::from_secs(15));
    }

    #[test]
    fn game_time_runs_out_before_step_time() {
        let tc = TimeControl::parse("1+0", Some(600)).unwrap().unwrap();
        let mut c = Clock::restored(
            tc,
            ByColor {
                red: 3_000,
                black: 60_000,
            },
        );
        let t0 = Instant::now();
        c.start(Color::Red, t0);
        assert_eq!(c.deadline().unwrap().1, t0 + Duration::from_secs(3));
        assert_eq!(c.flagged(t0 + Duration::from_millis(2_999)), None);
        assert_eq!(
            c.flagged(t0 + Duration::from_secs(3)),
            Some(Flagged(Color::Red))
        );
        c.stop(t0 + Duration::from_secs(1));
        assert_eq!(c.stored().red, 2_000);
        assert_eq!(c.running(), None);
    }
}
