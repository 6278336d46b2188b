//! The network in floating point: forward and backward passes over sparse inputs,
//! Adam, and the export to the engine's int16 format. The output layer has one set of
//! weights per output bucket (chosen by the number of pieces on the board,
//! [`jieqi_engine::nnue::bucket`]); only the position's bucket is used and trained.

use jieqi_engine::nnue::{INPUTS, Network, NetworkError, Parts};

use crate::data::Dataset;

/// Activation scale of the exported net: an activation of 1.0 is 255.
pub const QA: i16 = 255;
/// Output weight scale of the exported net.
pub const QB: i32 = 64;
/// Weights of the first layer are kept within ±this, so that the int16 accumulator of
/// 62 inputs cannot overflow (62 · 1.98 · 255 < 32 767).
pub const CLIP_INPUT: f32 = 1.98;
/// Output weights are kept within ±this, so that they quantise into −127…127.
pub const CLIP_OUTPUT: f32 = 127.0 / QB as f32;

/// The float network: `INPUTS → 2 × hidden → 1` (one output per bucket), SCReLU.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    /// Hidden units per perspective.
    pub hidden: usize,
    /// Output buckets.
    pub buckets: usize,
    /// All parameters in one vector: input weights (`INPUTS × hidden`, one row per
    /// input), hidden biases (`hidden`), output weights (`2 × hidden` per bucket),
    /// output biases (one per bucket).
    pub w: Vec<f32>,
}

/// Where each block of parameters starts.
#[derive(Clone, Copy, Debug)]
struct Layout {
    h: usize,
    buckets: usize,
    bias: usize,
    out: usize,
    out_bias: usize,
    len: usize,
}

impl Layout {
    fn new(h: usize, buckets: usize) -> Layout {
        let bias = INPUTS * h;
        let out = bias + h;
        let out_bias = out + 2 * h * buckets;
        Layout {
            h,
            buckets,
            bias,
            out,
            out_bias,
            len: out_bias + buckets,
        }
    }

    /// Where bucket `b`'s output weights start.
    fn out_of(&self, b: usize) -> usize {
        self.out + 2 * self.h * b
    }
}

/// `clamp(x, 0, 1)`.
#[inline]
fn crelu(x: f32) -> f32 {
    x.clamp(0.0, 1.0)
}

/// The logistic function.
#[inline]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// What the loss compares the prediction with: `lambda · σ(score / scale) + (1 −
/// lambda) · result`.
#[inline]
pub fn target(score: f32, result: f32, scale: f32, lambda: f32) -> f32 {
    lambda * sigmoid(score / scale) + (1.0 - lambda) * result
}

/// Scratch space for one thread's passes.
#[derive(Clone, Debug)]
pub struct Scratch {
    acc: Vec<f32>,
    dacc: Vec<f32>,
}

impl Scratch {
    /// Scratch space for a net of `hidden` units.
    pub fn new(hidden: usize) -> Scratch {
        Scratch {
            acc: vec![0.0; 2 * hidden],
            dacc: vec![0.0; 2 * hidden],
        }
    }
}

impl FloatNet {
    /// A net of `buckets` output buckets with small random weights drawn from `seed`.
    pub fn new(hidden: usize, buckets: usize, seed: u64) -> FloatNet {
        let l = Layout::new(hidden, buckets);
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut uniform = |a: f32| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * a
        };
        let mut w = vec![0.0; l.len];
        for v in &mut w[..l.bias] {
            *v = uniform(0.1);
        }
        for v in &mut w[l.bias..l.out] {
            *v = uniform(0.1);
        }
        let out_scale = 1.0 / (2.0 * hidden as f32).sqrt();
        for v in &mut w[l.out..l.out_bias] {
            *v = uniform(out_scale);
        }
        FloatNet { hidden, buckets, w }
    }

    /// The float net that the quantised `net` stands for: each weight divided by the
    /// scale it was quantised with. Quantising it again with the same scales gives
    /// `net` back, so training can go on from a net `jieqi train` wrote.
    pub fn from_network(net: &Network) -> FloatNet {
        let p = net.parts();
        let qa = f32::from(p.qa);
        let qb = p.qb as f32;
        let mut w = Vec::with_capacity(Layout::new(p.hidden, p.buckets).len);
        w.extend(p.input_weights.iter().map(|&v| f32::from(v) / qa));
        w.extend(p.input_bias.iter().map(|&v| f32::from(v) / qa));
        w.extend(p.output_weights.iter().map(|&v| f32::from(v) / qb));
        w.extend(p.output_bias.iter().map(|&v| v as f32 / (qa * qb)));
        FloatNet {
            hidden: p.hidden,
            buckets: p.buckets,
            w,
        }
    }

    /// This net with `hidden` units per perspective instead of its own (at least as
    /// many), computing the same function: the old units keep their weights, the new
    /// ones get small random input weights and biases (from `seed`) and output weights
    /// of zero, so they contribute nothing until training moves them. Training a small
    /// net on into a larger one ("net2net" widening) starts from what it has learnt.
    pub fn widen(&self, hidden: usize, seed: u64) -> FloatNet {
        assert!(hidden >= self.hidden, "a net is only widened");
        let (old, new) = (self.layout(), Layout::new(hidden, self.buckets));
        let mut w = FloatNet::new(hidden, self.buckets, seed).w;
        let h0 = self.hidden;
        for i in 0..INPUTS {
            w[i * hidden..i * hidden + h0].copy_from_slice(&self.w[i * h0..(i + 1) * h0]);
        }
        w[new.bias..new.bias + h0].copy_from_slice(&self.w[old.bias..old.out]);
        for b in 0..self.buckets {
            let (from, to) = (old.out_of(b), new.out_of(b));
            w[to..to + 2 * hidden].fill(0.0);
            // The side to move's half, then the other side's.
            w[to..to + h0].copy_from_slice(&self.w[from..from + h0]);
            w[to + hidden..to + hidden + h0].copy_from_slice(&self.w[from + h0..from + 2 * h0]);
        }
        w[new.out_bias..].copy_from_slice(&self.w[old.out_bias..]);
        FloatNet {
            hidden,
            buckets: self.buckets,
            w,
        }
    }

    fn layout(&self) -> Layout {
        Layout::new(self.hidden, self.buckets)
    }

    /// Parameters in all.
    pub fn len(&self) -> usize {
        self.w.len()
    }

    /// Whether the net has no parameters (never: at least the output bias).
    pub fn is_empty(&self) -> bool {
        self.w.is_empty()
    }

    /// Fills the accumulators of position `i` into `s.acc` and returns the output
    /// (before the sigmoid).
    #[inline]
    fn forward_into(&self, data: &Dataset, i: usize, s: &mut Scratch) -> f32 {
        let l = self.layout();
        let h = l.h;
        let (us, them) = data.inputs(i);
        for (half, inputs) in [(0, us), (1, them)] {
            let acc = &mut s.acc[half * h..(half + 1) * h];
            acc.copy_from_slice(&self.w[l.bias..l.out]);
            for &f in inputs {
                let row = &self.w[usize::from(f) * h..(usize::from(f) + 1) * h];
                for (a, &w) in acc.iter_mut().zip(row) {
                    *a += w;
                }
            }
        }
        let b = data.bucket(i, l.buckets);
        let out_w = &self.w[l.out_of(b)..l.out_of(b + 1)];
        let mut out = self.w[l.out_bias + b];
        for (&a, &w) in s.acc.iter().zip(out_w) {
            let c = crelu(a);
            out += c * c * w;
        }
        out
    }

    /// The output of position `i` (before the sigmoid): the evaluation in units of
    /// the scale.
    pub fn forward(&self, data: &Dataset, i: usize) -> f32 {
        self.forward_into(data, i, &mut Scratch::new(self.hidden))
    }

    /// Adds the gradient of position `i`'s loss `(σ(out) − target)²` to `grad` and
    /// returns the loss.
    pub fn backward(
        &self,
        data: &Dataset,
        i: usize,
        (scale, lambda): (f32, f32),
        s: &mut Scratch,
        grad: &mut [f32],
    ) -> f32 {
        let l = self.layout();
        let h = l.h;
        let out = self.forward_into(data, i, s);
        let pred = sigmoid(out);
        let err = pred - target(data.score(i), data.result(i), scale, lambda);
        let g = 2.0 * err * pred * (1.0 - pred);
        let b = data.bucket(i, l.buckets);
        grad[l.out_bias + b] += g;
        let out_w = &self.w[l.out_of(b)..l.out_of(b + 1)];
        let out_g = &mut grad[l.out_of(b)..l.out_of(b + 1)];
        for j in 0..2 * h {
            let a = s.acc[j];
            let c = crelu(a);
            out_g[j] += g * c * c;
            s.dacc[j] = if a > 0.0 && a < 1.0 {
                g * out_w[j] * 2.0 * c
            } else {
                0.0
            };
        }
        let (us, them) = data.inputs(i);
        for (half, inputs) in [(0, us), (1, them)] {
            let d = &s.dacc[half * h..(half + 1) * h];
            for (b, &x) in grad[l.bias..l.out].iter_mut().zip(d) {
                *b += x;
            }
            for &f in inputs {
                let row = &mut grad[usize::from(f) * h..(usize::from(f) + 1) * h];
                for (r, &x) in row.iter_mut().zip(d) {
                    *r += x;
                }
            }
        }
        err * err
    }

    /// The mean loss over `data` (no gradient).
    pub fn loss(&self, data: &Dataset, scale: f32, lambda: f32) -> f64 {
        if data.is_empty() {
            return 0.0;
        }
        let mut s = Scratch::new(self.hidden);
        let sum: f64 = (0..data.len())
            .map(|i| {
                let pred = sigmoid(self.forward_into(data, i, &mut s));
                let e = pred - target(data.score(i), data.result(i), scale, lambda);
                f64::from(e * e)
            })
            .sum();
        sum / data.len() as f64
    }

    /// Keeps the weights within the ranges the quantised net can hold.
    pub fn clip(&mut self) {
        let l = self.layout();
        for v in &mut self.w[..l.out] {
            *v = v.clamp(-CLIP_INPUT, CLIP_INPUT);
        }
        for v in &mut self.w[l.out..l.out_bias] {
            *v = v.clamp(-CLIP_OUTPUT, CLIP_OUTPUT);
        }
    }

    /// The engine's quantised net, evaluating `output × scale` centipawns.
    pub fn quantise(&self, scale: i32) -> Result<Network, NetworkError> {
        let l = self.layout();
        let q = |v: f32, k: f32| (v * k).round();
        let qa = f32::from(QA);
        Network::from_parts(Parts {
            hidden: self.hidden,
            buckets: self.buckets,
            qa: QA,
            qb: QB,
            scale,
            input_weights: self.w[..l.bias].iter().map(|&v| q(v, qa) as i16).collect(),
            input_bias: self.w[l.bias..l.out]
                .iter()
                .map(|&v| q(v, qa) as i16)
                .collect(),
            output_weights: self.w[l.out..l.out_bias]
                .iter()
                .map(|&v| q(v, QB as f32) as i16)
                .collect(),
            output_bias: self.w[l.out_bias..]
                .iter()
                .map(|&v| q(v, qa * QB as f32) as i32)
                .collect(),
        })
    }
}

/// Adam's state: first and second moment estimates.
#[derive(Clone, Debug)]
pub struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
    t: i32,
    /// Decay of the first moment.
    pub beta1: f32,
    /// Decay of the second moment.
    pub beta2: f32,
}

impl Adam {
    /// Fresh state for `n` parameters.
    pub fn new(n: usize) -> Adam {
        Adam {
            m: vec![0.0; n],
            v: vec![0.0; n],
            t: 0,
            beta1: 0.9,
            beta2: 0.999,
        }
    }

    /// One step of learning rate `lr` along `grad`.
    pub fn step(&mut self, w: &mut [f32], grad: &[f32], lr: f32) {
        self.t += 1;
        let (b1, b2) = (self.beta1, self.beta2);
        let c1 = 1.0 - b1.powi(self.t);
        let c2 = 1.0 - b2.powi(self.t);
        let step = lr * c2.sqrt() / c1;
        for (((w, &g), m), v) in w.iter_mut().zip(grad).zip(&mut self.m).zip(&mut self.v) {
            *m = b1 * *m + (1.0 - b1) * g;
            *v = b2 * *v + (1.0 - b2) * g * g;
            *w -= step * *m / (v.sqrt() + 1e-8);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jieqi_core::Position;
    use jieqi_engine::datagen::record::Record;

    fn one_position(score: i16, result: u8) -> Dataset {
        let fen = "3pk1xxC/na2rR3/4pr3/8n/bA1cP1p1p/N5P2/9/P1P1P1N1C/2A1B3R/4KX3 w B1a1b1 - 7 21";
        let mut d = Dataset::default();
        d.push(&Record {
            position: Position::from_fen(fen).expect("valid"),
            score,
            result,
            game: 0,
            last: true,
        });
        d
    }

    /// A random net whose hidden biases sit in the open range, so that most units
    /// are active.
    fn active_net(hidden: usize, buckets: usize, seed: u64) -> FloatNet {
        let mut net = FloatNet::new(hidden, buckets, seed);
        let l = Layout::new(hidden, buckets);
        for v in &mut net.w[l.bias..l.out] {
            *v = 0.3;
        }
        net
    }

    #[test]
    fn the_gradient_matches_finite_differences() {
        let d = one_position(150, 2);
        let net = active_net(16, 3, 7);
        let l = Layout::new(16, 3);
        let cfg = (400.0, 0.5);
        let mut grad = vec![0.0; net.len()];
        net.backward(&d, 0, cfg, &mut Scratch::new(16), &mut grad);
        let (us, _) = d.inputs(0);
        // The position's bucket: its outputs have a gradient, the other buckets' none.
        let b = d.bucket(0, 3);
        let probes = [
            usize::from(us[0]) * 16 + 3,
            l.bias + 5,
            l.out_of(b) + 2,
            l.out_of(b) + 16 + 9,
            l.out_bias + b,
            l.out_of((b + 1) % 3) + 4,
            l.out_bias + (b + 1) % 3,
        ];
        for k in probes {
            let eps = 1e-3;
            let mut plus = net.clone();
            plus.w[k] += eps;
            let mut minus = net.clone();
            minus.w[k] -= eps;
            let numeric = (plus.loss(&d, cfg.0, cfg.1) - minus.loss(&d, cfg.0, cfg.1))
                / (2.0 * f64::from(eps));
            let analytic = f64::from(grad[k]);
            assert!(
                (numeric - analytic).abs() <= 1e-3 * (1.0 + analytic.abs()) + 1e-5,
                "parameter {k}: numeric {numeric}, analytic {analytic}"
            );
        }
    }

    #[test]
    fn a_widened_net_evaluates_as_before_and_then_learns_with_its_new_units() {
        let d = one_position(150, 2);
        let net = active_net(16, 3, 5);
        let wl = Layout::new(48, 3);
        let wide = net.widen(48, 9);
        assert_eq!((wide.hidden, wide.buckets), (48, 3));
        assert_eq!(wide.len(), wl.len);
        assert_eq!(wide.forward(&d, 0), net.forward(&d, 0));
        // Widening to the same size changes nothing.
        assert_eq!(net.widen(16, 9), net);
        // The new units' output weights have a gradient (they are active), so a step
        // of training uses them.
        let mut grad = vec![0.0; wide.len()];
        wide.backward(&d, 0, (400.0, 0.5), &mut Scratch::new(48), &mut grad);
        let b = d.bucket(0, 3);
        let new_units = wl.out_of(b) + 16..wl.out_of(b) + 48;
        assert!(grad[new_units].iter().any(|&g| g != 0.0));
    }

    #[test]
    fn the_quantised_net_evaluates_like_the_float_net() {
        let d = one_position(0, 1);
        let mut net = FloatNet::new(32, 4, 3);
        let l = Layout::new(32, 4);
        for v in &mut net.w[l.bias..l.out] {
            *v = 0.25;
        }
        net.clip();
        let scale = 400;
        let q = net.quantise(scale).expect("in range");
        let fen = "3pk1xxC/na2rR3/4pr3/8n/bA1cP1p1p/N5P2/9/P1P1P1N1C/2A1B3R/4KX3 w B1a1b1 - 7 21";
        let float_cp = net.forward(&d, 0) * scale as f32;
        let int_cp = q.evaluate(&Position::from_fen(fen).expect("valid")) as f32;
        assert!(
            (float_cp - int_cp).abs() <= 3.0 + 0.02 * float_cp.abs(),
            "float {float_cp} int {int_cp}"
        );
    }
}
