//! The web UI's static files, embedded in the binary at build time (see `build.rs`),
//! with what HTTP caching needs: a strong validator (ETag) per file and a version of
//! the whole set, which versioned asset URLs carry (docs/protocol.md §1, "Caching").

use std::collections::HashMap;
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

include!(concat!(env!("OUT_DIR"), "/assets.rs"));

/// One embedded file, ready to serve.
pub struct Asset {
    /// Its bytes (for `index.html`, with the asset URLs versioned).
    pub bytes: std::borrow::Cow<'static, [u8]>,
    /// Its strong entity tag, quotes included: a hash of the bytes.
    pub etag: String,
}

struct Table {
    files: HashMap<&'static str, Asset>,
    index: Option<Asset>,
    version: String,
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn asset(bytes: std::borrow::Cow<'static, [u8]>) -> Asset {
    let etag = format!("\"{}\"", &hex(&Sha256::digest(&bytes))[..20]);
    Asset { bytes, etag }
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        // The version changes with any file, so an upgrade changes every versioned URL
        // at once: modules import each other by relative paths, which resolve under
        // the same versioned prefix, so no file needs rewriting but the page itself.
        let mut all = Sha256::new();
        for (path, bytes) in FILES {
            all.update((path.len() as u64).to_le_bytes());
            all.update(path.as_bytes());
            all.update((bytes.len() as u64).to_le_bytes());
            all.update(bytes);
        }
        let version = hex(&all.finalize())[..12].to_string();
        let files = FILES
            .iter()
            .map(|(p, b)| (*p, asset(std::borrow::Cow::Borrowed(*b))))
            .collect();
        let index = get("index.html").map(|b| {
            let html = String::from_utf8_lossy(b)
                .replace("\"/assets/", &format!("\"{}", versioned_prefix(&version)));
            asset(std::borrow::Cow::Owned(html.into_bytes()))
        });
        Table {
            files,
            index,
            version,
        }
    })
}

fn versioned_prefix(version: &str) -> String {
    format!("/assets/v/{version}/")
}

/// The embedded file at `path` (relative to `assets/`), as built.
pub fn get(path: &str) -> Option<&'static [u8]> {
    FILES.iter().find(|(p, _)| *p == path).map(|(_, b)| *b)
}

/// The embedded file at `path`, with its validator.
pub fn file(path: &str) -> Option<&'static Asset> {
    table().files.get(path)
}

/// The page (`index.html`) as served: its scripts and styles under the versioned
/// prefix, so a browser holding the previous version's files never mixes them in.
pub fn page() -> Option<&'static Asset> {
    table().index.as_ref()
}

/// The version of the embedded files (12 hex digits of a hash over all of them).
pub fn version() -> &'static str {
    &table().version
}

/// An `/assets/` path split into the file and whether it named the current version:
/// `v/VERSION/FILE` gives `(FILE, Some(VERSION == current))`, anything else
/// `(path, None)`.
pub fn unversion(path: &str) -> (&str, Option<bool>) {
    match path
        .strip_prefix("v/")
        .and_then(|rest| rest.split_once('/'))
    {
        Some((v, file)) => (file, Some(v == version())),
        None => (path, None),
    }
}

/// The content type for a file name.
pub fn content_type(path: &str) -> &'static str {
    match path
        .rsplit('.')
        .next()
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("woff2") => "font/woff2",
        Some("txt" | "md") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_follow_extensions() {
        assert_eq!(content_type("app.js"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("a/b/board.SVG"), "image/svg+xml");
        assert_eq!(content_type("x"), "application/octet-stream");
        assert!(get("../Cargo.toml").is_none());
    }

    #[test]
    fn the_page_names_versioned_assets() {
        let page = String::from_utf8(page().expect("index.html").bytes.to_vec()).unwrap();
        let app = format!("/assets/v/{}/app.js", version());
        assert!(page.contains(&app), "{page}");
        assert!(!page.contains("\"/assets/app.js"), "{page}");
        assert_eq!(unversion(&app["/assets/".len()..]), ("app.js", Some(true)));
        assert_eq!(unversion("v/000000000000/app.js"), ("app.js", Some(false)));
        assert_eq!(unversion("fonts/x.woff2"), ("fonts/x.woff2", None));
        assert_ne!(file("app.js").unwrap().etag, file("game.js").unwrap().etag);
    }
}
