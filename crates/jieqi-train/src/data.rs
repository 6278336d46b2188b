//! Training positions, reduced to what the trainer needs: the inputs that are on from
//! the side to move's perspective and from the other side's, the search score and the
//! result.

use std::path::Path;

use jieqi_core::Position;
use jieqi_engine::Params;
use jieqi_engine::datagen::record::{self, RecordError};
use jieqi_engine::nnue::features;

use crate::net::{sigmoid, target};

/// Why a data file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid training data.
    #[error("{path}: {source}")]
    Record {
        /// The file.
        path: String,
        /// Why.
        source: RecordError,
    },
}

/// Positions ready for training.
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    /// Inputs of every position: its side to move's, then the other side's (the same
    /// number from both perspectives: one per piece, one per pool entry).
    inputs: Vec<u16>,
    /// Where each position's inputs start in `inputs`.
    start: Vec<u32>,
    /// How many inputs each position has per perspective.
    len: Vec<u8>,
    /// How many pieces each position has on the board (kings included).
    pieces: Vec<u8>,
    /// Search scores, centipawns for the side to move.
    scores: Vec<f32>,
    /// The hand-written evaluation of each position (centipawns, side to move), to
    /// compare the net with.
    hand_written: Vec<f32>,
    /// Results for the side to move: 0, 0.5, 1.
    results: Vec<f32>,
}

impl Dataset {
    /// Positions held.
    pub fn len(&self) -> usize {
        self.start.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.start.is_empty()
    }

    /// The inputs of position `i`: side to move's, the other side's.
    #[inline]
    pub fn inputs(&self, i: usize) -> (&[u16], &[u16]) {
        let (s, n) = (self.start[i] as usize, usize::from(self.len[i]));
        (&self.inputs[s..s + n], &self.inputs[s + n..s + 2 * n])
    }

    /// The output bucket of position `i` in a net of `buckets` buckets.
    #[inline]
    pub fn bucket(&self, i: usize, buckets: usize) -> usize {
        jieqi_engine::nnue::bucket(usize::from(self.pieces[i]), buckets)
    }

    /// The search score of position `i` (centipawns, side to move).
    #[inline]
    pub fn score(&self, i: usize) -> f32 {
        self.scores[i]
    }

    /// The result of position `i` for its side to move (0, 0.5, 1).
    #[inline]
    pub fn result(&self, i: usize) -> f32 {
        self.results[i]
    }

    /// The loss of the hand-written evaluation taken as the net's output (`eval /
    /// scale`): the mark a net has to beat.
    pub fn hand_written_loss(&self, scale: f32, lambda: f32) -> f64 {
        if self.is_empty() {
            return 0.0;
        }
        let sum: f64 = (0..self.len())
            .map(|i| {
                let pred = sigmoid(self.hand_written[i] / scale);
                let e = pred - target(self.scores[i], self.results[i], scale, lambda);
                f64::from(e * e)
            })
            .sum();
        sum / self.len() as f64
    }

    /// Adds one position.
    pub fn push(&mut self, r: &record::Record) {
        let pos = &r.position;
        let start = self.inputs.len();
        features::active(pos, pos.turn(), &mut self.inputs);
        let n = self.inputs.len() - start;
        features::active(pos, !pos.turn(), &mut self.inputs);
        self.start.push(start as u32);
        self.len.push(n as u8);
        let pieces = self.inputs[start..start + n]
            .iter()
            .filter(|&&f| usize::from(f) < features::POOL)
            .count();
        self.pieces.push(pieces as u8);
        self.scores.push(f32::from(r.score));
        self.hand_written
            .push(jieqi_engine::eval::evaluate(&Params::default(), pos) as f32);
        self.results.push(f32::from(r.result) / 2.0);
    }
}

/// `pos` mirrored left to right (file a ↔ file i): the rules, the palaces and the start
/// squares are symmetric that way, so the mirrored position has the same value.
pub fn mirrored(pos: &Position) -> Position {
    let mut setup = pos.to_setup();
    let mut board = [None; 90];
    for (i, p) in setup.board.iter().enumerate() {
        board[i / 9 * 9 + (8 - i % 9)] = *p;
    }
    setup.board = board;
    Position::from_setup(setup).expect("a mirrored legal position is legal")
}

/// Which positions of the data files [`load`] takes, and how.
#[derive(Copy, Clone, Debug)]
pub struct Selection {
    /// Hold out the games whose index is a multiple of this (in every file), so that no
    /// position of a held-out game is trained on; 0 holds out nothing.
    pub valid_every: u32,
    /// Train on about one position in `sample` of each game (1: all). Positions of one
    /// game are alike and share its result, so a net learns a game faster than its
    /// positions; fewer positions from more games spread the same number over more
    /// results. Which positions are kept depends only on the game index and the
    /// position's place in its game. Held-out games are always taken whole.
    pub sample: u32,
    /// Add each training position mirrored left to right as well ([`mirrored`]).
    pub mirror: bool,
}

/// Whether the `index`-th position of game `game` is one of the `1/sample` kept.
fn sampled(game: u32, index: u32, sample: u32) -> bool {
    if sample <= 1 {
        return true;
    }
    // SplitMix64's finaliser over (game, index): neighbouring positions of a game and
    // the same place in neighbouring games fall independently.
    let mut z = (u64::from(game) << 32 | u64::from(index)).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    z % u64::from(sample) == 0
}

/// Reads data files into a training set and a validation set as `selection` says.
/// Each file's games are taken in index order.
pub fn load(
    paths: &[impl AsRef<Path>],
    selection: Selection,
) -> Result<(Dataset, Dataset), DataError> {
    let (mut train, mut valid) = (Dataset::default(), Dataset::default());
    for p in paths {
        let path = p.as_ref().display().to_string();
        let bytes = std::fs::read(p).map_err(|source| DataError::Io {
            path: path.clone(),
            source,
        })?;
        let (_, mut records) = record::read_all(&bytes).map_err(|source| DataError::Record {
            path: path.clone(),
            source,
        })?;
        // Games in index order, whatever order the workers finished them in: the data
        // of a run, and so the training, do not depend on how it was generated. The
        // sort is stable, so a game's positions stay in the order they were played.
        records.sort_by_key(|r| r.game);
        let mut index = 0;
        for (i, r) in records.iter().enumerate() {
            index = if i > 0 && records[i - 1].game == r.game {
                index + 1
            } else {
                0
            };
            if selection.valid_every > 0 && r.game % selection.valid_every == 0 {
                valid.push(r);
            } else if sampled(r.game, index, selection.sample) {
                train.push(r);
                if selection.mirror {
                    train.push(&record::Record {
                        position: mirrored(&r.position),
                        ..r.clone()
                    });
                }
            }
        }
    }
    Ok((train, valid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirroring_swaps_files_and_keeps_the_rest() {
        let fen = "3pk1xxC/na2rR3/4pr3/8n/bA1cP1p1p/N5P2/9/P1P1P1N1C/2A1B3R/4KX3 w B1a1b1 - 7 21";
        let pos = Position::from_fen(fen).expect("valid");
        let m = mirrored(&pos);
        assert_eq!(
            m.fen(),
            "Cxx1kp3/3Rr2an/3rp4/n8/p1p1Pc1Ab/2P5N/9/C1N1P1P1P/R3B1A2/3XK4 w B1a1b1 - 7 21"
        );
        assert_eq!(mirrored(&m), pos);
    }

    #[test]
    fn sampling_keeps_about_one_position_in_n_of_every_game() {
        assert!((0..100).all(|i| sampled(7, i, 1)));
        let kept = |game: u32| (0..400).filter(|&i| sampled(game, i, 8)).count();
        for game in [0, 1, 2, 1000, 65_537] {
            let n = kept(game);
            assert!((25..=75).contains(&n), "game {game}: {n} of 400 kept");
        }
        // Not the same places in every game.
        let places = |game: u32| {
            (0..400)
                .filter(|&i| sampled(game, i, 8))
                .collect::<Vec<_>>()
        };
        assert_ne!(places(1), places(2));
        assert_eq!(places(3), places(3));
    }
}
