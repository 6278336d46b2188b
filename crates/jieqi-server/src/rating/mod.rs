//! Ratings: Glicko-2 per time-control category (docs/server.md, "Ratings").
//!
//! The formulas are the `skillratings` crate's; this module only decides which
//! category a game counts in, where a new player starts and when a rating is
//! provisional. Each rated game is its own rating period, as on lichess.

use jieqi_core::{Color, Outcome};
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};

use crate::clock::TimeControl;

/// A time-control category, by the estimated length of a game (lichess's
/// thresholds): initial seconds + 40 × increment seconds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// Under 3 minutes (180 s).
    Bullet,
    /// 3 to under 8 minutes (480 s).
    Blitz,
    /// 8 to under 25 minutes (1,500 s).
    Rapid,
    /// 25 minutes and longer.
    Classical,
}

impl Category {
    /// Every category, shortest first.
    pub const ALL: [Category; 4] = [
        Category::Bullet,
        Category::Blitz,
        Category::Rapid,
        Category::Classical,
    ];

    /// The category of a time control; untimed games have none (and cannot be rated).
    /// The step time 步时 does not count: it caps a move, not the game.
    pub fn of(tc: Option<&TimeControl>) -> Option<Category> {
        let tc = tc?;
        let estimate_s = tc.base_ms / 1000 + 40 * (tc.increment_ms / 1000);
        Some(match estimate_s {
            0..180 => Category::Bullet,
            180..480 => Category::Blitz,
            480..1500 => Category::Rapid,
            _ => Category::Classical,
        })
    }

    /// The category of a stored time control text (`"10+5"`, `"none"`).
    pub fn of_text(time: &str) -> Option<Category> {
        Category::of(TimeControl::parse(time, None).ok()?.as_ref())
    }

    /// The name used in the API and the database.
    pub const fn name(self) -> &'static str {
        match self {
            Category::Bullet => "bullet",
            Category::Blitz => "blitz",
            Category::Rapid => "rapid",
            Category::Classical => "classical",
        }
    }

    /// The category of a name.
    pub fn parse(s: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.name() == s)
    }
}

/// One value per [`Category`] (a player's ratings, say), indexed by the category.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct ByCategory<T> {
    /// Bullet.
    pub bullet: T,
    /// Blitz.
    pub blitz: T,
    /// Rapid.
    pub rapid: T,
    /// Classical.
    pub classical: T,
}

impl<T> ByCategory<T> {
    /// A container filled by `f` for each category.
    pub fn new_with(mut f: impl FnMut(Category) -> T) -> ByCategory<T> {
        ByCategory {
            bullet: f(Category::Bullet),
            blitz: f(Category::Blitz),
            rapid: f(Category::Rapid),
            classical: f(Category::Classical),
        }
    }
}

impl<T> std::ops::Index<Category> for ByCategory<T> {
    type Output = T;

    fn index(&self, c: Category) -> &T {
        match c {
            Category::Bullet => &self.bullet,
            Category::Blitz => &self.blitz,
            Category::Rapid => &self.rapid,
            Category::Classical => &self.classical,
        }
    }
}

/// A player's Glicko-2 rating in one category.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Rating {
    /// The rating.
    pub rating: f64,
    /// Its deviation (RD).
    pub deviation: f64,
    /// Its volatility.
    pub volatility: f64,
}

/// Above this deviation a rating is provisional (shown with a "?").
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// The system constant τ (lichess uses 0.75: volatility moves fairly quickly).
const TAU: f64 = 0.75;

impl Default for Rating {
    /// Where a new player starts (lichess's start: 1500 ± 500, volatility 0.09).
    fn default() -> Rating {
        Rating {
            rating: 1500.0,
            deviation: 500.0,
            volatility: 0.09,
        }
    }
}

impl Rating {
    /// Whether the rating is still provisional (RD above [`PROVISIONAL_DEVIATION`]).
    pub fn provisional(&self) -> bool {
        self.deviation > PROVISIONAL_DEVIATION
    }

    fn glicko(self) -> Glicko2Rating {
        Glicko2Rating {
            rating: self.rating,
            deviation: self.deviation,
            volatility: self.volatility,
        }
    }

    fn from_glicko(g: Glicko2Rating) -> Rating {
        Rating {
            rating: g.rating,
            deviation: g.deviation,
            volatility: g.volatility,
        }
    }
}

/// Both players' ratings after a rated game that ended with `outcome`.
pub fn after_game(red: Rating, black: Rating, outcome: &Outcome) -> (Rating, Rating) {
    let result = match outcome.winner() {
        Some(Color::Red) => Outcomes::WIN,
        Some(Color::Black) => Outcomes::LOSS,
        None => Outcomes::DRAW,
    };
    let config = Glicko2Config {
        tau: TAU,
        ..Glicko2Config::default()
    };
    let (r, b) = glicko2(&red.glicko(), &black.glicko(), &result, &config);
    (Rating::from_glicko(r), Rating::from_glicko(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use jieqi_core::Reason;

    fn tc(time: &str) -> Option<Category> {
        Category::of_text(time)
    }

    #[test]
    fn categories_by_estimated_length() {
        // 1+0 = 60 s, 2+2 = 200 s, 3+0 = 180 s, 5+3 = 420 s, 7+2 = 500 s,
        // 10+5 = 800 s, 15+10 = 1300 s, 20+15 = 1800 s, 25+0 = 1500 s.
        assert_eq!(tc("1"), Some(Category::Bullet));
        assert_eq!(tc("2+1"), Some(Category::Bullet)); // 160 s
        assert_eq!(tc("2+2"), Some(Category::Blitz));
        assert_eq!(tc("3+0"), Some(Category::Blitz));
        assert_eq!(tc("5+3"), Some(Category::Blitz));
        assert_eq!(tc("7+2"), Some(Category::Rapid));
        assert_eq!(tc("10+5"), Some(Category::Rapid));
        assert_eq!(tc("15+10"), Some(Category::Rapid));
        assert_eq!(tc("25"), Some(Category::Classical));
        assert_eq!(tc("20+15"), Some(Category::Classical));
        assert_eq!(tc("none"), None);
        assert_eq!(tc("garbage"), None);
        // The step time does not change the category.
        let with_step = TimeControl::parse("3+0", Some(30)).unwrap();
        assert_eq!(Category::of(with_step.as_ref()), Some(Category::Blitz));
        for c in Category::ALL {
            assert_eq!(Category::parse(c.name()), Some(c));
        }
        assert_eq!(Category::parse("ultrabullet"), None);
    }

    #[test]
    fn a_win_moves_both_ratings_and_a_draw_between_equals_does_not() {
        let new = Rating::default();
        assert!(new.provisional());
        let win = Outcome::Win {
            winner: Color::Black,
            reason: Reason::Resignation,
        };
        let (red, black) = after_game(new, new, &win);
        assert!(
            red.rating < 1500.0 && black.rating > 1500.0,
            "{red:?} {black:?}"
        );
        assert!((red.rating + black.rating - 3000.0).abs() < 1e-6);
        assert!(red.deviation < new.deviation);
        let draw = Outcome::Draw {
            reason: Reason::Agreement,
        };
        let (r2, b2) = after_game(new, new, &draw);
        assert!((r2.rating - 1500.0).abs() < 1e-9 && (b2.rating - 1500.0).abs() < 1e-9);
        // An established player is no longer provisional.
        let settled = Rating {
            rating: 1700.0,
            deviation: 60.0,
            volatility: 0.06,
        };
        assert!(!settled.provisional());
        let (s, _) = after_game(settled, new, &draw);
        assert!(
            s.rating < 1700.0,
            "a draw against a weaker player costs points"
        );
    }
}
