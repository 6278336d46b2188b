//! A game room as a pure state machine: an [`Input`] and the time go in, a list of
//! [`Effect`]s comes out (store this, send that to a connection, send each viewer its
//! message, ask the engine, the game ended). Nothing here awaits, locks or touches a
//! socket: the async shell ([`crate::game`]) executes the effects, so unit tests drive
//! a room without tokio.
//!
//! A move or an end is durable before anybody hears of it: the room asks for the write
//! ([`Effect::Persist`]) and only when the shell reports it done
//! ([`Input::Persisted`]) does it tell the players. The shell feeds no other input to
//! the room in between.

mod chat;
mod render;
pub mod stored;
#[cfg(test)]
mod tests;

pub use stored::{invite_url, new_game_record, replay_stored, rules_of};

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::time::Duration;

use jieqi_core::game::Judge;
use jieqi_core::{ByColor, Color, Game, Move, Outcome, Position, Reason, UciMove, Viewer};
use tokio::time::Instant;

use crate::chat::{ChatLimits, ChatLine, Recent};
use crate::clock::{Clock, Flagged, TimeControl};
use crate::knowledge::{PlyMeta, ViewerPositions, viewer_index};
use crate::protocol::{ClientIn, ClientOut, ErrorCode, Outgoing, ProtoError};
use crate::store::{FinishRecord, GameEnd, MoveRecord, StoreError, StoredGame, Write};
use crate::util::same_secret;
use crate::{Created, GameOptions};

/// A connection's id (unique in the server).
pub type ConnId = u64;

/// The moment an input is handled: the monotonic instant (clocks) and the wall clock
/// in Unix ms (what is stored and shown).
#[derive(Copy, Clone, Debug)]
pub struct Now {
    /// Monotonic.
    pub at: Instant,
    /// Unix milliseconds.
    pub ms: u64,
}

impl Now {
    /// The real present.
    pub fn real() -> Now {
        Now {
            at: Instant::now(),
            ms: crate::util::now_ms(),
        }
    }

    /// `d` later.
    pub fn after(self, d: Duration) -> Now {
        Now {
            at: self.at + d,
            ms: self.ms + d.as_millis() as u64,
        }
    }
}

/// A room's settings (docs/server.md, "Game start", "Chat").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoomLimits {
    /// Absence after which the opponent may claim the game (ms).
    pub abandon_ms: u64,
    /// Time a player has for his first move (Red from the start, Black from Red's
    /// first move); past it the game is aborted (a tournament game: lost).
    pub first_move: Duration,
    /// Chat limits.
    pub chat: ChatLimits,
}

impl Default for RoomLimits {
    fn default() -> RoomLimits {
        RoomLimits {
            abandon_ms: 60_000,
            first_move: Duration::from_secs(30),
            chat: ChatLimits::default(),
        }
    }
}

/// What happens to a room.
#[derive(Debug)]
pub enum Input {
    /// A connection joins, with a seat token or as a spectator.
    Join {
        /// Connection.
        conn: ConnId,
        /// Seat token.
        token: Option<String>,
        /// Only follows the game with the token's view (ClientIn::Join's `watch`).
        watch: bool,
        /// The connection's account (a logged-in spectator's name in the chat).
        user: Option<String>,
        /// The connection's address: a guest spectator's chat limit holds per address,
        /// so reconnecting does not reset it.
        addr: Option<IpAddr>,
    },
    /// A connection left.
    Leave {
        /// Connection.
        conn: ConnId,
    },
    /// A message from a joined connection.
    Client {
        /// Connection.
        conn: ConnId,
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
    /// HTTP `join`: the invite seat's token, if free.
    ClaimInvite {
        /// The invite token the claimant gave.
        invite: Option<String>,
        /// The claimant's account, if logged in.
        user: Option<String>,
    },
    /// A tournament organiser entered a result: the game ends with it now.
    Adjudicate {
        /// The result as an outcome.
        outcome: Outcome,
    },
    /// A clock deadline passed (see [`Room::deadline`]).
    Tick,
    /// The last [`Effect::Persist`] was written (or not).
    Persisted(Result<(), String>),
    /// The game asked for by [`Effect::CreateRematch`] was created (or not).
    RematchCreated(Result<Created, String>),
}

/// What the shell must do, in order.
#[derive(Debug)]
pub enum Effect {
    /// Store durably, then report with [`Input::Persisted`] before any other input.
    Persist(Write),
    /// Send to one connection.
    Send {
        /// Connection.
        conn: ConnId,
        /// The message.
        out: Outgoing,
    },
    /// Send every connection the message of its kind of viewer.
    Broadcast(PerViewer),
    /// Ask the engine for a move; answer with [`Input::EngineMove`].
    AskEngine(EngineAsk),
    /// Create the rematch; answer with [`Input::RematchCreated`].
    CreateRematch(GameOptions),
    /// The game is over (whoever listens for game ends hears it).
    Ended(Outcome),
    /// The answer to the input that asked for one.
    Reply(Reply),
}

/// A message per kind of viewer (indexed like [`crate::knowledge::VIEWERS`]); only
/// the kinds with a connection are built.
#[derive(Debug, Default)]
pub struct PerViewer(pub [Option<Outgoing>; 3]);

impl PerViewer {
    /// The message for viewer `v`.
    pub fn get(&self, v: Viewer) -> Option<&Outgoing> {
        self.0[viewer_index(v)].as_ref()
    }
}

/// An engine move request: the engine sees only its own side's view.
#[derive(Debug)]
pub struct EngineAsk {
    /// Level 1–8.
    pub level: u8,
    /// Its side's position.
    pub pos: Position,
    /// The game judged on its side's positions.
    pub history: Judge,
    /// Plies played (echoed in the answer).
    pub plies: usize,
    /// Time to think.
    pub budget: Duration,
}

/// Answers to the inputs that want one.
#[derive(Debug)]
pub enum Reply {
    /// To [`Input::Join`]: as whom, or why not.
    Joined(Result<Viewer, ProtoError>),
    /// To [`Input::ClaimInvite`]: the seat and its token, or why not.
    Claimed(Result<(Color, String), ClaimRefused>),
    /// To [`Input::Adjudicate`]: the game is over, or why it could not be ended.
    Adjudicated(Result<(), ProtoError>),
}

/// Why the invite seat was not handed out.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ClaimRefused {
    /// No free seat: joined already, claimed from the open games, the game has begun,
    /// or it has no invite seat at all.
    SeatTaken,
    /// An unlisted game, and the invite token is missing or wrong.
    BadInvite,
    /// A rated game, and the claimant is not logged in.
    LoginRequired,
    /// A rated game, and the claimant is its creator.
    OwnGame,
}

/// A seat.
#[derive(Clone, Debug)]
struct Seat {
    engine: Option<u8>,
    token: String,
    joined: bool,
    /// The account playing it (a user name), `None` for a guest or an engine.
    user: Option<String>,
}

/// Where the game is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// A seat was never joined; clocks stopped.
    Waiting,
    /// In play.
    Live,
    /// Over.
    Finished,
}

impl Status {
    /// The protocol's name.
    pub fn name(self) -> &'static str {
        match self {
            Status::Waiting => "waiting",
            Status::Live => "live",
            Status::Finished => "finished",
        }
    }
}

struct Rematch {
    id: String,
    /// The old seats' new tokens: `tokens[c]` is for the player who was `c` here.
    tokens: ByColor<String>,
}

/// Who asked for what is pending, to be answered when it is done.
#[derive(Copy, Clone, Debug)]
struct Asker {
    conn: ConnId,
    in_: &'static str,
}

/// A change waiting for its write.
enum Pending {
    /// A move, already played on `game`; the rest is applied once stored.
    Move {
        asker: Option<Asker>,
        color: Color,
        mv: Move,
        clock: Option<Clock>,
        mover_left: Option<u64>,
        /// When it was played: stored with it, and so also announced with it.
        played: Now,
    },
    /// A chat line.
    Chat { line: ChatLine, asker: Asker },
    /// Plies taken back: the game keeps its first `keep`.
    Takeback { keep: usize, asker: Option<Asker> },
    /// An end without a move.
    Finish {
        end: GameEnd,
        asker: Option<Asker>,
        /// Told to the asker after the end (a move that came too late).
        notice: Option<ProtoError>,
        adjudicated: bool,
    },
}

/// One game's state.
pub struct Room {
    id: String,
    salt: String,
    commitment: String,
    tc: Option<TimeControl>,
    seats: ByColor<Seat>,
    invite: Option<Color>,
    invite_token: Option<String>,
    listed: bool,
    invite_claimed: bool,
    rated: bool,
    game: Game,
    views: ViewerPositions,
    metas: Vec<PlyMeta>,
    clock: Option<Clock>,
    status: Status,
    version: u64,
    draw_offer: Option<Color>,
    /// Who asks to take back his last move (docs/server.md, "Takebacks").
    takeback_offer: Option<Color>,
    rematch_offers: ByColor<bool>,
    rematch: Option<Rematch>,
    rematch_asker: Option<Asker>,
    conns: HashMap<ConnId, Viewer>,
    /// The connections that only follow the game with a seat's view (an analysis
    /// board): they are told what the seat may know, but are not the seat's presence
    /// (abandonment, `connected`) and cannot act for it.
    watchers: HashSet<ConnId>,
    away_since: ByColor<Option<Instant>>,
    engine_thinking: bool,
    abandon_ms: u64,
    /// A tournament game whose deal is still secret (told by the shell).
    private: bool,
    /// A tournament game (told by the shell): no abort; a missed first move loses.
    tournament: bool,
    /// Ended without a result.
    aborted: bool,
    /// When the window for the side to move's first move began (while the first
    /// moves are awaited: no clock runs then).
    first_move_since: Option<Instant>,
    limits: RoomLimits,
    /// Both rooms' lines, in order.
    chat: Vec<ChatLine>,
    /// `mutes[c]`: player `c` has turned the opponent's chat off.
    mutes: ByColor<bool>,
    /// Each sender's recent lines (rate limit).
    chat_recent: HashMap<chat::Sender, Recent>,
    /// The account of each connection that has one (spectators' names in the chat).
    conn_users: HashMap<ConnId, String>,
    /// Each connection's address, where known (the chat limit of guest spectators).
    conn_addrs: HashMap<ConnId, IpAddr>,
    pending: Option<Pending>,
    out: Vec<Effect>,
}

impl Room {
    /// Rebuilds a game from storage (also used right after creation). `rematch_tokens`
    /// are the seat tokens of its rematch, swapped to this game's colours, when it has
    /// one.
    pub fn from_stored(
        s: StoredGame,
        rematch_tokens: Option<ByColor<String>>,
        limits: RoomLimits,
        now: Now,
    ) -> Result<Room, StoreError> {
        let (game, metas, tc) = replay_stored(&s)?;
        let aborted = s.finish.is_some_and(|f| f.end == GameEnd::Aborted);
        let status = if game.outcome().is_some() || aborted {
            Status::Finished
        } else if s.started_ms.is_some() {
            Status::Live
        } else {
            Status::Waiting
        };
        // Clocks resume from the times stored with the last move; the downtime of a
        // restart is charged to nobody. Before both first moves no clock runs: the
        // first-move window starts again at the restart.
        let first_moves = game.plies().len() < 2;
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
            if status == Status::Live && !first_moves {
                c.start(game.turn(), now.at);
            }
            c
        });
        let first_move_since = (status == Status::Live && first_moves).then_some(now.at);
        let seat = |r: &crate::store::SeatRecord| Seat {
            engine: r.engine_level,
            token: r.token.clone(),
            joined: r.joined || r.engine_level.is_some(),
            user: r.user.clone(),
        };
        let seats = ByColor {
            red: seat(&s.new.seats.red),
            black: seat(&s.new.seats.black),
        };
        let away_since =
            ByColor::new_with(|c| (seats[c].engine.is_none() && seats[c].joined).then_some(now.at));
        let version = 1 + game.plies().len() as u64 + u64::from(status == Status::Finished);
        // A stored request stands only while the game is where it was made.
        let takeback_offer = s
            .takeback
            .filter(|&(_, n)| status == Status::Live && n as usize == game.plies().len())
            .map(|(c, _)| c);
        Ok(Room {
            id: s.new.id,
            salt: s.new.salt,
            commitment: s.new.commitment,
            tc,
            seats,
            invite: s.new.invite,
            invite_token: s.new.invite_token,
            listed: s.new.listed,
            invite_claimed: s.invite_claimed,
            rated: s.new.rated,
            views: ViewerPositions::of(&game),
            game,
            metas,
            clock,
            status,
            version,
            draw_offer: None,
            takeback_offer,
            rematch_offers: ByColor::default(),
            rematch: s.rematch.map(|id| Rematch {
                id,
                tokens: rematch_tokens.unwrap_or_default(),
            }),
            rematch_asker: None,
            conns: HashMap::new(),
            watchers: HashSet::new(),
            away_since,
            engine_thinking: false,
            abandon_ms: limits.abandon_ms,
            private: false,
            tournament: false,
            aborted,
            first_move_since,
            limits,
            chat: s.chat,
            mutes: s.mutes,
            chat_recent: HashMap::new(),
            conn_users: HashMap::new(),
            conn_addrs: HashMap::new(),
            pending: None,
            out: Vec::new(),
        })
    }

    /// The game id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Where the game is.
    pub fn status(&self) -> Status {
        self.status
    }

    /// The game version (docs/protocol.md §3.5).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The referee's game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Connections joined.
    pub fn connections(&self) -> usize {
        self.conns.len()
    }

    /// As whom a connection joined.
    pub fn viewer_of(&self, conn: ConnId) -> Option<Viewer> {
        self.conns.get(&conn).copied()
    }

    /// Whether a write is awaited (the shell feeds nothing but [`Input::Persisted`]).
    pub fn is_waiting_for_store(&self) -> bool {
        self.pending.is_some()
    }

    /// Tells the room whether it is a tournament game whose deal is still secret (no
    /// spectators; the end holds the deal back).
    pub fn set_private(&mut self, private: bool) {
        self.private = private;
    }

    /// Tells the room whether it is a tournament game (no abort; a missed first move
    /// loses instead of aborting).
    pub fn set_tournament(&mut self, tournament: bool) {
        self.tournament = tournament;
    }

    /// Whether the game ended without a result.
    pub fn is_aborted(&self) -> bool {
        self.aborted
    }

    /// When the running clock runs out, or the first move awaited is late
    /// ([`Input::Tick`] is due then).
    pub fn deadline(&self) -> Option<Instant> {
        if self.status != Status::Live {
            return None;
        }
        let clock = self
            .clock
            .as_ref()
            .and_then(|c| c.deadline())
            .map(|(_, at)| at);
        match (clock, self.first_move_deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// When the first move of the side to move is late: while the first moves are
    /// awaited and a person (not the engine) is to move.
    fn first_move_deadline(&self) -> Option<Instant> {
        let since = self.first_move_since?;
        (self.status == Status::Live
            && self.game.plies().len() < 2
            && self.seats[self.game.turn()].engine.is_none())
        .then(|| since + self.limits.first_move)
    }

    /// Whether the game may be aborted now: before both players have moved, and not in
    /// a tournament (where an abort would leave a pairing without a result).
    pub fn abortable(&self) -> bool {
        self.status != Status::Finished && self.game.plies().len() < 2 && !self.tournament
    }

    /// Asks the engine if it is to move (when a room starts or resumes).
    pub fn start(&mut self, now: Now) -> Vec<Effect> {
        self.maybe_engine(now);
        std::mem::take(&mut self.out)
    }

    /// Handles one input; returns what to do, in order.
    pub fn handle(&mut self, input: Input, now: Now) -> Vec<Effect> {
        debug_assert!(
            self.pending.is_none() || matches!(input, Input::Persisted(_)),
            "only the write's report may reach a room waiting for the store"
        );
        match input {
            Input::Persisted(r) => self.persisted(r, now),
            Input::Join {
                conn,
                token,
                watch,
                user,
                addr,
            } => {
                if let Some(a) = addr {
                    self.conn_addrs.insert(conn, a);
                }
                let r = self.join(conn, token, watch, user, now);
                self.out.push(Effect::Reply(Reply::Joined(r)));
            }
            Input::Leave { conn } => {
                self.conn_users.remove(&conn);
                self.conn_addrs.remove(&conn);
                self.chat_recent.remove(&chat::Sender::Conn(conn));
                let watched = self.watchers.remove(&conn);
                if let Some(v) = self.conns.remove(&conn) {
                    if watched {
                        self.broadcast_presence(now);
                    } else {
                        self.after_leave(v, now);
                    }
                }
            }
            Input::Client { conn, msg, v } => {
                if let Some(viewer) = self.conns.get(&conn).copied() {
                    let in_ = msg.type_name();
                    let r = if self.watchers.contains(&conn) && msg != ClientIn::Sync {
                        Err(ProtoError::new(
                            ErrorCode::NotAPlayer,
                            "a watching connection only follows the game",
                        ))
                    } else {
                        self.client(conn, viewer, msg, v, now)
                    };
                    if let Err(e) = r {
                        self.send(conn, e.to_out(Some(in_)));
                    }
                }
            }
            Input::EngineMove { plies, mv } => self.engine_move(plies, mv, now),
            Input::ClaimInvite { invite, user } => {
                let r = self.claim_invite(invite.as_deref(), user, now);
                self.out.push(Effect::Reply(Reply::Claimed(r)));
            }
            Input::Adjudicate { outcome } => {
                if self.status == Status::Finished {
                    self.out.push(Effect::Reply(Reply::Adjudicated(Ok(()))));
                } else {
                    self.finish(GameEnd::Result(outcome), None, None, true, now);
                }
            }
            Input::Tick => {
                let live = self.status == Status::Live;
                if live && self.first_move_deadline().is_some_and(|d| now.at >= d) {
                    self.first_move_missed(None, None, now);
                } else if let Some(Flagged(c)) = self.clock.as_ref().and_then(|k| k.flagged(now.at))
                    && live
                {
                    self.flag(c, None, None, now);
                }
            }
            Input::RematchCreated(r) => self.rematch_created(r),
        }
        std::mem::take(&mut self.out)
    }

    fn send(&mut self, conn: ConnId, msg: ClientOut) {
        let out = Outgoing::new(self.version, msg);
        self.out.push(Effect::Send { conn, out });
    }

    fn join(
        &mut self,
        conn: ConnId,
        token: Option<String>,
        watch: bool,
        user: Option<String>,
        now: Now,
    ) -> Result<Viewer, ProtoError> {
        let viewer = match token.as_deref() {
            None | Some("") if self.private => {
                return Err(ProtoError::new(
                    ErrorCode::Private,
                    "this tournament game shares its deal with a game still in play: it can be watched once the round's deal is published",
                ));
            }
            None | Some("") => Viewer::Spectator,
            Some(t) => Color::ALL
                .into_iter()
                .find(|&c| self.seats[c].engine.is_none() && same_secret(&self.seats[c].token, t))
                .map(Viewer::Player)
                .ok_or_else(|| {
                    ProtoError::new(ErrorCode::BadToken, "this token holds no seat in this game")
                })?,
        };
        self.conns.insert(conn, viewer);
        if let Some(u) = user {
            self.conn_users.insert(conn, u);
        }
        if watch {
            self.watchers.insert(conn);
            let msg = self.state_out(viewer, now);
            self.send(conn, msg);
            return Ok(viewer);
        }
        let mut started = false;
        if let Viewer::Player(c) = viewer {
            self.away_since[c] = None;
            if !self.seats[c].joined {
                self.seats[c].joined = true;
                if self.status == Status::Waiting
                    && Color::ALL.iter().all(|&c| self.seats[c].joined)
                {
                    // No clock runs before a player's first move: a first-move window
                    // does instead.
                    self.status = Status::Live;
                    self.first_move_since = Some(now.at);
                    started = true;
                    tracing::info!(game = %self.id, "game started");
                }
                self.persist_seats(now);
            }
        }
        if started {
            self.version += 1;
            self.broadcast_with(|r, v| r.state_out(v, now));
            self.maybe_engine(now);
        } else {
            let msg = self.state_out(viewer, now);
            self.send(conn, msg);
        }
        self.broadcast_presence(now);
        Ok(viewer)
    }

    /// The invite seat for HTTP `join`. A listed game's seat goes to the first who
    /// asks. An unlisted game's only to the holder of the invite token, and again to
    /// him until the seat is joined (a reload, a second device), never after: the
    /// invite link cannot take over a seat in use. A rated game's seat goes only to an
    /// account other than the creator's, and once it has one, only to that account.
    fn claim_invite(
        &mut self,
        invite: Option<&str>,
        user: Option<String>,
        now: Now,
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
        if self.rated {
            let Some(u) = &user else {
                return Err(ClaimRefused::LoginRequired);
            };
            if self.seats[!c].user.as_ref() == Some(u) {
                return Err(ClaimRefused::OwnGame);
            }
            if self.seats[c].user.as_ref().is_some_and(|had| had != u) {
                return Err(ClaimRefused::SeatTaken);
            }
        }
        if !self.invite_claimed || self.seats[c].user != user {
            self.invite_claimed = true;
            self.seats[c].user = user;
            self.persist_seats(now);
        }
        tracing::info!(game = %self.id, seat = c.name(), listed = self.listed, "invite seat claimed");
        Ok((c, self.seats[c].token.clone()))
    }

    fn after_leave(&mut self, viewer: Viewer, now: Now) {
        if let Viewer::Player(c) = viewer
            && !self.seat_connected(c)
        {
            self.away_since[c] = Some(now.at);
        }
        self.broadcast_presence(now);
    }

    /// Whether seat `c` has a connection of its player (a watcher is none).
    fn seat_connected(&self, c: Color) -> bool {
        self.conns
            .iter()
            .any(|(id, v)| *v == Viewer::Player(c) && !self.watchers.contains(id))
    }

    fn persist_seats(&mut self, now: Now) {
        self.out.push(Effect::Persist(Write::Seats {
            id: self.id.clone(),
            joined: ByColor::new_with(|c| self.seats[c].joined),
            users: ByColor::new_with(|c| self.seats[c].user.clone()),
            invite_claimed: self.invite_claimed,
            started_ms: (self.status != Status::Waiting).then_some(now.ms),
        }));
    }

    fn client(
        &mut self,
        conn: ConnId,
        viewer: Viewer,
        msg: ClientIn,
        v: Option<u64>,
        now: Now,
    ) -> Result<(), ProtoError> {
        match msg {
            ClientIn::Sync => {
                let msg = self.state_out(viewer, now);
                self.send(conn, msg);
                return Ok(());
            }
            ClientIn::Chat { room, text } => {
                let asker = Asker { conn, in_: "chat" };
                return self.chat(asker, viewer, room, &text, now);
            }
            _ => {}
        }
        let Viewer::Player(me) = viewer else {
            return Err(ProtoError::new(
                ErrorCode::NotAPlayer,
                "spectators cannot do that",
            ));
        };
        let asker = Some(Asker {
            conn,
            in_: msg.type_name(),
        });
        match msg {
            ClientIn::Move { uci } => {
                self.require_live()?;
                if self.game.turn() != me {
                    return Err(ProtoError::new(
                        ErrorCode::NotYourTurn,
                        "it is not your turn",
                    ));
                }
                if let Some(v) = v
                    && v != self.version
                {
                    return Err(ProtoError::new(
                        ErrorCode::StaleVersion,
                        format!(
                            "your board is version {v}, the game is at {}: sync first",
                            self.version
                        ),
                    ));
                }
                let u = UciMove::parse(&uci)
                    .map_err(|e| ProtoError::new(ErrorCode::BadMove, e.to_string()))?;
                // Suffix letters are ignored: checking them against the deal would
                // tell the sender whether a guessed identity is right.
                let m = u.to_plain();
                if !self.views.get(viewer).is_legal(m) {
                    return Err(ProtoError::new(
                        ErrorCode::IllegalMove,
                        format!("{m} is not a legal move here"),
                    ));
                }
                self.play(me, m, asker, now)
            }
            ClientIn::Abort => {
                if !self.abortable() {
                    return Err(ProtoError::new(
                        ErrorCode::NotAbortable,
                        if self.status == Status::Finished {
                            "the game is over"
                        } else if self.tournament {
                            "a tournament game cannot be aborted"
                        } else {
                            "both players have moved: the game can no longer be aborted"
                        },
                    ));
                }
                self.finish(GameEnd::Aborted, asker, None, false, now);
                Ok(())
            }
            ClientIn::ChatMute { muted } => {
                self.mute(me, muted, now);
                Ok(())
            }
            ClientIn::Resign => {
                self.require_under_way()?;
                self.finish(
                    GameEnd::Result(Outcome::Win {
                        winner: !me,
                        reason: Reason::Resignation,
                    }),
                    asker,
                    None,
                    false,
                    now,
                );
                Ok(())
            }
            ClientIn::OfferDraw => {
                self.require_under_way()?;
                match self.draw_offer {
                    Some(c) if c == !me => {
                        let agreed = Outcome::Draw {
                            reason: Reason::Agreement,
                        };
                        self.finish(GameEnd::Result(agreed), asker, None, false, now);
                        return Ok(());
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
                self.require_under_way()?;
                if self.draw_offer != Some(!me) {
                    return Err(no_draw_offer());
                }
                let agreed = Outcome::Draw {
                    reason: Reason::Agreement,
                };
                self.finish(GameEnd::Result(agreed), asker, None, false, now);
                Ok(())
            }
            ClientIn::DeclineDraw => {
                if self.draw_offer != Some(!me) || self.status != Status::Live {
                    return Err(no_draw_offer());
                }
                self.draw_offer = None;
                self.draw_event(None, Some(me));
                Ok(())
            }
            ClientIn::Rematch => self.rematch(conn, me),
            ClientIn::Takeback => {
                if self.takeback_offer == Some(!me) {
                    return self.take_back(!me, asker);
                }
                let plies = self.takeback_plies(me)?;
                if self.takeback_offer != Some(me) {
                    self.takeback_offer = Some(me);
                    self.persist_takeback_offer();
                    self.takeback_event(Some((me, plies)), None, None);
                }
                Ok(())
            }
            ClientIn::AcceptTakeback => {
                if self.takeback_offer != Some(!me) || self.status != Status::Live {
                    return Err(no_takeback());
                }
                self.take_back(!me, asker)
            }
            ClientIn::DeclineTakeback => {
                if self.takeback_offer != Some(!me) || self.status != Status::Live {
                    return Err(no_takeback());
                }
                self.takeback_offer = None;
                self.persist_takeback_offer();
                self.takeback_event(None, Some(me), None);
                Ok(())
            }
            ClientIn::ClaimAbandonment => {
                self.require_under_way()?;
                let them = !me;
                let gone = self.seats[them].engine.is_none()
                    && !self.seat_connected(them)
                    && self.away_since[them].is_some_and(|t| {
                        now.at.saturating_duration_since(t)
                            >= Duration::from_millis(self.abandon_ms)
                    });
                if !gone {
                    return Err(ProtoError::new(
                        ErrorCode::NotAbandoned,
                        format!(
                            "your opponent has not been away for {} s",
                            self.abandon_ms / 1000
                        ),
                    ));
                }
                let claimed = Outcome::Win {
                    winner: me,
                    reason: Reason::Abandonment,
                };
                self.finish(GameEnd::Result(claimed), asker, None, false, now);
                Ok(())
            }
            ClientIn::Join { .. } => Err(ProtoError::new(
                ErrorCode::AlreadyJoined,
                "this connection has joined a game",
            )),
            ClientIn::Ping { .. } | ClientIn::Sync | ClientIn::Chat { .. } => Ok(()),
        }
    }

    /// Whether this game allows takeback requests: a casual game between two people,
    /// not a tournament game (whose result belongs to the event).
    pub fn takebacks_allowed(&self) -> bool {
        !self.rated
            && !self.tournament
            && Color::ALL.iter().all(|&c| self.seats[c].engine.is_none())
    }

    /// How many plies a takeback asked for by `who` would take back now: his last
    /// move, and the opponent's reply if he has made it; or why none.
    ///
    /// A ply that uncovered an identity (a face-down piece moved, or one was taken) is
    /// never taken back: what it showed cannot be unseen by the player who saw it, and
    /// replaying the position with that knowledge would not be the same game. The
    /// first two plies are not taken back either: before both have moved, `abort`
    /// ends the game instead.
    fn takeback_plies(&self, who: Color) -> Result<usize, ProtoError> {
        self.require_live()?;
        let refused = |m: &str| Err(ProtoError::new(ErrorCode::TakebackRefused, m));
        if !self.takebacks_allowed() {
            return refused(
                "takebacks are for casual games between two people, not rated, tournament or engine games",
            );
        }
        let k = if self.game.turn() == who { 2 } else { 1 };
        let plies = self.game.plies();
        if plies.len() < k + 2 {
            return refused("the first moves cannot be taken back: abort the game instead");
        }
        if plies[plies.len() - k..]
            .iter()
            .any(|p| p.reveals.mover.is_some() || p.captured_hidden())
        {
            return refused(
                "a move that revealed a piece cannot be taken back: what it showed cannot be hidden again",
            );
        }
        Ok(k)
    }

    /// Takes back what `who` asked for, once stored.
    fn take_back(&mut self, who: Color, asker: Option<Asker>) -> Result<(), ProtoError> {
        let k = self.takeback_plies(who)?;
        let keep = self.game.plies().len() - k;
        self.out.push(Effect::Persist(Write::Takeback {
            id: self.id.clone(),
            keep: keep as u32,
        }));
        self.pending = Some(Pending::Takeback { keep, asker });
        Ok(())
    }

    /// The stored takeback is applied: the game goes back to `keep` plies, the clocks
    /// keep the times they have (as on lichess) and run for the side now to move, and
    /// everyone gets the new state.
    fn taken_back(&mut self, keep: usize, now: Now) {
        let taken = self.game.plies().len() - keep;
        match stored::first_plies(&self.game, keep) {
            Ok(g) => self.game = g,
            Err(e) => {
                tracing::error!(game = %self.id, "cannot replay the game for a takeback: {e}");
                return;
            }
        }
        self.views = ViewerPositions::of(&self.game);
        self.metas.truncate(keep);
        if let Some(c) = &mut self.clock {
            c.stop(now.at);
            c.start(self.game.turn(), now.at);
        }
        self.takeback_offer = None;
        self.draw_offer = None;
        tracing::info!(game = %self.id, plies = taken, "moves taken back");
        self.takeback_event(None, None, Some(taken as u32));
        self.version += 1;
        self.broadcast_with(|r, v| r.state_out(v, now));
    }

    fn persist_takeback_offer(&mut self) {
        self.out.push(Effect::Persist(Write::TakebackOffer {
            id: self.id.clone(),
            offer: self
                .takeback_offer
                .map(|c| (c, self.game.plies().len() as u32)),
        }));
    }

    fn require_live(&self) -> Result<(), ProtoError> {
        match self.status {
            Status::Live => Ok(()),
            Status::Waiting => Err(ProtoError::new(
                ErrorCode::NotStarted,
                "the game has not started: a seat is still free",
            )),
            Status::Finished => Err(game_over()),
        }
    }

    /// Live, and past the abortable start: as on lichess, before both players have
    /// moved a game can only be aborted (no result), not resigned, drawn or claimed,
    /// so nobody's rating moves on a game that never began. A tournament game, which
    /// cannot be aborted, may end these ways from the start.
    fn require_under_way(&self) -> Result<(), ProtoError> {
        self.require_live()?;
        if self.abortable() {
            return Err(ProtoError::new(
                ErrorCode::AbortOnly,
                "before both players have moved the game can only be aborted",
            ));
        }
        Ok(())
    }

    fn engine_move(&mut self, plies: usize, mv: Option<Move>, now: Now) {
        self.engine_thinking = false;
        if self.status != Status::Live || plies != self.game.plies().len() {
            self.maybe_engine(now);
            return;
        }
        let color = self.game.turn();
        match mv {
            Some(m) if self.views.get(Viewer::Player(color)).is_legal(m) => {
                if let Err(e) = self.play(color, m, None, now) {
                    tracing::warn!(game = %self.id, "engine move failed: {}", e.message);
                }
            }
            _ => {
                tracing::warn!(game = %self.id, "the engine gave no legal move");
                let forfeit = Outcome::Win {
                    winner: !color,
                    reason: Reason::Forfeit,
                };
                self.finish(GameEnd::Result(forfeit), None, None, false, now);
            }
        }
    }

    /// Plays a legal move of `color` on the referee's game and asks for it to be
    /// stored; everyone hears of it once it is (`move_stored`).
    fn play(
        &mut self,
        color: Color,
        m: Move,
        asker: Option<Asker>,
        now: Now,
    ) -> Result<(), ProtoError> {
        if self.first_move_deadline().is_some_and(|d| now.at >= d) {
            let late = ProtoError::new(
                ErrorCode::GameOver,
                "the time for your first move ran out before the move",
            );
            self.first_move_missed(asker, Some(late), now);
            return Ok(());
        }
        let first_moves = self.game.plies().len() < 2;
        let mut clock = self.clock.clone();
        let mover_left = match clock.as_mut() {
            None => None,
            // The first moves are not timed by the clock (no time charged, no
            // increment); Black's first move starts Red's clock.
            Some(c) if first_moves => {
                if self.game.plies().len() == 1 {
                    c.start(!color, now.at);
                }
                Some(c.left(color, now.at))
            }
            Some(c) => match c.moved(now.at) {
                Ok(left) => Some(left),
                Err(Flagged(c)) => {
                    let late = ProtoError::new(ErrorCode::GameOver, "time ran out before the move");
                    self.flag(c, asker, Some(late), now);
                    return Ok(());
                }
            },
        };
        // `Game::play` leaves the game untouched when it refuses a move.
        if let Err(e) = self.game.play(m) {
            return Err(ProtoError::new(ErrorCode::IllegalMove, e.to_string()));
        }
        let stored = clock.as_ref().map_or(ByColor::default(), Clock::stored);
        let finish = self.game.outcome().map(|outcome| FinishRecord {
            end: GameEnd::Result(outcome),
            at_ms: now.ms,
        });
        self.out.push(Effect::Persist(Write::Move {
            id: self.id.clone(),
            mv: MoveRecord {
                n: self.game.plies().len() as u32,
                uci: m.to_string(),
                red_ms: stored.red,
                black_ms: stored.black,
                at_ms: now.ms,
            },
            finish,
        }));
        self.pending = Some(Pending::Move {
            asker,
            color,
            mv: m,
            clock,
            mover_left,
            played: now,
        });
        Ok(())
    }

    fn persisted(&mut self, r: Result<(), String>, now: Now) {
        match (self.pending.take(), r) {
            (None, Ok(())) => {}
            (None, Err(e)) => tracing::error!(game = %self.id, "cannot store: {e}"),
            (
                Some(Pending::Move {
                    color,
                    clock,
                    mover_left,
                    played,
                    ..
                }),
                Ok(()),
            ) => self.move_stored(color, clock, mover_left, played),
            (Some(Pending::Chat { line, .. }), Ok(())) => self.chat_stored(line),
            (Some(Pending::Takeback { keep, .. }), Ok(())) => self.taken_back(keep, now),
            (Some(Pending::Takeback { asker, .. }), Err(e)) => {
                tracing::error!(game = %self.id, "cannot store a takeback: {e}");
                if let Some(a) = asker {
                    let e = ProtoError::new(
                        ErrorCode::Internal,
                        "the takeback could not be stored; nothing was taken back",
                    );
                    self.send(a.conn, e.to_out(Some(a.in_)));
                }
            }
            (Some(Pending::Chat { asker, .. }), Err(e)) => {
                tracing::error!(game = %self.id, "cannot store a chat line: {e}");
                let e = ProtoError::new(ErrorCode::Internal, "the message could not be stored");
                self.send(asker.conn, e.to_out(Some(asker.in_)));
            }
            (Some(Pending::Move { asker, mv, .. }), Err(e)) => {
                tracing::error!(game = %self.id, "cannot store move {mv}: {e}");
                match stored::without_last_ply(&self.game) {
                    Ok(g) => self.game = g,
                    Err(e) => tracing::error!(game = %self.id, "cannot take back a move: {e}"),
                }
                if let Some(a) = asker {
                    let e = ProtoError::new(
                        ErrorCode::Internal,
                        "the move could not be stored; it was not played",
                    );
                    self.send(a.conn, e.to_out(Some(a.in_)));
                }
            }
            (
                Some(Pending::Finish {
                    end,
                    asker,
                    notice,
                    adjudicated,
                }),
                Ok(()),
            ) => {
                match end {
                    GameEnd::Result(outcome) => {
                        let _ = self.game.finish(outcome);
                    }
                    GameEnd::Aborted => self.aborted = true,
                }
                self.first_move_since = None;
                if let Some(c) = &mut self.clock {
                    c.stop(now.at);
                }
                self.status = Status::Finished;
                self.draw_offer = None;
                self.takeback_offer = None;
                self.version += 1;
                self.broadcast_end();
                if let (Some(a), Some(n)) = (asker, notice) {
                    self.send(a.conn, n.to_out(Some(a.in_)));
                }
                if adjudicated {
                    self.out.push(Effect::Reply(Reply::Adjudicated(Ok(()))));
                }
            }
            (
                Some(Pending::Finish {
                    asker, adjudicated, ..
                }),
                Err(e),
            ) => {
                tracing::error!(game = %self.id, "cannot store the end: {e}");
                let e = ProtoError::new(ErrorCode::Internal, "the result could not be stored");
                if let Some(a) = asker {
                    self.send(a.conn, e.to_out(Some(a.in_)));
                }
                if adjudicated {
                    self.out.push(Effect::Reply(Reply::Adjudicated(Err(e))));
                }
            }
        }
    }

    /// The stored move reaches everyone: clocks, each viewer's position, the event.
    fn move_stored(
        &mut self,
        color: Color,
        mut clock: Option<Clock>,
        mover_left: Option<u64>,
        now: Now,
    ) {
        let outcome = self.game.outcome();
        if let (Some(c), Some(_)) = (clock.as_mut(), outcome) {
            c.stop(now.at);
        }
        self.clock = clock;
        let meta = PlyMeta {
            at_ms: now.ms,
            clock_ms: mover_left,
        };
        self.metas.push(meta);
        // Black's first-move window opens with Red's first move; after Black's the
        // clocks run.
        self.first_move_since = (self.game.plies().len() == 1).then_some(now.at);
        let plies = self.views.advance(&self.game, meta);
        if self.draw_offer == Some(!color) {
            self.draw_offer = None;
        }
        // A move drops a standing takeback request (the stored one lapses with it: it
        // names the ply count it was made at).
        self.takeback_offer = None;
        if outcome.is_some() {
            self.status = Status::Finished;
        }
        self.version += 1;
        // Each kind of viewer's message is built once and takes its ply (no copy);
        // viewers with the same position share its FEN.
        let plies = plies.map(|p| std::cell::Cell::new(Some(p)));
        let fens = render::Fens::default();
        self.broadcast_with(|r, v| {
            let ply = plies[viewer_index(v)].take().unwrap_or_default();
            r.move_out(v, ply, &fens, now)
        });
        if outcome.is_some() {
            self.version += 1;
            self.broadcast_end();
        } else {
            self.maybe_engine(now);
        }
    }

    fn flag(&mut self, c: Color, asker: Option<Asker>, notice: Option<ProtoError>, now: Now) {
        let lost = Outcome::Win {
            winner: !c,
            reason: Reason::Time,
        };
        self.finish(GameEnd::Result(lost), asker, notice, false, now);
    }

    /// The side to move did not make its first move in time: the game is aborted, or
    /// in a tournament lost by forfeit (an abort would leave the pairing without a
    /// result, and a no-show loses a tournament game).
    fn first_move_missed(&mut self, asker: Option<Asker>, notice: Option<ProtoError>, now: Now) {
        let late = self.game.turn();
        let end = if self.tournament {
            GameEnd::Result(Outcome::Win {
                winner: !late,
                reason: Reason::Forfeit,
            })
        } else {
            GameEnd::Aborted
        };
        tracing::info!(game = %self.id, seat = late.name(), "no first move in time");
        self.finish(end, asker, notice, false, now);
    }

    /// Ends the game without a move (resignation, time, agreement, abandonment, an
    /// organiser's result, an abort) once the end is stored.
    fn finish(
        &mut self,
        end: GameEnd,
        asker: Option<Asker>,
        notice: Option<ProtoError>,
        adjudicated: bool,
        now: Now,
    ) {
        self.out.push(Effect::Persist(Write::Finish {
            id: self.id.clone(),
            finish: FinishRecord { end, at_ms: now.ms },
        }));
        self.pending = Some(Pending::Finish {
            end,
            asker,
            notice,
            adjudicated,
        });
    }

    fn rematch(&mut self, conn: ConnId, me: Color) -> Result<(), ProtoError> {
        if self.status != Status::Finished {
            return Err(ProtoError::new(
                ErrorCode::NotOver,
                "a rematch is possible after the end",
            ));
        }
        if self.rematch.is_some() {
            let msg = ClientOut::Rematch(self.rematch_out(Viewer::Player(me)));
            self.send(conn, msg);
            return Ok(());
        }
        self.rematch_offers[me] = true;
        let ready = Color::ALL
            .iter()
            .all(|&c| self.rematch_offers[c] || self.seats[c].engine.is_some());
        if ready {
            // Colours swap: the new Red is the old Black.
            self.rematch_asker = Some(Asker {
                conn,
                in_: "rematch",
            });
            self.out.push(Effect::CreateRematch(GameOptions {
                rules: *self.game.rules(),
                tc: self.tc,
                engine: ByColor {
                    red: self.seats.black.engine,
                    black: self.seats.red.engine,
                },
                invite: None,
                listed: false,
                rematch_of: Some(self.id.clone()),
                users: ByColor {
                    red: self.seats.black.user.clone(),
                    black: self.seats.red.user.clone(),
                },
                rated: self.rated,
            }));
            return Ok(());
        }
        self.version += 1;
        self.broadcast_with(|r, v| ClientOut::Rematch(r.rematch_out(v)));
        Ok(())
    }

    fn rematch_created(&mut self, r: Result<Created, String>) {
        let asker = self.rematch_asker.take();
        match r {
            Ok(created) => {
                self.out.push(Effect::Persist(Write::Rematch {
                    id: self.id.clone(),
                    rematch: created.id.clone(),
                }));
                self.rematch = Some(Rematch {
                    id: created.id,
                    tokens: ByColor {
                        red: created.tokens.black,
                        black: created.tokens.red,
                    },
                });
                self.version += 1;
                self.broadcast_with(|r, v| ClientOut::Rematch(r.rematch_out(v)));
            }
            Err(e) => {
                if let Some(a) = asker {
                    let e = ProtoError::new(
                        ErrorCode::Internal,
                        format!("cannot create the rematch: {e}"),
                    );
                    self.send(a.conn, e.to_out(Some(a.in_)));
                }
            }
        }
    }

    fn maybe_engine(&mut self, now: Now) {
        if self.status != Status::Live || self.engine_thinking || self.pending.is_some() {
            return;
        }
        let color = self.game.turn();
        let Some(level) = self.seats[color].engine else {
            return;
        };
        self.engine_thinking = true;
        let mut budget = Duration::from_millis(150 * u64::from(level));
        if let Some(c) = &self.clock {
            let mut left = c.left(color, now.at) / 20;
            if let Some(ml) = c.move_left(now.at) {
                left = left.min(ml / 3);
            }
            budget = budget.min(Duration::from_millis(left));
        }
        let me = Viewer::Player(color);
        self.out.push(Effect::AskEngine(EngineAsk {
            level,
            pos: self.views.get(me).clone(),
            history: self.views.history(me).clone(),
            plies: self.game.plies().len(),
            budget,
        }));
    }
}

fn game_over() -> ProtoError {
    ProtoError::new(ErrorCode::GameOver, "the game is over")
}

fn no_takeback() -> ProtoError {
    ProtoError::new(
        ErrorCode::NoTakeback,
        "your opponent has not asked to take back a move",
    )
}

fn no_draw_offer() -> ProtoError {
    ProtoError::new(
        ErrorCode::NoDrawOffer,
        "your opponent has not offered a draw",
    )
}
