//! Views: what one viewer may know (RULES.md §4).
