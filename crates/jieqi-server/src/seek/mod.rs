//! Quick pairing (docs/server.md, "Quick pairing"): seeks from the lobby's
//! time-control tiles and custom form, a live seek list pushed to every lobby, and
//! pairing at once when two seeks fit.
//!
//! The pool is a pure state machine ([`pool`]); one task owns it ([`hub`]), the thin
//! async shell that broadcasts the list and creates the paired games; one task per
//! lobby socket ([`socket`], `/ws/lobby`) reads messages and forwards them.

pub mod hub;
pub mod pool;
pub mod socket;

use std::sync::Arc;

use axum::Router;
use axum::extract::{State, WebSocketUpgrade};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use jieqi_core::Color;

pub use hub::{Lobby, LobbyHandle};
pub use pool::{Identity, Pool, PoolLimits, Seek, SeekError, Seeker, Terms};

use crate::accounts::csrf;
use crate::accounts::routes::current_user;
use crate::accounts::session::cookie;
use crate::clock::TimeControl;
use crate::http::ApiError;
use crate::node::forward;
use crate::protocol::lobby::{LobbyError, LobbyErrorCode};
use crate::{Shared, ws};

/// The narrowest rating range a seek may ask for (±).
pub const MIN_RANGE: u32 = 50;
/// The widest (wider: ask for anyone, `null`).
pub const MAX_RANGE: u32 = 1000;

/// The terms of a `seek` message, checked; the error names the field.
pub fn terms(
    time: &str,
    move_time: Option<u64>,
    rated: bool,
    color: Option<&str>,
    range: Option<u32>,
) -> Result<Terms, String> {
    let tc = TimeControl::parse(time, move_time)
        .map_err(|e| e.to_string())?
        .ok_or("time \"none\": a seek needs a clock")?;
    let color = match color.unwrap_or("random") {
        "random" => None,
        "red" => Some(Color::Red),
        "black" => Some(Color::Black),
        c => {
            let shown: String = c.chars().take(16).collect();
            return Err(format!("color {shown:?}: expected red, black or random"));
        }
    };
    if let Some(r) = range
        && !(MIN_RANGE..=MAX_RANGE).contains(&r)
    {
        return Err(format!(
            "range {r}: expected {MIN_RANGE} to {MAX_RANGE} (or null for anyone)"
        ));
    }
    Ok(Terms {
        tc,
        rated,
        color,
        range,
    })
}

impl From<SeekError> for LobbyError {
    fn from(e: SeekError) -> LobbyError {
        let code = match &e {
            SeekError::LoginRequired(_) => LobbyErrorCode::LoginRequired,
            SeekError::TooManySeeks(_) => LobbyErrorCode::TooManySeeks,
            SeekError::PoolFull => LobbyErrorCode::PoolFull,
            SeekError::NoSeek(_) => LobbyErrorCode::NoSeek,
            SeekError::OwnSeek => LobbyErrorCode::OwnSeek,
            SeekError::OutOfRange { .. } => LobbyErrorCode::OutOfRange,
        };
        LobbyError::new(code, e.to_string())
    }
}

/// The lobby socket's route.
pub fn routes() -> Router<Arc<Shared>> {
    Router::new().route("/ws/lobby", get(upgrade))
}

/// Opens a lobby socket. The session cookie says who seeks, so a page of another site
/// must not open one in a visitor's name: a foreign `Origin` is refused (`403 csrf`).
async fn upgrade(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    if csrf::foreign_origin(&headers) {
        return Err(ApiError::Csrf(
            "cross-site lobby connection refused: its Origin is not this server",
        ));
    }
    // One node holds the seek pool; the others relay their lobby sockets to it.
    if let Some(node) = &shared.node
        && !forward::is_forwarded(&headers)
        && let Some(addr) = node.lobby_holder(&shared).await?
    {
        let up = forward::connect(&addr, "/ws/lobby", &headers)
            .await
            .map_err(ApiError::Unavailable)?;
        return Ok(ws
            .max_message_size(ws::MAX_FRAME_BYTES)
            .max_frame_size(ws::MAX_FRAME_BYTES)
            .on_upgrade(move |socket| forward::pipe(socket, up))
            .into_response());
    }
    let user = current_user(&shared, &headers).await?;
    let browser = cookie(&headers, csrf::COOKIE)
        .filter(|c| csrf::is_token(c))
        .map(str::to_string);
    Ok(ws
        .max_message_size(ws::MAX_FRAME_BYTES)
        .max_frame_size(ws::MAX_FRAME_BYTES)
        .read_buffer_size(ws::READ_BUFFER_BYTES)
        .write_buffer_size(0)
        .max_write_buffer_size(ws::MAX_FRAME_BYTES * 4)
        .on_upgrade(move |socket| socket::serve(socket, shared, user, browser))
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seek_fields_are_checked() {
        let t = terms("3+2", Some(30), true, Some("black"), Some(200)).unwrap();
        assert_eq!(t.tc.base_ms, 180_000);
        assert_eq!(t.tc.move_ms, Some(30_000));
        assert_eq!(t.color, Some(Color::Black));
        assert!(
            terms("3+2", None, false, None, None)
                .unwrap()
                .color
                .is_none()
        );
        for (time, mt, color, range, field) in [
            ("none", None, None, None, "time"),
            ("3+x", None, None, None, "time"),
            ("999+0", None, None, None, "time"),
            ("3+2", Some(1), None, None, "move_time"),
            ("3+2", None, Some("green"), None, "color"),
            ("3+2", None, None, Some(10), "range"),
            ("3+2", None, None, Some(5000), "range"),
        ] {
            let e = terms(time, mt, false, color, range).unwrap_err();
            assert!(e.starts_with(field), "{field}: {e}");
        }
    }
}
