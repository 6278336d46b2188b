//! Exports.
