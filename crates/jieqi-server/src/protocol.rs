//! The WebSocket protocol's messages (docs/protocol.md): the `{t, d, v}` envelope,
//! typed client messages (`ClientIn`) and the data of server messages (`ClientOut`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The largest text message a client may send.
pub const MAX_MESSAGE_BYTES: usize = 4096;

/// A client message, read.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientIn {
    /// Attach to a game, as the seat of `token` or as a spectator.
    Join {
        /// Game id.
        game: String,
        /// Seat token.
        token: Option<String>,
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
        ts: Option<Value>,
    },
    /// Ask for a fresh state.
    Sync,
}

/// Why a client message was refused: a code from docs/protocol.md and a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtoError {
    /// Machine code (`bad_json`, `illegal_move`, …).
    pub code: &'static str,
    /// Human message.
    pub message: String,
}

impl ProtoError {
    /// A new error.
    pub fn new(code: &'static str, message: impl Into<String>) -> ProtoError {
        ProtoError {
            code,
            message: message.into(),
        }
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

#[derive(Deserialize)]
struct JoinData {
    game: String,
    #[serde(default)]
    token: Option<String>,
}

#[derive(Deserialize)]
struct MoveData {
    uci: String,
}

/// A client message with its envelope's type and version.
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
                "too_large",
                format!("messages are at most {MAX_MESSAGE_BYTES} bytes"),
            ),
        ));
    }
    let env: EnvelopeIn = serde_json::from_str(text).map_err(|e| {
        (
            None,
            ProtoError::new("bad_json", format!("not a {{t, d, v}} JSON envelope: {e}")),
        )
    })?;
    let t = env.t.clone();
    let fail = |e: ProtoError| (Some(t.clone()), e);
    let data = |d: Option<Value>| d.unwrap_or(Value::Null);
    let bad = |e: serde_json::Error| ProtoError::new("bad_data", format!("{}: {e}", env.t));
    let msg = match env.t.as_str() {
        "join" => {
            let j: JoinData = serde_json::from_value(data(env.d)).map_err(|e| fail(bad(e)))?;
            ClientIn::Join {
                game: j.game,
                token: j.token,
            }
        }
        "move" => {
            let m: MoveData = serde_json::from_value(data(env.d)).map_err(|e| fail(bad(e)))?;
            ClientIn::Move { uci: m.uci }
        }
        "resign" => ClientIn::Resign,
        "offer_draw" => ClientIn::OfferDraw,
        "accept_draw" => ClientIn::AcceptDraw,
        "decline_draw" => ClientIn::DeclineDraw,
        "rematch" => ClientIn::Rematch,
        "claim_abandonment" => ClientIn::ClaimAbandonment,
        "ping" => ClientIn::Ping {
            ts: env.d.and_then(|d| d.get("ts").cloned()),
        },
        "sync" => ClientIn::Sync,
        other => {
            let shown: String = other.chars().take(32).collect();
            return Err(fail(ProtoError::new(
                "unknown_type",
                format!("unknown message type {shown:?}"),
            )));
        }
    };
    Ok(Incoming { msg, v: env.v })
}

/// The type name of a client message (for `error.in`).
pub fn type_name(m: &ClientIn) -> &'static str {
    match m {
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
    }
}

#[derive(Serialize)]
struct EnvelopeOut<'a, T: Serialize> {
    t: &'a str,
    v: u64,
    d: T,
}

/// Serialises a server message (into a buffer sized for a typical `move` event, so
/// that it is rarely reallocated on the way).
pub fn envelope<T: Serialize>(t: &str, v: u64, d: T) -> String {
    let mut buf = Vec::with_capacity(1536);
    serde_json::to_writer(&mut buf, &EnvelopeOut { t, v, d })
        .map_err(|e| e.to_string())
        .and_then(|()| String::from_utf8(buf).map_err(|e| e.to_string()))
        .unwrap_or_else(|_| format!(r#"{{"t":"error","v":{v},"d":{{"code":"internal","message":"serialisation failed","in":null}}}}"#))
}

/// The data of an `error`.
#[derive(Serialize)]
pub struct ErrorOut<'a> {
    /// Code.
    pub code: &'a str,
    /// Message.
    pub message: &'a str,
    /// The offending message's type.
    #[serde(rename = "in")]
    pub in_: Option<&'a str>,
}

/// An `error` message.
pub fn error_message(v: u64, e: &ProtoError, in_: Option<&str>) -> String {
    envelope(
        "error",
        v,
        ErrorOut {
            code: e.code,
            message: &e.message,
            in_,
        },
    )
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
                token: None
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
        ] {
            assert_eq!(parse(&format!(r#"{{"t":"{t}"}}"#)).unwrap().msg, want);
            assert_eq!(type_name(&want), t);
        }
        let p = parse(r#"{"t":"ping","d":{"ts":12}}"#).unwrap();
        assert_eq!(
            p.msg,
            ClientIn::Ping {
                ts: Some(12.into())
            }
        );
    }

    #[test]
    fn refuses_bad_messages_with_codes() {
        assert_eq!(parse("garbage").unwrap_err().1.code, "bad_json");
        assert_eq!(parse("[1,2]").unwrap_err().1.code, "bad_json");
        assert_eq!(parse(r#"{"t":"fly"}"#).unwrap_err().1.code, "unknown_type");
        let (t, e) = parse(r#"{"t":"move","d":{"uci":5}}"#).unwrap_err();
        assert_eq!((t.as_deref(), e.code), (Some("move"), "bad_data"));
        assert_eq!(parse(r#"{"t":"join"}"#).unwrap_err().1.code, "bad_data");
        let big = format!(r#"{{"t":"ping","d":{{"ts":"{}"}}}}"#, "x".repeat(5000));
        assert_eq!(parse(&big).unwrap_err().1.code, "too_large");
    }
}
