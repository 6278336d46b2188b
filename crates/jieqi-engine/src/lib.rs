//! The Jieqi (揭棋) engine: a chance-aware alpha-beta search on one side's view of the
//! game, its evaluation, the UCI dialect of the Jieqi GUIs, a bench, and a Texel tuner.
//!
//! The engine never sees a deal: it searches a [`jieqi_core::Position`] as its side
//! knows it (board with face-down pieces, pools, identities it captured). Moves of
//! face-down pieces are chance nodes over the identities in the mover's pool, weighted
//! by their counts: each outcome is searched with the move's own window and the node's
//! value is the weighted mean of the fail-soft values (exact Star1 bounds are a switch
//! away; see [`search`]). The rules that depend on the game's history (repetitions,
//! perpetual check and chase) are judged by the referee's own
//! [`jieqi_core::game::Judge`], carried along the searched line. A face-down piece is
//! valued at the expectation over its pool ([`eval`]).
//!
//! # Library use
//! ```
//! use jieqi_engine::{Engine, Limits, Options};
//! use jieqi_core::game::Judge;
//! use jieqi_core::{Position, RuleSet};
//!
//! let mut engine = Engine::new(Options::default());
//! let pos = Position::start();
//! let history = Judge::new(RuleSet::STANDARD, &pos);
//! let result = engine.search(&pos, &Limits::depth(2), &history).expect("the start has moves");
//! assert!(pos.is_legal(result.best));
//! println!("bestmove {} score {}", result.best, result.score);
//! ```
//! [`Engine::search`] blocks the calling thread (run it with `spawn_blocking` from an
//! async runtime); another thread may stop it through [`Engine::stop_flag`]. Options
//! ([`Options`]) set the table size, threads, MultiPV, move overhead and the strength
//! limiter (`skill_level` 0–20, or `limit_strength` with `elo`).
//!
//! # UCI
//! [`uci::run`] runs the protocol on any reader and writer; the `jieqi-engine` binary
//! and `jieqi uci` call it on stdin/stdout. The dialect is in `docs/uci.md`.

pub mod bench;
pub mod busy;
pub mod datagen;
pub mod engine;
pub mod eval;
pub mod features;
pub mod nnue;
pub mod search;
pub mod time;
pub mod tt;
pub mod tune;
pub mod uci;

pub use engine::{Engine, Info, Limits, Options, Score, SearchResult};
pub use eval::Params;
pub use features::Features;
pub use nnue::Network;
