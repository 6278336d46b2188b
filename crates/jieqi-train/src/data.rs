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

/// Reads data files into a training set and a validation set: the games whose index
/// is a multiple of `valid_every` (in every file) are held out, so that no position of
/// a held-out game is trained on. `valid_every` 0 holds out nothing. Each file's
/// games are taken in index order. With `mirror`,
/// each training position is also added mirrored left to right ([`mirrored`]).
pub fn load(
    paths: &[impl AsRef<Path>],
    valid_every: u32,
    mirror: bool,
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
        // of a run, and so the training, do not depend on how it was generated.
        records.sort_by_key(|r| r.game);
        for r in &records {
            if valid_every > 0 && r.game % valid_every == 0 {
                valid.push(r);
            } else {
                train.push(r);
                if mirror {
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
}
