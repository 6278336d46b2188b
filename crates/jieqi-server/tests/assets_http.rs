//! Issue 18, HTTP: the embedded UI is served compressed and cacheable, over real HTTP.
//!
//! - `assets_are_compressed`: `Accept-Encoding: gzip` (or `br`) gives a compressed body
//!   that decompresses to the embedded file; without it, the plain file.
//! - `validators_give_not_modified`: a second request with the ETag gets 304, for an
//!   asset and for the page; the page is always revalidated (`no-cache`).
//! - `versioned_urls_are_immutable`: the page names its scripts under
//!   `/assets/v/VERSION/`, served `immutable`; a stale version is not cached for good.

mod common;

use std::io::Read;
use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A raw response: status, lower-cased headers, body (de-chunked).
struct Raw {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Raw {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// `GET path` with these extra headers.
async fn get(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Raw {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let mut req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await.unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.lines();
    let status = lines.next().unwrap().split_whitespace().nth(1).unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"))
    {
        body = dechunk(&body);
    }
    Raw {
        status: status.parse().unwrap(),
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = data.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(String::from_utf8_lossy(&data[..eol]).trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.extend_from_slice(&data[eol + 2..eol + 2 + size]);
        data = &data[eol + 2 + size + 2..];
    }
    out
}

fn embedded(path: &str) -> Vec<u8> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(path);
    std::fs::read(p).unwrap()
}

#[tokio::test]
async fn assets_are_compressed() {
    let (server, _dir) = common::start(60_000).await;
    let want = embedded("game.js");

    let r = get(
        server.addr,
        "/assets/game.js",
        &[("Accept-Encoding", "gzip")],
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-encoding"), Some("gzip"));
    assert!(
        r.header("vary")
            .is_some_and(|v| v.contains("accept-encoding"))
    );
    assert!(r.body.len() < want.len() / 2, "{} bytes", r.body.len());
    let mut plain = Vec::new();
    flate2::read::GzDecoder::new(&r.body[..])
        .read_to_end(&mut plain)
        .unwrap();
    assert_eq!(plain, want);

    let r = get(server.addr, "/assets/game.js", &[("Accept-Encoding", "br")]).await;
    assert_eq!(r.header("content-encoding"), Some("br"));
    assert!(r.body.len() < want.len() / 2, "{} bytes", r.body.len());

    let r = get(server.addr, "/assets/game.js", &[]).await;
    assert_eq!(r.header("content-encoding"), None);
    assert_eq!(r.body, want);

    // The page too; the font (compressed already) is left alone.
    let r = get(server.addr, "/", &[("Accept-Encoding", "gzip")]).await;
    assert_eq!(r.header("content-encoding"), Some("gzip"));
    let r = get(
        server.addr,
        "/assets/fonts/jieqi-pieces.woff2",
        &[("Accept-Encoding", "gzip")],
    )
    .await;
    assert_eq!(r.header("content-encoding"), None);
    assert_eq!(r.body, embedded("fonts/jieqi-pieces.woff2"));
    server.shutdown().await;
}

#[tokio::test]
async fn validators_give_not_modified() {
    let (server, _dir) = common::start(60_000).await;
    for path in ["/assets/board.js", "/", "/t"] {
        let first = get(server.addr, path, &[]).await;
        assert_eq!(first.status, 200, "{path}");
        assert_eq!(first.header("cache-control"), Some("no-cache"), "{path}");
        let etag = first.header("etag").expect("an ETag").to_string();
        let again = get(server.addr, path, &[("If-None-Match", &etag)]).await;
        assert_eq!(again.status, 304, "{path}");
        assert!(again.body.is_empty(), "{path}");
        assert_eq!(again.header("etag"), Some(etag.as_str()));
        let other = get(
            server.addr,
            path,
            &[("If-None-Match", "\"something-else\"")],
        )
        .await;
        assert_eq!(other.status, 200, "{path}");
    }
    // Different files, different validators.
    let a = get(server.addr, "/assets/board.js", &[]).await;
    let b = get(server.addr, "/assets/game.js", &[]).await;
    assert_ne!(a.header("etag"), b.header("etag"));
    server.shutdown().await;
}

#[tokio::test]
async fn versioned_urls_are_immutable() {
    let (server, _dir) = common::start(60_000).await;
    let page = get(server.addr, "/", &[]).await;
    let html = String::from_utf8(page.body).unwrap();
    let end = html.find("app.js\"").expect("the entry script") + "app.js".len();
    let start = html[..end].rfind('"').expect("an attribute") + 1;
    let app = &html[start..end];
    assert!(app.starts_with("/assets/v/"), "{app}");
    let r = get(server.addr, app, &[]).await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_eq!(r.body, embedded("app.js"));
    // A module imported from it resolves under the same prefix.
    let board = app.replace("app.js", "board.js");
    assert_eq!(
        get(server.addr, &board, &[]).await.body,
        embedded("board.js")
    );
    // A page of another build still gets today's file, revalidated.
    let r = get(server.addr, "/assets/v/000000000000/app.js", &[]).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("cache-control"), Some("no-cache"));
    assert_eq!(
        get(server.addr, "/assets/v/x/nothing.js", &[]).await.status,
        404
    );
    server.shutdown().await;
}
