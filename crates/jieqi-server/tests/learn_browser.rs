//! Issue 18 in headless Chromium against the real server (tests/browser.rs explains
//! the setup):
//!
//! - `lobby_loads_only_its_scripts`: the lobby fetches its own modules and not the
//!   game, board, analysis or tournament code (the browser's resource timing entries
//!   say what it fetched); the bytes it transferred are printed for BENCHMARKS.md.

use std::net::SocketAddr;

use jieqi_server::{Config, Server};
use serde_json::json;

mod common;
mod webdriver;
use webdriver::*;

/// A server, a chromedriver and one browser with a fresh profile.
struct Stage {
    b: Browser,
    base: String,
    server: Option<Server>,
    _driver: Driver,
    rt: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
}

impl Stage {
    fn start() -> Stage {
        let chromium = tool("CHROMIUM", "/usr/bin/chromium", "chromium");
        let chromedriver = tool("CHROMEDRIVER", "/usr/bin/chromedriver", "chromium-driver");
        let dir = tempfile::tempdir().expect("temp dir");
        let rt = runtime();
        let server = rt
            .block_on(Server::start(Config {
                addr: SocketAddr::from(([127, 0, 0, 1], 0)),
                db: dir.path().join("learn.db"),
                ..Config::default()
            }))
            .expect("start the server");
        let driver = start_driver(&chromedriver);
        let b = new_session(&driver, &chromium, &dir.path().join("profile"));
        Stage {
            b,
            base: format!("http://{}", server.addr),
            server: Some(server),
            _driver: driver,
            rt,
            _dir: dir,
        }
    }

    fn assert_no_console_errors(&self) {
        let errors = self.b.console_errors();
        if !errors.is_empty() {
            self.b.fail(&format!("JavaScript errors: {errors:?}"));
        }
    }

    fn finish(self) {
        self.assert_no_console_errors();
        let Stage { b, server, rt, .. } = self;
        b.quit();
        if let Some(s) = server {
            rt.block_on(s.shutdown());
        }
    }
}

/// The resources the page fetched: (file name, bytes transferred), the page first.
fn fetched(b: &Browser) -> Vec<(String, u64)> {
    let v = b.script(
        "const all = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
         return all.map(e => [new URL(e.name).pathname, e.transferSize]);",
        json!([]),
    );
    v.as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            let path = e[0].as_str().unwrap_or_default();
            let name = path.rsplit('/').next().unwrap_or_default().to_string();
            (name, e[1].as_u64().unwrap_or(0))
        })
        .collect()
}

#[test]
fn lobby_loads_only_its_scripts() {
    let s = Stage::start();
    let b = &s.b;
    b.goto(&format!("{}/", s.base));
    b.wait_for("#play-engine");
    // Let late fetches (the font, a lazily imported module) land.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let files = fetched(b);
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    for used in ["app.js", "lobby.js", "i18n.js", "style.css"] {
        assert!(names.contains(&used), "the lobby fetched {names:?}");
    }
    for unused in [
        "game.js",
        "board.js",
        "analysis.js",
        "tournament.js",
        "replay.js",
    ] {
        assert!(!names.contains(&unused), "the lobby fetched {unused}: {names:?}");
    }
    let total: u64 = files.iter().map(|(_, n)| n).sum();
    println!("lobby: {} resources, {total} bytes transferred: {files:?}", files.len());
    s.finish();
}
