//! One module per subcommand group.

pub mod engine;
pub mod perft;
