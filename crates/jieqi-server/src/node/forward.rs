//! Serving a client through the node that owns what it asks for: WebSockets are
//! relayed message by message in both directions (a close on either side closes the
//! other), HTTP requests are replayed and their answers passed back.
//!
//! A forwarded request carries [`FORWARDED`], and a node never forwards such a
//! request again: if two nodes disagree for a moment about who serves a game, the
//! client gets an error and reconnects instead of bouncing between them.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::ws::{Message as AxumMessage, Utf8Bytes, WebSocket};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::Shared;
use crate::accounts::csrf;
use crate::http::ApiError;

/// The header that marks a request forwarded by another node.
pub const FORWARDED: &str = "x-jieqi-forwarded";

/// How long a node waits for the owner to answer.
const TIMEOUT: Duration = Duration::from_secs(5);

/// A WebSocket to the owner node.
pub type Upstream = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// The writing half of an [`Upstream`].
pub type UpstreamSink = SplitSink<Upstream, Message>;

/// Whether the request was forwarded by another node.
pub fn is_forwarded(headers: &HeaderMap) -> bool {
    headers.contains_key(FORWARDED)
}

/// The headers that carry the client's identity to the owner: its session and CSRF
/// cookies and the CSRF header (the receiving node has checked the request's origin).
fn identity(headers: &HeaderMap) -> Vec<(String, String)> {
    let mut out = vec![(FORWARDED.to_string(), "1".to_string())];
    for name in [header::COOKIE.as_str(), csrf::HEADER] {
        for v in headers.get_all(name) {
            if let Ok(v) = v.to_str() {
                out.push((name.to_string(), v.to_string()));
            }
        }
    }
    out
}

/// Opens the WebSocket `path` on the node at `addr` in the name of the client whose
/// request had `headers`.
pub async fn connect(addr: &str, path: &str, headers: &HeaderMap) -> Result<Upstream, String> {
    let mut req = format!("ws://{addr}{path}")
        .into_client_request()
        .map_err(|e| format!("node {addr}: {e}"))?;
    for (k, v) in identity(headers) {
        let name = header::HeaderName::from_bytes(k.as_bytes()).map_err(|e| e.to_string())?;
        let value = header::HeaderValue::from_str(&v).map_err(|e| e.to_string())?;
        req.headers_mut().append(name, value);
    }
    let config = WebSocketConfig::default()
        .read_buffer_size(4 * 1024)
        .max_message_size(Some(crate::ws::MAX_FRAME_BYTES))
        .max_frame_size(Some(crate::ws::MAX_FRAME_BYTES));
    let connecting = tokio_tungstenite::connect_async_with_config(req, Some(config), true);
    match tokio::time::timeout(TIMEOUT, connecting).await {
        Ok(Ok((ws, _))) => Ok(ws),
        Ok(Err(e)) => Err(format!("node {addr}: {e}")),
        Err(_) => Err(format!("node {addr}: no answer in {TIMEOUT:?}")),
    }
}

/// Relays the owner's messages to the client's queue `outbox` until either side
/// ends; dropping the queue then closes the client's socket (code 1013: reconnect).
/// The writing half is for the client's messages.
pub fn relay_down(up: Upstream, outbox: mpsc::Sender<Utf8Bytes>) -> UpstreamSink {
    let (sink, mut stream) = up.split();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                m = stream.next() => match m {
                    Some(Ok(Message::Text(t))) => {
                        if outbox.send(Utf8Bytes::from(t.as_str())).await.is_err() {
                            break;
                        }
                    }
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                    Some(Ok(_)) => {}
                },
                () = outbox.closed() => break,
            }
        }
    });
    sink
}

/// Relays a whole socket (the lobby's) to the owner's `up`, both ways, until either
/// side closes; the close goes to the other side.
pub async fn pipe(socket: WebSocket, up: Upstream) {
    let (mut client_tx, mut client_rx) = socket.split();
    let (mut up_tx, mut up_rx) = up.split();
    loop {
        tokio::select! {
            m = client_rx.next() => match m {
                Some(Ok(AxumMessage::Text(t))) => {
                    if up_tx.send(Message::Text(t.as_str().into())).await.is_err() {
                        break;
                    }
                }
                Some(Ok(AxumMessage::Close(_))) | Some(Err(_)) | None => {
                    let _ = up_tx.send(Message::Close(None)).await;
                    break;
                }
                // Pings are answered by each hop itself; binary messages are not
                // part of the protocol.
                Some(Ok(_)) => {}
            },
            m = up_rx.next() => match m {
                Some(Ok(Message::Text(t))) => {
                    if client_tx.send(AxumMessage::Text(t.as_str().into())).await.is_err() {
                        break;
                    }
                }
                Some(Ok(Message::Close(frame))) => {
                    let frame = frame.map(|f| axum::extract::ws::CloseFrame {
                        code: f.code.into(),
                        reason: f.reason.as_str().into(),
                    });
                    let _ = client_tx.send(AxumMessage::Close(frame)).await;
                    break;
                }
                Some(Err(_)) | None => {
                    let _ = client_tx
                        .send(AxumMessage::Close(Some(axum::extract::ws::CloseFrame {
                            code: crate::socket::CLOSE_TRY_AGAIN,
                            reason: "reconnect".into(),
                        })))
                        .await;
                    break;
                }
                Some(Ok(_)) => {}
            },
        }
    }
}

/// Replays an HTTP request on the node at `addr` and passes its answer back (status,
/// content type and body).
pub async fn http(
    addr: &str,
    method: &str,
    path: &str,
    body: &Bytes,
    headers: &HeaderMap,
) -> Response {
    let unavailable = |why: String| {
        tracing::warn!("forwarding {method} {path}: {why}");
        let body = json!({ "error": { "code": "unavailable", "message": format!("the node serving this is unreachable; try again: {why}") } });
        (StatusCode::SERVICE_UNAVAILABLE, axum::Json(body)).into_response()
    };
    let Ok(text) = std::str::from_utf8(body) else {
        let body = json!({ "error": { "code": "bad_request", "message": "the request body is not UTF-8" } });
        return (StatusCode::BAD_REQUEST, axum::Json(body)).into_response();
    };
    let target = match tokio::net::lookup_host(addr).await.map(|mut a| a.next()) {
        Ok(Some(a)) => a,
        Ok(None) => return unavailable(format!("node {addr}: no address")),
        Err(e) => return unavailable(format!("node {addr}: {e}")),
    };
    let body = (!text.is_empty()).then_some(text);
    let forwarded = identity(headers);
    let sent = crate::client::http_with(target, method, path, body, &forwarded);
    let r = match tokio::time::timeout(TIMEOUT, sent).await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return unavailable(format!("node {addr}: {e}")),
        Err(_) => return unavailable(format!("node {addr}: no answer in {TIMEOUT:?}")),
    };
    let status = StatusCode::from_u16(r.status).unwrap_or(StatusCode::BAD_GATEWAY);
    let mut resp = (status, r.body).into_response();
    if let Some(ct) = r
        .content_type
        .and_then(|c| header::HeaderValue::from_str(&c).ok())
    {
        resp.headers_mut().insert(header::CONTENT_TYPE, ct);
    }
    resp
}

/// Middleware of the tournament routes on a node of several: tournaments are directed
/// by the node that holds the lobby lease, and the other nodes forward their requests
/// there.
pub async fn to_director(State(shared): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    let Some(node) = &shared.node else {
        return next.run(req).await;
    };
    if is_forwarded(req.headers()) {
        return next.run(req).await;
    }
    match node.lobby_holder(&shared).await {
        Ok(None) => next.run(req).await,
        Ok(Some(addr)) => {
            let (parts, body) = req.into_parts();
            let Ok(bytes) = axum::body::to_bytes(body, crate::request::BODY_LIMIT).await else {
                return ApiError::TooLarge.into_response();
            };
            let path = parts
                .uri
                .path_and_query()
                .map_or(parts.uri.path(), |p| p.as_str());
            http(&addr, parts.method.as_str(), path, &bytes, &parts.headers).await
        }
        Err(e) => ApiError::from(e).into_response(),
    }
}
