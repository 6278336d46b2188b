//! User names: what a name may be, and the key that makes names unique regardless of
//! case.

use std::fmt;

/// The shortest name.
pub const MIN_LEN: usize = 3;
/// The longest name.
pub const MAX_LEN: usize = 20;

/// Names nobody may take: what the pages show for guests and engines, and words
/// that would read as the server speaking.
const RESERVED: [&str; 6] = ["anonymous", "engine", "admin", "system", "jieqi", "me"];

/// A valid user name, as its owner spelled it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UserName(String);

/// Why a name was refused; each message says what to change.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Too short or too long.
    #[error("a user name has {MIN_LEN} to {MAX_LEN} characters ({0} given)")]
    Length(usize),
    /// A character outside `A–Z a–z 0–9 _ -`.
    #[error(
        "a user name may contain only the letters A-Z and a-z, digits, '_' and '-' (not {0:?})"
    )]
    Character(char),
    /// Not starting with a letter.
    #[error("a user name starts with a letter")]
    Start,
    /// Ending with `_` or `-`, or two of them in a row.
    #[error("'_' and '-' go between letters or digits: not at the end, not two in a row")]
    Separator,
    /// A reserved word.
    #[error("the name {0:?} is reserved")]
    Reserved(String),
}

impl UserName {
    /// Checks a name: 3–20 characters from `A–Z a–z 0–9 _ -`, starting with a letter,
    /// `_` and `-` only between letters or digits, not a reserved word.
    pub fn parse(s: &str) -> Result<UserName, NameError> {
        let len = s.chars().count();
        if !(MIN_LEN..=MAX_LEN).contains(&len) {
            return Err(NameError::Length(len));
        }
        if let Some(c) = s
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
        {
            return Err(NameError::Character(c));
        }
        if !s.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return Err(NameError::Start);
        }
        let sep = |c: char| c == '_' || c == '-';
        if s.ends_with(sep)
            || s.as_bytes()
                .windows(2)
                .any(|w| sep(w[0].into()) && sep(w[1].into()))
        {
            return Err(NameError::Separator);
        }
        let name = UserName(s.to_string());
        if RESERVED.contains(&name.key().as_str()) {
            return Err(NameError::Reserved(s.to_string()));
        }
        Ok(name)
    }

    /// The name as its owner spelled it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The unique key: the name in lower case (`Xiangqi_Fan` and `xiangqi_fan` are one
    /// account).
    pub fn key(&self) -> String {
        key_of(&self.0)
    }
}

/// The key of any text that may name a user (lookups by a name from a URL).
pub fn key_of(s: &str) -> String {
    s.to_ascii_lowercase()
}

impl fmt::Display for UserName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_names() {
        for n in [
            "abc",
            "Xiangqi_Fan",
            "red-7",
            "a1b2c3",
            "ABCDEFGHIJKLMNOPQRST",
        ] {
            assert_eq!(UserName::parse(n).unwrap().as_str(), n);
        }
        assert_eq!(UserName::parse("Xiangqi_Fan").unwrap().key(), "xiangqi_fan");
        assert_eq!(
            UserName::parse("RED").unwrap().key(),
            UserName::parse("red").unwrap().key()
        );
    }

    #[test]
    fn bad_names_say_why() {
        assert_eq!(UserName::parse("ab"), Err(NameError::Length(2)));
        assert_eq!(UserName::parse(""), Err(NameError::Length(0)));
        assert_eq!(
            UserName::parse("abcdefghijklmnopqrstu"),
            Err(NameError::Length(21))
        );
        assert_eq!(UserName::parse("a b"), Err(NameError::Character(' ')));
        assert_eq!(UserName::parse("棋手甲"), Err(NameError::Character('棋')));
        assert_eq!(UserName::parse("<b>x</b>"), Err(NameError::Character('<')));
        assert_eq!(UserName::parse("7up"), Err(NameError::Start));
        assert_eq!(UserName::parse("_abc"), Err(NameError::Start));
        assert_eq!(UserName::parse("abc_"), Err(NameError::Separator));
        assert_eq!(UserName::parse("ab__c"), Err(NameError::Separator));
        assert_eq!(UserName::parse("ab-_c"), Err(NameError::Separator));
        assert!(matches!(
            UserName::parse("Anonymous"),
            Err(NameError::Reserved(_))
        ));
        assert!(matches!(
            UserName::parse("ENGINE"),
            Err(NameError::Reserved(_))
        ));
        // Every message is something a user can act on.
        assert!(NameError::Length(2).to_string().contains("3 to 20"));
    }
}
