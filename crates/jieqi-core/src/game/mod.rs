//! Games.
