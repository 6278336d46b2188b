//! A room's chat: who posts and reads where, the limits, muting (docs/server.md,
//! "Chat"). As on lichess, the two players talk in the player room and everyone else
//! in the spectator room; each reads only his own room. An engine game has no player
//! room: the engine does not talk.

use jieqi_core::{Color, Viewer};

use super::{Asker, Effect, Pending, PerViewer, Room};
use crate::chat::{self as lines, ChatLine, ChatRoom, LineError};
use crate::knowledge::{VIEWERS, viewer_index};
use crate::protocol::out::{ChatOut, ChatStateOut};
use crate::protocol::{ClientOut, ErrorCode, Outgoing, ProtoError};
use crate::store::Write;

use super::Now;

/// Whose lines count together for the rate limit: a seat (all its tabs), a
/// logged-in spectator (all his connections), or a guest spectator's address (all
/// guests there, and again after a reconnection: a guest has nothing else that
/// outlives his connection), or his connection when the address is unknown.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Sender {
    Seat(Color),
    User(String),
    Addr(std::net::IpAddr),
    Conn(super::ConnId),
}

impl Room {
    fn has_engine(&self) -> bool {
        self.seats.red.engine.is_some() || self.seats.black.engine.is_some()
    }

    /// The room viewer `v` reads and posts in (`None`: none).
    fn chat_room_of(&self, v: Viewer) -> Option<ChatRoom> {
        match v {
            Viewer::Player(_) if self.has_engine() => None,
            Viewer::Player(_) => Some(ChatRoom::Players),
            _ => Some(ChatRoom::Spectators),
        }
    }

    /// Whether viewer `v` receives `line`: its own room's lines, except a muted
    /// opponent's.
    fn reads(&self, v: Viewer, line: &ChatLine) -> bool {
        if self.chat_room_of(v) != Some(line.room) {
            return false;
        }
        match v {
            Viewer::Player(c) => !(self.mutes[c] && line.color == Some(!c)),
            _ => true,
        }
    }

    fn chat_out(line: &ChatLine) -> ChatOut {
        ChatOut {
            room: line.room.name(),
            color: line.color.map(Color::name),
            name: line.user.clone(),
            text: line.text.clone(),
            at_ms: line.at_ms,
        }
    }

    /// The chat part of viewer `v`'s `state`.
    pub(super) fn chat_state(&self, v: Viewer) -> ChatStateOut {
        ChatStateOut {
            room: self.chat_room_of(v).map(ChatRoom::name),
            lines: self
                .chat
                .iter()
                .filter(|l| self.reads(v, l))
                .map(Room::chat_out)
                .collect(),
            muted: match v {
                Viewer::Player(c) => self.mutes[c],
                _ => false,
            },
        }
    }

    /// A line from `asker`'s connection, seen as `viewer`: checked, then stored, and
    /// delivered once stored (`chat_stored`).
    pub(super) fn chat(
        &mut self,
        asker: Asker,
        viewer: Viewer,
        room: ChatRoom,
        text: &str,
        now: Now,
    ) -> Result<(), ProtoError> {
        let Some(mine) = self.chat_room_of(viewer) else {
            return Err(ProtoError::new(
                ErrorCode::ChatRoom,
                "an engine game has no player chat: the engine does not talk",
            ));
        };
        if mine != room {
            return Err(ProtoError::new(
                ErrorCode::ChatRoom,
                match mine {
                    ChatRoom::Players => "players talk in the players room, not the spectators'",
                    ChatRoom::Spectators => "only the two players talk in the players room",
                },
            ));
        }
        let limits = &self.limits.chat;
        let text = lines::clean(text, limits.max_chars).map_err(|e| match e {
            LineError::Empty => ProtoError::new(ErrorCode::ChatEmpty, e.to_string()),
            LineError::TooLong { .. } => ProtoError::new(ErrorCode::ChatTooLong, e.to_string()),
        })?;
        if self.chat.iter().filter(|l| l.room == room).count() >= limits.max_lines {
            return Err(ProtoError::new(
                ErrorCode::ChatFull,
                format!(
                    "this chat room is full ({} messages a game)",
                    limits.max_lines
                ),
            ));
        }
        let (color, user) = match viewer {
            Viewer::Player(c) => (Some(c), self.seats[c].user.clone()),
            _ => (None, self.conn_users.get(&asker.conn).cloned()),
        };
        let sender = match (color, &user) {
            (Some(c), _) => Sender::Seat(c),
            (None, Some(u)) => Sender::User(u.clone()),
            (None, None) => match self.conn_addrs.get(&asker.conn) {
                Some(&a) => Sender::Addr(a),
                None => Sender::Conn(asker.conn),
            },
        };
        let (per_window, window) = (limits.per_window, limits.window);
        if !self
            .chat_recent
            .entry(sender)
            .or_default()
            .allow(&self.limits.chat, now.at)
        {
            return Err(ProtoError::new(
                ErrorCode::RateLimited,
                format!(
                    "at most {per_window} chat messages in {} s: wait a moment",
                    window.as_secs()
                ),
            ));
        }
        let line = ChatLine {
            n: self.chat.last().map_or(1, |l| l.n + 1),
            room,
            color,
            user,
            text,
            at_ms: now.ms,
        };
        self.out.push(Effect::Persist(Write::Chat {
            id: self.id.clone(),
            line: line.clone(),
        }));
        self.pending = Some(Pending::Chat { line, asker });
        Ok(())
    }

    /// A stored line reaches its room's readers (the sender too: that is his
    /// acknowledgement). Chat changes no game state: the version stays.
    pub(super) fn chat_stored(&mut self, line: ChatLine) {
        let out = Outgoing::new(self.version, ClientOut::Chat(Room::chat_out(&line)));
        let mut per = PerViewer::default();
        for v in VIEWERS {
            if self.reads(v, &line) && self.conns.values().any(|c| *c == v) {
                per.0[viewer_index(v)] = Some(out.clone());
            }
        }
        self.chat.push(line);
        if per.0.iter().any(Option::is_some) {
            self.out.push(Effect::Broadcast(per));
        }
    }

    /// Player `me` turns the opponent's chat off or on; his connections get a fresh
    /// `state` (the lines he now reads).
    pub(super) fn mute(&mut self, me: Color, muted: bool, now: Now) {
        if self.mutes[me] != muted {
            self.mutes[me] = muted;
            self.out.push(Effect::Persist(Write::ChatMute {
                id: self.id.clone(),
                color: me,
                muted,
            }));
        }
        let mine: Vec<_> = self
            .conns
            .iter()
            .filter(|(_, v)| **v == Viewer::Player(me))
            .map(|(c, _)| *c)
            .collect();
        for conn in mine {
            let msg = self.state_out(Viewer::Player(me), now);
            self.send(conn, msg);
        }
    }
}
