//! One module per subcommand group.

pub mod builtin;
pub mod match_cmd;
pub mod perft;
pub mod record;
pub mod play;
pub mod tournament;
