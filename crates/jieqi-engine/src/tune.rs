//! Texel tuning of the evaluation, and the self-play games that feed it.
//!
//! Data: one position per line, `FEN | RESULT`, the result from Red's point of view
//! (`1-0`, `0-1`, `1/2-1/2`, or `1`, `0`, `0.5`). [`selfplay`] writes such lines.
//!
//! The evaluation is linear in its parameters ([`crate::eval`]), so each position is
//! reduced once to its sparse feature vector; the tuner then fits the scale `K` of the
//! logistic `P(red wins) = 1 / (1 + 10^(-K·eval/400))` and minimises the mean squared
//! error of that prediction against the results by full-batch gradient descent (Adam).

use jieqi_core::game::Judge;
use jieqi_core::{Color, Deal, Game, Outcome, Position, RuleSet, Viewer};

use crate::engine::{Engine, Limits, Options, Score};
use crate::eval::{COUNT, Features, Params, trace};

/// One training position: sparse features (Red's view) and the game result for Red.
#[derive(Clone, Debug)]
pub struct Sample {
    features: Vec<(u16, f32)>,
    result: f64,
}

/// Reads the result field.
fn parse_result(s: &str) -> Option<f64> {
    match s.trim() {
        "1-0" | "1" | "1.0" => Some(1.0),
        "0-1" | "0" | "0.0" => Some(0.0),
        "1/2-1/2" | "0.5" | "1/2" => Some(0.5),
        _ => None,
    }
}

/// Turns one position into a sample.
pub fn sample(pos: &Position, result: f64) -> Sample {
    let mut f = Features::default();
    trace(&Params::default(), pos, &mut f);
    let features =
        f.0.iter()
            .enumerate()
            .filter(|(_, v)| **v != 0.0)
            .map(|(i, &v)| (i as u16, v as f32))
            .collect();
    Sample { features, result }
}

/// Reads `FEN | RESULT` lines; blank lines and `#` comments are skipped. Errors name
/// the line.
pub fn parse_data(text: &str) -> Result<Vec<Sample>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (fen, res) = line
            .rsplit_once('|')
            .ok_or_else(|| format!("line {}: expected `FEN | RESULT`", i + 1))?;
        let result = parse_result(res)
            .ok_or_else(|| format!("line {}: bad result {:?}", i + 1, res.trim()))?;
        let pos = Position::from_fen(fen.trim()).map_err(|e| format!("line {}: {e}", i + 1))?;
        out.push(sample(&pos, result));
    }
    Ok(out)
}

fn sigmoid(k: f64, eval: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * eval / 400.0))
}

fn linear(w: &[f64], s: &Sample) -> f64 {
    s.features
        .iter()
        .map(|&(i, v)| w[usize::from(i)] * f64::from(v))
        .sum()
}

/// Mean squared error of the predictions with weights `w` and scale `k`.
pub fn error(w: &[f64], k: f64, data: &[Sample]) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    data.iter()
        .map(|s| (s.result - sigmoid(k, linear(w, s))).powi(2))
        .sum::<f64>()
        / data.len() as f64
}

/// The scale `K` that best fits the data with weights `w` (golden-section search).
pub fn fit_k(w: &[f64], data: &[Sample]) -> f64 {
    let (mut a, mut b) = (0.05f64, 5.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let c = b - g * (b - a);
        let d = a + g * (b - a);
        if error(w, c, data) < error(w, d, data) {
            b = d;
        } else {
            a = c;
        }
    }
    (a + b) / 2.0
}

/// The outcome of tuning.
#[derive(Clone, Debug)]
pub struct TuneResult {
    /// The tuned parameters.
    pub params: Params,
    /// The scale used.
    pub k: f64,
    /// Error on the training data before tuning.
    pub error_before: f64,
    /// Error on the training data after tuning.
    pub error_after: f64,
    /// Error on the held-out data before tuning.
    pub valid_before: f64,
    /// Error on the held-out data after tuning.
    pub valid_after: f64,
}

/// How [`tune`] runs.
#[derive(Clone, Copy, Debug)]
pub struct TuneConfig {
    /// Full-batch Adam steps.
    pub epochs: usize,
    /// Learning rate, in centipawns.
    pub lr: f64,
    /// Weight of the L2 penalty on the distance from the start parameters, per square
    /// pawn (100 cp) of each parameter's change: it keeps the many rarely-seen
    /// piece-square entries near their start values.
    pub l2: f64,
}

impl Default for TuneConfig {
    fn default() -> TuneConfig {
        TuneConfig {
            epochs: 1000,
            lr: 2.0,
            l2: 1e-5,
        }
    }
}

/// Splits samples into training data and every `nth` sample held out for validation.
pub fn split(data: Vec<Sample>, nth: usize) -> (Vec<Sample>, Vec<Sample>) {
    let (mut train, mut valid) = (Vec::new(), Vec::new());
    for (i, s) in data.into_iter().enumerate() {
        if nth > 0 && i % nth == nth - 1 {
            valid.push(s);
        } else {
            train.push(s);
        }
    }
    (train, valid)
}

/// Tunes `start` on `train` by full-batch Adam (see [`TuneConfig`]), reporting progress
/// and the error on the held-out `valid` to `log`.
pub fn tune(
    start: &Params,
    train: &[Sample],
    valid: &[Sample],
    cfg: TuneConfig,
    log: &mut dyn FnMut(&str),
) -> TuneResult {
    let w0: Vec<f64> = start.w.iter().map(|&x| f64::from(x)).collect();
    let mut w = w0.clone();
    let k = fit_k(&w, train);
    let error_before = error(&w, k, train);
    let valid_before = error(&w, k, valid);
    log(&format!(
        "K = {k:.4}, error {error_before:.6}, held out {valid_before:.6}"
    ));
    let (b1, b2, eps) = (0.9, 0.999, 1e-8);
    let mut m = vec![0.0; COUNT];
    let mut v = vec![0.0; COUNT];
    let n = train.len().max(1) as f64;
    for epoch in 1..=cfg.epochs {
        let mut grad = vec![0.0; COUNT];
        for s in train {
            let p = sigmoid(k, linear(&w, s));
            // d/dw of (r - p)^2 = -2 (r - p) p (1 - p) ln10 k / 400 · f
            let g = -2.0 * (s.result - p) * p * (1.0 - p) * std::f64::consts::LN_10 * k / 400.0;
            for &(i, f) in &s.features {
                grad[usize::from(i)] += g * f64::from(f) / n;
            }
        }
        for i in 0..COUNT {
            grad[i] += 2.0 * cfg.l2 * (w[i] - w0[i]) / 10_000.0;
            m[i] = b1 * m[i] + (1.0 - b1) * grad[i];
            v[i] = b2 * v[i] + (1.0 - b2) * grad[i] * grad[i];
            let mh = m[i] / (1.0 - b1.powi(epoch as i32));
            let vh = v[i] / (1.0 - b2.powi(epoch as i32));
            w[i] -= cfg.lr * mh / (vh.sqrt() + eps);
        }
        if epoch % 50 == 0 || epoch == cfg.epochs {
            log(&format!(
                "epoch {epoch}: error {:.6}, held out {:.6}",
                error(&w, k, train),
                error(&w, k, valid)
            ));
        }
    }
    let params = Params {
        w: w.iter().map(|x| x.round() as i32).collect(),
    };
    let rounded: Vec<f64> = params.w.iter().map(|&x| f64::from(x)).collect();
    TuneResult {
        params,
        k,
        error_before,
        error_after: error(&rounded, k, train),
        valid_before,
        valid_after: error(&rounded, k, valid),
    }
}

/// Plays `games` self-play games from deals seeded by `seed` and returns training
/// lines `FEN | RESULT`. The referee is [`jieqi_core::Game`] with the standard rules
/// (perpetual check, repetition, 80 plies), plus a cap of 300 plies (a draw). Each side
/// searches `nodes` nodes per move on its own view, with its own history. Recorded are
/// the quiet positions as the mover saw them: from ply 8 on, not in check, where the
/// search neither chose a capture nor saw a mate (a position with a capture pending
/// would teach the evaluation the value of the capture, not of the position).
pub fn selfplay(games: u32, nodes: u64, seed: u64, log: &mut dyn FnMut(&str)) -> Vec<String> {
    let mut engine = Engine::new(Options {
        hash_mb: 8,
        ..Options::default()
    });
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    let mut lines = Vec::new();
    for g in 0..games {
        let deal = Deal::from_seed(&(seed.wrapping_add(u64::from(g))).to_le_bytes());
        engine.new_game();
        let mut game = Game::new(deal, RuleSet::STANDARD);
        let mut fens = Vec::new();
        let mut histories = Color::ALL
            .map(|c| Judge::new(RuleSet::STANDARD, &game.view(Viewer::Player(c)).position()));
        let mut ply = 0u32;
        let (result, why) = loop {
            match game.outcome() {
                Some(Outcome::Win { winner, reason }) => {
                    break (
                        if winner == Color::Red { 1.0 } else { 0.0 },
                        reason.to_string(),
                    );
                }
                Some(Outcome::Draw { reason }) => break (0.5, reason.to_string()),
                None if ply >= 300 => break (0.5, "300 plies".to_string()),
                None => {}
            }
            let turn = game.turn();
            let pos = game.view(Viewer::Player(turn)).position();
            let Some(r) = engine.search(&pos, &limits, &histories[turn.index()]) else {
                break (0.5, "no move (the referee missed the end)".to_string());
            };
            let quiet = !pos.is_check()
                && pos.piece_at(r.best.to).is_none()
                && !matches!(r.score, Score::Mate(_));
            if ply >= 8 && quiet {
                fens.push(pos.fen());
            }
            if let Err(e) = game.play(r.best) {
                log(&format!("game {g}: engine move {} rejected: {e}", r.best));
                break (0.5, "illegal move".to_string());
            }
            for c in Color::ALL {
                let seen = game.view(Viewer::Player(c)).position();
                histories[c.index()].push_seen(&seen, game.judge());
            }
            ply += 1;
        };
        log(&format!(
            "game {}: {ply} plies, result {result} ({why})",
            g + 1
        ));
        let res = match result {
            x if x > 0.75 => "1-0",
            x if x < 0.25 => "0-1",
            _ => "1/2-1/2",
        };
        lines.extend(fens.into_iter().map(|f| format!("{f} | {res}")));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuning_lowers_the_error_on_small_data() {
        // Red up material wins, Black up material wins, level positions are drawn.
        let data = "\
4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1 | 1-0
4k4/9/9/9/9/9/9/9/9/R2K5 b - - 0 1 | 1-0
r3k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1 | 0-1
r3k4/9/9/9/9/9/9/9/9/3K5 b - - 0 1 | 0-1
4k4/9/9/9/9/9/9/9/9/C2K5 w - - 0 1 | 1-0
c3k4/9/9/9/9/9/9/9/9/3K5 b - - 0 1 | 0-1
4k4/9/9/9/9/9/9/9/9/P2K5 w - - 0 1 | 1/2-1/2
p3k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1 | 1/2-1/2
";
        let samples = parse_data(data).unwrap();
        assert_eq!(samples.len(), 8);
        // Start from a deliberately bad evaluation: the rook worth nothing.
        let mut start = Params::default();
        start.w[crate::eval::value_index(jieqi_core::Role::Rook)] = 0;
        let cfg = TuneConfig {
            epochs: 200,
            lr: 5.0,
            l2: 0.0,
        };
        let r = tune(&start, &samples, &[], cfg, &mut |_| {});
        assert!(
            r.error_after < r.error_before,
            "{} !< {}",
            r.error_after,
            r.error_before
        );
        assert!(r.params.w[crate::eval::value_index(jieqi_core::Role::Rook)] > 0);
    }

    #[test]
    fn the_l2_penalty_holds_parameters_near_their_start() {
        let data = "\
4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1 | 1-0
r3k4/9/9/9/9/9/9/9/9/3K5 b - - 0 1 | 0-1
";
        let samples = parse_data(data).unwrap();
        let rook = crate::eval::value_index(jieqi_core::Role::Rook);
        // Every parameter zero: only the fit moves the rook's value.
        let start = Params { w: vec![0; COUNT] };
        let moved = |l2: f64| {
            let cfg = TuneConfig {
                epochs: 100,
                lr: 5.0,
                l2,
            };
            tune(&start, &samples, &samples, cfg, &mut |_| {}).params.w[rook]
        };
        let (free, held) = (moved(0.0), moved(1e4));
        assert!(free > 0, "{free}");
        assert!(held < free / 2, "{held} vs {free}");
    }

    #[test]
    fn every_nth_sample_is_held_out() {
        let text = (0..10)
            .map(|i| format!("4k4/9/9/9/9/9/9/9/9/R2K5 w - - {i} 1 | 1-0"))
            .collect::<Vec<_>>()
            .join("\n");
        let (train, valid) = split(parse_data(&text).unwrap(), 5);
        assert_eq!((train.len(), valid.len()), (8, 2));
    }

    #[test]
    fn bad_data_lines_are_reported() {
        assert!(
            parse_data("not a fen | 1-0")
                .unwrap_err()
                .contains("line 1")
        );
        assert!(parse_data(&format!("{} | 2-0", jieqi_core::START_FEN)).is_err());
        assert!(parse_data("no separator").is_err());
    }

    #[test]
    fn selfplay_writes_parseable_lines() {
        let mut log = Vec::new();
        let lines = selfplay(2, 300, 7, &mut |l| log.push(l.to_string()));
        let data = parse_data(&lines.join("\n")).unwrap();
        assert_eq!(data.len(), lines.len());
        assert!(!lines.is_empty());
        // Only quiet positions: none in check.
        for l in &lines {
            let fen = l.rsplit_once('|').unwrap().0;
            assert!(!Position::from_fen(fen.trim()).unwrap().is_check(), "{l}");
        }
        // The referee ended both games and named why.
        assert_eq!(log.len(), 2, "{log:?}");
        assert!(log.iter().all(|l| l.contains("result") && l.contains('(')));
    }
}
