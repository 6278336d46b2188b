//! Passwords: argon2id hashes in the PHC string format (docs/server.md, "Accounts").
//!
//! Hashing costs about 19 MiB and tens of milliseconds of one core by design, so it
//! runs on the blocking pool, at most [`CONCURRENT_HASHES`] at once: a flood of
//! logins queues there instead of starving the game tasks.

use std::sync::{Arc, LazyLock};

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use tokio::sync::Semaphore;

/// Memory cost in KiB (19 MiB: OWASP's first argon2id recommendation).
pub const MEMORY_KIB: u32 = 19 * 1024;
/// Passes over the memory.
pub const ITERATIONS: u32 = 2;
/// Lanes.
pub const PARALLELISM: u32 = 1;
/// Hashes computed at once, server-wide.
pub const CONCURRENT_HASHES: usize = 2;

/// The shortest password, in characters.
pub const MIN_LEN: usize = 8;
/// The longest password, in bytes (beyond this is a denial-of-service attempt, not a
/// password).
pub const MAX_BYTES: usize = 256;

/// Why a password was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PasswordError {
    /// Shorter than [`MIN_LEN`].
    #[error("a password has at least {MIN_LEN} characters")]
    TooShort,
    /// Longer than [`MAX_BYTES`].
    #[error("a password has at most {MAX_BYTES} bytes")]
    TooLong,
}

/// Checks a new password's length.
pub fn check(password: &str) -> Result<(), PasswordError> {
    if password.chars().count() < MIN_LEN {
        return Err(PasswordError::TooShort);
    }
    if password.len() > MAX_BYTES {
        return Err(PasswordError::TooLong);
    }
    Ok(())
}

fn argon2() -> Argon2<'static> {
    let params = Params::new(MEMORY_KIB, ITERATIONS, PARALLELISM, None)
        .expect("the argon2 parameters are valid constants");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// The PHC string (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`) of a password, with a
/// fresh random salt. Blocking: call through [`hash`].
pub fn hash_blocking(password: &str) -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system's random generator failed");
    let salt = SaltString::encode_b64(&bytes).expect("16 bytes make a valid salt");
    argon2()
        .hash_password(password.as_bytes(), &salt)
        .expect("argon2 hashing with valid parameters and a bounded password cannot fail")
        .to_string()
}

/// Whether `password` matches the stored PHC string (an unreadable one matches
/// nothing). Blocking: call through [`verify`].
pub fn verify_blocking(password: &str, phc: &str) -> bool {
    PasswordHash::new(phc).is_ok_and(|h| argon2().verify_password(password.as_bytes(), &h).is_ok())
}

/// A hash of no password, checked when the account does not exist, so that an unknown
/// name takes as long to refuse as a wrong password (no account enumeration by time).
static DECOY: LazyLock<String> = LazyLock::new(|| hash_blocking("no such account: decoy"));

static SLOTS: LazyLock<Arc<Semaphore>> =
    LazyLock::new(|| Arc::new(Semaphore::new(CONCURRENT_HASHES)));

async fn on_pool<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let _slot = SLOTS
        .clone()
        .acquire_owned()
        .await
        .expect("the hashing semaphore is never closed");
    tokio::task::spawn_blocking(f)
        .await
        .expect("argon2 does not panic on bounded input")
}

/// [`hash_blocking`] on the blocking pool.
pub async fn hash(password: String) -> String {
    on_pool(move || hash_blocking(&password)).await
}

/// [`verify_blocking`] on the blocking pool; `None` (no such account) checks the decoy
/// and fails.
pub async fn verify(password: String, phc: Option<String>) -> bool {
    on_pool(move || match phc {
        Some(phc) => verify_blocking(&password, &phc),
        None => {
            verify_blocking(&password, &DECOY);
            false
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_argon2id_with_the_documented_parameters() {
        let h = hash_blocking("correct horse");
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{h}");
        assert!(verify_blocking("correct horse", &h));
        assert!(!verify_blocking("correct horsE", &h));
        assert!(!verify_blocking("correct horse", "not a hash"));
        // Fresh salt each time.
        assert_ne!(h, hash_blocking("correct horse"));
    }

    #[test]
    fn password_lengths() {
        assert_eq!(check("short"), Err(PasswordError::TooShort));
        assert_eq!(check("密码密码密码密码"), Ok(()));
        assert_eq!(
            check(&"x".repeat(MAX_BYTES + 1)),
            Err(PasswordError::TooLong)
        );
        assert_eq!(check("eight ch"), Ok(()));
    }
}
