//! What every WebSocket of the server does the same way, whatever it speaks (the game
//! socket [`crate::ws`], the lobby's [`crate::seek::socket`], the analysis socket
//! [`crate::analysis::socket`]): the size limit, the rate limit, the server's pings and
//! the timeout of a silent client, the outgoing queue and shutdown (docs/server.md,
//! "Limits"). An [`Inbox`] hands its socket's task only the text messages to handle
//! (refusals answered in the socket's own protocol), or the reason it closed.

use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::StreamExt;
use tokio::sync::mpsc;
use tokio::time::{Instant, Interval};
use tokio_tungstenite::tungstenite;

use crate::Shared;
use crate::stop::Stopped;

/// The close code for a message over the socket's size limit (RFC 6455 §7.4.1).
pub const CLOSE_TOO_BIG: u16 = 1009;
/// The close code for a client that stopped answering pings, and for shutdown.
pub const CLOSE_GOING_AWAY: u16 = 1001;
/// The close code for a client past the rate limit for too long (policy violation).
pub const CLOSE_POLICY: u16 = 1008;
/// The close code for a client too slow to read what it is sent ("try again later").
pub const CLOSE_TRY_AGAIN: u16 = 1013;
/// Dropped messages after which the connection is closed ([`CLOSE_POLICY`]).
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

/// Whether a read failed because the message was over the size limits.
pub(crate) fn is_too_big(e: &axum::Error) -> bool {
    std::error::Error::source(e)
        .and_then(|s| s.downcast_ref::<tungstenite::Error>())
        .is_some_and(|e| matches!(e, tungstenite::Error::Capacity(_)))
}

/// What the inbox met on the socket.
enum Event {
    /// A text message within the rate limit.
    Text(Utf8Bytes),
    /// A message refused unread.
    Refused(Refusal),
    /// The connection is over (a close frame was sent where one was due); why.
    Closed(&'static str),
}

/// A message the inbox refused without reading it; the socket's task says so in its
/// own protocol, with [`Refusal`]'s text as the message.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Refusal {
    /// A binary frame: part of no protocol of the server.
    Binary,
    /// A text message over the rate limit (this many messages per second), dropped.
    RateLimited(f64),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Binary => {
                f.write_str("binary frames are not part of the protocol; send JSON text")
            }
            Refusal::RateLimited(per_sec) => write!(f, "at most {per_sec} messages per second"),
        }
    }
}

/// One WebSocket's reading side with the limits, and its writing side.
pub struct Inbox {
    /// Read and written by this one task, so never split: a split socket takes a lock
    /// (`BiLock`) on every read and write.
    socket: WebSocket,
    outbox: mpsc::Receiver<Utf8Bytes>,
    stop: Stopped,
    bucket: Bucket,
    rate: f64,
    dropped: u32,
    ping: Interval,
    last_heard: Instant,
    silence: Duration,
}

fn close(code: u16, reason: &'static str) -> Message {
    Message::Close(Some(CloseFrame {
        code,
        reason: Utf8Bytes::from_static(reason),
    }))
}

impl Inbox {
    /// Takes over `socket` with the server's limits; the sender queues messages to it
    /// (the game's and the lobby's tasks, a running analysis).
    pub fn new(socket: WebSocket, shared: &Shared) -> (Inbox, mpsc::Sender<Utf8Bytes>) {
        let (tx, outbox) = mpsc::channel(OUTBOX);
        // The server pings; a client that has sent nothing at all (not even the pong)
        // for a ping interval plus the pong timeout is gone.
        let every = shared.limits.ws_ping_interval;
        let inbox = Inbox {
            socket,
            outbox,
            stop: shared.stopped(),
            bucket: Bucket::new(shared.config.rate_per_sec, shared.config.rate_burst),
            rate: shared.config.rate_per_sec,
            dropped: 0,
            ping: tokio::time::interval_at(Instant::now() + every, every),
            last_heard: Instant::now(),
            silence: every + shared.limits.ws_pong_timeout,
        };
        (inbox, tx)
    }

    /// Sends a text message; false if the socket is gone.
    pub async fn send(&mut self, text: Utf8Bytes) -> bool {
        self.socket.send(Message::Text(text)).await.is_ok()
    }

    /// The next text message to handle, or why the connection is over (for the log).
    /// Meanwhile it sends what is queued, pings, answers a refused message with
    /// `refused`'s text (the error of the socket's protocol) and closes the socket on
    /// a limit or at shutdown.
    pub async fn next_text(
        &mut self,
        refused: impl Fn(Refusal) -> Utf8Bytes,
    ) -> Result<Utf8Bytes, &'static str> {
        loop {
            match self.next().await {
                Event::Text(t) => return Ok(t),
                Event::Refused(r) => {
                    if !self.send(refused(r)).await {
                        return Err("gone");
                    }
                }
                Event::Closed(why) => return Err(why),
            }
        }
    }

    async fn next(&mut self) -> Event {
        loop {
            tokio::select! {
                incoming = self.socket.next() => {
                    let msg = match incoming {
                        Some(Ok(m)) => {
                            self.last_heard = Instant::now();
                            m
                        }
                        // Past the limit the socket cannot be read on (the rest of
                        // the frame is unread), but it can still be told why it is
                        // closed.
                        Some(Err(e)) if is_too_big(&e) => {
                            let _ = self.socket.send(close(CLOSE_TOO_BIG, "message too big")).await;
                            return Event::Closed("message too big");
                        }
                        Some(Err(e)) => {
                            tracing::debug!("socket error: {e}");
                            return Event::Closed("socket error");
                        }
                        None => return Event::Closed("gone"),
                    };
                    match msg {
                        Message::Text(t) => return self.admit(t).await,
                        Message::Binary(_) => return Event::Refused(Refusal::Binary),
                        Message::Close(_) => return Event::Closed("closed by the client"),
                        Message::Ping(_) | Message::Pong(_) => {}
                    }
                }
                out = self.outbox.recv() => match out {
                    Some(text) => {
                        if !self.send(text).await {
                            return Event::Closed("gone");
                        }
                    }
                    // Whoever fed the queue dropped this connection (too slow, or
                    // its game is served by another node now): it must reconnect.
                    // At shutdown the game's task ends too, and may be heard first.
                    None if self.stop.is_stopped() => return self.going_away().await,
                    None => {
                        let _ = self.socket.send(close(CLOSE_TRY_AGAIN, "reconnect")).await;
                        return Event::Closed("dropped");
                    }
                },
                _ = self.ping.tick() => {
                    if self.last_heard.elapsed() > self.silence {
                        let _ = self.socket.send(close(CLOSE_GOING_AWAY, "no answer to ping")).await;
                        return Event::Closed("ping timeout");
                    }
                    if self.socket.send(Message::Ping(Default::default())).await.is_err() {
                        return Event::Closed("gone");
                    }
                }
                _ = &mut self.stop => return self.going_away().await,
            }
        }
    }

    /// Closes the socket at shutdown.
    async fn going_away(&mut self) -> Event {
        let _ = self
            .socket
            .send(close(CLOSE_GOING_AWAY, "server shutting down"))
            .await;
        Event::Closed("server shutting down")
    }

    /// A text message through the rate limit.
    async fn admit(&mut self, text: Utf8Bytes) -> Event {
        if self.bucket.take() {
            return Event::Text(text);
        }
        self.dropped += 1;
        if self.dropped > MAX_DROPPED {
            let _ = self.socket.send(close(CLOSE_POLICY, "rate limit")).await;
            self.drain().await;
            return Event::Closed("rate limit");
        }
        Event::Refused(Refusal::RateLimited(self.rate))
    }

    /// After our close frame: reads (and drops) what the client still sends until its
    /// close frame, for at most two seconds, so that closing with unread data does not
    /// reset the connection and destroy the replies already sent.
    async fn drain(&mut self) {
        let stream = &mut self.socket;
        let _ = tokio::time::timeout(Duration::from_secs(2), async {
            while let Some(Ok(m)) = stream.next().await {
                if matches!(m, Message::Close(_)) {
                    break;
                }
            }
        })
        .await;
    }
}
