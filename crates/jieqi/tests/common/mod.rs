//! What the tests of real `jieqi serve` processes share: starting one, and joining
//! and following its games over WebSockets.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use jieqi_server::client::WsClient;
use serde_json::{Value, json};

/// How long a test waits for a message it expects.
pub const WAIT: Duration = Duration::from_secs(10);

/// A running `jieqi serve`, killed when dropped.
pub struct Serve(pub Child);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `jieqi serve --addr 127.0.0.1:0 ARGS…` and waits for the address it
/// listens on.
pub fn serve<I, S>(args: I) -> (Serve, SocketAddr)
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut child = Command::new(env!("CARGO_BIN_EXE_jieqi"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(args)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .spawn()
        .expect("start jieqi serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on http://")
        .expect(&line)
        .parse()
        .unwrap();
    (Serve(child), addr)
}

/// Joins game `game` on `addr` with a seat's token (a spectator without one) and
/// waits for the first `state`.
pub async fn join(addr: SocketAddr, game: &str, token: Option<&str>) -> (WsClient, Value) {
    let mut c = WsClient::connect(addr).await.unwrap();
    c.send("join", json!({"game": game, "token": token}), None)
        .await
        .unwrap();
    let s = c.recv_until("state", WAIT).await.unwrap();
    (c, s)
}

/// The `move` event of ply `n`, skipping the others.
pub async fn ply(c: &mut WsClient, n: u64) -> Value {
    loop {
        let m = c.recv_until("move", WAIT).await.unwrap();
        if m["d"]["ply"]["n"] == n {
            return m;
        }
    }
}

/// A resumed game's clock (`clock` of its `state`, Red to move): Black's time as it
/// was stored, Red's resumed from its stored time, no more than a second run since
/// (the downtime charged to nobody).
pub fn assert_clocks_resumed(clock: &Value, stored_red: u64, stored_black: u64) {
    assert_eq!(clock["running"], "red");
    assert_eq!(clock["black_ms"].as_u64().unwrap(), stored_black);
    let red_ms = clock["red_ms"].as_u64().unwrap();
    assert!(
        red_ms <= stored_red && red_ms + 1000 > stored_red,
        "red {red_ms} vs stored {stored_red}"
    );
}
