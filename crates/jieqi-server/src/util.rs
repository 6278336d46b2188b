//! Small helpers: random ids and tokens, wall-clock time.

/// `n` random bytes as lowercase hex, from the operating system's CSPRNG.
pub fn random_hex(n: usize) -> String {
    let mut b = vec![0u8; n];
    getrandom::fill(&mut b).expect("the operating system's random generator failed");
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A new seat token: 32 hex characters (128 bits).
pub fn new_token() -> String {
    random_hex(16)
}

/// A new game id: 10 characters `[a-z0-9]`.
pub fn new_game_id() -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut b = [0u8; 10];
    getrandom::fill(&mut b).expect("the operating system's random generator failed");
    // 256 is not a multiple of 36: the slight bias is harmless for ids (not secrets).
    b.iter()
        .map(|x| ALPHABET[usize::from(*x) % ALPHABET.len()] as char)
        .collect()
}

/// Whether `s` looks like a game id (so that junk never reaches the database).
pub fn is_game_id(s: &str) -> bool {
    s.len() == 10
        && s.bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
}

/// Now, in Unix milliseconds.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Compares two secrets in time independent of where they differ.
pub fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_tokens_have_their_shape() {
        let id = new_game_id();
        assert!(is_game_id(&id), "{id}");
        assert!(!is_game_id("../etc/pa"));
        assert!(!is_game_id("ABCDEFGHIJ"));
        let t = new_token();
        assert_eq!(t.len(), 32);
        assert_ne!(t, new_token());
        assert!(same_secret(&t, &t.clone()));
        assert!(!same_secret(&t, &new_token()));
        assert!(!same_secret("ab", "abc"));
    }
}
