//! Jieqi (揭棋) tournament director: pure logic, no I/O.
//!
//! - [`Tournament`]: the whole event as one serialisable value (players, rounds,
//!   bracket, committed deals) with the director's operations: add players, pair,
//!   enter and correct results, unpair and re-pair, standings and places.
//! - Formats ([`Format`]): Swiss in the spirit of the FIDE Dutch system ([`swiss`]),
//!   round robin and double round robin by Berger tables ([`round_robin`]), knockout
//!   of best-of-N matches ([`knockout`]), and Swiss then knockout — the 2011 Hong Kong
//!   中弈杯 format of seed 002 ([`Format::hong_kong_2011`]).
//! - Deals (RULES.md §2): random per board, duplicate (预先布放), organiser-given and
//!   joint (互相布放), each committed before its round and published after it
//!   ([`deals`]). Randomness is an input ([`Entropy`]).
//! - Public views: CSV, JSON and a self-contained HTML page ([`export`]).

pub mod colours;
pub mod deals;
mod error;
pub mod export;
pub mod knockout;
pub mod matching;
mod model;
pub mod round_robin;
mod standings;
pub mod swiss;
mod tournament;

/// A player's id: his index in [`Tournament::players`] (entry order).
pub type PlayerId = u32;

pub use deals::{DealMode, DealRecord, Entropy, SeededEntropy};
pub use error::TournamentError;
pub use knockout::{MatchState, NextGame};
pub use model::{
    Bracket, Format, Game, GameResult, KnockoutConfig, Match, MatchKind, MatchRef, Phase, Player,
    Round, Settings, Stage, TieBreak, TieBreakGame,
};
pub use standings::{PlaceRow, RoundEntry, StandingRow};
pub use tournament::{PairOptions, STATE_VERSION, Tournament};
