//! `jieqi builtin-engine random|greedy`: two baseline engines that speak the project's
//! UCI dialect (docs/uci.md), so the match runner treats them like any other engine.
//!
//! - `random`: a uniformly random legal move.
//! - `greedy`: one ply: the move with the best immediate material gain (a face-down
//!   victim valued by the expectation over its side's pool as this engine knows it),
//!   an immediate win (no legal reply: checkmate or stalemate) above everything; ties
//!   broken at random.

use std::io::{BufRead, Write};

use clap::{Args, ValueEnum};
use jieqi_core::{Color, Material, Move, Piece, Position, Reveals, Role, UciMove};

use crate::runner::rng::Rng;

/// Which baseline.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// A uniformly random legal move.
    Random,
    /// One-ply greedy: best immediate material gain, random tie-breaks.
    Greedy,
}

/// Arguments of `jieqi builtin-engine`.
#[derive(Args)]
pub struct BuiltinArgs {
    /// Which engine.
    #[arg(value_enum)]
    kind: Kind,
}

/// Runs the UCI loop on stdin/stdout until `quit` or end of input.
pub fn run(args: BuiltinArgs) -> anyhow::Result<()> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut engine = Builtin::new(args.kind);
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let replies = engine.handle(&line);
        for r in &replies {
            writeln!(out, "{r}")?;
        }
        out.flush()?;
        if engine.quit {
            break;
        }
    }
    Ok(())
}

/// Material values in pawns for the greedy engine (advisors and elephants roam in
/// Jieqi, so they count more than in xiangqi).
pub fn value(role: Role) -> f64 {
    match role {
        Role::King => 0.0,
        Role::Advisor => 2.0,
        Role::Elephant => 2.0,
        Role::Horse => 4.0,
        Role::Rook => 9.0,
        Role::Cannon => 4.5,
        Role::Pawn => 1.0,
    }
}

/// The expected value of a face-down piece of `color`: the mean over its pool.
pub fn hidden_value(pool: &Material, color: Color) -> f64 {
    let n = pool.total(color);
    if n == 0 {
        return 0.0;
    }
    Role::HIDDEN
        .iter()
        .map(|&r| f64::from(pool.get(color, r)) * value(r))
        .sum::<f64>()
        / f64::from(n)
}

/// The state of a built-in engine.
pub struct Builtin {
    kind: Kind,
    pos: Option<Position>,
    rng: Rng,
    /// Set by `quit`.
    pub quit: bool,
}

impl Builtin {
    /// A fresh engine, seeded by the operating system (`setoption name Seed` fixes it).
    pub fn new(kind: Kind) -> Builtin {
        Builtin {
            kind,
            pos: Some(Position::start()),
            rng: Rng::from_entropy(),
            quit: false,
        }
    }

    /// Handles one input line and returns the reply lines.
    pub fn handle(&mut self, line: &str) -> Vec<String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = words.first() else {
            return vec![];
        };
        match cmd {
            "uci" => vec![
                format!("id name jieqi-builtin-{}", self.name()),
                "id author the jieqi project".into(),
                "option name Skill Level type spin default 20 min 0 max 20".into(),
                "option name Seed type spin default 0 min 0 max 2147483647".into(),
                "uciok".into(),
            ],
            "isready" => vec!["readyok".into()],
            "ucinewgame" => {
                self.pos = Some(Position::start());
                vec![]
            }
            "setoption" => self.set_option(&words),
            "position" => match parse_position(&words[1..]) {
                Ok(p) => {
                    self.pos = Some(p);
                    vec![]
                }
                Err(e) => {
                    self.pos = None;
                    vec![format!("info string error {e}")]
                }
            },
            "go" => vec![self.go()],
            "stop" | "ponderhit" => vec![],
            "d" => match &self.pos {
                Some(p) => vec![format!("info string fen {}", p.fen())],
                None => vec!["info string error no valid position".into()],
            },
            "quit" => {
                self.quit = true;
                vec![]
            }
            other => vec![format!("info string error unknown command {other:?}")],
        }
    }

    fn name(&self) -> &'static str {
        match self.kind {
            Kind::Random => "random",
            Kind::Greedy => "greedy",
        }
    }

    fn set_option(&mut self, words: &[&str]) -> Vec<String> {
        let text = words[1..].join(" ");
        let Some(rest) = text.strip_prefix("name ") else {
            return vec!["info string error expected setoption name N value V".into()];
        };
        let (name, value) = rest.split_once(" value ").unwrap_or((rest, ""));
        match name.trim().to_ascii_lowercase().as_str() {
            "seed" => match value.trim().parse::<u64>() {
                Ok(s) => {
                    self.rng = Rng::new(s);
                    vec![]
                }
                Err(_) => vec![format!("info string error Seed {value:?} is not a number")],
            },
            // Accepted for drop-in use; the baselines have only one strength.
            "skill level" | "hash" | "threads" | "move overhead" => vec![],
            other => vec![format!("info string error unknown option {other:?}")],
        }
    }

    fn go(&mut self) -> String {
        let Some(pos) = &self.pos else {
            return "bestmove 0000".into();
        };
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return "bestmove 0000".into();
        }
        let best: Vec<Move> = match self.kind {
            Kind::Random => moves.iter().copied().collect(),
            Kind::Greedy => {
                let scored: Vec<(Move, f64)> =
                    moves.iter().map(|&m| (m, greedy_score(pos, m))).collect();
                let top = scored.iter().map(|s| s.1).fold(f64::NEG_INFINITY, f64::max);
                scored
                    .into_iter()
                    .filter(|s| s.1 >= top - 1e-9)
                    .map(|s| s.0)
                    .collect()
            }
        };
        let m = best[self.rng.below(best.len())];
        format!("bestmove {m}")
    }
}

/// The one-ply score of `m`: the value of what it captures, or a win bonus when the
/// opponent is left without a legal move whatever the mover turns out to be.
pub fn greedy_score(pos: &Position, m: Move) -> f64 {
    let gain = match pos.piece_at(m.to) {
        Some(Piece::Up(_, r)) => value(r),
        Some(Piece::Down(c)) => hidden_value(pos.pool(), c),
        None => 0.0,
    };
    let us = pos.turn();
    let identities: Vec<Option<Role>> = if pos.board().is_hidden(m.from) {
        Role::HIDDEN
            .iter()
            .filter(|&&r| pos.pool().get(us, r) > 0)
            .map(|&r| Some(r))
            .collect()
    } else {
        vec![None]
    };
    let wins = !identities.is_empty()
        && identities.iter().all(|&mover| {
            let mut p = pos.clone();
            p.play_unchecked(
                m,
                Reveals {
                    mover,
                    captured: None,
                },
            );
            p.is_game_over_by_moves()
        });
    if wins { 1000.0 + gain } else { gain }
}

/// Reads the arguments of `position`: `startpos|fen FEN… [moves m…]`.
fn parse_position(args: &[&str]) -> Result<Position, String> {
    let moves_at = args.iter().position(|&w| w == "moves");
    let (head, moves) = match moves_at {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let mut pos = match head.split_first() {
        Some((&"startpos", [])) => Position::start(),
        Some((&"fen", fen)) if !fen.is_empty() => {
            Position::from_fen(&fen.join(" ")).map_err(|e| format!("bad fen: {e}"))?
        }
        _ => return Err("expected position startpos|fen FEN [moves …]".into()),
    };
    for text in moves {
        let um = UciMove::parse(text).map_err(|e| e.to_string())?;
        let (m, rv) = um.resolve(&pos).map_err(|e| format!("move {text}: {e}"))?;
        pos.play(m, rv).map_err(|e| format!("move {text}: {e}"))?;
    }
    Ok(pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bestmove(e: &mut Builtin) -> String {
        let r = e.handle("go movetime 10");
        r[0].strip_prefix("bestmove ").unwrap().to_string()
    }

    #[test]
    fn handshake_and_garbage() {
        let mut e = Builtin::new(Kind::Random);
        let r = e.handle("uci");
        assert_eq!(r.last().unwrap(), "uciok");
        assert_eq!(e.handle("isready"), ["readyok"]);
        assert!(e.handle("frobnicate")[0].starts_with("info string error"));
        assert!(e.handle("position fen nonsense")[0].starts_with("info string error"));
        assert_eq!(e.handle("go"), ["bestmove 0000"]);
        assert!(e.handle("position startpos moves e3e4 zz")[0].starts_with("info string error"));
        assert!(e.handle("setoption name Seed value x")[0].starts_with("info string error"));
        assert!(e.handle("").is_empty());
        e.handle("quit");
        assert!(e.quit);
    }

    #[test]
    fn random_plays_legal_moves_from_suffixed_histories() {
        let mut e = Builtin::new(Kind::Random);
        e.handle("setoption name Seed value 5");
        assert!(e.handle("position startpos moves h2h9Cn i9h9r").is_empty());
        let pos = e.pos.clone().unwrap();
        assert_eq!(pos.captured().get(Color::Black, Role::Horse), 1);
        for _ in 0..20 {
            let m = UciMove::parse(&bestmove(&mut e)).unwrap().to_plain();
            assert!(pos.is_legal(m));
        }
    }

    #[test]
    fn greedy_takes_the_biggest_piece_and_mates() {
        let mut e = Builtin::new(Kind::Greedy);
        // The red rook on e5 can take a black horse on e7 or a black rook on i5.
        assert!(
            e.handle("position fen 3k5/9/4n4/9/4R3r/9/9/9/9/5K3 w - - 0 1")
                .is_empty()
        );
        assert_eq!(bestmove(&mut e), "e5i5");
        // Mate in one beats a capture: the rook ladder.
        assert!(
            e.handle("position fen 4k4/1R7/9/9/9/9/9/9/R7r/3K5 w - - 0 1")
                .is_empty()
        );
        assert_eq!(bestmove(&mut e), "a1a9");
    }

    #[test]
    fn hidden_victims_count_their_pool_expectation() {
        let pos = Position::start();
        let v = hidden_value(pos.pool(), Color::Black);
        // (2·2 + 2·2 + 2·4 + 2·9 + 2·4.5 + 5·1) / 15
        assert!((v - 48.0 / 15.0).abs() < 1e-9, "{v}");
        // h2 (face-down cannon square) takes the face-down piece on h9.
        let m = Move::new(
            jieqi_core::Square::parse("h2").unwrap(),
            jieqi_core::Square::parse("h9").unwrap(),
        );
        assert!((greedy_score(&pos, m) - v).abs() < 1e-9);
    }
}
