//! Training positions, reduced to what the trainer needs: the inputs that are on from
//! the side to move's perspective and from the other side's, the search score and the
//! result.

use std::path::Path;

use jieqi_engine::datagen::record::{self, RecordError};
use jieqi_engine::nnue::features;

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
    /// Search scores, centipawns for the side to move.
    scores: Vec<f32>,
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

    /// Adds one position.
    pub fn push(&mut self, r: &record::Record) {
        let pos = &r.position;
        let start = self.inputs.len();
        features::active(pos, pos.turn(), &mut self.inputs);
        let n = self.inputs.len() - start;
        features::active(pos, !pos.turn(), &mut self.inputs);
        self.start.push(start as u32);
        self.len.push(n as u8);
        self.scores.push(f32::from(r.score));
        self.results.push(f32::from(r.result) / 2.0);
    }
}

/// Reads data files into a training set and a validation set: the games whose index
/// is a multiple of `valid_every` (in every file) are held out, so that no position of
/// a held-out game is trained on. `valid_every` 0 holds out nothing.
pub fn load(paths: &[impl AsRef<Path>], valid_every: u32) -> Result<(Dataset, Dataset), DataError> {
    let (mut train, mut valid) = (Dataset::default(), Dataset::default());
    for p in paths {
        let path = p.as_ref().display().to_string();
        let bytes = std::fs::read(p).map_err(|source| DataError::Io {
            path: path.clone(),
            source,
        })?;
        let (_, records) = record::read_all(&bytes).map_err(|source| DataError::Record {
            path: path.clone(),
            source,
        })?;
        for r in &records {
            if valid_every > 0 && r.game % valid_every == 0 {
                valid.push(r);
            } else {
                train.push(r);
            }
        }
    }
    Ok((train, valid))
}
