//! The numbers of the search that are chosen, not derived, in one place: an SPRT
//! match of the engine with one of them changed measures what it is worth. Scores
//! are in centipawns, depths in plies.

// Move ordering: the bands of the ordering score, best first. A band's moves are
// searched before every move of the bands below it.

/// Ordering score of the hash move (the table's best move): first of all.
pub const HASH_MOVE_SCORE: i32 = 10_000_000;
/// Ordering score of a capture, before its MVV-LVA term: after the hash move,
/// before the killers (a capture's MVV-LVA term is far smaller than the gap).
pub const CAPTURE_SCORE: i32 = 1_000_000;
/// MVV-LVA: the victim's value counts this many times …
pub const MVV_WEIGHT: i32 = 16;
/// … and the attacker's value divided by this, so the victim decides and the
/// cheaper attacker breaks ties.
pub const LVA_DIVISOR: i32 = 16;
/// Ordering score of the first killer: after the captures, before the quiet moves.
pub const FIRST_KILLER_SCORE: i32 = 900_000;
/// Ordering score of the second killer, just below the first. Quiet moves scored
/// below it (by history alone) are the ones late-move pruning, futility pruning and
/// reductions may touch.
pub const SECOND_KILLER_SCORE: i32 = 899_000;

// History.

/// The largest history bonus of a cut-off (depth² up to this).
pub const HISTORY_MAX_BONUS: i32 = 400;
/// History scores saturate towards this (the gravity of the update).
pub const HISTORY_LIMIT: i32 = 16384;

// Reverse futility pruning.

/// Deepest remaining depth at which reverse futility prunes.
pub const RFP_MAX_DEPTH: i32 = 4;
/// Reverse futility margin per ply of remaining depth (one ply less when improving).
pub const RFP_MARGIN: i32 = 110;

// Null-move pruning.

/// Least remaining depth at which a null move is tried.
pub const NMP_MIN_DEPTH: i32 = 3;
/// Null-move reduction at any depth …
pub const NMP_BASE_REDUCTION: i32 = 3;
/// … plus one ply per this many plies of remaining depth.
pub const NMP_DEPTH_DIVISOR: i32 = 4;

// Late-move pruning.

/// Deepest remaining depth at which late quiet moves are pruned.
pub const LMP_MAX_DEPTH: i32 = 3;
/// Quiet moves let through at any depth …
pub const LMP_BASE: i32 = 3;
/// … plus this many times the square of the remaining depth.
pub const LMP_DEPTH_SQUARED: i32 = 2;
/// A side that is not improving gets `LMP_NOT_IMPROVING_NUM / LMP_NOT_IMPROVING_DEN`
/// of the quiet moves …
pub const LMP_NOT_IMPROVING_NUM: usize = 2;
/// … (the denominator of that fraction).
pub const LMP_NOT_IMPROVING_DEN: usize = 3;

// Futility pruning.

/// Deepest remaining depth at which futility prunes quiet moves.
pub const FUTILITY_MAX_DEPTH: i32 = 2;
/// Futility margin at any depth …
pub const FUTILITY_BASE: i32 = 100;
/// … plus this much per ply of remaining depth.
pub const FUTILITY_PER_DEPTH: i32 = 120;

// Late-move reductions: `LMR_BASE + ln(depth) · ln(move number) / LMR_DIVISOR` plies.

/// Least remaining depth at which quiet moves are reduced.
pub const LMR_MIN_DEPTH: i32 = 3;
/// Index in the ordering from which quiet moves are reduced (the first moves never).
pub const LMR_MIN_MOVE: usize = 3;
/// The constant term of the reduction (0.5 rounds it to the nearest ply).
pub const LMR_BASE: f64 = 0.5;
/// The divisor of the logarithmic term of the reduction.
pub const LMR_DIVISOR: f64 = 2.2;
/// A quiet move's history score divided by this comes off its reduction
/// (`Use HistoryLMR`): with scores within ±`HISTORY_LIMIT`, at most four plies either way.
pub const LMR_HISTORY_DIVISOR: i32 = 4096;

// Quiescence.

/// Delta pruning: a capture is skipped when even this much above the victim's value
/// cannot lift standing pat to alpha.
pub const DELTA_MARGIN: i32 = 200;
/// A capture by a piece dearer than the victim by more than this, of a defended
/// piece, is taken for a losing one.
pub const BAD_CAPTURE_MARGIN: i32 = 50;

// Chance nodes.

/// A reveal outcome counts at most this far from zero in a chance node's mean
/// (`Use ChanceClamp`): about two rooks, past which the outcome is as good as won or
/// lost, so that a small chance of a mate neither lures nor scares the side that
/// reveals out of proportion. PikaJieQi clamps its outcomes likewise (2 862 of its
/// units, a little over two of its rooks).
pub const CHANCE_CLAMP: i32 = 2000;

// Iterative deepening.

/// First depth searched with an aspiration window.
pub const ASPIRATION_MIN_DEPTH: u32 = 5;
/// The aspiration window's first half-width, doubled at each failure.
pub const ASPIRATION_DELTA: i32 = 25;
/// Past this half-width the window opens fully.
pub const ASPIRATION_MAX_DELTA: i32 = 600;

// Threads.

/// Least remaining depth at which threads share out the moves of a node.
pub const ABDADA_DEPTH: i32 = 2;
