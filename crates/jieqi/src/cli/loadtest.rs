//! `jieqi loadtest`: many concurrent games over WebSockets on loopback; reports moves
//! per second, move round-trip latency percentiles and memory per game.
//!
//! With `--accounts N` the players are logged in: N accounts are signed up first,
//! every game is rated (created by one account, its seat claimed by another; accounts
//! play several games at once), the sockets carry the session cookies, and at the end
//! Red resigns every game both players have moved in, so that each end updates two
//! ratings: the path of a logged-in player from sign-up to rating.
//!
//! Without `--addr` it starts `jieqi serve` itself (this same binary, a fresh
//! database in a temporary directory) as a child process, so the server's memory can
//! be measured apart from the load generator's.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, anyhow, bail};
use clap::Args;
use jieqi_server::client::{Account, WsClient, claim_seat, http};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::json;
use tokio::sync::{Semaphore, mpsc, watch};

/// Options of `jieqi loadtest`.
#[derive(Args, Debug)]
pub struct LoadtestArgs {
    /// Concurrent games (two WebSocket players each).
    #[arg(long, default_value_t = 1000)]
    pub games: usize,
    /// A running server to test; without it a `jieqi serve` child is started.
    #[arg(long)]
    pub addr: Option<SocketAddr>,
    /// Seconds of play after every game has joined.
    #[arg(long, default_value_t = 20)]
    pub duration: u64,
    /// Mean thinking time per move in ms (each move waits 0.5–1.5× this).
    #[arg(long, default_value_t = 1000)]
    pub think_ms: u64,
    /// Commit durability of the started server (`full` or `normal`).
    #[arg(long, default_value = "full")]
    pub sync: String,
    /// Logged-in players: sign up this many accounts first and play rated games as
    /// them, resigned at the end so that the ratings are updated (0: guests, casual
    /// games that are left unfinished). An external `--addr` server must allow the
    /// sign-ups (`jieqi serve --signups-per-address-hour`).
    #[arg(long, default_value_t = 0)]
    pub accounts: usize,
    /// A running node of several on one database (docs/server.md, "Several nodes");
    /// repeat it for each node: game i is created and played through node i mod N.
    /// The server's CPU and memory are not measured then (they are other processes).
    #[arg(long = "node", conflicts_with = "addr")]
    pub nodes: Vec<SocketAddr>,
}

struct ServerChild {
    child: Child,
    addr: SocketAddr,
    _dir: tempfile::TempDir,
}

impl Drop for ServerChild {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn spawn_server(sync: &str, games: usize, accounts: usize) -> anyhow::Result<ServerChild> {
    let dir = tempfile::tempdir()?;
    let exe = std::env::current_exe()?;
    // Every player connects from this one address: lift the per-address cap.
    let per_address = (2 * games + 64).to_string();
    // Thousands of games are connected and measured idle before anybody moves: a
    // first-move window of an hour keeps them from being aborted meanwhile.
    let mut child = Command::new(exe)
        .args(["serve", "--addr", "127.0.0.1:0", "--sync", sync])
        .args(["--first-move-secs", "3600"])
        .args(["--signups-per-address-hour", &(accounts + 16).to_string()])
        .args(["--max-connections-per-address", &per_address, "--db"])
        .arg(dir.path().join("loadtest.db"))
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .context("cannot start jieqi serve")?;
    let stdout = child.stdout.take().ok_or_else(|| anyhow!("no stdout"))?;
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    let addr = line
        .trim()
        .strip_prefix("listening on http://")
        .ok_or_else(|| anyhow!("unexpected first line from the server: {line:?}"))?
        .parse()?;
    Ok(ServerChild {
        child,
        addr,
        _dir: dir,
    })
}

/// Resident memory of a process in bytes (Linux `/proc`).
pub fn rss_bytes(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// CPU time (user + system) a process has used, in seconds (Linux `/proc`).
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After the command: state is field 3, utime 14 and stime 15 (1-based).
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

/// Context switches of a process, summed over its threads: (voluntary, involuntary)
/// (Linux `/proc`). A thread that ends meanwhile takes its count with it.
pub fn context_switches(pid: u32) -> Option<(u64, u64)> {
    let mut sum = (0, 0);
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).ok()? {
        let Ok(status) = std::fs::read_to_string(task.ok()?.path().join("status")) else {
            continue;
        };
        let (v, n) = switches_in_status(&status)?;
        sum = (sum.0 + v, sum.1 + n);
    }
    Some(sum)
}

/// The `voluntary_ctxt_switches` and `nonvoluntary_ctxt_switches` of a `status` file.
fn switches_in_status(status: &str) -> Option<(u64, u64)> {
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        line[name.len()..].trim().parse().ok()
    };
    Some((
        field("voluntary_ctxt_switches:")?,
        field("nonvoluntary_ctxt_switches:")?,
    ))
}

/// The machine's load average (`/proc/loadavg`: 1, 5 and 15 minutes), to report
/// with the figures: other processes on the same cores change them.
fn load_average() -> Option<String> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    let v: Vec<&str> = s.split_whitespace().take(3).collect();
    (v.len() == 3).then(|| v.join(" "))
}

struct Rng(u64);

impl Rng {
    fn new() -> Rng {
        let mut b = [0u8; 8];
        getrandom_fill(&mut b);
        Rng(u64::from_le_bytes(b) | 1)
    }
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

fn getrandom_fill(b: &mut [u8]) {
    getrandom::fill(b).expect("the operating system's random generator failed");
}

#[derive(Default)]
struct Stats {
    moves: u64,
    rtts_us: Vec<u32>,
    errors: u64,
    ended: u64,
    /// Games that ended during play although this player was to resign at the end (a
    /// mate or a draw of the random moves).
    ended_before_resigning: u64,
    /// Games this player resigned at the end (`--accounts`), and the round trip from
    /// `resign` to its `end`, which waits for the result and both ratings to be stored.
    resigned: u64,
    resign_rtts_us: Vec<u32>,
    /// When the first resignation was sent and the last `end` came back.
    resign_span: Option<(Instant, Instant)>,
}

/// One seat of a game: its token, the session cookie of its account if logged in,
/// and whether it resigns when the time is up (Red of a rated game).
struct Seat {
    token: String,
    cookie: Option<String>,
    resign_at_end: bool,
}

/// Creates a friend game (rated between two accounts if given) and claims its second
/// seat; returns the id and the Red and Black seats.
async fn create_game(
    addr: SocketAddr,
    accounts: Option<(Account, Account)>,
) -> anyhow::Result<(String, Seat, Seat)> {
    let rated = accounts.is_some();
    let body =
        json!({"opponent": "friend", "color": "red", "time": "60+5", "rated": rated}).to_string();
    let r = match &accounts {
        Some((a, _)) => a.http(addr, "POST", "/api/games", Some(&body)).await?,
        None => http(addr, "POST", "/api/games", Some(&body)).await?,
    };
    if r.status != 201 {
        bail!(
            "create: HTTP {} {}",
            r.status,
            String::from_utf8_lossy(&r.body)
        );
    }
    let v = r.json()?;
    let id = v["id"].as_str().unwrap_or_default().to_string();
    let invite = v["invite_token"].as_str();
    let r = match &accounts {
        Some((_, b)) => {
            let body = invite.map(|t| json!({ "invite": t }).to_string());
            b.http(
                addr,
                "POST",
                &format!("/api/games/{id}/join"),
                body.as_deref(),
            )
            .await?
        }
        None => claim_seat(addr, &id, invite).await?,
    };
    if r.status != 200 {
        bail!(
            "join: HTTP {} {}",
            r.status,
            String::from_utf8_lossy(&r.body)
        );
    }
    let friend = r.json()?["token"].as_str().unwrap_or_default().to_string();
    let (red_cookie, black_cookie) = match accounts {
        Some((a, b)) => (Some(a.cookie), Some(b.cookie)),
        None => (None, None),
    };
    Ok((
        id,
        Seat {
            token: v["token"].as_str().unwrap_or_default().to_string(),
            cookie: red_cookie,
            resign_at_end: rated,
        },
        Seat {
            token: friend,
            cookie: black_cookie,
            resign_at_end: false,
        },
    ))
}

/// Signs up `n` accounts (a few at a time: the server hashes two passwords at once);
/// returns them and the seconds it took.
async fn sign_up_accounts(addr: SocketAddr, n: usize) -> anyhow::Result<(Vec<Account>, f64)> {
    let t0 = Instant::now();
    let run = Rng::new().0 & 0xff_ffff;
    let sem = Arc::new(Semaphore::new(4));
    let mut tasks = Vec::new();
    for i in 0..n {
        let sem = Arc::clone(&sem);
        tasks.push(tokio::spawn(async move {
            let _p = sem.acquire().await?;
            let name = format!("lt{run:06x}n{i}");
            Account::sign_up(addr, &name, "load test password")
                .await
                .with_context(|| format!("signing up {name}"))
        }));
    }
    let mut accounts = Vec::new();
    for t in tasks {
        accounts.push(t.await??);
    }
    Ok((accounts, t0.elapsed().as_secs_f64()))
}

/// What a load-test player reads of a server message: only the type, the ply number,
/// the number of moves (in `state`) and the legal moves, borrowed from the text (the
/// rest of the message is skipped without building anything).
#[derive(Deserialize)]
struct Incoming<'a> {
    #[serde(borrow)]
    t: &'a str,
    #[serde(borrow, default)]
    d: Option<IncomingData<'a>>,
}

#[derive(Deserialize)]
struct IncomingData<'a> {
    #[serde(default)]
    ply: Option<PlyNumber>,
    #[serde(default)]
    moves: Option<Vec<IgnoredAny>>,
    #[serde(borrow, default)]
    legal: Vec<&'a str>,
}

#[derive(Deserialize)]
struct PlyNumber {
    n: u64,
}

/// What a player does next after one message.
enum Next {
    /// Nothing (an event that asks for no move).
    Wait,
    /// Our move was acknowledged (ply number), and perhaps a move of ours is due.
    Play {
        plies: u64,
        acked: bool,
        choice: Option<[u8; 4]>,
    },
    /// The game is over.
    End,
    /// The server refused something.
    Error,
}

/// Reads one message and picks a random legal move if one is due.
fn read_message(text: &str, pending: Option<u64>, rng: &mut Rng) -> anyhow::Result<Next> {
    let m: Incoming<'_> =
        serde_json::from_str(text).with_context(|| format!("unreadable message {text:?}"))?;
    Ok(match m.t {
        "state" | "move" => {
            let d = m.d.ok_or_else(|| anyhow!("{} without data", m.t))?;
            let plies = match (m.t, d.ply, d.moves) {
                ("move", Some(p), _) => p.n,
                ("state", _, Some(moves)) => moves.len() as u64,
                _ => bail!("{} without its ply number", m.t),
            };
            let acked = m.t == "move" && pending == Some(plies);
            let choice = if d.legal.is_empty() {
                None
            } else {
                let mv = d.legal[rng.below(d.legal.len())];
                let b: [u8; 4] = mv
                    .as_bytes()
                    .try_into()
                    .map_err(|_| anyhow!("legal move {mv:?} is not 4 characters"))?;
                Some(b)
            };
            Next::Play {
                plies,
                acked,
                choice,
            }
        }
        "end" => Next::End,
        "error" => Next::Error,
        _ => Next::Wait,
    })
}

/// One player's socket: joins, waits for the start, plays random legal moves until
/// the deadline; a seat that resigns at the end then resigns if both have moved and
/// waits for the end.
async fn player(
    addr: SocketAddr,
    game: String,
    seat: Seat,
    connect: Arc<Semaphore>,
    ready: mpsc::Sender<()>,
    mut go: watch::Receiver<Option<Instant>>,
    think_ms: u64,
) -> anyhow::Result<Stats> {
    let Seat {
        token,
        cookie,
        resign_at_end,
    } = seat;
    let mut ws = {
        let _permit = connect.acquire().await?;
        let mut ws = match cookie {
            Some(c) => WsClient::connect_with(addr, &[("Cookie".to_string(), c)]).await?,
            None => WsClient::connect(addr).await?,
        };
        ws.keep_log = false;
        ws.send("join", json!({"game": game, "token": token}), None)
            .await?;
        ws
    };
    let first = loop {
        let text = ws.recv_text(Duration::from_secs(60)).await?;
        if text.as_str().starts_with(r#"{"t":"state""#) {
            break text;
        }
    };
    let _ = ready.send(()).await;
    let deadline = loop {
        if let Some(d) = *go.borrow_and_update() {
            break d;
        }
        go.changed().await?;
    };
    let mut rng = Rng::new();
    let mut stats = Stats::default();
    let mut pending: Option<(u64, Instant)> = None;
    let mut text = first;
    let mut seen_plies = 0;
    let mut over = false;
    loop {
        match read_message(text.as_str(), pending.map(|p| p.0), &mut rng)? {
            Next::Play {
                plies,
                acked,
                choice,
            } => {
                seen_plies = seen_plies.max(plies);
                if acked && let Some((_, at)) = pending.take() {
                    stats
                        .rtts_us
                        .push(at.elapsed().as_micros().min(u128::from(u32::MAX)) as u32);
                    stats.moves += 1;
                }
                if pending.is_none()
                    && let Some(m) = choice
                {
                    let pause = think_ms / 2 + rng.below(think_ms as usize + 1) as u64;
                    tokio::time::sleep(Duration::from_millis(pause)).await;
                    if Instant::now() >= deadline {
                        break;
                    }
                    let m = std::str::from_utf8(&m)?;
                    let msg = format!(r#"{{"t":"move","d":{{"uci":"{m}"}}}}"#);
                    pending = Some((plies + 1, Instant::now()));
                    ws.send_raw(msg).await?;
                }
            }
            Next::End => {
                stats.ended += 1;
                over = true;
                break;
            }
            Next::Error => {
                stats.errors += 1;
                pending = None;
            }
            Next::Wait => {}
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() && pending.is_none() {
            break;
        }
        text = match ws.recv_text(left + Duration::from_secs(10)).await {
            Ok(m) => m,
            Err(_) => break,
        };
    }
    if resign_at_end && over {
        stats.ended_before_resigning += 1;
    }
    // Only after both first moves is a resignation a result (before, only an abort).
    if resign_at_end && !over && seen_plies >= 2 {
        let sent = Instant::now();
        ws.send("resign", serde_json::Value::Null, None).await?;
        loop {
            let text = ws.recv_text(Duration::from_secs(60)).await?;
            match read_message(text.as_str(), None, &mut rng)? {
                Next::End => break,
                Next::Error => {
                    stats.errors += 1;
                    break;
                }
                _ => {}
            }
        }
        let done = Instant::now();
        stats.resigned += 1;
        stats
            .resign_rtts_us
            .push((done - sent).as_micros().min(u128::from(u32::MAX)) as u32);
        stats.resign_span = Some((sent, done));
    }
    ws.close().await;
    Ok(stats)
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    f64::from(sorted[i.min(sorted.len() - 1)]) / 1000.0
}

/// What a load test counted (also printed).
#[derive(Debug)]
pub struct Report {
    /// Players that joined their game.
    pub joined: usize,
    /// Players that failed (connection or protocol).
    pub failures: usize,
    /// Moves acknowledged.
    pub moves: u64,
    /// `error` replies received.
    pub errors: u64,
    /// Games resigned at the end (`--accounts`).
    pub resigned: u64,
    /// Games that ended during play, before the player to resign at the end could (a
    /// mate or a draw of the random moves).
    pub ended_before_resigning: u64,
}

/// Runs the load test.
pub fn run(args: LoadtestArgs) -> anyhow::Result<()> {
    let accounts = args.accounts;
    let r = measure(args)?;
    if r.moves == 0 {
        bail!(
            "no move was played ({} players joined, {} failed, {} errors)",
            r.joined,
            r.failures,
            r.errors
        );
    }
    if accounts > 0 && r.resigned + r.ended_before_resigning == 0 {
        bail!("no rated game was finished ({} errors)", r.errors);
    }
    Ok(())
}

/// Runs the load test and returns its counts.
pub fn measure(args: LoadtestArgs) -> anyhow::Result<Report> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    if args.accounts == 1 {
        bail!("--accounts: a rated game needs two different accounts");
    }
    let external = args.addr.or(args.nodes.first().copied());
    let server = match external {
        Some(_) => None,
        None => Some(spawn_server(&args.sync, args.games, args.accounts)?),
    };
    let addr = external
        .or(server.as_ref().map(|s| s.addr))
        .ok_or_else(|| anyhow!("no address"))?;
    // The servers games are spread over: each game is created and played on one.
    let spread: Arc<[SocketAddr]> = if args.nodes.is_empty() {
        Arc::from([addr])
    } else {
        Arc::from(args.nodes.clone())
    };
    let pid = server.as_ref().map(|s| s.child.id());
    let rss = || pid.and_then(rss_bytes);
    // As many workers as cores, set here so that `TOKIO_WORKER_THREADS` (which tokio
    // reads when none is set) tunes only the server it starts, never the load itself.
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cores)
        .enable_all()
        .build()?;
    let report = rt.block_on(async move {
        let rss0 = rss();
        let accounts = if args.accounts > 0 {
            println!("server {addr}; signing up {} accounts", args.accounts);
            let (accounts, secs) = sign_up_accounts(addr, args.accounts).await?;
            println!(
                "signed up {} accounts in {secs:.1} s = {:.1} ms each (argon2id)",
                accounts.len(),
                secs * 1000.0 / accounts.len() as f64
            );
            accounts
        } else {
            Vec::new()
        };
        println!(
            "server {addr}; creating {} {} games",
            args.games,
            if accounts.is_empty() { "casual guest" } else { "rated" }
        );
        let t0 = Instant::now();
        let sem = Arc::new(Semaphore::new(64));
        let mut creators = Vec::new();
        for i in 0..args.games {
            let sem = Arc::clone(&sem);
            // Game i: accounts 2i and 2i + 1 (mod their number), never one twice.
            let pair = (!accounts.is_empty()).then(|| {
                let n = accounts.len();
                let a = (2 * i) % n;
                let b = (a + 1 + (i / n) % (n - 1)) % n;
                (accounts[a].clone(), accounts[b].clone())
            });
            let node = spread[i % spread.len()];
            creators.push(tokio::spawn(async move {
                let _p = sem.acquire().await?;
                create_game(node, pair)
                    .await
                    .map(|(id, red, black)| (node, id, red, black))
            }));
        }
        let mut games = Vec::new();
        for c in creators {
            games.push(c.await??);
        }
        let create_s = t0.elapsed().as_secs_f64();
        tokio::time::sleep(Duration::from_millis(500)).await;
        let rss1 = rss();
        println!("created in {create_s:.1} s; connecting {} players", 2 * games.len());
        let (ready_tx, mut ready_rx) = mpsc::channel(1024);
        let (go_tx, go_rx) = watch::channel(None);
        let connect = Arc::new(Semaphore::new(200));
        let mut players = Vec::new();
        let logged_in = !accounts.is_empty();
        for (node, id, red, black) in games {
            for seat in [red, black] {
                players.push(tokio::spawn(player(
                    node,
                    id.clone(),
                    seat,
                    Arc::clone(&connect),
                    ready_tx.clone(),
                    go_rx.clone(),
                    args.think_ms,
                )));
            }
        }
        drop(ready_tx);
        let t1 = Instant::now();
        let mut joined = 0;
        while joined < players.len() {
            match tokio::time::timeout(Duration::from_secs(120), ready_rx.recv()).await {
                Ok(Some(())) => joined += 1,
                _ => break,
            }
        }
        println!("{joined} players joined in {:.1} s", t1.elapsed().as_secs_f64());
        tokio::time::sleep(Duration::from_millis(500)).await;
        let rss2 = rss();
        let cpu = || pid.and_then(cpu_seconds);
        let me = std::process::id();
        let switches = || pid.and_then(context_switches);
        let (server_cpu0, client_cpu0) = (cpu(), cpu_seconds(me));
        let switches0 = switches();
        let load0 = load_average();
        let start = Instant::now();
        go_tx.send_replace(Some(start + Duration::from_secs(args.duration)));
        let mut all = Stats::default();
        let mut failures = 0;
        for p in players {
            match p.await {
                Ok(Ok(s)) => {
                    all.moves += s.moves;
                    all.errors += s.errors;
                    all.ended += s.ended;
                    all.ended_before_resigning += s.ended_before_resigning;
                    all.rtts_us.extend(s.rtts_us);
                    all.resigned += s.resigned;
                    all.resign_rtts_us.extend(s.resign_rtts_us);
                    if let Some((a, b)) = s.resign_span {
                        all.resign_span = Some(match all.resign_span {
                            Some((x, y)) => (x.min(a), y.max(b)),
                            None => (a, b),
                        });
                    }
                }
                Ok(Err(e)) => {
                    failures += 1;
                    if failures <= 3 {
                        eprintln!("player failed: {e}");
                    }
                }
                Err(e) => {
                    failures += 1;
                    eprintln!("player task failed: {e}");
                }
            }
        }
        let secs = start.elapsed().as_secs_f64();
        let (server_cpu1, client_cpu1) = (cpu(), cpu_seconds(me));
        let switches1 = switches();
        all.rtts_us.sort_unstable();
        let r = &all.rtts_us;
        println!("games {}  players joined {joined}  failed players {failures}", args.games);
        println!(
            "moves {}  in {secs:.1} s  = {:.0} moves/s  (think {} ms ±50%)",
            all.moves,
            all.moves as f64 / secs,
            args.think_ms
        );
        println!(
            "move round trip ms: p50 {:.2}  p90 {:.2}  p99 {:.2}  max {:.2}",
            percentile(r, 0.5),
            percentile(r, 0.9),
            percentile(r, 0.99),
            percentile(r, 1.0)
        );
        println!("errors {}  games ended {}", all.errors, all.ended / 2);
        if logged_in {
            all.resign_rtts_us.sort_unstable();
            let r = &all.resign_rtts_us;
            let span = all
                .resign_span
                .map_or(0.0, |(a, b)| (b - a).as_secs_f64());
            println!(
                "rated games resigned {} in {span:.1} s = {:.0} games/s; resign to end ms: p50 {:.2}  p90 {:.2}  p99 {:.2}  max {:.2}",
                all.resigned,
                all.resigned as f64 / span.max(1e-9),
                percentile(r, 0.5),
                percentile(r, 0.9),
                percentile(r, 0.99),
                percentile(r, 1.0)
            );
        }
        if let (Some(a), Some(b)) = (load0, load_average()) {
            println!("machine load average (1, 5, 15 min): {a} at the start of play, {b} at the end");
        }
        if let (Some(a), Some(b)) = (server_cpu0, server_cpu1) {
            println!(
                "server CPU {:.1} s during play = {:.0} µs per move ({:.0}% of one core)",
                b - a,
                (b - a) * 1e6 / all.moves.max(1) as f64,
                (b - a) * 100.0 / secs
            );
        }
        if let (Some((v0, n0)), Some((v1, n1))) = (switches0, switches1) {
            let moves = all.moves.max(1) as f64;
            println!(
                "server context switches during play: {:.2} per move ({:.2} voluntary, {:.2} involuntary)",
                (v1 + n1).saturating_sub(v0 + n0) as f64 / moves,
                v1.saturating_sub(v0) as f64 / moves,
                n1.saturating_sub(n0) as f64 / moves,
            );
        }
        if let (Some(a), Some(b)) = (client_cpu0, client_cpu1) {
            println!("load generator CPU {:.1} s during play", b - a);
        }
        match (rss0, rss1, rss2) {
            (Some(a), Some(b), Some(c)) => {
                let n = args.games as f64;
                println!(
                    "server RSS: start {:.1} MiB, {} idle games {:.1} MiB ({:.1} KiB/idle game), connected {:.1} MiB ({:.1} KiB/game with 2 sockets)",
                    a as f64 / 1048576.0,
                    args.games,
                    b as f64 / 1048576.0,
                    (b.saturating_sub(a)) as f64 / n / 1024.0,
                    c as f64 / 1048576.0,
                    (c.saturating_sub(a)) as f64 / n / 1024.0,
                );
            }
            _ => println!("server RSS: not measured (external server)"),
        }
        anyhow::Ok(Report {
            joined,
            failures,
            moves: all.moves,
            errors: all.errors,
            resigned: all.resigned,
            ended_before_resigning: all.ended_before_resigning,
        })
    })?;
    drop(server);
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_switches_are_read_from_a_status_file() {
        let status = "Name:\tjieqi\nState:\tS (sleeping)\nvoluntary_ctxt_switches:\t1234\nnonvoluntary_ctxt_switches:\t56\n";
        assert_eq!(switches_in_status(status), Some((1234, 56)));
        assert_eq!(switches_in_status("Name:\tjieqi\n"), None);
        let mine = context_switches(std::process::id()).expect("this process's threads");
        assert!(mine.0 + mine.1 > 0);
    }

    #[test]
    fn reads_only_what_it_needs_and_picks_a_legal_move() {
        let mut rng = Rng::new();
        let state = r#"{"t":"state","v":3,"d":{"game":"x","moves":[{"n":1,"uci":"h2e2","zh":"炮二平五"},{"n":2}],"fen":"…","legal":["a3a4","b0c2"],"end":null}}"#;
        match read_message(state, None, &mut rng).unwrap() {
            Next::Play {
                plies,
                acked,
                choice,
            } => {
                assert_eq!((plies, acked), (2, false));
                let m = choice.unwrap();
                assert!(&m == b"a3a4" || &m == b"b0c2");
            }
            _ => panic!("a state asks for a move"),
        }
        // Our own move acknowledged: no legal moves (the opponent is to move).
        let ack = r#"{"t":"move","v":4,"d":{"ply":{"n":3,"captured":"x"},"legal":[],"pools":{"red":{"A":2}}}}"#;
        match read_message(ack, Some(3), &mut rng).unwrap() {
            Next::Play {
                plies: 3,
                acked: true,
                choice: None,
            } => {}
            _ => panic!("the acknowledgement of ply 3"),
        }
        // Another ply number is not our acknowledgement.
        assert!(matches!(
            read_message(ack, Some(5), &mut rng).unwrap(),
            Next::Play { acked: false, .. }
        ));
        assert!(matches!(
            read_message(r#"{"t":"end","v":9,"d":{"result":"1-0"}}"#, None, &mut rng).unwrap(),
            Next::End
        ));
        assert!(matches!(
            read_message(r#"{"t":"error","v":0,"d":{"code":"x"}}"#, None, &mut rng).unwrap(),
            Next::Error
        ));
        assert!(matches!(
            read_message(r#"{"t":"presence","v":1,"d":{}}"#, None, &mut rng).unwrap(),
            Next::Wait
        ));
        assert!(read_message("garbage", None, &mut rng).is_err());
        assert!(read_message(r#"{"t":"move","v":1,"d":{"legal":[]}}"#, None, &mut rng).is_err());
        assert!(
            read_message(
                r#"{"t":"move","v":1,"d":{"ply":{"n":1},"legal":["toolong"]}}"#,
                None,
                &mut rng
            )
            .is_err()
        );
    }

    /// A short run against a real server (in this process, through `--addr`): every
    /// player joins, moves are acknowledged, the server refuses none.
    #[test]
    fn a_short_run_against_a_real_server_plays_legal_moves() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let config = jieqi_server::Config {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            db: dir.path().join("loadtest.db"),
            sync: jieqi_server::store::SyncMode::Normal,
            ..jieqi_server::Config::default()
        };
        let server = rt.block_on(jieqi_server::Server::start(config)).unwrap();
        let report = measure(LoadtestArgs {
            games: 4,
            addr: Some(server.addr),
            duration: 2,
            think_ms: 50,
            sync: "normal".into(),
            accounts: 0,
            nodes: Vec::new(),
        })
        .unwrap();
        rt.block_on(server.shutdown());
        assert_eq!((report.joined, report.failures), (8, 0), "{report:?}");
        assert_eq!(report.errors, 0, "an illegal or refused move: {report:?}");
        assert!(report.moves >= 8, "{report:?}");
    }

    /// With `--accounts`: logged-in players play rated games and resign them at the
    /// end; the ratings are then on their profiles.
    #[test]
    fn a_short_run_with_accounts_rates_its_games() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let config = jieqi_server::Config {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            db: dir.path().join("loadtest.db"),
            sync: jieqi_server::store::SyncMode::Normal,
            ..jieqi_server::Config::default()
        };
        let server = rt.block_on(jieqi_server::Server::start(config)).unwrap();
        let report = measure(LoadtestArgs {
            games: 3,
            addr: Some(server.addr),
            duration: 2,
            think_ms: 50,
            sync: "normal".into(),
            accounts: 3,
            nodes: Vec::new(),
        })
        .unwrap();
        rt.block_on(server.shutdown());
        assert_eq!((report.joined, report.failures), (6, 0), "{report:?}");
        assert_eq!(report.errors, 0, "{report:?}");
        // Each game was resigned at the end or ended before by the random moves.
        assert_eq!(
            report.resigned + report.ended_before_resigning,
            3,
            "every game ends rated: {report:?}"
        );
        assert!(report.resigned > 0, "{report:?}");
    }

    /// With `--node` twice: the games are spread over two nodes of one PostgreSQL
    /// database, each played on the node that created it (`JIEQI_TEST_PG`).
    #[test]
    fn a_short_run_spreads_games_over_nodes() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let test = "a_short_run_spreads_games_over_nodes";
        let Some(url) = rt.block_on(jieqi_server::store::test_database(test)) else {
            return;
        };
        let node = || jieqi_server::Config {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            db: url.clone().into(),
            engine: jieqi_server::EngineKind::Greedy,
            node: Some(jieqi_server::node::NodeConfig {
                addr: "127.0.0.1:0".into(),
                lease: Duration::from_secs(10),
            }),
            ..jieqi_server::Config::default()
        };
        let a = rt.block_on(jieqi_server::Server::start(node())).unwrap();
        let b = rt.block_on(jieqi_server::Server::start(node())).unwrap();
        let report = measure(LoadtestArgs {
            games: 4,
            addr: None,
            duration: 2,
            think_ms: 50,
            sync: "normal".into(),
            accounts: 0,
            nodes: vec![a.addr, b.addr],
        })
        .unwrap();
        assert_eq!((report.joined, report.failures), (8, 0), "{report:?}");
        assert_eq!(report.errors, 0, "{report:?}");
        assert!(report.moves >= 8, "{report:?}");
        // Half the games on each node, none relayed.
        assert_eq!(a.shared.registry.len(), 2);
        assert_eq!(b.shared.registry.len(), 2);
        rt.block_on(a.shutdown());
        rt.block_on(b.shutdown());
    }
}
