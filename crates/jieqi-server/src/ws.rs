//! One task per WebSocket: reads client messages (with size and rate limits), answers
//! what it can itself, and forwards the rest to the game's task.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::{SinkExt, StreamExt};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use crate::Shared;
use crate::actor::Cmd;
use crate::protocol::{self, ClientIn, ProtoError};

/// Frames larger than this close the connection (code 1009).
pub const MAX_FRAME_BYTES: usize = 64 * 1024;
/// Sustained messages per second per connection (default).
pub const RATE_PER_SEC: f64 = 20.0;
/// Burst allowance (default).
pub const RATE_BURST: f64 = 40.0;
/// Dropped messages after which the connection is closed (code 1008).
pub const MAX_DROPPED: u32 = 200;
/// Outgoing queue length per connection; a client this far behind is disconnected.
pub const OUTBOX: usize = 128;

/// A token bucket.
struct Bucket {
    tokens: f64,
    at: Instant,
    rate: f64,
    burst: f64,
}

impl Bucket {
    fn new(rate: f64, burst: f64) -> Bucket {
        Bucket {
            tokens: burst,
            at: Instant::now(),
            rate,
            burst,
        }
    }

    fn take(&mut self) -> bool {
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
    game: Option<mpsc::Sender<Cmd>>,
}

/// Serves one WebSocket until it closes or the server stops.
pub async fn serve_socket(socket: WebSocket, shared: Arc<Shared>) {
    shared.conn_opened();
    let conn = shared.next_conn_id();
    let (mut sink, mut stream) = socket.split();
    let (outbox, mut rx) = mpsc::channel::<Utf8Bytes>(OUTBOX);
    let mut session = Session {
        shared: Arc::clone(&shared),
        conn,
        outbox,
        game: None,
    };
    let stop = Shared::stopped(shared.stop_signal());
    tokio::pin!(stop);
    let mut bucket = Bucket::new(shared.config.rate_per_sec, shared.config.rate_burst);
    let mut dropped = 0u32;
    let close = |code: u16, reason: &'static str| {
        Message::Close(Some(CloseFrame {
            code,
            reason: Utf8Bytes::from_static(reason),
        }))
    };
    loop {
        tokio::select! {
            incoming = stream.next() => {
                let msg = match incoming {
                    Some(Ok(m)) => m,
                    Some(Err(e)) => {
                        tracing::debug!(conn, "socket error: {e}");
                        break;
                    }
                    None => break,
                };
                let text = match msg {
                    Message::Text(t) => t,
                    Message::Binary(_) => {
                        let e = ProtoError::new("bad_json", "binary frames are not part of the protocol; send JSON text");
                        if !session.reply_error(&mut sink, &e, None).await { break }
                        continue;
                    }
                    Message::Close(_) => break,
                    Message::Ping(_) | Message::Pong(_) => continue,
                };
                if !bucket.take() {
                    dropped += 1;
                    if dropped > MAX_DROPPED {
                        let _ = sink.send(close(1008, "rate limit")).await;
                        break;
                    }
                    let e = ProtoError::new("rate_limited", format!("at most {} messages per second", bucket.rate));
                    if !session.reply_error(&mut sink, &e, None).await { break }
                    continue;
                }
                if let Err((t, e)) = session.handle(&text, &mut sink).await {
                    if !session.reply_error(&mut sink, &e, t.as_deref()).await { break }
                }
            }
            out = rx.recv() => match out {
                Some(text) => {
                    if sink.send(Message::Text(text)).await.is_err() {
                        break;
                    }
                }
                // The game dropped this connection (too slow): it must reconnect.
                None => {
                    let _ = sink.send(close(1013, "too slow, reconnect")).await;
                    break;
                }
            },
            _ = &mut stop => {
                let _ = sink.send(close(1001, "server shutting down")).await;
                break;
            }
        }
    }
    if let Some(game) = &session.game {
        let _ = game.send(Cmd::Leave { conn }).await;
    }
    shared.conn_closed();
}

type Sink = futures_util::stream::SplitSink<WebSocket, Message>;

impl Session {
    /// Sends an error straight back; false if the socket is gone.
    async fn reply_error(&self, sink: &mut Sink, e: &ProtoError, in_: Option<&str>) -> bool {
        let text = protocol::error_message(0, e, in_);
        sink.send(Message::Text(text.into())).await.is_ok()
    }

    async fn handle(
        &mut self,
        text: &str,
        sink: &mut Sink,
    ) -> Result<(), (Option<String>, ProtoError)> {
        let inc = protocol::parse(text)?;
        let t = Some(protocol::type_name(&inc.msg).to_string());
        match inc.msg {
            ClientIn::Ping { ts } => {
                let text = protocol::envelope("pong", 0, serde_json::json!({ "ts": ts }));
                let _ = sink.send(Message::Text(text.into())).await;
                Ok(())
            }
            ClientIn::Join { game, token } => {
                if self.game.is_some() {
                    return Err((
                        t,
                        ProtoError::new("already_joined", "this connection has joined a game"),
                    ));
                }
                // A game task may end (idle) between lookup and send: look up again.
                for _ in 0..3 {
                    let tx = match self.shared.game(&game).await {
                        Ok(Some(tx)) => tx,
                        Ok(None) => {
                            return Err((t, ProtoError::new("no_game", "no such game")));
                        }
                        Err(e) => {
                            tracing::error!("loading game {game}: {e}");
                            return Err((
                                t,
                                ProtoError::new("internal", "the game cannot be loaded"),
                            ));
                        }
                    };
                    let (reply, answer) = oneshot::channel();
                    let cmd = Cmd::Join {
                        conn: self.conn,
                        token: token.clone(),
                        outbox: self.outbox.clone(),
                        reply,
                    };
                    if tx.send(cmd).await.is_err() {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    }
                    return match answer.await {
                        Ok(Ok(())) => {
                            self.game = Some(tx);
                            Ok(())
                        }
                        Ok(Err(e)) => Err((t, e)),
                        Err(_) => Err((t, ProtoError::new("internal", "the game stopped"))),
                    };
                }
                Err((t, ProtoError::new("internal", "the game is unavailable")))
            }
            msg => {
                let Some(game) = &self.game else {
                    return Err((t, ProtoError::new("not_joined", "send join first")));
                };
                let cmd = Cmd::Client {
                    conn: self.conn,
                    msg,
                    v: inc.v,
                };
                if game.send(cmd).await.is_err() {
                    return Err((
                        t,
                        ProtoError::new("internal", "the game stopped; reconnect"),
                    ));
                }
                Ok(())
            }
        }
    }
}
