//! Search features that can be turned off one by one, for testing: an SPRT match of
//! the engine with a feature off against the engine with it on measures what the
//! feature is worth. Each is a UCI check option `Use <Name>`, default true.

/// Which search features are on. [`Features::default`] turns everything on (full
/// strength); turning a feature off removes exactly that feature from the search.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Features {
    /// Aspiration windows around the previous iteration's score (from depth 5 on);
    /// off: every iteration searches the full window.
    pub aspiration: bool,
    /// Null-move pruning.
    pub null_move: bool,
    /// Late-move reductions of quiet moves.
    pub lmr: bool,
    /// Killer moves in move ordering.
    pub killers: bool,
    /// The history heuristic in move ordering.
    pub history: bool,
    /// One more ply for a side in check.
    pub check_extension: bool,
    /// Quiescence search at the horizon; off: the static evaluation there.
    pub quiescence: bool,
    /// Reverse futility pruning (static evaluation far above beta near the horizon).
    pub reverse_futility: bool,
    /// Futility pruning of quiet moves near the horizon.
    pub futility: bool,
    /// Late-move pruning: skipping late quiet moves near the horizon.
    pub late_move_pruning: bool,
    /// Delta pruning of captures in quiescence that cannot reach alpha.
    pub delta_pruning: bool,
    /// Skipping likely losing captures in quiescence (a dearer piece taking a
    /// defended one), and reveals beyond the first quiescence ply.
    pub qs_pruning: bool,
    /// Cut-offs on transposition-table scores (the table still orders moves).
    pub tt_cutoffs: bool,
    /// The perpetual rules in the search (RULES.md §5): a side that checked (or, under
    /// the chase rule, chased) with one piece after every move of a repetition cycle, or
    /// after each of its last 9 moves, loses; off: every repetition is a draw and
    /// streaks are ignored.
    pub perpetual: bool,
    /// With more than one thread, work sharing: a thread defers a move another thread
    /// is searching right now ([`crate::busy`]); off: plain Lazy SMP.
    pub abdada: bool,
    /// Chance nodes search every reveal outcome with the move's own window and take
    /// the weighted mean of the fail-soft values (approximate, see [`crate::search`]);
    /// off: exact Star1 windows over the decisive range.
    pub chance_windows: bool,
    /// Under the move's own window, a chance node's mean takes each outcome's value
    /// clamped to `±CHANCE_CLAMP` (a won or lost outcome counts as a large
    /// advantage, not as a mate), unless every outcome lies beyond it on one side;
    /// off: clamped to the decisive range only.
    pub chance_clamp: bool,
    /// The improving flag: a side whose static evaluation rose since its previous
    /// move is pruned less (reverse futility, late-move pruning) and reduced less.
    pub improving: bool,
    /// The histories of quiet moves are kept from one search to the next of a game
    /// (per thread; `ucinewgame` forgets them); off: each search starts afresh.
    pub keep_history: bool,
    /// Late-move reductions adjusted by the history of the move: a quiet move with a
    /// good history is reduced less, one with a bad history more.
    pub history_lmr: bool,
}

impl Default for Features {
    fn default() -> Features {
        Features {
            aspiration: true,
            null_move: true,
            lmr: true,
            killers: true,
            history: true,
            check_extension: true,
            quiescence: true,
            reverse_futility: true,
            futility: true,
            late_move_pruning: true,
            delta_pruning: true,
            qs_pruning: true,
            tt_cutoffs: true,
            perpetual: true,
            abdada: true,
            chance_windows: true,
            chance_clamp: true,
            improving: true,
            keep_history: true,
            history_lmr: true,
        }
    }
}

/// A feature's flag in [`Features`].
pub type Flag = fn(&mut Features) -> &mut bool;

/// The UCI option name of each feature with the flag it sets.
pub const OPTIONS: &[(&str, Flag)] = &[
    ("Use Aspiration", |f| &mut f.aspiration),
    ("Use NullMove", |f| &mut f.null_move),
    ("Use LMR", |f| &mut f.lmr),
    ("Use Killers", |f| &mut f.killers),
    ("Use History", |f| &mut f.history),
    ("Use CheckExtension", |f| &mut f.check_extension),
    ("Use Quiescence", |f| &mut f.quiescence),
    ("Use ReverseFutility", |f| &mut f.reverse_futility),
    ("Use Futility", |f| &mut f.futility),
    ("Use LateMovePruning", |f| &mut f.late_move_pruning),
    ("Use DeltaPruning", |f| &mut f.delta_pruning),
    ("Use QSPruning", |f| &mut f.qs_pruning),
    ("Use TTCutoffs", |f| &mut f.tt_cutoffs),
    ("Use Perpetual", |f| &mut f.perpetual),
    ("Use ABDADA", |f| &mut f.abdada),
    ("Use ChanceWindows", |f| &mut f.chance_windows),
    ("Use ChanceClamp", |f| &mut f.chance_clamp),
    ("Use Improving", |f| &mut f.improving),
    ("Use KeepHistory", |f| &mut f.keep_history),
    ("Use HistoryLMR", |f| &mut f.history_lmr),
];

impl Features {
    /// Sets the feature named by the UCI option `name` (case-insensitive); false if no
    /// feature has that name.
    pub fn set(&mut self, name: &str, on: bool) -> bool {
        match OPTIONS.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
            Some((_, flag)) => {
                *flag(self) = on;
                true
            }
            None => false,
        }
    }

    /// Whether the feature named by the UCI option `name` is on (`None`: no such feature).
    pub fn get(&self, name: &str) -> Option<bool> {
        let mut f = *self;
        OPTIONS
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, flag)| *flag(&mut f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_sets_its_own_flag_only() {
        let all_on = Features::default();
        for (i, (name, _)) in OPTIONS.iter().enumerate() {
            let mut f = all_on;
            assert!(f.set(&name.to_ascii_lowercase(), false));
            assert_eq!(f.get(name), Some(false));
            assert_ne!(f, all_on, "{name}");
            for (j, (other, _)) in OPTIONS.iter().enumerate() {
                assert_eq!(f.get(other), Some(i != j), "{name} changed {other}");
            }
            assert!(f.set(name, true));
            assert_eq!(f, all_on);
        }
        let mut f = all_on;
        assert!(!f.set("Use Magic", false));
        assert_eq!(f.get("Use Magic"), None);
    }
}
