//! Sessions: a random id in an HTTP-only, SameSite cookie; the server keeps only the
//! id's SHA-256, so a copy of the database logs nobody in.

use std::time::Duration;

use axum::http::HeaderMap;
use axum::http::header;
use sha2::{Digest, Sha256};

use crate::util::random_hex;

/// The session cookie's name.
pub const COOKIE: &str = "jieqi_session";
/// How long a session lasts from the login.
pub const LIFETIME: Duration = Duration::from_secs(30 * 24 * 3600);

/// A new session id: 32 random bytes from the OS CSPRNG, as hex.
pub fn new_id() -> String {
    random_hex(32)
}

/// What the database stores for a session id.
pub fn hash(id: &str) -> String {
    Sha256::digest(id.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether `s` has the shape of a session id (64 lowercase hex): anything else is
/// not looked up.
pub fn is_id(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The value of cookie `name` in a request's `Cookie` headers.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim())
}

/// The `Set-Cookie` value that stores session `id` in the browser.
pub fn set_cookie(id: &str) -> String {
    format!(
        "{COOKIE}={id}; Path=/; Max-Age={}; HttpOnly; SameSite=Lax",
        LIFETIME.as_secs()
    )
}

/// The `Set-Cookie` value that removes the session cookie.
pub fn clear_cookie() -> String {
    format!("{COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax")
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn ids_hashes_and_cookies() {
        let id = new_id();
        assert!(is_id(&id), "{id}");
        assert_ne!(id, new_id());
        assert!(!is_id("../x"));
        assert!(!is_id(&id.to_uppercase()));
        assert_eq!(hash(&id).len(), 64);
        assert_ne!(hash(&id), id);
        let mut h = HeaderMap::new();
        h.append(
            header::COOKIE,
            HeaderValue::from_static("a=1; jieqi_session=abc"),
        );
        h.append(header::COOKIE, HeaderValue::from_static("jieqi_csrf=t0k"));
        assert_eq!(cookie(&h, COOKIE), Some("abc"));
        assert_eq!(cookie(&h, "jieqi_csrf"), Some("t0k"));
        assert_eq!(cookie(&h, "b"), None);
        let c = set_cookie(&id);
        assert!(c.contains("HttpOnly") && c.contains("SameSite=Lax"), "{c}");
    }
}
