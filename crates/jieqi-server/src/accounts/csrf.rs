//! Cross-site request forgery protection (docs/server.md, "Accounts"): a double-submit
//! token. Every request that changes state (any method but GET, HEAD and OPTIONS) must
//! carry the `jieqi_csrf` cookie's value in the `X-CSRF-Token` header; a page on
//! another site can neither read the cookie nor set that header on a cross-site
//! request (a custom header makes the browser ask first, and the server grants no
//! cross-origin requests). A request whose `Origin` names another host is refused as
//! well. GET responses set the cookie when the browser has none.

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::session::cookie;
use crate::http::ApiError;
use crate::util::{random_hex, same_secret};

/// The cookie holding the token (readable by the page's script, unlike the session).
pub const COOKIE: &str = "jieqi_csrf";
/// The header that must repeat it.
pub const HEADER: &str = "x-csrf-token";

/// A fresh token: 16 random bytes, hex.
pub fn new_token() -> String {
    random_hex(16)
}

/// Whether `s` has the form of a token (32 lowercase hex characters).
pub fn is_token(s: &str) -> bool {
    s.len() == 32 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Whether the request names another site in its `Origin` header (a request without
/// one, from a program rather than a page, is not foreign).
pub fn foreign_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return false;
    };
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let origin_host = origin
        .to_str()
        .ok()
        .and_then(|o| o.split_once("://"))
        .map(|(_, h)| h);
    host.is_none() || origin_host != host
}

/// Why a state-changing request is refused, or `None` if it may go on.
pub fn refusal(headers: &HeaderMap) -> Option<&'static str> {
    if foreign_origin(headers) {
        return Some("cross-site request refused: its Origin is not this server");
    }
    let cookie = cookie(headers, COOKIE).filter(|c| is_token(c));
    let given = headers.get(HEADER).and_then(|h| h.to_str().ok());
    match (cookie, given) {
        (Some(c), Some(g)) if same_secret(c, g) => None,
        _ => Some(
            "missing or wrong CSRF token: send the jieqi_csrf cookie's value in the X-CSRF-Token header",
        ),
    }
}

/// The middleware: refuses state-changing requests without the token, and gives
/// browsers without the cookie one.
pub async fn guard(req: Request, next: Next) -> Response {
    let safe = matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if !safe {
        if let Some(why) = refusal(req.headers()) {
            return ApiError::Csrf(why).into_response();
        }
        return next.run(req).await;
    }
    let has_cookie = cookie(req.headers(), COOKIE).is_some_and(is_token);
    let mut resp = next.run(req).await;
    if !has_cookie {
        let c = format!(
            "{COOKIE}={}; Path=/; Max-Age=31536000; SameSite=Strict",
            new_token()
        );
        if let Ok(v) = HeaderValue::from_str(&c) {
            resp.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn the_header_must_repeat_the_cookie() {
        let t = new_token();
        let ok = headers(&[("cookie", &format!("{COOKIE}={t}")), (HEADER, &t)]);
        assert_eq!(refusal(&ok), None);
        assert!(refusal(&headers(&[("cookie", &format!("{COOKIE}={t}"))])).is_some());
        assert!(refusal(&headers(&[(HEADER, &t)])).is_some());
        let other = new_token();
        assert!(
            refusal(&headers(&[
                ("cookie", &format!("{COOKIE}={t}")),
                (HEADER, &other)
            ]))
            .is_some()
        );
        assert!(refusal(&headers(&[("cookie", "jieqi_csrf=x"), (HEADER, "x")])).is_some());
    }

    #[test]
    fn another_origin_is_refused_even_with_the_token() {
        let t = new_token();
        let c = format!("{COOKIE}={t}");
        let same = headers(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "http://127.0.0.1:8080"),
            ("cookie", &c),
            (HEADER, &t),
        ]);
        assert_eq!(refusal(&same), None);
        let cross = headers(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "http://evil.example"),
            ("cookie", &c),
            (HEADER, &t),
        ]);
        assert!(refusal(&cross).unwrap().contains("Origin"));
    }
}
