//! `jieqi serve`: the game server and web UI.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;
use jieqi_server::store::{COMMIT_INTERVAL, SyncMode};
use std::time::Duration;

use jieqi_server::{Config, EngineKind, Limits, Server};

/// Options of `jieqi serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, env = "JIEQI_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Database: a SQLite file (created if missing), or a PostgreSQL URL
    /// (`postgres://user:password@host:5432/jieqi`), whose schema is created or
    /// migrated at start.
    #[arg(long, env = "JIEQI_DB", default_value = "jieqi.db")]
    pub db: PathBuf,
    /// SQLite commit durability: `full` (fsync every commit) or `normal` (survives a
    /// killed process, not a power loss). PostgreSQL follows its server's settings.
    #[arg(long, env = "JIEQI_SYNC", default_value = "full", value_parser = parse_sync)]
    pub sync: SyncMode,
    /// SQLite: milliseconds at least between the starts of two commits. Changes that
    /// arrive sooner wait (at most this long) and share the next commit's fsync; 0
    /// commits each group as soon as the previous commit is done.
    #[arg(long, env = "JIEQI_COMMIT_INTERVAL_MS", default_value_t = COMMIT_INTERVAL.as_millis() as u64)]
    pub commit_interval_ms: u64,
    /// Engine threads: how many engine games think at once.
    #[arg(long, env = "JIEQI_ENGINE_THREADS", default_value_t = 1)]
    pub engine_threads: usize,
    /// Engine of engine games: `search` (jieqi-engine) or `greedy` (one-ply, fast).
    #[arg(long, env = "JIEQI_ENGINE", default_value = "search", value_parser = parse_engine)]
    pub engine: EngineKind,
    /// Seconds a player may be away before the opponent can claim the game.
    #[arg(long, env = "JIEQI_ABANDON_SECS", default_value_t = 60)]
    pub abandon_secs: u64,
    /// Open TCP connections one client address may hold (raise it behind a reverse
    /// proxy, where every client has the proxy's address).
    #[arg(long, env = "JIEQI_MAX_CONNECTIONS_PER_ADDRESS", default_value_t = Limits::default().max_connections_per_address)]
    pub max_connections_per_address: usize,
    /// Seconds a client has to send a request's headers.
    #[arg(long, env = "JIEQI_HEADER_TIMEOUT_SECS", default_value_t = Limits::default().header_read_timeout.as_secs())]
    pub header_timeout_secs: u64,
    /// Seconds after which a connection that has sent nothing is closed.
    #[arg(long, env = "JIEQI_IDLE_TIMEOUT_SECS", default_value_t = Limits::default().idle_timeout.as_secs())]
    pub idle_timeout_secs: u64,
    /// Seconds between the server's WebSocket pings.
    #[arg(long, env = "JIEQI_WS_PING_SECS", default_value_t = Limits::default().ws_ping_interval.as_secs())]
    pub ws_ping_secs: u64,
    /// Seconds past a ping interval after which a silent WebSocket is closed.
    #[arg(long, env = "JIEQI_WS_PONG_TIMEOUT_SECS", default_value_t = Limits::default().ws_pong_timeout.as_secs())]
    pub ws_pong_timeout_secs: u64,
    /// Seconds a player has for his first move before the game is aborted (a
    /// tournament game: lost).
    #[arg(long, env = "JIEQI_FIRST_MOVE_SECS", default_value_t = Limits::default().game_start_and_chat.first_move.as_secs())]
    pub first_move_secs: u64,
    /// Accounts one client address may create per hour (raise it behind a reverse
    /// proxy, or for `jieqi loadtest --accounts`).
    #[arg(long, env = "JIEQI_SIGNUPS_PER_ADDRESS_HOUR", default_value_t = Limits::default().signups_per_address_hour)]
    pub signups_per_address_hour: usize,
    /// Run as one node of several on one PostgreSQL database, reachable by the other
    /// nodes at this `HOST:PORT` (port 0: the port `--addr` listens on). Without it,
    /// this server is the only one of its database (docs/server.md, "Several nodes").
    #[arg(long, env = "JIEQI_NODE_ADDR")]
    pub node_addr: Option<String>,
    /// Seconds a node's lease on its games lasts without renewal: how long the games
    /// of a dead node wait before another node takes them over (needs --node-addr).
    #[arg(long, env = "JIEQI_LEASE_SECS", default_value_t = 10, requires = "node_addr", value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub lease_secs: u64,
}

fn parse_engine(s: &str) -> Result<EngineKind, String> {
    EngineKind::parse(s).ok_or_else(|| format!("{s:?}: expected search or greedy"))
}

fn parse_sync(s: &str) -> Result<SyncMode, String> {
    SyncMode::parse(s).ok_or_else(|| format!("{s:?}: expected full or normal"))
}

impl ServeArgs {
    /// The server configuration.
    pub fn config(&self) -> Config {
        Config {
            addr: self.addr,
            db: self.db.clone(),
            sync: self.sync,
            commit_interval: Duration::from_millis(self.commit_interval_ms),
            engine_threads: self.engine_threads.max(1),
            engine: self.engine,
            abandon_ms: self.abandon_secs.saturating_mul(1000),
            node: self
                .node_addr
                .as_ref()
                .map(|addr| jieqi_server::node::NodeConfig {
                    addr: addr.clone(),
                    lease: Duration::from_secs(self.lease_secs),
                }),
            ..Config::default()
        }
    }

    /// The limits per client.
    pub fn limits(&self) -> Limits {
        let secs = |s: u64| Duration::from_secs(s.max(1));
        Limits {
            max_connections_per_address: self.max_connections_per_address.max(1),
            signups_per_address_hour: self.signups_per_address_hour,
            header_read_timeout: secs(self.header_timeout_secs),
            idle_timeout: secs(self.idle_timeout_secs),
            ws_ping_interval: secs(self.ws_ping_secs),
            ws_pong_timeout: secs(self.ws_pong_timeout_secs),
            game_start_and_chat: jieqi_server::GameStartAndChat {
                first_move: secs(self.first_move_secs),
                ..Default::default()
            },
            ..Limits::default()
        }
    }
}

/// Logs to stderr, filtered by `RUST_LOG` (default `info`).
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

/// Resolves on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
}

/// Runs the server until SIGINT/SIGTERM.
pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    init_tracing();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    rt.block_on(async {
        let server = Server::start_with(args.config(), args.limits()).await?;
        // The first line on stdout names the address (scripts and tests read it).
        println!("listening on http://{}", server.addr);
        server.run_until(shutdown_signal()).await;
        anyhow::Ok(())
    })
}
