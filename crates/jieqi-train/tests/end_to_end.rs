//! The whole pipeline on a small scale: self-play data, a tiny net trained a few
//! epochs, the net written, loaded by the engine's UCI loop and evaluating
//! consistently (incremental accumulators equal to accumulators from scratch).

use std::io::Write;
use std::sync::{Arc, Mutex};

use jieqi_core::{Position, Reveals};
use jieqi_engine::datagen::{self, Config};
use jieqi_engine::nnue::{Accumulators, Network};
use jieqi_train::{FloatNet, TrainConfig, data, train, train_from};

/// An output the UCI loop can own while the test reads it afterwards.
#[derive(Clone, Default)]
struct SharedBuf(Arc<Mutex<Vec<u8>>>);

impl Write for SharedBuf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("lock").extend_from_slice(b);
        Ok(b.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn generate_train_load_and_evaluate() {
    let dir = std::env::temp_dir().join(format!("jieqi-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let data_path = dir.join("data.bin");
    let _ = std::fs::remove_file(&data_path);
    let cfg = Config {
        games: 10,
        nodes: 400,
        seed: 5,
        random_plies: 4,
        threads: 2,
    };
    let p = datagen::run(&cfg, &data_path, &mut |_| {}).expect("datagen");
    assert!(
        p.positions >= 200,
        "a few hundred positions: {}",
        p.positions
    );

    let all = data::Selection {
        valid_every: 5,
        sample: 1,
        mirror: true,
    };
    let (train_set, valid_set) = data::load(&[&data_path], all).expect("loads");
    assert!(!train_set.is_empty() && !valid_set.is_empty());
    // A sample of each game's positions: fewer to train on, the held-out games whole.
    let (sampled, sampled_valid) =
        data::load(&[&data_path], data::Selection { sample: 4, ..all }).expect("loads");
    assert_eq!(sampled_valid.len(), valid_set.len());
    assert!(
        !sampled.is_empty() && sampled.len() * 2 < train_set.len(),
        "about a quarter kept: {} of {}",
        sampled.len(),
        train_set.len()
    );
    let tc = TrainConfig {
        hidden: 16,
        buckets: 2,
        epochs: 6,
        batch: 64,
        lr: 0.01,
        lr_decay: 0.9,
        threads: 2,
        ..TrainConfig::default()
    };
    let (net, reports) = train(&tc, &train_set, &valid_set, &mut |_| {});
    let (first, last) = (
        reports[0].train_loss,
        reports.last().expect("epochs").train_loss,
    );
    assert!(
        last < first * 0.9,
        "the training loss falls: {first} -> {last}"
    );
    // The loss after training, measured without the updates of the epoch.
    assert!(net.loss(&train_set, tc.scale, tc.lambda) < first);

    let net_path = dir.join("tiny.nnue");
    let q = net.quantise(tc.scale as i32).expect("fits the format");
    std::fs::write(&net_path, q.to_bytes()).expect("write");
    let loaded = Network::from_bytes(&std::fs::read(&net_path).expect("read")).expect("loads");
    assert_eq!(loaded, q);

    // Training goes on from a written net: the float net it stands for quantises back
    // to it, and epoch 0 of `train_from` is that net, not a random one.
    let resumed = FloatNet::from_network(&loaded);
    assert_eq!(resumed.quantise(tc.scale as i32).expect("fits"), loaded);
    let one = TrainConfig { epochs: 1, ..tc };
    let (_, again) = train_from(&one, resumed, &train_set, &valid_set, &mut |_| {});
    // On the training positions, where the trained net is far from a random one (on
    // held-out positions a tiny net may be no better than random).
    let trained = net.loss(&train_set, tc.scale, tc.lambda);
    let (from_file, random) = (again[0].train_loss, reports[0].train_loss);
    assert!(
        (from_file - trained).abs() * 20.0 < (random - trained).abs(),
        "epoch 0 of the resumed run is the written net: {from_file} vs {trained} (random {random})"
    );

    // Incremental == from scratch along a game of the data's first deal.
    let deal = datagen::deal_of(cfg.seed, 0);
    let mut pos = Position::start();
    let mut acc = Accumulators::new(&loaded, &pos);
    for _ in 0..60 {
        let moves = pos.legal_moves();
        let Some(&m) = moves.first() else { break };
        let (moved, captured) = (pos.piece_at(m.from), pos.piece_at(m.to));
        let pool = *pos.pool();
        let rv = Reveals {
            mover: deal.reveals(&pos, m).mover,
            captured: None,
        };
        pos.play_unchecked(m, rv);
        acc.push_move(m, moved, captured, pool, &pos);
        assert_eq!(acc.evaluate(&pos), loaded.evaluate(&pos), "{}", pos.fen());
    }

    // The UCI loop loads it and evaluates with it.
    let fen = "3pk1xxC/na2rR3/4pr3/8n/bA1cP1p1p/N5P2/9/P1P1P1N1C/2A1B3R/4KX3 w B1a1b1 - 7 21";
    let input = format!(
        "position fen {fen}\nsetoption name Use NNUE value false\neval\n\
         setoption name Use NNUE value true\neval\n\
         setoption name EvalFile value {}\neval\ngo depth 3\nquit\n",
        net_path.display()
    );
    let out = SharedBuf::default();
    jieqi_engine::uci::run(std::io::Cursor::new(input), out.clone());
    let out = String::from_utf8(out.0.lock().expect("lock").clone()).expect("utf-8");
    // The hand-written evaluation, then the embedded net, then the tiny one.
    let pos = Position::from_fen(fen).expect("valid");
    let evals: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("info string eval "))
        .collect();
    let hand = jieqi_engine::eval::evaluate(&jieqi_engine::Params::default(), &pos);
    let embedded = Network::embedded()
        .expect("a net is embedded")
        .evaluate(&pos);
    let tiny = loaded.evaluate(&pos);
    let expected: Vec<String> = [hand, embedded, tiny]
        .iter()
        .map(|v| format!("info string eval {v} (side to move)"))
        .collect();
    assert_eq!(evals, expected, "{out}");
    assert!(out.contains("bestmove "), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
