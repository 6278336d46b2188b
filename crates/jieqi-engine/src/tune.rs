//! Texel tuning (placeholder removed below).
