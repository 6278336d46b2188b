//! "Analyse this game": the engine judges every position of a finished game as the
//! side to move knew it, on one reserved thread of the analysis pool; the result
//! (per-ply scores and the big swings) is stored with the game and served from then on.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use jieqi_core::{Color, Game, Position};
use serde::{Deserialize, Serialize};

use super::view::mover_fen;
use crate::Shared;
use crate::engine::{AnalysisLimits, AnalysisSlot, Engine, LineScore};
use crate::store::Write;

/// Depth of each position's search.
pub const PLY_DEPTH: u32 = 8;
/// Time of each position's search.
pub const PLY_TIME: Duration = Duration::from_millis(200);
/// Scores are drawn and compared within ± this (a mate counts as it).
pub const SCORE_CAP: i32 = 2000;
/// A drop of the mover's winning chance (per cent) marking a mistake.
pub const MISTAKE_DROP: f64 = 15.0;
/// A drop of the mover's winning chance (per cent) marking a blunder.
pub const BLUNDER_DROP: f64 = 30.0;

/// The stored analysis of a game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameAnalysis {
    /// The engine.
    pub engine: String,
    /// One entry per position, from the start (ply 0) to the end.
    pub plies: Vec<PlyScore>,
    /// Moves after which the mover's chance fell the most.
    pub swings: Vec<Swing>,
}

/// The judgement of the position after `ply` plies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlyScore {
    /// Plies played.
    pub ply: usize,
    /// The position as the side to move knew it: all the engine saw.
    pub fen: String,
    /// Score for Red in centipawns, within ±[`SCORE_CAP`].
    pub red_cp: i32,
    /// Mate in this many moves for the side to move (negative: mated), if found.
    pub mate: Option<i32>,
    /// The engine's move there, if any.
    pub best: Option<String>,
}

/// A move that lost much of its mover's chance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Swing {
    /// The ply (1-based) of the move.
    pub ply: usize,
    /// `mistake` or `blunder`.
    pub kind: String,
    /// The mover's winning chance lost, per cent.
    pub drop: f64,
}

/// The mover's winning chance (per cent) at a score for him: a logistic curve.
pub fn win_chance(cp: i32) -> f64 {
    100.0 / (1.0 + (-f64::from(cp) / 250.0).exp())
}

/// The swings of a score series (Red's view, one per position; Red moves first).
pub fn swings(red_cp: &[i32], first: Color) -> Vec<Swing> {
    let mut out = Vec::new();
    for k in 1..red_cp.len() {
        let mover = if (k - 1) % 2 == 0 { first } else { !first };
        let sign = if mover == Color::Red { 1 } else { -1 };
        let drop = win_chance(sign * red_cp[k - 1]) - win_chance(sign * red_cp[k]);
        let kind = if drop >= BLUNDER_DROP {
            "blunder"
        } else if drop >= MISTAKE_DROP {
            "mistake"
        } else {
            continue;
        };
        out.push(Swing {
            ply: k,
            kind: kind.to_string(),
            drop: (drop * 10.0).round() / 10.0,
        });
    }
    out
}

/// Judges one position for its side to move: (score for it, mate, best move).
fn judge(engine: &dyn Engine, pos: &Position) -> (i32, Option<i32>, Option<String>) {
    if pos.legal_moves().is_empty() {
        // No move: lost (checkmate or stalemate alike, RULES.md).
        return (-SCORE_CAP, Some(0), None);
    }
    let limits = AnalysisLimits {
        depth: PLY_DEPTH,
        movetime: PLY_TIME,
        multipv: 1,
    };
    let mut last = None;
    engine.analyse(pos, &limits, &AtomicBool::new(false), &mut |l| {
        if l.multipv == 1 {
            last = Some(l.clone());
        }
    });
    match last {
        None => (0, None, None),
        Some(l) => {
            let (cp, mate) = match l.score {
                LineScore::Cp(c) => (c.clamp(-SCORE_CAP, SCORE_CAP), None),
                LineScore::Mate(m) => (if m > 0 { SCORE_CAP } else { -SCORE_CAP }, Some(m)),
            };
            (cp, mate, l.pv.first().map(ToString::to_string))
        }
    }
}

/// Analyses `game` (blocking), counting finished positions in `done`.
pub fn analyse_game(engine: &dyn Engine, game: &Game, done: &AtomicUsize) -> GameAnalysis {
    let mut plies = Vec::with_capacity(game.plies().len() + 1);
    for n in 0..=game.plies().len() {
        let fen = mover_fen(game, n);
        let pos = Position::from_fen(&fen).expect("a view's FEN reads back");
        let (cp, mate, best) = judge(engine, &pos);
        let red_cp = if pos.turn() == Color::Red { cp } else { -cp };
        plies.push(PlyScore {
            ply: n,
            fen,
            red_cp,
            mate,
            best,
        });
        done.fetch_add(1, Ordering::Relaxed);
    }
    let scores: Vec<i32> = plies.iter().map(|p| p.red_cp).collect();
    GameAnalysis {
        engine: engine.name().to_string(),
        swings: swings(&scores, game.start().turn()),
        plies,
    }
}

/// A running whole-game analysis.
pub struct Job {
    /// Positions judged.
    pub done: AtomicUsize,
    /// Positions in all.
    pub total: usize,
}

/// The whole-game analyses running, by game id (one per game at a time).
#[derive(Default)]
pub struct Jobs {
    running: Mutex<HashMap<String, Arc<Job>>>,
}

impl Jobs {
    /// The running job of `game`.
    pub fn get(&self, game: &str) -> Option<Arc<Job>> {
        self.running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(game)
            .cloned()
    }

    /// Starts analysing `game` (id `id`) on `slot` unless a job runs; returns the job.
    pub fn start(shared: &Arc<Shared>, id: &str, game: Game, slot: AnalysisSlot) -> Arc<Job> {
        let mut running = shared
            .game_analyses
            .running
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(j) = running.get(id) {
            return Arc::clone(j);
        }
        let job = Arc::new(Job {
            done: AtomicUsize::new(0),
            total: game.plies().len() + 1,
        });
        running.insert(id.to_string(), Arc::clone(&job));
        let (shared, id, j) = (Arc::clone(shared), id.to_string(), Arc::clone(&job));
        tokio::spawn(async move {
            let engine = shared.analysis.engine();
            let counter = Arc::clone(&j);
            let result = tokio::task::spawn_blocking(move || {
                let _slot = slot;
                analyse_game(engine.as_ref(), &game, &counter.done)
            })
            .await;
            match result.map(|a| serde_json::to_string(&a)) {
                Ok(Ok(json)) => {
                    let w = Write::GameAnalysis {
                        id: id.clone(),
                        json,
                    };
                    if let Err(e) = shared.store.write(w).await {
                        tracing::warn!(game = %id, "storing the game's analysis failed: {e}");
                    }
                }
                Ok(Err(e)) => tracing::warn!(game = %id, "game analysis: {e}"),
                Err(e) => tracing::warn!(game = %id, "game analysis failed: {e}"),
            }
            shared
                .game_analyses
                .running
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&id);
        });
        job
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::GreedyEngine;
    use jieqi_core::{Deal, RuleSet, UciMove};

    #[test]
    fn swings_mark_big_drops_for_the_mover() {
        // Red's move 1 throws a rook (+0 → -900); Black's reply gives back a little.
        let s = swings(&[0, -900, -700, -700], Color::Red);
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!((s[0].ply, s[0].kind.as_str()), (1, "blunder"));
        let s = swings(&[0, 0, 200], Color::Red);
        assert_eq!(s[0].kind, "mistake", "Black's move 2 let Red gain: {s:?}");
        assert!(swings(&[0, 10, -10, 20], Color::Red).is_empty());
    }

    #[test]
    fn a_game_gets_one_score_per_position_from_the_movers_view() {
        let deal = Deal::parse("RNBAABNRCCPPPPP/rnbaabnrccppppp").unwrap();
        let mut g = Game::new(deal, RuleSet::STANDARD);
        for m in ["b2b9", "a9b9", "h2e2"] {
            g.play(UciMove::parse(m).unwrap().to_plain()).unwrap();
        }
        let done = AtomicUsize::new(0);
        let a = analyse_game(&GreedyEngine, &g, &done);
        assert_eq!(done.load(Ordering::Relaxed), 4);
        assert_eq!(a.plies.len(), 4);
        for p in &a.plies {
            assert!(!p.fen.contains("RNBAABNR"), "never the deal: {}", p.fen);
            assert!(p.fen.contains('x') && p.fen.contains('X'), "{}", p.fen);
        }
        assert_eq!(a.plies[1].fen, mover_fen(&g, 1));
    }
}
