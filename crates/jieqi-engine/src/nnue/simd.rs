//! The network's vector kernels, each in a portable scalar form and, where the build
//! targets AVX2 (the release profile builds for the host, `.cargo/config.toml`), in an
//! AVX2 form. The choice is made at compile time (`cfg(target_feature = "avx2")`): the
//! workspace forbids `unsafe`, and calling a `#[target_feature]` function chosen at run
//! time is unsafe, so the AVX2 forms use the safe wrappers of `safe_arch`, which exist
//! only when the feature is compiled in. Both forms give identical results (wrapping
//! 16-bit sums; exact 64-bit dot products), which the tests check.

/// Lanes of 16-bit integers in one AVX2 register; the hidden size is a multiple of it.
pub const LANES: usize = 16;

/// `dst = src + Σ added − Σ removed`, lane by lane, wrapping.
#[inline]
pub fn update(dst: &mut [i16], src: &[i16], added: &[&[i16]], removed: &[&[i16]]) {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        avx2::update(dst, src, added, removed)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        scalar::update(dst, src, added, removed)
    }
}

/// `Σ clamp(a, 0, qa)² · w` over the lanes of `acc` and `weights`, exact as long as
/// `|w| ≤ 128`, `0 < qa ≤ 255` and the length is at most 1 024 (checked when a network
/// is loaded).
#[inline]
pub fn screlu_dot(acc: &[i16], weights: &[i16], qa: i16) -> i64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        avx2::screlu_dot(acc, weights, qa)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        scalar::screlu_dot(acc, weights, qa)
    }
}

/// The portable forms.
pub mod scalar {
    /// See [`super::update`].
    pub fn update(dst: &mut [i16], src: &[i16], added: &[&[i16]], removed: &[&[i16]]) {
        dst.copy_from_slice(src);
        for row in added {
            for (d, &w) in dst.iter_mut().zip(row.iter()) {
                *d = d.wrapping_add(w);
            }
        }
        for row in removed {
            for (d, &w) in dst.iter_mut().zip(row.iter()) {
                *d = d.wrapping_sub(w);
            }
        }
    }

    /// See [`super::screlu_dot`].
    pub fn screlu_dot(acc: &[i16], weights: &[i16], qa: i16) -> i64 {
        acc.iter()
            .zip(weights)
            .map(|(&a, &w)| {
                let a = i64::from(a.clamp(0, qa));
                a * a * i64::from(w)
            })
            .sum()
    }
}

/// The AVX2 forms.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
pub mod avx2 {
    use safe_arch::{
        add_i16_m256i, add_i32_m256i, m256i, max_i16_m256i, min_i16_m256i,
        mul_i16_horizontal_add_m256i, mul_i16_keep_low_m256i, set_splat_i16_m256i, sub_i16_m256i,
    };

    use super::LANES;

    #[inline(always)]
    fn load(s: &[i16], i: usize) -> m256i {
        let a: [i16; LANES] = s[i..i + LANES].try_into().expect("a full register");
        m256i::from(a)
    }

    #[inline(always)]
    fn store(d: &mut [i16], i: usize, v: m256i) {
        let a: [i16; LANES] = v.into();
        d[i..i + LANES].copy_from_slice(&a);
    }

    /// See [`super::update`].
    pub fn update(dst: &mut [i16], src: &[i16], added: &[&[i16]], removed: &[&[i16]]) {
        let n = dst.len();
        assert!(n % LANES == 0 && src.len() == n, "whole registers");
        assert!(added.iter().chain(removed).all(|r| r.len() == n));
        for i in (0..n).step_by(LANES) {
            let mut v = load(src, i);
            for row in added {
                v = add_i16_m256i(v, load(row, i));
            }
            for row in removed {
                v = sub_i16_m256i(v, load(row, i));
            }
            store(dst, i, v);
        }
    }

    /// See [`super::screlu_dot`]. `a·w` fits 16 bits (|a| ≤ 255, |w| ≤ 128), and
    /// `(a·w)·a` summed pairwise into 32-bit lanes stays below 2³¹ for up to 1 024
    /// inputs (128 products of at most 255²·128 ≈ 8.3 M per lane: 1.07·10⁹).
    pub fn screlu_dot(acc: &[i16], weights: &[i16], qa: i16) -> i64 {
        let n = acc.len();
        assert!(n % LANES == 0 && weights.len() == n, "whole registers");
        let zero = m256i::default();
        let top = set_splat_i16_m256i(qa);
        let mut sum = m256i::default();
        for i in (0..n).step_by(LANES) {
            let a = min_i16_m256i(max_i16_m256i(load(acc, i), zero), top);
            let aw = mul_i16_keep_low_m256i(a, load(weights, i));
            sum = add_i32_m256i(sum, mul_i16_horizontal_add_m256i(aw, a));
        }
        let lanes: [i32; 8] = sum.into();
        lanes.iter().map(|&x| i64::from(x)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reproducible stream of numbers in `lo..=hi`.
    fn numbers(seed: u64, n: usize, lo: i16, hi: i16) -> Vec<i16> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let span = (i32::from(hi) - i32::from(lo) + 1) as u64;
                (i64::from(lo) + (x % span) as i64) as i16
            })
            .collect()
    }

    #[test]
    fn scalar_update_adds_and_subtracts_rows() {
        let src = [1i16, 2, 3, 4];
        let mut dst = [0i16; 4];
        scalar::update(
            &mut dst,
            &src,
            &[&[10, 10, 10, 10]],
            &[&[1, 1, 1, 1], &[0, 1, 2, 3]],
        );
        assert_eq!(dst, [10, 10, 10, 10]);
        assert_eq!(
            scalar::screlu_dot(&[-5, 3, 300], &[7, 2, -1], 255),
            9 * 2 - 255 * 255
        );
    }

    #[test]
    fn dispatched_kernels_agree_with_scalar() {
        for (seed, n) in [(1u64, 16usize), (2, 128), (3, 256), (4, 1024)] {
            let src = numbers(seed, n, i16::MIN, i16::MAX);
            let rows: Vec<Vec<i16>> = (0..4)
                .map(|k| numbers(seed * 10 + k, n, -600, 600))
                .collect();
            let (mut a, mut b) = (vec![0; n], vec![0; n]);
            let added = [&rows[0][..]];
            let removed = [&rows[1][..], &rows[2][..], &rows[3][..]];
            update(&mut a, &src, &added, &removed);
            scalar::update(&mut b, &src, &added, &removed);
            assert_eq!(a, b, "update, {n} lanes");
            // The extremes of the allowed weights and activations.
            let acc = numbers(seed + 100, n, -400, 400);
            let w = numbers(seed + 200, n, -128, 128);
            assert_eq!(screlu_dot(&acc, &w, 255), scalar::screlu_dot(&acc, &w, 255));
            let full = vec![255i16; n];
            let wmax = vec![128i16; n];
            assert_eq!(
                screlu_dot(&full, &wmax, 255),
                scalar::screlu_dot(&full, &wmax, 255)
            );
            assert_eq!(screlu_dot(&full, &wmax, 255), 255 * 255 * 128 * n as i64);
        }
    }
}
