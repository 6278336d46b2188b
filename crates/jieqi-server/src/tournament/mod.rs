//! Tournaments on the web server (docs/tournament.md, "Tournaments on the web
//! server"): an organiser creates an event, players join with a link, rounds are
//! paired by `jieqi-tournament`, every board is a server game on the round's committed
//! deal, and results flow back into the standings when the games end.
//!
//! Each event is one [`Event`] value (the `jieqi_tournament::Tournament` state plus the
//! secret links and the game of every board), stored as JSON in the `tournaments`
//! table before any change is acknowledged. Events live in memory behind one async lock
//! each; games find their event through an index kept by the [`Hub`].

mod routes;

pub use routes::routes;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use jieqi_core::{ByColor, Color, Deal, Outcome, Reason, RuleSet};
use jieqi_tournament::{
    DealMode, Entropy, GameResult, PairOptions, Phase, PlayerId, Tournament, TournamentError,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::clock::TimeControl;
use crate::store::{StoreError, Write};
use crate::util::{now_ms, same_secret};
use crate::{GameEnded, GameOptions, Shared};

/// The most players one event accepts.
pub const MAX_PLAYERS: usize = 256;

/// Randomness for deals and salts: the operating system's generator.
struct OsEntropy;

impl Entropy for OsEntropy {
    fn fill(&mut self, buf: &mut [u8]) {
        getrandom::fill(buf).expect("the operating system's random generator failed");
    }
}

/// A player's secret link.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entrant {
    /// The player's capability token.
    pub token: String,
    /// When the player joined (Unix ms).
    pub joined_ms: u64,
}

/// The server game of one board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardGame {
    /// Game id.
    pub game: String,
    /// Red's seat token.
    pub red_token: String,
    /// Black's seat token.
    pub black_token: String,
}

impl BoardGame {
    fn token(&self, c: Color) -> &str {
        match c {
            Color::Red => &self.red_token,
            Color::Black => &self.black_token,
        }
    }
}

/// One event as stored: the tournament state, its links and its games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Event id (10 characters `[a-z0-9]`).
    pub id: String,
    /// The organiser's capability token.
    pub organiser_token: String,
    /// Created (Unix ms).
    pub created_ms: u64,
    /// Whether registration is closed and play has begun.
    pub started: bool,
    /// Time control of every game (`M+S` or `none`).
    pub time: String,
    /// Step time of every game, seconds.
    pub move_time: Option<u64>,
    /// Rule set of every game (`standard` or `tournament`).
    pub rules: String,
    /// One entry per player of `state.players` (same index).
    pub entrants: Vec<Entrant>,
    /// Per round, per board: its server game once created.
    pub boards: Vec<Vec<Option<BoardGame>>>,
    /// The director's state (secret deals included).
    pub state: Tournament,
}

/// Why a tournament request was refused.
#[derive(Debug, thiserror::Error)]
pub enum TError {
    /// Malformed or out-of-range request data.
    #[error("{0}")]
    BadRequest(String),
    /// No such event.
    #[error("no tournament with id {0}")]
    NoTournament(String),
    /// A token that is not the organiser's (or a player's) of this event.
    #[error("{0}")]
    BadToken(&'static str),
    /// The request body is over the limit.
    #[error("the request body is larger than 16 KiB")]
    TooLarge,
    /// Registration is closed.
    #[error("the event has started: registration is closed")]
    Closed,
    /// The director refused the operation (the message says why).
    #[error("{0}")]
    Refused(String),
    /// Storage failed; nothing changed.
    #[error("internal error: {0}")]
    Internal(String),
}

impl From<StoreError> for TError {
    fn from(e: StoreError) -> TError {
        TError::Internal(e.to_string())
    }
}

impl From<TournamentError> for TError {
    fn from(e: TournamentError) -> TError {
        TError::Refused(e.to_string())
    }
}

/// The events in memory and the index from games to events.
#[derive(Default)]
pub struct Hub {
    events: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Event>>>>,
    by_game: Mutex<HashMap<String, String>>,
    private: Mutex<HashSet<String>>,
    /// Changes of the index so far: a game's task re-reads its [`GameFacts`] only
    /// after one, not on every input (two global locks per move otherwise).
    changes: AtomicU64,
}

/// What a game's task knows of its game's event, as of a change count of the
/// index ([`Hub::refresh`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameFacts {
    /// The index's change count when last read (`None`: never read).
    seen: Option<u64>,
    /// Whether the game is private ([`Hub::is_private`]).
    pub private: bool,
    /// Whether the game belongs to an event.
    pub tournament: bool,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Hub {
    /// Whether game `id` is a tournament game whose deal is still secret and shared
    /// with other boards (or the next game of a match): nobody may watch it or read its
    /// record until the deal is published.
    pub fn is_private(&self, game: &str) -> bool {
        lock(&self.private).contains(game)
    }

    /// The event a game belongs to.
    pub fn event_of_game(&self, game: &str) -> Option<String> {
        lock(&self.by_game).get(game).cloned()
    }

    /// Brings `facts` about game `game` up to date: reads the index only if it has
    /// changed since `facts` was read.
    pub fn refresh(&self, game: &str, facts: &mut GameFacts) {
        // Read before the maps: a change made meanwhile leaves the older count in
        // `facts`, so the next call reads again.
        let changes = self.changes.load(Ordering::Acquire);
        if facts.seen == Some(changes) {
            return;
        }
        *facts = GameFacts {
            seen: Some(changes),
            private: self.is_private(game),
            tournament: lock(&self.by_game).contains_key(game),
        };
    }

    /// Counts a change of the index; called after the maps have changed.
    fn changed(&self) {
        self.changes.fetch_add(1, Ordering::Release);
    }

    fn get(&self, id: &str) -> Option<Arc<tokio::sync::Mutex<Event>>> {
        lock(&self.events).get(id).cloned()
    }

    fn all(&self) -> Vec<Arc<tokio::sync::Mutex<Event>>> {
        lock(&self.events).values().cloned().collect()
    }

    fn insert(&self, e: &Event) -> Arc<tokio::sync::Mutex<Event>> {
        let arc = Arc::new(tokio::sync::Mutex::new(e.clone()));
        lock(&self.events).insert(e.id.clone(), Arc::clone(&arc));
        arc
    }

    /// Re-indexes an event's games: which event they belong to, which are private.
    fn index(&self, e: &Event) {
        let mut by_game = lock(&self.by_game);
        let mut private = lock(&self.private);
        by_game.retain(|_, ev| *ev != e.id);
        for (r, round) in e.boards.iter().enumerate() {
            for (b, bg) in round.iter().enumerate() {
                let Some(bg) = bg else { continue };
                by_game.insert(bg.game.clone(), e.id.clone());
                if deal_is_secret_and_shared(e, r, b) {
                    private.insert(bg.game.clone());
                } else {
                    private.remove(&bg.game);
                }
            }
        }
        self.changed();
    }

    /// Forgets games dropped from an event (an unpaired round).
    fn forget_games(&self, games: &[String]) {
        let mut by_game = lock(&self.by_game);
        let mut private = lock(&self.private);
        for g in games {
            by_game.remove(g);
            private.remove(g);
        }
        self.changed();
    }
}

/// Whether board `b` of round `r` plays a deal that is unpublished and used (or to be
/// used) by another game: a duplicate or organiser-given deal.
fn deal_is_secret_and_shared(e: &Event, r: usize, b: usize) -> bool {
    let Some(d) = e
        .state
        .rounds
        .get(r)
        .and_then(|round| round.games.get(b))
        .and_then(|g| g.deal)
    else {
        return false;
    };
    let Some(rec) = e.state.deals.get(d) else {
        return false;
    };
    !rec.published && matches!(rec.mode, DealMode::Duplicate | DealMode::Organiser)
}

impl Event {
    /// Checks a loaded event: the tournament state and the shape of links and boards.
    pub fn check(&self) -> Result<(), String> {
        self.state.validate().map_err(|e| e.to_string())?;
        if !crate::util::is_game_id(&self.id) {
            return Err("bad event id".into());
        }
        if self.entrants.len() != self.state.players.len() {
            return Err("entrants and players differ".into());
        }
        if self.boards.len() != self.state.rounds.len()
            || self
                .boards
                .iter()
                .zip(&self.state.rounds)
                .any(|(b, r)| b.len() != r.games.len())
        {
            return Err("boards and rounds differ".into());
        }
        game_options(&self.time, self.move_time, &self.rules).map_err(|e| e.to_string())?;
        Ok(())
    }

    fn status(&self) -> &'static str {
        if !self.started {
            "registering"
        } else if self.state.is_finished() {
            "finished"
        } else {
            "running"
        }
    }

    /// Whether `token` is the organiser's.
    pub fn is_organiser(&self, token: &str) -> bool {
        same_secret(&self.organiser_token, token)
    }

    /// The player holding `token`.
    pub fn player_of(&self, token: &str) -> Option<PlayerId> {
        self.entrants
            .iter()
            .position(|e| same_secret(&e.token, token))
            .map(|i| i as PlayerId)
    }

    fn require_organiser(&self, token: &str) -> Result<(), TError> {
        if self.is_organiser(token) {
            Ok(())
        } else {
            Err(TError::BadToken(
                "this token is not the organiser's token of this event",
            ))
        }
    }
}

/// The options of every game of an event.
pub fn game_options(
    time: &str,
    move_time: Option<u64>,
    rules: &str,
) -> Result<GameOptions, TError> {
    let tc = TimeControl::parse(time, move_time).map_err(|e| TError::BadRequest(e.to_string()))?;
    let rules = RuleSet::by_name(rules).ok_or_else(|| {
        TError::BadRequest("rules: expected \"standard\" or \"tournament\"".into())
    })?;
    Ok(GameOptions {
        rules,
        tc,
        engine: ByColor::default(),
        invite: None,
        listed: false,
        rematch_of: None,
        users: ByColor::default(),
        rated: false,
    })
}

/// Stores an event durably.
async fn save(shared: &Shared, e: &Event) -> Result<(), TError> {
    let json = serde_json::to_string(e).map_err(|x| TError::Internal(x.to_string()))?;
    shared
        .store
        .write(Write::Tournament {
            id: e.id.clone(),
            json,
            updated_ms: now_ms(),
        })
        .await?;
    Ok(())
}

/// Loads every stored event, enters the results of games that ended while nobody
/// listened (a crash between a game's end and the event's update), pairs what should
/// have been paired and creates missing games. Called once at start.
pub async fn load_all(shared: &Arc<Shared>) -> Result<usize, StoreError> {
    let rows = shared.store.tournaments().await?;
    let mut n = 0;
    for (id, json) in rows {
        let e: Event = match serde_json::from_str::<Event>(&json)
            .map_err(|x| x.to_string())
            .and_then(|e| e.check().map(|()| e))
        {
            Ok(e) => e,
            Err(why) => {
                tracing::error!(tournament = %id, "cannot load: {why}");
                continue;
            }
        };
        shared.tournaments.index(&e);
        let arc = shared.tournaments.insert(&e);
        // A node of several that does not direct tournaments only learns which games
        // are tournament games; the director alone enters results and creates games.
        if !shared.directs_tournaments() {
            n += 1;
            continue;
        }
        let mut guard = arc.lock().await;
        let mut next = guard.clone();
        let mut changed = false;
        for r in 0..next.boards.len() {
            for b in 0..next.boards[r].len() {
                let Some(bg) = next.boards[r][b].clone() else {
                    continue;
                };
                if next.state.rounds[r].games[b].result.is_some() {
                    continue;
                }
                let finish = shared.store.summary(&bg.game).await?.and_then(|s| s.finish);
                // A tournament game is never aborted (docs/server.md, "Game start").
                if let Some(o) = finish.and_then(|f| f.end.outcome()) {
                    let res = GameResult::from(&o);
                    if next.state.set_result(r + 1, b + 1, res, false).is_ok() {
                        changed = true;
                    }
                }
            }
        }
        if changed {
            auto_pair(&mut next);
        }
        let before = count_games(&next);
        if let Err(err) = ensure_games(shared, &mut next).await {
            tracing::error!(tournament = %id, "cannot create games: {err}");
        }
        if changed || count_games(&next) != before {
            if let Err(err) = save(shared, &next).await {
                tracing::error!(tournament = %id, "cannot store: {err}");
                continue;
            }
            shared.tournaments.index(&next);
            *guard = next;
        }
        n += 1;
    }
    Ok(n)
}

fn count_games(e: &Event) -> usize {
    e.boards.iter().flatten().filter(|b| b.is_some()).count()
}

/// Creates the server game of every board that has a deal and no game yet.
async fn ensure_games(shared: &Arc<Shared>, e: &mut Event) -> Result<(), TError> {
    let opts = game_options(&e.time, e.move_time, &e.rules)?;
    for r in 0..e.state.rounds.len() {
        for b in 0..e.state.rounds[r].games.len() {
            let g = &e.state.rounds[r].games[b];
            if e.boards[r][b].is_some() || g.result.is_some() {
                continue;
            }
            let Some(rec) = g.deal.and_then(|d| e.state.deals.get(d)) else {
                continue;
            };
            let Some(deal) = rec.deal.as_deref().and_then(|d| Deal::parse(d).ok()) else {
                continue; // a joint deal still waiting for contributions
            };
            let created = shared
                .create_game_with_deal(opts.clone(), deal, rec.salt.clone())
                .await?;
            e.boards[r][b] = Some(BoardGame {
                game: created.id,
                red_token: created.tokens.red,
                black_token: created.tokens.black,
            });
        }
    }
    Ok(())
}

/// In the knockout phase the next game of every match is paired as soon as the
/// previous round is complete (organiser-deal rounds excepted: they need the deals).
fn auto_pair(e: &mut Event) -> bool {
    let Some(last) = e.state.rounds.last() else {
        return false;
    };
    if !matches!(last.phase, Phase::Knockout { .. })
        || !last.complete()
        || e.state.is_finished()
        || e.state.settings.deal_mode == DealMode::Organiser
    {
        return false;
    }
    match e.state.pair(&PairOptions::default(), &mut OsEntropy) {
        Ok(_) => {
            e.state.seed_joint_deals(&mut OsEntropy);
            let n = e.state.rounds.last().map_or(0, |r| r.games.len());
            e.boards.push(vec![None; n]);
            true
        }
        Err(err) => {
            tracing::warn!(tournament = %e.id, "knockout not paired automatically: {err}");
            false
        }
    }
}

/// Enters the result of every tournament game that ends, as the games announce their
/// ends ([`Shared::subscribe_game_ends`]); each in a task of its own, so that one
/// event's lock never holds up another's results.
pub fn listen(shared: Arc<Shared>, mut ends: mpsc::UnboundedReceiver<GameEnded>) {
    tokio::spawn(async move {
        while let Some(GameEnded { game, outcome }) = ends.recv().await {
            let Some(event) = shared.tournaments.event_of_game(&game) else {
                continue;
            };
            // On a node of several, only the director writes tournament state; it
            // enters this result from the stored game when it next loads them.
            if !shared.directs_tournaments() {
                tracing::warn!(tournament = %event, %game, "result left to the directing node");
                continue;
            }
            let result = GameResult::from(&outcome);
            let shared = Arc::clone(&shared);
            tokio::spawn(async move {
                if let Err(e) = enter_game_result(&shared, &event, &game, result).await {
                    tracing::error!(tournament = %event, %game, "result not entered: {e}");
                }
            });
        }
    });
}

async fn enter_game_result(
    shared: &Arc<Shared>,
    event: &str,
    game: &str,
    result: GameResult,
) -> Result<(), TError> {
    let arc = shared
        .tournaments
        .get(event)
        .ok_or_else(|| TError::NoTournament(event.into()))?;
    let mut guard = arc.lock().await;
    let Some((r, b)) = find_board(&guard, game) else {
        return Ok(()); // dropped by an unpair meanwhile
    };
    if guard.state.rounds[r].games[b].result.is_some() {
        return Ok(()); // the organiser entered a result first
    }
    let mut next = guard.clone();
    next.state.set_result(r + 1, b + 1, result, false)?;
    auto_pair(&mut next);
    let created = ensure_games(shared, &mut next).await;
    commit(shared, &mut guard, next).await?;
    created
}

fn find_board(e: &Event, game: &str) -> Option<(usize, usize)> {
    e.boards.iter().enumerate().find_map(|(r, round)| {
        round
            .iter()
            .position(|bg| bg.as_ref().is_some_and(|bg| bg.game == game))
            .map(|b| (r, b))
    })
}

/// Stores `next` and makes it the event's state (only once it is durable).
async fn commit(
    shared: &Shared,
    guard: &mut tokio::sync::MutexGuard<'_, Event>,
    next: Event,
) -> Result<(), TError> {
    save(shared, &next).await?;
    shared.tournaments.index(&next);
    **guard = next;
    Ok(())
}

/// Creates an event and stores it.
pub async fn create(shared: &Arc<Shared>, e: Event) -> Result<(), TError> {
    save(shared, &e).await?;
    shared.tournaments.index(&e);
    shared.tournaments.insert(&e);
    Ok(())
}

async fn event(shared: &Shared, id: &str) -> Result<Arc<tokio::sync::Mutex<Event>>, TError> {
    if !crate::util::is_game_id(id) {
        return Err(TError::NoTournament(id.into()));
    }
    shared
        .tournaments
        .get(id)
        .ok_or_else(|| TError::NoTournament(id.into()))
}

/// A player joins; returns the new player's id and token.
pub async fn join(
    shared: &Arc<Shared>,
    id: &str,
    name: &str,
    rating: Option<u32>,
) -> Result<(PlayerId, String), TError> {
    let arc = event(shared, id).await?;
    let mut guard = arc.lock().await;
    if guard.started {
        return Err(TError::Closed);
    }
    if guard.state.players.len() >= MAX_PLAYERS {
        return Err(TError::Refused(format!(
            "the event is full ({MAX_PLAYERS} players)"
        )));
    }
    let mut next = guard.clone();
    let mut p = jieqi_tournament::Player::named(name);
    p.rating = rating;
    let pid = next.state.add_player(p)?;
    let token = crate::util::new_token();
    next.entrants.push(Entrant {
        token: token.clone(),
        joined_ms: now_ms(),
    });
    commit(shared, &mut guard, next).await?;
    Ok((pid, token))
}

/// What the organiser asks for.
pub enum OrganiserAction {
    /// Remove a player (before the start), or withdraw him (after).
    Remove(PlayerId),
    /// Close registration and pair round 1.
    Start(PairOptions),
    /// Pair the next round.
    Pair(PairOptions),
    /// Drop the last round (no result, no move played), to pair it again.
    Unpair,
    /// Enter or correct a result.
    Result {
        /// Round, 1-based.
        round: usize,
        /// Board, 1-based.
        board: usize,
        /// The result.
        result: GameResult,
    },
}

/// Applies an organiser's action (after checking the token); nothing changes on error.
pub async fn organiser(
    shared: &Arc<Shared>,
    id: &str,
    token: &str,
    action: OrganiserAction,
) -> Result<(), TError> {
    let arc = event(shared, id).await?;
    let mut guard = arc.lock().await;
    guard.require_organiser(token)?;
    let mut next = guard.clone();
    let mut dropped = Vec::new();
    match action {
        OrganiserAction::Remove(p) => {
            if p as usize >= next.state.players.len() {
                return Err(TError::BadRequest(format!("no player {p}")));
            }
            if next.started {
                next.state.withdraw(p)?;
            } else {
                next.state.players.remove(p as usize);
                next.entrants.remove(p as usize);
            }
        }
        OrganiserAction::Start(opts) => {
            if next.started {
                return Err(TError::Refused("the event has already started".into()));
            }
            next.started = true;
            pair_into(&mut next, &opts)?;
        }
        OrganiserAction::Pair(opts) => {
            if !next.started {
                return Err(TError::Refused("start the event first".into()));
            }
            pair_into(&mut next, &opts)?;
        }
        OrganiserAction::Unpair => {
            let last = next.boards.len();
            if last == 0 {
                return Err(TournamentError::NoRounds.into());
            }
            for bg in next.boards[last - 1].iter().flatten() {
                let played = shared
                    .store
                    .summary(&bg.game)
                    .await?
                    .is_some_and(|s| s.plies > 0 || s.finish.is_some());
                if played {
                    return Err(TError::Refused(format!(
                        "round {last} has started (a move has been played in game {})",
                        bg.game
                    )));
                }
            }
            next.state.unpair()?;
            dropped = next
                .boards
                .pop()
                .unwrap_or_default()
                .into_iter()
                .flatten()
                .map(|bg| bg.game)
                .collect();
        }
        OrganiserAction::Result {
            round,
            board,
            result,
        } => {
            next.state.set_result(round, board, result, true)?;
            // The server game ends first: no move is accepted after the result, and
            // the deal (published once every game on it has a result) is never
            // published while its game can still be played.
            let game = next
                .boards
                .get(round.wrapping_sub(1))
                .and_then(|r| r.get(board.wrapping_sub(1)))
                .and_then(|bg| bg.as_ref().map(|bg| bg.game.clone()));
            if let Some(game) = game {
                end_game(shared, &game, result).await?;
            }
            auto_pair(&mut next);
        }
    }
    let created = ensure_games(shared, &mut next).await;
    commit(shared, &mut guard, next).await?;
    shared.tournaments.forget_games(&dropped);
    created
}

/// The outcome that ends a server game with an organiser's result.
fn adjudicated(result: GameResult) -> Outcome {
    let win = |winner, reason| Outcome::Win { winner, reason };
    match result {
        GameResult::RedWin => win(Color::Red, Reason::Adjudication),
        GameResult::BlackWin => win(Color::Black, Reason::Adjudication),
        GameResult::RedForfeitWin => win(Color::Red, Reason::Forfeit),
        GameResult::BlackForfeitWin => win(Color::Black, Reason::Forfeit),
        GameResult::Draw | GameResult::DoubleForfeit => Outcome::Draw {
            reason: Reason::Adjudication,
        },
    }
}

/// Ends board game `game` with the organiser's `result` (a finished game stays as it
/// ended) and waits until the end is stored and announced.
async fn end_game(shared: &Arc<Shared>, game: &str, result: GameResult) -> Result<(), TError> {
    let handle = shared
        .game(game)
        .await?
        .ok_or_else(|| TError::Internal(format!("the board's game {game} is missing")))?;
    handle
        .adjudicate(adjudicated(result))
        .await
        .map_err(|e| TError::Internal(format!("game {game}: {e}")))?
        .map_err(|e| TError::Internal(format!("game {game}: {}", e.message)))
}

fn pair_into(e: &mut Event, opts: &PairOptions) -> Result<(), TError> {
    e.state.pair(opts, &mut OsEntropy)?;
    e.state.seed_joint_deals(&mut OsEntropy);
    let n = e.state.rounds.last().map_or(0, |r| r.games.len());
    e.boards.push(vec![None; n]);
    Ok(())
}

/// The least randomness a joint-deal contribution must show, in bits.
pub const MIN_CONTRIBUTION_BITS: f64 = 64.0;

/// An estimate of the randomness in a contribution: its length times the Shannon
/// entropy of its characters' frequencies. Generous to random text (32 random hex
/// digits score about 115) and harsh to short or repetitive text (`1234` scores 8,
/// `aaaa…` 0), which is what a player searching the opponent's secret exploits.
pub fn contribution_bits(secret: &str) -> f64 {
    let mut counts: HashMap<char, usize> = HashMap::new();
    for c in secret.chars() {
        *counts.entry(c).or_default() += 1;
    }
    let n = secret.chars().count() as f64;
    let per_char: f64 = counts
        .values()
        .map(|&k| {
            let p = k as f64 / n;
            -p * p.log2()
        })
        .sum();
    (per_char * n).max(0.0)
}

/// A player's secret contribution to a joint deal of his board.
pub async fn contribute(
    shared: &Arc<Shared>,
    id: &str,
    token: &str,
    round: usize,
    board: usize,
    secret: &str,
) -> Result<(), TError> {
    let arc = event(shared, id).await?;
    let mut guard = arc.lock().await;
    let p = guard.player_of(token).ok_or(TError::BadToken(
        "this token is not a player's token of this event",
    ))?;
    let g = guard
        .state
        .rounds
        .get(round.wrapping_sub(1))
        .and_then(|r| r.games.get(board.wrapping_sub(1)))
        .ok_or_else(|| TError::BadRequest(format!("no board {board} in round {round}")))?;
    let side = if g.red == p {
        Color::Red
    } else if g.black == p {
        Color::Black
    } else {
        return Err(TError::BadToken("you do not play on this board"));
    };
    // Checked after the token and the board, so that a stranger learns nothing.
    let bits = contribution_bits(secret);
    if bits < MIN_CONTRIBUTION_BITS {
        return Err(TError::BadRequest(format!(
            "secret: too guessable (about {bits:.0} bits, at least {MIN_CONTRIBUTION_BITS:.0} needed): use the one the page generates, or 20 or more random characters"
        )));
    }
    let mut next = guard.clone();
    next.state.contribute(round, board, side, secret)?;
    let created = ensure_games(shared, &mut next).await;
    commit(shared, &mut guard, next).await?;
    created
}

/// The public view of an event (plus the caller's own links if `token` is the
/// organiser's or a player's). Never contains an unpublished deal or salt, nor anybody
/// else's token.
pub async fn view(shared: &Shared, id: &str, token: Option<&str>) -> Result<Value, TError> {
    let arc = event(shared, id).await?;
    let e = arc.lock().await;
    Ok(view_of(&e, token))
}

/// The public list of events, newest first.
pub async fn list(shared: &Shared, limit: usize) -> Vec<Value> {
    let mut rows = Vec::new();
    for arc in shared.tournaments.all() {
        let e = arc.lock().await;
        rows.push((
            e.created_ms,
            json!({
                "id": e.id,
                "name": e.state.name,
                "format": e.state.describe_format(),
                "settings": e.state.settings,
                "status": e.status(),
                "players": e.state.players.len(),
                "rounds": e.state.rounds.len(),
                "created_ms": e.created_ms,
                "url": format!("/t/{}", e.id),
            }),
        ));
    }
    rows.sort_by_key(|(c, _)| std::cmp::Reverse(*c));
    rows.into_iter().take(limit).map(|(_, v)| v).collect()
}

/// An export of an event: `html` (self-contained standings page with crosstable),
/// `csv`, `games-csv` or `json` (public view of the director's state).
pub async fn export(
    shared: &Shared,
    id: &str,
    format: &str,
) -> Result<(String, &'static str), TError> {
    let arc = event(shared, id).await?;
    let e = arc.lock().await;
    Ok(match format {
        "html" => (e.state.standings_html(), "text/html; charset=utf-8"),
        "csv" => (e.state.standings_csv(), "text/csv; charset=utf-8"),
        "games-csv" => (e.state.games_csv(), "text/csv; charset=utf-8"),
        "json" => (e.state.public_json().to_string(), "application/json"),
        f => {
            return Err(TError::BadRequest(format!(
                "format {f:?}: expected html, csv, games-csv or json"
            )));
        }
    })
}

fn phase_json(p: Phase) -> Value {
    match p {
        Phase::Swiss => json!({"kind": "swiss"}),
        Phase::RoundRobin { cycle } => json!({"kind": "round-robin", "cycle": cycle}),
        Phase::Knockout { stage } => json!({"kind": "knockout", "stage": stage + 1}),
    }
}

fn view_of(e: &Event, token: Option<&str>) -> Value {
    let t = &e.state;
    let rank = t.ranking_list();
    let players: Vec<Value> = t
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            json!({
                "id": i,
                "name": p.name,
                "rating": p.rating,
                "start": rank.iter().position(|&x| x as usize == i).map(|s| s + 1),
                "withdrawn": p.withdrawn,
            })
        })
        .collect();
    let deals: Vec<Value> = t
        .deals
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let mut v = json!({
                "index": i,
                "mode": d.mode.name(),
                "commitment": d.commitment,
                "server_commitment": d.server_commitment,
                "published": d.published,
                "deal": null,
                "salt": null,
                "server_seed": null,
                "verifies": null,
            });
            if d.published {
                v["deal"] = json!(d.deal);
                v["salt"] = json!(d.salt);
                v["server_seed"] = json!(d.server_seed);
                v["verifies"] = json!(d.verifies());
            }
            v
        })
        .collect();
    let rounds: Vec<Value> = t
        .rounds
        .iter()
        .enumerate()
        .map(|(ri, r)| {
            let boards: Vec<Value> = r
                .games
                .iter()
                .enumerate()
                .map(|(bi, g)| {
                    let bg = e.boards.get(ri).and_then(|b| b.get(bi)).and_then(Option::as_ref);
                    json!({
                        "board": bi + 1,
                        "red": g.red,
                        "black": g.black,
                        "result": g.result.map(GameResult::text),
                        "deal": g.deal,
                        "game": bg.map(|b| b.game.clone()),
                        "private": deal_is_secret_and_shared(e, ri, bi),
                        "knockout": g.knockout.map(|m| json!({"stage": m.stage + 1, "match": m.index + 1, "game": m.game})),
                    })
                })
                .collect();
            json!({
                "round": ri + 1,
                "phase": phase_json(r.phase),
                "name": { "en": t.round_name(ri + 1).english(), "zh": t.round_name(ri + 1).chinese() },
                "deal_mode": r.deal_mode.name(),
                "bye": r.bye,
                "complete": r.complete(),
                "boards": boards,
            })
        })
        .collect();
    let standings: Vec<Value> = t
        .standings()
        .iter()
        .map(|row| {
            json!({
                "rank": row.rank,
                "player": row.player,
                "points": row.points,
                "tiebreaks": row.tiebreaks,
                "shared": row.shared,
                "played": row.played,
            })
        })
        .collect();
    let crosstable: Vec<Value> = (0..t.players.len() as PlayerId)
        .map(|p| {
            let entries: Vec<Value> = t
                .entries(p)
                .iter()
                .map(|en| {
                    json!({
                        "round": en.round,
                        "opponent": en.opponent,
                        "colour": en.colour.map(Color::name),
                        "half_points": en.half_points,
                        "played": en.played,
                    })
                })
                .collect();
            json!({"player": p, "entries": entries})
        })
        .collect();
    let bracket = t.bracket.as_ref().map(|b| {
        let stages: Vec<Value> = b
            .stages
            .iter()
            .enumerate()
            .map(|(s, st)| {
                let matches: Vec<Value> = st
                    .matches
                    .iter()
                    .enumerate()
                    .map(|(i, m)| {
                        let state = t.match_state(s, i);
                        let games: Vec<Value> = t
                            .match_games(s, i)
                            .iter()
                            .map(|(mr, g)| {
                                let id = find_game_of(e, s, i, mr.game);
                                json!({"game": mr.game, "red": g.red, "black": g.black,
                                       "result": g.result.map(GameResult::text), "id": id})
                            })
                            .collect();
                        json!({
                            "kind": match m.kind {
                                jieqi_tournament::MatchKind::Main => "main",
                                jieqi_tournament::MatchKind::ThirdPlace => "third-place",
                            },
                            "high": m.high,
                            "low": m.low,
                            "high_seed": b.seed_of(m.high),
                            "low_seed": m.low.and_then(|l| b.seed_of(l)),
                            "score": [f64::from(state.high_points) / 2.0, f64::from(state.low_points) / 2.0],
                            "winner": state.winner,
                            "games": games,
                        })
                    })
                    .collect();
                json!({"stage": s + 1, "matches": matches})
            })
            .collect();
        json!({"entrants": b.entrants, "stages": stages})
    });
    let places: Vec<Value> = if e.started {
        t.places()
            .iter()
            .map(|p| json!({"place": p.place, "player": p.player, "how": p.how}))
            .collect()
    } else {
        Vec::new()
    };
    let finished = t.is_finished();
    let can_pair = e.started && !finished && t.rounds.last().is_none_or(|r| r.complete());
    let you = token.filter(|s| !s.is_empty()).and_then(|tok| {
        if e.is_organiser(tok) {
            Some(json!({"role": "organiser", "join_url": format!("/t/{}", e.id)}))
        } else {
            e.player_of(tok).map(|p| you_player(e, p))
        }
    });
    json!({
        "id": e.id,
        "name": t.name,
        "format": t.describe_format(),
        "settings": t.settings,
        "status": e.status(),
        "started": e.started,
        "finished": finished,
        "time": e.time,
        "move_time": e.move_time,
        "rules": e.rules,
        "created_ms": e.created_ms,
        "players": players,
        "rounds": rounds,
        "deals": deals,
        "tiebreaks": t.settings.tiebreaks.iter().map(|tb| tb.short()).collect::<Vec<_>>(),
        "standings": standings,
        "crosstable": crosstable,
        "bracket": bracket,
        "places": places,
        "can_pair": can_pair,
        "can_unpair": t.rounds.last().is_some_and(|r| !r.started()),
        "you": you,
    })
}

fn find_game_of(e: &Event, stage: usize, index: usize, game: u32) -> Option<String> {
    e.state.rounds.iter().enumerate().find_map(|(ri, r)| {
        r.games.iter().enumerate().find_map(|(bi, g)| {
            g.knockout
                .filter(|m| m.stage == stage && m.index == index && m.game == game)
                .and_then(|_| e.boards.get(ri)?.get(bi)?.as_ref().map(|b| b.game.clone()))
        })
    })
}

fn you_player(e: &Event, p: PlayerId) -> Value {
    let mut games = Vec::new();
    let mut contribute = Vec::new();
    for (ri, r) in e.state.rounds.iter().enumerate() {
        for (bi, g) in r.games.iter().enumerate() {
            let color = if g.red == p {
                Color::Red
            } else if g.black == p {
                Color::Black
            } else {
                continue;
            };
            let bg = e
                .boards
                .get(ri)
                .and_then(|b| b.get(bi))
                .and_then(Option::as_ref);
            games.push(json!({
                "round": ri + 1,
                "board": bi + 1,
                "color": color.name(),
                "opponent": if color == Color::Red { g.black } else { g.red },
                "result": g.result.map(GameResult::text),
                "game": bg.map(|b| b.game.clone()),
                "url": bg.map(|b| format!("/game/{}?seat={}", b.game, b.token(color))),
            }));
            if let Some(rec) = g.deal.and_then(|d| e.state.deals.get(d))
                && rec.mode == DealMode::Joint
                && rec.deal.is_none()
            {
                let given = match color {
                    Color::Red => rec.red_contribution.is_some(),
                    Color::Black => rec.black_contribution.is_some(),
                };
                contribute.push(json!({"round": ri + 1, "board": bi + 1, "given": given}));
            }
        }
    }
    games.reverse();
    json!({
        "role": "player",
        "player": p,
        "name": e.state.players[p as usize].name,
        "games": games,
        "contribute": contribute,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_facts_follow_the_index() {
        let hub = Hub::default();
        let mut facts = GameFacts::default();
        hub.refresh("g1", &mut facts);
        assert!(!facts.private && !facts.tournament);
        lock(&hub.by_game).insert("g1".into(), "e1".into());
        lock(&hub.private).insert("g1".into());
        // Unchanged as far as the count says: the facts stay as read.
        hub.refresh("g1", &mut facts);
        assert!(!facts.private && !facts.tournament);
        hub.changed();
        hub.refresh("g1", &mut facts);
        assert!(facts.private && facts.tournament);
        hub.forget_games(&["g1".to_string()]);
        hub.refresh("g1", &mut facts);
        assert!(!facts.private && !facts.tournament);
    }

    #[test]
    fn guessable_contributions_score_low_random_ones_high() {
        for weak in [
            "1234",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "password",
            "secret",
        ] {
            assert!(contribution_bits(weak) < MIN_CONTRIBUTION_BITS, "{weak}");
        }
        let random = crate::util::random_hex(16);
        assert!(
            contribution_bits(&random) >= MIN_CONTRIBUTION_BITS,
            "{random}"
        );
        assert!(
            contribution_bits("my cat Felix jumped over 3 lazy dogs!") >= MIN_CONTRIBUTION_BITS
        );
        assert_eq!(contribution_bits(""), 0.0);
    }
}
