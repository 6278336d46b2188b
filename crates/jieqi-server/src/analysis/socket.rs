//! One task per analysis socket (`/ws/analysis`, docs/protocol.md §9): reads
//! `analyse` / `stop` through an [`Inbox`] (the game socket's rate limit, its own size
//! limit), checks each request ([`super::request`]), and runs at most one analysis per
//! connection on a thread reserved from the analysis pool, whose per-client limit
//! bounds the sessions of one address. Lines stream back as the search deepens.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::extract::ws::{Utf8Bytes, WebSocket};
use axum::extract::{ConnectInfo, State, WebSocketUpgrade};
use axum::response::Response;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::request::{self, AnalyseIn, Prepared};
use crate::Shared;
use crate::engine::{AnalysisLine, LineScore};
use crate::socket::{Inbox, Refusal};

/// The largest message the analysis socket reads.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024;

pub(super) async fn upgrade(
    State(shared): State<Arc<Shared>>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    ws: WebSocketUpgrade,
) -> Response {
    ws.max_message_size(MAX_MESSAGE_BYTES)
        .max_frame_size(MAX_MESSAGE_BYTES)
        .read_buffer_size(4 * 1024)
        .write_buffer_size(0)
        .on_upgrade(move |socket| serve(socket, shared, client))
}

/// A message `{t, d}`.
pub fn envelope(t: &str, d: Value) -> Utf8Bytes {
    json!({ "t": t, "d": d }).to_string().into()
}

/// An `error` message.
pub fn error(n: Option<u64>, code: &str, message: impl std::fmt::Display) -> Utf8Bytes {
    envelope(
        "error",
        json!({ "n": n, "code": code, "message": message.to_string() }),
    )
}

/// Win/draw/loss per mille derived from a centipawn score when the engine gives none
/// (the same logistic shape as the search engine's own model).
pub fn derived_wdl(cp: i32) -> (u32, u32, u32) {
    let f = |x: f64| 1.0 / (1.0 + (-x).exp());
    let cp = f64::from(cp);
    let w = (1000.0 * f((cp - 150.0) / 120.0)).round() as u32;
    let l = (1000.0 * f((-cp - 150.0) / 120.0)).round() as u32;
    (w, 1000 - w - l, l)
}

/// A `line` message.
pub fn line_out(n: u64, engine: &str, l: &AnalysisLine) -> Value {
    let (score, wdl, derived) = match l.score {
        LineScore::Cp(c) => (
            json!({ "cp": c }),
            l.wdl.unwrap_or_else(|| derived_wdl(c)),
            l.wdl.is_none(),
        ),
        LineScore::Mate(m) => (
            json!({ "mate": m }),
            l.wdl
                .unwrap_or(if m > 0 { (1000, 0, 0) } else { (0, 0, 1000) }),
            l.wdl.is_none(),
        ),
    };
    json!({
        "n": n,
        "engine": engine,
        "multipv": l.multipv,
        "depth": l.depth,
        "score": score,
        "wdl": [wdl.0, wdl.1, wdl.2],
        "wdl_derived": derived,
        "nodes": l.nodes,
        "pv": l.pv.iter().map(ToString::to_string).collect::<Vec<_>>(),
    })
}

/// The analysis a connection has running.
struct Running {
    stop: Arc<AtomicBool>,
    task: tokio::task::JoinHandle<()>,
}

impl Running {
    async fn end(self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.task.await;
    }
}

/// Starts an analysis of `p` on a reserved thread, or says why not.
fn launch(
    shared: &Shared,
    client: SocketAddr,
    n: u64,
    p: Prepared,
    out: &mpsc::Sender<Utf8Bytes>,
) -> Result<Running, Utf8Bytes> {
    let slot = shared.analysis.reserve(client.ip()).map_err(|_| {
        error(
            Some(n),
            "busy",
            format!(
                "the analysis engine is busy ({} analyses per address, {} in all); try again",
                shared.limits.analysis_per_client, shared.limits.analysis_threads
            ),
        )
    })?;
    let engine = shared.analysis.engine();
    let stop = Arc::new(AtomicBool::new(false));
    let (flag, out) = (Arc::clone(&stop), out.clone());
    let task = tokio::task::spawn_blocking(move || {
        let _slot = slot;
        let name = engine.name().to_string();
        let mut depth = 0;
        engine.analyse(&p.pos, &p.limits, &flag, &mut |l| {
            depth = depth.max(l.depth);
            // A client too slow to read misses lines, not the end.
            let _ = out.try_send(envelope("line", line_out(n, &name, l)));
        });
        let _ = out.blocking_send(envelope("done", json!({ "n": n, "depth": depth })));
    });
    Ok(Running { stop, task })
}

/// The analysis protocol's error for a message the inbox refused unread.
fn refused(r: Refusal) -> Utf8Bytes {
    let code = match r {
        Refusal::Binary => "bad_json",
        Refusal::RateLimited(_) => "rate_limited",
    };
    error(None, code, r)
}

/// Serves one analysis socket until it closes or the server stops.
pub async fn serve(socket: WebSocket, shared: Arc<Shared>, client: SocketAddr) {
    shared.conn_opened();
    let conn = shared.next_conn_id();
    tracing::info!(conn, "analysis connection accepted");
    let (mut inbox, outbox) = Inbox::new(socket, &shared);
    let mut running: Option<Running> = None;
    let why: &str = loop {
        let text = match inbox.next_text(refused).await {
            Ok(t) => t,
            Err(why) => break why,
        };
        let answer = match parse(&text) {
            Err(e) => Some(e),
            Ok(In::Stop) => {
                if let Some(r) = running.take() {
                    r.end().await;
                }
                None
            }
            Ok(In::Analyse(req)) => {
                if let Some(r) = running.take() {
                    r.end().await;
                }
                match request::prepare(&req) {
                    Err(e) => Some(error(Some(req.n), e.code(), &e)),
                    Ok(p) => {
                        let pos = envelope("position", request::position_out(req.n, &p.pos));
                        if !inbox.send(pos).await {
                            break "gone";
                        }
                        if p.pos.legal_moves().is_empty() {
                            Some(envelope("done", json!({ "n": req.n, "depth": 0 })))
                        } else {
                            match launch(&shared, client, req.n, p, &outbox) {
                                Ok(r) => {
                                    running = Some(r);
                                    None
                                }
                                Err(e) => Some(e),
                            }
                        }
                    }
                }
            }
        };
        if let Some(a) = answer
            && !inbox.send(a).await
        {
            break "gone";
        }
    };
    if let Some(r) = running.take() {
        r.end().await;
    }
    shared.conn_closed();
    tracing::info!(conn, why, "analysis connection closed");
}

/// A client message.
#[derive(Debug)]
enum In {
    Analyse(AnalyseIn),
    Stop,
}

fn parse(text: &str) -> Result<In, Utf8Bytes> {
    #[derive(serde::Deserialize)]
    struct Env {
        t: String,
        #[serde(default)]
        d: Value,
    }
    let env: Env = serde_json::from_str(text)
        .map_err(|e| error(None, "bad_json", format!("not a {{t, d}} message: {e}")))?;
    match env.t.as_str() {
        "analyse" => serde_json::from_value(env.d)
            .map(In::Analyse)
            .map_err(|e| error(None, "bad_request", format!("analyse: {e}"))),
        "stop" => Ok(In::Stop),
        other => Err(error(
            None,
            "unknown_type",
            format!(
                "unknown message type {:?}: analyse or stop",
                other.chars().take(20).collect::<String>()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_read_or_refused_with_a_code() {
        assert!(matches!(parse(r#"{"t":"stop"}"#), Ok(In::Stop)));
        let a = parse(r#"{"t":"analyse","d":{"n":4,"fen":"x","moves":["a0a1"]}}"#);
        assert!(matches!(a, Ok(In::Analyse(AnalyseIn { n: 4, .. }))));
        for (text, code) in [
            ("{", "bad_json"),
            (r#"{"t":"launch"}"#, "unknown_type"),
            (r#"{"t":"analyse","d":{"fen":3}}"#, "bad_request"),
            (r#"{"t":"analyse","d":{"fen":"x","evil":1}}"#, "bad_request"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(
                e.as_str().contains(&format!("\"code\":\"{code}\"")),
                "{text}: {e}"
            );
        }
    }

    #[test]
    fn lines_carry_a_score_and_wdl_derived_when_the_engine_has_none() {
        let l = AnalysisLine {
            multipv: 1,
            depth: 3,
            score: LineScore::Cp(400),
            wdl: None,
            pv: vec![],
            nodes: 9,
        };
        let v = line_out(2, "greedy", &l);
        assert_eq!(v["score"]["cp"], 400);
        assert_eq!(v["wdl_derived"], true);
        let w = v["wdl"][0].as_u64().unwrap();
        assert!(w > 800, "{v}");
        let sum: u64 = v["wdl"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .sum();
        assert_eq!(sum, 1000);
    }
}
