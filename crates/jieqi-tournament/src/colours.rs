//! Colour rules of the Swiss system: who may take Red, who wants it, and who gets it.
//!
//! Red moves first (like White in chess). A player's colour history counts played
//! games only (byes and forfeits do not). The absolute rules: the colour difference
//! (Reds minus Blacks) stays within ±2, and nobody gets the same colour three times
//! in a row.

use jieqi_core::Color;

/// How strongly a player wants a colour.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Strength {
    /// Alternation only (colour difference 0).
    Mild,
    /// Colour difference ±1.
    Strong,
    /// The other colour would break an absolute rule.
    Absolute,
}

/// A player's colour preference: the colour wanted and how strongly.
pub type Preference = Option<(Color, Strength)>;

/// Red games minus Black games.
pub fn difference(history: &[Color]) -> i32 {
    history
        .iter()
        .map(|c| if *c == Color::Red { 1 } else { -1 })
        .sum()
}

/// Whether giving `color` next keeps the player within the absolute rules.
pub fn allowed(history: &[Color], color: Color) -> bool {
    let step = if color == Color::Red { 1 } else { -1 };
    let within = (difference(history) + step).abs() <= 2;
    let n = history.len();
    let third_in_row = n >= 2 && history[n - 1] == color && history[n - 2] == color;
    within && !third_in_row
}

/// The colour a player with this history wants next.
pub fn preference(history: &[Color]) -> Preference {
    let red_ok = allowed(history, Color::Red);
    let black_ok = allowed(history, Color::Black);
    match (red_ok, black_ok) {
        (true, false) => return Some((Color::Red, Strength::Absolute)),
        (false, true) => return Some((Color::Black, Strength::Absolute)),
        (false, false) => return None,
        (true, true) => {}
    }
    let d = difference(history);
    if d < 0 {
        Some((Color::Red, Strength::Strong))
    } else if d > 0 {
        Some((Color::Black, Strength::Strong))
    } else {
        history.last().map(|c| (!*c, Strength::Mild))
    }
}

/// Whether some colour allocation lets both players keep the absolute rules.
pub fn compatible(a: &[Color], b: &[Color]) -> bool {
    (allowed(a, Color::Red) && allowed(b, Color::Black))
        || (allowed(a, Color::Black) && allowed(b, Color::Red))
}

/// Whether the allocation [`allocate`] makes gives both players the colour they want.
pub fn both_satisfied(a: &[Color], b: &[Color], default_for_a: Color) -> bool {
    let a_color = allocate(a, b, default_for_a);
    let ok = |h: &[Color], c: Color| preference(h).is_none_or(|(want, _)| want == c);
    ok(a, a_color) && ok(b, !a_color)
}

/// The colour of player `a` (the higher ranked) against `b`.
///
/// In order: the only allocation within the absolute rules; both preferences if they
/// agree; the stronger preference; alternation from the latest game in which the two
/// had different colours; the higher-ranked player's preference; `default_for_a`.
pub fn allocate(a: &[Color], b: &[Color], default_for_a: Color) -> Color {
    let a_red = allowed(a, Color::Red) && allowed(b, Color::Black);
    let a_black = allowed(a, Color::Black) && allowed(b, Color::Red);
    match (a_red, a_black) {
        (true, false) => return Color::Red,
        (false, true) => return Color::Black,
        _ => {}
    }
    match (preference(a), preference(b)) {
        (None, None) => default_for_a,
        (Some((ca, _)), None) => ca,
        (None, Some((cb, _))) => !cb,
        (Some((ca, sa)), Some((cb, sb))) => {
            if ca != cb || sa > sb {
                ca
            } else if sb > sa {
                !cb
            } else {
                // Both want the same colour equally: alternate from the latest game in
                // which they had different colours; the player who had Red then gets
                // Black now.
                for (x, y) in a.iter().rev().zip(b.iter().rev()) {
                    if x != y {
                        return !*x;
                    }
                }
                ca
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Color::{Black as B, Red as R};

    #[test]
    fn absolute_rules() {
        assert!(!allowed(&[R, R], R));
        assert!(allowed(&[R, R], B));
        assert!(!allowed(&[R, B, R, R], R));
        assert!(!allowed(&[R, R, B, R], R), "difference would be +3");
        assert!(allowed(&[B, R], R));
        assert_eq!(preference(&[R, R]), Some((B, Strength::Absolute)));
        assert_eq!(preference(&[R]), Some((B, Strength::Strong)));
        assert_eq!(preference(&[R, B]), Some((R, Strength::Mild)));
        assert_eq!(preference(&[]), None);
        assert!(!compatible(&[R, R], &[B, R, R]));
        assert!(compatible(&[R, R], &[B, B]));
    }

    #[test]
    fn allocation_order() {
        // Opposite wishes: both granted.
        assert_eq!(allocate(&[R], &[B], B), B);
        // Stronger preference wins: a mild (wants Red), b strong (wants Red).
        assert_eq!(allocate(&[R, B], &[B], R), B);
        // Same strength: alternate from the latest differing game.
        assert_eq!(allocate(&[R, B, B, R], &[B, R, B, R], B), R);
        // a strong (wants Black) against b mild (wants Black).
        assert_eq!(allocate(&[R, R, B], &[B, R], R), B);
        // The only allocation within the absolute rules beats any wish.
        assert_eq!(allocate(&[B, R], &[R, R, B, R], B), R);
        // Nothing to go on: the default.
        assert_eq!(allocate(&[], &[], B), B);
    }
}
