//! The match runner: engines as UCI subprocesses, a referee on `jieqi-core`, games in
//! pairs on shared deals, statistics (Elo, LOS, pentanomial, SPRT) and PGN game records.
//!
//! Entry points: [`play_game`] (one game between two engine specs), [`run_match`] (a
//! whole match with a per-game callback), [`Referee`] (the game as the rules see it,
//! also used by `jieqi play`).

// A library-like API inside the binary: the tournament command uses more of it than
// `match` and `play` do.
#![allow(dead_code, unused_imports)]

pub mod engine;
pub mod game;
pub mod matches;
pub mod outcome;
pub mod record;
pub mod referee;
pub mod rng;
pub mod stats;

pub use engine::{Engine, EngineError, EngineSpec};
pub use game::{GameRecord, GameSettings, TimeControl, play_game, play_game_with};
pub use jieqi_core::view::CapturedIdentity;
pub use matches::{FinishedGame, MatchConfig, MatchResult, run_match};
pub use outcome::Ending;
pub use referee::{Referee, RefereeRules};
