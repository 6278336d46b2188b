//! One module per subcommand group.

pub mod perft;
pub mod tournament;
