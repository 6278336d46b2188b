//! One module per subcommand group.

pub mod loadtest;
pub mod perft;
pub mod serve;
