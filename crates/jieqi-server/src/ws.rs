//! One task per WebSocket: reads client messages (with size and rate limits), answers
//! what it can itself, and forwards the rest to the game's task.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::{SinkExt, StreamExt};
use jieqi_core::Viewer;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite;

use crate::knowledge::viewer_name;
use crate::protocol::out::PongOut;
use crate::protocol::{self, ClientIn, ClientOut, ErrorCode, Outgoing, ProtoError};
use crate::{GameHandle, Shared};

/// Frames (and messages) larger than this close the connection with code 1009
/// (message too big). The WebSocket layer refuses them as soon as it reads their
/// length, before buffering them.
pub const MAX_FRAME_BYTES: usize = 64 * 1024;
/// The close code for a message over [`MAX_FRAME_BYTES`] (RFC 6455 §7.4.1).
pub const CLOSE_TOO_BIG: u16 = 1009;
/// The close code for a client that stopped answering pings, and for shutdown.
pub const CLOSE_GOING_AWAY: u16 = 1001;
/// Sustained messages per second per connection (default).
pub const RATE_PER_SEC: f64 = 20.0;
/// Burst allowance (default).
pub const RATE_BURST: f64 = 40.0;
/// Dropped messages after which the connection is closed (code 1008).
pub const MAX_DROPPED: u32 = 200;
/// Outgoing queue length per connection; a client this far behind is disconnected.
pub const OUTBOX: usize = 128;

/// A token bucket.
pub(crate) struct Bucket {
    tokens: f64,
    at: Instant,
    rate: f64,
    burst: f64,
}

impl Bucket {
    pub(crate) fn new(rate: f64, burst: f64) -> Bucket {
        Bucket {
            tokens: burst,
            at: Instant::now(),
            rate,
            burst,
        }
    }

    pub(crate) fn take(&mut self) -> bool {
        let now = Instant::now();
        let dt = now.saturating_duration_since(self.at).as_secs_f64();
        self.at = now;
        self.tokens = (self.tokens + dt * self.rate).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

struct Session {
    shared: Arc<Shared>,
    conn: u64,
    outbox: mpsc::Sender<Utf8Bytes>,
    game: Option<GameHandle>,
    /// The game joined and as whom (for the log: never the token).
    joined: Option<(String, Viewer)>,
    /// The account of the connection's session, if logged in.
    user: Option<String>,
    /// The peer's address (a guest spectator's chat limit).
    addr: Option<IpAddr>,
}

/// Whether a read failed because the message was over the size limits.
pub(crate) fn is_too_big(e: &axum::Error) -> bool {
    std::error::Error::source(e)
        .and_then(|s| s.downcast_ref::<tungstenite::Error>())
        .is_some_and(|e| matches!(e, tungstenite::Error::Capacity(_)))
}

/// Serves one WebSocket until it closes or the server stops.
pub async fn serve_socket(
    socket: WebSocket,
    shared: Arc<Shared>,
    user: Option<String>,
    addr: Option<IpAddr>,
) {
    shared.conn_opened();
    let conn = shared.next_conn_id();
    let opened = Instant::now();
    tracing::info!(conn, "connection accepted");
    let (mut sink, mut stream) = socket.split();
    let (outbox, mut rx) = mpsc::channel::<Utf8Bytes>(OUTBOX);
    let mut session = Session {
        shared: Arc::clone(&shared),
        conn,
        outbox,
        game: None,
        joined: None,
        user,
        addr,
    };
    let stop = Shared::stopped(shared.stop_signal());
    tokio::pin!(stop);
    let mut bucket = Bucket::new(shared.config.rate_per_sec, shared.config.rate_burst);
    // The server pings; a client that has sent nothing at all (not even the pong) for
    // a ping interval plus the pong timeout is gone.
    let every = shared.limits.ws_ping_interval;
    let silence = every + shared.limits.ws_pong_timeout;
    let mut ping = tokio::time::interval_at(Instant::now() + every, every);
    let mut last_heard = Instant::now();
    let mut dropped = 0u32;
    let close = |code: u16, reason: &'static str| {
        Message::Close(Some(CloseFrame {
            code,
            reason: Utf8Bytes::from_static(reason),
        }))
    };
    // Why the connection ended, for the log.
    let why: &str = loop {
        tokio::select! {
            incoming = stream.next() => {
                let msg = match incoming {
                    Some(Ok(m)) => {
                        last_heard = Instant::now();
                        m
                    }
                    // Past the limit the socket cannot be read on (the rest of the
                    // frame is unread), but it can still be told why it is closed.
                    Some(Err(e)) if is_too_big(&e) => {
                        let _ = sink.send(close(CLOSE_TOO_BIG, "message too big")).await;
                        break "message too big";
                    }
                    Some(Err(e)) => {
                        tracing::debug!(conn, "socket error: {e}");
                        break "socket error";
                    }
                    None => break "gone",
                };
                let text = match msg {
                    Message::Text(t) => t,
                    Message::Binary(_) => {
                        let e = ProtoError::new(ErrorCode::BadJson, "binary frames are not part of the protocol; send JSON text");
                        if !session.reply_error(&mut sink, &e, None).await { break "gone" }
                        continue;
                    }
                    Message::Close(_) => break "closed by the client",
                    Message::Ping(_) | Message::Pong(_) => continue,
                };
                if !bucket.take() {
                    dropped += 1;
                    if dropped > MAX_DROPPED {
                        let _ = sink.send(close(1008, "rate limit")).await;
                        drain(&mut stream).await;
                        break "rate limit";
                    }
                    let e = ProtoError::new(ErrorCode::RateLimited, format!("at most {} messages per second", bucket.rate));
                    if !session.reply_error(&mut sink, &e, None).await { break "gone" }
                    continue;
                }
                if let Err((t, e)) = session.handle(&text, &mut sink).await {
                    if !session.reply_error(&mut sink, &e, t.as_deref()).await { break "gone" }
                }
            }
            out = rx.recv() => match out {
                Some(text) => {
                    if sink.send(Message::Text(text)).await.is_err() {
                        break "gone";
                    }
                }
                // The game dropped this connection (too slow): it must reconnect.
                None => {
                    let _ = sink.send(close(1013, "too slow, reconnect")).await;
                    break "too slow";
                }
            },
            _ = ping.tick() => {
                if last_heard.elapsed() > silence {
                    let _ = sink.send(close(CLOSE_GOING_AWAY, "no answer to ping")).await;
                    break "ping timeout";
                }
                if sink.send(Message::Ping(Default::default())).await.is_err() {
                    break "gone";
                }
            }
            _ = &mut stop => {
                let _ = sink.send(close(CLOSE_GOING_AWAY, "server shutting down")).await;
                break "server shutting down";
            }
        }
    };
    if let Some(game) = &session.game {
        game.leave(conn).await;
    }
    shared.conn_closed();
    let (game, viewer) = match &session.joined {
        Some((g, v)) => (Some(tracing::field::display(g)), Some(viewer_name(*v))),
        None => (None, None),
    };
    tracing::info!(
        conn,
        game,
        viewer,
        why,
        secs = opened.elapsed().as_secs(),
        "connection closed"
    );
}

type Sink = futures_util::stream::SplitSink<WebSocket, Message>;

/// Sends a message the connection answers itself (version 0, docs/protocol.md §3.5);
/// false if the socket is gone.
async fn reply(sink: &mut Sink, msg: ClientOut) -> bool {
    let text = Outgoing::new(0, msg).to_text();
    sink.send(Message::Text(text.into())).await.is_ok()
}

/// After our close frame: reads (and drops) what the client still sends until its
/// close frame, for at most two seconds, so that closing with unread data does not
/// reset the connection and destroy the replies already sent.
async fn drain(stream: &mut futures_util::stream::SplitStream<WebSocket>) {
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        while let Some(Ok(m)) = stream.next().await {
            if matches!(m, Message::Close(_)) {
                break;
            }
        }
    })
    .await;
}

impl Session {
    /// Sends an error straight back; false if the socket is gone.
    async fn reply_error(&self, sink: &mut Sink, e: &ProtoError, in_: Option<&str>) -> bool {
        reply(sink, e.to_out(in_)).await
    }

    async fn handle(
        &mut self,
        text: &str,
        sink: &mut Sink,
    ) -> Result<(), (Option<String>, ProtoError)> {
        let inc = protocol::parse(text)?;
        let t = Some(inc.msg.type_name().to_string());
        match inc.msg {
            ClientIn::Ping { ts } => {
                reply(sink, ClientOut::Pong(PongOut { ts })).await;
                Ok(())
            }
            ClientIn::Join { game, token } => {
                if self.game.is_some() {
                    return Err((
                        t,
                        ProtoError::new(
                            ErrorCode::AlreadyJoined,
                            "this connection has joined a game",
                        ),
                    ));
                }
                // A game task may end (idle) between lookup and send: look up again.
                for _ in 0..3 {
                    let handle = match self.shared.game(&game).await {
                        Ok(Some(h)) => h,
                        Ok(None) => {
                            return Err((t, ProtoError::new(ErrorCode::NoGame, "no such game")));
                        }
                        Err(e) => {
                            tracing::error!("loading game {game}: {e}");
                            return Err((
                                t,
                                ProtoError::new(ErrorCode::Internal, "the game cannot be loaded"),
                            ));
                        }
                    };
                    let answer = handle
                        .join(
                            self.conn,
                            token.clone(),
                            self.user.clone(),
                            self.addr,
                            self.outbox.clone(),
                        )
                        .await;
                    return match answer {
                        Err(_gone) => {
                            tokio::time::sleep(Duration::from_millis(10)).await;
                            continue;
                        }
                        Ok(Ok(viewer)) => {
                            tracing::info!(
                                conn = self.conn,
                                %game,
                                viewer = viewer_name(viewer),
                                "connection joined"
                            );
                            self.game = Some(handle);
                            self.joined = Some((game, viewer));
                            Ok(())
                        }
                        Ok(Err(e)) => Err((t, e)),
                    };
                }
                Err((
                    t,
                    ProtoError::new(ErrorCode::Internal, "the game is unavailable"),
                ))
            }
            msg => {
                let Some(game) = &self.game else {
                    return Err((t, ProtoError::new(ErrorCode::NotJoined, "send join first")));
                };
                if game.client(self.conn, msg, inc.v).await.is_err() {
                    return Err((
                        t,
                        ProtoError::new(ErrorCode::Internal, "the game stopped; reconnect"),
                    ));
                }
                Ok(())
            }
        }
    }
}
