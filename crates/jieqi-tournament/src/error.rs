//! What can go wrong when directing an event.

/// A refused operation, with a message the organiser can act on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TournamentError {
    /// A name or number that matches no player.
    #[error("no player {0:?} (give a name or a start number)")]
    UnknownPlayer(String),
    /// Names must be unique and non-empty.
    #[error("a player named {0:?} is already entered (names must be unique and non-empty)")]
    DuplicateName(String),
    /// The field is fixed once play has begun (round robin, knockout, after the cut).
    #[error("players cannot be added now: {0}")]
    FieldFixed(&'static str),
    /// Too few players for the format.
    #[error("{have} active player(s); this format needs at least {need}")]
    NotEnoughPlayers {
        /// Minimum.
        need: usize,
        /// Present.
        have: usize,
    },
    /// The previous round still has games without results.
    #[error("round {round} is not finished: board(s) {boards:?} have no result")]
    RoundIncomplete {
        /// Round number.
        round: usize,
        /// Boards without result.
        boards: Vec<usize>,
    },
    /// Every round has been played.
    #[error("the event is finished; there is nothing left to pair")]
    Finished,
    /// No round with that number.
    #[error("there is no round {0}")]
    NoSuchRound(usize),
    /// No board with that number in the round.
    #[error("round {round} has no board {board}")]
    NoSuchBoard {
        /// Round number.
        round: usize,
        /// Board number.
        board: usize,
    },
    /// A result exists; correcting it must be asked for explicitly.
    #[error(
        "round {round} board {board} already has the result {old}; pass --correct to change it"
    )]
    AlreadyHasResult {
        /// Round number.
        round: usize,
        /// Board number.
        board: usize,
        /// The result on file.
        old: &'static str,
    },
    /// A correction that would invalidate later play.
    #[error("cannot change round {round}: {why}")]
    CorrectionRefused {
        /// Round number.
        round: usize,
        /// Why.
        why: &'static str,
    },
    /// Re-pairing is only for rounds without results.
    #[error("round {0} has started (results are entered); it cannot be re-paired")]
    RoundStarted(usize),
    /// Nothing to unpair.
    #[error("no round has been paired yet")]
    NoRounds,
    /// Organiser mode without the right number of deals.
    #[error(
        "organiser deals: give one deal for every board or one per board ({boards} boards), not {given}"
    )]
    OrganiserDeals {
        /// Boards in the round.
        boards: usize,
        /// Deals given.
        given: usize,
    },
    /// A joint contribution where none is expected.
    #[error("round {round} board {board}: {why}")]
    Contribution {
        /// Round number.
        round: usize,
        /// Board number.
        board: usize,
        /// Why it was refused.
        why: &'static str,
    },
    /// Settings that make no event.
    #[error("bad settings: {0}")]
    Settings(String),
    /// A saved state that is inconsistent (hand-edited or damaged).
    #[error("the tournament file is inconsistent: {0}")]
    Invalid(String),
    /// A saved state that is not valid JSON of the right shape.
    #[error("the tournament file is not readable: {0}")]
    Parse(String),
}
