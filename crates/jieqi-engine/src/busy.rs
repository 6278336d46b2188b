//! Which moves other search threads are searching right now (for ABDADA-style work
//! sharing between the threads of one search).
//!
//! With several threads on one shared table (Lazy SMP) the threads mostly search the
//! same moves in the same order, and a second thread does little but repeat the
//! first. Here a thread that is about to search a move (other than the first) of a node
//! deep enough first asks whether another thread is already searching that move of
//! that position; if so it defers the move to the end of its list and does other work.
//! By the time it comes back, the other thread has usually stored the result in the
//! transposition table and the deferred search is a table hit. The marks are advisory:
//! a lost or stale mark changes only the order of the moves, never a value.

use std::sync::atomic::{AtomicU64, Ordering};

use jieqi_core::Move;

/// Slots in the table (a power of two). At most a few dozen moves are in progress per
/// thread at a time, so collisions between unrelated moves are rare.
const SLOTS: usize = 1 << 14;

/// The table of moves in progress, shared by the threads of a search.
pub struct Busy {
    slots: Box<[AtomicU64]>,
}

impl Default for Busy {
    fn default() -> Busy {
        Busy::new()
    }
}

impl Busy {
    /// An empty table.
    pub fn new() -> Busy {
        Busy {
            slots: (0..SLOTS).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// The mark of move `m` in the position with hash `key` (never 0).
    #[inline]
    pub fn mark_of(key: u64, m: Move) -> u64 {
        let code = (m.from.index() * 90 + m.to.index()) as u64 + 1;
        (key ^ code.wrapping_mul(0x9E37_79B9_7F4A_7C15)).max(1)
    }

    #[inline]
    fn slot(&self, mark: u64) -> &AtomicU64 {
        &self.slots[(mark >> 50) as usize & (SLOTS - 1)]
    }

    /// Whether some thread marked `mark` and has not cleared it.
    #[inline]
    pub fn contains(&self, mark: u64) -> bool {
        self.slot(mark).load(Ordering::Relaxed) == mark
    }

    /// Marks `mark` as in progress (replacing whatever shared its slot).
    #[inline]
    pub fn enter(&self, mark: u64) {
        self.slot(mark).store(mark, Ordering::Relaxed);
    }

    /// Clears `mark` if its slot still holds it.
    #[inline]
    pub fn leave(&self, mark: u64) {
        let _ = self
            .slot(mark)
            .compare_exchange(mark, 0, Ordering::Relaxed, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jieqi_core::Square;

    #[test]
    fn marks_come_and_go() {
        let b = Busy::new();
        let m = Move::new(Square::parse("h2").unwrap(), Square::parse("e2").unwrap());
        let other = Move::new(Square::parse("b2").unwrap(), Square::parse("e2").unwrap());
        let key = 0x1234_5678_9abc_def0;
        let (a, c) = (Busy::mark_of(key, m), Busy::mark_of(key, other));
        assert_ne!(a, c);
        assert_ne!(Busy::mark_of(key ^ 1, m), a);
        assert!(!b.contains(a));
        b.enter(a);
        assert!(b.contains(a));
        assert!(!b.contains(c));
        b.leave(c);
        assert!(b.contains(a), "leaving another mark keeps this one");
        b.leave(a);
        assert!(!b.contains(a));
    }
}
