//! Pruning and reductions near the horizon: how much of a node may be skipped or
//! searched shallower, from the numbers in [`super::tunables`].

use super::tunables::{
    FUTILITY_BASE, FUTILITY_PER_DEPTH, LMP_BASE, LMP_DEPTH_SQUARED, LMP_NOT_IMPROVING_DEN,
    LMP_NOT_IMPROVING_NUM, LMR_BASE, LMR_DIVISOR, LMR_HISTORY_DIVISOR, NMP_BASE_REDUCTION,
    NMP_DEPTH_DIVISOR, RFP_MARGIN,
};

/// How many quiet moves late-move pruning lets through at `depth` (fewer when the
/// side to move is not improving).
pub(super) fn lmp_count(depth: i32, improving: bool) -> usize {
    let n = (LMP_BASE + LMP_DEPTH_SQUARED * depth * depth) as usize;
    if improving {
        n
    } else {
        n * LMP_NOT_IMPROVING_NUM / LMP_NOT_IMPROVING_DEN
    }
}

/// How far above beta the static evaluation must be for reverse futility to cut at
/// `depth` (one ply's margin less when the side to move is improving).
pub(super) fn reverse_futility_margin(depth: i32, improving: bool) -> i32 {
    RFP_MARGIN * (depth - i32::from(improving))
}

/// How far below alpha the static evaluation must be for futility to skip the quiet
/// moves at `depth`.
pub(super) fn futility_margin(depth: i32) -> i32 {
    FUTILITY_BASE + FUTILITY_PER_DEPTH * depth
}

/// The reduction of the null-move search at `depth`.
pub(super) fn null_move_reduction(depth: i32) -> i32 {
    NMP_BASE_REDUCTION + depth / NMP_DEPTH_DIVISOR
}

/// The plies a quiet move's `history` score takes off its late-move reduction
/// (negative: adds), rounded towards zero.
pub(super) fn history_reduction(history: i32) -> i32 {
    history / LMR_HISTORY_DIVISOR
}

/// Rows and columns of the [`LmrTable`]: deeper depths and later moves share the last.
const LMR_TABLE_SIZE: usize = 64;

/// The base late-move reduction by remaining depth and index in the move ordering.
pub(super) struct LmrTable(Box<[[u8; LMR_TABLE_SIZE]; LMR_TABLE_SIZE]>);

impl LmrTable {
    /// The table of `LMR_BASE + ln(depth) · ln(index) / LMR_DIVISOR`, rounded down
    /// (zero at depth or index 0).
    pub fn new() -> LmrTable {
        let mut table = Box::new([[0u8; LMR_TABLE_SIZE]; LMR_TABLE_SIZE]);
        for (d, row) in table.iter_mut().enumerate().skip(1) {
            for (i, r) in row.iter_mut().enumerate().skip(1) {
                *r = (LMR_BASE + (d as f64).ln() * (i as f64).ln() / LMR_DIVISOR) as u8;
            }
        }
        LmrTable(table)
    }

    /// The base reduction of the move at `index` in the ordering of a node of `depth`.
    pub fn get(&self, depth: i32, index: usize) -> i32 {
        let last = LMR_TABLE_SIZE - 1;
        i32::from(self.0[(depth as usize).min(last)][index.min(last)])
    }
}
