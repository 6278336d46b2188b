//! `jieqi-engine`: the Jieqi engine speaking UCI on stdin/stdout at once (GUIs often
//! cannot pass arguments). Also:
//! - `jieqi-engine bench [DEPTH]`: the bench (node signature and nodes/s);
//! - `jieqi-engine selfplay GAMES NODES SEED OUT`: self-play training data `FEN | RESULT`;
//! - `jieqi-engine tune DATA EPOCHS OUT [L2]`: Texel-tunes the evaluation on DATA and writes
//!   the parameters to OUT.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => {
            let stdin = std::io::BufReader::new(std::io::stdin());
            jieqi_engine::uci::run(stdin, std::io::stdout());
            ExitCode::SUCCESS
        }
        Some("bench") => {
            let depth = args.get(1).and_then(|d| d.parse().ok());
            let r = jieqi_engine::bench::run(depth, &mut |l| println!("{l}"));
            println!("{}", r.summary());
            ExitCode::SUCCESS
        }
        Some("selfplay") if args.len() == 5 => {
            let (Ok(games), Ok(nodes), Ok(seed)) =
                (args[1].parse(), args[2].parse(), args[3].parse())
            else {
                eprintln!("usage: jieqi-engine selfplay GAMES NODES SEED OUT");
                return ExitCode::FAILURE;
            };
            let lines = jieqi_engine::tune::selfplay(games, nodes, seed, &mut |l| eprintln!("{l}"));
            let text = lines.join("\n") + "\n";
            match std::fs::write(&args[4], text) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("cannot write {}: {e}", args[4]);
                    ExitCode::FAILURE
                }
            }
        }
        Some("tune") if args.len() == 4 || args.len() == 5 => {
            let usage = "usage: jieqi-engine tune DATA EPOCHS OUT [L2]";
            let mut cfg = jieqi_engine::tune::TuneConfig::default();
            match (args[2].parse(), args.get(4).map(|a| a.parse())) {
                (Ok(epochs), None) => cfg.epochs = epochs,
                (Ok(epochs), Some(Ok(l2))) => {
                    cfg.epochs = epochs;
                    cfg.l2 = l2;
                }
                _ => {
                    eprintln!("{usage}");
                    return ExitCode::FAILURE;
                }
            }
            let data = match std::fs::read_to_string(&args[1])
                .map_err(|e| e.to_string())
                .and_then(|t| jieqi_engine::tune::parse_data(&t))
            {
                Ok(d) => d,
                Err(e) => {
                    eprintln!("cannot read {}: {e}", args[1]);
                    return ExitCode::FAILURE;
                }
            };
            // Every tenth position is held out, to show whether the fit generalises.
            let (train, valid) = jieqi_engine::tune::split(data, 10);
            let r = jieqi_engine::tune::tune(
                &jieqi_engine::Params::default(),
                &train,
                &valid,
                cfg,
                &mut |l| eprintln!("{l}"),
            );
            eprintln!(
                "error {:.6} -> {:.6}, held out {:.6} -> {:.6}",
                r.error_before, r.error_after, r.valid_before, r.valid_after
            );
            match std::fs::write(&args[3], r.params.to_text()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("cannot write {}: {e}", args[3]);
                    ExitCode::FAILURE
                }
            }
        }
        Some(_) => {
            eprintln!(
                "usage: jieqi-engine [bench [DEPTH] | selfplay GAMES NODES SEED OUT | tune DATA EPOCHS OUT [L2]]"
            );
            ExitCode::FAILURE
        }
    }
}
