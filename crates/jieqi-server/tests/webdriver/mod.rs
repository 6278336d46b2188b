//! W3C WebDriver helpers shared by the headless-Chromium tests (`*_browser.rs`):
//! the test server started in-process with chromedriver and Chromium found on the
//! machine ([`Stage`]), a tiny HTTP client, and a `Browser` session with the calls the
//! tests use.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use jieqi_server::{Config, EngineKind, Server};
use serde_json::{Value, json};

pub const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// The longest wait for something the page should show: generous, because CI runs the
/// whole workspace's tests at once on two cores. Never a speed assertion.
pub const WAIT: Duration = Duration::from_secs(40);

/// A running chromedriver, killed on drop.
pub struct Driver {
    child: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind an ephemeral port");
    l.local_addr().expect("local address").port()
}

pub fn tool(env: &str, default: &str, package: &str) -> PathBuf {
    let path = std::env::var_os(env).map_or_else(|| PathBuf::from(default), PathBuf::from);
    assert!(
        path.exists(),
        "{} not found at {} (set {env} to its path): install the Debian package `{package}` \
         (apt-get install chromium chromium-driver) — the browser test cannot run without it",
        package,
        path.display()
    );
    path
}

/// One HTTP/1.1 request to `port` on loopback; returns (status, body).
pub fn http(
    port: u16,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> std::io::Result<(u16, Vec<u8>)> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(60)))?;
    let payload = body.map(Value::to_string).unwrap_or_default();
    let mut req =
        format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n");
    if body.is_some() {
        req.push_str("Content-Type: application/json; charset=utf-8\r\n");
    }
    if method != "GET" {
        // The server's CSRF guard wants the cookie repeated in a header (chromedriver
        // ignores both).
        let t = jieqi_server::accounts::csrf::new_token();
        req.push_str(&format!("Cookie: jieqi_csrf={t}\r\nX-CSRF-Token: {t}\r\n"));
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n", payload.len()));
    s.write_all(req.as_bytes())?;
    s.write_all(payload.as_bytes())?;
    // Read the head, then exactly Content-Length bytes (chromedriver keeps connections
    // open whatever `Connection: close` says), or to the end for chunked/unsized bodies.
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    let split = loop {
        if let Some(p) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
        let n = s.read(&mut buf)?;
        if n == 0 {
            return Err(std::io::Error::other(
                "connection closed before the end of the HTTP headers",
            ));
        }
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut rest = raw[split + 4..].to_vec();
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("bad status line: {head}")))?;
    let lower = head.to_ascii_lowercase();
    let length = lower
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok());
    match length {
        Some(len) => {
            while rest.len() < len {
                let n = s.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                rest.extend_from_slice(&buf[..n]);
            }
            rest.truncate(len);
        }
        None => {
            s.read_to_end(&mut rest)?;
            if lower.contains("transfer-encoding: chunked") {
                rest = dechunk(&rest);
            }
        }
    }
    Ok((status, rest))
}

pub fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = data.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&data[..eol]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = eol + 2;
        out.extend_from_slice(&data[start..(start + size).min(data.len())]);
        data = &data[(start + size + 2).min(data.len())..];
    }
    out
}

/// A WebDriver session.
pub struct Browser {
    port: u16,
    session: String,
}

impl Browser {
    pub fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        let url = format!("/session/{}{path}", self.session);
        let (status, bytes) = http(self.port, method, &url, body.as_ref())
            .map_err(|e| format!("{method} {path}: {e}"))?;
        let v: Value = serde_json::from_slice(&bytes)
            .map_err(|e| format!("{method} {path}: bad JSON ({e})"))?;
        if status != 200 {
            return Err(format!("{method} {path}: HTTP {status}: {}", v["value"]));
        }
        Ok(v["value"].clone())
    }

    pub fn goto(&self, url: &str) {
        self.cmd("POST", "/url", Some(json!({ "url": url })))
            .expect("navigate");
    }

    pub fn script(&self, js: &str, args: Value) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({ "script": js, "args": args })),
        )
        .unwrap_or_else(|e| panic!("script failed: {e}\n{js}"))
    }

    pub fn find(&self, css: &str) -> Option<String> {
        self.cmd(
            "POST",
            "/element",
            Some(json!({ "using": "css selector", "value": css })),
        )
        .ok()
        .and_then(|v| v[ELEMENT_KEY].as_str().map(str::to_string))
    }

    pub fn click(&self, css: &str) {
        // The page redraws panels when events arrive (presence, moves): an element found
        // just before such a redraw is stale, so find it again and retry.
        let mut last = String::new();
        for _ in 0..10 {
            let id = self
                .find(css)
                .unwrap_or_else(|| self.fail(&format!("no element {css}")));
            match self.cmd("POST", &format!("/element/{id}/click"), Some(json!({}))) {
                Ok(_) => return,
                Err(e) if e.contains("stale element") => {
                    last = e;
                    std::thread::sleep(Duration::from_millis(100));
                }
                Err(e) => self.fail(&format!("click {css}: {e}")),
            }
        }
        self.fail(&format!("click {css}: {last}"))
    }

    pub fn text(&self, css: &str) -> String {
        self.script(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : null;",
            json!([css]),
        )
        .as_str()
        .unwrap_or_default()
        .to_string()
    }

    /// Wait until the script returns true.
    pub fn wait(&self, what: &str, js: &str, args: Value, timeout: Duration) {
        let start = Instant::now();
        loop {
            if self.script(js, args.clone()) == Value::Bool(true) {
                return;
            }
            if start.elapsed() > timeout {
                self.fail(&format!("timed out waiting for {what}"));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn wait_for(&self, css: &str) {
        self.wait(
            css,
            "return document.querySelector(arguments[0]) !== null;",
            json!([css]),
            WAIT,
        );
    }

    /// Fail with a screenshot and the page's text, to see what the browser saw.
    pub fn fail(&self, msg: &str) -> ! {
        let shot = std::env::temp_dir().join("jieqi-browser-failure.png");
        if let Ok(v) = self.cmd("GET", "/screenshot", None)
            && let Some(b64) = v.as_str()
        {
            let _ = std::fs::write(&shot, base64_decode(b64));
        }
        let body = self
            .cmd(
                "POST",
                "/execute/sync",
                Some(json!({ "script": "return document.body.innerText;", "args": [] })),
            )
            .unwrap_or_default();
        panic!("{msg}\npage text:\n{body}\nscreenshot: {}", shot.display());
    }

    /// With `JIEQI_BROWSER_SHOTS=DIR`, save a screenshot `DIR/NAME.png` (to look at the UI).
    pub fn shot(&self, name: &str) {
        let Some(dir) = shots_dir() else {
            return;
        };
        let v = self.cmd("GET", "/screenshot", None).expect("screenshot");
        let png = base64_decode(v.as_str().expect("base64 screenshot"));
        std::fs::write(dir.join(format!("{name}.png")), png).expect("write the screenshot");
    }

    /// With `JIEQI_BROWSER_SHOTS=DIR`, screenshots of the page as a laptop and a phone
    /// show it: `DIR/NAME-desktop-1366x657.png` and `DIR/NAME-phone-390x844.png` (the
    /// viewport set through the DevTools protocol, then given back).
    pub fn page_shots(&self, name: &str) {
        if shots_dir().is_none() {
            return;
        }
        for (label, width, height, mobile) in SHOT_SIZES {
            let metrics = json!({
                "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile,
            });
            cdp(self, "Emulation.setDeviceMetricsOverride", metrics);
            // The page lays itself out again (and redraws what depends on the width).
            std::thread::sleep(Duration::from_millis(400));
            self.shot(&format!("{name}-{label}-{width}x{height}"));
        }
        cdp(self, "Emulation.clearDeviceMetricsOverride", json!({}));
        std::thread::sleep(Duration::from_millis(200));
    }

    /// Errors the page logged to the console (uncaught exceptions, failed loads).
    pub fn console_errors(&self) -> Vec<String> {
        let logs = self
            .cmd("POST", "/se/log", Some(json!({ "type": "browser" })))
            .unwrap_or_else(|e| self.fail(&format!("cannot read the console log: {e}")));
        logs.as_array()
            .map(|a| {
                a.iter()
                    .filter(|e| e["level"] == "SEVERE")
                    // The replay page probes the record route, which may not exist yet
                    // (docs/protocol.md §2.7): its 404 is expected, not an error.
                    .filter(|e| {
                        !e["message"]
                            .as_str()
                            .is_some_and(|m| m.contains("/record?format="))
                    })
                    .map(|e| e["message"].to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn quit(self) {
        let _ = http(
            self.port,
            "DELETE",
            &format!("/session/{}", self.session),
            None,
        );
    }
}

/// The sizes of [`Browser::page_shots`]: a laptop's and a phone's viewport.
pub const SHOT_SIZES: [(&str, u32, u32, bool); 2] =
    [("desktop", 1366, 657, false), ("phone", 390, 844, true)];

/// The folder `JIEQI_BROWSER_SHOTS` names, made if missing; `None` when it is unset.
pub fn shots_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("JIEQI_BROWSER_SHOTS").filter(|d| !d.is_empty())?);
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot make {} for screenshots: {e}", dir.display()));
    Some(dir)
}

pub fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let digits: Vec<u8> = s.bytes().filter_map(val).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut n = 0u32;
        for (i, d) in chunk.iter().enumerate() {
            n |= u32::from(*d) << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len().saturating_sub(1)]);
    }
    out
}

pub fn start_driver(driver: &Path) -> Driver {
    let port = free_port();
    let child = Command::new(driver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", driver.display()));
    let d = Driver { child, port };
    let start = Instant::now();
    loop {
        if let Ok((200, body)) = http(port, "GET", "/status", None)
            && serde_json::from_slice::<Value>(&body).is_ok_and(|v| v["value"]["ready"] == true)
        {
            return d;
        }
        assert!(start.elapsed() < WAIT, "chromedriver did not become ready");
        std::thread::sleep(Duration::from_millis(100));
    }
}

pub fn new_session(driver: &Driver, chromium: &Path, profile: &Path) -> Browser {
    let caps = json!({
        "capabilities": { "alwaysMatch": {
            "browserName": "chrome",
            "goog:loggingPrefs": { "browser": "ALL" },
            "goog:chromeOptions": {
                "binary": chromium.to_string_lossy(),
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--no-first-run", "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", "--window-size=1280,900", "--lang=en-US",
                    format!("--user-data-dir={}", profile.display()),
                ],
            },
        }},
    });
    let (status, body) =
        http(driver.port, "POST", "/session", Some(&caps)).expect("create a WebDriver session");
    let v: Value = serde_json::from_slice(&body).expect("session JSON");
    assert_eq!(status, 200, "chromedriver refused the session: {v}");
    let session = v["value"]["sessionId"]
        .as_str()
        .expect("session id")
        .to_string();
    Browser {
        port: driver.port,
        session,
    }
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// On a friend game's page just created in `b`: its invite link (as shown) and the
/// game's id.
pub fn invite_link_and_id(b: &Browser, base: &str) -> (String, String) {
    b.wait_for("#invite-url");
    let invite = b.script(
        "return document.querySelector('#invite-url').value;",
        serde_json::json!([]),
    );
    let invite = invite.as_str().expect("invite link").to_string();
    let id = invite
        .strip_prefix(&format!("{base}/game/"))
        .and_then(|r| r.split_once("?invite="))
        .map(|(id, _)| id.to_string())
        .unwrap_or_else(|| b.fail(&format!("not an invite link: {invite}")));
    (invite, id)
}

/// Play one move by clicking: one of our pieces that has destinations, then the first
/// destination. Prefers `prefer` (from, to) when it is legal.
pub fn click_a_move(b: &Browser, prefer: Option<(&str, &str)>) -> (String, String) {
    if let Some((from, to)) = prefer {
        b.click(&format!(".piece[data-sq='{from}']"));
        let sel = format!(".dest[data-sq='{to}']");
        if b.find(&sel).is_some() {
            b.click(&sel);
            return (from.to_string(), to.to_string());
        }
    }
    let ours = b.script(
        "const mine = document.querySelector('.board-box').dataset.turn;
         return [...document.querySelectorAll('svg.board .piece.' + mine)].map(e => e.dataset.sq);",
        json!([]),
    );
    for sq in ours.as_array().expect("squares") {
        let sq = sq.as_str().expect("square");
        b.click(&format!(".piece[data-sq='{sq}']"));
        let dests = b.script(
            "return [...document.querySelectorAll('.dest')].map(e => e.dataset.sq);",
            json!([]),
        );
        if let Some(to) = dests
            .as_array()
            .and_then(|d| d.first())
            .and_then(Value::as_str)
        {
            let to = to.to_string();
            b.click(&format!(".dest[data-sq='{to}']"));
            return (sq.to_string(), to);
        }
    }
    b.fail("no piece of ours has a legal move")
}

/// Waits until the move list shows exactly `n` plies.
pub fn wait_plies(b: &Browser, n: usize) {
    b.wait(
        &format!("{n} plies in the move list"),
        "return document.querySelectorAll('#moves td.ply').length === arguments[0];",
        json!([n]),
        WAIT,
    );
}

/// The centre of the element `css`, in viewport pixels.
pub fn centre(b: &Browser, css: &str) -> (i64, i64) {
    let at = b.script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();
         return [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)];",
        json!([css]),
    );
    match (at[0].as_i64(), at[1].as_i64()) {
        (Some(x), Some(y)) => (x, y),
        _ => b.fail(&format!("no element {css}")),
    }
}

/// Performs one sequence of mouse actions (`what` names it in a failure).
fn mouse(b: &Browser, what: &str, actions: Value) {
    let body = json!({ "actions": [{
        "type": "pointer", "id": "mouse", "parameters": { "pointerType": "mouse" },
        "actions": actions,
    }]});
    if let Err(e) = b.cmd("POST", "/actions", Some(body)) {
        b.fail(&format!("{what}: {e}"));
    }
}

/// Moves the mouse onto the centre of `css` (hover), arriving from just left of it.
pub fn hover(b: &Browser, css: &str) {
    let (x, y) = centre(b, css);
    mouse(
        b,
        &format!("hover {css}"),
        json!([
            { "type": "pointerMove", "duration": 0, "origin": "viewport", "x": x - 3, "y": y },
            { "type": "pointerMove", "duration": 50, "origin": "viewport", "x": x, "y": y },
        ]),
    );
}

/// A right click at the centre of `css`.
pub fn right_click(b: &Browser, css: &str) {
    let (x, y) = centre(b, css);
    mouse(
        b,
        &format!("right click {css}"),
        json!([
            { "type": "pointerMove", "duration": 0, "origin": "viewport", "x": x, "y": y },
            { "type": "pointerDown", "button": 2 },
            { "type": "pointerUp", "button": 2 },
        ]),
    );
    let _ = b.cmd("DELETE", "/actions", None);
}

/// Sends the Chrome DevTools Protocol command `cmd` through chromedriver (for what W3C
/// actions cannot do, such as touch input that reaches the page as touch).
pub fn cdp(b: &Browser, cmd: &str, params: Value) -> Value {
    b.cmd(
        "POST",
        "/goog/cdp/execute",
        Some(json!({ "cmd": cmd, "params": params })),
    )
    .unwrap_or_else(|e| b.fail(&format!("CDP {cmd}: {e}")))
}

/// Puts a finger on the centre of `css` (a touch screen's touchstart, and pointer
/// events with `pointerType: "touch"`); [`touch_end`] lifts it.
pub fn touch_start(b: &Browser, css: &str) {
    cdp(
        b,
        "Emulation.setTouchEmulationEnabled",
        json!({ "enabled": true, "maxTouchPoints": 1 }),
    );
    let (x, y) = centre(b, css);
    cdp(
        b,
        "Input.dispatchTouchEvent",
        json!({ "type": "touchStart", "touchPoints": [{ "x": x, "y": y }] }),
    );
}

/// Moves the finger [`touch_start`] put down to `dx`, `dy` pixels from the centre of
/// `css`.
pub fn touch_move(b: &Browser, css: &str, dx: i64, dy: i64) {
    let (x, y) = centre(b, css);
    cdp(
        b,
        "Input.dispatchTouchEvent",
        json!({ "type": "touchMove", "touchPoints": [{ "x": x + dx, "y": y + dy }] }),
    );
}

/// Lifts the finger [`touch_start`] put down.
pub fn touch_end(b: &Browser) {
    cdp(
        b,
        "Input.dispatchTouchEvent",
        json!({ "type": "touchEnd", "touchPoints": [] }),
    );
}

/// A tap on the centre of `css` with a finger.
pub fn tap(b: &Browser, css: &str) {
    touch_start(b, css);
    touch_end(b);
}

/// Sets the value of the element `css` (no events fired).
pub fn set_value(b: &Browser, css: &str, value: &str) {
    b.script(
        "const e = document.querySelector(arguments[0]); e.value = arguments[1];",
        json!([css, value]),
    );
}

/// Signs up on the login page; ends on the new player's profile page.
pub fn sign_up(b: &Browser, base: &str, name: &str) {
    enter_account(b, &format!("{base}/login?signup=1"), name);
}

/// Logs in on the login page as `name` (signed up with [`sign_up`]); ends on his
/// profile page.
pub fn log_in(b: &Browser, base: &str, name: &str) {
    enter_account(b, &format!("{base}/login"), name);
}

/// Fills the account form at `page` (sign-up or login) for `name` and waits for his
/// profile.
fn enter_account(b: &Browser, page: &str, name: &str) {
    b.goto(page);
    b.wait_for("#account-submit");
    set_value(b, "#user-name", name);
    set_value(b, "#password", "a long enough password");
    b.click("#account-submit");
    b.wait(
        "the player's profile",
        "const h = document.querySelector('#profile-name'); return !!h && h.textContent === arguments[0];",
        json!([name]),
        WAIT,
    );
}

/// In `a`'s browser, from the lobby: a friend game as Red, after clicking each of
/// `choices` in the form (a time, `#listed`, `#rated`). A `logged_in` player's lobby
/// redraws its form once it knows him (with the rated box), so the choices wait for
/// that. Returns the invite link (shown on the game page) and the game's id.
pub fn create_friend_game(
    a: &Browser,
    base: &str,
    logged_in: bool,
    choices: &[&str],
) -> (String, String) {
    a.goto(&format!("{base}/"));
    a.wait_for(if logged_in { "#rated" } else { "#play-friend" });
    a.click("#color option[value='red']");
    for css in choices {
        a.click(css);
    }
    a.click("#play-friend");
    invite_link_and_id(a, base)
}

/// The test server on `addr` (port 0: a free one) and the database `db`, with
/// `engine` for engine games.
pub fn start_server(
    rt: &tokio::runtime::Runtime,
    addr: SocketAddr,
    db: &Path,
    engine: EngineKind,
) -> Server {
    rt.block_on(Server::start(Config {
        addr,
        db: db.to_path_buf(),
        engine,
        ..Config::default()
    }))
    .expect("start the server")
}

/// What every browser test starts with: the server in-process on a fresh database and
/// a free loopback port, and chromedriver ready to open browsers.
pub struct Stage {
    /// The runtime the server runs on (tests block on it for their own requests).
    pub rt: tokio::runtime::Runtime,
    /// The server (`None` only while [`Stage::restart_server`] restarts it).
    pub server: Option<Server>,
    /// Its address, kept across a restart.
    pub addr: SocketAddr,
    /// `http://ADDR`.
    pub base: String,
    /// The database file, kept across a restart.
    pub db: PathBuf,
    /// The temporary folder of the database and of the browser profiles.
    pub dir: tempfile::TempDir,
    engine: EngineKind,
    chromium: PathBuf,
    driver: Option<Driver>,
}

impl Stage {
    /// Starts the server (with `engine` for engine games) and chromedriver.
    pub fn start(engine: EngineKind) -> Stage {
        let chromium = tool("CHROMIUM", "/usr/bin/chromium", "chromium");
        let chromedriver = tool("CHROMEDRIVER", "/usr/bin/chromedriver", "chromium-driver");
        let dir = tempfile::tempdir().expect("temp dir");
        let rt = runtime();
        let db = dir.path().join("test.db");
        let server = start_server(&rt, SocketAddr::from(([127, 0, 0, 1], 0)), &db, engine);
        let driver = start_driver(&chromedriver);
        Stage {
            base: format!("http://{}", server.addr),
            addr: server.addr,
            server: Some(server),
            rt,
            db,
            dir,
            engine,
            chromium,
            driver: Some(driver),
        }
    }

    /// A new browser with a profile of its own named `profile` (two profiles share no
    /// cookies nor `localStorage`: two people, or one person on two devices).
    pub fn browser(&self, profile: &str) -> Browser {
        let driver = self.driver.as_ref().expect("chromedriver is running");
        new_session(driver, &self.chromium, &self.dir.path().join(profile))
    }

    /// `n` browsers, with the profiles `profile-0` to `profile-{n-1}`.
    pub fn browsers(&self, n: usize) -> Vec<Browser> {
        (0..n)
            .map(|i| self.browser(&format!("profile-{i}")))
            .collect()
    }

    /// Stops the server (a crash, as far as the pages can tell).
    pub fn stop_server(&mut self) {
        if let Some(s) = self.server.take() {
            self.rt.block_on(s.shutdown());
        }
    }

    /// Starts the server again on the same address and database (stopping it first
    /// if it runs).
    pub fn restart_server(&mut self) {
        self.stop_server();
        self.server = Some(start_server(&self.rt, self.addr, &self.db, self.engine));
    }

    /// Quits `browsers`, stops chromedriver and the server.
    pub fn finish(mut self, browsers: impl IntoIterator<Item = Browser>) {
        for b in browsers {
            b.quit();
        }
        drop(self.driver.take());
        self.stop_server();
    }
}

/// Fails if a page logged an error in any of `browsers`.
pub fn assert_no_console_errors<'a>(browsers: impl IntoIterator<Item = &'a Browser>) {
    assert_no_console_errors_but(browsers, &[]);
}

/// Fails if a page logged an error in any of `browsers`, but for those mentioning one
/// of `expected` (a refused connection while the test has stopped the server).
pub fn assert_no_console_errors_but<'a>(
    browsers: impl IntoIterator<Item = &'a Browser>,
    expected: &[&str],
) {
    for (i, b) in browsers.into_iter().enumerate() {
        let mut errors = b.console_errors();
        errors.retain(|e| !expected.iter().any(|x| e.contains(x)));
        assert!(errors.is_empty(), "page {i} logged errors: {errors:#?}");
    }
}
