//! Request bodies, as every JSON route reads them: at most [`BODY_LIMIT`] bytes, and a
//! JSON object where an object is expected (a `[]` is not an empty `{}`).

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::StatusCode;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The largest request body accepted (`413 too_large` past it).
pub const BODY_LIMIT: usize = 16 * 1024;

/// Why a request body was refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum BodyError {
    /// Over [`BODY_LIMIT`].
    #[error("request bodies are at most {BODY_LIMIT} bytes")]
    TooLarge,
    /// Unreadable, not JSON, not an object or not the expected fields.
    #[error("{0}")]
    Bad(String),
}

/// The body's bytes.
pub fn bytes(body: Result<Bytes, BytesRejection>) -> Result<Bytes, BodyError> {
    body.map_err(|e| match e.status() {
        StatusCode::PAYLOAD_TOO_LARGE => BodyError::TooLarge,
        _ => BodyError::Bad(format!("request body: {e}")),
    })
}

/// A JSON object read as `T`. Read as a value first: serde would otherwise take a JSON
/// array for a struct (`[]` as `{}` with every field defaulted).
pub fn json_object<T: DeserializeOwned>(body: &[u8]) -> Result<T, BodyError> {
    let bad = |e: serde_json::Error| BodyError::Bad(format!("request body: {e}"));
    match serde_json::from_slice::<Value>(body).map_err(bad)? {
        v @ Value::Object(_) => serde_json::from_value(v).map_err(bad),
        other => Err(BodyError::Bad(format!(
            "request body: expected a JSON object, found {}",
            match other {
                Value::Array(_) => "an array",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                Value::Bool(_) => "a boolean",
                _ => "null",
            }
        ))),
    }
}

/// A JSON object read as `T`; an empty body (or only whitespace) gives the defaults.
pub fn json_object_or_default<T: DeserializeOwned + Default>(body: &[u8]) -> Result<T, BodyError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    json_object(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Default, Debug, PartialEq)]
    #[serde(default)]
    struct Req {
        name: Option<String>,
    }

    #[test]
    fn only_objects_are_objects() {
        assert_eq!(
            json_object::<Req>(br#"{"name":"x"}"#)
                .unwrap()
                .name
                .as_deref(),
            Some("x")
        );
        for not_an_object in ["[]", r#"["x"]"#, "null", "3", r#""x""#, "true"] {
            let e = json_object::<Req>(not_an_object.as_bytes()).unwrap_err();
            assert!(
                matches!(&e, BodyError::Bad(m) if m.contains("expected a JSON object")),
                "{not_an_object}: {e:?}"
            );
        }
        assert_eq!(
            json_object_or_default::<Req>(b"  ").unwrap(),
            Req::default()
        );
        assert!(json_object_or_default::<Req>(b"[]").is_err());
        assert!(json_object::<Req>(b"{").is_err());
    }
}
