//! A match: game pairs on shared deals, run on several workers, with running
//! statistics and an optional SPRT that stops the match once decided.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc::channel;
use std::thread;

use jieqi_core::{Color, Deal};
use jieqi_tournament::SeededEntropy;
use jieqi_tournament::deals::random_salt;

use super::engine::{Engine, EngineError, EngineSpec};
use super::game::{GameRecord, GameSettings, not_started, play_game_with};
use super::stats::{
    EloEstimate, Pentanomial, Sprt, SprtVerdict, Trinomial, elo_pentanomial, elo_trinomial, los,
};

/// What to play.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The two engines; results are given from the first one's side.
    pub engines: [EngineSpec; 2],
    /// Number of games (pairs of two on one deal; an odd last game is unpaired).
    pub games: u32,
    /// Time control, grace and rules.
    pub settings: GameSettings,
    /// Games played at the same time.
    pub concurrency: usize,
    /// Stop once this test is decided.
    pub sprt: Option<Sprt>,
    /// Seed for reproducible deals (pair `i` uses `Deal::from_seed("<seed>:<i>")`);
    /// random deals without it.
    pub seed: Option<String>,
    /// Set (e.g. by Ctrl-C) to stop: no new game starts, the games in progress are
    /// played out, and the result so far is returned.
    pub interrupt: Option<Arc<AtomicBool>>,
}

/// One finished game, as reported to the progress callback.
#[derive(Clone, Debug)]
pub struct FinishedGame {
    /// The pair (deal) index, from 0.
    pub pair: u32,
    /// Game number, from 1, in the order the games were scheduled.
    pub number: u32,
    /// Whether the first engine played Red.
    pub first_is_red: bool,
    /// The salt of the game's commitment to its deal ([`salt_for`]), drawn before play.
    pub salt: String,
    /// The game.
    pub record: GameRecord,
}

/// The running (and at the end, final) state of a match.
#[derive(Clone, Debug, Default)]
pub struct MatchResult {
    /// Engine names (from `id name`, made distinct).
    pub names: [String; 2],
    /// Games scheduled.
    pub scheduled: u32,
    /// W/D/L of the first engine.
    pub trinomial: Trinomial,
    /// Completed pairs by the first engine's pair score.
    pub pentanomial: Pentanomial,
    /// Games per termination reason.
    pub terminations: HashMap<String, u32>,
    /// The SPRT, its log-likelihood ratio and verdict.
    pub sprt: Option<(Sprt, f64, SprtVerdict)>,
    /// When the SPRT first left its bounds: games counted then, the LLR and the
    /// verdict. The test's decision is this one; the games in flight then still count
    /// in the totals and may move the final LLR back inside the bounds.
    pub decided: Option<(u32, f64, SprtVerdict)>,
    /// Whether the match was stopped by [`MatchConfig::interrupt`] before its end.
    pub interrupted: bool,
    /// Pairs waiting for their second game: pair → first engine's score.
    open_pairs: HashMap<u32, f64>,
}

impl MatchResult {
    /// Whether the SPRT stopped the match before all its games were played.
    pub fn stopped_early(&self) -> bool {
        self.decided.is_some() && self.trinomial.games() < self.scheduled
    }

    /// The Elo estimate of the first engine: over pairs (pentanomial) once there are
    /// complete pairs, over games (trinomial) before.
    pub fn elo(&self) -> Option<EloEstimate> {
        if self.pentanomial.pairs() > 0 {
            elo_pentanomial(&self.pentanomial)
        } else {
            elo_trinomial(&self.trinomial)
        }
    }

    /// Likelihood of superiority of the first engine.
    pub fn los(&self) -> f64 {
        los(self.trinomial.wins, self.trinomial.losses)
    }

    /// Counts one game.
    fn add(&mut self, g: &FinishedGame, sprt: Option<Sprt>) {
        let red = g.record.red_score();
        let first = if g.first_is_red { red } else { 1.0 - red };
        self.trinomial.add(first);
        *self.terminations.entry(g.record.termination()).or_insert(0) += 1;
        if let Some(other) = self.open_pairs.remove(&g.pair) {
            self.pentanomial.add(other, first);
        } else {
            self.open_pairs.insert(g.pair, first);
        }
        if let Some(s) = sprt {
            // Pentanomial when pairs are complete; trinomial before the first pair.
            let llr = if self.pentanomial.pairs() > 0 {
                s.llr_pentanomial(&self.pentanomial)
            } else {
                s.llr_trinomial(&self.trinomial)
            };
            self.sprt = Some((s, llr, s.verdict(llr)));
        }
    }
}

/// The deal of pair `i`.
pub fn deal_for(seed: Option<&str>, pair: u32) -> Deal {
    match seed {
        Some(s) => Deal::from_seed(format!("{s}:{pair}").as_bytes()),
        None => Deal::random(),
    }
}

/// The salt of game `number`'s deal commitment: reproducible from the seed (like the
/// deal itself, so it hides nothing from whoever knows the seed), from the operating
/// system without one.
pub fn salt_for(seed: Option<&str>, number: u32) -> String {
    match seed {
        Some(s) => random_salt(&mut SeededEntropy::new(
            format!("{s}:salt:{number}").as_bytes(),
        )),
        None => Deal::random_salt(),
    }
}

/// Runs a match. Each engine is first started once to check it works (an error
/// here means the match could not begin). Then `concurrency` workers play pairs of
/// games, one deal per pair with colours swapped, restarting an engine after it
/// misbehaved. `on_game` sees every finished game with the running result.
pub fn run_match(
    config: &MatchConfig,
    mut on_game: impl FnMut(&FinishedGame, &MatchResult),
) -> Result<MatchResult, EngineError> {
    let mut names = [String::new(), String::new()];
    for (i, spec) in config.engines.iter().enumerate() {
        let e = Engine::start(spec)?;
        names[i] = e.name.clone();
        e.quit();
    }
    if names[0] == names[1] {
        names[0].push_str(" #1");
        names[1].push_str(" #2");
    }
    let mut result = MatchResult {
        names: names.clone(),
        scheduled: config.games,
        ..MatchResult::default()
    };
    let pairs = config.games.div_ceil(2);
    let next_pair = AtomicU32::new(0);
    let stop = AtomicBool::new(false);
    let interrupted = || {
        config
            .interrupt
            .as_ref()
            .is_some_and(|i| i.load(Ordering::SeqCst))
    };
    let (tx, rx) = channel::<FinishedGame>();
    thread::scope(|scope| {
        for _ in 0..config.concurrency.max(1).min(pairs.max(1) as usize) {
            let tx = tx.clone();
            let (next_pair, stop, names) = (&next_pair, &stop, &names);
            scope.spawn(move || {
                let mut engines: [Option<Engine>; 2] = [None, None];
                loop {
                    if stop.load(Ordering::SeqCst) || interrupted() {
                        break;
                    }
                    let pair = next_pair.fetch_add(1, Ordering::SeqCst);
                    if pair >= pairs {
                        break;
                    }
                    let deal = deal_for(config.seed.as_deref(), pair);
                    for game in 0..2u32 {
                        let number = pair * 2 + game + 1;
                        if number > config.games || interrupted() {
                            break;
                        }
                        let first_is_red = game == 0;
                        let salt = salt_for(config.seed.as_deref(), number);
                        let record = play_one(config, names, &mut engines, deal, first_is_red);
                        let finished = FinishedGame {
                            pair,
                            number,
                            first_is_red,
                            salt,
                            record,
                        };
                        if tx.send(finished).is_err() {
                            return;
                        }
                    }
                }
                for e in engines.into_iter().flatten() {
                    e.quit();
                }
            });
        }
        drop(tx);
        for g in rx {
            result.add(&g, config.sprt);
            on_game(&g, &result);
            if let Some((_, llr, v)) = result.sprt
                && v != SprtVerdict::Continue
                && !stop.swap(true, Ordering::SeqCst)
            {
                result.decided = Some((result.trinomial.games(), llr, v));
            }
        }
    });
    if !result.stopped_early() && interrupted() {
        result.interrupted = true;
    }
    Ok(result)
}

/// Plays one game of the pair on a worker's engines (index 0 = the first engine),
/// starting missing engines and dropping those that misbehaved.
fn play_one(
    config: &MatchConfig,
    names: &[String; 2],
    engines: &mut [Option<Engine>; 2],
    deal: Deal,
    first_is_red: bool,
) -> GameRecord {
    let (red_i, black_i) = if first_is_red { (0, 1) } else { (1, 0) };
    for i in [red_i, black_i] {
        if engines[i].as_ref().is_some_and(Engine::is_dead) {
            engines[i] = None;
        }
        if engines[i].is_none() {
            match Engine::start(&config.engines[i]) {
                Ok(e) => engines[i] = Some(e),
                Err(err) => {
                    let loser = if i == red_i { Color::Red } else { Color::Black };
                    return not_started(
                        names[red_i].clone(),
                        names[black_i].clone(),
                        deal,
                        config.settings.rules,
                        loser,
                        err.to_string(),
                    );
                }
            }
        }
    }
    let [a, b] = engines;
    let (Some(a), Some(b)) = (a.as_mut(), b.as_mut()) else {
        // Not reached: both were started above or the function returned.
        return not_started(
            names[red_i].clone(),
            names[black_i].clone(),
            deal,
            config.settings.rules,
            Color::Red,
            "engine missing".into(),
        );
    };
    let (red, black) = if first_is_red { (a, b) } else { (b, a) };
    let mut record = play_game_with(red, black, deal, &config.settings);
    record.red = names[red_i].clone();
    record.black = names[black_i].clone();
    if let Some(side) = record.faulty {
        let i = if side == Color::Red { red_i } else { black_i };
        engines[i] = None;
    }
    record
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn salts_are_reproducible_with_a_seed_and_fresh_without() {
        let s = salt_for(Some("x"), 1);
        assert_eq!(s.len(), 32);
        assert!(s.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(s, salt_for(Some("x"), 1));
        assert_ne!(s, salt_for(Some("x"), 2));
        assert_ne!(s, salt_for(Some("y"), 1));
        assert_ne!(salt_for(None, 1), salt_for(None, 1));
    }
}
