//! HTTP routes: the JSON API (docs/protocol.md §2), the pages and assets, and the
//! WebSocket upgrade.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, Path, Query, State, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use jieqi_core::{ByColor, CapturedIdentity, Color, RuleSet, Viewer};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::accounts::routes::current_user;
use crate::clock::TimeControl;
use crate::knowledge::{self, PlyOut};
use crate::node::Located;
use crate::node::forward;
use crate::protocol::out::ChatOut;
use crate::rating::Category;
use crate::request::{self, BodyError};
use crate::room::{ClaimRefused, invite_url, replay_stored};
use crate::store::{GameEnd, ListKind, StoreError, Summary};
use crate::{GameOptions, Shared, assets, util, ws};

/// Every failure of the HTTP API, as a status and a JSON body.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// Bad request data.
    #[error("{0}")]
    BadRequest(String),
    /// No such game.
    #[error("no game with id {0}")]
    NoGame(String),
    /// The free seat is gone.
    #[error("no free seat in this game")]
    SeatTaken,
    /// An unlisted friend game's seat needs the invite link's token.
    #[error(
        "this friend game is joined through its invite link: the invite token is missing or wrong"
    )]
    BadInvite,
    /// A request body over the limit.
    #[error("request bodies are at most {max} bytes", max = request::BODY_LIMIT)]
    TooLarge,
    /// The game is still running.
    #[error("the game is not finished")]
    NotFinished,
    /// A ply number past the end.
    #[error("ply {0} is past the end of the game ({1} plies)")]
    BadPly(usize, usize),
    /// The engine pool is saturated.
    #[error("the engine is busy; try again")]
    Busy,
    /// A tournament game whose deal is still secret (another board plays it).
    #[error("this tournament game's deal is not published yet")]
    Private,
    /// A state-changing request without the CSRF token (or from another origin).
    #[error("{0}")]
    Csrf(&'static str),
    /// Only a logged-in player may do this.
    #[error("{0}")]
    LoginRequired(&'static str),
    /// Wrong user name or password.
    #[error("wrong user name or password")]
    BadLogin,
    /// Too many attempts; retry after this long.
    #[error("too many attempts: try again in {} s", .0.as_secs().max(1))]
    TooManyAttempts(Duration),
    /// The name belongs to an account already (in any case).
    #[error("the name {0:?} is taken")]
    NameTaken(String),
    /// No account with this name.
    #[error("no user named {0:?}")]
    NoUser(String),
    /// A rated game's seats need two different accounts.
    #[error("a rated game is played against another account")]
    OwnGame,
    /// The logged-in account holds no seat (or not that seat) of this game.
    #[error("your account holds no such seat in this game")]
    NotYourSeat,
    /// The node that serves this cannot be reached (several nodes): try again.
    #[error("{0}")]
    Unavailable(String),
    /// Anything else.
    #[error("internal error: {0}")]
    Internal(String),
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        ApiError::Internal(e.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code) = match &self {
            ApiError::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad_request"),
            ApiError::NoGame(_) => (StatusCode::NOT_FOUND, "no_game"),
            ApiError::SeatTaken => (StatusCode::CONFLICT, "seat_taken"),
            ApiError::BadInvite => (StatusCode::FORBIDDEN, "bad_invite"),
            ApiError::TooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "too_large"),
            ApiError::NotFinished => (StatusCode::CONFLICT, "not_finished"),
            ApiError::BadPly(..) => (StatusCode::CONFLICT, "bad_ply"),
            ApiError::Busy => (StatusCode::TOO_MANY_REQUESTS, "busy"),
            ApiError::Private => (StatusCode::FORBIDDEN, "private"),
            ApiError::Csrf(_) => (StatusCode::FORBIDDEN, "csrf"),
            ApiError::LoginRequired(_) => (StatusCode::UNAUTHORIZED, "login_required"),
            ApiError::BadLogin => (StatusCode::UNAUTHORIZED, "bad_login"),
            ApiError::TooManyAttempts(_) => (StatusCode::TOO_MANY_REQUESTS, "too_many_attempts"),
            ApiError::NameTaken(_) => (StatusCode::CONFLICT, "name_taken"),
            ApiError::NoUser(_) => (StatusCode::NOT_FOUND, "no_user"),
            ApiError::OwnGame => (StatusCode::CONFLICT, "own_game"),
            ApiError::NotYourSeat => (StatusCode::FORBIDDEN, "not_your_seat"),
            ApiError::Unavailable(_) => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
            ApiError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        };
        if let ApiError::Internal(m) = &self {
            tracing::error!("{m}");
        }
        let body = json!({ "error": { "code": code, "message": self.to_string() } });
        let mut resp = (status, Json(body)).into_response();
        if let ApiError::TooManyAttempts(wait) = &self {
            resp.headers_mut().insert(
                header::RETRY_AFTER,
                header::HeaderValue::from(wait.as_secs().max(1)),
            );
        }
        resp
    }
}

impl From<BodyError> for ApiError {
    fn from(e: BodyError) -> ApiError {
        match e {
            BodyError::TooLarge => ApiError::TooLarge,
            BodyError::Bad(m) => ApiError::BadRequest(m),
        }
    }
}

/// A JSON object request body; an empty one (or only whitespace) gives the defaults.
fn json_body<T: serde::de::DeserializeOwned + Default>(
    body: Result<Bytes, BytesRejection>,
) -> Result<T, ApiError> {
    Ok(request::json_object_or_default(&request::bytes(body)?)?)
}

/// The routes of games, pages and assets (the server adds the tournaments').
pub fn router() -> Router<Arc<Shared>> {
    Router::new()
        .route("/", get(page))
        .route("/game/{id}", get(game_page))
        .route("/replay/{id}", get(game_page))
        .route("/@/{name}", get(page))
        .route("/login", get(page))
        .route("/learn", get(page))
        .route("/assets/{*path}", get(asset))
        .route("/ws", get(upgrade))
        .route("/api/health", get(health))
        .route("/api/games", post(create).get(list))
        .route("/api/games/{id}", get(summary))
        .route("/api/games/{id}/join", post(join))
        .route("/api/games/{id}/replay", get(replay))
        .route("/api/games/{id}/eval", get(eval))
        .route("/api/games/{id}/record", get(record))
        .fallback(not_found)
}

/// A page route: the UI (the page reads the address to decide what to show).
pub(crate) async fn page(headers: HeaderMap) -> Response {
    page_html(&headers)
}

/// The UI with status 404: the page itself says what was not found (in the reader's
/// language) and links home, so a wrong address never ends on the browser's blank
/// error page nor silently on the lobby.
pub fn not_found_page() -> Response {
    let mut r = page_html(&HeaderMap::new());
    *r.status_mut() = StatusCode::NOT_FOUND;
    r
}

/// The UI page, revalidated on every load (`no-cache` with its ETag), so a browser
/// never keeps the page of a previous version: the page names its scripts by
/// versioned URLs, which are cached for good.
pub(crate) fn page_html(headers: &HeaderMap) -> Response {
    match assets::page() {
        Some(a) => cached(headers, a, "text/html; charset=utf-8", REVALIDATE),
        None => (
            StatusCode::NOT_FOUND,
            "this build has no web UI (crates/jieqi-server/assets/index.html was missing)",
        )
            .into_response(),
    }
}

/// `Cache-Control` of what must be revalidated before each use (pages, unversioned
/// asset URLs).
const REVALIDATE: &str = "no-cache";
/// `Cache-Control` of a versioned asset URL: its content never changes.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// `asset` with its validator and caching policy, or `304 Not Modified` when the
/// request's `If-None-Match` names it.
fn cached(
    headers: &HeaderMap,
    asset: &'static assets::Asset,
    content_type: &'static str,
    cache_control: &'static str,
) -> Response {
    let fresh = headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|tag| tag.trim())
        .any(|tag| tag == "*" || tag.trim_start_matches("W/") == asset.etag);
    let validators = [
        (header::ETAG, asset.etag.clone()),
        (header::CACHE_CONTROL, cache_control.to_string()),
    ];
    if fresh {
        return (StatusCode::NOT_MODIFIED, validators).into_response();
    }
    (
        validators,
        [(header::CONTENT_TYPE, content_type)],
        asset.bytes.clone(),
    )
        .into_response()
}

/// Any address no route knows: the not-found page, or a JSON error under `/api/`.
async fn not_found(uri: axum::http::Uri) -> Response {
    if uri.path().starts_with("/api/") {
        let body = json!({ "error": { "code": "not_found", "message": format!("no such route: {}", uri.path()) } });
        return (StatusCode::NOT_FOUND, Json(body)).into_response();
    }
    not_found_page()
}

/// `/game/ID` and `/replay/ID`: the UI, or the not-found page for a game that does not
/// exist.
async fn game_page(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let known = util::is_game_id(&id)
        && (shared.registry.get(&id).is_some()
            || matches!(shared.store.summary(&id).await, Ok(Some(_)) | Err(_)));
    if known {
        page_html(&headers)
    } else {
        not_found_page()
    }
}

/// `/assets/PATH` (revalidated) and `/assets/v/VERSION/PATH` (immutable when
/// `VERSION` is this build's; a page of an older build still gets today's files, but
/// not cached for good).
async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Response {
    let (file, current) = assets::unversion(&path);
    match assets::file(file) {
        Some(a) => {
            let policy = if current == Some(true) {
                IMMUTABLE
            } else {
                REVALIDATE
            };
            cached(&headers, a, assets::content_type(file), policy)
        }
        None => (StatusCode::NOT_FOUND, "no such asset").into_response(),
    }
}

async fn upgrade(
    State(shared): State<Arc<Shared>>,
    ConnectInfo(client): ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    // The account only names a spectator in the chat (seats act through their
    // tokens); a failed lookup leaves him a guest.
    let user = current_user(&shared, &headers).await.ok().flatten();
    // Small buffers: messages are small, and the defaults (128 KiB each way) would
    // cost a quarter of a megabyte per idle connection.
    ws.max_message_size(ws::MAX_FRAME_BYTES)
        .max_frame_size(ws::MAX_FRAME_BYTES)
        .read_buffer_size(ws::READ_BUFFER_BYTES)
        .write_buffer_size(0)
        .max_write_buffer_size(ws::MAX_FRAME_BYTES * 4)
        .on_upgrade(move |socket| {
            ws::serve_socket(socket, shared, user, Some(client.ip()), headers)
        })
}

async fn health(State(shared): State<Arc<Shared>>) -> Json<serde_json::Value> {
    Json(json!({
        "ok": true,
        "protocol": crate::protocol::VERSION,
        "games_in_memory": shared.registry.len(),
        "connections": shared.connections(),
        "tcp_connections": shared.tcp_connections.total(),
    }))
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct CreateReq {
    opponent: Option<String>,
    level: Option<u8>,
    color: Option<String>,
    time: Option<String>,
    move_time: Option<u64>,
    rules: Option<String>,
    captured_identity: Option<String>,
    listed: Option<bool>,
    rated: Option<bool>,
}

#[derive(Serialize)]
struct CreateResp {
    id: String,
    seat: &'static str,
    token: String,
    url: String,
    invite_url: Option<String>,
    invite_token: Option<String>,
    commitment: String,
}

fn random_color() -> Color {
    let mut b = [0u8; 1];
    getrandom::fill(&mut b).expect("the operating system's random generator failed");
    if b[0] & 1 == 0 {
        Color::Red
    } else {
        Color::Black
    }
}

fn parse_create(req: CreateReq, user: Option<String>) -> Result<(GameOptions, Color), ApiError> {
    let engine = match req.opponent.as_deref().unwrap_or("engine") {
        "engine" => true,
        "friend" => false,
        o => {
            return Err(ApiError::BadRequest(format!(
                "opponent {o:?}: expected \"engine\" or \"friend\""
            )));
        }
    };
    let level = req.level.unwrap_or(3);
    if !(1..=8).contains(&level) {
        return Err(ApiError::BadRequest(format!(
            "level {level}: expected 1 to 8"
        )));
    }
    let me = match req.color.as_deref().unwrap_or("random") {
        "random" => random_color(),
        c => match c {
            "red" => Color::Red,
            "black" => Color::Black,
            _ => {
                return Err(ApiError::BadRequest(format!(
                    "color {c:?}: expected red, black or random"
                )));
            }
        },
    };
    let tc = TimeControl::parse(req.time.as_deref().unwrap_or("10+5"), req.move_time)
        .map_err(|e| ApiError::BadRequest(e.to_string()))?;
    let mut rules =
        RuleSet::by_name(req.rules.as_deref().unwrap_or("standard")).ok_or_else(|| {
            ApiError::BadRequest("rules: expected \"standard\" or \"tournament\"".into())
        })?;
    if let Some(ci) = &req.captured_identity {
        rules.captured_identity = CapturedIdentity::parse(ci).ok_or_else(|| {
            ApiError::BadRequest("captured_identity: expected capturer, nobody or everyone".into())
        })?;
    }
    let rated = req.rated.unwrap_or(false);
    if rated {
        if user.is_none() {
            return Err(ApiError::LoginRequired(
                "rated games are for logged-in players: log in, or create a casual game",
            ));
        }
        if engine {
            return Err(ApiError::BadRequest(
                "rated: games against the engine are casual".into(),
            ));
        }
        if Category::of(tc.as_ref()).is_none() {
            return Err(ApiError::BadRequest(
                "rated: an untimed game cannot be rated; choose a time control".into(),
            ));
        }
    }
    let opts = GameOptions {
        rules,
        tc,
        engine: ByColor::new_with(|c| (engine && c != me).then_some(level)),
        invite: (!engine).then_some(!me),
        listed: !engine && req.listed.unwrap_or(false),
        rematch_of: None,
        users: ByColor::new_with(|c| if c == me { user.clone() } else { None }),
        rated,
    };
    Ok((opts, me))
}

async fn create(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let req = json_body(body)?;
    let user = current_user(&shared, &headers).await?;
    let (opts, me) = parse_create(req, user)?;
    let c = shared.create_game(opts).await?;
    let resp = CreateResp {
        seat: me.name(),
        token: c.tokens[me].clone(),
        url: format!("/game/{}?seat={}", c.id, c.tokens[me]),
        invite_url: c.invite_token.as_deref().map(|t| invite_url(&c.id, t)),
        invite_token: c.invite_token.clone(),
        commitment: c.commitment.clone(),
        id: c.id.clone(),
    };
    Ok((StatusCode::CREATED, Json(resp)).into_response())
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct JoinReq {
    invite: Option<String>,
}

async fn join(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let raw = request::bytes(body)?;
    let req: JoinReq = request::json_object_or_default(&raw)?;
    let user = current_user(&shared, &headers).await?;
    let game = match shared.locate(&id).await? {
        Some(Located::Here(h)) => h,
        Some(Located::At(addr)) if !forward::is_forwarded(&headers) => {
            let path = format!("/api/games/{id}/join");
            return Ok(forward::http(&addr, "POST", &path, &raw, &headers).await);
        }
        Some(Located::At(_)) => {
            return Err(ApiError::Unavailable(format!(
                "game {id} is moving between nodes; try again"
            )));
        }
        None => return Err(ApiError::NoGame(id)),
    };
    let (seat, token) = game
        .claim_invite(req.invite, user)
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?
        .map_err(|r| match r {
            ClaimRefused::SeatTaken => ApiError::SeatTaken,
            ClaimRefused::BadInvite => ApiError::BadInvite,
            ClaimRefused::LoginRequired => {
                ApiError::LoginRequired("this game is rated: log in to take its seat")
            }
            ClaimRefused::OwnGame => ApiError::OwnGame,
        })?;
    Ok(seat_answer(&id, seat, &token))
}

/// The answer that hands a seat to its player: `{id, seat, url, token}`, the url the
/// seat's own link (docs/protocol.md §2.2).
pub fn seat_answer(id: &str, seat: Color, token: &str) -> Response {
    Json(json!({
        "id": id,
        "seat": seat.name(),
        "url": format!("/game/{id}?seat={token}"),
        "token": token,
    }))
    .into_response()
}

#[derive(Serialize)]
struct SeatSummary {
    kind: &'static str,
    level: Option<u8>,
    joined: bool,
    /// The account's name; `null` for a guest or an engine.
    name: Option<String>,
}

/// A game's lobby line (docs/protocol.md §2.3).
#[derive(Serialize)]
pub struct GameSummary {
    id: String,
    status: &'static str,
    red: SeatSummary,
    black: SeatSummary,
    time: String,
    move_time: Option<u64>,
    rules: String,
    plies: u32,
    created_ms: u64,
    updated_ms: u64,
    result: Option<&'static str>,
    reason: Option<&'static str>,
    rated: bool,
    category: Option<&'static str>,
}

/// The lobby line of a stored game.
pub fn game_summary(s: &Summary) -> GameSummary {
    let seat = |c: Color| SeatSummary {
        kind: if s.engine[c].is_some() {
            "engine"
        } else {
            "human"
        },
        level: s.engine[c],
        joined: s.joined[c] || s.engine[c].is_some(),
        name: s.users[c].clone(),
    };
    GameSummary {
        id: s.id.clone(),
        status: if s.finish.is_some() {
            "finished"
        } else if s.started {
            "live"
        } else {
            "waiting"
        },
        red: seat(Color::Red),
        black: seat(Color::Black),
        time: s.time.clone(),
        move_time: s.move_time_s,
        rules: s.rules.clone(),
        plies: s.plies,
        created_ms: s.created_ms,
        updated_ms: s.updated_ms,
        result: s.finish.map(|f| f.end.result_str()),
        reason: s.finish.map(|f| f.end.reason_name()),
        rated: s.rated,
        category: Category::of_text(&s.time).map(Category::name),
    }
}

#[derive(Deserialize)]
struct ListQuery {
    list: Option<String>,
    limit: Option<u32>,
}

async fn list(
    State(shared): State<Arc<Shared>>,
    Query(q): Query<ListQuery>,
) -> Result<Response, ApiError> {
    let kind = match q.list.as_deref().unwrap_or("live") {
        "open" => ListKind::Open,
        "live" => ListKind::Live,
        "recent" => ListKind::Recent,
        other => {
            return Err(ApiError::BadRequest(format!(
                "list {other:?}: expected open, live or recent"
            )));
        }
    };
    let limit = q.limit.unwrap_or(50);
    if !(1..=200).contains(&limit) {
        return Err(ApiError::BadRequest(format!(
            "limit {limit}: expected 1 to 200"
        )));
    }
    let games: Vec<GameSummary> = shared
        .store
        .list(kind, limit)
        .await?
        .iter()
        .filter(|s| !shared.tournaments.is_private(&s.id))
        .map(game_summary)
        .collect();
    Ok(Json(json!({ "games": games })).into_response())
}

async fn load_summary(shared: &Shared, id: &str) -> Result<Summary, ApiError> {
    if !util::is_game_id(id) {
        return Err(ApiError::NoGame(id.to_string()));
    }
    shared
        .store
        .summary(id)
        .await?
        .ok_or_else(|| ApiError::NoGame(id.to_string()))
}

async fn summary(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let s = load_summary(&shared, &id).await?;
    let mut v =
        serde_json::to_value(game_summary(&s)).map_err(|e| ApiError::Internal(e.to_string()))?;
    v["commitment"] = json!(s.commitment);
    Ok(Json(v).into_response())
}

/// A finished game's referee record.
pub(crate) async fn finished_game(
    shared: &Shared,
    id: &str,
) -> Result<
    (
        crate::store::StoredGame,
        jieqi_core::Game,
        Vec<knowledge::PlyMeta>,
    ),
    ApiError,
> {
    if !util::is_game_id(id) {
        return Err(ApiError::NoGame(id.to_string()));
    }
    if shared.tournaments.is_private(id) {
        return Err(ApiError::Private);
    }
    let stored = shared
        .store
        .load(id)
        .await?
        .ok_or_else(|| ApiError::NoGame(id.to_string()))?;
    if stored.finish.is_none() {
        return Err(ApiError::NotFinished);
    }
    let (game, metas, _) = replay_stored(&stored)?;
    let aborted = stored.finish.is_some_and(|f| f.end == GameEnd::Aborted);
    if game.outcome().is_none() && !aborted {
        return Err(ApiError::NotFinished);
    }
    Ok((stored, game, metas))
}

#[derive(Serialize)]
struct ReplayResp {
    game: GameSummary,
    start_fen: String,
    deal: String,
    salt: String,
    commitment: String,
    commitment_ok: bool,
    end: knowledge::EndOut,
    moves: Vec<PlyOut>,
    fens: Vec<String>,
    /// Both chat rooms, in order: a finished game's chat is public.
    chat: Vec<ChatOut>,
}

async fn replay(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let (stored, game, metas) = finished_game(&shared, &id).await?;
    let s = load_summary(&shared, &id).await?;
    let end = match game.outcome() {
        Some(_) => knowledge::end_out(&game, &stored.new.salt, &stored.new.commitment)
            .ok_or(ApiError::NotFinished)?,
        None => knowledge::aborted_end_out(&game, &stored.new.salt, &stored.new.commitment),
    };
    let chat = stored
        .chat
        .iter()
        .map(|l| ChatOut {
            room: l.room.name(),
            color: l.color.map(Color::name),
            name: l.user.clone(),
            text: l.text.clone(),
            at_ms: l.at_ms,
        })
        .collect();
    let referee = game.view(Viewer::Referee);
    let fens = (1..=game.plies().len())
        .map(|n| referee.position_after(n).fen())
        .collect();
    let resp = ReplayResp {
        game: game_summary(&s),
        start_fen: game.start().fen(),
        deal: end.deal.clone(),
        salt: end.salt.clone(),
        commitment: end.commitment.clone(),
        commitment_ok: end.commitment_ok,
        moves: knowledge::plies_for(&game, Viewer::Referee, &metas),
        fens,
        end,
        chat,
    };
    Ok(Json(resp).into_response())
}

#[derive(Deserialize)]
struct EvalQuery {
    ply: Option<usize>,
}

async fn eval(
    State(shared): State<Arc<Shared>>,
    ConnectInfo(client): ConnectInfo<std::net::SocketAddr>,
    Path(id): Path<String>,
    Query(q): Query<EvalQuery>,
) -> Result<Response, ApiError> {
    let (_, game, _) = finished_game(&shared, &id).await?;
    let n = q.ply.unwrap_or(0);
    if n > game.plies().len() {
        return Err(ApiError::BadPly(n, game.plies().len()));
    }
    // The side to move then, with what it knew then.
    let turn = if n % 2 == 0 {
        game.start().turn()
    } else {
        !game.start().turn()
    };
    let pos = game.view(Viewer::Player(turn)).position_after(n);
    let fen = pos.fen();
    let ev = shared
        .analysis
        .evaluate(client.ip(), pos, Duration::from_millis(500))
        .await
        .map_err(|_| ApiError::Busy)?;
    Ok(Json(json!({
        "ply": n,
        "fen": fen,
        "turn": turn.name(),
        "score_cp": ev.score_cp,
        "best": ev.best.map(|m| m.to_string()),
        "engine": shared.analysis.name(),
        "depth": ev.depth,
    }))
    .into_response())
}

#[derive(Deserialize)]
struct RecordQuery {
    format: Option<String>,
}

/// A finished game's record: PGN (Chinese notation) or JieqiBox JSON.
async fn record(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    Query(q): Query<RecordQuery>,
) -> Result<Response, ApiError> {
    use jieqi_core::record::{self, Format, Record};
    let format = match q.format.as_deref().unwrap_or("pgn") {
        "pgn" => Format::Pgn(record::CHINESE),
        "jieqibox" => Format::JieqiBox,
        f => {
            return Err(ApiError::BadRequest(format!(
                "format {f:?}: expected pgn or jieqibox"
            )));
        }
    };
    let (stored, game, metas) = finished_game(&shared, &id).await?;
    let mut rec = Record::from_game(&game);
    rec.deal_commitment = Some(stored.new.commitment.clone());
    rec.deal_salt = Some(stored.new.salt.clone());
    let date = metas.first().map_or(stored.new.created_ms, |m| m.at_ms);
    rec.set_tag("Event", "jieqi server game");
    rec.set_tag("Site", &format!("/game/{id}"));
    rec.set_tag("Date", &date_text(date));
    let name = |c: Color| match (&stored.new.seats[c].user, stored.new.seats[c].engine_level) {
        (_, Some(l)) => format!("{} level {l}", shared.engines.name()),
        (Some(user), None) => user.clone(),
        (None, None) => "Anonymous".to_string(),
    };
    rec.set_tag("Red", &name(Color::Red));
    rec.set_tag("Black", &name(Color::Black));
    rec.set_tag("TimeControl", &stored.new.time);
    let (ctype, ext) = match format {
        Format::JieqiBox => ("application/json", "json"),
        _ => ("application/x-chess-pgn; charset=utf-8", "pgn"),
    };
    let text = record::write(&rec, format);
    Ok((
        [
            (header::CONTENT_TYPE, ctype.to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"jieqi-{id}.{ext}\""),
            ),
        ],
        text,
    )
        .into_response())
}

/// `YYYY.MM.DD` (the PGN date form) of a Unix-ms instant, in UTC.
fn date_text(ms: u64) -> String {
    let days = (ms / 86_400_000) as i64;
    // Civil from days (proleptic Gregorian), after Howard Hinnant's algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates_in_pgn_form() {
        assert_eq!(super::date_text(0), "1970.01.01");
        assert_eq!(super::date_text(1_764_465_000_000), "2025.11.30");
        assert_eq!(super::date_text(951_782_400_000), "2000.02.29");
    }
}
