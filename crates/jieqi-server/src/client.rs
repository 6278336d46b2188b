//! A small client for the server's own protocol, used by the load test and the
//! integration tests: plain HTTP/1.1 requests and a WebSocket wrapper.

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// A client-side failure.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Network.
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    /// WebSocket.
    #[error("websocket: {0}")]
    Ws(#[from] tokio_tungstenite::tungstenite::Error),
    /// Unreadable answer.
    #[error("bad answer: {0}")]
    Bad(String),
    /// Nothing arrived in time.
    #[error("timed out waiting for the server")]
    Timeout,
    /// The connection ended without a close frame.
    #[error("connection closed")]
    Closed,
    /// The server closed the connection with a close frame.
    #[error("connection closed by the server: {code} {reason}")]
    ClosedWith {
        /// The close code (1009: message too big, 1008: rate limit, …).
        code: u16,
        /// The reason text.
        reason: String,
    },
}

impl ClientError {
    /// The close code, if the server closed the connection with a close frame.
    pub fn close_code(&self) -> Option<u16> {
        match self {
            ClientError::ClosedWith { code, .. } => Some(*code),
            _ => None,
        }
    }
}

/// The error for a received close frame.
fn closed_with(frame: Option<CloseFrame>) -> ClientError {
    match frame {
        Some(f) => ClientError::ClosedWith {
            code: u16::from(f.code),
            reason: f.reason.to_string(),
        },
        None => ClientError::Closed,
    }
}

/// An HTTP answer.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    /// Status code.
    pub status: u16,
    /// Content type header, if any.
    pub content_type: Option<String>,
    /// Body.
    pub body: Vec<u8>,
    /// The `Set-Cookie` headers, as `name=value` (attributes dropped).
    pub cookies: Vec<String>,
}

impl HttpResponse {
    /// The body as JSON.
    pub fn json(&self) -> Result<Value, ClientError> {
        serde_json::from_slice(&self.body).map_err(|e| ClientError::Bad(format!("not JSON: {e}")))
    }
}

/// One HTTP/1.1 request (`Connection: close`) as a guest. A state-changing request
/// (any method but GET and HEAD) carries a fresh CSRF token in both the cookie and the
/// header, as the pages do (docs/server.md, "Accounts").
pub async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> Result<HttpResponse, ClientError> {
    http_with(addr, method, path, body, &csrf_headers(method, &[])).await
}

/// The headers of a request with these cookies (`name=value`) and, for a
/// state-changing method, a CSRF token repeated in cookie and header.
pub fn csrf_headers(method: &str, cookies: &[String]) -> Vec<(String, String)> {
    let mut cookies = cookies.to_vec();
    let mut headers = Vec::new();
    if !matches!(method, "GET" | "HEAD") {
        let token = crate::accounts::csrf::new_token();
        cookies.push(format!("{}={token}", crate::accounts::csrf::COOKIE));
        headers.push((crate::accounts::csrf::HEADER.to_string(), token));
    }
    if !cookies.is_empty() {
        headers.push(("Cookie".to_string(), cookies.join("; ")));
    }
    headers
}

/// One HTTP/1.1 request with exactly these extra headers (no CSRF token unless
/// given).
pub async fn http_with(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
    headers: &[(String, String)],
) -> Result<HttpResponse, ClientError> {
    let mut s = TcpStream::connect(addr).await?;
    let body = body.unwrap_or("");
    let extra: String = headers
        .iter()
        .map(|(k, v)| format!("{k}: {v}\r\n"))
        .collect();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await?;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| ClientError::Bad("no header end".into()))?;
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut body = raw[split + 4..].to_vec();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| ClientError::Bad(format!("status line: {head}")))?;
    let header = |name: &str| {
        head.lines().skip(1).find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
    };
    if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        body = dechunk(&body)?;
    }
    let cookies = head
        .lines()
        .skip(1)
        .filter_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim().eq_ignore_ascii_case("set-cookie").then(|| {
                v.trim()
                    .split(';')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_string()
            })
        })
        .collect();
    Ok(HttpResponse {
        status,
        content_type: header("content-type"),
        body,
        cookies,
    })
}

/// A logged-in client: its session cookie goes with every request.
#[derive(Clone, Debug)]
pub struct Account {
    /// The user name.
    pub name: String,
    /// The session cookie, `jieqi_session=…`.
    pub cookie: String,
}

impl Account {
    /// Signs up (`POST /api/account/signup`) and keeps the session.
    pub async fn sign_up(
        addr: SocketAddr,
        name: &str,
        password: &str,
    ) -> Result<Account, ClientError> {
        Account::enter(addr, "/api/account/signup", name, password).await
    }

    /// Logs in (`POST /api/account/login`) and keeps the session.
    pub async fn log_in(
        addr: SocketAddr,
        name: &str,
        password: &str,
    ) -> Result<Account, ClientError> {
        Account::enter(addr, "/api/account/login", name, password).await
    }

    async fn enter(
        addr: SocketAddr,
        path: &str,
        name: &str,
        password: &str,
    ) -> Result<Account, ClientError> {
        let body = serde_json::json!({ "name": name, "password": password }).to_string();
        let r = http(addr, "POST", path, Some(&body)).await?;
        let cookie = r
            .cookies
            .iter()
            .find(|c| c.starts_with("jieqi_session=") && c.len() > "jieqi_session=".len())
            .cloned()
            .ok_or_else(|| {
                ClientError::Bad(format!(
                    "{path}: {} {}",
                    r.status,
                    String::from_utf8_lossy(&r.body)
                ))
            })?;
        Ok(Account {
            name: r.json()?["user"]["name"]
                .as_str()
                .unwrap_or(name)
                .to_string(),
            cookie,
        })
    }

    /// A request with this account's session (and the CSRF token when needed).
    pub async fn http(
        &self,
        addr: SocketAddr,
        method: &str,
        path: &str,
        body: Option<&str>,
    ) -> Result<HttpResponse, ClientError> {
        let headers = csrf_headers(method, std::slice::from_ref(&self.cookie));
        http_with(addr, method, path, body, &headers).await
    }
}

/// Claims the free seat of friend game `id` (`POST /api/games/{id}/join`, with the
/// invite token if given), as the page of the invite link does (docs/protocol.md §2.2).
pub async fn claim_seat(
    addr: SocketAddr,
    id: &str,
    invite: Option<&str>,
) -> Result<HttpResponse, ClientError> {
    let body = invite.map(|t| serde_json::json!({ "invite": t }).to_string());
    http(
        addr,
        "POST",
        &format!("/api/games/{id}/join"),
        body.as_deref(),
    )
    .await
}

fn dechunk(mut b: &[u8]) -> Result<Vec<u8>, ClientError> {
    let mut out = Vec::new();
    loop {
        let nl = b
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or_else(|| ClientError::Bad("chunk size".into()))?;
        let size = usize::from_str_radix(String::from_utf8_lossy(&b[..nl]).trim(), 16)
            .map_err(|e| ClientError::Bad(format!("chunk size: {e}")))?;
        b = &b[nl + 2..];
        if size == 0 {
            return Ok(out);
        }
        if b.len() < size + 2 {
            return Err(ClientError::Bad("short chunk".into()));
        }
        out.extend_from_slice(&b[..size]);
        b = &b[size + 2..];
    }
}

/// A WebSocket connection speaking the `{t, d, v}` protocol.
pub struct WsClient {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// Every message received, in order (for leak checks).
    pub log: Vec<Value>,
    /// Keep [`WsClient::log`].
    pub keep_log: bool,
}

impl WsClient {
    /// Connects to `ws://addr/ws` (`TCP_NODELAY`; a 4 KiB read buffer: the default
    /// 128 KiB one is zeroed on every read, which costs more than the messages).
    pub async fn connect(addr: SocketAddr) -> Result<WsClient, ClientError> {
        let config = WebSocketConfig::default().read_buffer_size(4 * 1024);
        let (ws, _) = tokio_tungstenite::connect_async_with_config(
            format!("ws://{addr}/ws"),
            Some(config),
            true,
        )
        .await?;
        Ok(WsClient {
            ws,
            log: Vec::new(),
            keep_log: true,
        })
    }

    /// Connects to the lobby socket `ws://addr/ws/lobby` (docs/protocol.md §8) with
    /// extra request headers: an account's session cookie, say, or an `Origin`.
    pub async fn connect_lobby(
        addr: SocketAddr,
        headers: &[(String, String)],
    ) -> Result<WsClient, ClientError> {
        WsClient::connect_to(addr, "/ws/lobby", headers).await
    }

    /// Connects to the game socket `ws://addr/ws` with extra request headers (an
    /// account's session cookie: a logged-in player).
    pub async fn connect_with(
        addr: SocketAddr,
        headers: &[(String, String)],
    ) -> Result<WsClient, ClientError> {
        WsClient::connect_to(addr, "/ws", headers).await
    }

    async fn connect_to(
        addr: SocketAddr,
        path: &str,
        headers: &[(String, String)],
    ) -> Result<WsClient, ClientError> {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        use tokio_tungstenite::tungstenite::http::{HeaderName, HeaderValue};
        let mut req = format!("ws://{addr}{path}").into_client_request()?;
        for (k, v) in headers {
            let name = HeaderName::from_bytes(k.as_bytes())
                .map_err(|e| ClientError::Bad(format!("header {k}: {e}")))?;
            let value = HeaderValue::from_str(v)
                .map_err(|e| ClientError::Bad(format!("header {k}: {e}")))?;
            req.headers_mut().append(name, value);
        }
        let config = WebSocketConfig::default().read_buffer_size(4 * 1024);
        let (ws, _) = tokio_tungstenite::connect_async_with_config(req, Some(config), true).await?;
        Ok(WsClient {
            ws,
            log: Vec::new(),
            keep_log: true,
        })
    }

    /// Sends a message.
    pub async fn send(&mut self, t: &str, d: Value, v: Option<u64>) -> Result<(), ClientError> {
        let mut m = serde_json::json!({ "t": t, "d": d });
        if let Some(v) = v {
            m["v"] = v.into();
        }
        self.send_raw(m.to_string()).await
    }

    /// Sends any text frame.
    pub async fn send_raw(&mut self, text: String) -> Result<(), ClientError> {
        self.ws.send(Message::text(text)).await?;
        Ok(())
    }

    /// Sends one text message cut into frames of `part` bytes (a fragmented message).
    pub async fn send_fragmented(&mut self, text: &str, part: usize) -> Result<(), ClientError> {
        use tokio_tungstenite::tungstenite::protocol::frame::Frame;
        use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
        let chunks: Vec<&[u8]> = text.as_bytes().chunks(part.max(1)).collect();
        for (i, chunk) in chunks.iter().enumerate() {
            let op = if i == 0 { Data::Text } else { Data::Continue };
            let frame = Frame::message(chunk.to_vec(), OpCode::Data(op), i + 1 == chunks.len());
            self.ws.feed(Message::Frame(frame)).await?;
        }
        self.ws.flush().await?;
        Ok(())
    }

    /// Sends a binary frame.
    pub async fn send_binary(&mut self, b: Vec<u8>) -> Result<(), ClientError> {
        self.ws.send(Message::binary(b)).await?;
        Ok(())
    }

    /// The next text message, unparsed (not logged), within `wait`.
    pub async fn recv_text(
        &mut self,
        wait: Duration,
    ) -> Result<tokio_tungstenite::tungstenite::Utf8Bytes, ClientError> {
        loop {
            let m = tokio::time::timeout(wait, self.ws.next())
                .await
                .map_err(|_| ClientError::Timeout)?;
            match m {
                None => return Err(ClientError::Closed),
                Some(Err(e)) => return Err(e.into()),
                Some(Ok(Message::Text(t))) => return Ok(t),
                Some(Ok(Message::Close(f))) => return Err(closed_with(f)),
                Some(Ok(_)) => continue,
            }
        }
    }

    /// The next message, within `wait`.
    pub async fn recv(&mut self, wait: Duration) -> Result<Value, ClientError> {
        loop {
            let m = tokio::time::timeout(wait, self.ws.next())
                .await
                .map_err(|_| ClientError::Timeout)?;
            match m {
                None => return Err(ClientError::Closed),
                Some(Err(e)) => return Err(e.into()),
                Some(Ok(Message::Text(t))) => {
                    let v: Value =
                        serde_json::from_str(&t).map_err(|e| ClientError::Bad(e.to_string()))?;
                    if self.keep_log {
                        self.log.push(v.clone());
                    }
                    return Ok(v);
                }
                Some(Ok(Message::Close(f))) => return Err(closed_with(f)),
                Some(Ok(_)) => continue,
            }
        }
    }

    /// Messages until one of type `t` (returned), within `wait` each.
    pub async fn recv_until(&mut self, t: &str, wait: Duration) -> Result<Value, ClientError> {
        loop {
            let m = self.recv(wait).await?;
            if m["t"] == t {
                return Ok(m);
            }
        }
    }

    /// Closes the connection.
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}
