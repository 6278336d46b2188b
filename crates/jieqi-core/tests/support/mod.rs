//! What several test files share: a tiny deterministic generator and random games.

#![allow(dead_code)] // each test file uses a part

use jieqi_core::{Deal, Game, RuleSet};

/// A tiny deterministic generator (xorshift) for playouts.
pub struct Rng(pub u64);

impl Rng {
    /// The next number.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random game of up to `plies` plies under a deal from `seed`, preferring captures
/// (half the time when there is one), so that face-down pieces get taken.
pub fn random_game(seed: u64, plies: usize, rules: RuleSet) -> Game {
    let deal = Deal::from_seed(&seed.to_be_bytes());
    let mut g = Game::new(deal, rules);
    let mut rng = Rng(seed | 1);
    for _ in 0..plies {
        if g.outcome().is_some() {
            break;
        }
        let moves = g.position().legal_moves();
        let captures: Vec<_> = moves
            .iter()
            .copied()
            .filter(|m| g.position().piece_at(m.to).is_some())
            .collect();
        let pick = if !captures.is_empty() && rng.next() % 2 == 0 {
            captures[rng.below(captures.len())]
        } else {
            moves[rng.below(moves.len())]
        };
        g.play(pick).unwrap();
    }
    g
}
