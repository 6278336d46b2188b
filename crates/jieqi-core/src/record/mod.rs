//! Game records.
