//! Zobrist keys: pieces on points (face-down pieces included), side to move, pools.

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (s, z ^ (z >> 31))
}

/// Keys per cell code (32) and point (90).
pub(crate) static PIECE: [[u64; 90]; 32] = {
    let mut t = [[0u64; 90]; 32];
    let mut state = 0x4a49_4551_4921_u64;
    let mut c = 0;
    while c < 32 {
        let mut s = 0;
        while s < 90 {
            let (ns, v) = splitmix(state);
            state = ns;
            t[c][s] = v;
            s += 1;
        }
        c += 1;
    }
    t
};

/// Key toggled when Black is to move.
pub(crate) const BLACK_TO_MOVE: u64 = splitmix(0x5349_4445).1;

/// Keys per colour, role index (0–6) and count (0–5) of the pool.
pub(crate) static POOL: [[[u64; 6]; 7]; 2] = {
    let mut t = [[[0u64; 6]; 7]; 2];
    let mut state = 0x504f_4f4c_u64;
    let mut c = 0;
    while c < 2 {
        let mut r = 0;
        while r < 7 {
            let mut n = 0;
            while n < 6 {
                let (ns, v) = splitmix(state);
                state = ns;
                t[c][r][n] = v;
                n += 1;
            }
            r += 1;
        }
        c += 1;
    }
    t
};
