//! The async shell around the seek [`Pool`]: one task owns the pool and every lobby
//! connection's outbox, feeds the pool one command at a time (so two players accepting
//! the same seek are served in turn: exactly one gets it), pushes the list's changes
//! to every lobby, and creates the games of pairings. [`LobbyHandle`] is the typed stub
//! the lobby sockets use.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use axum::extract::ws::Utf8Bytes;
use jieqi_core::{ByColor, Color, RuleSet};
use tokio::sync::mpsc;

use super::pool::{Effect, Identity, Pairing, Pool, PoolLimits, Seek, Seeker, Terms};
use crate::game::Outbox;
use crate::protocol::lobby::{
    LobbyError, LobbyErrorCode, LobbyOut, PairedOut, SeekOut, SeekRemovedOut, SeeksOut,
};
use crate::{GameOptions, Shared};

/// Commands queued for the lobby's task.
const QUEUE: usize = 1024;

/// How long the news of a pairing may wait for room in a player's outbox.
const PAIRED_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// What the lobby's task is asked to do.
enum Cmd {
    /// A lobby connection opened; the list and its changes go to `outbox`.
    Enter { who: Identity, outbox: Outbox },
    /// A new seek.
    Seek { seeker: Seeker, terms: Terms },
    /// Take a seek.
    Accept { seeker: Seeker, id: String },
    /// Withdraw a seek.
    Cancel { who: Identity, id: String },
    /// A lobby connection closed.
    Leave { conn: u64 },
}

/// A typed handle on the lobby's task.
#[derive(Clone)]
pub struct LobbyHandle {
    tx: mpsc::Sender<Cmd>,
}

/// The lobby's task has stopped (the server is shutting down).
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the lobby stopped")]
pub struct Gone;

impl LobbyHandle {
    async fn send(&self, cmd: Cmd) -> Result<(), Gone> {
        self.tx.send(cmd).await.map_err(|_| Gone)
    }

    /// Connection `who.conn` enters: it gets the list now and every change after.
    pub async fn enter(&self, who: Identity, outbox: Outbox) -> Result<(), Gone> {
        self.send(Cmd::Enter { who, outbox }).await
    }

    /// A new seek; the answer (a `seek_added`, a `paired` or an `error`) goes to the
    /// seeker's connection.
    pub async fn seek(&self, seeker: Seeker, terms: Terms) -> Result<(), Gone> {
        self.send(Cmd::Seek { seeker, terms }).await
    }

    /// Take seek `id`.
    pub async fn accept(&self, seeker: Seeker, id: String) -> Result<(), Gone> {
        self.send(Cmd::Accept { seeker, id }).await
    }

    /// Withdraw seek `id`.
    pub async fn cancel(&self, who: Identity, id: String) -> Result<(), Gone> {
        self.send(Cmd::Cancel { who, id }).await
    }

    /// Connection `conn` closed: its seeks go.
    pub async fn leave(&self, conn: u64) {
        let _ = self.send(Cmd::Leave { conn }).await;
    }
}

/// The server's lobby: its task starts with the first lobby connection.
#[derive(Default)]
pub struct Lobby {
    handle: OnceLock<LobbyHandle>,
}

impl Lobby {
    /// The handle on the lobby's task, starting it if needed.
    pub fn handle(&self, shared: &Arc<Shared>) -> LobbyHandle {
        self.handle
            .get_or_init(|| {
                let (tx, rx) = mpsc::channel(QUEUE);
                let hub = Hub {
                    shared: Arc::clone(shared),
                    pool: Pool::new(PoolLimits::default()),
                    lobbies: HashMap::new(),
                };
                tokio::spawn(hub.run(rx));
                LobbyHandle { tx }
            })
            .clone()
    }
}

/// One lobby connection.
struct Member {
    who: Identity,
    outbox: Outbox,
}

struct Hub {
    shared: Arc<Shared>,
    pool: Pool,
    lobbies: HashMap<u64, Member>,
}

/// A colour from the operating system's random generator.
fn coin() -> Color {
    let mut b = [0u8; 1];
    getrandom::fill(&mut b).expect("the operating system's random generator failed");
    if b[0] & 1 == 0 {
        Color::Red
    } else {
        Color::Black
    }
}

/// A seek as `receiver` sees it.
fn seek_out(s: &Seek, receiver: &Identity) -> SeekOut {
    SeekOut {
        id: s.id.clone(),
        name: s.owner.who.user.clone(),
        rating: s.owner.rating(s.category),
        provisional: s.owner.provisional(s.category),
        time: s.terms.tc.text(),
        move_time: s.terms.tc.move_ms.map(|m| m / 1000),
        rated: s.terms.rated,
        color: s.terms.color.map_or("random", Color::name),
        range: s.terms.range,
        category: s.category.name(),
        own: s.owner.who.same_person(receiver),
    }
}

impl Hub {
    async fn run(mut self, mut rx: mpsc::Receiver<Cmd>) {
        let mut stop = self.shared.stopped();
        loop {
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(cmd) => self.handle(cmd),
                    None => break,
                },
                _ = &mut stop => break,
            }
        }
    }

    fn handle(&mut self, cmd: Cmd) {
        match cmd {
            Cmd::Enter { who, outbox } => {
                let list = LobbyOut::Seeks(SeeksOut {
                    seeks: self
                        .pool
                        .seeks()
                        .iter()
                        .map(|s| seek_out(s, &who))
                        .collect(),
                });
                let conn = who.conn;
                self.lobbies.insert(conn, Member { who, outbox });
                self.send(conn, &list);
            }
            Cmd::Seek { seeker, terms } => {
                let conn = seeker.who.conn;
                match self.pool.add(seeker, terms, coin()) {
                    Ok(effects) => self.apply(effects),
                    Err(e) => self.refuse(conn, e.into(), "seek"),
                }
            }
            Cmd::Accept { seeker, id } => match self.pool.accept(&seeker, &id, coin()) {
                Ok(effects) => self.apply(effects),
                Err(e) => self.refuse(seeker.who.conn, e.into(), "accept"),
            },
            Cmd::Cancel { who, id } => match self.pool.cancel(&who, &id) {
                Ok(effects) => self.apply(effects),
                Err(e) => self.refuse(who.conn, e.into(), "cancel"),
            },
            Cmd::Leave { conn } => self.leave(conn),
        }
    }

    fn leave(&mut self, conn: u64) {
        self.lobbies.remove(&conn);
        let effects = self.pool.disconnect(conn);
        self.apply(effects);
    }

    /// Sends `msg` to one connection; a connection too far behind to take it is
    /// dropped (its socket closes, the client reconnects and gets the list afresh).
    fn send(&mut self, conn: u64, msg: &LobbyOut) {
        let text: Utf8Bytes = msg.to_text(self.pool.version()).into();
        let full = match self.lobbies.get(&conn) {
            Some(m) => m.outbox.try_send(text).is_err(),
            None => false,
        };
        if full {
            self.leave(conn);
        }
    }

    fn refuse(&mut self, conn: u64, e: LobbyError, in_: &str) {
        self.send(conn, &e.to_out(Some(in_)));
    }

    /// Carries out the pool's effects in order.
    fn apply(&mut self, effects: Vec<Effect>) {
        for effect in effects {
            match effect {
                Effect::Added(seek) => {
                    // The same text for everyone but the owner's connections.
                    let v = self.pool.version();
                    let mut slow = Vec::new();
                    let mut texts: [Option<Utf8Bytes>; 2] = [None, None];
                    for (conn, m) in &self.lobbies {
                        let view = seek_out(&seek, &m.who);
                        let slot = &mut texts[usize::from(view.own)];
                        let text = slot
                            .get_or_insert_with(|| LobbyOut::SeekAdded(view).to_text(v).into())
                            .clone();
                        if m.outbox.try_send(text).is_err() {
                            slow.push(*conn);
                        }
                    }
                    for conn in slow {
                        self.leave(conn);
                    }
                }
                Effect::Removed(id) => {
                    let text: Utf8Bytes = LobbyOut::SeekRemoved(SeekRemovedOut { id })
                        .to_text(self.pool.version())
                        .into();
                    let slow: Vec<u64> = self
                        .lobbies
                        .iter()
                        .filter(|(_, m)| m.outbox.try_send(text.clone()).is_err())
                        .map(|(conn, _)| *conn)
                        .collect();
                    for conn in slow {
                        self.leave(conn);
                    }
                }
                Effect::Paired(p) => {
                    let outboxes = ByColor::new_with(|c| {
                        self.lobbies
                            .get(&p.players[c].conn)
                            .map(|m| m.outbox.clone())
                    });
                    tokio::spawn(create_game(Arc::clone(&self.shared), p, outboxes));
                }
            }
        }
    }
}

/// Creates the game of a pairing (an ordinary game between the two, with both seat
/// tokens handed out and both accounts bound to their seats) and sends each player
/// his seat link.
async fn create_game(shared: Arc<Shared>, p: Pairing, outboxes: ByColor<Option<Outbox>>) {
    let opts = GameOptions {
        rules: RuleSet::STANDARD,
        tc: Some(p.tc),
        engine: ByColor::default(),
        invite: None,
        listed: false,
        rematch_of: None,
        users: ByColor::new_with(|c| p.players[c].user.clone()),
        rated: p.rated,
    };
    let created = shared.create_game(opts).await;
    for c in Color::ALL {
        let Some(outbox) = &outboxes[c] else {
            continue;
        };
        let msg = match &created {
            Ok(g) => LobbyOut::Paired(PairedOut {
                seek: p.seek.clone(),
                game: g.id.clone(),
                color: c.name(),
                url: format!("/game/{}?seat={}", g.id, g.tokens[c]),
                rated: p.rated,
            }),
            Err(_) => LobbyError::new(
                LobbyErrorCode::Internal,
                "the paired game could not be created: seek again",
            )
            .to_out(None),
        };
        // A paired player's socket that cannot take this message within a few
        // seconds has closed or fallen behind; the game waits for him all the same.
        let _ = tokio::time::timeout(PAIRED_WAIT, outbox.send(msg.to_text(0).into())).await;
    }
    match created {
        Ok(g) => tracing::info!(game = %g.id, seek = %p.seek, rated = p.rated, "seek paired"),
        Err(e) => tracing::error!(seek = %p.seek, "creating a paired game: {e}"),
    }
}
