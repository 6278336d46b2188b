//! One task per game: it alone owns the game (the deal, the clocks, the connections)
//! and applies every command in order. Moves are stored durably before anybody hears
//! of them.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use jieqi_core::{ByColor, Color, Deal, Game, Move, Outcome, Reason, RuleSet, UciMove, Viewer};
use serde::Serialize;
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, sleep_until};

use crate::clock::{Clock, Flagged, TimeControl};
use crate::knowledge::{
    self, EndOut, LegalOut, PlyMeta, PlyOut, PoolsOut, SeatOut, VIEWERS, ViewerPositions,
    viewer_index,
};
use crate::protocol::{self, ClientIn, ProtoError};
use crate::store::{FinishRecord, MoveRecord, NewGame, StoreError, StoredGame, Write};
use crate::util::{now_ms, same_secret};
use crate::{GameOptions, Shared};

/// A connection's outgoing queue.
pub type Outbox = mpsc::Sender<Utf8Bytes>;

/// What a game's task is asked to do.
pub enum Cmd {
    /// A connection joins.
    Join {
        /// Connection id.
        conn: u64,
        /// Seat token, `None` for a spectator.
        token: Option<String>,
        /// Where its messages go.
        outbox: Outbox,
        /// As whom it joined, or why not.
        reply: oneshot::Sender<Result<Viewer, ProtoError>>,
    },
    /// A connection left.
    Leave {
        /// Connection id.
        conn: u64,
    },
    /// A message from a joined connection.
    Client {
        /// Connection id.
        conn: u64,
        /// The message.
        msg: ClientIn,
        /// Its `v`.
        v: Option<u64>,
    },
    /// The engine's answer for the position after `plies` plies.
    EngineMove {
        /// Plies when it was asked.
        plies: usize,
        /// Its move.
        mv: Option<Move>,
    },
    /// HTTP `join`: hand out the invite seat's token if still free (and, for an
    /// unlisted game, if `invite` is the invite link's secret).
    ClaimInvite {
        /// The invite token the claimant gave.
        invite: Option<String>,
        /// The seat and its token, or why not.
        reply: oneshot::Sender<Result<(Color, String), ClaimRefused>>,
    },
}

/// Why the invite seat was not handed out.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ClaimRefused {
    /// No free seat: joined already, claimed from the open games, the game has begun,
    /// or it has no invite seat at all.
    SeatTaken,
    /// An unlisted game, and the invite token is missing or wrong.
    BadInvite,
}

/// A seat.
#[derive(Clone, Debug)]
struct Seat {
    engine: Option<u8>,
    token: String,
    joined: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Status {
    Waiting,
    Live,
    Finished,
}

impl Status {
    fn name(self) -> &'static str {
        match self {
            Status::Waiting => "waiting",
            Status::Live => "live",
            Status::Finished => "finished",
        }
    }
}

struct Conn {
    viewer: Viewer,
    outbox: Outbox,
}

struct Rematch {
    id: String,
    /// The old seats' new tokens: `tokens[c]` is for the player who was `c` here.
    tokens: ByColor<String>,
}

/// A game's task state.
pub struct Actor {
    shared: Arc<Shared>,
    me: mpsc::WeakSender<Cmd>,
    id: String,
    salt: String,
    commitment: String,
    tc: Option<TimeControl>,
    seats: ByColor<Seat>,
    invite: Option<Color>,
    invite_token: Option<String>,
    listed: bool,
    invite_claimed: bool,
    game: Game,
    views: ViewerPositions,
    metas: Vec<PlyMeta>,
    clock: Option<Clock>,
    status: Status,
    version: u64,
    draw_offer: Option<Color>,
    rematch_offers: ByColor<bool>,
    rematch: Option<Rematch>,
    conns: HashMap<u64, Conn>,
    away_since: ByColor<Option<Instant>>,
    engine_thinking: bool,
}

/// How long a finished game with nobody watching stays in memory.
const IDLE_FINISHED: Duration = Duration::from_secs(60);

fn corrupt(id: &str, why: impl Into<String>) -> StoreError {
    StoreError::Corrupt {
        id: id.to_string(),
        why: why.into(),
    }
}

/// The referee's game of a stored game, with each ply's time and clock.
pub fn replay_stored(
    s: &StoredGame,
) -> Result<(Game, Vec<PlyMeta>, Option<TimeControl>), StoreError> {
    let id = &s.new.id;
    let deal = Deal::parse(&s.new.deal).map_err(|e| corrupt(id, e.to_string()))?;
    let rules = rules_of(&s.new.rules, &s.new.captured_identity)
        .ok_or_else(|| corrupt(id, "unknown rules"))?;
    let tc = TimeControl::parse(&s.new.time, s.new.move_time_s)
        .map_err(|e| corrupt(id, e.to_string()))?;
    let mut game = Game::new(deal, rules);
    let mut metas = Vec::with_capacity(s.moves.len());
    for m in &s.moves {
        let u = UciMove::parse(&m.uci).map_err(|e| corrupt(id, e.to_string()))?;
        let color = game.turn();
        game.play(u.to_plain())
            .map_err(|e| corrupt(id, format!("move {}: {e}", m.n)))?;
        metas.push(PlyMeta {
            at_ms: m.at_ms,
            clock_ms: tc.map(|_| match color {
                Color::Red => m.red_ms,
                Color::Black => m.black_ms,
            }),
        });
    }
    if game.outcome().is_none()
        && let Some(f) = &s.finish
    {
        let _ = game.finish(f.outcome);
    }
    Ok((game, metas, tc))
}

/// The game as it was before its last ply, replayed from the start. Used only when a
/// move could not be stored (rare), so that no copy of the game is made before every
/// move.
pub fn without_last_ply(game: &Game) -> Result<Game, jieqi_core::GameError> {
    let mut g = Game::from_position(game.start().clone(), *game.deal(), *game.rules())?;
    if let Some((_, earlier)) = game.plies().split_last() {
        for p in earlier {
            g.play(p.mv)?;
        }
    }
    Ok(g)
}

/// The rules of a stored game.
pub fn rules_of(name: &str, captured_identity: &str) -> Option<RuleSet> {
    let mut r = RuleSet::by_name(name)?;
    r.captured_identity = jieqi_core::CapturedIdentity::parse(captured_identity)?;
    Some(r)
}

impl Actor {
    /// Rebuilds a game's task state from storage (also used right after creation).
    pub fn from_stored(
        shared: Arc<Shared>,
        me: mpsc::WeakSender<Cmd>,
        s: StoredGame,
    ) -> Result<Actor, StoreError> {
        let id = s.new.id.clone();
        let (game, metas, tc) = replay_stored(&s)?;
        let now = Instant::now();
        let status = if game.outcome().is_some() {
            Status::Finished
        } else if s.started_ms.is_some() {
            Status::Live
        } else {
            Status::Waiting
        };
        // Clocks resume from the times stored with the last move; the downtime of a
        // restart is charged to nobody.
        let clock = tc.map(|tc| {
            let mut c = match s.moves.last() {
                Some(m) => Clock::restored(
                    tc,
                    ByColor {
                        red: m.red_ms,
                        black: m.black_ms,
                    },
                ),
                None => Clock::new(tc),
            };
            if status == Status::Live {
                c.start(game.turn(), now);
            }
            c
        });
        let seat = |r: &crate::store::SeatRecord| Seat {
            engine: r.engine_level,
            token: r.token.clone(),
            joined: r.joined || r.engine_level.is_some(),
        };
        let seats = ByColor {
            red: seat(&s.new.seats.red),
            black: seat(&s.new.seats.black),
        };
        let away_since =
            ByColor::new_with(|c| (seats[c].engine.is_none() && seats[c].joined).then_some(now));
        let version = 1 + game.plies().len() as u64 + u64::from(game.outcome().is_some());
        Ok(Actor {
            shared,
            me,
            salt: s.new.salt,
            commitment: s.new.commitment,
            tc,
            seats,
            invite: s.new.invite,
            invite_token: s.new.invite_token,
            listed: s.new.listed,
            invite_claimed: s.invite_claimed,
            views: ViewerPositions::of(&game),
            game,
            metas,
            clock,
            status,
            version,
            draw_offer: None,
            rematch_offers: ByColor::default(),
            rematch: s.rematch.map(|id| Rematch {
                id,
                tokens: ByColor::default(),
            }),
            conns: HashMap::new(),
            away_since,
            engine_thinking: false,
            id,
        })
    }

    /// Runs the game until it is finished and nobody is watching.
    pub async fn run(mut self, mut rx: mpsc::Receiver<Cmd>) {
        self.maybe_engine();
        let mut idle_since = Instant::now();
        let stop = Shared::stopped(self.shared.stop_signal());
        tokio::pin!(stop);
        loop {
            let deadline = match (self.status, &self.clock) {
                (Status::Live, Some(c)) => c.deadline().map(|(_, at)| at),
                _ => None,
            };
            let idle = (self.status == Status::Finished && self.conns.is_empty())
                .then_some(idle_since + IDLE_FINISHED);
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(cmd) => {
                        self.handle(cmd).await;
                        if !self.conns.is_empty() {
                            idle_since = Instant::now();
                        }
                    }
                    None => break,
                },
                _ = sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                    self.on_deadline().await;
                }
                _ = sleep_until(idle.unwrap_or_else(Instant::now)), if idle.is_some() => {
                    self.shared.registry.remove(&self.id);
                    break;
                }
                _ = &mut stop => break,
            }
        }
        // Commands that raced the removal: their senders see the channel close.
        rx.close();
    }

    async fn handle(&mut self, cmd: Cmd) {
        match cmd {
            Cmd::Join {
                conn,
                token,
                outbox,
                reply,
            } => {
                let r = self.join(conn, token, outbox).await;
                let _ = reply.send(r);
            }
            Cmd::Leave { conn } => {
                if let Some(c) = self.conns.remove(&conn) {
                    self.after_leave(c.viewer);
                }
            }
            Cmd::Client { conn, msg, v } => {
                let Some(viewer) = self.conns.get(&conn).map(|c| c.viewer) else {
                    return;
                };
                let in_ = protocol::type_name(&msg);
                if let Err(e) = self.client(conn, viewer, msg, v).await {
                    let text = protocol::error_message(self.version, &e, Some(in_));
                    self.send(conn, text.into());
                }
            }
            Cmd::EngineMove { plies, mv } => {
                self.engine_thinking = false;
                if self.status != Status::Live || plies != self.game.plies().len() {
                    self.maybe_engine();
                    return;
                }
                let color = self.game.turn();
                match mv {
                    Some(m) if self.views.get(Viewer::Player(color)).is_legal(m) => {
                        if let Err(e) = self.play(color, m).await {
                            tracing::warn!(game = %self.id, "engine move failed: {}", e.message);
                        }
                    }
                    _ => {
                        tracing::warn!(game = %self.id, "the engine gave no legal move");
                        let _ = self
                            .finish(Outcome::Win {
                                winner: !color,
                                reason: Reason::Forfeit,
                            })
                            .await;
                    }
                }
            }
            Cmd::ClaimInvite { invite, reply } => {
                let r = self.claim_invite(invite.as_deref()).await;
                let _ = reply.send(r);
            }
        }
    }

    async fn join(
        &mut self,
        conn: u64,
        token: Option<String>,
        outbox: Outbox,
    ) -> Result<Viewer, ProtoError> {
        let viewer = match token.as_deref() {
            None | Some("") if self.shared.tournaments.is_private(&self.id) => {
                return Err(ProtoError::new(
                    "private",
                    "this tournament game shares its deal with a game still in play: it can be watched once the round's deal is published",
                ));
            }
            None | Some("") => Viewer::Spectator,
            Some(t) => Color::ALL
                .into_iter()
                .find(|&c| self.seats[c].engine.is_none() && same_secret(&self.seats[c].token, t))
                .map(Viewer::Player)
                .ok_or_else(|| {
                    ProtoError::new("bad_token", "this token holds no seat in this game")
                })?,
        };
        self.conns.insert(conn, Conn { viewer, outbox });
        let mut started = false;
        if let Viewer::Player(c) = viewer {
            self.away_since[c] = None;
            if !self.seats[c].joined {
                self.seats[c].joined = true;
                if self.status == Status::Waiting
                    && Color::ALL.iter().all(|&c| self.seats[c].joined)
                {
                    self.status = Status::Live;
                    if let Some(clock) = &mut self.clock {
                        clock.start(self.game.turn(), Instant::now());
                    }
                    started = true;
                    tracing::info!(game = %self.id, "game started");
                }
                self.persist_seats().await;
            }
        }
        if started {
            self.version += 1;
            self.broadcast_state();
            self.maybe_engine();
        } else {
            let text = self.state_message(viewer);
            self.send(conn, text.into());
        }
        self.broadcast_presence();
        Ok(viewer)
    }

    /// The invite seat for HTTP `join`. A listed game's seat goes to the first who
    /// asks. An unlisted game's only to the holder of the invite token, and again to
    /// him until the seat is joined (a reload, a second device), never after: the
    /// invite link cannot take over a seat in use.
    async fn claim_invite(
        &mut self,
        invite: Option<&str>,
    ) -> Result<(Color, String), ClaimRefused> {
        let c = self.invite.ok_or(ClaimRefused::SeatTaken)?;
        if !self.listed {
            let known = match (self.invite_token.as_deref(), invite) {
                (Some(want), Some(given)) => same_secret(want, given),
                _ => false,
            };
            if !known {
                tracing::info!(game = %self.id, "invite claim refused: bad invite token");
                return Err(ClaimRefused::BadInvite);
            }
        }
        let free = self.status == Status::Waiting
            && !self.seats[c].joined
            && !(self.listed && self.invite_claimed);
        if !free {
            return Err(ClaimRefused::SeatTaken);
        }
        if !self.invite_claimed {
            self.invite_claimed = true;
            self.persist_seats().await;
        }
        tracing::info!(game = %self.id, seat = c.name(), listed = self.listed, "invite seat claimed");
        Ok((c, self.seats[c].token.clone()))
    }

    fn after_leave(&mut self, viewer: Viewer) {
        if let Viewer::Player(c) = viewer
            && !self.conns.values().any(|x| x.viewer == viewer)
        {
            self.away_since[c] = Some(Instant::now());
        }
        self.broadcast_presence();
    }

    async fn persist_seats(&mut self) {
        let w = Write::Seats {
            id: self.id.clone(),
            joined: ByColor::new_with(|c| self.seats[c].joined),
            invite_claimed: self.invite_claimed,
            started_ms: (self.status != Status::Waiting).then(now_ms),
        };
        if let Err(e) = self.shared.store.write(w).await {
            tracing::error!(game = %self.id, "cannot store seats: {e}");
        }
    }

    async fn client(
        &mut self,
        conn: u64,
        viewer: Viewer,
        msg: ClientIn,
        v: Option<u64>,
    ) -> Result<(), ProtoError> {
        if let ClientIn::Sync = msg {
            let text = self.state_message(viewer);
            self.send(conn, text.into());
            return Ok(());
        }
        let Viewer::Player(me) = viewer else {
            return Err(ProtoError::new("not_a_player", "spectators cannot do that"));
        };
        match msg {
            ClientIn::Move { uci } => {
                self.require_live()?;
                if self.game.turn() != me {
                    return Err(ProtoError::new("not_your_turn", "it is not your turn"));
                }
                if let Some(v) = v
                    && v != self.version
                {
                    return Err(ProtoError::new(
                        "stale_version",
                        format!(
                            "your board is version {v}, the game is at {}: sync first",
                            self.version
                        ),
                    ));
                }
                let u =
                    UciMove::parse(&uci).map_err(|e| ProtoError::new("bad_move", e.to_string()))?;
                // Suffix letters are ignored: checking them against the deal would
                // tell the sender whether a guessed identity is right.
                let m = u.to_plain();
                if !self.views.get(viewer).is_legal(m) {
                    return Err(ProtoError::new(
                        "illegal_move",
                        format!("{m} is not a legal move here"),
                    ));
                }
                self.play(me, m).await
            }
            ClientIn::Resign => {
                self.require_live()?;
                self.finish(Outcome::Win {
                    winner: !me,
                    reason: Reason::Resignation,
                })
                .await
            }
            ClientIn::OfferDraw => {
                self.require_live()?;
                match self.draw_offer {
                    Some(c) if c == !me => {
                        return self
                            .finish(Outcome::Draw {
                                reason: Reason::Agreement,
                            })
                            .await;
                    }
                    Some(_) => return Ok(()),
                    None => {}
                }
                if self.seats[!me].engine.is_some() {
                    // The engine declines every offer.
                    self.draw_event(None, Some(!me));
                } else {
                    self.draw_offer = Some(me);
                    self.draw_event(Some(me), None);
                }
                Ok(())
            }
            ClientIn::AcceptDraw => {
                self.require_live()?;
                if self.draw_offer != Some(!me) {
                    return Err(ProtoError::new(
                        "no_draw_offer",
                        "your opponent has not offered a draw",
                    ));
                }
                self.finish(Outcome::Draw {
                    reason: Reason::Agreement,
                })
                .await
            }
            ClientIn::DeclineDraw => {
                if self.draw_offer != Some(!me) || self.status != Status::Live {
                    return Err(ProtoError::new(
                        "no_draw_offer",
                        "your opponent has not offered a draw",
                    ));
                }
                self.draw_offer = None;
                self.draw_event(None, Some(me));
                Ok(())
            }
            ClientIn::Rematch => self.rematch(conn, me).await,
            ClientIn::ClaimAbandonment => {
                self.require_live()?;
                let them = !me;
                let gone = self.seats[them].engine.is_none()
                    && !self
                        .conns
                        .values()
                        .any(|c| c.viewer == Viewer::Player(them))
                    && self.away_since[them].is_some_and(|t| {
                        t.elapsed() >= Duration::from_millis(self.shared.config.abandon_ms)
                    });
                if !gone {
                    return Err(ProtoError::new(
                        "not_abandoned",
                        format!(
                            "your opponent has not been away for {} s",
                            self.shared.config.abandon_ms / 1000
                        ),
                    ));
                }
                self.finish(Outcome::Win {
                    winner: me,
                    reason: Reason::Abandonment,
                })
                .await
            }
            ClientIn::Join { .. } => Err(ProtoError::new(
                "already_joined",
                "this connection has joined a game",
            )),
            ClientIn::Ping { .. } | ClientIn::Sync => Ok(()),
        }
    }

    fn require_live(&self) -> Result<(), ProtoError> {
        match self.status {
            Status::Live => Ok(()),
            Status::Waiting => Err(ProtoError::new(
                "not_started",
                "the game has not started: a seat is still free",
            )),
            Status::Finished => Err(ProtoError::new("game_over", "the game is over")),
        }
    }

    /// Plays a legal move of `color`: clock, referee, storage, then everyone hears.
    async fn play(&mut self, color: Color, m: Move) -> Result<(), ProtoError> {
        let now = Instant::now();
        let mut clock = self.clock.clone();
        let mover_left = match clock.as_mut().map(|c| c.moved(now)) {
            None => None,
            Some(Ok(left)) => Some(left),
            Some(Err(Flagged(c))) => {
                self.flag(c).await;
                return Err(ProtoError::new("game_over", "time ran out before the move"));
            }
        };
        // `Game::play` leaves the game untouched when it refuses a move.
        if let Err(e) = self.game.play(m) {
            return Err(ProtoError::new("illegal_move", e.to_string()));
        }
        let at_ms = now_ms();
        let n = self.game.plies().len();
        let stored = clock.as_ref().map_or(ByColor::default(), Clock::stored);
        let outcome = self.game.outcome();
        let write = Write::Move {
            id: self.id.clone(),
            mv: MoveRecord {
                n: n as u32,
                uci: m.to_string(),
                red_ms: stored.red,
                black_ms: stored.black,
                at_ms,
            },
            finish: outcome.map(|outcome| FinishRecord { outcome, at_ms }),
        };
        if let Err(e) = self.shared.store.write(write).await {
            tracing::error!(game = %self.id, "cannot store move {m}: {e}");
            self.take_back_last();
            return Err(ProtoError::new(
                "internal",
                "the move could not be stored; it was not played",
            ));
        }
        if let (Some(c), Some(_)) = (clock.as_mut(), outcome) {
            c.stop(now);
        }
        self.clock = clock;
        let meta = PlyMeta {
            at_ms,
            clock_ms: mover_left,
        };
        self.metas.push(meta);
        let outs = self.views.advance(&self.game, meta);
        if self.draw_offer == Some(!color) {
            self.draw_offer = None;
        }
        if outcome.is_some() {
            self.status = Status::Finished;
        }
        self.version += 1;
        self.broadcast_move(outs);
        if outcome.is_some() {
            self.version += 1;
            self.broadcast_end();
        } else {
            self.maybe_engine();
        }
        Ok(())
    }

    /// Takes back the last ply (its write failed).
    fn take_back_last(&mut self) {
        match without_last_ply(&self.game) {
            Ok(g) => self.game = g,
            Err(e) => tracing::error!(game = %self.id, "cannot take back a move: {e}"),
        }
    }

    async fn flag(&mut self, c: Color) {
        let _ = self
            .finish(Outcome::Win {
                winner: !c,
                reason: Reason::Time,
            })
            .await;
    }

    async fn on_deadline(&mut self) {
        let now = Instant::now();
        if let Some(Flagged(c)) = self.clock.as_ref().and_then(|k| k.flagged(now)) {
            self.flag(c).await;
        }
    }

    /// Ends the game without a move (resignation, time, agreement, abandonment).
    async fn finish(&mut self, o: Outcome) -> Result<(), ProtoError> {
        if self.status == Status::Finished {
            return Err(ProtoError::new("game_over", "the game is over"));
        }
        let at_ms = now_ms();
        let w = Write::Finish {
            id: self.id.clone(),
            finish: FinishRecord { outcome: o, at_ms },
        };
        if let Err(e) = self.shared.store.write(w).await {
            tracing::error!(game = %self.id, "cannot store the end: {e}");
            return Err(ProtoError::new(
                "internal",
                "the result could not be stored",
            ));
        }
        let _ = self.game.finish(o);
        if let Some(c) = &mut self.clock {
            c.stop(Instant::now());
        }
        self.status = Status::Finished;
        self.draw_offer = None;
        self.version += 1;
        self.broadcast_end();
        Ok(())
    }

    async fn rematch(&mut self, conn: u64, me: Color) -> Result<(), ProtoError> {
        if self.status != Status::Finished {
            return Err(ProtoError::new(
                "not_over",
                "a rematch is possible after the end",
            ));
        }
        if self.rematch.is_some() {
            let text = protocol::envelope(
                "rematch",
                self.version,
                self.rematch_out(Viewer::Player(me)),
            );
            self.send(conn, text.into());
            return Ok(());
        }
        self.rematch_offers[me] = true;
        let ready = Color::ALL
            .iter()
            .all(|&c| self.rematch_offers[c] || self.seats[c].engine.is_some());
        if ready {
            // Colours swap: the new Red is the old Black.
            let opts = GameOptions {
                rules: *self.game.rules(),
                tc: self.tc,
                engine: ByColor {
                    red: self.seats.black.engine,
                    black: self.seats.red.engine,
                },
                invite: None,
                listed: false,
                rematch_of: Some(self.id.clone()),
            };
            let created = self.shared.create_game(opts).await.map_err(|e| {
                ProtoError::new("internal", format!("cannot create the rematch: {e}"))
            })?;
            if let Err(e) = self
                .shared
                .store
                .write(Write::Rematch {
                    id: self.id.clone(),
                    rematch: created.id.clone(),
                })
                .await
            {
                tracing::error!(game = %self.id, "cannot store the rematch link: {e}");
            }
            self.rematch = Some(Rematch {
                id: created.id,
                tokens: ByColor {
                    red: created.tokens.black,
                    black: created.tokens.red,
                },
            });
        }
        self.version += 1;
        self.broadcast_with(|a, v| protocol::envelope("rematch", a.version, a.rematch_out(v)));
        Ok(())
    }

    fn rematch_out(&self, v: Viewer) -> RematchOut {
        let offered_by = Color::ALL
            .into_iter()
            .filter(|&c| self.rematch_offers[c])
            .map(Color::name)
            .collect();
        match &self.rematch {
            None => RematchOut {
                offered_by,
                game: None,
                url: None,
            },
            Some(r) => {
                let url = match v {
                    Viewer::Player(c) if !r.tokens[c].is_empty() => {
                        format!("/game/{}?seat={}", r.id, r.tokens[c])
                    }
                    _ => format!("/game/{}", r.id),
                };
                RematchOut {
                    offered_by,
                    game: Some(r.id.clone()),
                    url: Some(url),
                }
            }
        }
    }

    fn maybe_engine(&mut self) {
        if self.status != Status::Live || self.engine_thinking {
            return;
        }
        let color = self.game.turn();
        let Some(level) = self.seats[color].engine else {
            return;
        };
        let Some(me) = self.me.upgrade() else { return };
        self.engine_thinking = true;
        // The engine sees only its own side's view.
        let pos = self.views.get(Viewer::Player(color)).clone();
        let history = self.views.history(Viewer::Player(color)).clone();
        let plies = self.game.plies().len();
        let mut budget = Duration::from_millis(150 * u64::from(level));
        if let Some(c) = &self.clock {
            let now = Instant::now();
            let mut left = c.left(color, now) / 20;
            if let Some(ml) = c.move_left(now) {
                left = left.min(ml / 3);
            }
            budget = budget.min(Duration::from_millis(left));
        }
        let engines = self.shared.engines.clone();
        let id = self.id.clone();
        tokio::spawn(async move {
            let asked = Instant::now();
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
            let _ = me.send(Cmd::EngineMove { plies, mv }).await;
        });
    }

    // ---- messages ----

    fn clock_out(&self) -> Option<ClockOut> {
        let c = self.clock.as_ref()?;
        let now = Instant::now();
        Some(ClockOut {
            red_ms: c.left(Color::Red, now),
            black_ms: c.left(Color::Black, now),
            running: c.running().map(Color::name),
            move_left_ms: c.move_left(now),
        })
    }

    fn players_out(&self) -> knowledge::ByColorOut<SeatOut> {
        let now = Instant::now();
        let seat = |c: Color| {
            let s = &self.seats[c];
            let connected =
                s.engine.is_some() || self.conns.values().any(|x| x.viewer == Viewer::Player(c));
            SeatOut {
                kind: if s.engine.is_some() {
                    "engine"
                } else {
                    "human"
                },
                level: s.engine,
                joined: s.joined,
                connected,
                away_ms: if connected {
                    None
                } else {
                    self.away_since[c].map(|t| now.saturating_duration_since(t).as_millis() as u64)
                },
            }
        };
        knowledge::ByColorOut {
            red: seat(Color::Red),
            black: seat(Color::Black),
        }
    }

    fn spectators(&self) -> usize {
        self.conns
            .values()
            .filter(|c| c.viewer == Viewer::Spectator)
            .count()
    }

    fn legal_for(&self, v: Viewer) -> LegalOut {
        match v {
            Viewer::Player(c) if self.status == Status::Live && self.game.turn() == c => {
                LegalOut::of(self.views.get(v))
            }
            _ => LegalOut::none(),
        }
    }

    /// The invite link, for the creating seat of a friend game while it waits for the
    /// friend (nobody else ever gets it: it claims the other seat).
    fn invite_url_for(&self, v: Viewer) -> Option<String> {
        let invite = self.invite?;
        let token = self.invite_token.as_deref()?;
        (self.status == Status::Waiting
            && v == Viewer::Player(!invite)
            && !self.seats[invite].joined)
            .then(|| invite_url(&self.id, token))
    }

    fn state_message(&self, v: Viewer) -> String {
        let pos = self.views.get(v);
        let rules = self.game.rules();
        let d = StateOut {
            game: &self.id,
            you: knowledge::viewer_name(v),
            status: self.status.name(),
            rules: RulesOut {
                name: rules.name,
                chase_rule: rules.chase_rule,
                captured_identity: rules.captured_identity.name(),
            },
            time: self.tc.map(|t| TimeOut {
                base_ms: t.base_ms,
                increment_ms: t.increment_ms,
                move_ms: t.move_ms,
            }),
            players: self.players_out(),
            abandon_ms: self.shared.config.abandon_ms,
            spectators: self.spectators(),
            commitment: &self.commitment,
            invite_url: self.invite_url_for(v),
            start_fen: self.game.start().fen(),
            moves: knowledge::plies_for(&self.game, v, &self.metas),
            fen: pos.fen(),
            turn: pos.turn().name(),
            check: pos.is_check(),
            pools: knowledge::pools_out(pos),
            legal: self.legal_for(v),
            clock: self.clock_out(),
            draw_offer: self.draw_offer.map(Color::name),
            rematch: (self.status == Status::Finished
                && (self.rematch.is_some()
                    || self.rematch_offers.red
                    || self.rematch_offers.black))
                .then(|| self.rematch_out(v)),
            end: self.end_out(),
        };
        protocol::envelope("state", self.version, d)
    }

    fn move_message(&self, v: Viewer, ply: &PlyOut) -> String {
        let pos = self.views.get(v);
        let d = MoveOut {
            ply,
            fen: pos.fen(),
            turn: pos.turn().name(),
            check: pos.is_check(),
            pools: knowledge::pools_out(pos),
            legal: self.legal_for(v),
            clock: self.clock_out(),
            status: self.status.name(),
            draw_offer: self.draw_offer.map(Color::name),
        };
        protocol::envelope("move", self.version, d)
    }

    /// Sends to one connection; a connection that cannot keep up is dropped (it will
    /// reconnect and resync).
    fn send(&mut self, conn: u64, text: Utf8Bytes) {
        let dead = match self.conns.get(&conn) {
            Some(c) => c.outbox.try_send(text).is_err(),
            None => false,
        };
        if dead && let Some(c) = self.conns.remove(&conn) {
            self.after_leave(c.viewer);
        }
    }

    /// Sends each connection the message built for its viewer (built once per viewer).
    fn broadcast_with(&mut self, build: impl Fn(&Actor, Viewer) -> String) {
        let mut cache: [Option<Utf8Bytes>; 3] = [None, None, None];
        let mut dead = Vec::new();
        for (id, c) in &self.conns {
            let i = viewer_index(c.viewer);
            let text = cache[i]
                .get_or_insert_with(|| build(self, VIEWERS[i]).into())
                .clone();
            if c.outbox.try_send(text).is_err() {
                dead.push(*id);
            }
        }
        for id in dead {
            if let Some(c) = self.conns.remove(&id) {
                self.after_leave(c.viewer);
            }
        }
    }

    fn broadcast_state(&mut self) {
        self.broadcast_with(|a, v| a.state_message(v));
    }

    fn broadcast_move(&mut self, outs: [PlyOut; 3]) {
        self.broadcast_with(|a, v| a.move_message(v, &outs[viewer_index(v)]));
    }

    /// The end of the game as the players may see it now: a tournament game whose deal
    /// is still in play elsewhere holds the deal back until the event publishes it.
    fn end_out(&self) -> Option<EndOut> {
        let end = knowledge::end_out(&self.game, &self.salt, &self.commitment)?;
        Some(if self.shared.tournaments.is_private(&self.id) {
            end.withhold()
        } else {
            end
        })
    }

    fn broadcast_end(&mut self) {
        let Some(end) = self.end_out() else {
            return;
        };
        if let Some(o) = self.game.outcome() {
            tracing::info!(
                game = %self.id,
                result = o.result_str(),
                reason = o.reason().name(),
                plies = self.game.plies().len(),
                "game finished"
            );
        }
        let text = protocol::envelope::<&EndOut>("end", self.version, &end);
        self.broadcast_with(|_, _| text.clone());
        crate::tournament::game_ended(&self.shared, &self.id, self.game.outcome());
    }

    fn draw_event(&mut self, offer: Option<Color>, declined_by: Option<Color>) {
        self.version += 1;
        let text = protocol::envelope(
            "draw",
            self.version,
            DrawOut {
                offer: offer.map(Color::name),
                declined_by: declined_by.map(Color::name),
            },
        );
        self.broadcast_with(|_, _| text.clone());
    }

    fn broadcast_presence(&mut self) {
        let text = protocol::envelope(
            "presence",
            self.version,
            PresenceOut {
                players: self.players_out(),
                spectators: self.spectators(),
            },
        );
        self.broadcast_with(|_, _| text.clone());
    }
}

/// The invite link of game `id`: the page claims the invite seat with `invite_token`
/// (docs/protocol.md §2.2) and continues on the seat's own link.
pub fn invite_url(id: &str, invite_token: &str) -> String {
    format!("/game/{id}?invite={invite_token}")
}

/// A new game's seats and tokens, for [`Shared::create_game`].
pub fn new_game_record(
    id: &str,
    opts: &GameOptions,
    tokens: &ByColor<String>,
    invite_token: Option<String>,
    deal: &Deal,
    salt: &str,
) -> NewGame {
    NewGame {
        id: id.to_string(),
        created_ms: now_ms(),
        deal: deal.to_string(),
        salt: salt.to_string(),
        commitment: deal.commitment(salt),
        rules: opts.rules.name.to_string(),
        captured_identity: opts.rules.captured_identity.name().to_string(),
        time: crate::clock::time_text(opts.tc.as_ref()),
        move_time_s: opts.tc.and_then(|t| t.move_ms).map(|m| m / 1000),
        seats: ByColor::new_with(|c| crate::store::SeatRecord {
            engine_level: opts.engine[c],
            token: tokens[c].clone(),
            joined: opts.engine[c].is_some(),
        }),
        invite: opts.invite,
        invite_token,
        listed: opts.listed,
        rematch_of: opts.rematch_of.clone(),
    }
}

#[derive(Serialize)]
struct RulesOut {
    name: &'static str,
    chase_rule: bool,
    captured_identity: &'static str,
}

#[derive(Serialize)]
struct TimeOut {
    base_ms: u64,
    increment_ms: u64,
    move_ms: Option<u64>,
}

#[derive(Serialize)]
struct ClockOut {
    red_ms: u64,
    black_ms: u64,
    running: Option<&'static str>,
    move_left_ms: Option<u64>,
}

#[derive(Serialize)]
struct RematchOut {
    offered_by: Vec<&'static str>,
    game: Option<String>,
    url: Option<String>,
}

#[derive(Serialize)]
struct DrawOut {
    offer: Option<&'static str>,
    declined_by: Option<&'static str>,
}

#[derive(Serialize)]
struct PresenceOut {
    players: knowledge::ByColorOut<SeatOut>,
    spectators: usize,
}

#[derive(Serialize)]
struct StateOut<'a> {
    game: &'a str,
    you: &'static str,
    status: &'static str,
    rules: RulesOut,
    time: Option<TimeOut>,
    players: knowledge::ByColorOut<SeatOut>,
    abandon_ms: u64,
    spectators: usize,
    commitment: &'a str,
    invite_url: Option<String>,
    start_fen: String,
    moves: Vec<PlyOut>,
    fen: String,
    turn: &'static str,
    check: bool,
    pools: PoolsOut,
    legal: LegalOut,
    clock: Option<ClockOut>,
    draw_offer: Option<&'static str>,
    rematch: Option<RematchOut>,
    end: Option<EndOut>,
}

#[derive(Serialize)]
struct MoveOut<'a> {
    ply: &'a PlyOut,
    fen: String,
    turn: &'static str,
    check: bool,
    pools: PoolsOut,
    legal: LegalOut,
    clock: Option<ClockOut>,
    status: &'static str,
    draw_offer: Option<&'static str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_is_taken_back_by_replaying_the_others() {
        let mut g = Game::new(Deal::from_seed(b"take back"), RuleSet::STANDARD);
        let mut before = None;
        for i in 0..12 {
            if i == 11 {
                before = Some(g.clone());
            }
            let m = g.position().legal_moves().as_slice()[i % 3];
            g.play(m).unwrap();
        }
        let before = before.unwrap();
        let back = without_last_ply(&g).unwrap();
        assert_eq!(back.plies(), before.plies());
        assert_eq!(back.position().fen(), before.position().fen());
        assert_eq!(back.turn(), before.turn());
        // Back again to the start, and nothing to take back there.
        let start = Game::new(Deal::from_seed(b"take back"), RuleSet::STANDARD);
        assert!(without_last_ply(&start).unwrap().plies().is_empty());
    }
}
