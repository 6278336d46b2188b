//! One module per subcommand group.

pub mod builtin;
pub mod engine;
pub mod loadtest;
pub mod match_cmd;
pub mod nnue;
pub mod perft;
pub mod play;
pub mod record;
pub mod serve;
pub mod tournament;
