//! HTTP routes of tournaments: `/api/tournaments…` and the pages `/t`, `/t/{id}`
//! (docs/protocol.md §6).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use jieqi_core::Deal;
use jieqi_tournament::{
    DealMode, Format, GameResult, KnockoutConfig, PairOptions, PlayerId, Settings, TieBreakGame,
    Tournament,
};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::json;

use super::{Event, OrganiserAction, TError, game_options};
use crate::Shared;
use crate::request::{self, BodyError};
use crate::util::{new_game_id, new_token, now_ms};

impl IntoResponse for TError {
    fn into_response(self) -> Response {
        let (status, code) = match &self {
            TError::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad_request"),
            TError::NoTournament(_) => (StatusCode::NOT_FOUND, "no_tournament"),
            TError::BadToken(_) => (StatusCode::FORBIDDEN, "bad_token"),
            TError::Closed => (StatusCode::CONFLICT, "registration_closed"),
            TError::TooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "too_large"),
            TError::Refused(_) => (StatusCode::CONFLICT, "refused"),
            TError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        };
        if let TError::Internal(m) = &self {
            tracing::error!("{m}");
        }
        let body = json!({ "error": { "code": code, "message": self.to_string() } });
        (status, Json(body)).into_response()
    }
}

/// The tournament routes (merged into the server's router).
pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/t", get(crate::http::page))
        .route("/t/{id}", get(event_page))
        .route("/api/tournaments", post(create).get(list))
        .route("/api/tournaments/{id}", get(view))
        .route("/api/tournaments/{id}/join", post(join))
        .route("/api/tournaments/{id}/remove", post(remove))
        .route("/api/tournaments/{id}/start", post(start))
        .route("/api/tournaments/{id}/pair", post(pair))
        .route("/api/tournaments/{id}/unpair", post(unpair))
        .route("/api/tournaments/{id}/result", post(result))
        .route("/api/tournaments/{id}/contribute", post(contribute))
        .route("/api/tournaments/{id}/export", get(export))
}

/// `/t/ID`: the event page, or the not-found page for an event that does not exist.
async fn event_page(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    if super::event(&shared, &id).await.is_ok() {
        crate::http::page_html(&headers)
    } else {
        crate::http::not_found_page()
    }
}

impl From<BodyError> for TError {
    fn from(e: BodyError) -> TError {
        match e {
            BodyError::TooLarge => TError::TooLarge,
            BodyError::Bad(m) => TError::BadRequest(m),
        }
    }
}

/// The request body, or `413 too_large` past the 16 KiB limit.
fn body_of(body: Result<Bytes, BytesRejection>) -> Result<Bytes, TError> {
    Ok(request::bytes(body)?)
}

/// A JSON object body.
fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, TError> {
    Ok(request::json_object(body)?)
}

fn text_field(name: &str, v: &str, max: usize) -> Result<String, TError> {
    let v = v.trim();
    if v.is_empty() || v.chars().count() > max || v.chars().any(char::is_control) {
        return Err(TError::BadRequest(format!(
            "{name}: 1 to {max} characters, no control characters"
        )));
    }
    Ok(v.to_string())
}

#[derive(Deserialize)]
struct CreateReq {
    name: String,
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    rounds: Option<u32>,
    #[serde(default)]
    qualifiers: Option<u32>,
    #[serde(default)]
    best_of: Option<u32>,
    #[serde(default)]
    tie_break: Option<String>,
    #[serde(default)]
    third_place: Option<bool>,
    #[serde(default)]
    deal_mode: Option<String>,
    #[serde(default)]
    time: Option<String>,
    #[serde(default)]
    move_time: Option<u64>,
    #[serde(default)]
    rules: Option<String>,
}

fn range(name: &str, v: u32, lo: u32, hi: u32) -> Result<u32, TError> {
    if (lo..=hi).contains(&v) {
        Ok(v)
    } else {
        Err(TError::BadRequest(format!(
            "{name} {v}: expected {lo} to {hi}"
        )))
    }
}

fn deal_mode(s: &str) -> Result<DealMode, TError> {
    DealMode::parse(s).ok_or_else(|| {
        TError::BadRequest(format!(
            "deal_mode {s:?}: expected random, duplicate, organiser or joint"
        ))
    })
}

fn settings_of(req: &CreateReq) -> Result<Settings, TError> {
    let knockout = || -> Result<KnockoutConfig, TError> {
        Ok(KnockoutConfig {
            best_of: range("best_of", req.best_of.unwrap_or(3), 1, 9)?,
            tie_break: match req.tie_break.as_deref().unwrap_or("armageddon") {
                "armageddon" => TieBreakGame::Armageddon,
                "sudden-death" => TieBreakGame::SuddenDeath,
                "higher-seed" => TieBreakGame::HigherSeed,
                x => {
                    return Err(TError::BadRequest(format!(
                        "tie_break {x:?}: expected armageddon, sudden-death or higher-seed"
                    )));
                }
            },
            third_place: req.third_place.unwrap_or(false),
        })
    };
    let rounds = || range("rounds", req.rounds.unwrap_or(5), 1, 30);
    let format = match req.format.as_deref().unwrap_or("swiss") {
        "swiss" => Format::Swiss { rounds: rounds()? },
        "round-robin" => Format::RoundRobin { cycles: 1 },
        "double-round-robin" => Format::RoundRobin { cycles: 2 },
        "knockout" => Format::Knockout(knockout()?),
        "swiss-knockout" => Format::SwissKnockout {
            swiss_rounds: rounds()?,
            qualifiers: range("qualifiers", req.qualifiers.unwrap_or(8), 2, 64)?,
            knockout: knockout()?,
        },
        "hk2011" => Format::hong_kong_2011(),
        f => {
            return Err(TError::BadRequest(format!(
                "format {f:?}: expected swiss, round-robin, double-round-robin, knockout, swiss-knockout or hk2011"
            )));
        }
    };
    let mut s = Settings::new(format);
    s.deal_mode = deal_mode(req.deal_mode.as_deref().unwrap_or("random"))?;
    Ok(s)
}

async fn create(
    State(shared): State<Arc<Shared>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, TError> {
    let req: CreateReq = parse(&body_of(body)?)?;
    let name = text_field("name", &req.name, 80)?;
    let settings = settings_of(&req)?;
    let time = req.time.clone().unwrap_or_else(|| "10+5".into());
    let rules = req.rules.clone().unwrap_or_else(|| "standard".into());
    game_options(&time, req.move_time, &rules)?;
    let state = Tournament::new(&name, settings)?;
    let e = Event {
        id: new_game_id(),
        organiser_token: new_token(),
        created_ms: now_ms(),
        started: false,
        time,
        move_time: req.move_time,
        rules,
        entrants: Vec::new(),
        boards: Vec::new(),
        state,
    };
    super::create(&shared, e.clone()).await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({
            "id": e.id,
            "organiser_token": e.organiser_token,
            "organiser_url": format!("/t/{}?org={}", e.id, e.organiser_token),
            "join_url": format!("/t/{}", e.id),
        })),
    )
        .into_response())
}

#[derive(Deserialize)]
struct ListQuery {
    limit: Option<usize>,
}

async fn list(
    State(shared): State<Arc<Shared>>,
    Query(q): Query<ListQuery>,
) -> Result<Response, TError> {
    let limit = q.limit.unwrap_or(50);
    if !(1..=200).contains(&limit) {
        return Err(TError::BadRequest(format!(
            "limit {limit}: expected 1 to 200"
        )));
    }
    let rows = super::list(&shared, limit).await;
    Ok(Json(json!({ "tournaments": rows })).into_response())
}

#[derive(Deserialize)]
struct TokenQuery {
    token: Option<String>,
}

async fn view(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    Query(q): Query<TokenQuery>,
) -> Result<Response, TError> {
    let v = super::view(&shared, &id, q.token.as_deref()).await?;
    Ok(Json(v).into_response())
}

#[derive(Deserialize)]
struct JoinReq {
    name: String,
    #[serde(default)]
    rating: Option<u32>,
}

async fn join(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, TError> {
    let req: JoinReq = parse(&body_of(body)?)?;
    let name = text_field("name", &req.name, 40)?;
    if let Some(r) = req.rating {
        range("rating", r, 0, 4000)?;
    }
    let (player, token) = super::join(&shared, &id, &name, req.rating).await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({
            "player": player,
            "token": token,
            "url": format!("/t/{id}?player={token}"),
        })),
    )
        .into_response())
}

#[derive(Deserialize)]
struct OrgReq {
    token: String,
    #[serde(default)]
    player: Option<PlayerId>,
    #[serde(default)]
    deal_mode: Option<String>,
    #[serde(default)]
    deals: Option<Vec<String>>,
    #[serde(default)]
    round: Option<usize>,
    #[serde(default)]
    board: Option<usize>,
    #[serde(default)]
    result: Option<String>,
}

fn pair_options(req: &OrgReq) -> Result<PairOptions, TError> {
    let mut opts = PairOptions {
        deal_mode: req.deal_mode.as_deref().map(deal_mode).transpose()?,
        organiser_deals: Vec::new(),
    };
    if let Some(deals) = &req.deals {
        if deals.len() > 128 {
            return Err(TError::BadRequest("deals: at most 128".into()));
        }
        for (i, d) in deals.iter().enumerate() {
            opts.organiser_deals.push(
                Deal::parse(d.trim())
                    .map_err(|e| TError::BadRequest(format!("deals[{i}] is not a deal: {e}")))?,
            );
        }
    }
    Ok(opts)
}

async fn organiser_route(
    shared: &Arc<Shared>,
    id: &str,
    body: &[u8],
    make: impl FnOnce(&OrgReq) -> Result<OrganiserAction, TError>,
) -> Result<Response, TError> {
    let req: OrgReq = parse(body)?;
    let action = make(&req)?;
    super::organiser(shared, id, &req.token, action).await?;
    let v = super::view(shared, id, Some(&req.token)).await?;
    Ok(Json(v).into_response())
}

async fn remove(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, TError> {
    organiser_route(&shared, &id, &body_of(body)?, |r| {
        r.player
            .map(OrganiserAction::Remove)
            .ok_or_else(|| TError::BadRequest("player: a player id is needed".into()))
    })
    .await
}

async fn start(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, TError> {
    organiser_route(&shared, &id, &body_of(body)?, |r| {
        Ok(OrganiserAction::Start(pair_options(r)?))
    })
    .await
}

async fn pair(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, TError> {
    organiser_route(&shared, &id, &body_of(body)?, |r| {
        Ok(OrganiserAction::Pair(pair_options(r)?))
    })
    .await
}

async fn unpair(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, TError> {
    organiser_route(&shared, &id, &body_of(body)?, |_| {
        Ok(OrganiserAction::Unpair)
    })
    .await
}

async fn result(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, TError> {
    organiser_route(&shared, &id, &body_of(body)?, |r| {
        let (Some(round), Some(board), Some(res)) = (r.round, r.board, r.result.as_deref()) else {
            return Err(TError::BadRequest(
                "round, board and result are needed".into(),
            ));
        };
        let result = GameResult::parse(res).ok_or_else(|| {
            TError::BadRequest(format!(
                "result {res:?}: expected 1-0, 0-1, 1/2, +-, -+ or --"
            ))
        })?;
        Ok(OrganiserAction::Result {
            round,
            board,
            result,
        })
    })
    .await
}

#[derive(Deserialize)]
struct ContributeReq {
    token: String,
    round: usize,
    board: usize,
    secret: String,
}

async fn contribute(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, TError> {
    let req: ContributeReq = parse(&body_of(body)?)?;
    let secret = text_field("secret", &req.secret, 200)?;
    super::contribute(&shared, &id, &req.token, req.round, req.board, &secret).await?;
    let v = super::view(&shared, &id, Some(&req.token)).await?;
    Ok(Json(v).into_response())
}

#[derive(Deserialize)]
struct ExportQuery {
    format: Option<String>,
}

async fn export(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    Query(q): Query<ExportQuery>,
) -> Result<Response, TError> {
    let (text, ctype) = super::export(&shared, &id, q.format.as_deref().unwrap_or("html")).await?;
    Ok(([(header::CONTENT_TYPE, ctype)], text).into_response())
}
