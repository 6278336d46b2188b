//! The analysis board (docs/web.md, "Analysis board"; docs/protocol.md §9): a socket
//! that streams the engine's lines for any position as the viewer knows it
//! ([`socket`], `/ws/analysis`), the start position of a game's analysis under the
//! hidden-information rules ([`view`]), and whole-game analysis stored with the game
//! ([`game`]). Everything runs on the bounded [`AnalysisPool`](crate::engine::AnalysisPool),
//! apart from the engine games' threads, with its per-client limit.

pub mod game;
pub mod request;
pub mod socket;
pub mod view;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::json;

pub use game::Jobs;

use crate::Shared;
use crate::http::{ApiError, finished_game};
use crate::room::stored::replay_stored;
use crate::util;

/// The analysis board's routes.
pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/analysis", get(crate::http::page))
        .route("/analysis/{id}", get(crate::http::page))
        .route("/ws/analysis", get(socket::upgrade))
        .route("/api/analysis/start", get(start))
        .route(
            "/api/games/{id}/analysis",
            get(game_analysis).post(start_game_analysis),
        )
}

#[derive(Deserialize)]
struct StartQuery {
    game: String,
    ply: Option<usize>,
    seat: Option<String>,
}

/// `GET /api/analysis/start?game=ID&ply=N&seat=TOKEN`: the FEN the analysis board of a
/// game starts from, as the asker may know it.
async fn start(
    State(shared): State<Arc<Shared>>,
    Query(q): Query<StartQuery>,
) -> Result<Response, ApiError> {
    if !util::is_game_id(&q.game) {
        return Err(ApiError::NoGame(q.game));
    }
    if shared.tournaments.is_private(&q.game) {
        return Err(ApiError::Private);
    }
    let stored = shared
        .store
        .load(&q.game)
        .await?
        .ok_or_else(|| ApiError::NoGame(q.game.clone()))?;
    let (game, _, _) = replay_stored(&stored)?;
    let finished = stored.finish.is_some();
    let viewer = view::viewer_of(&stored, finished, q.seat.as_deref());
    let plies = game.plies().len();
    let ply = q.ply.unwrap_or(plies);
    if ply > plies {
        return Err(ApiError::BadPly(ply, plies));
    }
    Ok(Json(json!({
        "game": q.game,
        "ply": ply,
        "plies": plies,
        "finished": finished,
        "viewer": view::viewer_label(viewer),
        "fen": view::fen_for(&game, viewer, ply),
    }))
    .into_response())
}

/// `GET /api/games/{id}/analysis`: the stored analysis, or the progress of a running one.
async fn game_analysis(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    if !util::is_game_id(&id) {
        return Err(ApiError::NoGame(id));
    }
    if let Some(text) = shared.store.game_analysis(&id).await? {
        return done(&text);
    }
    Ok(match shared.game_analyses.get(&id) {
        Some(job) => progress(&job),
        None => Json(json!({ "state": "none" })).into_response(),
    })
}

/// `POST /api/games/{id}/analysis`: starts analysing a finished game (once).
async fn start_game_analysis(
    State(shared): State<Arc<Shared>>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let (_, game, _) = finished_game(&shared, &id).await?;
    if let Some(text) = shared.store.game_analysis(&id).await? {
        return done(&text);
    }
    if let Some(job) = shared.game_analyses.get(&id) {
        return Ok(progress(&job));
    }
    let slot = shared
        .analysis
        .reserve(client.ip())
        .map_err(|_| ApiError::Busy)?;
    let job = Jobs::start(&shared, &id, game, slot);
    Ok(progress(&job))
}

fn done(text: &str) -> Result<Response, ApiError> {
    let analysis: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(Json(json!({ "state": "done", "analysis": analysis })).into_response())
}

fn progress(job: &game::Job) -> Response {
    (
        StatusCode::ACCEPTED,
        Json(json!({
            "state": "running",
            "done": job.done.load(Ordering::Relaxed),
            "total": job.total,
        })),
    )
        .into_response()
}
