//! Training data for the NNUE evaluation from self-play (`jieqi datagen`;
//! `docs/nnue.md`).
//!
//! Game `g` of a run with seed `s` is played from the deal and the random opening that
//! `(s, g)` determine, by an engine of one thread searching a fixed number of nodes per
//! move with a fresh table: the game, and so its records, depend on nothing else, so a
//! run is reproducible whatever the number of workers and however it was interrupted.
//! The referee is [`jieqi_core::Game`] under the standard rules (plus a draw at 300
//! plies); each side searches its own view with its own history.
//!
//! Recorded are the positions **as the side to move saw them** (its board with
//! face-down pieces, its pools, the identities it captured; never the deal), after the
//! random opening, that are quiet: not in check, the search chose no capture, and its
//! score was neither a mate nor beyond ±[`MAX_SCORE`]. Each record carries the search
//! score and the game's result for the side to move ([`record`]).
//!
//! Runs append to their file and resume: the games whose last record is in the file
//! are skipped, and a game cut off in the middle of its records is dropped and played
//! again.

pub mod record;

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use jieqi_core::game::Judge;
use jieqi_core::{Color, Deal, Game, Outcome, RuleSet, Viewer};

use crate::engine::{Engine, Limits, Options, Score};
use record::{HEADER_LEN, Header, RECORD_LEN, Record};

/// Positions whose search score is beyond this (centipawns) are not recorded: the game
/// is decided, and the score says more about the search than the position.
pub const MAX_SCORE: i32 = 3000;
/// A game still going after this many plies is a draw.
pub const MAX_PLIES: u32 = 300;

/// The settings of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Games in the run (indices `0..games`).
    pub games: u32,
    /// Nodes searched per move.
    pub nodes: u64,
    /// The run's seed.
    pub seed: u64,
    /// Random legal moves at the start of each game, for variety beyond the deal.
    pub random_plies: u32,
    /// Games played at once, one thread each.
    pub threads: usize,
}

impl Config {
    /// The header of this run's file.
    pub fn header(&self) -> Header {
        Header {
            seed: self.seed,
            nodes: self.nodes,
            random_plies: self.random_plies,
        }
    }
}

/// How far a run has come.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Games finished, in this session and before.
    pub games_done: u32,
    /// Games of the run.
    pub games: u32,
    /// Records written in this session.
    pub positions: u64,
    /// Records in the file.
    pub positions_total: u64,
    /// Games finished in this session.
    pub session_games: u32,
    /// Time since this session started.
    pub elapsed: Duration,
}

impl Progress {
    /// Positions written per second in this session.
    pub fn positions_per_second(&self) -> f64 {
        self.positions as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The time left at this session's pace of games.
    pub fn eta(&self) -> Option<Duration> {
        let left = self.games.saturating_sub(self.games_done);
        (self.session_games > 0).then(|| {
            self.elapsed
                .mul_f64(f64::from(left) / f64::from(self.session_games))
        })
    }

    /// One line: games, positions, positions/s, ETA.
    pub fn line(&self) -> String {
        let eta = self.eta().map_or("?".to_string(), |d| {
            let s = d.as_secs();
            format!("{}h{:02}m{:02}s", s / 3600, s / 60 % 60, s % 60)
        });
        format!(
            "games {}/{} positions {} (+{} now) {:.1} pos/s eta {eta}",
            self.games_done,
            self.games,
            self.positions_total,
            self.positions,
            self.positions_per_second()
        )
    }
}

/// A small, fast, reproducible random number generator (SplitMix64).
#[derive(Clone, Debug)]
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The deal of game `g` of a run with seed `seed`.
pub fn deal_of(seed: u64, g: u32) -> Deal {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..12].copy_from_slice(&g.to_le_bytes());
    bytes[12..].copy_from_slice(b"nnue");
    Deal::from_seed(&bytes)
}

/// Plays game `g` of the run and returns its records, the last one flagged.
pub fn play_game(cfg: &Config, g: u32) -> Vec<Record> {
    let mut rng = SplitMix(cfg.seed ^ u64::from(g).wrapping_mul(0xD1B5_4A32_D192_ED03));
    let mut engine = Engine::new(Options {
        hash_mb: 4,
        threads: 1,
        ..Options::default()
    });
    let limits = Limits {
        nodes: Some(cfg.nodes),
        ..Limits::default()
    };
    let mut game = Game::new(deal_of(cfg.seed, g), RuleSet::STANDARD);
    let mut histories =
        Color::ALL.map(|c| Judge::new(RuleSet::STANDARD, &game.view(Viewer::Player(c)).position()));
    let mut kept = Vec::new();
    let mut ply = 0u32;
    let winner = loop {
        match game.outcome() {
            Some(Outcome::Win { winner, .. }) => break Some(winner),
            Some(Outcome::Draw { .. }) => break None,
            None if ply >= MAX_PLIES => break None,
            None => {}
        }
        let turn = game.turn();
        let pos = game.view(Viewer::Player(turn)).position();
        let mv = if ply < cfg.random_plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break None;
            }
            moves[(rng.next() % moves.len() as u64) as usize]
        } else {
            let Some(r) = engine.search(&pos, &limits, &histories[turn.index()]) else {
                break None;
            };
            if let Score::Cp(cp) = r.score
                && cp.abs() <= MAX_SCORE
                && !pos.is_check()
                && pos.piece_at(r.best.to).is_none()
            {
                kept.push((pos.clone(), cp as i16));
            }
            r.best
        };
        if game.play(mv).is_err() {
            // A legal move of the view is legal for the referee; stop rather than loop.
            break None;
        }
        for c in Color::ALL {
            let seen = game.view(Viewer::Player(c)).position();
            histories[c.index()].push_seen(&seen, game.judge());
        }
        ply += 1;
    };
    let n = kept.len();
    kept.into_iter()
        .enumerate()
        .map(|(i, (position, score))| {
            let result = match winner {
                None => 1,
                Some(w) if w == position.turn() => 2,
                Some(_) => 0,
            };
            Record {
                position,
                score,
                result,
                game: g,
                last: i + 1 == n,
            }
        })
        .collect()
}

/// Why a run could not go on.
#[derive(Debug, thiserror::Error)]
pub enum DatagenError {
    /// Reading or writing the file failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The file is not a data file.
    #[error("{0}")]
    Record(#[from] record::RecordError),
    /// The file was made with other settings.
    #[error(
        "the file was generated with seed {} nodes {} random plies {}; resume with those settings or use another file",
        .0.seed, .0.nodes, .0.random_plies
    )]
    Settings(Header),
}

/// Opens `path` for a run: creates it with the run's header, or checks the header of
/// an existing file, drops a game cut off at its end, and returns which games it holds
/// and how many records.
fn open(path: &Path, cfg: &Config) -> Result<(File, Vec<bool>, u64), DatagenError> {
    let mut done = vec![false; cfg.games as usize];
    if !path.exists() || std::fs::metadata(path)?.len() == 0 {
        let mut f = File::create(path)?;
        f.write_all(&cfg.header().encode())?;
        return Ok((f, done, 0));
    }
    let mut f = OpenOptions::new().read(true).write(true).open(path)?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)?;
    let header = Header::decode(&bytes)?;
    if header != cfg.header() {
        return Err(DatagenError::Settings(header));
    }
    let mut end = HEADER_LEN;
    let mut records = 0u64;
    let mut pending = 0u64;
    for (i, c) in bytes[HEADER_LEN..].chunks_exact(RECORD_LEN).enumerate() {
        let (g, last) = Record::peek(c.try_into().expect("a whole record"));
        pending += 1;
        if last {
            if let Some(d) = done.get_mut(g as usize) {
                *d = true;
            }
            end = HEADER_LEN + (i + 1) * RECORD_LEN;
            records += pending;
            pending = 0;
        }
    }
    f.set_len(end as u64)?;
    f.seek(SeekFrom::End(0))?;
    Ok((f, done, records))
}

/// Runs `cfg` into the file at `path` (created, or resumed), calling `progress` after
/// each game. Returns the final progress.
pub fn run(
    cfg: &Config,
    path: &Path,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Progress, DatagenError> {
    let (mut file, done, existing) = open(path, cfg)?;
    let todo: Vec<u32> = (0..cfg.games).filter(|&g| !done[g as usize]).collect();
    let mut p = Progress {
        games_done: cfg.games - todo.len() as u32,
        games: cfg.games,
        positions: 0,
        positions_total: existing,
        session_games: 0,
        elapsed: Duration::ZERO,
    };
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<Vec<Record>>();
    std::thread::scope(|scope| -> Result<(), DatagenError> {
        for _ in 0..cfg.threads.max(1) {
            let (tx, next, todo) = (tx.clone(), &next, &todo);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&g) = todo.get(i) else { break };
                    if tx.send(play_game(cfg, g)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut buf = Vec::new();
        for records in rx {
            buf.clear();
            for r in &records {
                buf.extend_from_slice(&r.encode());
            }
            if let Err(e) = file.write_all(&buf).and_then(|()| file.flush()) {
                // Stop the workers: they find no more games.
                next.store(usize::MAX / 2, Ordering::Relaxed);
                return Err(e.into());
            }
            p.games_done += 1;
            p.session_games += 1;
            p.positions += records.len() as u64;
            p.positions_total += records.len() as u64;
            p.elapsed = start.elapsed();
            progress(&p);
        }
        Ok(())
    })?;
    p.elapsed = start.elapsed();
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(games: u32, threads: usize) -> Config {
        Config {
            games,
            nodes: 300,
            seed: 42,
            random_plies: 4,
            threads,
        }
    }

    #[test]
    fn a_game_is_the_same_every_time() {
        let c = cfg(1, 1);
        let a = play_game(&c, 3);
        let b = play_game(&c, 3);
        assert!(!a.is_empty());
        assert_eq!(a, b);
        assert!(a.last().expect("records").last);
        assert!(a[..a.len() - 1].iter().all(|r| !r.last && r.game == 3));
        // The side to move's view: its own pools, never the deal.
        for r in &a {
            assert!(!r.position.is_check());
            assert!(r.result <= 2);
        }
    }

    #[test]
    fn runs_resume_and_do_not_depend_on_threads() {
        let dir = std::env::temp_dir().join(format!("jieqi-datagen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let (one, two) = (dir.join("one.bin"), dir.join("two.bin"));
        for p in [&one, &two] {
            let _ = std::fs::remove_file(p);
        }
        // One thread in two sessions (the second resumes), against two threads at once.
        run(&cfg(2, 1), &one, &mut |_| {}).expect("first session");
        let partial = std::fs::read(&one).expect("file").len();
        // A game cut off in the middle: the resumed run drops it.
        let mut f = OpenOptions::new().append(true).open(&one).expect("open");
        let junk = Record {
            position: jieqi_core::Position::start(),
            score: 0,
            result: 1,
            game: 3,
            last: false,
        };
        f.write_all(&junk.encode()).expect("write");
        drop(f);
        let p = run(&cfg(4, 1), &one, &mut |_| {}).expect("second session");
        assert_eq!(p.session_games, 2);
        assert!(std::fs::read(&one).expect("file").len() > partial);
        run(&cfg(4, 2), &two, &mut |_| {}).expect("two threads");
        let by_game = |path: &Path| {
            let (h, mut rs) = record::read_all(&std::fs::read(path).expect("file")).expect("reads");
            assert_eq!(h, cfg(4, 1).header());
            rs.sort_by_key(|r| r.game);
            rs
        };
        let (a, b) = (by_game(&one), by_game(&two));
        assert_eq!(a, b);
        assert!(matches!(
            run(
                &Config {
                    seed: 7,
                    ..cfg(4, 1)
                },
                &one,
                &mut |_| {}
            ),
            Err(DatagenError::Settings(_))
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
