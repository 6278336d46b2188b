//! Rule sets: the options of RULES.md that vary between events.

use crate::view::CapturedIdentity;

/// The options a game is played under.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct RuleSet {
    /// Name: `standard` or `tournament` for the presets.
    pub name: &'static str,
    /// Perpetual chase (长捉) loses; off in `standard`, on in `tournament`.
    pub chase_rule: bool,
    /// Who learns the identity of a captured face-down piece.
    pub captured_identity: CapturedIdentity,
    /// Plies without a capture that draw (80 = 40 rounds).
    pub no_capture_plies: u32,
    /// Consecutive checking (or chasing) moves of one side that lose (9 = more than 8 rounds).
    pub perpetual_moves: usize,
}

impl RuleSet {
    /// Casual play: no chase rule, the capturer learns captured identities.
    pub const STANDARD: RuleSet = RuleSet {
        name: "standard",
        chase_rule: false,
        captured_identity: CapturedIdentity::Capturer,
        no_capture_plies: 80,
        perpetual_moves: 9,
    };

    /// Tournament play: the perpetual chase rule is on.
    pub const TOURNAMENT: RuleSet = RuleSet {
        name: "tournament",
        chase_rule: true,
        ..RuleSet::STANDARD
    };

    /// The preset with this name (`standard`, `tournament`).
    pub fn by_name(name: &str) -> Option<RuleSet> {
        match name.to_ascii_lowercase().as_str() {
            "standard" => Some(RuleSet::STANDARD),
            "tournament" => Some(RuleSet::TOURNAMENT),
            _ => None,
        }
    }
}

impl Default for RuleSet {
    fn default() -> RuleSet {
        RuleSet::STANDARD
    }
}
