//! The lobby socket's messages (`/ws/lobby`, docs/protocol.md §8): the seek list pushed
//! to every lobby, and seeking, accepting and cancelling. The same `{t, d, v}`
//! envelope and limits as the game socket (§3), with its own types and error codes.

use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::MAX_MESSAGE_BYTES;
use super::out::PongOut;

/// A client message on the lobby socket.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "t", content = "d", rename_all = "snake_case")]
pub enum LobbyIn {
    /// Seek a game (a time-control tile, or the custom form).
    Seek {
        /// Game time 局时 `"M+S"` (a seek needs a clock).
        time: String,
        /// Step time 步时 in seconds.
        #[serde(default)]
        move_time: Option<u64>,
        /// Rated (needs an account).
        #[serde(default)]
        rated: bool,
        /// `red`, `black` or `random` (absent: random).
        #[serde(default)]
        color: Option<String>,
        /// The widest rating difference accepted, `null` for anyone.
        #[serde(default)]
        range: Option<u32>,
    },
    /// Withdraw one's seek.
    Cancel {
        /// The seek.
        id: String,
    },
    /// Take someone's seek.
    Accept {
        /// The seek.
        id: String,
    },
    /// Ping.
    Ping {
        /// Echoed.
        #[serde(default)]
        ts: Option<Value>,
    },
}

impl LobbyIn {
    /// The message's `t`.
    pub fn type_name(&self) -> &'static str {
        match self {
            LobbyIn::Seek { .. } => "seek",
            LobbyIn::Cancel { .. } => "cancel",
            LobbyIn::Accept { .. } => "accept",
            LobbyIn::Ping { .. } => "ping",
        }
    }
}

/// Every reason a lobby message is refused (`error.code`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LobbyErrorCode {
    /// Not a JSON `{t, d, v}` envelope (or a binary frame).
    BadJson,
    /// An unknown `t`.
    UnknownType,
    /// `d` does not fit the type (the message names the field).
    BadData,
    /// Over [`MAX_MESSAGE_BYTES`].
    TooLarge,
    /// Over the connection's message rate.
    RateLimited,
    /// Rated seeks, rating ranges and accepting them need an account.
    LoginRequired,
    /// The player has as many seeks waiting as he may.
    TooManySeeks,
    /// The seek list is full.
    PoolFull,
    /// No such seek (taken, cancelled, or never there).
    NoSeek,
    /// Accepting one's own seek.
    OwnSeek,
    /// The acceptor's rating is outside the seek's range.
    OutOfRange,
    /// The server failed (nothing changed).
    Internal,
}

/// A refused lobby message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LobbyError {
    /// Machine code.
    pub code: LobbyErrorCode,
    /// Human message.
    pub message: String,
}

impl LobbyError {
    /// A new error.
    pub fn new(code: LobbyErrorCode, message: impl Into<String>) -> LobbyError {
        LobbyError {
            code,
            message: message.into(),
        }
    }

    /// This error as the `error` message answering a message of type `in_`.
    pub fn to_out(&self, in_: Option<&str>) -> LobbyOut {
        LobbyOut::Error(LobbyErrorOut {
            code: self.code,
            message: self.message.clone(),
            in_: in_.map(str::to_string),
        })
    }
}

/// What a message type carries in `d`.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Data {
    Required,
    Optional,
}

const TYPES: [(&str, Data); 4] = [
    ("seek", Data::Required),
    ("cancel", Data::Required),
    ("accept", Data::Required),
    ("ping", Data::Optional),
];

#[derive(Deserialize)]
struct EnvelopeIn {
    t: String,
    #[serde(default)]
    d: Option<Value>,
}

/// Reads one text message of the lobby socket. On error, also returns the `t` if it
/// could be read.
pub fn parse(text: &str) -> Result<LobbyIn, (Option<String>, LobbyError)> {
    use LobbyErrorCode as C;
    if text.len() > MAX_MESSAGE_BYTES {
        let e = format!("messages are at most {MAX_MESSAGE_BYTES} bytes");
        return Err((None, LobbyError::new(C::TooLarge, e)));
    }
    let env: EnvelopeIn = serde_json::from_str(text).map_err(|e| {
        let e = format!("not a {{t, d, v}} JSON envelope: {e}");
        (None, LobbyError::new(C::BadJson, e))
    })?;
    let Some(&(_, shape)) = TYPES.iter().find(|(name, _)| *name == env.t) else {
        let shown: String = env.t.chars().take(32).collect();
        let e = format!("unknown lobby message type {shown:?}");
        return Err((Some(env.t), LobbyError::new(C::UnknownType, e)));
    };
    let mut tagged = Map::new();
    tagged.insert("t".into(), Value::String(env.t.clone()));
    match (shape, env.d) {
        (_, Some(d @ Value::Object(_))) => {
            tagged.insert("d".into(), d);
        }
        (Data::Required, _) => {
            let e = format!("{}: d must be an object", env.t);
            return Err((Some(env.t), LobbyError::new(C::BadData, e)));
        }
        (Data::Optional, _) => {
            tagged.insert("d".into(), Value::Object(Map::new()));
        }
    }
    serde_json::from_value(Value::Object(tagged)).map_err(|e| {
        let e = format!("{}: {e}", env.t);
        (Some(env.t), LobbyError::new(C::BadData, e))
    })
}

/// A server message on the lobby socket.
#[derive(Clone, Debug)]
pub enum LobbyOut {
    /// The whole seek list (sent first).
    Seeks(SeeksOut),
    /// A seek joined the list.
    SeekAdded(SeekOut),
    /// A seek left the list.
    SeekRemoved(SeekRemovedOut),
    /// The receiver was paired: the new game and its seat link.
    Paired(PairedOut),
    /// A message was refused.
    Error(LobbyErrorOut),
    /// The answer to `ping`.
    Pong(PongOut),
}

impl LobbyOut {
    /// The envelope's `t`.
    pub fn type_name(&self) -> &'static str {
        match self {
            LobbyOut::Seeks(_) => "seeks",
            LobbyOut::SeekAdded(_) => "seek_added",
            LobbyOut::SeekRemoved(_) => "seek_removed",
            LobbyOut::Paired(_) => "paired",
            LobbyOut::Error(_) => "error",
            LobbyOut::Pong(_) => "pong",
        }
    }

    /// The envelope `{t, v, d}` as JSON text, `v` being the seek list's version.
    pub fn to_text(&self, v: u64) -> String {
        serde_json::to_string(&Envelope { v, msg: self }).unwrap_or_else(|_| {
            format!(
                r#"{{"t":"error","v":{v},"d":{{"code":"internal","message":"serialisation failed","in":null}}}}"#
            )
        })
    }
}

struct Envelope<'a> {
    v: u64,
    msg: &'a LobbyOut,
}

impl Serialize for Envelope<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("t", self.msg.type_name())?;
        map.serialize_entry("v", &self.v)?;
        match self.msg {
            LobbyOut::Seeks(d) => map.serialize_entry("d", d)?,
            LobbyOut::SeekAdded(d) => map.serialize_entry("d", d)?,
            LobbyOut::SeekRemoved(d) => map.serialize_entry("d", d)?,
            LobbyOut::Paired(d) => map.serialize_entry("d", d)?,
            LobbyOut::Error(d) => map.serialize_entry("d", d)?,
            LobbyOut::Pong(d) => map.serialize_entry("d", d)?,
        }
        map.end()
    }
}

/// One seek of the list, as one receiver sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeekOut {
    /// Its id (for `accept` and `cancel`).
    pub id: String,
    /// The seeker's user name, `null` for a guest.
    pub name: Option<String>,
    /// The seeker's rating in the seek's category, `null` for a guest.
    pub rating: Option<i32>,
    /// That rating is provisional.
    pub provisional: bool,
    /// Game time `"M+S"`.
    pub time: String,
    /// Step time 步时 in seconds.
    pub move_time: Option<u64>,
    /// Rated.
    pub rated: bool,
    /// The seeker's colour: `red`, `black` or `random`.
    pub color: &'static str,
    /// The rating range (±), `null` for anyone.
    pub range: Option<u32>,
    /// The time control's category.
    pub category: &'static str,
    /// The receiver's own seek.
    pub own: bool,
}

/// The whole list.
#[derive(Clone, Debug, Serialize)]
pub struct SeeksOut {
    /// Oldest first.
    pub seeks: Vec<SeekOut>,
}

/// A seek that left the list.
#[derive(Clone, Debug, Serialize)]
pub struct SeekRemovedOut {
    /// Its id.
    pub id: String,
}

/// A pairing, as one of the two players learns it.
#[derive(Clone, Debug, Serialize)]
pub struct PairedOut {
    /// The seek that was taken.
    pub seek: String,
    /// The new game.
    pub game: String,
    /// The receiver's colour.
    pub color: &'static str,
    /// The receiver's seat link (`/game/{id}?seat=TOKEN`).
    pub url: String,
    /// Rated.
    pub rated: bool,
}

/// A refused message.
#[derive(Clone, Debug, Serialize)]
pub struct LobbyErrorOut {
    /// Code.
    pub code: LobbyErrorCode,
    /// Message.
    pub message: String,
    /// The offending message's type (`null` if it could not be read).
    #[serde(rename = "in")]
    pub in_: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_lobby_message() {
        let s = parse(r#"{"t":"seek","d":{"time":"3+2"}}"#).unwrap();
        assert_eq!(
            s,
            LobbyIn::Seek {
                time: "3+2".into(),
                move_time: None,
                rated: false,
                color: None,
                range: None
            }
        );
        let s = parse(
            r#"{"t":"seek","d":{"time":"10+0","move_time":60,"rated":true,"color":"red","range":200}}"#,
        )
        .unwrap();
        assert_eq!(s.type_name(), "seek");
        assert_eq!(
            parse(r#"{"t":"accept","d":{"id":"s1"}}"#).unwrap(),
            LobbyIn::Accept { id: "s1".into() }
        );
        assert_eq!(
            parse(r#"{"t":"cancel","d":{"id":"s1"}}"#).unwrap(),
            LobbyIn::Cancel { id: "s1".into() }
        );
        assert_eq!(
            parse(r#"{"t":"ping"}"#).unwrap(),
            LobbyIn::Ping { ts: None }
        );
    }

    #[test]
    fn refuses_hostile_messages_with_codes() {
        use LobbyErrorCode as C;
        let code = |text: &str| parse(text).unwrap_err().1.code;
        assert_eq!(code("nope"), C::BadJson);
        assert_eq!(code(r#"{"t":"join","d":{}}"#), C::UnknownType);
        assert_eq!(code(r#"{"t":"seek"}"#), C::BadData);
        assert_eq!(code(r#"{"t":"seek","d":[1]}"#), C::BadData);
        assert_eq!(code(r#"{"t":"seek","d":{}}"#), C::BadData);
        assert_eq!(code(r#"{"t":"seek","d":{"time":3}}"#), C::BadData);
        assert_eq!(
            code(r#"{"t":"seek","d":{"time":"3+2","range":-100}}"#),
            C::BadData
        );
        assert_eq!(
            code(r#"{"t":"seek","d":{"time":"3+2","rated":"yes"}}"#),
            C::BadData
        );
        assert_eq!(code(r#"{"t":"accept","d":{"id":7}}"#), C::BadData);
        let big = format!(r#"{{"t":"accept","d":{{"id":"{}"}}}}"#, "x".repeat(5000));
        assert_eq!(code(&big), C::TooLarge);
        let (t, e) = parse(r#"{"t":"seek","d":{"time":"3+2","range":1e30}}"#).unwrap_err();
        assert_eq!(t.as_deref(), Some("seek"));
        assert!(e.message.contains("seek"), "{}", e.message);
    }

    #[test]
    fn envelope_is_t_v_d() {
        let out = LobbyOut::SeekRemoved(SeekRemovedOut { id: "s4".into() });
        assert_eq!(
            out.to_text(7),
            r#"{"t":"seek_removed","v":7,"d":{"id":"s4"}}"#
        );
        let e = LobbyError::new(LobbyErrorCode::OwnSeek, "this seek is your own");
        assert_eq!(
            e.to_out(Some("accept")).to_text(0),
            r#"{"t":"error","v":0,"d":{"code":"own_seek","message":"this seek is your own","in":"accept"}}"#
        );
    }
}
