//! Round robin by the Berger tables.

/// Rounds in one cycle for `players` players (a bye makes an odd count even).
pub fn rounds_per_cycle(players: u32) -> u32 {
    let n = players + players % 2;
    n.saturating_sub(1)
}

/// Round `round` (1-based, at most `n - 1`) of the Berger table for `n` players, `n`
/// even: `(red, black)` pairs of 1-based numbers, board 1 first. With an odd field, the
/// highest number is the bye.
///
/// Round 1 is 1–n, 2–(n−1), …; player `n` stays on board 1 and alternates colours;
/// board 1's other player is `((r−1)·n/2 mod (n−1)) + 1`, and on board k the players
/// k−1 places after and before him on the circle of 1…n−1 meet, the one after with Red.
pub fn berger_round(n: u32, round: u32) -> Vec<(u32, u32)> {
    assert!(n >= 2 && n % 2 == 0 && (1..n).contains(&round));
    let m = n - 1;
    let first = ((round - 1) * (n / 2)) % m + 1;
    let wrap = |x: i64| ((x - 1).rem_euclid(m as i64) + 1) as u32;
    let mut boards = Vec::with_capacity(n as usize / 2);
    if round % 2 == 1 {
        boards.push((first, n));
    } else {
        boards.push((n, first));
    }
    for k in 1..n / 2 {
        let red = wrap(first as i64 + k as i64);
        let black = wrap(first as i64 - k as i64);
        boards.push((red, black));
    }
    boards
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fide_table_for_six() {
        let table: Vec<Vec<(u32, u32)>> = (1..6).map(|r| berger_round(6, r)).collect();
        assert_eq!(
            table,
            vec![
                vec![(1, 6), (2, 5), (3, 4)],
                vec![(6, 4), (5, 3), (1, 2)],
                vec![(2, 6), (3, 1), (4, 5)],
                vec![(6, 5), (1, 4), (2, 3)],
                vec![(3, 6), (4, 2), (5, 1)],
            ]
        );
    }

    #[test]
    fn everyone_meets_everyone_once_with_balanced_colours() {
        for n in (2..=20).step_by(2) {
            let mut met = vec![vec![0; n as usize + 1]; n as usize + 1];
            let mut reds = vec![0i32; n as usize + 1];
            for r in 1..n {
                let mut seen = vec![false; n as usize + 1];
                for (a, b) in berger_round(n, r) {
                    assert!(!seen[a as usize] && !seen[b as usize]);
                    seen[a as usize] = true;
                    seen[b as usize] = true;
                    met[a as usize][b as usize] += 1;
                    met[b as usize][a as usize] += 1;
                    reds[a as usize] += 1;
                }
            }
            for a in 1..=n as usize {
                for (b, &count) in met[a].iter().enumerate().skip(1) {
                    assert_eq!(count, u32::from(a != b), "n={n} {a}-{b}");
                }
                let games = n as i32 - 1;
                assert!(
                    (2 * reds[a] - games).abs() <= 1,
                    "n={n} player {a} reds {}",
                    reds[a]
                );
            }
        }
    }
}
