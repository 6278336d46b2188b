//! The Jieqi (揭棋) game server: authoritative games over WebSockets (docs/protocol.md),
//! fair deals with a published commitment, server-side clocks, durable storage in
//! SQLite, engine opponents in a bounded thread pool, and the embedded web UI.
//!
//! Each game is a pure state machine ([`room`]) owned by one task ([`game`]);
//! connections and HTTP handlers talk to it through its [`GameHandle`]. Games are
//! found through a sharded map, not a global lock. Whoever cares about game ends
//! (tournaments) subscribes to them ([`Shared::subscribe_game_ends`]).

pub mod accounts;
pub mod analysis;
pub mod assets;
pub mod chat;
pub mod client;
pub mod clock;
pub mod engine;
pub mod game;
pub mod http;
pub mod knowledge;
pub mod listener;
pub mod node;
pub mod protocol;
pub mod rating;
pub mod request;
pub mod room;
pub mod seek;
pub mod socket;
pub mod stop;
pub mod store;
pub mod tournament;
pub mod util;
pub mod ws;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use jieqi_core::{ByColor, Color, Deal, Outcome, RuleSet};
use tokio::sync::mpsc;

pub use crate::game::GameHandle;

use crate::clock::TimeControl;
use crate::engine::EnginePool;
use crate::room::{Now, Room};
use crate::store::{Store, StoreError, Write};

/// Server settings.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where to listen.
    pub addr: SocketAddr,
    /// The SQLite database file, or a PostgreSQL URL (`postgres://…`).
    pub db: PathBuf,
    /// Durability of each SQLite commit (PostgreSQL follows its server's settings).
    pub sync: store::SyncMode,
    /// The shortest time between the starts of two SQLite commits
    /// ([`store::COMMIT_INTERVAL`]).
    pub commit_interval: std::time::Duration,
    /// Engine threads (games thinking at once).
    pub engine_threads: usize,
    /// Absence after which the opponent may claim the game (ms).
    pub abandon_ms: u64,
    /// Which engine plays engine games.
    pub engine: EngineKind,
    /// Messages per second a connection may send (sustained).
    pub rate_per_sec: f64,
    /// Messages a connection may send in a burst.
    pub rate_burst: f64,
    /// A node of several on one PostgreSQL database (docs/server.md, "Several
    /// nodes"); `None`: the only server of its database.
    pub node: Option<node::NodeConfig>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            db: PathBuf::from("jieqi.db"),
            sync: store::SyncMode::Full,
            commit_interval: store::COMMIT_INTERVAL,
            engine_threads: 1,
            abandon_ms: 60_000,
            engine: EngineKind::Search,
            rate_per_sec: ws::RATE_PER_SEC,
            rate_burst: ws::RATE_BURST,
            node: None,
        }
    }
}

/// Limits on what one client may hold or ask of the server, so that idle or hostile
/// clients cannot exhaust it (docs/server.md, "Limits"). Separate from [`Config`] so
/// that tests can make the timeouts short.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Time a client has to send a request's headers.
    pub header_read_timeout: Duration,
    /// A connection on which nothing has been read for this long is closed.
    pub idle_timeout: Duration,
    /// Open TCP connections per client address; more are closed at once.
    pub max_connections_per_address: usize,
    /// How often the server pings each WebSocket.
    pub ws_ping_interval: Duration,
    /// A WebSocket that has sent nothing (not even a pong) for a ping interval plus
    /// this long is closed.
    pub ws_pong_timeout: Duration,
    /// Threads of the analysis pool (`/eval`), apart from the engine games'.
    pub analysis_threads: usize,
    /// Evaluations one client address may have running at once.
    pub analysis_per_client: usize,
    /// Failed logins of one account in [`Limits::login_window`]; more are refused.
    pub login_failures_per_account: usize,
    /// Failed logins from one address in [`Limits::login_window`]; more are refused.
    pub login_failures_per_address: usize,
    /// The window of the failed-login limits.
    pub login_window: Duration,
    /// Accounts created from one address per hour.
    pub signups_per_address_hour: usize,
    /// Game start and chat: the first-move window and the chat limits
    /// (docs/server.md, "Game start", "Chat").
    pub game_start_and_chat: GameStartAndChat,
}

/// The limits of a game's start and of its chat (a part of [`Limits`]).
#[derive(Clone, Debug)]
pub struct GameStartAndChat {
    /// Time a player has for his first move; past it the game is aborted (a
    /// tournament game: lost).
    pub first_move: Duration,
    /// The chat's limits.
    pub chat: chat::ChatLimits,
}

impl Default for GameStartAndChat {
    fn default() -> GameStartAndChat {
        let room = room::RoomLimits::default();
        GameStartAndChat {
            first_move: room.first_move,
            chat: room.chat,
        }
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(120),
            max_connections_per_address: 128,
            ws_ping_interval: Duration::from_secs(20),
            ws_pong_timeout: Duration::from_secs(20),
            analysis_threads: 1,
            analysis_per_client: 1,
            login_failures_per_account: 5,
            login_failures_per_address: 20,
            login_window: Duration::from_secs(15 * 60),
            signups_per_address_hour: 10,
            game_start_and_chat: GameStartAndChat::default(),
        }
    }
}

/// The engine of engine games.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// The project's search engine (`jieqi_engine`).
    Search,
    /// The built-in one-ply greedy player (fast; for tests and load tests).
    Greedy,
}

impl EngineKind {
    /// Parses `search` / `greedy`.
    pub fn parse(s: &str) -> Option<EngineKind> {
        match s {
            "search" => Some(EngineKind::Search),
            "greedy" => Some(EngineKind::Greedy),
            _ => None,
        }
    }
}

/// How a new game is set up.
#[derive(Clone, Debug)]
pub struct GameOptions {
    /// The rules.
    pub rules: RuleSet,
    /// The time control, `None` untimed.
    pub tc: Option<TimeControl>,
    /// Engine level per seat, `None` for a human.
    pub engine: ByColor<Option<u8>>,
    /// The seat handed out by the invite link.
    pub invite: Option<Color>,
    /// Listed under open games.
    pub listed: bool,
    /// The game it is a rematch of.
    pub rematch_of: Option<String>,
    /// The account of each seat known at creation (the creator's, a rematch's two).
    pub users: ByColor<Option<String>>,
    /// Rated: changes the players' ratings at the end. Needs an account on each seat
    /// (the invite seat's is checked when it is claimed) and a clock.
    pub rated: bool,
}

impl GameOptions {
    /// What kind of game these options make, for the log: `engine`, `friend` (an
    /// invite link), `open` (a listed friend game), `rematch`, or `seats` (both seat
    /// links handed out by whoever created it: a tournament's games).
    pub fn mode(&self) -> &'static str {
        if self.engine.red.is_some() || self.engine.black.is_some() {
            "engine"
        } else if self.invite.is_some() {
            if self.listed { "open" } else { "friend" }
        } else if self.rematch_of.is_some() {
            "rematch"
        } else {
            "seats"
        }
    }
}

/// A created game.
#[derive(Clone, Debug)]
pub struct Created {
    /// Game id.
    pub id: String,
    /// Seat tokens (an engine seat's is never handed out).
    pub tokens: ByColor<String>,
    /// The invite link's secret, for a game with an invite seat.
    pub invite_token: Option<String>,
    /// The deal commitment.
    pub commitment: String,
}

/// The games in memory, in shards so that lookups of different games rarely contend.
pub struct Registry {
    shards: Vec<Mutex<HashMap<String, GameHandle>>>,
}

impl Registry {
    fn new() -> Registry {
        Registry {
            shards: (0..64).map(|_| Mutex::new(HashMap::new())).collect(),
        }
    }

    fn shard(&self, id: &str) -> &Mutex<HashMap<String, GameHandle>> {
        let h = id.bytes().fold(0usize, |h, b| {
            h.wrapping_mul(31).wrapping_add(usize::from(b))
        });
        &self.shards[h % self.shards.len()]
    }

    fn get(&self, id: &str) -> Option<GameHandle> {
        let s = self.shard(id).lock().unwrap_or_else(|p| p.into_inner());
        s.get(id).filter(|tx| !tx.is_closed()).cloned()
    }

    /// Inserts `tx` unless a live entry exists; returns the entry in force and whether
    /// it is `tx`.
    fn insert(&self, id: &str, tx: GameHandle) -> (GameHandle, bool) {
        let mut s = self.shard(id).lock().unwrap_or_else(|p| p.into_inner());
        match s.get(id) {
            Some(old) if !old.is_closed() => (old.clone(), false),
            _ => {
                s.insert(id.to_string(), tx.clone());
                (tx, true)
            }
        }
    }

    /// Forgets a game (its task is ending).
    pub fn remove(&self, id: &str) {
        self.shard(id)
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
    }

    /// The ids of the games in memory.
    pub fn ids(&self) -> Vec<String> {
        self.shards
            .iter()
            .flat_map(|s| {
                let s = s.lock().unwrap_or_else(|p| p.into_inner());
                s.keys().cloned().collect::<Vec<_>>()
            })
            .collect()
    }

    /// Games in memory whose task is running.
    pub fn running(&self) -> usize {
        self.shards
            .iter()
            .map(|s| {
                let s = s.lock().unwrap_or_else(|p| p.into_inner());
                s.values().filter(|h| !h.is_closed()).count()
            })
            .sum()
    }

    /// Games in memory.
    pub fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.lock().unwrap_or_else(|p| p.into_inner()).len())
            .sum()
    }

    /// Whether no game is in memory.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// State shared by every task of one server.
pub struct Shared {
    /// Settings.
    pub config: Config,
    /// Limits per client.
    pub limits: Limits,
    /// Open TCP connections per client address.
    pub tcp_connections: Arc<listener::ConnectionCounts>,
    /// Storage.
    pub store: Arc<dyn Store>,
    /// Engines of engine games.
    pub engines: EnginePool,
    /// Engines of analysis.
    pub analysis: engine::AnalysisPool,
    /// Games in memory.
    pub registry: Registry,
    /// Tournaments (docs/tournament.md, "Tournaments on the web server").
    pub tournaments: tournament::Hub,
    /// The limits on login and sign-up attempts.
    pub account_limits: accounts::limiter::AccountLimits,
    /// Quick pairing: the seek pool and the lobbies watching it.
    pub lobby: seek::Lobby,
    /// Whole-game analyses running (docs/web.md, "Analysis board").
    pub game_analyses: analysis::Jobs,
    /// This server as a node of several, if it is one.
    pub node: Option<node::Node>,
    game_end_listeners: Mutex<Vec<mpsc::UnboundedSender<GameEnded>>>,
    next_conn: AtomicU64,
    connections: AtomicUsize,
    stop: Arc<stop::StopSignal>,
}

impl Shared {
    /// A new shared state.
    pub fn new(
        config: Config,
        limits: Limits,
        store: Arc<dyn Store>,
        engines: EnginePool,
        analysis: engine::AnalysisPool,
        node: Option<node::Node>,
    ) -> Arc<Shared> {
        Arc::new(Shared {
            node,
            config,
            analysis,
            account_limits: accounts::limiter::AccountLimits::new(&limits),
            limits,
            tcp_connections: Arc::default(),
            store,
            engines,
            registry: Registry::new(),
            tournaments: tournament::Hub::default(),
            lobby: seek::Lobby::default(),
            game_analyses: analysis::Jobs::default(),
            game_end_listeners: Mutex::new(Vec::new()),
            next_conn: AtomicU64::new(1),
            connections: AtomicUsize::new(0),
            stop: Arc::default(),
        })
    }

    /// Resolves once shutdown has begun. A task makes it once and polls it on every
    /// turn of its loop (cheap: [`stop::StopSignal`]).
    pub fn stopped(&self) -> stop::Stopped {
        self.stop.stopped()
    }

    /// Begins shutdown: connections close, game tasks end.
    pub fn begin_shutdown(&self) {
        self.stop.stop();
    }

    /// A fresh connection id.
    pub fn next_conn_id(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    /// Open WebSocket connections.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::Relaxed)
    }

    fn conn_opened(&self) {
        self.connections.fetch_add(1, Ordering::Relaxed);
    }

    fn conn_closed(&self) {
        self.connections.fetch_sub(1, Ordering::Relaxed);
    }

    /// Whether this server directs tournaments: the only server of its database, or
    /// the node of several that holds the lobby lease.
    pub fn directs_tournaments(&self) -> bool {
        self.node
            .as_ref()
            .is_none_or(|n| n.store.holds(node::LOBBY))
    }

    /// Every game end from now on, in the order the games ended.
    pub fn subscribe_game_ends(&self) -> mpsc::UnboundedReceiver<GameEnded> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.game_end_listeners
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(tx);
        rx
    }

    /// Tells every listener that game `game` ended (called by the game's task once
    /// the end is stored).
    pub fn game_ended(&self, game: &str, outcome: Outcome) {
        let mut listeners = self
            .game_end_listeners
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        listeners.retain(|tx| {
            tx.send(GameEnded {
                game: game.to_string(),
                outcome,
            })
            .is_ok()
        });
    }

    /// Creates a game: draws the deal, stores it, starts its task.
    pub async fn create_game(self: &Arc<Shared>, opts: GameOptions) -> Result<Created, StoreError> {
        self.create_game_with_deal(opts, Deal::random(), Deal::random_salt())
            .await
    }

    /// Creates a game on a given deal, committed with `salt` (a tournament's deal).
    pub async fn create_game_with_deal(
        self: &Arc<Shared>,
        opts: GameOptions,
        deal: Deal,
        salt: String,
    ) -> Result<Created, StoreError> {
        let id = util::new_game_id();
        let tokens = ByColor::new_with(|_| util::new_token());
        let invite_token = opts.invite.map(|_| util::new_token());
        let rec = room::new_game_record(&id, &opts, &tokens, invite_token.clone(), &deal, &salt);
        let commitment = rec.commitment.clone();
        self.store
            .write(Write::Create(Box::new(rec.clone())))
            .await?;
        tracing::info!(
            game = %id,
            mode = opts.mode(),
            time = %rec.time,
            move_time_s = rec.move_time_s,
            rules = %rec.rules,
            "game created"
        );
        let stored = store::StoredGame {
            new: rec,
            invite_claimed: false,
            started_ms: None,
            moves: Vec::new(),
            finish: None,
            rematch: None,
            updated_ms: util::now_ms(),
            chat: Vec::new(),
            mutes: ByColor::default(),
            takeback: None,
        };
        self.spawn_game(stored, None)?;
        Ok(Created {
            id,
            tokens,
            invite_token,
            commitment,
        })
    }

    fn spawn_game(
        self: &Arc<Shared>,
        stored: store::StoredGame,
        rematch_tokens: Option<ByColor<String>>,
    ) -> Result<GameHandle, StoreError> {
        let (handle, task) = game::channel();
        let id = stored.new.id.clone();
        let (entry, fresh) = self.registry.insert(&id, handle);
        if fresh {
            let limits = room::RoomLimits {
                abandon_ms: self.config.abandon_ms,
                first_move: self.limits.game_start_and_chat.first_move,
                chat: self.limits.game_start_and_chat.chat.clone(),
            };
            match Room::from_stored(stored, rematch_tokens, limits, Now::real()) {
                Ok(room) => game::spawn_on(Arc::clone(self), room, task),
                Err(e) => {
                    self.registry.remove(&id);
                    return Err(e);
                }
            }
        }
        Ok(entry)
    }

    /// The seat tokens of a stored game's rematch, as its players' new links: the
    /// player who was Red gets the rematch's Black seat (colours swap).
    async fn rematch_tokens(
        &self,
        stored: &store::StoredGame,
    ) -> Result<Option<ByColor<String>>, StoreError> {
        let Some(id) = &stored.rematch else {
            return Ok(None);
        };
        Ok(self.store.load(id).await?.map(|r| ByColor {
            red: r.new.seats.black.token,
            black: r.new.seats.red.token,
        }))
    }

    /// Game `id` loaded from storage and its task started.
    async fn load_game(
        self: &Arc<Shared>,
        id: &str,
    ) -> Result<Option<(GameHandle, usize, bool)>, StoreError> {
        let Some(stored) = self.store.load(id).await? else {
            return Ok(None);
        };
        let plies = stored.moves.len();
        let started = stored.started_ms.is_some();
        let tokens = self.rematch_tokens(&stored).await?;
        Ok(Some((self.spawn_game(stored, tokens)?, plies, started)))
    }

    /// The task of game `id`, loading it from storage if needed; a game another node
    /// serves is refused with [`StoreError::NotOwner`] (see [`Shared::locate`]).
    pub async fn game(self: &Arc<Shared>, id: &str) -> Result<Option<GameHandle>, StoreError> {
        match self.locate(id).await? {
            Some(node::Located::Here(h)) => Ok(Some(h)),
            Some(node::Located::At(_)) => Err(StoreError::NotOwner(id.to_string())),
            None => Ok(None),
        }
    }

    /// Where game `id` is served: here (its task, loaded from storage if needed) or,
    /// on a node of several, by the live node that holds its lease. A game whose node
    /// is gone is taken over: its lease taken at the next epoch, then the game loaded
    /// (after the lease, so that every move the old node committed is read).
    pub async fn locate(self: &Arc<Shared>, id: &str) -> Result<Option<node::Located>, StoreError> {
        if !util::is_game_id(id) {
            return Ok(None);
        }
        if let Some(tx) = self.registry.get(id) {
            return Ok(Some(node::Located::Here(tx)));
        }
        let Some(n) = &self.node else {
            return Ok(self
                .load_game(id)
                .await?
                .map(|(handle, ..)| node::Located::Here(handle)));
        };
        // No lease for a game that does not exist.
        if self.store.summary(id).await?.is_none() {
            return Ok(None);
        }
        match n.store.acquire(id).await? {
            store::Holder::Other { addr, .. } => Ok(Some(node::Located::At(addr))),
            store::Holder::Me { epoch } => match self.load_game(id).await? {
                Some((handle, plies, started)) => {
                    if epoch > 1 {
                        let status = if started { "live" } else { "waiting" };
                        tracing::info!(game = %id, epoch, plies, status, "game taken over");
                    }
                    Ok(Some(node::Located::Here(handle)))
                }
                None => {
                    n.store.release(id).await?;
                    Ok(None)
                }
            },
        }
    }

    /// Starts the task of every unfinished game (after a restart: clocks resume).
    pub async fn resume_unfinished(self: &Arc<Shared>) -> Result<usize, StoreError> {
        let ids = self.store.unfinished().await?;
        let mut n = 0;
        for id in ids {
            match self.load_game(&id).await {
                Ok(Some((_, plies, started))) => {
                    n += 1;
                    let status = if started { "live" } else { "waiting" };
                    tracing::info!(game = %id, plies, status, "game resumed");
                }
                Ok(None) => {}
                Err(e) => tracing::error!(game = %id, "cannot resume: {e}"),
            }
        }
        Ok(n)
    }
}

/// A game ended (the event tournaments listen to).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameEnded {
    /// Game id.
    pub game: String,
    /// How.
    pub outcome: Outcome,
}

/// Every route of the server: games, pages and assets ([`http`]), accounts
/// ([`accounts`]), tournaments ([`tournament`]) and the lobby socket ([`seek`]), with the request body limit and
/// the CSRF guard on every state-changing request, and responses compressed (gzip or
/// Brotli, as the client accepts) where that pays.
pub fn app(shared: Arc<Shared>) -> axum::Router {
    use tower_http::compression::predicate::{NotForContentType, Predicate};
    use tower_http::compression::{CompressionLayer, DefaultPredicate};
    // The default skips small bodies, images and event streams; fonts (woff2) are
    // compressed already. WebSocket upgrades have no body and pass untouched.
    let compress = DefaultPredicate::new().and(NotForContentType::const_new("font/"));
    http::router()
        .merge(accounts::routes::routes())
        .merge(accounts::games::routes())
        .merge(
            tournament::routes().route_layer(axum::middleware::from_fn_with_state(
                Arc::clone(&shared),
                node::forward::to_director,
            )),
        )
        .merge(seek::routes())
        .merge(analysis::routes())
        .layer(axum::middleware::from_fn(accounts::csrf::guard))
        .layer(axum::extract::DefaultBodyLimit::max(request::BODY_LIMIT))
        .layer(CompressionLayer::new().compress_when(compress))
        .with_state(shared)
}

/// A running server.
pub struct Server {
    /// The address it listens on.
    pub addr: SocketAddr,
    /// Its shared state.
    pub shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
    database: store::Database,
}

impl Server {
    /// Opens the database, resumes unfinished games and starts listening, with the
    /// default [`Limits`].
    pub async fn start(config: Config) -> Result<Server, StartError> {
        Server::start_with(config, Limits::default()).await
    }

    /// [`Server::start`] with the given limits.
    pub async fn start_with(config: Config, limits: Limits) -> Result<Server, StartError> {
        let database = store::Database::open(&config.db, config.sync, config.commit_interval)
            .await
            .map_err(|e| StartError(format!("{}: {e}", redacted(&config.db))))?;
        let engine: Arc<dyn engine::Engine> = match config.engine {
            EngineKind::Search => Arc::new(engine::SearchEngine::new(16)),
            EngineKind::Greedy => Arc::new(engine::GreedyEngine),
        };
        let engines = EnginePool::new(Arc::clone(&engine), config.engine_threads);
        let analysis =
            engine::AnalysisPool::new(engine, limits.analysis_threads, limits.analysis_per_client);
        let listener = tokio::net::TcpListener::bind(config.addr)
            .await
            .map_err(|e| StartError(format!("cannot listen on {}: {e}", config.addr)))?;
        let addr = listener
            .local_addr()
            .map_err(|e| StartError(e.to_string()))?;
        let node = match (&config.node, &database) {
            (None, _) => None,
            (Some(nc), store::Database::Postgres(pg)) => {
                let node_addr = node::resolve_addr(&nc.addr, addr).map_err(StartError)?;
                let id = pg
                    .join_cluster(&node_addr, nc.lease)
                    .await
                    .map_err(|e| StartError(format!("joining the cluster: {e}")))?;
                tracing::info!(node = %id, addr = %node_addr, lease_secs = nc.lease.as_secs_f64(), "node started");
                Some(node::Node {
                    id,
                    addr: node_addr,
                    lease: nc.lease,
                    store: Arc::clone(pg),
                })
            }
            (Some(_), store::Database::Sqlite(_)) => {
                return Err(StartError(
                    "several nodes need a PostgreSQL database (--db postgres://…): a SQLite \
                     file belongs to one server; leave out --node-addr"
                        .into(),
                ));
            }
        };
        let shared = Shared::new(
            config.clone(),
            limits,
            database.store(),
            engines,
            analysis,
            node,
        );
        let game_ends = shared.subscribe_game_ends();
        // A node that takes the lobby lease loads the tournaments as it takes it.
        let loaded = match &shared.node {
            Some(n) => n
                .lobby_holder(&shared)
                .await
                .map_err(|e| StartError(format!("lobby lease: {e}")))?
                .is_none(),
            None => false,
        };
        if !loaded {
            tournament::load_all(&shared)
                .await
                .map_err(|e| StartError(format!("tournaments: {e}")))?;
        }
        tournament::listen(Arc::clone(&shared), game_ends);
        let resumed = if shared.node.is_some() {
            // Games are taken over as their nodes' leases expire, the first ones now.
            node::take_over_orphans(&shared).await;
            node::spawn_heartbeat(Arc::clone(&shared));
            shared.registry.len()
        } else {
            shared
                .resume_unfinished()
                .await
                .map_err(|e| StartError(e.to_string()))?
        };
        tracing::info!(%addr, resumed, "listening");
        let app = app(Arc::clone(&shared));
        let task = tokio::spawn(listener::serve(listener, app, Arc::clone(&shared)));
        Ok(Server {
            addr,
            shared,
            task,
            database,
        })
    }

    /// Stops: closes every connection, waits for the listener, flushes the database.
    pub async fn shutdown(self) {
        self.shared.begin_shutdown();
        let _ = self.task.await;
        if let Some(n) = &self.shared.node
            && let Err(e) = n.store.release_all().await
        {
            tracing::warn!("giving the leases up: {e}");
        }
        self.database.close().await;
    }

    /// Runs until `signal` resolves, then shuts down.
    pub async fn run_until(self, signal: impl std::future::Future<Output = ()>) {
        signal.await;
        tracing::info!("shutting down");
        self.shutdown().await;
    }
}

/// A database location fit for a message: a PostgreSQL URL without its password.
fn redacted(db: &std::path::Path) -> String {
    let text = db.display().to_string();
    if !store::Database::is_postgres(db) {
        return text;
    }
    match (text.find("://"), text.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let user = &text[scheme + 3..at];
            let user = user.split(':').next().unwrap_or("");
            format!("{}{user}{}", &text[..scheme + 3], &text[at..])
        }
        _ => text,
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StartError(pub String);
