//! The trainer of the engine's NNUE evaluation (`jieqi train`; `docs/nnue.md`).
//!
//! A small trainer of our own, on the CPU: the net is small (1 470 sparse inputs → 2 ×
//! `H` → 1), so a sparse forward and backward pass per position on plain `f32`
//! vectors, split over threads by mini-batch, keeps both cores busy without any
//! framework; `docs/nnue.md` gives the measured throughput and why no existing trainer
//! was taken. The same crate's features are the engine's ([`jieqi_engine::nnue`]), so
//! training and inference cannot drift apart.
//!
//! - [`data`]: reads `jieqi datagen` files into feature lists and targets; splits off
//!   the held-out games.
//! - [`net`]: the float network, its gradients, Adam, and the export to the engine's
//!   quantised format.
//! - [`train`]: the training loop (epochs of shuffled mini-batches, threads,
//!   validation loss).

pub mod data;
pub mod net;
pub mod train;

pub use data::Dataset;
pub use net::FloatNet;
pub use train::{TrainConfig, train, train_from};
