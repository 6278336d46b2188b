//! Accounts: user names, passwords, sessions, CSRF protection and the limits on login
//! attempts (docs/server.md, "Accounts"). Playing needs no account; rated games do.

pub mod csrf;
pub mod games;
pub mod limiter;
pub mod name;
pub mod password;
pub mod routes;
pub mod session;

pub use name::{NameError, UserName};
