//! The incremental judge ([`jieqi_core::game::Judge`], driving [`Game`]) against a slow
//! re-judging of the whole history from scratch, written straight from RULES.md §5:
//! pieces tracked by identity numbers, attacks from the legal move lists, protection
//! by generating the defender's moves after the capture, streaks and repetitions by
//! scanning every earlier ply. They must agree at every ply of many random games.

mod support;
use support::Rng;

use std::collections::BTreeSet;

use jieqi_core::game::chased_by;
use jieqi_core::{Board, Color, Deal, Game, Move, Outcome, Piece, Position, Role, RuleSet, Square};

fn counts(role: Option<Role>) -> bool {
    matches!(role, Some(Role::Rook | Role::Horse | Role::Cannon))
}

/// The enemy pieces the move `m` from `before` to `after` chases, from the definition.
fn slow_chases(before: &Position, m: Move, after: &Position) -> BTreeSet<Square> {
    let mut out = BTreeSet::new();
    let us = before.turn();
    if after.is_check() {
        return out;
    }
    let board = after.board();
    let ours = board.legal_moves(us);
    let theirs = board.legal_moves(!us);
    for (x, px) in board.pieces() {
        if px.color() == us || px == Piece::Up(!us, Role::King) {
            continue;
        }
        for (a, pa) in board.pieces() {
            if pa.color() != us || !counts(board.movement_role(a)) {
                continue;
            }
            let was = if a == m.to { m.from } else { a };
            let new_attack =
                ours.contains(Move::new(a, x)) && !before.board().piece_attacks(was, x);
            if !new_attack || theirs.contains(Move::new(x, a)) {
                continue;
            }
            let rook_by_minor = px == Piece::Up(!us, Role::Rook)
                && matches!(board.movement_role(a), Some(Role::Horse | Role::Cannon));
            // Whatever stands on x after the capture is taken back, so a face-down
            // capturer may stand there as the piece it moves as.
            let capturer = Piece::Up(us, board.movement_role(a).unwrap());
            let mut taken: Board = board.clone();
            taken.set(a, None).unwrap();
            taken.set(x, Some(capturer)).unwrap();
            let protected = taken.legal_moves(!us).iter().any(|r| r.to == x);
            if rook_by_minor || !protected {
                out.insert(x);
            }
        }
    }
    out
}

/// One ply as the slow judge records it: identities of the pieces.
struct SlowPly {
    color: Color,
    checkers: BTreeSet<u32>,
    chased: BTreeSet<u32>,
    key: u64,
}

/// The whole history judged from scratch.
struct Slow {
    rules: RuleSet,
    start_key: u64,
    ids: [u32; 90],
    plies: Vec<SlowPly>,
}

impl Slow {
    fn new(rules: RuleSet, start: &Position) -> Slow {
        let mut ids = [0; 90];
        for (n, (sq, _)) in (1..).zip(start.board().pieces()) {
            ids[sq.index()] = n;
        }
        Slow {
            rules,
            start_key: start.hash(),
            ids,
            plies: Vec::new(),
        }
    }

    fn play(&mut self, before: &Position, m: Move, after: &Position) {
        self.ids[m.to.index()] = self.ids[m.from.index()];
        self.ids[m.from.index()] = 0;
        let b = after.board();
        let checkers = b
            .checkers(after.turn())
            .into_iter()
            .filter(|&s| counts(b.movement_role(s)))
            .map(|s| self.ids[s.index()])
            .collect();
        let chased = slow_chases(before, m, after)
            .into_iter()
            .map(|s| self.ids[s.index()])
            .collect();
        self.plies.push(SlowPly {
            color: before.turn(),
            checkers,
            chased,
            key: after.hash(),
        });
    }

    /// Whether `c`'s last `k` moves all share one piece under `pick`.
    fn streak(&self, c: Color, k: usize, pick: impl Fn(&SlowPly) -> &BTreeSet<u32>) -> bool {
        let own: Vec<&SlowPly> = self
            .plies
            .iter()
            .rev()
            .filter(|p| p.color == c)
            .take(k)
            .collect();
        own.len() == k
            && k > 0
            && pick(own[0])
                .iter()
                .any(|id| own.iter().all(|p| pick(p).contains(id)))
    }

    fn keeps(&self, c: Color, k: usize) -> bool {
        self.streak(c, k, |p| &p.checkers)
            || (self.rules.chase_rule && self.streak(c, k, |p| &p.chased))
    }

    fn verdict(&self, pos: &Position) -> Option<&'static str> {
        let mover = !pos.turn();
        if pos.legal_moves().is_empty() {
            return Some(if pos.is_check() {
                "checkmate"
            } else {
                "stalemate"
            });
        }
        let n = self.rules.perpetual_moves;
        if self.streak(mover, n, |p| &p.checkers) {
            return Some("perpetual_check");
        }
        if self.rules.chase_rule && self.streak(mover, n, |p| &p.chased) {
            return Some("perpetual_chase");
        }
        if pos.bare_kings() {
            return Some("bare_kings");
        }
        if pos.halfmove() >= self.rules.no_capture_plies {
            return Some("no_capture");
        }
        let key = pos.hash();
        let keys: Vec<u64> = std::iter::once(self.start_key)
            .chain(self.plies.iter().map(|p| p.key))
            .collect();
        if keys.iter().filter(|&&k| k == key).count() >= 3 {
            let first = keys.iter().position(|&k| k == key).unwrap();
            let since = &self.plies[first..];
            let keeping = Color::ALL.into_iter().any(|c| {
                let k = since.iter().filter(|p| p.color == c).count();
                self.keeps(c, k)
            });
            if !keeping {
                return Some("repetition");
            }
        }
        None
    }
}

fn code(o: Option<Outcome>) -> Option<&'static str> {
    o.map(|o| o.reason().name())
}

/// Plays a game from `start` choosing moves that check or chase more often than not
/// (and going back and forth, so that repetitions and streaks happen), comparing the
/// two judges after every ply. Returns how the game ended.
fn compare(start: Position, deal: Deal, rules: RuleSet, seed: u64) -> Option<&'static str> {
    let mut rng = Rng(seed | 1);
    let mut game = Game::from_position(start.clone(), deal, rules).unwrap();
    let mut slow = Slow::new(rules, &start);
    assert_eq!(code(game.outcome()), slow.verdict(&start));
    let mut last: [Option<Move>; 2] = [None, None];
    // Per side, a piece its last move chased (followed as it flees): chasing it again
    // builds the streaks the rules are about.
    let mut prey: [Option<Square>; 2] = [None, None];
    for ply in 0..400 {
        if game.outcome().is_some() {
            break;
        }
        let pos = game.position().clone();
        let us = pos.turn().index();
        let moves = pos.legal_moves();
        let chased_after = |m: Move| {
            let mut after = pos.clone();
            let undo = after.play_unchecked(m, game.reveals_for(m));
            (after.is_check(), chased_by(after.board(), &undo))
        };
        let back = last[us].map(|m| Move::new(m.to, m.from));
        let pick = rng.below(10);
        let follow: Vec<Move> = prey[us]
            .map(|p| {
                moves
                    .iter()
                    .copied()
                    .filter(|&m| chased_after(m).1 >> p.index() & 1 == 1)
                    .collect()
            })
            .unwrap_or_default();
        let m = match back {
            _ if pick < 7 && !follow.is_empty() => follow[rng.below(follow.len())],
            Some(b) if pick < 2 && moves.contains(b) => b,
            _ => {
                let keen: Vec<Move> = moves
                    .iter()
                    .copied()
                    .filter(|&m| {
                        // (The fast function only picks the moves; the judges compare.)
                        let (check, chased) = chased_after(m);
                        check || chased != 0
                    })
                    .collect();
                if pick < 9 && !keen.is_empty() {
                    keen[rng.below(keen.len())]
                } else {
                    moves[rng.below(moves.len())]
                }
            }
        };
        let chased = chased_after(m).1;
        prey[us] = (chased != 0).then(|| Square::new(chased.trailing_zeros() as u8).unwrap());
        if prey[1 - us] == Some(m.from) {
            prey[1 - us] = Some(m.to);
        }
        last[pos.turn().index()] = Some(m);
        game.play(m).unwrap();
        slow.play(&pos, m, game.position());
        assert_eq!(
            code(game.outcome()),
            slow.verdict(game.position()),
            "seed {seed} ply {}: {} after {m}",
            ply + 1,
            game.position().fen()
        );
    }
    code(game.outcome())
}

#[test]
fn the_incremental_judge_agrees_with_re_judging_from_scratch() {
    let endgames = [
        "3ak4/4a4/2c1b4/9/9/2R6/9/4B4/4A4/3AK1N2 w - - 0 1",
        "4k4/9/2n1c4/9/9/9/9/1R3C3/9/3K5 w - - 0 1",
        "3k5/9/r3b4/9/2p6/6P2/9/2N1C4/9/4K4 w - - 0 1",
        "4ka3/4a4/4b4/2r6/9/9/6C2/4B4/4A1R2/4K4 w - - 0 1",
    ];
    let mut ends = std::collections::BTreeMap::new();
    for seed in 0..40u64 {
        for rules in [RuleSet::TOURNAMENT, RuleSet::STANDARD] {
            let fen = endgames[seed as usize % endgames.len()];
            let end = compare(
                Position::from_fen(fen).unwrap(),
                Deal::standard(),
                rules,
                seed,
            );
            *ends.entry(end).or_insert(0) += 1;
        }
        // Whole games from the Jieqi start, with reveals from a seeded deal.
        let deal = Deal::from_seed(&seed.to_le_bytes());
        *ends
            .entry(compare(Position::start(), deal, RuleSet::TOURNAMENT, seed))
            .or_insert(0) += 1;
    }
    // The comparison covered the rules that matter here, not just quiet games.
    for rule in ["perpetual_chase", "perpetual_check", "repetition"] {
        assert!(
            ends.contains_key(&Some(rule)),
            "no game ended by {rule}: {ends:?}"
        );
    }
}

#[test]
fn a_cycle_whose_chases_the_search_skipped_is_replayed() {
    // Red's rook chases the fleeing cannon with each move of the cycle. The search
    // records those moves without working their chases out (far from the limit of
    // 9); the repetition must be judged the same as when they were recorded.
    let start = Position::from_fen("4k4/9/c8/9/9/9/9/1R7/9/3K5 w - - 0 1").unwrap();
    let mut known = jieqi_core::game::Judge::new(RuleSet::TOURNAMENT, &start);
    let mut skipped = known.clone();
    let mut pos = start.clone();
    for t in ["b2a2", "a7b7", "a2b2", "b7a7"] {
        let m = jieqi_core::UciMove::parse(t).unwrap().to_plain();
        let undo = pos.play(m, jieqi_core::Reveals::NONE).unwrap();
        known.push(&pos, &undo);
        skipped.push_searched(&pos, &undo, 0);
    }
    assert_eq!(pos.hash(), start.hash());
    assert_eq!(skipped.repeats(10), Some(4));
    // Black has just moved (and chased nothing); Red, to move, chased every time.
    assert_eq!(known.cycle_keepers(&pos, 4), (false, true));
    assert_eq!(skipped.cycle_keepers(&pos, 4), (false, true));
    // Under the standard rules nobody keeps anything up.
    skipped.set_rules(RuleSet::STANDARD);
    assert_eq!(skipped.cycle_keepers(&pos, 4), (false, false));
}
