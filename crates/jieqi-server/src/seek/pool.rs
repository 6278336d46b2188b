//! The seek pool as a pure state machine: seeks come in (from a time-control tile or
//! the custom form), are accepted, cancelled, or leave with their owner's connection;
//! each step returns the effects (a seek added to or removed from the list, two
//! players paired). No I/O, no clock, no randomness: the caller passes the coin that
//! decides colours, so tests drive the pool step by step (docs/server.md, "Quick
//! pairing").
//!
//! A step either fails with a [`SeekError`] and changes nothing, or succeeds and
//! returns every effect at once; the pool is owned by one task, so two players
//! accepting the same seek are served one after the other and only the first gets it.

use jieqi_core::{ByColor, Color};

use crate::clock::TimeControl;
use crate::rating::{ByCategory, Category, Rating};

/// A seek's id in the list (`s` and a number: public, not a secret).
pub type SeekId = String;

/// Who is behind a lobby connection. Two identities are the same person when they
/// share the connection, the account, or the browser (its CSRF cookie): a player can
/// neither pair with himself in two tabs nor dodge the per-player limit that way.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Identity {
    /// The lobby connection.
    pub conn: u64,
    /// The account's user name, `None` for a guest.
    pub user: Option<String>,
    /// The browser's CSRF cookie, if it sent one.
    pub browser: Option<String>,
}

impl Identity {
    /// Whether `self` and `other` are the same person.
    pub fn same_person(&self, other: &Identity) -> bool {
        let both =
            |a: &Option<String>, b: &Option<String>| matches!((a, b), (Some(x), Some(y)) if x == y);
        self.conn == other.conn
            || both(&self.user, &other.user)
            || both(&self.browser, &other.browser)
    }
}

/// A player seeking or accepting, with his ratings as they were when he asked.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Seeker {
    /// Who.
    pub who: Identity,
    /// The account's ratings (a category never played rated: the start rating);
    /// `None` for a guest.
    pub ratings: Option<ByCategory<Rating>>,
}

impl Seeker {
    /// The rating (rounded) in `category`, `None` for a guest.
    pub fn rating(&self, category: Category) -> Option<i32> {
        self.ratings.map(|r| r[category].rating.round() as i32)
    }

    /// Whether the rating in `category` is provisional (guests' are not shown).
    pub fn provisional(&self, category: Category) -> bool {
        self.ratings.is_some_and(|r| r[category].provisional())
    }
}

/// What a seek asks for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Terms {
    /// The time control (seeks always have a clock).
    pub tc: TimeControl,
    /// Rated (both players need an account).
    pub rated: bool,
    /// The seeker's colour, `None` for random.
    pub color: Option<Color>,
    /// The opponent's rating may differ from the seeker's by at most this much
    /// (in the seek's category); `None` for anyone.
    pub range: Option<u32>,
}

/// A waiting seek.
#[derive(Clone, Debug, PartialEq)]
pub struct Seek {
    /// Its id.
    pub id: SeekId,
    /// Whose.
    pub owner: Seeker,
    /// Its terms.
    pub terms: Terms,
    /// Its time control's category.
    pub category: Category,
}

/// Two players paired: the game to create.
#[derive(Clone, Debug, PartialEq)]
pub struct Pairing {
    /// The seek that was taken (or matched).
    pub seek: SeekId,
    /// The time control.
    pub tc: TimeControl,
    /// Rated.
    pub rated: bool,
    /// Who plays which colour.
    pub players: ByColor<Identity>,
}

/// What a step of the pool did.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// A seek joined the list.
    Added(Seek),
    /// A seek left the list (paired, cancelled, or its owner left).
    Removed(SeekId),
    /// Two players were paired: create their game.
    Paired(Pairing),
}

/// Why a step was refused (nothing changed).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SeekError {
    /// A rated seek, a rating range, or accepting either, without an account.
    #[error("{0}")]
    LoginRequired(&'static str),
    /// The player has as many seeks waiting as he may.
    #[error("at most {0} seeks at once: cancel one first")]
    TooManySeeks(usize),
    /// The pool is full.
    #[error("the seek list is full: try again in a moment")]
    PoolFull,
    /// No such seek (taken, cancelled, or never there).
    #[error("no seek {0:?}: it was taken or cancelled")]
    NoSeek(String),
    /// Accepting one's own seek.
    #[error("this seek is your own")]
    OwnSeek,
    /// The acceptor's rating is outside the seek's range.
    #[error("your {category} rating {rating} is outside this seek's range ({lo} to {hi})")]
    OutOfRange {
        /// The acceptor's rating.
        rating: i32,
        /// The category's name.
        category: &'static str,
        /// The lowest rating the seek accepts.
        lo: i32,
        /// The highest.
        hi: i32,
    },
}

/// How much one player may hold and the pool as a whole.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PoolLimits {
    /// Seeks one person may have waiting at once.
    pub per_player: usize,
    /// Seeks waiting in all.
    pub total: usize,
}

impl Default for PoolLimits {
    fn default() -> PoolLimits {
        PoolLimits {
            per_player: 3,
            total: 2000,
        }
    }
}

/// The seeks waiting, oldest first.
#[derive(Clone, Debug, Default)]
pub struct Pool {
    seeks: Vec<Seek>,
    next: u64,
    version: u64,
    limits: PoolLimits,
}

/// Whether a player of rating `rating` (None: a guest) is within `range` of `around`.
fn in_range(range: Option<u32>, around: Option<i32>, rating: Option<i32>) -> bool {
    match (range, around, rating) {
        (None, _, _) => true,
        (Some(r), Some(a), Some(x)) => (x - a).unsigned_abs() <= r,
        _ => false,
    }
}

impl Pool {
    /// An empty pool with these limits.
    pub fn new(limits: PoolLimits) -> Pool {
        Pool {
            limits,
            ..Pool::default()
        }
    }

    /// The seeks waiting, oldest first.
    pub fn seeks(&self) -> &[Seek] {
        &self.seeks
    }

    /// Counts changes of the list: one more for each seek added or removed.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// A new seek. If a compatible seek waits (the oldest first), the two players are
    /// paired at once and the new seek never enters the list; otherwise it waits.
    /// `coin` is the colour the waiting player gets when neither chose one.
    pub fn add(
        &mut self,
        seeker: Seeker,
        terms: Terms,
        coin: Color,
    ) -> Result<Vec<Effect>, SeekError> {
        if terms.rated && seeker.who.user.is_none() {
            return Err(SeekError::LoginRequired(
                "rated seeks are for logged-in players: log in, or seek a casual game",
            ));
        }
        if terms.range.is_some() && seeker.ratings.is_none() {
            return Err(SeekError::LoginRequired(
                "a rating range needs a rating: log in, or seek anyone",
            ));
        }
        let category = category(&terms);
        let found = self.seeks.iter().position(|s| {
            s.terms.tc == terms.tc
                && s.terms.rated == terms.rated
                && !(s.terms.color.is_some() && s.terms.color == terms.color)
                && !s.owner.who.same_person(&seeker.who)
                && in_range(
                    s.terms.range,
                    s.owner.rating(category),
                    seeker.rating(category),
                )
                && in_range(
                    terms.range,
                    seeker.rating(category),
                    s.owner.rating(category),
                )
        });
        if let Some(i) = found {
            let waiting = &self.seeks[i];
            // The waiting player's colour: his choice, else the opposite of the new
            // one's choice, else the coin.
            let theirs = waiting
                .terms
                .color
                .or(terms.color.map(|c| !c))
                .unwrap_or(coin);
            let players = ByColor::new_with(|c| {
                if c == theirs {
                    waiting.owner.who.clone()
                } else {
                    seeker.who.clone()
                }
            });
            return Ok(self.pair(waiting.id.clone(), terms.tc, terms.rated, players));
        }
        let held = self
            .seeks
            .iter()
            .filter(|s| s.owner.who.same_person(&seeker.who))
            .count();
        if held >= self.limits.per_player {
            return Err(SeekError::TooManySeeks(self.limits.per_player));
        }
        if self.seeks.len() >= self.limits.total {
            return Err(SeekError::PoolFull);
        }
        self.next += 1;
        let seek = Seek {
            id: format!("s{}", self.next),
            owner: seeker,
            terms,
            category,
        };
        self.seeks.push(seek.clone());
        self.version += 1;
        Ok(vec![Effect::Added(seek)])
    }

    /// `seeker` takes seek `id` on its terms. `coin` is the seek owner's colour when
    /// he chose none.
    pub fn accept(
        &mut self,
        seeker: &Seeker,
        id: &str,
        coin: Color,
    ) -> Result<Vec<Effect>, SeekError> {
        let seek = self
            .seeks
            .iter()
            .find(|s| s.id == id)
            .ok_or_else(|| SeekError::NoSeek(shown(id)))?;
        if seek.owner.who.same_person(&seeker.who) {
            return Err(SeekError::OwnSeek);
        }
        if seek.terms.rated && seeker.who.user.is_none() {
            return Err(SeekError::LoginRequired(
                "this seek is rated: log in to accept it",
            ));
        }
        if let Some(range) = seek.terms.range {
            let Some(rating) = seeker.rating(seek.category) else {
                return Err(SeekError::LoginRequired(
                    "this seek has a rating range: log in to accept it",
                ));
            };
            let around = seek.owner.rating(seek.category).unwrap_or(rating);
            let r = i32::try_from(range).unwrap_or(i32::MAX);
            if !in_range(Some(range), Some(around), Some(rating)) {
                return Err(SeekError::OutOfRange {
                    rating,
                    category: seek.category.name(),
                    lo: around.saturating_sub(r),
                    hi: around.saturating_add(r),
                });
            }
        }
        let owner = seek.terms.color.unwrap_or(coin);
        let players = ByColor::new_with(|c| {
            if c == owner {
                seek.owner.who.clone()
            } else {
                seeker.who.clone()
            }
        });
        let (tc, rated) = (seek.terms.tc, seek.terms.rated);
        Ok(self.pair(id.to_string(), tc, rated, players))
    }

    /// The owner (or the same person on another connection) withdraws seek `id`.
    pub fn cancel(&mut self, who: &Identity, id: &str) -> Result<Vec<Effect>, SeekError> {
        let i = self
            .seeks
            .iter()
            .position(|s| s.id == id && s.owner.who.same_person(who))
            .ok_or_else(|| SeekError::NoSeek(shown(id)))?;
        let seek = self.seeks.remove(i);
        self.version += 1;
        Ok(vec![Effect::Removed(seek.id)])
    }

    /// Connection `conn` closed: its seeks go.
    pub fn disconnect(&mut self, conn: u64) -> Vec<Effect> {
        self.remove_where(|s| s.owner.who.conn == conn)
    }

    /// Pairs `players` on the terms of seek `seek`, removing every seek of either
    /// player (someone in a game is not seeking another).
    fn pair(
        &mut self,
        seek: SeekId,
        tc: TimeControl,
        rated: bool,
        players: ByColor<Identity>,
    ) -> Vec<Effect> {
        let mut out = self.remove_where(|s| {
            s.owner.who.same_person(&players.red) || s.owner.who.same_person(&players.black)
        });
        out.push(Effect::Paired(Pairing {
            seek,
            tc,
            rated,
            players,
        }));
        out
    }

    fn remove_where(&mut self, mut gone: impl FnMut(&Seek) -> bool) -> Vec<Effect> {
        let mut out = Vec::new();
        self.seeks.retain(|s| {
            if gone(s) {
                out.push(Effect::Removed(s.id.clone()));
                false
            } else {
                true
            }
        });
        self.version += out.len() as u64;
        out
    }
}

/// The category of a seek's time control.
pub fn category(terms: &Terms) -> Category {
    // A seek always has a clock, so it always has a category.
    Category::of(Some(&terms.tc)).unwrap_or(Category::Classical)
}

/// An id as shown in a message (a hostile one cut short).
fn shown(id: &str) -> String {
    id.chars().take(16).collect()
}

#[cfg(test)]
mod tests;
