//! Pruning near the horizon: how much of a node may be skipped.

/// How many quiet moves late-move pruning lets through at `depth` (fewer when the
/// side to move is not improving).
pub(super) fn lmp_count(depth: i32, improving: bool) -> usize {
    let n = (3 + 2 * depth * depth) as usize;
    if improving { n } else { n * 2 / 3 }
}
