//! The WebSocket protocol's messages (docs/protocol.md §3): the `{t, d, v}` envelope,
//! the typed client messages ([`ClientIn`]), the typed server messages
//! ([`ClientOut`], in [`out`]) and the one list of error codes ([`ErrorCode`]).

/// The protocol's version (docs/protocol.md): 2 since accounts, when state-changing
/// HTTP requests began to need the CSRF token; 3 since aborted games (result `*`) and
/// chat; 4 since takeback requests (`takeback`, `accept_takeback`, `decline_takeback`,
/// the `takeback` event and `state.takeback`).
pub const VERSION: u32 = 4;

pub mod lobby;
pub mod out;

pub use out::{ClientOut, Outgoing};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::chat::ChatRoom;

/// The largest text message a client may send.
pub const MAX_MESSAGE_BYTES: usize = 4096;

/// A client message, read (the envelope's `t` names the variant, `d` holds its data).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "t", content = "d", rename_all = "snake_case")]
pub enum ClientIn {
    /// Attach to a game, as the seat of `token` or as a spectator.
    Join {
        /// Game id.
        game: String,
        /// Seat token.
        #[serde(default)]
        token: Option<String>,
        /// Only follow the game with the seat's view (the analysis board): the
        /// connection neither counts as the seat's presence nor may act for it.
        #[serde(default)]
        watch: bool,
    },
    /// Play a move.
    Move {
        /// Coordinate text.
        uci: String,
    },
    /// Resign.
    Resign,
    /// Offer a draw.
    OfferDraw,
    /// Accept the standing offer.
    AcceptDraw,
    /// Decline the standing offer.
    DeclineDraw,
    /// Offer or accept a rematch.
    Rematch,
    /// Claim the win against an absent opponent.
    ClaimAbandonment,
    /// Ping.
    Ping {
        /// Echoed.
        #[serde(default)]
        ts: Option<Value>,
    },
    /// Ask for a fresh state.
    Sync,
    /// Abort the game (before both players have moved).
    Abort,
    /// Say something in a chat room.
    Chat {
        /// `players` or `spectators`.
        room: ChatRoom,
        /// The line.
        text: String,
    },
    /// Turn the opponent's chat off (`true`) or on again.
    ChatMute {
        /// Off or on.
        muted: bool,
    },
    /// Ask to take back one's last move (and the opponent's reply, if he has made it);
    /// accepts the opponent's standing request instead, if he made one.
    Takeback,
    /// Accept the opponent's takeback request.
    AcceptTakeback,
    /// Decline the opponent's takeback request.
    DeclineTakeback,
}

/// What a message type carries in `d`.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Data {
    /// An object that must be there.
    Required,
    /// An optional object (anything else counts as absent).
    Optional,
    /// Nothing: whatever is sent is ignored.
    Ignored,
}

/// Every client message type with the shape of its data.
const TYPES: [(&str, Data); 16] = [
    ("join", Data::Required),
    ("move", Data::Required),
    ("resign", Data::Ignored),
    ("offer_draw", Data::Ignored),
    ("accept_draw", Data::Ignored),
    ("decline_draw", Data::Ignored),
    ("rematch", Data::Ignored),
    ("claim_abandonment", Data::Ignored),
    ("ping", Data::Optional),
    ("sync", Data::Ignored),
    ("abort", Data::Ignored),
    ("chat", Data::Required),
    ("chat_mute", Data::Required),
    ("takeback", Data::Ignored),
    ("accept_takeback", Data::Ignored),
    ("decline_takeback", Data::Ignored),
];

impl ClientIn {
    /// The message's `t` (for `error.in` and the log).
    pub fn type_name(&self) -> &'static str {
        match self {
            ClientIn::Join { .. } => "join",
            ClientIn::Move { .. } => "move",
            ClientIn::Resign => "resign",
            ClientIn::OfferDraw => "offer_draw",
            ClientIn::AcceptDraw => "accept_draw",
            ClientIn::DeclineDraw => "decline_draw",
            ClientIn::Rematch => "rematch",
            ClientIn::ClaimAbandonment => "claim_abandonment",
            ClientIn::Ping { .. } => "ping",
            ClientIn::Sync => "sync",
            ClientIn::Abort => "abort",
            ClientIn::Chat { .. } => "chat",
            ClientIn::ChatMute { .. } => "chat_mute",
            ClientIn::Takeback => "takeback",
            ClientIn::AcceptTakeback => "accept_takeback",
            ClientIn::DeclineTakeback => "decline_takeback",
        }
    }
}

/// Every reason a client message is refused (`error.code` on the wire).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Not a JSON `{t, d, v}` envelope (or a binary frame).
    BadJson,
    /// An unknown `t`.
    UnknownType,
    /// `d` does not fit the type.
    BadData,
    /// Over [`MAX_MESSAGE_BYTES`].
    TooLarge,
    /// Over the connection's message rate.
    RateLimited,
    /// Anything but `ping` before `join`.
    NotJoined,
    /// A second `join`.
    AlreadyJoined,
    /// No such game.
    NoGame,
    /// The token holds no seat in this game.
    BadToken,
    /// A spectator tried a player's action.
    NotAPlayer,
    /// A seat is still free.
    NotStarted,
    /// The opponent is to move.
    NotYourTurn,
    /// Not a coordinate move.
    BadMove,
    /// Not a legal move here.
    IllegalMove,
    /// The game is over.
    GameOver,
    /// The move was made on an older version of the game.
    StaleVersion,
    /// No draw offer to accept or decline.
    NoDrawOffer,
    /// A rematch before the end.
    NotOver,
    /// The opponent has not been away long enough.
    NotAbandoned,
    /// A tournament game whose deal is still secret.
    Private,
    /// Too late to abort: both players have moved (or a tournament game).
    NotAbortable,
    /// Resign, a draw or an abandonment claim before both players have moved: only
    /// `abort` ends the game then.
    AbortOnly,
    /// A chat line with nothing in it.
    ChatEmpty,
    /// A chat line over the length limit.
    ChatTooLong,
    /// Not a chat room the sender may post in.
    ChatRoom,
    /// The chat room of this game holds no more lines.
    ChatFull,
    /// No takeback request to accept or decline.
    NoTakeback,
    /// A takeback this game does not allow: a rated, tournament or engine game, no
    /// move of one's own to take back, or a move that revealed an identity.
    TakebackRefused,
    /// The server failed (nothing changed).
    Internal,
}

/// Why a client message was refused: a code and a message a person can act on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtoError {
    /// Machine code.
    pub code: ErrorCode,
    /// Human message.
    pub message: String,
}

impl ProtoError {
    /// A new error.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ProtoError {
        ProtoError {
            code,
            message: message.into(),
        }
    }

    /// This error as the `error` message answering a message of type `in_`.
    pub fn to_out(&self, in_: Option<&str>) -> ClientOut {
        ClientOut::Error(out::ErrorOut {
            code: self.code,
            message: self.message.clone(),
            in_: in_.map(str::to_string),
        })
    }
}

#[derive(Deserialize)]
struct EnvelopeIn {
    t: String,
    #[serde(default)]
    d: Option<Value>,
    #[serde(default)]
    v: Option<u64>,
}

/// A client message with its envelope's version.
#[derive(Clone, Debug, PartialEq)]
pub struct Incoming {
    /// The message.
    pub msg: ClientIn,
    /// The `v` the client sent.
    pub v: Option<u64>,
}

/// Reads one text message. On error, also returns the `t` if it could be read.
pub fn parse(text: &str) -> Result<Incoming, (Option<String>, ProtoError)> {
    if text.len() > MAX_MESSAGE_BYTES {
        return Err((
            None,
            ProtoError::new(
                ErrorCode::TooLarge,
                format!("messages are at most {MAX_MESSAGE_BYTES} bytes"),
            ),
        ));
    }
    let env: EnvelopeIn = serde_json::from_str(text).map_err(|e| {
        (
            None,
            ProtoError::new(
                ErrorCode::BadJson,
                format!("not a {{t, d, v}} JSON envelope: {e}"),
            ),
        )
    })?;
    let Some(&(_, shape)) = TYPES.iter().find(|(name, _)| *name == env.t) else {
        let shown: String = env.t.chars().take(32).collect();
        return Err((
            Some(env.t),
            ProtoError::new(
                ErrorCode::UnknownType,
                format!("unknown message type {shown:?}"),
            ),
        ));
    };
    // The envelope is lenient where the types have nothing to read: data sent with a
    // type that has none is ignored, and a `ping` without an object pings without `ts`.
    let mut tagged = Map::new();
    tagged.insert("t".into(), Value::String(env.t.clone()));
    match (shape, env.d) {
        (Data::Required, Some(d @ Value::Object(_))) => {
            tagged.insert("d".into(), d);
        }
        (Data::Required, _) => {
            return Err((
                Some(env.t.clone()),
                ProtoError::new(
                    ErrorCode::BadData,
                    format!("{}: d must be an object", env.t),
                ),
            ));
        }
        (Data::Optional, Some(d @ Value::Object(_))) => {
            tagged.insert("d".into(), d);
        }
        (Data::Optional, _) => {
            tagged.insert("d".into(), Value::Object(Map::new()));
        }
        (Data::Ignored, _) => {}
    }
    let msg = serde_json::from_value(Value::Object(tagged)).map_err(|e| {
        (
            Some(env.t.clone()),
            ProtoError::new(ErrorCode::BadData, format!("{}: {e}", env.t)),
        )
    })?;
    Ok(Incoming { msg, v: env.v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_message_type() {
        let j = parse(r#"{"t":"join","d":{"game":"abcdefghij","token":null}}"#).unwrap();
        assert_eq!(
            j.msg,
            ClientIn::Join {
                game: "abcdefghij".into(),
                token: None,
                watch: false,
            }
        );
        let m = parse(r#"{"t":"move","d":{"uci":"h2e2"},"v":3}"#).unwrap();
        assert_eq!(m.msg, ClientIn::Move { uci: "h2e2".into() });
        assert_eq!(m.v, Some(3));
        for (t, want) in [
            ("resign", ClientIn::Resign),
            ("offer_draw", ClientIn::OfferDraw),
            ("accept_draw", ClientIn::AcceptDraw),
            ("decline_draw", ClientIn::DeclineDraw),
            ("rematch", ClientIn::Rematch),
            ("claim_abandonment", ClientIn::ClaimAbandonment),
            ("sync", ClientIn::Sync),
            ("abort", ClientIn::Abort),
            ("takeback", ClientIn::Takeback),
            ("accept_takeback", ClientIn::AcceptTakeback),
            ("decline_takeback", ClientIn::DeclineTakeback),
        ] {
            assert_eq!(parse(&format!(r#"{{"t":"{t}"}}"#)).unwrap().msg, want);
            assert_eq!(
                parse(&format!(r#"{{"t":"{t}","d":{{"x":1}}}}"#))
                    .unwrap()
                    .msg,
                want,
                "data of a type without data is ignored"
            );
            assert_eq!(want.type_name(), t);
        }
        let p = parse(r#"{"t":"ping","d":{"ts":12}}"#).unwrap();
        assert_eq!(
            p.msg,
            ClientIn::Ping {
                ts: Some(12.into())
            }
        );
        for bare in [r#"{"t":"ping"}"#, r#"{"t":"ping","d":5}"#] {
            assert_eq!(parse(bare).unwrap().msg, ClientIn::Ping { ts: None });
        }
        let c = parse(r#"{"t":"chat","d":{"room":"players","text":"gg"}}"#).unwrap();
        assert_eq!(
            c.msg,
            ClientIn::Chat {
                room: ChatRoom::Players,
                text: "gg".into()
            }
        );
        assert_eq!(c.msg.type_name(), "chat");
        let m = parse(r#"{"t":"chat_mute","d":{"muted":true}}"#).unwrap();
        assert_eq!(m.msg, ClientIn::ChatMute { muted: true });
        assert_eq!(m.msg.type_name(), "chat_mute");
    }

    #[test]
    fn refuses_bad_chat_messages_as_bad_data() {
        for bad in [
            r#"{"t":"chat","d":{"room":"everyone","text":"hi"}}"#,
            r#"{"t":"chat","d":{"room":"players"}}"#,
            r#"{"t":"chat","d":{"room":"players","text":5}}"#,
            r#"{"t":"chat","d":"hi"}"#,
            r#"{"t":"chat_mute","d":{"muted":"yes"}}"#,
        ] {
            assert_eq!(parse(bad).unwrap_err().1.code, ErrorCode::BadData, "{bad}");
        }
    }

    #[test]
    fn refuses_bad_messages_with_codes() {
        assert_eq!(parse("garbage").unwrap_err().1.code, ErrorCode::BadJson);
        assert_eq!(parse("[1,2]").unwrap_err().1.code, ErrorCode::BadJson);
        let (t, e) = parse(r#"{"t":"fly"}"#).unwrap_err();
        assert_eq!(
            (t.as_deref(), e.code),
            (Some("fly"), ErrorCode::UnknownType)
        );
        let (t, e) = parse(r#"{"t":"move","d":{"uci":5}}"#).unwrap_err();
        assert_eq!((t.as_deref(), e.code), (Some("move"), ErrorCode::BadData));
        assert_eq!(
            parse(r#"{"t":"join"}"#).unwrap_err().1.code,
            ErrorCode::BadData
        );
        for not_an_object in [r#"[]"#, r#"["abcdefghij"]"#, "null", "7"] {
            let text = format!(r#"{{"t":"join","d":{not_an_object}}}"#);
            assert_eq!(parse(&text).unwrap_err().1.code, ErrorCode::BadData);
        }
        let big = format!(r#"{{"t":"ping","d":{{"ts":"{}"}}}}"#, "x".repeat(5000));
        assert_eq!(parse(&big).unwrap_err().1.code, ErrorCode::TooLarge);
    }

    #[test]
    fn error_codes_are_written_as_the_protocol_names_them() {
        for (code, name) in [
            (ErrorCode::NotAPlayer, "not_a_player"),
            (ErrorCode::IllegalMove, "illegal_move"),
            (ErrorCode::StaleVersion, "stale_version"),
            (ErrorCode::BadJson, "bad_json"),
            (ErrorCode::TakebackRefused, "takeback_refused"),
            (ErrorCode::NoTakeback, "no_takeback"),
        ] {
            assert_eq!(serde_json::to_value(code).unwrap(), name);
        }
    }
}
