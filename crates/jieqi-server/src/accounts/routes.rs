//! HTTP routes of accounts (docs/protocol.md §7): sign up, log in and out, who is
//! logged in, and the public profiles with their game histories.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use jieqi_core::Color;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::time::Instant;

use super::name::{UserName, key_of};
use super::{password, session};
use crate::Shared;
use crate::http::{ApiError, GameSummary, game_summary};
use crate::rating::{Category, Rating};
use crate::request;
use crate::store::{GameEnd, GameFilter, NewUser, PlayerResult, StoreError, Write};
use crate::util::now_ms;

/// Games per page of a history.
pub const PAGE: u32 = 20;

/// The routes of accounts and profiles.
pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/api/account", get(me))
        .route("/api/account/signup", post(signup))
        .route("/api/account/login", post(login))
        .route("/api/account/logout", post(logout))
        .route("/api/users/{name}", get(profile))
        .route("/api/users/{name}/games", get(games))
}

/// The user name of the request's session, if it has a live one.
pub async fn current_user(
    shared: &Shared,
    headers: &HeaderMap,
) -> Result<Option<String>, ApiError> {
    let Some(id) = session::cookie(headers, session::COOKIE).filter(|c| session::is_id(c)) else {
        return Ok(None);
    };
    Ok(shared.store.session(&session::hash(id), now_ms()).await?)
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Credentials {
    name: Option<String>,
    password: Option<String>,
}

fn credentials(body: Result<Bytes, BytesRejection>) -> Result<(String, String), ApiError> {
    let c: Credentials = request::json_object(&request::bytes(body)?)?;
    let name = c
        .name
        .ok_or_else(|| ApiError::BadRequest("name: missing".into()))?;
    let password = c
        .password
        .ok_or_else(|| ApiError::BadRequest("password: missing".into()))?;
    Ok((name, password))
}

/// Starts a session for `user`: stores its hash, answers with the cookie.
async fn logged_in(shared: &Shared, user: &str, status: StatusCode) -> Result<Response, ApiError> {
    let id = session::new_id();
    let created_ms = now_ms();
    shared
        .store
        .write(Write::Session {
            hash: session::hash(&id),
            user: user.to_string(),
            created_ms,
            expires_ms: created_ms + session::LIFETIME.as_millis() as u64,
        })
        .await?;
    let mut resp = (status, Json(json!({ "user": { "name": user } }))).into_response();
    let cookie = HeaderValue::from_str(&session::set_cookie(&id))
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    resp.headers_mut().append(header::SET_COOKIE, cookie);
    Ok(resp)
}

async fn me(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Result<Response, ApiError> {
    let user = current_user(&shared, &headers).await?;
    Ok(Json(json!({ "user": user.map(|name| json!({ "name": name })) })).into_response())
}

async fn signup(
    State(shared): State<Arc<Shared>>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let (name, pass) = credentials(body)?;
    let name = UserName::parse(&name).map_err(|e| ApiError::BadRequest(format!("name: {e}")))?;
    password::check(&pass).map_err(|e| ApiError::BadRequest(format!("password: {e}")))?;
    let limits = &shared.account_limits;
    let now = Instant::now();
    limits
        .signups_per_address
        .check(&client.ip(), now)
        .map_err(ApiError::TooManyAttempts)?;
    limits.signups_per_address.record(&client.ip(), now);
    let user = NewUser {
        name: name.to_string(),
        key: name.key(),
        password: password::hash(pass).await,
        created_ms: now_ms(),
    };
    match shared.store.write(Write::CreateUser(Box::new(user))).await {
        Err(StoreError::Taken) => return Err(ApiError::NameTaken(name.to_string())),
        r => r?,
    }
    tracing::info!(user = %name, "account created");
    logged_in(&shared, name.as_str(), StatusCode::CREATED).await
}

async fn login(
    State(shared): State<Arc<Shared>>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let (name, pass) = credentials(body)?;
    if pass.len() > password::MAX_BYTES {
        return Err(ApiError::BadLogin);
    }
    let key = key_of(&name);
    let limits = &shared.account_limits;
    let now = Instant::now();
    limits
        .login_failures_per_address
        .check(&client.ip(), now)
        .and(limits.login_failures_per_account.check(&key, now))
        .map_err(ApiError::TooManyAttempts)?;
    let user = if key.len() <= super::name::MAX_LEN {
        shared.store.user(&key).await?
    } else {
        None
    };
    let ok = password::verify(pass, user.as_ref().map(|u| u.password.clone())).await;
    match user {
        Some(user) if ok => {
            limits.login_failures_per_account.clear(&key);
            logged_in(&shared, &user.name, StatusCode::OK).await
        }
        _ => {
            limits.login_failures_per_address.record(&client.ip(), now);
            limits.login_failures_per_account.record(&key, now);
            Err(ApiError::BadLogin)
        }
    }
}

async fn logout(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if let Some(id) = session::cookie(&headers, session::COOKIE).filter(|c| session::is_id(c)) {
        shared
            .store
            .write(Write::EndSession {
                hash: session::hash(id),
            })
            .await?;
    }
    let mut resp = Json(json!({ "user": null })).into_response();
    let cookie = HeaderValue::from_str(&session::clear_cookie())
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    resp.headers_mut().append(header::SET_COOKIE, cookie);
    Ok(resp)
}

/// A rating as shown: rounded, with its deviation and the provisional mark.
#[derive(Serialize)]
struct RatingOut {
    category: &'static str,
    rating: i64,
    deviation: i64,
    provisional: bool,
    games: u32,
}

fn rating_out(category: Category, r: &Rating, games: u32) -> RatingOut {
    RatingOut {
        category: category.name(),
        rating: r.rating.round() as i64,
        deviation: r.deviation.round() as i64,
        provisional: r.provisional(),
        games,
    }
}

/// The account with the name in a URL (any case).
async fn find_user(shared: &Shared, name: &str) -> Result<crate::store::UserRecord, ApiError> {
    let key = key_of(name);
    if key.len() > super::name::MAX_LEN {
        return Err(ApiError::NoUser(name.to_string()));
    }
    shared
        .store
        .user(&key)
        .await?
        .ok_or_else(|| ApiError::NoUser(name.to_string()))
}

async fn profile(
    State(shared): State<Arc<Shared>>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let user = find_user(&shared, &name).await?;
    let stored = shared.store.ratings(&user.name).await?;
    let ratings: Vec<RatingOut> = Category::ALL
        .into_iter()
        .map(|c| match stored.iter().find(|r| r.category == c) {
            Some(r) => rating_out(c, &r.rating, r.games),
            None => rating_out(c, &Rating::default(), 0),
        })
        .collect();
    let results: Vec<_> = shared
        .store
        .tallies(&user.name)
        .await?
        .into_iter()
        .map(|t| {
            json!({
                "category": t.category.map(Category::name),
                "rated": t.rated,
                "wins": t.wins,
                "draws": t.draws,
                "losses": t.losses,
            })
        })
        .collect();
    let history: Vec<_> = shared
        .store
        .rating_history(&user.name)
        .await?
        .into_iter()
        .map(|c| {
            json!({
                "game": c.game,
                "category": c.category.name(),
                "at_ms": c.at_ms,
                "rating": c.after.rating.round() as i64,
                "deviation": c.after.deviation.round() as i64,
            })
        })
        .collect();
    Ok(Json(json!({
        "name": user.name,
        "created_ms": user.created_ms,
        "ratings": ratings,
        "results": results,
        "rating_history": history,
    }))
    .into_response())
}

#[derive(Deserialize)]
struct GamesQuery {
    result: Option<String>,
    opponent: Option<String>,
    from: Option<String>,
    to: Option<String>,
    rated: Option<bool>,
    page: Option<u32>,
}

/// One game of a history: its summary and what it was for the player.
#[derive(Serialize)]
struct HistoryOut {
    #[serde(flatten)]
    game: GameSummary,
    color: &'static str,
    result_for_player: &'static str,
    rating_before: Option<i64>,
    rating_after: Option<i64>,
}

/// Midnight (UTC) starting the day `YYYY-MM-DD`, in Unix ms.
pub fn day_start_ms(s: &str) -> Option<u64> {
    let mut parts = s.split('-');
    let y: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    let d: i64 = parts.next()?.parse().ok()?;
    if parts.next().is_some() || !(1970..=9999).contains(&y) || !(1..=12).contains(&m) {
        return None;
    }
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days_in_month = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=days_in_month[(m - 1) as usize]).contains(&d) {
        return None;
    }
    // Days from civil (proleptic Gregorian), after Howard Hinnant's algorithm.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400_000).ok()
}

async fn games(
    State(shared): State<Arc<Shared>>,
    Path(name): Path<String>,
    Query(q): Query<GamesQuery>,
) -> Result<Response, ApiError> {
    let user = find_user(&shared, &name).await?;
    let date = |field: &str, v: &Option<String>| -> Result<Option<u64>, ApiError> {
        v.as_deref()
            .filter(|s| !s.is_empty())
            .map(|s| {
                day_start_ms(s).ok_or_else(|| {
                    ApiError::BadRequest(format!("{field} {s:?}: expected a date YYYY-MM-DD"))
                })
            })
            .transpose()
    };
    let result = match q.result.as_deref().filter(|s| !s.is_empty()) {
        None => None,
        Some(r) => Some(PlayerResult::parse(r).ok_or_else(|| {
            ApiError::BadRequest(format!("result {r:?}: expected win, draw or loss"))
        })?),
    };
    let opponent = match q.opponent.as_deref().filter(|s| !s.is_empty()) {
        None => None,
        // An unknown opponent matches no game: an empty page, not an error.
        Some(o) => Some(
            shared
                .store
                .user(&key_of(o))
                .await?
                .map_or_else(|| o.to_string(), |u| u.name),
        ),
    };
    let filter = GameFilter {
        result,
        opponent,
        from_ms: date("from", &q.from)?,
        // `to` is inclusive: up to the end of that day.
        to_ms: date("to", &q.to)?.map(|ms| ms + 86_400_000),
        rated: q.rated,
    };
    let page = q.page.unwrap_or(1);
    if page == 0 || page > 100_000 {
        return Err(ApiError::BadRequest(format!(
            "page {page}: expected 1 to 100000"
        )));
    }
    let (entries, total) = shared
        .store
        .history(&user.name, filter, (page - 1) * PAGE, PAGE)
        .await?;
    let games: Vec<HistoryOut> = entries
        .iter()
        .map(|e| {
            let end = e.summary.finish.map(|f| f.end);
            let result = match end {
                Some(GameEnd::Aborted) => "aborted",
                _ => match end.and_then(GameEnd::outcome).and_then(|o| o.winner()) {
                    None => PlayerResult::Draw,
                    Some(w) if w == e.color => PlayerResult::Win,
                    Some(_) => PlayerResult::Loss,
                }
                .name(),
            };
            HistoryOut {
                game: game_summary(&e.summary),
                color: Color::name(e.color),
                result_for_player: result,
                rating_before: e.rating.map(|(b, _)| b.rating.round() as i64),
                rating_after: e.rating.map(|(_, a)| a.rating.round() as i64),
            }
        })
        .collect();
    Ok(Json(json!({
        "name": user.name,
        "games": games,
        "page": page,
        "per_page": PAGE,
        "total": total,
        "pages": total.div_ceil(PAGE).max(1),
    }))
    .into_response())
}

#[cfg(test)]
mod tests {
    use super::day_start_ms;

    #[test]
    fn dates() {
        assert_eq!(day_start_ms("1970-01-01"), Some(0));
        assert_eq!(day_start_ms("2025-11-30"), Some(1_764_460_800_000));
        assert_eq!(day_start_ms("2000-02-29"), Some(951_782_400_000));
        assert_eq!(day_start_ms("2001-02-29"), None);
        assert_eq!(day_start_ms("2025-13-01"), None);
        assert_eq!(day_start_ms("2025-1-1x"), None);
        assert_eq!(day_start_ms("yesterday"), None);
        assert_eq!(day_start_ms("2025-01-01-01"), None);
    }
}
