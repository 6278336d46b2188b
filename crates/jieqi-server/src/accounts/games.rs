//! A logged-in player's unfinished games, on any device (docs/protocol.md §7, "Your
//! games"): the list, and the seat token of one of them, handed only to the account
//! that holds the seat. The token stays the capability that plays a seat; the session
//! only lets its owner fetch it again where this browser never had it.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use jieqi_core::Color;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::routes::current_user;
use crate::Shared;
use crate::http::{ApiError, GameSummary, game_summary, seat_answer};
use crate::store::Summary;
use crate::{request, util};

/// The most games the list holds (the last changed first).
pub const LIMIT: u32 = 50;

/// The routes of the logged-in player's games.
pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/api/account/games", get(list))
        .route("/api/account/games/{id}/seat", post(seat))
}

/// The session's account, or `401 login_required`.
async fn logged_in_user(shared: &Shared, headers: &HeaderMap) -> Result<String, ApiError> {
    current_user(shared, headers)
        .await?
        .ok_or(ApiError::LoginRequired(
            "your games are listed for a logged-in player: log in",
        ))
}

/// One unfinished game of the player: its lobby line and what it is for him.
#[derive(Serialize)]
struct LiveGameOut {
    #[serde(flatten)]
    game: GameSummary,
    /// The player's colour.
    color: &'static str,
    /// The opponent's account; `null` for a guest, an engine or a free seat.
    opponent: Option<String>,
    /// Who is to move (Red moves first; no passes).
    turn: &'static str,
}

fn live_game_out(s: &Summary, color: Color) -> LiveGameOut {
    let turn = if s.plies % 2 == 0 {
        Color::Red
    } else {
        Color::Black
    };
    LiveGameOut {
        game: game_summary(s),
        color: color.name(),
        opponent: s.users[!color].clone(),
        turn: turn.name(),
    }
}

async fn list(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Result<Response, ApiError> {
    let user = logged_in_user(&shared, &headers).await?;
    let games: Vec<LiveGameOut> = shared
        .store
        .live_games(&user, LIMIT)
        .await?
        .iter()
        .map(|(s, color)| live_game_out(s, *color))
        .collect();
    Ok(Json(json!({ "games": games })).into_response())
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct SeatReq {
    /// Which seat, for a player who holds both (default: Red's).
    color: Option<String>,
}

async fn seat(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let req: SeatReq = request::json_object_or_default(&request::bytes(body)?)?;
    let wanted =
        match req.color.as_deref() {
            None => None,
            Some(c) => Some(Color::parse_name(c).ok_or_else(|| {
                ApiError::BadRequest(format!("color {c:?}: expected red or black"))
            })?),
        };
    let user = logged_in_user(&shared, &headers).await?;
    if !util::is_game_id(&id) {
        return Err(ApiError::NoGame(id));
    }
    let stored = shared
        .store
        .load(&id)
        .await?
        .ok_or_else(|| ApiError::NoGame(id.clone()))?;
    let seats = &stored.new.seats;
    let holds = |c: Color| seats[c].user.as_deref() == Some(user.as_str());
    let color = match wanted {
        Some(c) => Some(c).filter(|&c| holds(c)),
        None => Color::ALL.into_iter().find(|&c| holds(c)),
    }
    .ok_or(ApiError::NotYourSeat)?;
    tracing::info!(game = %id, seat = color.name(), "seat handed to its account");
    Ok(seat_answer(&id, color, &seats[color].token))
}
