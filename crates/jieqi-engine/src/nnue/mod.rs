//! NNUE evaluation (efficiently updatable neural network): a net trained on our own
//! self-play (`jieqi datagen`, `jieqi train`; `docs/nnue.md`), evaluated with
//! accumulators updated move by move in the search.
//!
//! The net: the inputs of [`features`] from each side's perspective → one shared
//! hidden layer of `H` units per perspective (the accumulator: bias plus the weight
//! rows of the inputs that are on) → squared clipped ReLU (SCReLU, `clamp(x, 0, 1)²`) of
//! the side to move's `H` units followed by the other side's → one output, taken from
//! one of `B` output buckets chosen by the number of pieces on the board
//! ([`bucket`]; `B = 1` is a single output). Integer
//! inference: the first layer in 16 bits scaled by `QA`, the output weights scaled by
//! `QB`, the result times `scale` in centipawns of the side to move.
//!
//! # File format (little-endian)
//! | bytes | field |
//! | --- | --- |
//! | 8 | magic `JQNNUE01` |
//! | 4 × 6 | `u32`: inputs (1 470), hidden size `H` (a multiple of 16, ≤ 1 024), `QA` (≤ 255), `QB`, `scale` (centipawns of an output of 1.0), output buckets `B` (1–16; 0 in older files means 1) |
//! | 2 × inputs × H | `i16` input weights, one row of `H` per input |
//! | 2 × H | `i16` hidden biases |
//! | 2 × 2H × B | `i16` output weights, bucket by bucket (side to move's half first), each in −128…128 |
//! | 4 × B | `i32` output biases (scaled by `QA·QB`), bucket by bucket |

pub mod accumulator;
pub mod features;
pub mod simd;

use std::sync::{Arc, OnceLock};

use jieqi_core::{Color, Position};

pub use accumulator::Accumulators;
pub use features::INPUTS;

/// The first bytes of a network file.
pub const MAGIC: &[u8; 8] = b"JQNNUE01";
/// The largest hidden size the kernels take.
pub const MAX_HIDDEN: usize = 1024;
/// Evaluations are clamped to this, far from mate and chance-decisive scores.
pub const MAX_EVAL: i32 = 15_000;
/// The most output buckets a net may have.
pub const MAX_BUCKETS: usize = 16;

/// The output bucket of a position with `pieces` pieces on the board (kings included,
/// face-up and face-down alike) in a net of `buckets` buckets: the range 2–32 cut into
/// `buckets` equal parts, so that the endgame and the opening get their own outputs.
#[inline]
pub fn bucket(pieces: usize, buckets: usize) -> usize {
    (pieces.saturating_sub(2) * buckets / 31).min(buckets - 1)
}

/// The network built into the engine, if any: the last net of the table in
/// `docs/nnue.md`, which says what it was trained on and how. A build without one
/// would need an `EvalFile` before `Use NNUE`.
const EMBEDDED: Option<&[u8]> = Some(include_bytes!("default.nnue"));

/// Why a network file was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NetworkError {
    /// The file does not start with [`MAGIC`].
    #[error("not a jieqi NNUE file (it does not start with JQNNUE01)")]
    Magic,
    /// The header is cut short.
    #[error("the header is cut short")]
    Header,
    /// The net was made for another input set.
    #[error("the net has {0} inputs; this engine's features are {INPUTS}")]
    Inputs(u32),
    /// The hidden size is not a positive multiple of 16 up to [`MAX_HIDDEN`].
    #[error("hidden size {0} is not a multiple of 16 between 16 and {MAX_HIDDEN}")]
    Hidden(u32),
    /// A quantisation constant or the scale is out of range.
    #[error("QA {qa}, QB {qb} or scale {scale} out of range (QA 1–255, QB ≥ 1, scale ≥ 1)")]
    Constants {
        /// The activation scale.
        qa: u32,
        /// The output weight scale.
        qb: u32,
        /// Centipawns per output unit.
        scale: u32,
    },
    /// The file is not as long as its header says.
    #[error("the file has {actual} bytes; its header says {expected}")]
    Length {
        /// From the header.
        expected: usize,
        /// On disk.
        actual: usize,
    },
    /// An output weight outside −128…128 (the kernels' exactness bound).
    #[error("output weight {0} is outside -128..=128")]
    OutputWeight(i16),
    /// The number of output buckets is not 1 to [`MAX_BUCKETS`].
    #[error("{0} output buckets; a net has 1 to {MAX_BUCKETS}")]
    Buckets(u32),
}

/// A quantised network, ready for inference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    hidden: usize,
    buckets: usize,
    qa: i16,
    qb: i32,
    scale: i32,
    input_weights: Vec<i16>,
    input_bias: Vec<i16>,
    output_weights: Vec<i16>,
    output_bias: Vec<i32>,
}

/// The quantised parameters of a network, as the trainer exports them.
#[derive(Clone, Debug)]
pub struct Parts {
    /// Hidden units per perspective.
    pub hidden: usize,
    /// Output buckets (1 to [`MAX_BUCKETS`]).
    pub buckets: usize,
    /// Activation scale (an activation of 1.0 is `qa`).
    pub qa: i16,
    /// Output weight scale.
    pub qb: i32,
    /// Centipawns of an output of 1.0.
    pub scale: i32,
    /// `INPUTS × hidden`, one row per input.
    pub input_weights: Vec<i16>,
    /// `hidden`.
    pub input_bias: Vec<i16>,
    /// `2 × hidden` per bucket, bucket by bucket, the side to move's half first.
    pub output_weights: Vec<i16>,
    /// One per bucket, scaled by `qa · qb`.
    pub output_bias: Vec<i32>,
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

impl Network {
    /// Builds a network from its parts, checking the sizes and ranges.
    pub fn from_parts(p: Parts) -> Result<Network, NetworkError> {
        let h = p.hidden;
        if h == 0 || h % simd::LANES != 0 || h > MAX_HIDDEN {
            return Err(NetworkError::Hidden(h as u32));
        }
        let nb = p.buckets;
        if nb == 0 || nb > MAX_BUCKETS {
            return Err(NetworkError::Buckets(nb as u32));
        }
        if p.qa <= 0 || p.qb <= 0 || p.scale <= 0 {
            return Err(NetworkError::Constants {
                qa: p.qa.max(0) as u32,
                qb: p.qb.max(0) as u32,
                scale: p.scale.max(0) as u32,
            });
        }
        let expected = INPUTS * h + h + 2 * h * nb + nb;
        let actual = p.input_weights.len()
            + p.input_bias.len()
            + p.output_weights.len()
            + p.output_bias.len();
        if p.input_weights.len() != INPUTS * h
            || p.input_bias.len() != h
            || p.output_weights.len() != 2 * h * nb
            || p.output_bias.len() != nb
        {
            return Err(NetworkError::Length { expected, actual });
        }
        if let Some(&w) = p.output_weights.iter().find(|w| !(-128..=128).contains(*w)) {
            return Err(NetworkError::OutputWeight(w));
        }
        Ok(Network {
            hidden: h,
            buckets: nb,
            qa: p.qa,
            qb: p.qb,
            scale: p.scale,
            input_weights: p.input_weights,
            input_bias: p.input_bias,
            output_weights: p.output_weights,
            output_bias: p.output_bias,
        })
    }

    /// The quantised parameters, as [`Network::from_parts`] takes them.
    pub fn parts(&self) -> Parts {
        Parts {
            hidden: self.hidden,
            buckets: self.buckets,
            qa: self.qa,
            qb: self.qb,
            scale: self.scale,
            input_weights: self.input_weights.clone(),
            input_bias: self.input_bias.clone(),
            output_weights: self.output_weights.clone(),
            output_bias: self.output_bias.clone(),
        }
    }

    /// Reads a network file (format in the module documentation).
    pub fn from_bytes(b: &[u8]) -> Result<Network, NetworkError> {
        if b.len() < 8 || &b[..8] != MAGIC {
            return Err(NetworkError::Magic);
        }
        if b.len() < 32 {
            return Err(NetworkError::Header);
        }
        let inputs = u32_at(b, 8);
        if inputs as usize != INPUTS {
            return Err(NetworkError::Inputs(inputs));
        }
        let hidden = u32_at(b, 12);
        let h = hidden as usize;
        if h == 0 || h % simd::LANES != 0 || h > MAX_HIDDEN {
            return Err(NetworkError::Hidden(hidden));
        }
        let (qa, qb, scale) = (u32_at(b, 16), u32_at(b, 20), u32_at(b, 24));
        if !(1..=255).contains(&qa) || qb == 0 || qb > 1 << 20 || scale == 0 || scale > 1 << 20 {
            return Err(NetworkError::Constants { qa, qb, scale });
        }
        let nb = match u32_at(b, 28) {
            0 => 1,
            n if n as usize <= MAX_BUCKETS => n as usize,
            n => return Err(NetworkError::Buckets(n)),
        };
        let expected = 32 + 2 * (INPUTS * h + h + 2 * h * nb) + 4 * nb;
        if b.len() != expected {
            return Err(NetworkError::Length {
                expected,
                actual: b.len(),
            });
        }
        let mut at = 32;
        let mut i16s = |n: usize| -> Vec<i16> {
            let v = b[at..at + 2 * n]
                .chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]))
                .collect();
            at += 2 * n;
            v
        };
        let input_weights = i16s(INPUTS * h);
        let input_bias = i16s(h);
        let output_weights = i16s(2 * h * nb);
        let output_bias = b[at..]
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Network::from_parts(Parts {
            hidden: h,
            buckets: nb,
            qa: qa as i16,
            qb: qb as i32,
            scale: scale as i32,
            input_weights,
            input_bias,
            output_weights,
            output_bias,
        })
    }

    /// The network file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(
            32 + 2 * (INPUTS + 1 + 2 * self.buckets) * self.hidden + 4 * self.buckets,
        );
        b.extend_from_slice(MAGIC);
        for x in [
            INPUTS as u32,
            self.hidden as u32,
            self.qa as u32,
            self.qb as u32,
            self.scale as u32,
            self.buckets as u32,
        ] {
            b.extend_from_slice(&x.to_le_bytes());
        }
        for w in self
            .input_weights
            .iter()
            .chain(&self.input_bias)
            .chain(&self.output_weights)
        {
            b.extend_from_slice(&w.to_le_bytes());
        }
        for c in &self.output_bias {
            b.extend_from_slice(&c.to_le_bytes());
        }
        b
    }

    /// The network built into the engine, if one is.
    pub fn embedded() -> Option<Arc<Network>> {
        static NET: OnceLock<Option<Arc<Network>>> = OnceLock::new();
        NET.get_or_init(|| {
            EMBEDDED.map(|b| Arc::new(Network::from_bytes(b).expect("the embedded net is valid")))
        })
        .clone()
    }

    /// Hidden units per perspective.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// Output buckets.
    pub fn buckets(&self) -> usize {
        self.buckets
    }

    /// The output bucket of `pos`.
    #[inline]
    pub fn bucket_of(&self, pos: &Position) -> usize {
        if self.buckets == 1 {
            return 0;
        }
        let board = pos.board();
        let pieces =
            board.occupancy(Color::Red).count_ones() + board.occupancy(Color::Black).count_ones();
        bucket(pieces as usize, self.buckets)
    }

    /// The weight row of input `i`.
    #[inline]
    pub fn row(&self, i: usize) -> &[i16] {
        &self.input_weights[i * self.hidden..(i + 1) * self.hidden]
    }

    /// Fills `acc` (`hidden` lanes) with `pos`'s accumulator from `perspective`.
    pub fn refresh(&self, pos: &Position, perspective: Color, acc: &mut [i16]) {
        let mut on = Vec::with_capacity(features::MAX_ACTIVE);
        features::active(pos, perspective, &mut on);
        acc.copy_from_slice(&self.input_bias);
        for &i in &on {
            for (a, &w) in acc.iter_mut().zip(self.row(usize::from(i))) {
                *a = a.wrapping_add(w);
            }
        }
    }

    /// The evaluation from the two accumulators, side to move's first, with the
    /// output of `bucket`: centipawns for the side to move.
    #[inline]
    pub fn output(&self, us: &[i16], them: &[i16], bucket: usize) -> i32 {
        let h = self.hidden;
        let w = &self.output_weights[2 * h * bucket..2 * h * (bucket + 1)];
        let dot = simd::screlu_dot(us, &w[..h], self.qa) + simd::screlu_dot(them, &w[h..], self.qa);
        // The dot product is scaled by QA²·QB; one QA goes here.
        let v = dot / i64::from(self.qa) + i64::from(self.output_bias[bucket]);
        let cp = v * i64::from(self.scale) / (i64::from(self.qa) * i64::from(self.qb));
        cp.clamp(-i64::from(MAX_EVAL), i64::from(MAX_EVAL)) as i32
    }

    /// Evaluates `pos` from scratch (both accumulators computed anew).
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let mut us = vec![0; self.hidden];
        let mut them = vec![0; self.hidden];
        self.refresh(pos, pos.turn(), &mut us);
        self.refresh(pos, !pos.turn(), &mut them);
        self.output(&us, &them, self.bucket_of(pos))
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod unit {
    use super::*;
    use tests::test_net;

    #[test]
    fn the_embedded_net_loads() {
        let net = Network::embedded().expect("a net is embedded");
        assert_eq!(net.hidden(), 64);
        assert_eq!(net.buckets(), 4);
        // Level material, Red to move, seen either way round: the same evaluation.
        let red = Position::start();
        let black = Position::from_fen(&red.fen().replace(" w ", " b ")).expect("valid");
        assert_eq!(net.evaluate(&red), net.evaluate(&black));
        assert!(net.evaluate(&red).abs() < 200, "{}", net.evaluate(&red));
    }

    #[test]
    fn file_round_trip() {
        let net = test_net(32);
        let b = net.to_bytes();
        assert_eq!(Network::from_bytes(&b), Ok(net.clone()));
        assert_eq!(
            Network::from_bytes(&b[..b.len() - 1]).unwrap_err(),
            NetworkError::Length {
                expected: b.len(),
                actual: b.len() - 1
            }
        );
        assert_eq!(Network::from_bytes(b"JQPARAMS"), Err(NetworkError::Magic));
        let mut bad = b.clone();
        bad[12] = 17;
        assert_eq!(Network::from_bytes(&bad), Err(NetworkError::Hidden(17)));
    }

    #[test]
    fn the_evaluation_is_symmetric_between_colours() {
        // The start seen by Red to move and by Black to move is the same picture.
        let net = test_net(64);
        let red = Position::start();
        let fen = red.fen().replace(" w ", " b ");
        let black = Position::from_fen(&fen).expect("valid");
        assert_eq!(net.evaluate(&red), net.evaluate(&black));
    }
}
