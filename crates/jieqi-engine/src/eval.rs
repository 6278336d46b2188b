//! Static evaluation.
//!
//! The evaluation is linear in its parameters ([`Params`]), so the Texel tuner
//! ([`crate::tune`]) can fit them: every term is added through a [`Tracer`] together
//! with the parameter index and coefficient it came from.
//! The built-in parameters are such a fit, to self-play games (`params.txt`).
//!
//! Terms, each from Red's side (Black's terms mirrored and subtracted):
//! - material of face-up pieces, plus a piece-square term (files mirrored, ranks counted
//!   from the owner's back rank; advisors and elephants have full-board tables because
//!   they roam in Jieqi);
//! - each face-down piece (暗子) is worth the expectation of the piece values over its
//!   side's pool, weighted by the counts, plus a bonus by the role of its start square;
//! - king safety: own pieces in the palace, enemy rooks and cannons on the king's file;
//! - mobility-ish terms: open squares along face-up rooks' lines, free legs of
//!   face-up horses;
//! - a tempo bonus for the side to move.

use jieqi_core::{Color, Piece, Position, Role, Square, start_role};

/// Index of a role's value in [`Params::w`] (the king has none).
pub const fn value_index(role: Role) -> usize {
    role.index() - 1
}

/// First index of the piece-square tables: 7 roles × 50 (10 relative ranks × 5 mirrored files).
pub const PST: usize = 6;
/// First index of the face-down bonuses by start-square role (6 roles).
pub const HIDDEN: usize = PST + 7 * 50;
/// Tempo bonus for the side to move.
pub const TEMPO: usize = HIDDEN + 6;
/// Per own non-king piece in the own palace.
pub const SHELTER: usize = TEMPO + 1;
/// Per enemy face-up rook on the own king's file (a penalty when negative).
pub const ROOK_KING_FILE: usize = SHELTER + 1;
/// Per enemy face-up cannon on the own king's file.
pub const CANNON_KING_FILE: usize = ROOK_KING_FILE + 1;
/// Per empty square a face-up rook sees along its rank and file.
pub const ROOK_MOBILITY: usize = CANNON_KING_FILE + 1;
/// Per free leg of a face-up horse (a leg whose target is on the board).
pub const HORSE_MOBILITY: usize = ROOK_MOBILITY + 1;
/// Per face-up enemy-half rook, horse or cannon (attacking presence).
pub const ATTACKER: usize = HORSE_MOBILITY + 1;
/// Number of parameters.
pub const COUNT: usize = ATTACKER + 1;

/// The evaluation parameters, in centipawns, flat so the tuner can treat them alike.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// The weights; see the index constants of this module.
    pub w: Vec<i32>,
}

/// Receives each term of the evaluation: parameter index and coefficient (Red positive).
pub trait Tracer {
    /// Records `coef` × parameter `index`.
    fn add(&mut self, index: usize, coef: f64);
}

/// A tracer that records nothing (the fast path).
pub struct NoTrace;

impl Tracer for NoTrace {
    #[inline(always)]
    fn add(&mut self, _: usize, _: f64) {}
}

/// A tracer that collects the features densely (for the tuner).
#[derive(Clone, Debug)]
pub struct Features(pub Vec<f64>);

impl Default for Features {
    fn default() -> Features {
        Features(vec![0.0; COUNT])
    }
}

impl Tracer for Features {
    fn add(&mut self, index: usize, coef: f64) {
        self.0[index] += coef;
    }
}

/// The index of `sq` in a piece-square table for a piece of `color`.
#[inline(always)]
pub fn pst_square(color: Color, sq: Square) -> usize {
    let file = usize::from(sq.file().index());
    let rank = usize::from(sq.rank().index());
    let rel_rank = if color == Color::Red { rank } else { 9 - rank };
    rel_rank * 5 + file.min(8 - file)
}

/// The built-in parameters: `params.txt` beside this file, written by the tuner.
static BUILTIN: std::sync::LazyLock<Params> = std::sync::LazyLock::new(|| {
    Params::parse(include_str!("params.txt")).expect("the built-in parameters parse")
});

impl Default for Params {
    /// The built-in parameters (Texel-tuned on self-play games: `params.txt`).
    fn default() -> Params {
        BUILTIN.clone()
    }
}

impl Params {
    /// Reads parameters written by [`Params::to_text`]: whitespace-separated integers,
    /// `#` comments allowed.
    pub fn parse(text: &str) -> Result<Params, String> {
        let mut w = Vec::with_capacity(COUNT);
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("");
            for tok in line.split_whitespace() {
                w.push(
                    tok.parse::<i32>()
                        .map_err(|_| format!("not an integer: {tok:?}"))?,
                );
            }
        }
        if w.len() != COUNT {
            return Err(format!("expected {COUNT} parameters, found {}", w.len()));
        }
        Ok(Params { w })
    }

    /// The parameters as text, one group per line with comments.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let join = |xs: &[i32]| xs.iter().map(i32::to_string).collect::<Vec<_>>().join(" ");
        s.push_str(&format!("# values A B N R C P\n{}\n", join(&self.w[..PST])));
        for role in Role::ALL {
            s.push_str(&format!("# pst {role}\n"));
            for rr in 0..10 {
                let at = PST + role.index() * 50 + rr * 5;
                s.push_str(&format!("{}\n", join(&self.w[at..at + 5])));
            }
        }
        s.push_str(&format!(
            "# face-down bonus by start role A B N R C P\n{}\n",
            join(&self.w[HIDDEN..TEMPO])
        ));
        s.push_str(&format!(
            "# tempo shelter rook-king-file cannon-king-file rook-mobility horse-mobility attacker\n{}\n",
            join(&self.w[TEMPO..COUNT])
        ));
        s
    }

    /// The value of a face-up piece of `role` (the king counts 0).
    #[inline(always)]
    pub fn value(&self, role: Role) -> i32 {
        if role == Role::King {
            0
        } else {
            self.w[value_index(role)]
        }
    }

    /// The expected value of a face-down piece of `color`: the pool-weighted mean.
    pub fn hidden_value(&self, pos: &Position, color: Color) -> i32 {
        let pool = pos.pool();
        let (mut num, mut den) = (0i32, 0i32);
        for r in Role::HIDDEN {
            let n = i32::from(pool.get(color, r));
            num += n * self.w[value_index(r)];
            den += n;
        }
        if den == 0 { 0 } else { num / den }
    }
}

/// Evaluates `pos` from the side to move's point of view, in centipawns.
pub fn evaluate(params: &Params, pos: &Position) -> i32 {
    let v = trace(params, pos, &mut NoTrace);
    if pos.turn() == Color::Red { v } else { -v }
}

/// A horse's leg offset and the two targets beyond it.
type Leg = (i32, i32, [(i32, i32); 2]);

const LEGS: [Leg; 4] = [
    (0, 1, [(-1, 2), (1, 2)]),
    (0, -1, [(-1, -2), (1, -2)]),
    (1, 0, [(2, -1), (2, 1)]),
    (-1, 0, [(-2, -1), (-2, 1)]),
];

/// The evaluation from Red's point of view, reporting each term to `t`.
#[inline]
pub fn trace<T: Tracer>(p: &Params, pos: &Position, t: &mut T) -> i32 {
    let board = pos.board();
    let w = &p.w;
    let mut total = 0i32;
    let all = board.occupancy(Color::Red) | board.occupancy(Color::Black);
    let empty = |s: Square| all & (1u128 << s.index()) == 0;
    for color in Color::ALL {
        let sign = if color == Color::Red { 1 } else { -1 };
        let fsign = f64::from(sign);
        let mut score = 0i32;
        let mut hidden = 0i32;
        let mut shelter = 0i32;
        let king = board.king(color);
        let enemy_king = board.king(!color);
        let mut occ = board.occupancy(color);
        while occ != 0 {
            let i = occ.trailing_zeros() as u8;
            occ &= occ - 1;
            let sq = Square::new(i).expect("occupancy bits are squares");
            if sq.in_palace(color) && Some(sq) != king {
                shelter += 1;
            }
            match board.piece_at(sq) {
                Some(Piece::Down(_)) => {
                    hidden += 1;
                    if let Some((_, role)) = start_role(sq) {
                        let idx = HIDDEN + value_index(role);
                        score += w[idx];
                        t.add(idx, fsign);
                    }
                }
                Some(Piece::Up(_, role)) => {
                    if role != Role::King {
                        let idx = value_index(role);
                        score += w[idx];
                        t.add(idx, fsign);
                    }
                    let idx = PST + role.index() * 50 + pst_square(color, sq);
                    score += w[idx];
                    t.add(idx, fsign);
                    let (f, r) = (i32::from(sq.file().index()), i32::from(sq.rank().index()));
                    match role {
                        Role::Rook | Role::Cannon => {
                            if let Some(ek) = enemy_king
                                && ek.file() == sq.file()
                            {
                                let idx = if role == Role::Rook {
                                    ROOK_KING_FILE
                                } else {
                                    CANNON_KING_FILE
                                };
                                // The term belongs to the king's owner: subtract.
                                score -= w[idx];
                                t.add(idx, -fsign);
                            }
                            if role == Role::Rook {
                                let mut mob = 0;
                                for (df, dr) in [(0, 1), (0, -1), (1, 0), (-1, 0)] {
                                    let (mut x, mut y) = (f + df, r + dr);
                                    while let Some(s) = Square::from_xy(x, y) {
                                        if !empty(s) {
                                            break;
                                        }
                                        mob += 1;
                                        x += df;
                                        y += dr;
                                    }
                                }
                                score += mob * w[ROOK_MOBILITY];
                                t.add(ROOK_MOBILITY, fsign * f64::from(mob));
                            }
                            if !sq.on_own_half(color) {
                                score += w[ATTACKER];
                                t.add(ATTACKER, fsign);
                            }
                        }
                        Role::Horse => {
                            let mut mob = 0;
                            for (lf, lr, targets) in LEGS {
                                let Some(leg) = Square::from_xy(f + lf, r + lr) else {
                                    continue;
                                };
                                if !empty(leg) {
                                    continue;
                                }
                                for (tf, tr) in targets {
                                    if Square::from_xy(f + tf, r + tr).is_some() {
                                        mob += 1;
                                    }
                                }
                            }
                            score += mob * w[HORSE_MOBILITY];
                            t.add(HORSE_MOBILITY, fsign * f64::from(mob));
                            if !sq.on_own_half(color) {
                                score += w[ATTACKER];
                                t.add(ATTACKER, fsign);
                            }
                        }
                        _ => {}
                    }
                }
                None => {}
            }
        }
        score += shelter * w[SHELTER];
        t.add(SHELTER, fsign * f64::from(shelter));
        if hidden > 0 {
            let pool = pos.pool();
            let den: i32 = Role::HIDDEN
                .iter()
                .map(|&r| i32::from(pool.get(color, r)))
                .sum();
            if den > 0 {
                let mut num = 0;
                for r in Role::HIDDEN {
                    let n = i32::from(pool.get(color, r));
                    if n > 0 {
                        num += n * w[value_index(r)];
                        t.add(
                            value_index(r),
                            fsign * f64::from(hidden) * f64::from(n) / f64::from(den),
                        );
                    }
                }
                score += hidden * num / den;
            }
        }
        total += sign * score;
    }
    let tsign = if pos.turn() == Color::Red { 1 } else { -1 };
    total += tsign * w[TEMPO];
    t.add(TEMPO, f64::from(tsign));
    total
}

/// The evaluation's tables, derived from [`Params`] once per search: the same value as
/// [`evaluate`], computed faster (one table lookup per piece for material, piece-square
/// and face-down terms; ray masks for rook mobility).
pub struct Evaluator {
    /// `[kind][square]`, Red positive: a face-up piece's value plus its piece-square
    /// term, or a face-down piece's start-square bonus; kind from [`kind`].
    psq: Box<[[i32; 90]; 32]>,
    /// Piece values by role index (the king 0).
    values: [i32; 7],
    shelter: i32,
    rook_king_file: i32,
    cannon_king_file: i32,
    rook_mobility: i32,
    horse_mobility: i32,
    attacker: i32,
    tempo: i32,
}

/// The table row of a piece: colour × 16, plus the role index for a face-up piece or 8
/// for a face-down one.
#[inline(always)]
fn kind(p: Piece) -> usize {
    match p {
        Piece::Up(c, r) => c.index() * 16 + r.index(),
        Piece::Down(c) => c.index() * 16 + 8,
    }
}

/// Geometry shared by all evaluators.
struct Geometry {
    /// Rays from each point: right, up (increasing index), left, down (decreasing).
    rays: [[u128; 90]; 4],
    /// The number of points of each ray.
    ray_len: [[u8; 90]; 4],
    /// Each point's four horse legs: the leg point (`u8::MAX` off the board) and how
    /// many of the two targets beyond it are on the board.
    legs: [[(u8, u8); 4]; 90],
    /// Each colour's palace.
    palace: [u128; 2],
    /// Each colour's own half.
    own_half: [u128; 2],
    /// Each file's points.
    files: [u128; 9],
}

static GEOMETRY: std::sync::LazyLock<Geometry> = std::sync::LazyLock::new(|| {
    let mut g = Geometry {
        rays: [[0; 90]; 4],
        ray_len: [[0; 90]; 4],
        legs: [[(u8::MAX, 0); 4]; 90],
        palace: [0; 2],
        own_half: [0; 2],
        files: [0; 9],
    };
    for sq in Square::all() {
        let i = sq.index();
        let (f, r) = (i32::from(sq.file().index()), i32::from(sq.rank().index()));
        for (d, (df, dr)) in [(1, 0), (0, 1), (-1, 0), (0, -1)].into_iter().enumerate() {
            let (mut x, mut y) = (f + df, r + dr);
            while let Some(s) = Square::from_xy(x, y) {
                g.rays[d][i] |= 1u128 << s.index();
                g.ray_len[d][i] += 1;
                x += df;
                y += dr;
            }
        }
        for (k, (lf, lr, targets)) in LEGS.iter().enumerate() {
            if let Some(leg) = Square::from_xy(f + lf, r + lr) {
                let n = targets
                    .iter()
                    .filter(|(tf, tr)| Square::from_xy(f + tf, r + tr).is_some())
                    .count();
                g.legs[i][k] = (leg.index() as u8, n as u8);
            }
        }
        g.files[usize::from(sq.file().index())] |= 1u128 << i;
        for c in Color::ALL {
            if sq.in_palace(c) {
                g.palace[c.index()] |= 1u128 << i;
            }
            if sq.on_own_half(c) {
                g.own_half[c.index()] |= 1u128 << i;
            }
        }
    }
    g
});

/// Empty points from `from` along ray `d` of [`Geometry::rays`] up to the first
/// occupied one (no popcount: the default target has no fast one).
#[inline(always)]
fn run_length(g: &Geometry, d: usize, from: usize, all: u128) -> i32 {
    let blockers = g.rays[d][from] & all;
    if blockers == 0 {
        return i32::from(g.ray_len[d][from]);
    }
    let (from, step) = (from as i32, if d & 1 == 0 { 1 } else { 9 });
    let b = if d < 2 {
        blockers.trailing_zeros() as i32
    } else {
        127 - blockers.leading_zeros() as i32
    };
    (b - from).abs() / step - 1
}

/// The number of points in a sparse set.
#[inline(always)]
fn sparse_count(mut bits: u128) -> i32 {
    let mut n = 0;
    while bits != 0 {
        bits &= bits - 1;
        n += 1;
    }
    n
}

/// What the evaluation keeps up to date move by move (see [`Evaluator::update`]): the
/// summed table terms, the face-down pieces per colour, and where the face-up rooks,
/// cannons and horses stand, so that [`Evaluator::evaluate_with`] does not walk the
/// whole board.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Acc {
    /// Sum of the table terms of all pieces, Red positive.
    psq: i32,
    /// Face-down pieces per colour.
    hidden: [i32; 2],
    /// Per colour: face-up rooks, cannons, horses.
    up: [[u128; 3]; 2],
}

/// The slot of a role in [`Acc::up`].
#[inline(always)]
fn up_slot(role: Role) -> Option<usize> {
    match role {
        Role::Rook => Some(0),
        Role::Cannon => Some(1),
        Role::Horse => Some(2),
        _ => None,
    }
}

impl Acc {
    #[inline(always)]
    fn add(&mut self, ev: &Evaluator, p: Piece, sq: usize, sign: i32) {
        self.psq += sign * ev.psq[kind(p)][sq];
        match p {
            Piece::Down(c) => self.hidden[c.index()] += sign,
            Piece::Up(c, r) => {
                if let Some(slot) = up_slot(r) {
                    self.up[c.index()][slot] ^= 1u128 << sq;
                }
            }
        }
    }
}

impl Evaluator {
    /// The tables for `p`.
    pub fn new(p: &Params) -> Evaluator {
        let w = &p.w;
        let mut psq = Box::new([[0i32; 90]; 32]);
        for color in Color::ALL {
            let sign = if color == Color::Red { 1 } else { -1 };
            for sq in Square::all() {
                for role in Role::ALL {
                    let v = p.value(role) + w[PST + role.index() * 50 + pst_square(color, sq)];
                    psq[kind(Piece::Up(color, role))][sq.index()] = sign * v;
                }
                if let Some((_, role)) = start_role(sq)
                    && role != Role::King
                {
                    psq[kind(Piece::Down(color))][sq.index()] =
                        sign * w[HIDDEN + value_index(role)];
                }
            }
        }
        let mut values = [0; 7];
        for role in Role::ALL {
            values[role.index()] = p.value(role);
        }
        Evaluator {
            psq,
            values,
            shelter: w[SHELTER],
            rook_king_file: w[ROOK_KING_FILE],
            cannon_king_file: w[CANNON_KING_FILE],
            rook_mobility: w[ROOK_MOBILITY],
            horse_mobility: w[HORSE_MOBILITY],
            attacker: w[ATTACKER],
            tempo: w[TEMPO],
        }
    }

    /// The expected value of a face-down piece of `color` (as [`Params::hidden_value`]).
    #[inline]
    pub fn hidden_value(&self, pos: &Position, color: Color) -> i32 {
        let pool = pos.pool();
        let (mut num, mut den) = (0i32, 0i32);
        for r in Role::HIDDEN {
            let n = i32::from(pool.get(color, r));
            num += n * self.values[r.index()];
            den += n;
        }
        if den == 0 { 0 } else { num / den }
    }

    /// The value of a face-up piece of `role` (the king 0).
    #[inline(always)]
    pub fn value(&self, role: Role) -> i32 {
        self.values[role.index()]
    }

    /// The greatest piece value (a face-down piece is worth at most this too).
    #[inline(always)]
    pub fn max_value(&self) -> i32 {
        self.values.iter().copied().max().unwrap_or(0)
    }

    /// The accumulator of `pos`, from scratch.
    pub fn acc(&self, pos: &Position) -> Acc {
        let mut acc = Acc {
            psq: 0,
            hidden: [0; 2],
            up: [[0; 3]; 2],
        };
        let board = pos.board();
        let mut bits = board.occupancy(Color::Red) | board.occupancy(Color::Black);
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let sq = Square::new(i as u8).expect("occupancy bits are squares");
            if let Some(p) = board.piece_at(sq) {
                acc.add(self, p, i, 1);
            }
        }
        acc
    }

    /// The accumulator after a move from `from` to `to` of `moved` (arriving as
    /// `arrived`, which differs when a face-down piece was revealed), capturing
    /// `captured`.
    #[inline]
    pub fn update(
        &self,
        acc: &Acc,
        from: Square,
        to: Square,
        moved: Piece,
        arrived: Piece,
        captured: Option<Piece>,
    ) -> Acc {
        let mut a = *acc;
        a.add(self, moved, from.index(), -1);
        if let Some(c) = captured {
            a.add(self, c, to.index(), -1);
        }
        a.add(self, arrived, to.index(), 1);
        a
    }

    /// Evaluates `pos`, whose accumulator is `acc`, from the side to move's point of
    /// view: exactly [`evaluate`], without walking the board.
    #[inline]
    pub fn evaluate_with(&self, pos: &Position, acc: &Acc) -> i32 {
        let g = &*GEOMETRY;
        let board = pos.board();
        let occ = [board.occupancy(Color::Red), board.occupancy(Color::Black)];
        let all = occ[0] | occ[1];
        let mut total = acc.psq;
        for color in Color::ALL {
            let c = color.index();
            let [rooks, cannons, horses] = acc.up[c];
            let mut score = 0i32;
            let mut shelter = sparse_count(occ[c] & g.palace[c]);
            if let Some(k) = board.king(color)
                && g.palace[c] >> k.index() & 1 != 0
            {
                shelter -= 1;
            }
            score += shelter * self.shelter;
            if let Some(ek) = board.king(!color) {
                let file = g.files[usize::from(ek.file().index())];
                score -= sparse_count(rooks & file) * self.rook_king_file;
                score -= sparse_count(cannons & file) * self.cannon_king_file;
            }
            score += sparse_count((rooks | cannons | horses) & !g.own_half[c]) * self.attacker;
            let mut bits = rooks;
            let mut mob = 0;
            while bits != 0 {
                let i = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                mob += run_length(g, 0, i, all)
                    + run_length(g, 1, i, all)
                    + run_length(g, 2, i, all)
                    + run_length(g, 3, i, all);
            }
            score += mob * self.rook_mobility;
            let mut bits = horses;
            let mut mob = 0;
            while bits != 0 {
                let i = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                for &(leg, n) in &g.legs[i] {
                    if leg != u8::MAX && all >> leg & 1 == 0 {
                        mob += i32::from(n);
                    }
                }
            }
            score += mob * self.horse_mobility;
            let hidden = acc.hidden[c];
            if hidden > 0 {
                let pool = pos.pool();
                let (mut num, mut den) = (0i32, 0i32);
                for r in Role::HIDDEN {
                    let n = i32::from(pool.get(color, r));
                    num += n * self.values[r.index()];
                    den += n;
                }
                if den > 0 {
                    score += hidden * num / den;
                }
            }
            total += if color == Color::Red { score } else { -score };
        }
        if pos.turn() == Color::Red {
            total + self.tempo
        } else {
            -(total - self.tempo)
        }
    }

    /// Evaluates `pos` from the side to move's point of view: exactly [`evaluate`].
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let g = &*GEOMETRY;
        let board = pos.board();
        let occ = [board.occupancy(Color::Red), board.occupancy(Color::Black)];
        let all = occ[0] | occ[1];
        let mut total = 0i32;
        for color in Color::ALL {
            let c = color.index();
            let mut score = 0i32;
            let mut psq = 0i32;
            let mut hidden = 0i32;
            let king = board.king(color);
            let enemy_king_file = board.king(!color).map(|k| k.file());
            let mut shelter = sparse_count(occ[c] & g.palace[c]);
            if let Some(k) = king
                && g.palace[c] >> k.index() & 1 != 0
            {
                shelter -= 1;
            }
            let mut bits = occ[c];
            while bits != 0 {
                let i = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let sq = Square::new(i as u8).expect("occupancy bits are squares");
                let Some(piece) = board.piece_at(sq) else {
                    continue;
                };
                psq += self.psq[kind(piece)][i];
                let Piece::Up(_, role) = piece else {
                    hidden += 1;
                    continue;
                };
                let attacking = g.own_half[c] >> i & 1 == 0;
                match role {
                    Role::Rook => {
                        if enemy_king_file == Some(sq.file()) {
                            score -= self.rook_king_file;
                        }
                        let mob = run_length(g, 0, i, all)
                            + run_length(g, 1, i, all)
                            + run_length(g, 2, i, all)
                            + run_length(g, 3, i, all);
                        score += mob * self.rook_mobility;
                        if attacking {
                            score += self.attacker;
                        }
                    }
                    Role::Cannon => {
                        if enemy_king_file == Some(sq.file()) {
                            score -= self.cannon_king_file;
                        }
                        if attacking {
                            score += self.attacker;
                        }
                    }
                    Role::Horse => {
                        let mut mob = 0;
                        for &(leg, n) in &g.legs[i] {
                            if leg != u8::MAX && all >> leg & 1 == 0 {
                                mob += i32::from(n);
                            }
                        }
                        score += mob * self.horse_mobility;
                        if attacking {
                            score += self.attacker;
                        }
                    }
                    _ => {}
                }
            }
            score += shelter * self.shelter;
            if hidden > 0 {
                let pool = pos.pool();
                let (mut num, mut den) = (0i32, 0i32);
                for r in Role::HIDDEN {
                    let n = i32::from(pool.get(color, r));
                    num += n * self.values[r.index()];
                    den += n;
                }
                if den > 0 {
                    score += hidden * num / den;
                }
            }
            let sign = if color == Color::Red { 1 } else { -1 };
            // The table is already signed.
            total += sign * score + psq;
        }
        if pos.turn() == Color::Red {
            total + self.tempo
        } else {
            -(total - self.tempo)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_balanced() {
        let p = Params::default();
        let pos = Position::start();
        // Only the tempo separates the sides at the start.
        assert_eq!(evaluate(&p, &pos), p.w[TEMPO]);
    }

    #[test]
    fn traced_features_reproduce_the_score() {
        let p = Params::default();
        for fen in [
            jieqi_core::START_FEN,
            "4k4/9/9/9/9/9/9/9/4A4/3K5 w - - 0 1",
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
            "xxxxkxxxx/9/1x5x1/x1x1x1x1x/4R4/9/X1X1X1X1X/1X5X1/9/XXXXKXXX1 b A2B2N2R1C2P5a2b2n2r2c2p5 - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let mut f = Features::default();
            let v = trace(&p, &pos, &mut f);
            let lin: f64 = f.0.iter().zip(&p.w).map(|(a, &b)| a * f64::from(b)).sum();
            assert!((lin - f64::from(v)).abs() < 2.0, "{fen}: {lin} vs {v}");
        }
    }

    #[test]
    fn hidden_piece_is_worth_its_pool_expectation() {
        let p = Params::default();
        // Red: one face-down piece on a0; pool holds one rook and one pawn.
        let with = Position::from_fen("3k5/9/9/9/9/9/9/9/9/X3K4 w R1P1 - 0 1").unwrap();
        let without = Position::from_fen("3k5/9/9/9/9/9/9/9/9/4K4 w R1P1 - 0 1").unwrap();
        let diff = evaluate(&p, &with) - evaluate(&p, &without);
        let expect =
            (p.value(Role::Rook) + p.value(Role::Pawn)) / 2 + p.w[HIDDEN + value_index(Role::Rook)];
        assert_eq!(diff, expect);
    }

    #[test]
    fn fast_evaluator_agrees_with_the_traced_evaluation() {
        // A tweaked parameter set, so that every weight is exercised with its own value.
        let mut p = Params::default();
        for (i, w) in p.w.iter_mut().enumerate() {
            *w += (i as i32 * 7) % 13 - 6;
        }
        for params in [Params::default(), p] {
            let ev = Evaluator::new(&params);
            let mut seed = 0x2545_f491_4f6c_dd1du64;
            let mut fens = vec![jieqi_core::START_FEN];
            fens.extend_from_slice(crate::bench::MIDDLEGAMES);
            fens.extend_from_slice(crate::bench::ENDGAMES);
            for fen in fens {
                let mut pos = Position::from_fen(fen).unwrap();
                let mut acc = ev.acc(&pos);
                for _ in 0..80 {
                    assert_eq!(ev.evaluate(&pos), evaluate(&params, &pos), "{}", pos.fen());
                    assert_eq!(ev.acc(&pos), acc, "{}", pos.fen());
                    assert_eq!(ev.evaluate_with(&pos, &acc), evaluate(&params, &pos));
                    for c in Color::ALL {
                        assert_eq!(ev.hidden_value(&pos, c), params.hidden_value(&pos, c));
                    }
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    let m = moves[(seed % moves.len() as u64) as usize];
                    let (outcomes, n) = crate::search::reveal_outcomes(&pos, pos.turn());
                    let mover = (pos.board().is_hidden(m.from) && n > 0)
                        .then(|| outcomes[(seed >> 32) as usize % n].0);
                    let (moved, captured) = (pos.piece_at(m.from).unwrap(), pos.piece_at(m.to));
                    pos.play_unchecked(
                        m,
                        jieqi_core::Reveals {
                            mover,
                            captured: None,
                        },
                    );
                    let arrived = pos.piece_at(m.to).unwrap();
                    acc = ev.update(&acc, m.from, m.to, moved, arrived, captured);
                }
            }
        }
    }

    #[test]
    fn params_text_round_trip() {
        let p = Params::default();
        assert_eq!(Params::parse(&p.to_text()).unwrap(), p);
        assert!(Params::parse("1 2 3").is_err());
    }
}
