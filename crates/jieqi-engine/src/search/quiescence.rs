//! Quiescence search: captures at the horizon until the position is quiet, so that the
//! static evaluation is not taken in the middle of an exchange.

use jieqi_core::Piece;

use super::ordering::{capture_score, pick_best};
use super::tunables::{BAD_CAPTURE_MARGIN, DELTA_MARGIN};
use super::{INF, MATE, MAX_PLY, Searcher, to_tt, tt_cutoff};
use crate::tt::{Bound, Entry};

impl Searcher<'_> {
    /// Quiescence search: captures (and, near the horizon, check evasions).
    pub fn qsearch(&mut self, mut alpha: i32, beta: i32, ply: usize, qply: u32) -> i32 {
        self.stack[ply].clear_pv();

        if self.aborted {
            return 0;
        }
        self.count_node();
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY || !self.features.quiescence {
            return self.evaluate();
        }
        let in_check = self.judge.in_check();
        let evasions = in_check && qply < 1;
        let key = self.pos.hash();
        // Deep in quiescence the table rarely helps and each probe is a cache miss.
        let use_tt = qply == 0;
        let tte = if use_tt {
            self.shared.tt.probe(key)
        } else {
            None
        };
        if let Some(e) = tte
            && self.features.tt_cutoffs
            && let Some(s) = tt_cutoff(e, ply, alpha, beta)
        {
            return s;
        }
        // In check every legal move is needed (to see a mate), before standing pat;
        // otherwise only captures, and only once standing pat did not cut off.
        let evasion_list = if in_check {
            let moves = self.pos.legal_moves();
            if moves.is_empty() {
                return -MATE + ply as i32;
            }
            Some(moves)
        } else {
            None
        };
        let mut best;
        let stand;
        if evasions {
            best = -INF;
            stand = -INF;
        } else {
            stand = match tte {
                Some(e) if !in_check => e.eval,
                _ => self.evaluate(),
            };
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
            best = stand;
        }
        // Captures are generated pseudo-legal: each is tested just before it is played.
        let pseudo = evasion_list.is_none();
        let mut moves = match evasion_list {
            Some(moves) => moves,
            None => {
                if self.features.delta_pruning
                    && stand + self.ev.max_value() + DELTA_MARGIN <= alpha
                {
                    // Delta pruning (below) would skip every capture.
                    jieqi_core::MoveList::new()
                } else {
                    self.pos.pseudo_legal_captures()
                }
            }
        };
        let b = self.pos.board();
        let them = !self.pos.turn();
        let order = moves.as_mut_slice();
        let mut scores = [0i32; jieqi_core::movegen::MAX_MOVES];
        let mut n = 0;
        for i in 0..order.len() {
            let m = order[i];
            let victim = b.piece_at(m.to);
            if victim.is_none() && !evasions {
                continue;
            }
            let s = match victim {
                Some(v) => {
                    let vv = self.piece_value(v);
                    let mover = b.piece_at(m.from);
                    let attacker = mover.map_or(0, |p| self.piece_value(p));
                    if !evasions {
                        if self.features.delta_pruning && stand + vv + DELTA_MARGIN <= alpha {
                            // Delta pruning: even winning this piece cannot reach alpha.
                            continue;
                        }
                        if self.features.qs_pruning
                            && attacker > vv + BAD_CAPTURE_MARGIN
                            && b.is_attacked(m.to, them)
                        {
                            // Likely losing: a dearer piece takes a defended one.
                            continue;
                        }
                        if self.features.qs_pruning
                            && qply >= 1
                            && matches!(mover, Some(Piece::Down(_)))
                        {
                            // Reveals branch six ways; beyond the first quiescence ply
                            // they are left to the static evaluation.
                            continue;
                        }
                    }
                    capture_score(vv, attacker)
                }
                None => 0,
            };
            order[n] = m;
            scores[n] = s;
            n += 1;
        }
        let mut best_move = None;
        for i in 0..n {
            pick_best(&mut order[..n], &mut scores[..n], i);
            let m = order[i];
            if pseudo && !self.pos.leaves_king_safe(m) {
                continue;
            }
            let v = self.child(m, 0, alpha, beta, ply, qply + 1);
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    best_move = Some(m);
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        if !in_check && use_tt {
            self.shared.tt.store(
                key,
                Entry {
                    mv: best_move,
                    score: to_tt(best, ply),
                    eval: stand,
                    depth: 0,
                    bound: if best >= beta {
                        Bound::Lower
                    } else {
                        Bound::Upper
                    },
                },
            );
        }
        best
    }
}
