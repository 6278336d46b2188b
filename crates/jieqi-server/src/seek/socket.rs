//! One task per lobby socket (`/ws/lobby`): reads messages through an [`Inbox`] with
//! the game socket's limits (size, rate, ping), checks a seek's terms, reads the player's ratings, and
//! forwards to the lobby's task. The connection's seeks live as long as it does.

use std::sync::Arc;

use axum::extract::ws::{Utf8Bytes, WebSocket};
use tokio::time::Instant;

use super::LobbyHandle;
use super::pool::{Identity, Seeker};
use crate::Shared;
use crate::protocol::lobby::{self, LobbyError, LobbyErrorCode, LobbyIn, LobbyOut};
use crate::protocol::out::PongOut;
use crate::rating::{ByCategory, Rating};
use crate::socket::{Bucket, Inbox, Refusal};

/// Seeks and cancels per second a connection may send (sustained): each one changes
/// every lobby's list, so they are held to less than the other messages.
pub const SEEK_RATE_PER_SEC: f64 = 2.0;
/// Seeks and cancels in a burst.
pub const SEEK_BURST: f64 = 10.0;

/// Sends a message the socket answers itself (version 0); false if the socket is gone.
async fn reply(inbox: &mut Inbox, msg: LobbyOut) -> bool {
    inbox.send(msg.to_text(0).into()).await
}

/// The lobby protocol's error for a message the inbox refused unread.
fn refused(r: Refusal) -> Utf8Bytes {
    let code = match r {
        Refusal::Binary => LobbyErrorCode::BadJson,
        Refusal::RateLimited(_) => LobbyErrorCode::RateLimited,
    };
    LobbyError::new(code, r.to_string())
        .to_out(None)
        .to_text(0)
        .into()
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
    let (mut inbox, outbox) = Inbox::new(socket, &shared);
    let lobby = shared.lobby.handle(&shared);
    if lobby.enter(who.clone(), outbox).await.is_err() {
        shared.conn_closed();
        return;
    }
    let mut seek_bucket = Bucket::new(SEEK_RATE_PER_SEC, SEEK_BURST);
    let why: &str = loop {
        let text = match inbox.next_text(refused).await {
            Ok(t) => t,
            Err(why) => break why,
        };
        let answer = match handle(&shared, &lobby, &who, &mut seek_bucket, &text).await {
            Ok(Some(answer)) => answer,
            Ok(None) => continue,
            Err((t, e)) => e.to_out(t.as_deref()),
        };
        if !reply(&mut inbox, answer).await {
            break "gone";
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
