//! Limits on attempts (failed logins per account and per address, sign-ups per
//! address): a sliding window of the last attempts per key.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

/// Keys kept before stale ones are swept, so that the table cannot grow without bound.
const SWEEP_AT: usize = 10_000;

/// The server's limits on account attempts (from [`crate::Limits`]).
pub struct AccountLimits {
    /// Failed logins per account (by name key).
    pub login_failures_per_account: Attempts<String>,
    /// Failed logins per client address.
    pub login_failures_per_address: Attempts<IpAddr>,
    /// Sign-ups per client address.
    pub signups_per_address: Attempts<IpAddr>,
}

impl AccountLimits {
    /// The limits set in `limits`.
    pub fn new(limits: &crate::Limits) -> AccountLimits {
        AccountLimits {
            login_failures_per_account: Attempts::new(
                limits.login_failures_per_account,
                limits.login_window,
            ),
            login_failures_per_address: Attempts::new(
                limits.login_failures_per_address,
                limits.login_window,
            ),
            signups_per_address: Attempts::new(
                limits.signups_per_address_hour,
                Duration::from_secs(3600),
            ),
        }
    }
}

/// At most `limit` attempts per key in any `window`.
pub struct Attempts<K> {
    limit: usize,
    window: Duration,
    seen: Mutex<HashMap<K, VecDeque<Instant>>>,
}

impl<K: Eq + Hash + Clone> Attempts<K> {
    /// A limiter of `limit` attempts per `window`.
    pub fn new(limit: usize, window: Duration) -> Attempts<K> {
        Attempts {
            limit,
            window,
            seen: Mutex::new(HashMap::new()),
        }
    }

    /// `Err(wait)` if `key` has used up its attempts at `now`: another is allowed after
    /// `wait`.
    pub fn check(&self, key: &K, now: Instant) -> Result<(), Duration> {
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        let Some(q) = seen.get_mut(key) else {
            return Ok(());
        };
        self.forget_old(q, now);
        if q.len() < self.limit {
            return Ok(());
        }
        let oldest = q.front().copied().unwrap_or(now);
        Err((oldest + self.window).saturating_duration_since(now))
    }

    /// Counts an attempt of `key` at `now`.
    pub fn record(&self, key: &K, now: Instant) {
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        if seen.len() >= SWEEP_AT {
            seen.retain(|_, q| {
                q.back()
                    .is_some_and(|&t| now.duration_since(t) < self.window)
            });
        }
        let q = seen.entry(key.clone()).or_default();
        self.forget_old(q, now);
        q.push_back(now);
        while q.len() > self.limit {
            q.pop_front();
        }
    }

    /// Forgets `key`'s attempts (a successful login clears the account's failures).
    pub fn clear(&self, key: &K) {
        self.seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(key);
    }

    fn forget_old(&self, q: &mut VecDeque<Instant>, now: Instant) {
        while q
            .front()
            .is_some_and(|&t| now.duration_since(t) >= self.window)
        {
            q.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_attempt_past_the_limit_waits_for_the_oldest_to_age() {
        let a = Attempts::new(3, Duration::from_secs(60));
        let t0 = Instant::now();
        for i in 0..3 {
            assert_eq!(a.check(&"x", t0), Ok(()), "attempt {i}");
            a.record(&"x", t0 + Duration::from_secs(i));
        }
        let now = t0 + Duration::from_secs(10);
        assert_eq!(a.check(&"x", now), Err(Duration::from_secs(50)));
        assert_eq!(a.check(&"y", now), Ok(()), "other keys are free");
        assert_eq!(a.check(&"x", t0 + Duration::from_secs(60)), Ok(()));
        a.clear(&"x");
        assert_eq!(a.check(&"x", now), Ok(()));
    }
}
