//! Helpers shared by the tournament tests.
#![allow(dead_code)]

use jieqi_tournament::{
    Format, GameResult, PairOptions, Player, SeededEntropy, Settings, Tournament,
};

/// A small deterministic generator (xorshift64*), so every run sees the same events.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

pub fn event(name: &str, format: Format, players: &[(&str, u32)]) -> Tournament {
    let mut t = Tournament::new(name, Settings::new(format)).unwrap();
    for (n, r) in players {
        let mut p = Player::named(n);
        p.rating = Some(*r);
        t.add_player(p).unwrap();
    }
    t
}

pub fn pair(t: &mut Tournament, seed: &[u8]) -> usize {
    t.pair(&PairOptions::default(), &mut SeededEntropy::new(seed))
        .unwrap()
}

/// `"name-name"` per board (Red first), then `"bye name"`.
pub fn describe_round(t: &Tournament, round: usize) -> Vec<String> {
    let r = &t.rounds[round - 1];
    let name = |p: u32| t.players[p as usize].name.clone();
    let mut out: Vec<String> = r
        .games
        .iter()
        .map(|g| format!("{}-{}", name(g.red), name(g.black)))
        .collect();
    if let Some(b) = r.bye {
        out.push(format!("bye {}", name(b)));
    }
    out
}

pub fn result(s: &str) -> GameResult {
    GameResult::parse(s).unwrap()
}
