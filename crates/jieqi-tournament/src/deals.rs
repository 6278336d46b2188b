//! Deal modes (RULES.md §2), randomness as an input, and committed deals.
//!
//! Every deal is committed before its round (`Deal::commitment(salt)` with a fresh
//! salt) and published after it, so anyone can check with `Deal::verify_commitment`
//! that the organiser did not change it. The crate does no I/O: randomness comes from
//! an [`Entropy`] the caller supplies (the command line uses the operating system's
//! generator; tests use [`SeededEntropy`]).

use jieqi_core::Deal;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// How the boards of a round get their deals.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum DealMode {
    /// A fresh random deal for every board.
    #[default]
    Random,
    /// One deal for every board of the round (预先布放), reused for the second game of
    /// a colour-swapped pair (the second cycle of a double round robin, the even games
    /// of a knockout match).
    Duplicate,
    /// Deals given by the organiser: one for every board, or one per board.
    Organiser,
    /// Each board's deal drawn jointly from both players' secret contributions (互相布放).
    Joint,
}

impl DealMode {
    /// Parses `random`, `duplicate`, `organiser` (or `organizer`) and `joint`.
    pub fn parse(s: &str) -> Option<DealMode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "random" => Some(DealMode::Random),
            "duplicate" => Some(DealMode::Duplicate),
            "organiser" | "organizer" => Some(DealMode::Organiser),
            "joint" => Some(DealMode::Joint),
            _ => None,
        }
    }

    /// The name used in files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            DealMode::Random => "random",
            DealMode::Duplicate => "duplicate",
            DealMode::Organiser => "organiser",
            DealMode::Joint => "joint",
        }
    }
}

/// A source of unpredictable bytes.
pub trait Entropy {
    /// Fills `buf` with random bytes.
    fn fill(&mut self, buf: &mut [u8]);
}

/// Reproducible bytes: SHA-256 of the seed and a block counter. For tests and for
/// events that must be replayable; never for real deals (anyone with the seed can
/// predict them).
#[derive(Clone, Debug)]
pub struct SeededEntropy {
    seed: Vec<u8>,
    block: u64,
    buf: [u8; 32],
    pos: usize,
}

impl SeededEntropy {
    /// A stream from `seed`.
    pub fn new(seed: &[u8]) -> SeededEntropy {
        SeededEntropy {
            seed: seed.to_vec(),
            block: 0,
            buf: [0; 32],
            pos: 32,
        }
    }
}

impl Entropy for SeededEntropy {
    fn fill(&mut self, out: &mut [u8]) {
        for byte in out {
            if self.pos == 32 {
                let mut h = Sha256::new();
                h.update(&self.seed);
                h.update(self.block.to_be_bytes());
                self.buf = h.finalize().into();
                self.block += 1;
                self.pos = 0;
            }
            *byte = self.buf[self.pos];
            self.pos += 1;
        }
    }
}

/// A fresh deal from `rng`.
pub fn random_deal(rng: &mut dyn Entropy) -> Deal {
    let mut seed = [0u8; 32];
    rng.fill(&mut seed);
    Deal::from_seed(&seed)
}

/// A fresh salt (32 hex digits) from `rng`.
pub fn random_salt(rng: &mut dyn Entropy) -> String {
    let mut b = [0u8; 16];
    rng.fill(&mut b);
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// One deal of the event, with its commitment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealRecord {
    /// How it was made.
    pub mode: DealMode,
    /// The deal's text form; `None` while a joint deal waits for contributions.
    pub deal: Option<String>,
    /// The secret salt of the commitment.
    pub salt: String,
    /// `sha256:…` over `DEAL:SALT`, published before play.
    pub commitment: Option<String>,
    /// Red's secret contribution (joint mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub red_contribution: Option<String>,
    /// Black's secret contribution (joint mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black_contribution: Option<String>,
    /// Whether the deal and salt have been published (after the games using it).
    pub published: bool,
    /// Joint mode: the director's own random seed (64 hex digits), mixed into the
    /// deal with the players' contributions. Secret until the deal is published, so a
    /// player who knows his own contribution cannot search the opponent's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_seed: Option<String>,
    /// Joint mode: `sha256:` + hex of SHA-256 of [`DealRecord::server_seed`],
    /// published before any contribution, so the director cannot choose its seed
    /// after seeing them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_commitment: Option<String>,
}

/// The commitment to a joint deal's server seed: `sha256:` + hex of SHA-256 of the
/// seed's text.
pub fn seed_commitment(seed: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(seed.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

impl DealRecord {
    /// A committed record of `deal`.
    pub fn committed(mode: DealMode, deal: &Deal, rng: &mut dyn Entropy) -> DealRecord {
        let salt = random_salt(rng);
        DealRecord {
            mode,
            deal: Some(deal.to_string()),
            commitment: Some(deal.commitment(&salt)),
            salt,
            red_contribution: None,
            black_contribution: None,
            published: false,
            server_seed: None,
            server_commitment: None,
        }
    }

    /// A joint record waiting for both players' contributions.
    pub fn pending_joint(rng: &mut dyn Entropy) -> DealRecord {
        DealRecord {
            mode: DealMode::Joint,
            deal: None,
            salt: random_salt(rng),
            commitment: None,
            red_contribution: None,
            black_contribution: None,
            published: false,
            server_seed: None,
            server_commitment: None,
        }
    }

    /// Adds the director's committed seed to a joint record that has no contribution
    /// yet; false (and nothing changes) for any other record.
    pub fn add_server_seed(&mut self, rng: &mut dyn Entropy) -> bool {
        if self.mode != DealMode::Joint
            || self.server_seed.is_some()
            || self.red_contribution.is_some()
            || self.black_contribution.is_some()
        {
            return false;
        }
        let mut b = [0u8; 32];
        rng.fill(&mut b);
        let seed: String = b.iter().map(|x| format!("{x:02x}")).collect();
        self.server_commitment = Some(seed_commitment(&seed));
        self.server_seed = Some(seed);
        true
    }

    /// The joint deal of these contributions (with the server seed, if any).
    pub fn joint_deal(&self, red: &str, black: &str) -> Deal {
        match &self.server_seed {
            Some(seed) => Deal::joint(&[seed.as_bytes(), red.as_bytes(), black.as_bytes()]),
            None => Deal::joint(&[red.as_bytes(), black.as_bytes()]),
        }
    }

    /// The deal, if drawn.
    pub fn parsed(&self) -> Option<Deal> {
        self.deal.as_deref().and_then(|d| Deal::parse(d).ok())
    }

    /// Whether the stored deal matches its commitment (and, for a joint deal, the
    /// contributions). A deal not yet drawn does not verify.
    pub fn verifies(&self) -> bool {
        let (Some(deal), Some(commitment)) = (self.parsed(), self.commitment.as_deref()) else {
            return false;
        };
        if !deal.verify_commitment(&self.salt, commitment) {
            return false;
        }
        let seed_ok = match (&self.server_seed, &self.server_commitment) {
            (Some(seed), Some(c)) => seed_commitment(seed) == *c,
            (None, None) => true,
            _ => false,
        };
        match (&self.red_contribution, &self.black_contribution) {
            (Some(r), Some(b)) => seed_ok && self.joint_deal(r, b) == deal,
            (None, None) => self.mode != DealMode::Joint,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_seed_is_committed_mixed_in_and_checked() {
        let mut rng = SeededEntropy::new(b"seed");
        let mut rec = DealRecord::pending_joint(&mut rng);
        assert!(rec.add_server_seed(&mut rng));
        assert!(!rec.add_server_seed(&mut rng), "one seed, never replaced");
        let seed = rec.server_seed.clone().unwrap();
        assert_eq!(rec.server_commitment, Some(seed_commitment(&seed)));
        let deal = rec.joint_deal("red", "black");
        assert_ne!(deal, Deal::joint(&[b"red", b"black"]), "the seed counts");
        rec.red_contribution = Some("red".into());
        rec.black_contribution = Some("black".into());
        rec.commitment = Some(deal.commitment(&rec.salt));
        rec.deal = Some(deal.to_string());
        assert!(rec.verifies());
        rec.server_seed = Some(seed.replace(&seed[..1], if &seed[..1] == "0" { "1" } else { "0" }));
        assert!(!rec.verifies(), "a seed that is not the committed one");
        // Contributions first: too late for a seed.
        let mut late = DealRecord::pending_joint(&mut rng);
        late.red_contribution = Some("red".into());
        assert!(!late.add_server_seed(&mut rng));
    }

    #[test]
    fn seeded_entropy_is_reproducible_and_seed_dependent() {
        let mut a = SeededEntropy::new(b"x");
        let mut b = SeededEntropy::new(b"x");
        let mut c = SeededEntropy::new(b"y");
        let (mut x, mut y, mut z) = ([0u8; 70], [0u8; 70], [0u8; 70]);
        a.fill(&mut x);
        b.fill(&mut y);
        c.fill(&mut z);
        assert_eq!(x, y);
        assert_ne!(x, z);
        assert_ne!(x[..32], x[32..64]);
    }

    #[test]
    fn records_verify_and_tampering_is_caught() {
        let mut rng = SeededEntropy::new(b"deals");
        let deal = random_deal(&mut rng);
        let mut rec = DealRecord::committed(DealMode::Random, &deal, &mut rng);
        assert!(rec.verifies());
        rec.deal = Some(Deal::standard().to_string());
        assert!(!rec.verifies());
        assert_eq!(DealMode::parse("Organizer"), Some(DealMode::Organiser));
        assert_eq!(DealMode::parse("luck"), None);
    }
}
