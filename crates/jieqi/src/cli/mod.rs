//! One module per subcommand group.

pub mod engine;
pub mod loadtest;
pub mod perft;
pub mod serve;
