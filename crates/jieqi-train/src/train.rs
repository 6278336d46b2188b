//! The training loop: epochs of shuffled mini-batches, each batch's gradient summed
//! over threads, Adam, clipping to the quantisable ranges, validation loss per epoch.

use std::time::Instant;

use crate::data::Dataset;
use crate::net::{Adam, FloatNet, Scratch};

/// Training settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainConfig {
    /// Hidden units per perspective (a multiple of 16).
    pub hidden: usize,
    /// Output buckets (by the number of pieces on the board).
    pub buckets: usize,
    /// Passes over the training set.
    pub epochs: u32,
    /// Positions per gradient step.
    pub batch: usize,
    /// Adam's learning rate in the first epoch.
    pub lr: f32,
    /// The learning rate is multiplied by this after each epoch.
    pub lr_decay: f32,
    /// Centipawns of an output of 1.0: the target is `σ(score / scale)`.
    pub scale: f32,
    /// Weight of the search score in the target; the rest is the game result.
    pub lambda: f32,
    /// Threads sharing each batch.
    pub threads: usize,
    /// Seed of the initial weights and of the shuffles.
    pub seed: u64,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            hidden: 128,
            buckets: 1,
            epochs: 10,
            batch: 16384,
            lr: 0.001,
            lr_decay: 0.85,
            scale: 500.0,
            lambda: 0.7,
            threads: 2,
            seed: 1,
        }
    }
}

/// What one epoch did.
#[derive(Clone, Copy, Debug)]
pub struct EpochReport {
    /// The epoch, from 1.
    pub epoch: u32,
    /// Mean training loss over the epoch's batches (weights changing meanwhile).
    pub train_loss: f64,
    /// Mean loss on the held-out positions after the epoch.
    pub valid_loss: f64,
    /// Training positions per second of the epoch.
    pub positions_per_second: f64,
    /// The learning rate used.
    pub lr: f32,
}

/// Trains a net on `train`, reporting each epoch (and the held-out loss of the
/// untrained net as epoch 0). Returns the net of the epoch with the lowest held-out
/// loss (the last epoch's without held-out positions) and the reports.
pub fn train(
    cfg: &TrainConfig,
    train: &Dataset,
    valid: &Dataset,
    report: &mut dyn FnMut(&EpochReport),
) -> (FloatNet, Vec<EpochReport>) {
    let net = FloatNet::new(cfg.hidden, cfg.buckets, cfg.seed);
    train_from(cfg, net, train, valid, report)
}

/// As [`train`], from the weights of `net` instead of random ones (its hidden units
/// and output buckets stand; those of `cfg` are not used). Epoch 0 reports `net`
/// itself.
pub fn train_from(
    cfg: &TrainConfig,
    mut net: FloatNet,
    train: &Dataset,
    valid: &Dataset,
    report: &mut dyn FnMut(&EpochReport),
) -> (FloatNet, Vec<EpochReport>) {
    let mut adam = Adam::new(net.len());
    let threads = cfg.threads.max(1);
    let mut grads = vec![vec![0.0f32; net.len()]; threads];
    let mut scratch = vec![Scratch::new(net.hidden); threads];
    let mut order: Vec<u32> = (0..train.len() as u32).collect();
    let mut rng = cfg.seed.wrapping_mul(0xD1B5_4A32_D192_ED03) | 1;
    let mut reports = Vec::new();
    let r0 = EpochReport {
        epoch: 0,
        train_loss: net.loss(train, cfg.scale, cfg.lambda),
        valid_loss: net.loss(valid, cfg.scale, cfg.lambda),
        positions_per_second: 0.0,
        lr: 0.0,
    };
    report(&r0);
    reports.push(r0);
    let mut lr = cfg.lr;
    let mut best: Option<(f64, FloatNet)> = None;
    for epoch in 1..=cfg.epochs {
        let start = Instant::now();
        // Fisher–Yates with a xorshift stream.
        for i in (1..order.len()).rev() {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            order.swap(i, (rng % (i as u64 + 1)) as usize);
        }
        let mut loss_sum = 0.0f64;
        for batch in order.chunks(cfg.batch.max(1)) {
            let per = batch.len().div_ceil(threads);
            let net_ref = &net;
            let losses: Vec<f64> = std::thread::scope(|scope| {
                let handles: Vec<_> = batch
                    .chunks(per)
                    .zip(grads.iter_mut())
                    .zip(scratch.iter_mut())
                    .map(|((part, g), s)| {
                        scope.spawn(move || {
                            g.iter_mut().for_each(|x| *x = 0.0);
                            part.iter()
                                .map(|&i| {
                                    f64::from(net_ref.backward(
                                        train,
                                        i as usize,
                                        (cfg.scale, cfg.lambda),
                                        s,
                                        g,
                                    ))
                                })
                                .sum::<f64>()
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("a training thread panicked"))
                    .collect()
            });
            loss_sum += losses.iter().sum::<f64>();
            let used = batch.len().div_ceil(per);
            let (first, rest) = grads.split_at_mut(1);
            let total = &mut first[0];
            for g in &rest[..used - 1] {
                for (t, &x) in total.iter_mut().zip(g) {
                    *t += x;
                }
            }
            let n = batch.len() as f32;
            total.iter_mut().for_each(|x| *x /= n);
            adam.step(&mut net.w, total, lr);
            net.clip();
        }
        let secs = start.elapsed().as_secs_f64();
        let r = EpochReport {
            epoch,
            train_loss: loss_sum / train.len().max(1) as f64,
            valid_loss: net.loss(valid, cfg.scale, cfg.lambda),
            positions_per_second: train.len() as f64 / secs.max(1e-9),
            lr,
        };
        report(&r);
        reports.push(r);
        if !valid.is_empty() && best.as_ref().is_none_or(|(v, _)| r.valid_loss < *v) {
            best = Some((r.valid_loss, net.clone()));
        }
        lr *= cfg.lr_decay;
    }
    (best.map_or(net, |(_, n)| n), reports)
}
