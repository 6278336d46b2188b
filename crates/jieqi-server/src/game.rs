//! The async shell around a [`Room`]: one task per game owns the room and the
//! connections' outboxes, feeds it commands in order and carries out its effects
//! (storage, sockets, the engine, game-end events). [`GameHandle`] is the typed stub
//! everyone else uses to talk to a game's task.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use jieqi_core::{Color, Outcome, Viewer};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, sleep_until};

use crate::Shared;
use crate::protocol::{ClientIn, ProtoError};
use crate::room::{ClaimRefused, ConnId, Effect, EngineAsk, Input, Now, Reply, Room};
use crate::tournament::GameFacts;

/// A connection's outgoing queue.
pub type Outbox = mpsc::Sender<Utf8Bytes>;

/// How long a finished game with nobody watching stays in memory.
const IDLE_FINISHED: Duration = Duration::from_secs(60);

/// Commands queued per game.
const QUEUE: usize = 256;

/// What a game's task is asked to do.
enum Cmd {
    /// An input without an answer.
    Input(Input),
    /// A connection joins; its messages go to `outbox`.
    Join {
        conn: ConnId,
        token: Option<String>,
        watch: bool,
        user: Option<String>,
        addr: Option<IpAddr>,
        outbox: Outbox,
        reply: oneshot::Sender<Result<Viewer, ProtoError>>,
    },
    /// HTTP `join`: the invite seat.
    ClaimInvite {
        invite: Option<String>,
        user: Option<String>,
        reply: oneshot::Sender<Result<(Color, String), ClaimRefused>>,
    },
    /// An organiser's result ends the game.
    Adjudicate {
        outcome: Outcome,
        reply: oneshot::Sender<Result<(), ProtoError>>,
    },
    /// This node lost the game's lease: stop serving it.
    Release,
}

/// The game's task has stopped (it went idle, or the server is stopping): look it up
/// again.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the game stopped")]
pub struct Gone;

/// A typed handle on a game's task.
#[derive(Clone)]
pub struct GameHandle {
    tx: mpsc::Sender<Cmd>,
}

impl GameHandle {
    /// Whether the task has stopped.
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    async fn ask<T>(&self, cmd: impl FnOnce(oneshot::Sender<T>) -> Cmd) -> Result<T, Gone> {
        let (reply, answer) = oneshot::channel();
        self.tx.send(cmd(reply)).await.map_err(|_| Gone)?;
        answer.await.map_err(|_| Gone)
    }

    /// Joins connection `conn` of account `user` (if logged in) from address `addr`
    /// with a seat token (or as a spectator), only watching with `watch`; its messages
    /// go to `outbox`. As whom it joined, or why not.
    pub async fn join(
        &self,
        conn: ConnId,
        token: Option<String>,
        watch: bool,
        user: Option<String>,
        addr: Option<IpAddr>,
        outbox: Outbox,
    ) -> Result<Result<Viewer, ProtoError>, Gone> {
        self.ask(|reply| Cmd::Join {
            conn,
            token,
            watch,
            user,
            addr,
            outbox,
            reply,
        })
        .await
    }

    /// Connection `conn` left.
    pub async fn leave(&self, conn: ConnId) {
        let _ = self.tx.send(Cmd::Input(Input::Leave { conn })).await;
    }

    /// A message from joined connection `conn` (answers go to its outbox).
    pub async fn client(&self, conn: ConnId, msg: ClientIn, v: Option<u64>) -> Result<(), Gone> {
        self.tx
            .send(Cmd::Input(Input::Client { conn, msg, v }))
            .await
            .map_err(|_| Gone)
    }

    /// The invite seat and its token, for HTTP `join` by `user` (`None`: a guest).
    pub async fn claim_invite(
        &self,
        invite: Option<String>,
        user: Option<String>,
    ) -> Result<Result<(Color, String), ClaimRefused>, Gone> {
        self.ask(|reply| Cmd::ClaimInvite {
            invite,
            user,
            reply,
        })
        .await
    }

    /// Stops the task at once (this node lost the game's lease): its connections close
    /// and reconnect through the node that serves the game now.
    pub async fn release(&self) {
        let _ = self.tx.send(Cmd::Release).await;
    }

    /// Ends the game with an organiser's result (nothing happens to a finished game);
    /// resolves once the end is stored and announced.
    pub async fn adjudicate(&self, outcome: Outcome) -> Result<Result<(), ProtoError>, Gone> {
        self.ask(|reply| Cmd::Adjudicate { outcome, reply }).await
    }
}

/// Where the answer to the command being handled goes.
enum ReplyTo {
    None,
    Joined(ConnId, oneshot::Sender<Result<Viewer, ProtoError>>),
    Claimed(oneshot::Sender<Result<(Color, String), ClaimRefused>>),
    Adjudicated(oneshot::Sender<Result<(), ProtoError>>),
}

/// A handle whose task is started later by [`spawn_on`] (so that it can be entered in
/// the registry first).
pub fn channel() -> (GameHandle, PendingTask) {
    let (tx, rx) = mpsc::channel(QUEUE);
    (GameHandle { tx: tx.clone() }, PendingTask { tx, rx })
}

/// The receiving end of [`channel`].
pub struct PendingTask {
    tx: mpsc::Sender<Cmd>,
    rx: mpsc::Receiver<Cmd>,
}

/// Starts `room`'s task on the channel of [`channel`].
pub fn spawn_on(shared: Arc<Shared>, room: Room, task: PendingTask) {
    let shell = Shell {
        shared,
        me: task.tx.downgrade(),
        room,
        outboxes: HashMap::new(),
        reply: ReplyTo::None,
        fenced: false,
        event_facts: GameFacts::default(),
    };
    tokio::spawn(shell.run(task.rx));
}

struct Shell {
    shared: Arc<Shared>,
    me: mpsc::WeakSender<Cmd>,
    room: Room,
    outboxes: HashMap<ConnId, Outbox>,
    reply: ReplyTo,
    /// Another node serves the game now (a write was refused, or the lease was lost):
    /// the task stops.
    fenced: bool,
    /// Whether the game is private and a tournament game, as of the last input.
    event_facts: GameFacts,
}

impl Shell {
    /// Runs the game until it is finished and nobody is watching.
    async fn run(mut self, mut rx: mpsc::Receiver<Cmd>) {
        let fx = self.room.start(Now::real());
        self.execute(fx).await;
        let mut idle_since = Instant::now();
        let mut stop = self.shared.stopped();
        // One timer, moved only when the next deadline changes (not made anew for every
        // command: a timer-wheel insertion and removal per message).
        let timer = sleep_until(Instant::now());
        tokio::pin!(timer);
        let mut armed: Option<Instant> = None;
        loop {
            if self.fenced {
                tracing::warn!(game = %self.room.id(), "served by another node now: stopped here");
                self.shared.registry.remove(self.room.id());
                break;
            }
            let deadline = self.room.deadline();
            let idle = (self.room.status() == crate::room::Status::Finished
                && self.room.connections() == 0)
                .then_some(idle_since + IDLE_FINISHED);
            let next = match (deadline, idle) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            if let Some(at) = next
                && armed != next
            {
                timer.as_mut().reset(at);
            }
            armed = next;
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(Cmd::Release) => self.fenced = true,
                    Some(cmd) => {
                        self.command(cmd).await;
                        if self.room.connections() > 0 {
                            idle_since = Instant::now();
                        }
                    }
                    None => break,
                },
                () = &mut timer, if armed.is_some() => {
                    // Fired: set again on the next turn, whatever is due then.
                    armed = None;
                    let now = Instant::now();
                    if deadline.is_some_and(|d| d <= now) {
                        self.input(Input::Tick).await;
                    } else if idle.is_some_and(|d| d <= now) {
                        self.shared.registry.remove(self.room.id());
                        if let Some(node) = &self.shared.node
                            && let Err(e) = node.store.release(self.room.id()).await
                        {
                            tracing::warn!(game = %self.room.id(), "giving the lease up: {e}");
                        }
                        break;
                    }
                }
                _ = &mut stop => break,
            }
        }
        // Commands that raced the removal: their senders see the channel close.
        rx.close();
    }

    async fn command(&mut self, cmd: Cmd) {
        let input = match cmd {
            Cmd::Input(i) => i,
            Cmd::Join {
                conn,
                token,
                watch,
                user,
                addr,
                outbox,
                reply,
            } => {
                self.outboxes.insert(conn, outbox);
                self.reply = ReplyTo::Joined(conn, reply);
                Input::Join {
                    conn,
                    token,
                    watch,
                    user,
                    addr,
                }
            }
            Cmd::ClaimInvite {
                invite,
                user,
                reply,
            } => {
                self.reply = ReplyTo::Claimed(reply);
                Input::ClaimInvite { invite, user }
            }
            Cmd::Adjudicate { outcome, reply } => {
                self.reply = ReplyTo::Adjudicated(reply);
                Input::Adjudicate { outcome }
            }
            Cmd::Release => {
                self.fenced = true;
                return;
            }
        };
        self.input(input).await;
        self.reply = ReplyTo::None;
    }

    async fn input(&mut self, input: Input) {
        let facts = &mut self.event_facts;
        self.shared.tournaments.refresh(self.room.id(), facts);
        self.room.set_private(facts.private);
        self.room.set_tournament(facts.tournament);
        let fx = self.room.handle(input, Now::real());
        self.execute(fx).await;
    }

    /// Carries out effects in order; what the room answers to a reported write, an
    /// engine request or a dropped connection is carried out next.
    async fn execute(&mut self, fx: Vec<Effect>) {
        let mut queue: VecDeque<Effect> = fx.into();
        while let Some(effect) = queue.pop_front() {
            let more = match effect {
                Effect::Persist(w) => match self.shared.store.write(w).await {
                    // Nothing more is done here: not even the refused change's
                    // answer, which the node that serves the game now gives.
                    Err(crate::store::StoreError::NotOwner(_)) => {
                        self.fenced = true;
                        return;
                    }
                    r => self
                        .room
                        .handle(Input::Persisted(r.map_err(|e| e.to_string())), Now::real()),
                },
                Effect::Send { conn, out } => {
                    let text: Utf8Bytes = out.to_text().into();
                    self.deliver([(conn, text)])
                }
                Effect::Broadcast(per) => {
                    let mut texts: [Option<Utf8Bytes>; 3] = [None, None, None];
                    let mut sends = Vec::with_capacity(self.outboxes.len());
                    for &conn in self.outboxes.keys() {
                        let Some(v) = self.room.viewer_of(conn) else {
                            continue;
                        };
                        let i = crate::knowledge::viewer_index(v);
                        let Some(out) = &per.0[i] else { continue };
                        let text = texts[i].get_or_insert_with(|| out.to_text().into());
                        sends.push((conn, text.clone()));
                    }
                    self.deliver(sends)
                }
                Effect::AskEngine(ask) => {
                    self.ask_engine(ask);
                    Vec::new()
                }
                Effect::CreateRematch(opts) => {
                    let r = self
                        .shared
                        .create_game(opts)
                        .await
                        .map_err(|e| e.to_string());
                    self.room.handle(Input::RematchCreated(r), Now::real())
                }
                Effect::Ended(outcome) => {
                    self.shared.game_ended(self.room.id(), outcome);
                    Vec::new()
                }
                Effect::Reply(r) => {
                    self.answer(r);
                    Vec::new()
                }
            };
            for e in more.into_iter().rev() {
                queue.push_front(e);
            }
        }
    }

    /// Queues texts on connections; a connection that cannot keep up is dropped (it
    /// will reconnect and resync), and the room hears that it left.
    fn deliver(&mut self, sends: impl IntoIterator<Item = (ConnId, Utf8Bytes)>) -> Vec<Effect> {
        let mut dead = Vec::new();
        for (conn, text) in sends {
            if let Some(o) = self.outboxes.get(&conn)
                && o.try_send(text).is_err()
            {
                dead.push(conn);
            }
        }
        let mut more = Vec::new();
        for conn in dead {
            self.outboxes.remove(&conn);
            more.extend(self.room.handle(Input::Leave { conn }, Now::real()));
        }
        more
    }

    fn answer(&mut self, r: Reply) {
        match (std::mem::replace(&mut self.reply, ReplyTo::None), r) {
            (ReplyTo::Joined(conn, tx), Reply::Joined(r)) => {
                if r.is_err() {
                    self.outboxes.remove(&conn);
                }
                let _ = tx.send(r);
            }
            (ReplyTo::Claimed(tx), Reply::Claimed(r)) => {
                let _ = tx.send(r);
            }
            (ReplyTo::Adjudicated(tx), Reply::Adjudicated(r)) => {
                let _ = tx.send(r);
            }
            (waiting, r) => {
                tracing::error!(game = %self.room.id(), "an answer nobody asked for: {r:?}");
                self.reply = waiting;
            }
        }
    }

    fn ask_engine(&self, ask: EngineAsk) {
        let Some(me) = self.me.upgrade() else { return };
        let engines = self.shared.engines.clone();
        let id = self.room.id().to_string();
        tokio::spawn(async move {
            let asked = Instant::now();
            let EngineAsk {
                level,
                pos,
                history,
                plies,
                budget,
            } = ask;
            let mv = engines.choose(pos, level, budget, history).await;
            tracing::debug!(
                game = %id,
                ply = plies + 1,
                mv = %mv.map_or_else(|| "none".to_string(), |m| m.to_string()),
                level,
                budget_ms = budget.as_millis() as u64,
                took_ms = asked.elapsed().as_millis() as u64,
                "engine move"
            );
            let _ = me.send(Cmd::Input(Input::EngineMove { plies, mv })).await;
        });
    }
}
