//! One task per lobby socket (`/ws/lobby`): reads messages with the game socket's
//! limits (size, rate, ping), checks a seek's terms, reads the player's ratings, and
//! forwards to the lobby's task. The connection's seeks live as long as it does.

use std::sync::Arc;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::{SinkExt, StreamExt};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::LobbyHandle;
use super::pool::{Identity, Seeker};
use crate::Shared;
use crate::protocol::lobby::{self, LobbyError, LobbyErrorCode, LobbyIn, LobbyOut};
use crate::protocol::out::PongOut;
use crate::rating::{ByCategory, Rating};
use crate::ws::{Bucket, CLOSE_GOING_AWAY, CLOSE_TOO_BIG, MAX_DROPPED, OUTBOX, is_too_big};

type Sink = futures_util::stream::SplitSink<WebSocket, Message>;

/// Seeks and cancels per second a connection may send (sustained): each one changes
/// every lobby's list, so they are held to less than the other messages.
pub const SEEK_RATE_PER_SEC: f64 = 2.0;
/// Seeks and cancels in a burst.
pub const SEEK_BURST: f64 = 10.0;

/// Sends a message the socket answers itself (version 0); false if the socket is gone.
async fn reply(sink: &mut Sink, msg: LobbyOut) -> bool {
    sink.send(Message::Text(msg.to_text(0).into()))
        .await
        .is_ok()
}

/// Serves one lobby socket of `user` (logged in) or a guest, from the browser of the
/// CSRF cookie `browser`, until it closes or the server stops.
pub async fn serve(
    socket: WebSocket,
    shared: Arc<Shared>,
    user: Option<String>,
    browser: Option<String>,
) {
    shared.conn_opened();
    let conn = shared.next_conn_id();
    let opened = Instant::now();
    let who = Identity {
        conn,
        user,
        browser,
    };
    tracing::info!(
        conn,
        user = who.user.as_deref(),
        "lobby connection accepted"
    );
    let (mut sink, mut stream) = socket.split();
    let (outbox, mut rx) = mpsc::channel::<Utf8Bytes>(OUTBOX);
    let lobby = shared.lobby.handle(&shared);
    if lobby.enter(who.clone(), outbox).await.is_err() {
        shared.conn_closed();
        return;
    }
    let stop = Shared::stopped(shared.stop_signal());
    tokio::pin!(stop);
    let mut bucket = Bucket::new(shared.config.rate_per_sec, shared.config.rate_burst);
    let mut seek_bucket = Bucket::new(SEEK_RATE_PER_SEC, SEEK_BURST);
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
    let why: &str = loop {
        tokio::select! {
            incoming = stream.next() => {
                let text = match incoming {
                    Some(Ok(Message::Text(t))) => t,
                    Some(Ok(Message::Binary(_))) => {
                        last_heard = Instant::now();
                        let e = LobbyError::new(LobbyErrorCode::BadJson, "binary frames are not part of the protocol; send JSON text");
                        if !reply(&mut sink, e.to_out(None)).await { break "gone" }
                        continue;
                    }
                    Some(Ok(Message::Close(_))) => break "closed by the client",
                    Some(Ok(_)) => {
                        last_heard = Instant::now();
                        continue;
                    }
                    Some(Err(e)) if is_too_big(&e) => {
                        let _ = sink.send(close(CLOSE_TOO_BIG, "message too big")).await;
                        break "message too big";
                    }
                    Some(Err(_)) => break "socket error",
                    None => break "gone",
                };
                last_heard = Instant::now();
                if !bucket.take() {
                    dropped += 1;
                    if dropped > MAX_DROPPED {
                        let _ = sink.send(close(1008, "rate limit")).await;
                        break "rate limit";
                    }
                    let e = LobbyError::new(LobbyErrorCode::RateLimited, format!("at most {} messages per second", shared.config.rate_per_sec));
                    if !reply(&mut sink, e.to_out(None)).await { break "gone" }
                    continue;
                }
                match handle(&shared, &lobby, &who, &mut seek_bucket, &text).await {
                    Ok(Some(answer)) => {
                        if !reply(&mut sink, answer).await { break "gone" }
                    }
                    Ok(None) => {}
                    Err((t, e)) => {
                        if !reply(&mut sink, e.to_out(t.as_deref())).await { break "gone" }
                    }
                }
            }
            out = rx.recv() => match out {
                Some(text) => {
                    if sink.send(Message::Text(text)).await.is_err() {
                        break "gone";
                    }
                }
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
    lobby.leave(conn).await;
    shared.conn_closed();
    tracing::info!(
        conn,
        why,
        secs = opened.elapsed().as_secs(),
        "lobby connection closed"
    );
}

/// The player with his ratings as of now (a guest has none).
async fn seeker(shared: &Shared, who: &Identity) -> Result<Seeker, LobbyError> {
    let ratings = match &who.user {
        None => None,
        Some(user) => {
            let stored = shared.store.ratings(user).await.map_err(|e| {
                tracing::error!("reading the ratings of a seeker: {e}");
                LobbyError::new(LobbyErrorCode::Internal, "your ratings cannot be read")
            })?;
            Some(ByCategory::new_with(|c| {
                stored
                    .iter()
                    .find(|r| r.category == c)
                    .map_or_else(Rating::default, |r| r.rating)
            }))
        }
    };
    Ok(Seeker {
        who: who.clone(),
        ratings,
    })
}

/// One message: an immediate answer, nothing (the lobby's task answers), or an error.
async fn handle(
    shared: &Shared,
    lobby: &LobbyHandle,
    who: &Identity,
    seek_bucket: &mut Bucket,
    text: &str,
) -> Result<Option<LobbyOut>, (Option<String>, LobbyError)> {
    let msg = lobby::parse(text)?;
    let t = Some(msg.type_name().to_string());
    // Seeks and cancels that would reach the pool count against their own rate.
    let mut held = |t: &Option<String>| {
        if seek_bucket.take() {
            return Ok(());
        }
        let e = format!("at most {SEEK_RATE_PER_SEC} seeks and cancels per second");
        Err((t.clone(), LobbyError::new(LobbyErrorCode::RateLimited, e)))
    };
    let gone = || LobbyError::new(LobbyErrorCode::Internal, "the lobby is stopping; reconnect");
    let sent = match msg {
        LobbyIn::Ping { ts } => return Ok(Some(LobbyOut::Pong(PongOut { ts }))),
        LobbyIn::Seek {
            time,
            move_time,
            rated,
            color,
            range,
        } => {
            let terms =
                super::terms(&time, move_time, rated, color.as_deref(), range).map_err(|e| {
                    (
                        t.clone(),
                        LobbyError::new(LobbyErrorCode::BadData, format!("seek: {e}")),
                    )
                })?;
            held(&t)?;
            let seeker = seeker(shared, who).await.map_err(|e| (t.clone(), e))?;
            lobby.seek(seeker, terms).await
        }
        LobbyIn::Accept { id } => {
            let seeker = seeker(shared, who).await.map_err(|e| (t.clone(), e))?;
            lobby.accept(seeker, id).await
        }
        LobbyIn::Cancel { id } => {
            held(&t)?;
            lobby.cancel(who.clone(), id).await
        }
    };
    sent.map(|()| None).map_err(|_| (t, gone()))
}
