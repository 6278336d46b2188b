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
//!
//! ```
//! use jieqi_tournament::{
//!     Format, GameResult, PairOptions, Player, SeededEntropy, Settings, Tournament,
//! };
//!
//! let mut t = Tournament::new("club", Settings::new(Format::Swiss { rounds: 3 })).unwrap();
//! for name in ["A", "B", "C", "D", "E"] {
//!     t.add_player(Player::named(name)).unwrap();
//! }
//! // Real events pass the operating system's randomness; a seed makes this reproducible.
//! let round = t.pair(&PairOptions::default(), &mut SeededEntropy::new(b"demo")).unwrap();
//! assert_eq!(t.rounds[0].games.len(), 2);
//! assert_eq!(t.rounds[0].bye, Some(4)); // the lowest-ranked player, E
//! t.set_result(round, 1, GameResult::RedWin, false).unwrap();
//! t.set_result(round, 2, GameResult::Draw, false).unwrap();
//! let top = &t.standings()[0];
//! assert_eq!(top.points, 1.0);
//! // The round's deals were committed before play and are published now.
//! assert!(t.deals.iter().all(|d| d.published && d.verifies()));
//! let saved = t.to_json();
//! assert_eq!(Tournament::from_json(&saved).unwrap(), t);
//! ```

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
    Round, RoundName, Settings, Stage, TieBreak, TieBreakGame,
};
pub use standings::{PlaceRow, RoundEntry, StandingRow};
pub use tournament::{PairOptions, STATE_VERSION, Tournament};
