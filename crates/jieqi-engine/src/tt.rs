//! The transposition table, shared lock-free between search threads.
//!
//! Keyed by [`jieqi_core::Position::hash`], which covers the board (face-down pieces
//! included), the side to move and both pools, so two positions that differ only in
//! what may still be hidden never share an entry. Each entry is two atomic words, the
//! key stored XOR the data, so a torn write between threads reads as a miss.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use jieqi_core::{Move, Square};

/// How a stored score bounds the true value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true value is at most the score (fail low).
    Upper = 1,
    /// The true value is at least the score (fail high).
    Lower = 2,
    /// The score is exact.
    Exact = 3,
}

/// A decoded entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The best or refuting move found, if any.
    pub mv: Option<Move>,
    /// The score (mate scores relative to the stored node).
    pub score: i32,
    /// The static evaluation.
    pub eval: i32,
    /// The remaining depth the score was searched to.
    pub depth: i32,
    /// What the score means.
    pub bound: Bound,
}

struct Slot {
    key: AtomicU64,
    data: AtomicU64,
}

/// The table.
pub struct Tt {
    slots: Vec<Slot>,
    mask: usize,
    generation: AtomicU8,
}

/// Encodes a move in 13 bits, 0 meaning none.
pub fn encode_move(m: Option<Move>) -> u64 {
    match m {
        None => 0,
        Some(m) => 1 + (m.from.index() * 90 + m.to.index()) as u64,
    }
}

/// Decodes [`encode_move`].
pub fn decode_move(code: u64) -> Option<Move> {
    if code == 0 || code > 8100 {
        return None;
    }
    let c = code - 1;
    let from = Square::new((c / 90) as u8)?;
    let to = Square::new((c % 90) as u8)?;
    Some(Move::new(from, to))
}

impl Tt {
    /// A table of about `mb` mebibytes (at least one entry; sizes round down to a power of two).
    pub fn new(mb: usize) -> Tt {
        let bytes = mb.max(1).saturating_mul(1 << 20);
        let want = (bytes / std::mem::size_of::<Slot>()).max(1);
        let n = if want.is_power_of_two() {
            want
        } else {
            want.next_power_of_two() / 2
        };
        let slots = (0..n)
            .map(|_| Slot {
                key: AtomicU64::new(0),
                data: AtomicU64::new(0),
            })
            .collect();
        Tt {
            slots,
            mask: n - 1,
            generation: AtomicU8::new(0),
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the table has no entries (never: it has at least one).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Forgets everything.
    pub fn clear(&self) {
        for s in &self.slots {
            s.key.store(0, Ordering::Relaxed);
            s.data.store(0, Ordering::Relaxed);
        }
    }

    /// Starts a new search: newer entries are preferred over older ones.
    pub fn new_search(&self) {
        let g = self.generation.load(Ordering::Relaxed);
        self.generation.store((g + 1) & 63, Ordering::Relaxed);
    }

    /// The entry for `key`, if stored.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let slot = &self.slots[key as usize & self.mask];
        let data = slot.data.load(Ordering::Relaxed);
        let k = slot.key.load(Ordering::Relaxed);
        if data == 0 || k ^ data != key {
            return None;
        }
        let bound = match (data >> 56) & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => return None,
        };
        Some(Entry {
            mv: decode_move(data & 0xffff),
            score: i32::from((data >> 16) as u16 as i16),
            eval: i32::from((data >> 32) as u16 as i16),
            depth: ((data >> 48) & 0xff) as i32,
            bound,
        })
    }

    /// Stores an entry for `key` (depth clamped to 0..=255), replacing what was there
    /// unless it is a deeper result of this search for the same position.
    #[inline]
    pub fn store(&self, key: u64, e: Entry) {
        let slot = &self.slots[key as usize & self.mask];
        let gen_now = u64::from(self.generation.load(Ordering::Relaxed));
        let old = slot.data.load(Ordering::Relaxed);
        let old_key = slot.key.load(Ordering::Relaxed) ^ old;
        let depth = e.depth.clamp(0, 255) as u64;
        let mut mv = encode_move(e.mv);
        if old != 0 && old_key == key {
            let old_depth = (old >> 48) & 0xff;
            let old_gen = old >> 58;
            if old_gen == gen_now && old_depth > depth + 2 && e.bound != Bound::Exact {
                return;
            }
            if mv == 0 {
                mv = old & 0xffff;
            }
        }
        let data = mv
            | (u64::from(e.score.clamp(-32000, 32000) as i16 as u16) << 16)
            | (u64::from(e.eval.clamp(-32000, 32000) as i16 as u16) << 32)
            | (depth << 48)
            | ((e.bound as u64) << 56)
            | (gen_now << 58);
        slot.data.store(data, Ordering::Relaxed);
        slot.key.store(key ^ data, Ordering::Relaxed);
    }

    /// Permille of sampled entries written during the current search.
    pub fn hashfull(&self) -> u32 {
        let gen_now = u64::from(self.generation.load(Ordering::Relaxed));
        let n = self.slots.len().min(1000);
        let used = self.slots[..n]
            .iter()
            .filter(|s| {
                let d = s.data.load(Ordering::Relaxed);
                d != 0 && d >> 58 == gen_now
            })
            .count();
        (used * 1000 / n) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe_round_trip() {
        let tt = Tt::new(1);
        let m = Move::new(Square::parse("h2").unwrap(), Square::parse("e2").unwrap());
        let e = Entry {
            mv: Some(m),
            score: -29990,
            eval: 123,
            depth: 7,
            bound: Bound::Lower,
        };
        tt.store(0xdead_beef_1234_5678, e);
        assert_eq!(tt.probe(0xdead_beef_1234_5678), Some(e));
        // Another key in the same slot is a miss, not a wrong hit.
        assert_eq!(tt.probe(0xdead_beef_1234_5678 ^ (1 << 40)), None);
        tt.clear();
        assert_eq!(tt.probe(0xdead_beef_1234_5678), None);
    }

    #[test]
    fn move_codes_round_trip() {
        for from in 0..90u8 {
            for to in [0u8, 44, 89] {
                let m = Move::new(Square::new(from).unwrap(), Square::new(to).unwrap());
                assert_eq!(decode_move(encode_move(Some(m))), Some(m));
            }
        }
        assert_eq!(decode_move(encode_move(None)), None);
    }
}
