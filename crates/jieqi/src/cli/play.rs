//! `jieqi play` (to be written).
use clap::Args; /// a
#[derive(Args)] pub struct PlayArgs {} /// a
pub fn run(_a: PlayArgs) -> anyhow::Result<()> { Ok(()) }
