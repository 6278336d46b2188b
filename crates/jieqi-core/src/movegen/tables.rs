//! Precomputed move geometry, built at compile time.
//!
//! Sliding pieces use line tables in the manner of the classic xiangqi "bit rank / bit
//! file" generators: for a point on a rank (9 points) or a file (10 points) and the
//! occupancy of that line, the points a rook reaches (empty points and the first piece
//! each way) and the points a cannon reaches (empty points, and the second piece each way).

/// Rook and cannon reach along one line, as bit masks over the line's points.
#[derive(Copy, Clone)]
pub(crate) struct Slide {
    /// Empty points up to and including the first piece in each direction.
    pub rook: u16,
    /// Empty points up to the first piece, plus the second piece in each direction.
    pub cannon: u16,
}

const fn slide(p: usize, occ: usize, len: usize) -> Slide {
    let mut rook = 0u16;
    let mut cannon = 0u16;
    let mut dir = 0;
    while dir < 2 {
        let mut i = p as isize;
        let mut screened = false;
        loop {
            i += if dir == 0 { -1 } else { 1 };
            if i < 0 || i >= len as isize {
                break;
            }
            let bit = 1u16 << i;
            if occ & (1 << i) != 0 {
                if screened {
                    cannon |= bit;
                    break;
                }
                rook |= bit;
                screened = true;
            } else if !screened {
                rook |= bit;
                cannon |= bit;
            }
        }
        dir += 1;
    }
    Slide { rook, cannon }
}

/// Rank slides: `RANK_SLIDE[file][occupancy of the rank]`.
pub(crate) static RANK_SLIDE: [[Slide; 512]; 9] = {
    let mut t = [[Slide { rook: 0, cannon: 0 }; 512]; 9];
    let mut p = 0;
    while p < 9 {
        let mut occ = 0;
        while occ < 512 {
            t[p][occ] = slide(p, occ, 9);
            occ += 1;
        }
        p += 1;
    }
    t
};

/// File slides: `FILE_SLIDE[rank][occupancy of the file]`.
pub(crate) static FILE_SLIDE: [[Slide; 1024]; 10] = {
    let mut t = [[Slide { rook: 0, cannon: 0 }; 1024]; 10];
    let mut p = 0;
    while p < 10 {
        let mut occ = 0;
        while occ < 1024 {
            t[p][occ] = slide(p, occ, 10);
            occ += 1;
        }
        p += 1;
    }
    t
};

/// Up to `N` target points, each with the point that must be empty to reach it
/// (a horse's leg, an elephant's eye; the target itself when nothing can block).
#[derive(Copy, Clone)]
pub(crate) struct Steps<const N: usize> {
    pub len: u8,
    pub to: [u8; N],
    pub via: [u8; N],
}

impl<const N: usize> Steps<N> {
    const EMPTY: Steps<N> = Steps {
        len: 0,
        to: [0; N],
        via: [0; N],
    };

    const fn push(mut self, to: usize, via: usize) -> Steps<N> {
        self.to[self.len as usize] = to as u8;
        self.via[self.len as usize] = via as u8;
        self.len += 1;
        self
    }
}

const fn on_board(f: isize, r: isize) -> bool {
    f >= 0 && f < 9 && r >= 0 && r < 10
}

const fn sq(f: isize, r: isize) -> usize {
    (r * 9 + f) as usize
}

const HORSE_DELTAS: [(isize, isize, isize, isize); 8] = [
    // (df, dr, leg df, leg dr)
    (1, 2, 0, 1),
    (-1, 2, 0, 1),
    (1, -2, 0, -1),
    (-1, -2, 0, -1),
    (2, 1, 1, 0),
    (2, -1, 1, 0),
    (-2, 1, -1, 0),
    (-2, -1, -1, 0),
];

/// Horse moves from a point: target and leg (蹩马腿).
pub(crate) static HORSE_MOVES: [Steps<8>; 90] = {
    let mut t = [Steps::EMPTY; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as isize, (s / 9) as isize);
        let mut i = 0;
        while i < 8 {
            let (df, dr, lf, lr) = HORSE_DELTAS[i];
            if on_board(f + df, r + dr) {
                t[s] = t[s].push(sq(f + df, r + dr), sq(f + lf, r + lr));
            }
            i += 1;
        }
        s += 1;
    }
    t
};

/// Horses that attack a point: the horse's point and its leg.
pub(crate) static HORSE_ATTACKERS: [Steps<8>; 90] = {
    let mut t = [Steps::EMPTY; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as isize, (s / 9) as isize);
        let mut i = 0;
        while i < 8 {
            // A horse at (f - df, r - dr) moving by (df, dr) lands on s.
            let (df, dr, lf, lr) = HORSE_DELTAS[i];
            let (hf, hr) = (f - df, r - dr);
            if on_board(hf, hr) {
                t[s] = t[s].push(sq(hf, hr), sq(hf + lf, hr + lr));
            }
            i += 1;
        }
        s += 1;
    }
    t
};

/// Elephant moves from a point (anywhere on the board in Jieqi): target and eye (象眼).
pub(crate) static ELEPHANT_MOVES: [Steps<4>; 90] = {
    let mut t = [Steps::EMPTY; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as isize, (s / 9) as isize);
        let d = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
        let mut i = 0;
        while i < 4 {
            let (df, dr) = d[i];
            if on_board(f + 2 * df, r + 2 * dr) {
                t[s] = t[s].push(sq(f + 2 * df, r + 2 * dr), sq(f + df, r + dr));
            }
            i += 1;
        }
        s += 1;
    }
    t
};

/// Advisor moves from a point (one diagonal step, anywhere on the board in Jieqi).
pub(crate) static ADVISOR_MOVES: [Steps<4>; 90] = {
    let mut t = [Steps::EMPTY; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as isize, (s / 9) as isize);
        let d = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
        let mut i = 0;
        while i < 4 {
            let (df, dr) = d[i];
            if on_board(f + df, r + dr) {
                t[s] = t[s].push(sq(f + df, r + dr), sq(f + df, r + dr));
            }
            i += 1;
        }
        s += 1;
    }
    t
};

const fn in_palace(f: isize, r: isize, black: bool) -> bool {
    f >= 3
        && f <= 5
        && if black {
            r >= 7 && r <= 9
        } else {
            r >= 0 && r <= 2
        }
}

/// King moves within its palace, per colour (0 Red, 1 Black).
pub(crate) static KING_MOVES: [[Steps<4>; 90]; 2] = {
    let mut t = [[Steps::EMPTY; 90]; 2];
    let mut c = 0;
    while c < 2 {
        let mut s = 0;
        while s < 90 {
            let (f, r) = ((s % 9) as isize, (s / 9) as isize);
            let d = [(1, 0), (-1, 0), (0, 1), (0, -1)];
            let mut i = 0;
            while i < 4 {
                let (df, dr) = d[i];
                if in_palace(f + df, r + dr, c == 1) {
                    t[c][s] = t[c][s].push(sq(f + df, r + dr), sq(f + df, r + dr));
                }
                i += 1;
            }
            s += 1;
        }
        c += 1;
    }
    t
};

/// Face-down advisor moves: like an advisor, but bound to the palace (d0/f0 → e1).
pub(crate) static HIDDEN_ADVISOR_MOVES: [[Steps<4>; 90]; 2] = {
    let mut t = [[Steps::EMPTY; 90]; 2];
    let mut c = 0;
    while c < 2 {
        let mut s = 0;
        while s < 90 {
            let (f, r) = ((s % 9) as isize, (s / 9) as isize);
            let d = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
            let mut i = 0;
            while i < 4 {
                let (df, dr) = d[i];
                if in_palace(f + df, r + dr, c == 1) {
                    t[c][s] = t[c][s].push(sq(f + df, r + dr), sq(f + df, r + dr));
                }
                i += 1;
            }
            s += 1;
        }
        c += 1;
    }
    t
};

/// Pawn moves per colour: forward, and sideways once beyond the river.
pub(crate) static PAWN_MOVES: [[Steps<4>; 90]; 2] = {
    let mut t = [[Steps::EMPTY; 90]; 2];
    let mut c = 0;
    while c < 2 {
        let mut s = 0;
        while s < 90 {
            let (f, r) = ((s % 9) as isize, (s / 9) as isize);
            let fwd = if c == 0 { 1 } else { -1 };
            if on_board(f, r + fwd) {
                t[c][s] = t[c][s].push(sq(f, r + fwd), sq(f, r + fwd));
            }
            let crossed = if c == 0 { r >= 5 } else { r <= 4 };
            if crossed {
                if on_board(f - 1, r) {
                    t[c][s] = t[c][s].push(sq(f - 1, r), sq(f - 1, r));
                }
                if on_board(f + 1, r) {
                    t[c][s] = t[c][s].push(sq(f + 1, r), sq(f + 1, r));
                }
            }
            s += 1;
        }
        c += 1;
    }
    t
};

/// Pawns of a colour that attack a point: `PAWN_ATTACKERS[pawn colour][point]`.
pub(crate) static PAWN_ATTACKERS: [[Steps<4>; 90]; 2] = {
    let mut t = [[Steps::EMPTY; 90]; 2];
    let mut c = 0;
    while c < 2 {
        let mut s = 0;
        while s < 90 {
            let mut from = 0;
            while from < 90 {
                let m = PAWN_MOVES[c][from];
                let mut i = 0;
                while i < m.len as usize {
                    if m.to[i] as usize == s {
                        t[c][s] = t[c][s].push(from, from);
                    }
                    i += 1;
                }
                from += 1;
            }
            s += 1;
        }
        c += 1;
    }
    t
};

/// Per point, per orthogonal neighbour (a horse's leg, 255 when off the board): the
/// points a horse reaches through that leg.
pub(crate) static HORSE_LEGS: [[(u8, u128); 4]; 90] = {
    let mut t = [[(u8::MAX, 0u128); 4]; 90];
    let mut s = 0;
    while s < 90 {
        let m = HORSE_MOVES[s];
        let (f, r) = ((s % 9) as isize, (s / 9) as isize);
        let legs = [(0, 1), (0, -1), (1, 0), (-1, 0)];
        let mut l = 0;
        while l < 4 {
            let (lf, lr) = legs[l];
            if on_board(f + lf, r + lr) {
                let leg = sq(f + lf, r + lr);
                let mut bb = 0u128;
                let mut i = 0;
                while i < m.len as usize {
                    if m.via[i] as usize == leg {
                        bb |= 1u128 << m.to[i];
                    }
                    i += 1;
                }
                t[s][l] = (leg as u8, bb);
            }
            l += 1;
        }
        s += 1;
    }
    t
};

/// Per point, per diagonal: the elephant's eye (255 when off the board) and target.
pub(crate) static ELEPHANT_EYES: [[(u8, u128); 4]; 90] = {
    let mut t = [[(u8::MAX, 0u128); 4]; 90];
    let mut s = 0;
    while s < 90 {
        let m = ELEPHANT_MOVES[s];
        let mut i = 0;
        while i < m.len as usize {
            t[s][i] = (m.via[i], 1u128 << m.to[i]);
            i += 1;
        }
        s += 1;
    }
    t
};

const fn steps_bb<const N: usize>(m: &Steps<N>) -> u128 {
    let mut bb = 0u128;
    let mut i = 0;
    while i < m.len as usize {
        bb |= 1u128 << m.to[i];
        i += 1;
    }
    bb
}

/// Advisor targets (face-up: anywhere) per point.
pub(crate) static ADVISOR_BB: [u128; 90] = {
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        t[s] = steps_bb(&ADVISOR_MOVES[s]);
        s += 1;
    }
    t
};

/// Per colour: face-down advisor, pawn and king targets per point.
pub(crate) static HIDDEN_ADVISOR_BB: [[u128; 90]; 2] = colour_table(0);
/// Pawn targets per colour and point.
pub(crate) static PAWN_BB: [[u128; 90]; 2] = colour_table(1);
/// King targets per colour and point.
pub(crate) static KING_BB: [[u128; 90]; 2] = colour_table(2);

const fn colour_table(kind: usize) -> [[u128; 90]; 2] {
    let mut t = [[0u128; 90]; 2];
    let mut c = 0;
    while c < 2 {
        let mut s = 0;
        while s < 90 {
            t[c][s] = match kind {
                0 => steps_bb(&HIDDEN_ADVISOR_MOVES[c][s]),
                1 => steps_bb(&PAWN_MOVES[c][s]),
                _ => steps_bb(&KING_MOVES[c][s]),
            };
            s += 1;
        }
        c += 1;
    }
    t
}

/// A file's rank mask (10 bits) spread onto file `a` of a board bitboard.
pub(crate) static FILE_SPREAD: [u128; 1024] = {
    let mut t = [0u128; 1024];
    let mut m = 0;
    while m < 1024 {
        let mut r = 0;
        while r < 10 {
            if m & (1 << r) != 0 {
                t[m] |= 1u128 << (r * 9);
            }
            r += 1;
        }
        m += 1;
    }
    t
};
