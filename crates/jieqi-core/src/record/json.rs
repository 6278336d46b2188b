//! JSON values that keep the order of their keys, written the way JavaScript's
//! `JSON.stringify(value, null, 2)` (or, compact, `JSON.stringify(value)`) writes them:
//! JieqiBox saves its records so, and a record read and written back unchanged should
//! come out byte for byte.

use serde::Deserialize;
use serde::de::{self, MapAccess, SeqAccess, Visitor};

/// A JSON value whose objects keep their keys in the order read.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number that is an integer.
    Int(i128),
    /// Any other number.
    Float(f64),
    /// A string.
    Str(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, keys in order.
    Object(Vec<(String, Json)>),
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Json;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_none<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
                Ok(Json::Bool(b))
            }
            fn visit_i64<E>(self, n: i64) -> Result<Json, E> {
                Ok(Json::Int(i128::from(n)))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Json, E> {
                Ok(Json::Int(i128::from(n)))
            }
            fn visit_f64<E>(self, n: f64) -> Result<Json, E> {
                Ok(Json::Float(n))
            }
            fn visit_str<E>(self, s: &str) -> Result<Json, E> {
                Ok(Json::Str(s.to_string()))
            }
            fn visit_string<E>(self, s: String) -> Result<Json, E> {
                Ok(Json::Str(s))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Json, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = a.next_element()? {
                    v.push(x);
                }
                Ok(Json::Array(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Json, A::Error> {
                let mut v: Vec<(String, Json)> = Vec::new();
                while let Some((k, x)) = a.next_entry::<String, Json>()? {
                    // JavaScript keeps the last value of a repeated key, in the first place.
                    match v.iter_mut().find(|(key, _)| *key == k) {
                        Some(slot) => slot.1 = x,
                        None => v.push((k, x)),
                    }
                }
                Ok(Json::Object(v))
            }
        }
        d.deserialize_any(V)
    }
}

impl Json {
    /// Reads JSON text.
    pub(crate) fn parse(text: &str) -> Result<Json, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// A number as JavaScript holds it: integers as integers, other numbers as floats.
    pub(crate) fn number(x: f64) -> Json {
        if x.fract() == 0.0 && x.abs() < 1e18 {
            Json::Int(x as i128)
        } else {
            Json::Float(x)
        }
    }

    /// The string, if this is one.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub(crate) fn as_f64(&self) -> Option<f64> {
        match *self {
            Json::Int(n) => Some(n as f64),
            Json::Float(x) => Some(x),
            _ => None,
        }
    }

    /// The integer, if this is a non-negative one that fits.
    pub(crate) fn as_u64(&self) -> Option<u64> {
        match *self {
            Json::Int(n) => u64::try_from(n).ok(),
            _ => None,
        }
    }

    /// The text on one line, as `JSON.stringify(value)`.
    pub(crate) fn compact(&self) -> String {
        let mut s = String::new();
        self.write(&mut s, None, 0);
        s
    }

    /// The text, indented by two spaces per level unless `compact`.
    pub(crate) fn to_text(&self, compact: bool) -> String {
        let mut s = String::new();
        self.write(&mut s, (!compact).then_some(2), 0);
        s
    }

    fn write(&self, out: &mut String, indent: Option<usize>, depth: usize) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(n) => out.push_str(&n.to_string()),
            Json::Float(x) => out.push_str(&js_float(*x)),
            Json::Str(s) => out.push_str(&quote(s)),
            Json::Array(v) => {
                write_items(out, indent, depth, '[', ']', v.iter().map(|x| (None, x)));
            }
            Json::Object(v) => {
                write_items(
                    out,
                    indent,
                    depth,
                    '{',
                    '}',
                    v.iter().map(|(k, x)| (Some(k.as_str()), x)),
                );
            }
        }
    }
}

fn write_items<'a>(
    out: &mut String,
    indent: Option<usize>,
    depth: usize,
    open: char,
    close: char,
    items: impl ExactSizeIterator<Item = (Option<&'a str>, &'a Json)>,
) {
    out.push(open);
    let empty = items.len() == 0;
    for (i, (key, x)) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        if let Some(w) = indent {
            out.push('\n');
            out.push_str(&" ".repeat(w * (depth + 1)));
        }
        if let Some(k) = key {
            out.push_str(&quote(k));
            out.push(':');
            if indent.is_some() {
                out.push(' ');
            }
        }
        x.write(out, indent, depth + 1);
    }
    if let (Some(w), false) = (indent, empty) {
        out.push('\n');
        out.push_str(&" ".repeat(w * depth));
    }
    out.push(close);
}

/// A string in quotes with JSON's escapes (the same as JavaScript's: `\"`, `\\`, `\b`,
/// `\f`, `\n`, `\r`, `\t`, other control characters as `\u00xx`, nothing else).
pub(crate) fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{}\"", s.escape_default()))
}

/// A float the way JavaScript writes it: the shortest text that reads back exactly,
/// integers without a fraction, exponents from 1e21 and below 1e-6.
fn js_float(x: f64) -> String {
    if !x.is_finite() {
        return "null".into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let a = x.abs();
    if (1e-6..1e21).contains(&a) {
        // Rust's `Display` for f64 is the shortest round-trip text without an exponent.
        let s = format!("{x}");
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    } else {
        // `{:e}` gives "1.5e-7" / "1e21"; JavaScript writes "1.5e-7" / "1e+21".
        let s = format!("{x:e}");
        match s.split_once('e') {
            Some((m, e)) if !e.starts_with('-') => format!("{m}e+{e}"),
            _ => s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_as_javascript_does() {
        let text = "{\"b\":1,\"a\":[1.5,-0.25,true,null,\"x\\ny\\u0001\"],\"e\":{},\"f\":[]}";
        let v = Json::parse(text).unwrap();
        assert_eq!(v.compact(), text);
        assert_eq!(
            v.to_text(false),
            "{\n  \"b\": 1,\n  \"a\": [\n    1.5,\n    -0.25,\n    true,\n    null,\n    \"x\\ny\\u0001\"\n  ],\n  \"e\": {},\n  \"f\": []\n}"
        );
        assert_eq!(Json::number(82.0).compact(), "82");
        assert_eq!(Json::number(-29994.0).compact(), "-29994");
        assert_eq!(Json::number(0.1).compact(), "0.1");
        assert_eq!(Json::Float(1e21).compact(), "1e+21");
        assert_eq!(Json::Float(1.5e-7).compact(), "1.5e-7");
        assert_eq!(Json::parse("[1e2, 2.50]").unwrap().compact(), "[100,2.5]");
    }

    #[test]
    fn a_repeated_key_keeps_its_first_place_and_last_value() {
        let v = Json::parse("{\"a\":1,\"b\":2,\"a\":3}").unwrap();
        assert_eq!(v.compact(), "{\"a\":3,\"b\":2}");
    }
}
