//! Server → client messages (`ClientOut`, docs/protocol.md §3.3) and their data.
//!
//! Each value is built by the game room for one kind of viewer; [`Outgoing`] adds the
//! game version and writes the `{t, v, d}` envelope.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;

use super::ErrorCode;
use crate::knowledge::{ByColorOut, EndOut, LegalOut, PlyOut, PoolsOut, SeatOut};

/// A server message.
#[derive(Clone, Debug)]
pub enum ClientOut {
    /// The full game as this connection may see it.
    State(Box<StateOut>),
    /// A move was played.
    Move(Box<MoveOut>),
    /// The game is over.
    End(Box<EndOut>),
    /// The draw offer changed.
    Draw(DrawOut),
    /// The rematch state changed.
    Rematch(RematchOut),
    /// Connections changed.
    Presence(PresenceOut),
    /// A message was refused.
    Error(ErrorOut),
    /// The answer to `ping`.
    Pong(PongOut),
    /// A chat line.
    Chat(ChatOut),
    /// The takeback request changed, or moves were taken back.
    Takeback(TakebackOut),
}

impl ClientOut {
    /// The envelope's `t`.
    pub fn type_name(&self) -> &'static str {
        match self {
            ClientOut::State(_) => "state",
            ClientOut::Move(_) => "move",
            ClientOut::End(_) => "end",
            ClientOut::Draw(_) => "draw",
            ClientOut::Rematch(_) => "rematch",
            ClientOut::Presence(_) => "presence",
            ClientOut::Error(_) => "error",
            ClientOut::Pong(_) => "pong",
            ClientOut::Chat(_) => "chat",
            ClientOut::Takeback(_) => "takeback",
        }
    }
}

/// A server message at a game version: what goes on the wire.
#[derive(Clone, Debug)]
pub struct Outgoing {
    /// The game version (§3.5).
    pub v: u64,
    /// The message.
    pub msg: ClientOut,
}

impl Outgoing {
    /// `msg` at version `v`.
    pub fn new(v: u64, msg: ClientOut) -> Outgoing {
        Outgoing { v, msg }
    }

    /// The envelope as JSON text (into a buffer sized for a typical `move` event, so
    /// that it is rarely reallocated on the way).
    pub fn to_text(&self) -> String {
        let mut buf = Vec::with_capacity(1536);
        match serde_json::to_writer(&mut buf, self) {
            Ok(()) => String::from_utf8(buf).unwrap_or_default(),
            Err(_) => format!(
                r#"{{"t":"error","v":{},"d":{{"code":"internal","message":"serialisation failed","in":null}}}}"#,
                self.v
            ),
        }
    }
}

impl Serialize for Outgoing {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("t", self.msg.type_name())?;
        map.serialize_entry("v", &self.v)?;
        match &self.msg {
            ClientOut::State(d) => map.serialize_entry("d", d)?,
            ClientOut::Move(d) => map.serialize_entry("d", d)?,
            ClientOut::End(d) => map.serialize_entry("d", d)?,
            ClientOut::Draw(d) => map.serialize_entry("d", d)?,
            ClientOut::Rematch(d) => map.serialize_entry("d", d)?,
            ClientOut::Presence(d) => map.serialize_entry("d", d)?,
            ClientOut::Error(d) => map.serialize_entry("d", d)?,
            ClientOut::Pong(d) => map.serialize_entry("d", d)?,
            ClientOut::Chat(d) => map.serialize_entry("d", d)?,
            ClientOut::Takeback(d) => map.serialize_entry("d", d)?,
        }
        map.end()
    }
}

/// The game's rules.
#[derive(Clone, Debug, Serialize)]
pub struct RulesOut {
    /// `standard` / `tournament`.
    pub name: &'static str,
    /// The perpetual chase rule is on.
    pub chase_rule: bool,
    /// Who learns a captured face-down piece's identity.
    pub captured_identity: &'static str,
}

/// The time control.
#[derive(Clone, Debug, Serialize)]
pub struct TimeOut {
    /// Game time 局时.
    pub base_ms: u64,
    /// Increment per move.
    pub increment_ms: u64,
    /// Step time 步时.
    pub move_ms: Option<u64>,
}

/// The clocks as of the message.
#[derive(Clone, Debug, Serialize)]
pub struct ClockOut {
    /// Red's game time left.
    pub red_ms: u64,
    /// Black's.
    pub black_ms: u64,
    /// Whose clock runs.
    pub running: Option<&'static str>,
    /// Step time left for the running side.
    pub move_left_ms: Option<u64>,
}

/// The rematch state.
#[derive(Clone, Debug, Serialize)]
pub struct RematchOut {
    /// Who asked.
    pub offered_by: Vec<&'static str>,
    /// The new game.
    pub game: Option<String>,
    /// The receiver's link to it.
    pub url: Option<String>,
}

/// The draw offer state.
#[derive(Clone, Debug, Serialize)]
pub struct DrawOut {
    /// Who has a standing offer.
    pub offer: Option<&'static str>,
    /// Who just declined.
    pub declined_by: Option<&'static str>,
}

/// The takeback state (docs/protocol.md §3.3, `takeback`).
#[derive(Clone, Debug, Serialize)]
pub struct TakebackOut {
    /// Who has a standing request.
    pub offer: Option<&'static str>,
    /// How many plies that request would take back (1 or 2).
    pub plies: Option<u32>,
    /// Who just declined.
    pub declined_by: Option<&'static str>,
    /// How many plies were just taken back (a `state` follows with the position).
    pub taken_back: Option<u32>,
}

/// Who is here.
#[derive(Clone, Debug, Serialize)]
pub struct PresenceOut {
    /// The seats.
    pub players: ByColorOut<SeatOut>,
    /// Spectators connected.
    pub spectators: usize,
}

/// A refused message.
#[derive(Clone, Debug, Serialize)]
pub struct ErrorOut {
    /// Code.
    pub code: ErrorCode,
    /// Message.
    pub message: String,
    /// The offending message's type (`null` if it could not be read).
    #[serde(rename = "in")]
    pub in_: Option<String>,
}

/// The answer to `ping`.
#[derive(Clone, Debug, Serialize)]
pub struct PongOut {
    /// The ping's `ts`, echoed.
    pub ts: Option<Value>,
}

/// The full game as one viewer may see it.
#[derive(Clone, Debug, Serialize)]
pub struct StateOut {
    /// Game id.
    pub game: String,
    /// `red`, `black` or `spectator`.
    pub you: &'static str,
    /// `waiting`, `live` or `finished`.
    pub status: &'static str,
    /// The rules.
    pub rules: RulesOut,
    /// The time control, `null` untimed.
    pub time: Option<TimeOut>,
    /// The seats.
    pub players: ByColorOut<SeatOut>,
    /// Rated: the end changes both players' ratings.
    pub rated: bool,
    /// Absence after which the opponent may claim the game.
    pub abandon_ms: u64,
    /// Spectators connected.
    pub spectators: usize,
    /// The deal commitment.
    pub commitment: String,
    /// The invite link (the creator's, while the friend is awaited).
    pub invite_url: Option<String>,
    /// The start position as everyone sees it.
    pub start_fen: String,
    /// Every ply as this viewer may see it.
    pub moves: Vec<PlyOut>,
    /// The position as this viewer sees it.
    pub fen: String,
    /// Side to move.
    pub turn: &'static str,
    /// In check.
    pub check: bool,
    /// Pools as this viewer knows them.
    pub pools: PoolsOut,
    /// The viewer's legal moves (if to move).
    pub legal: LegalOut,
    /// The clocks.
    pub clock: Option<ClockOut>,
    /// Who has a standing draw offer.
    pub draw_offer: Option<&'static str>,
    /// Whether takebacks may be asked for in this game (casual, two people, not a
    /// tournament game), and the standing request.
    pub takeback: TakebackStateOut,
    /// The rematch state after the end.
    pub rematch: Option<RematchOut>,
    /// The end.
    pub end: Option<EndOut>,
    /// Whether this viewer may abort the game now.
    pub abortable: bool,
    /// The first-move countdown, while a player's first move is awaited.
    pub first_move: Option<FirstMoveOut>,
    /// The chat this viewer reads.
    pub chat: ChatStateOut,
}

/// Takebacks in `state`.
#[derive(Clone, Debug, Serialize)]
pub struct TakebackStateOut {
    /// Whether this game allows takeback requests at all.
    pub allowed: bool,
    /// Who has a standing request.
    pub offer: Option<&'static str>,
    /// How many plies that request would take back.
    pub plies: Option<u32>,
}

/// A player's first move is awaited: his clock does not run yet, but if he does not
/// move by then the game is aborted (a tournament game: lost).
#[derive(Clone, Debug, Serialize)]
pub struct FirstMoveOut {
    /// Whose first move.
    pub color: &'static str,
    /// Time left for it.
    pub left_ms: u64,
}

/// One chat line.
#[derive(Clone, Debug, Serialize)]
pub struct ChatOut {
    /// `players` or `spectators`.
    pub room: &'static str,
    /// The sender's seat, `null` for a spectator.
    pub color: Option<&'static str>,
    /// The sender's account, `null` for a guest.
    pub name: Option<String>,
    /// The text (plain text: never to be read as markup).
    pub text: String,
    /// When (Unix ms).
    pub at_ms: u64,
}

/// The chat in a `state`.
#[derive(Clone, Debug, Serialize)]
pub struct ChatStateOut {
    /// The room this viewer reads and posts in (`null`: none, a player of an engine
    /// game).
    pub room: Option<&'static str>,
    /// Its lines so far (without a muted opponent's).
    pub lines: Vec<ChatOut>,
    /// A player: whether he has turned the opponent's chat off.
    pub muted: bool,
}

/// One move as one viewer may see it.
#[derive(Clone, Debug, Serialize)]
pub struct MoveOut {
    /// The ply.
    pub ply: PlyOut,
    /// The position after it.
    pub fen: String,
    /// Side to move.
    pub turn: &'static str,
    /// In check.
    pub check: bool,
    /// Pools.
    pub pools: PoolsOut,
    /// The viewer's legal moves (if to move).
    pub legal: LegalOut,
    /// The clocks.
    pub clock: Option<ClockOut>,
    /// `live` or `finished`.
    pub status: &'static str,
    /// Who has a standing draw offer.
    pub draw_offer: Option<&'static str>,
    /// Whether this viewer may abort the game now.
    pub abortable: bool,
    /// The first-move countdown, while a player's first move is awaited.
    pub first_move: Option<FirstMoveOut>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_is_t_v_d_in_this_order() {
        let text = Outgoing::new(
            21,
            ClientOut::Error(ErrorOut {
                code: ErrorCode::IllegalMove,
                message: "h2h5 is not a legal move here".into(),
                in_: Some("move".into()),
            }),
        )
        .to_text();
        assert_eq!(
            text,
            r#"{"t":"error","v":21,"d":{"code":"illegal_move","message":"h2h5 is not a legal move here","in":"move"}}"#
        );
        let pong = Outgoing::new(0, ClientOut::Pong(PongOut { ts: None })).to_text();
        assert_eq!(pong, r#"{"t":"pong","v":0,"d":{"ts":null}}"#);
    }
}
