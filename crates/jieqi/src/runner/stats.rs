//! Match statistics: logistic Elo with 95% error bars (trinomial over games or
//! pentanomial over game pairs), likelihood of superiority, and the generalized SPRT.
//!
//! Elo model: logistic, `score = 1 / (1 + 10^(-elo/400))`. The SPRT is a GSPRT: the
//! log-likelihood ratio of the two maximum-likelihood distributions of the outcomes
//! (pentanomial pair scores or trinomial game scores) whose means are the expected
//! scores of `elo0` and `elo1`, as in Van den Bergh's derivation used by Fishtest.

/// The 97.5% quantile of the standard normal distribution (two-sided 95%).
pub const Z95: f64 = 1.959_963_984_540_054;

/// Elo difference for an expected score (±infinity at 1 and 0).
pub fn score_to_elo(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        // Written so that an even score is +0, not −0.
        400.0 * (score / (1.0 - score)).log10()
    }
}

/// Expected score for an Elo difference.
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The complementary error function (Chebyshev fit, relative error below 1.2e-7).
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

/// The standard normal distribution function.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// Likelihood of superiority: the probability that the first engine is the stronger,
/// `Φ((W − L) / √(W + L))` (draws carry no information here); 0.5 without decisive games.
pub fn los(wins: u32, losses: u32) -> f64 {
    if wins + losses == 0 {
        return 0.5;
    }
    normal_cdf((f64::from(wins) - f64::from(losses)) / f64::from(wins + losses).sqrt())
}

/// Wins, draws and losses of the first engine.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Trinomial {
    /// Wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
}

impl Trinomial {
    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Adds one game by the first engine's score (1, 0.5 or 0).
    pub fn add(&mut self, score: f64) {
        if score > 0.75 {
            self.wins += 1;
        } else if score < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// `(score per outcome, count)` pairs: 0, ½, 1.
    fn cells(&self) -> [(f64, f64); 3] {
        [
            (0.0, f64::from(self.losses)),
            (0.5, f64::from(self.draws)),
            (1.0, f64::from(self.wins)),
        ]
    }
}

/// Game pairs (one deal, colours swapped) by the first engine's pair score in half
/// points: index 0 = lost both (0), 1 = ½, 2 = 1, 3 = 1½, 4 = won both (2).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial(pub [u32; 5]);

impl Pentanomial {
    /// Pairs counted.
    pub fn pairs(&self) -> u32 {
        self.0.iter().sum()
    }

    /// Adds a pair by the first engine's two game scores.
    pub fn add(&mut self, a: f64, b: f64) {
        let half_points = ((a + b) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.0[half_points] += 1;
    }

    /// `(score per game of the pair, count)` per cell: 0, ¼, ½, ¾, 1.
    fn cells(&self) -> [(f64, f64); 5] {
        std::array::from_fn(|i| (i as f64 / 4.0, f64::from(self.0[i])))
    }
}

/// An Elo estimate with its 95% confidence interval.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct EloEstimate {
    /// The point estimate.
    pub elo: f64,
    /// The 95% interval `(lower, upper)`; `None` while every observation fell in one
    /// cell (a single game or pair, or all alike): the variance estimate is zero then,
    /// which says nothing about the error.
    pub interval: Option<(f64, f64)>,
    /// The mean score behind it.
    pub score: f64,
}

impl EloEstimate {
    /// Half the interval width, in Elo (symmetric approximation for display); `None`
    /// when the interval is unknown.
    pub fn error(&self) -> Option<f64> {
        self.interval.map(|(lower, upper)| (upper - lower) / 2.0)
    }
}

impl std::fmt::Display for EloEstimate {
    /// `+12.3 ± 45.6`; `± n/a` when the interval is unknown; the interval's ends when
    /// one is infinite; the score when the estimate itself is infinite.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.elo.is_finite() {
            return write!(f, "{:+} (score {:.0}%)", self.elo, 100.0 * self.score);
        }
        match (self.interval, self.error()) {
            (None, _) => write!(f, "{:+.1} ± n/a", self.elo),
            (_, Some(e)) if e.is_finite() => write!(f, "{:+.1} ± {e:.1}", self.elo),
            (Some((lower, upper)), _) => {
                write!(f, "{:+.1} (interval {lower:+.1} .. {upper:+.1})", self.elo)
            }
        }
    }
}

/// Mean and variance (per sample) of a distribution given as `(value, count)` cells.
fn mean_var(cells: &[(f64, f64)]) -> Option<(f64, f64, f64)> {
    let n: f64 = cells.iter().map(|c| c.1).sum();
    if n <= 0.0 {
        return None;
    }
    let mean = cells.iter().map(|(x, k)| x * k).sum::<f64>() / n;
    let var = cells
        .iter()
        .map(|(x, k)| k * (x - mean).powi(2))
        .sum::<f64>()
        / n;
    Some((n, mean, var))
}

fn estimate(cells: &[(f64, f64)]) -> Option<EloEstimate> {
    let (n, mean, var) = mean_var(cells)?;
    let se = (var / n).sqrt();
    let spread = cells.iter().filter(|c| c.1 > 0.0).count() > 1;
    Some(EloEstimate {
        elo: score_to_elo(mean),
        interval: spread.then(|| (score_to_elo(mean - Z95 * se), score_to_elo(mean + Z95 * se))),
        score: mean,
    })
}

/// Elo from games, the variance estimated from the trinomial W/D/L frequencies.
pub fn elo_trinomial(t: &Trinomial) -> Option<EloEstimate> {
    estimate(&t.cells())
}

/// Elo from game pairs, the variance estimated from the pentanomial frequencies
/// (accounts for the correlation of the two games on one deal).
pub fn elo_pentanomial(p: &Pentanomial) -> Option<EloEstimate> {
    estimate(&p.cells())
}

/// The distribution closest (maximum likelihood) to the observed frequencies `p` on
/// the values `a` whose mean is `s`: `q_i = p_i / (1 + λ(a_i − s))`, with λ solving
/// `Σ q_i (a_i − s) = 0` (found by bisection; the sum decreases in λ).
fn mle_with_mean(a: &[f64], p: &[f64], s: f64) -> Option<Vec<f64>> {
    let d: Vec<f64> = a.iter().map(|x| x - s).collect();
    let support = || {
        d.iter()
            .zip(p)
            .filter(|(_, pi)| **pi > 0.0)
            .map(|(di, _)| *di)
    };
    let dmax = support().fold(f64::NEG_INFINITY, f64::max);
    let dmin = support().fold(f64::INFINITY, f64::min);
    if dmax <= 0.0 || dmin >= 0.0 {
        return None;
    }
    let f = |l: f64| {
        d.iter()
            .zip(p)
            .map(|(di, pi)| pi * di / (1.0 + l * di))
            .sum::<f64>()
    };
    let (mut lo, mut hi) = (-1.0 / dmax, -1.0 / dmin);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let l = 0.5 * (lo + hi);
    Some(
        d.iter()
            .zip(p)
            .map(|(di, pi)| pi / (1.0 + l * di))
            .collect(),
    )
}

/// The GSPRT log-likelihood ratio of "mean score s1" against "mean score s0" for
/// outcomes with values `a` observed `counts` times. Empty cells get a count of 0.001
/// when some cell is empty, so that a lopsided start does not make it undefined.
pub fn llr(cells: &[(f64, f64)], s0: f64, s1: f64) -> f64 {
    let n: f64 = cells.iter().map(|c| c.1).sum();
    if n <= 0.0 {
        return 0.0;
    }
    let counts: Vec<f64> = cells
        .iter()
        .map(|c| if c.1 > 0.0 { c.1 } else { 1e-3 })
        .collect();
    let total: f64 = counts.iter().sum();
    let a: Vec<f64> = cells.iter().map(|c| c.0).collect();
    let p: Vec<f64> = counts.iter().map(|k| k / total).collect();
    let (Some(q0), Some(q1)) = (mle_with_mean(&a, &p, s0), mle_with_mean(&a, &p, s1)) else {
        return 0.0;
    };
    n * p
        .iter()
        .zip(q0.iter().zip(&q1))
        .map(|(pi, (x0, x1))| if *pi > 0.0 { pi * (x1 / x0).ln() } else { 0.0 })
        .sum::<f64>()
}

/// A sequential probability ratio test of `elo1` against `elo0`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Sprt {
    /// Elo of the null hypothesis.
    pub elo0: f64,
    /// Elo of the alternative.
    pub elo1: f64,
    /// False-positive rate.
    pub alpha: f64,
    /// False-negative rate.
    pub beta: f64,
}

/// Where an SPRT stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SprtVerdict {
    /// LLR at or above the upper bound: H1 (`elo1`) accepted.
    H1,
    /// LLR at or below the lower bound: H0 (`elo0`) accepted.
    H0,
    /// Between the bounds: more games needed.
    Continue,
}

impl Sprt {
    /// Reads `elo0=0,elo1=5[,alpha=0.05,beta=0.05]`.
    pub fn parse(s: &str) -> Result<Sprt, String> {
        let mut t = Sprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
        };
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| format!("{part:?}: expected key=value"))?;
            let v: f64 = v
                .trim()
                .parse()
                .map_err(|_| format!("{part:?}: {v:?} is not a number"))?;
            match k.trim() {
                "elo0" => t.elo0 = v,
                "elo1" => t.elo1 = v,
                "alpha" => t.alpha = v,
                "beta" => t.beta = v,
                other => {
                    return Err(format!(
                        "unknown SPRT parameter {other:?} (elo0, elo1, alpha, beta)"
                    ));
                }
            }
        }
        if !(t.alpha > 0.0 && t.alpha < 0.5 && t.beta > 0.0 && t.beta < 0.5) {
            return Err("alpha and beta must be between 0 and 0.5".into());
        }
        if t.elo0.partial_cmp(&t.elo1) != Some(std::cmp::Ordering::Less) {
            return Err("elo0 must be smaller than elo1".into());
        }
        Ok(t)
    }

    /// `(lower, upper)` LLR bounds: `ln(β/(1−α))`, `ln((1−β)/α)`.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// LLR over game pairs.
    pub fn llr_pentanomial(&self, p: &Pentanomial) -> f64 {
        llr(&p.cells(), elo_to_score(self.elo0), elo_to_score(self.elo1))
    }

    /// LLR over single games.
    pub fn llr_trinomial(&self, t: &Trinomial) -> f64 {
        llr(&t.cells(), elo_to_score(self.elo0), elo_to_score(self.elo1))
    }

    /// The verdict for an LLR.
    pub fn verdict(&self, llr: f64) -> SprtVerdict {
        let (lo, hi) = self.bounds();
        if llr >= hi {
            SprtVerdict::H1
        } else if llr <= lo {
            SprtVerdict::H0
        } else {
            SprtVerdict::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b}");
    }

    #[test]
    fn elo_and_score() {
        close(score_to_elo(0.75), 190.848_501_887_864_98, 1e-9);
        close(score_to_elo(0.5), 0.0, 1e-12);
        close(score_to_elo(0.25), -190.848_501_887_864_98, 1e-9);
        close(elo_to_score(100.0), 0.640_064_999_802_885, 1e-9);
        close(score_to_elo(elo_to_score(-37.0)), -37.0, 1e-9);
        assert_eq!(score_to_elo(1.0), f64::INFINITY);
        assert_eq!(score_to_elo(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn normal_distribution() {
        close(normal_cdf(0.0), 0.5, 1e-7);
        close(normal_cdf(Z95), 0.975, 1e-7);
        close(normal_cdf(-1.0), 0.158_655_253_931_457, 1e-7);
        close(normal_cdf(2.5), 0.993_790_334_674_224, 1e-7);
    }

    #[test]
    fn likelihood_of_superiority() {
        // Φ(5/√15) = Φ(1.290994…)
        close(los(10, 5), 0.901_647_198_770_5, 1e-6);
        close(los(5, 10), 1.0 - 0.901_647_198_770_5, 1e-6);
        close(los(0, 0), 0.5, 0.0);
        close(los(7, 7), 0.5, 1e-7);
    }

    #[test]
    fn trinomial_error_bars() {
        let t = Trinomial {
            wins: 30,
            draws: 40,
            losses: 30,
        };
        let e = elo_trinomial(&t).unwrap();
        close(e.elo, 0.0, 1e-9);
        // var = 0.15, se = √0.0015; score bounds 0.5 ± 1.96·0.0387298 (Python math)
        let (lower, upper) = e.interval.unwrap();
        close(upper, 53.157_980, 1e-3);
        close(lower, -53.157_980, 1e-3);
        let t = Trinomial {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        let e = elo_trinomial(&t).unwrap();
        close(e.score, 0.7, 1e-12);
        close(e.elo, 147.190_714, 1e-3);
        let (lower, upper) = e.interval.unwrap();
        close(lower, 86.225_015, 1e-3);
        close(upper, 218.251_778, 1e-3);
        assert!(elo_trinomial(&Trinomial::default()).is_none());
        let all = elo_trinomial(&Trinomial {
            wins: 4,
            draws: 0,
            losses: 0,
        })
        .unwrap();
        assert_eq!(all.to_string(), "+inf (score 100%)");
        assert_eq!(e.to_string(), format!("+147.2 ± {:.1}", e.error().unwrap()));
    }

    #[test]
    fn pentanomial_counts_and_error_bars() {
        let mut p = Pentanomial::default();
        p.add(1.0, 1.0);
        p.add(1.0, 0.0);
        p.add(0.5, 0.5);
        p.add(0.0, 0.5);
        p.add(1.0, 0.5);
        assert_eq!(p.0, [0, 1, 2, 1, 1]);
        let p = Pentanomial([5, 20, 50, 20, 5]);
        let e = elo_pentanomial(&p).unwrap();
        close(e.elo, 0.0, 1e-9);
        // Per-pair scores 0, ¼, ½, ¾, 1: var = (10·¼ + 40·(1/16)) / 100 = 0.05 per pair,
        // se = √(0.05/100) = √0.0005.
        let (_, upper) = e.interval.unwrap();
        close(upper, score_to_elo(0.5 + Z95 * 0.0005f64.sqrt()), 1e-9);
        close(upper, 30.531_864, 1e-3);
    }

    #[test]
    fn no_spread_means_no_error_bar() {
        // One pair won 1½–½: a score of 0.75 is +190.8 Elo, but one observation (or
        // many alike) has a variance estimate of zero, which is no error bar at all.
        let mut p = Pentanomial::default();
        p.add(1.0, 0.5);
        let e = elo_pentanomial(&p).unwrap();
        close(e.elo, 190.848_501_887_864_98, 1e-9);
        assert_eq!(e.interval, None);
        assert_eq!(e.error(), None);
        assert_eq!(e.to_string(), "+190.8 ± n/a");
        let alike = elo_pentanomial(&Pentanomial([0, 0, 5, 0, 0])).unwrap();
        assert_eq!(alike.to_string(), "+0.0 ± n/a");
        let one_draw = Trinomial {
            wins: 0,
            draws: 1,
            losses: 0,
        };
        assert_eq!(elo_trinomial(&one_draw).unwrap().to_string(), "+0.0 ± n/a");
        // A second, different pair gives a real (if wide) interval.
        p.add(0.5, 0.5);
        let e = elo_pentanomial(&p).unwrap();
        let (lower, upper) = e.interval.unwrap();
        assert!(lower < e.elo && e.elo < upper, "{e:?}");
        assert!(!e.to_string().contains("n/a"), "{e}");
        // An infinite estimate still shows the score.
        let all = elo_pentanomial(&Pentanomial([0, 0, 0, 0, 3])).unwrap();
        assert_eq!(all.to_string(), "+inf (score 100%)");
    }

    #[test]
    fn sprt_bounds_and_parse() {
        let s = Sprt::parse("elo0=0,elo1=5").unwrap();
        let (lo, hi) = s.bounds();
        close(lo, -2.944_438_979, 1e-8);
        close(hi, 2.944_438_979, 1e-8);
        let s = Sprt::parse("elo0=-2, elo1=3, alpha=0.1, beta=0.05").unwrap();
        assert_eq!((s.elo0, s.elo1, s.alpha, s.beta), (-2.0, 3.0, 0.1, 0.05));
        assert!(Sprt::parse("elo0=5,elo1=0").is_err());
        assert!(Sprt::parse("elo0=x").is_err());
        assert!(Sprt::parse("gamma=1").is_err());
        assert!(Sprt::parse("alpha=0.7").is_err());
    }

    #[test]
    fn sprt_llr_known_values() {
        let s = Sprt::parse("elo0=0,elo1=10").unwrap();
        // Values from an independent implementation (Newton on the dual, see docs/match.md).
        let p = Pentanomial([10, 40, 100, 45, 15]);
        close(s.llr_pentanomial(&p), 0.587_803_397, 1e-6);
        let t = Trinomial {
            wins: 120,
            draws: 160,
            losses: 100,
        };
        close(s.llr_trinomial(&t), 0.722_979_768, 1e-6);
        // The normal approximation LLR ≈ N(s1−s0)(2m−s0−s1)/(2σ²) is close for small
        // Elo differences.
        let cells = p.cells();
        let (n, m, v) = mean_var(&cells).unwrap();
        let (s0, s1) = (elo_to_score(0.0), elo_to_score(10.0));
        let approx = n * (s1 - s0) * (2.0 * m - s0 - s1) / (2.0 * v);
        close(s.llr_pentanomial(&p), approx, 0.01);
        // Zero data, zero evidence; lopsided data is defined and decisive.
        assert_eq!(s.llr_pentanomial(&Pentanomial::default()), 0.0);
        let winning = Pentanomial([0, 0, 0, 0, 200]);
        assert_eq!(s.verdict(s.llr_pentanomial(&winning)), SprtVerdict::H1);
        let losing = Pentanomial([200, 0, 0, 0, 0]);
        assert_eq!(s.verdict(s.llr_pentanomial(&losing)), SprtVerdict::H0);
        assert_eq!(s.verdict(0.0), SprtVerdict::Continue);
    }
}
