//! Maximum-cardinality matching in a general graph (Edmonds' blossom algorithm).
//!
//! The Swiss pairer uses it as an exact oracle: "can the players still unpaired all be
//! paired under these constraints?" That lets a greedy, top-down pairing never paint
//! itself into a corner, and lets the pairer tell *avoidable* repeats and colour
//! violations from unavoidable ones.

use std::collections::VecDeque;

const NONE: usize = usize::MAX;

/// The size of a maximum matching of the graph with adjacency lists `adj`.
pub fn maximum_matching(adj: &[Vec<usize>]) -> usize {
    let n = adj.len();
    let mut mate = vec![NONE; n];
    // A greedy start leaves only a few augmenting searches to the blossom code.
    for v in 0..n {
        if mate[v] == NONE {
            if let Some(&u) = adj[v].iter().find(|&&u| mate[u] == NONE && u != v) {
                mate[u] = v;
                mate[v] = u;
            }
        }
    }
    let mut search = Search::new(n);
    for root in 0..n {
        if mate[root] == NONE {
            if let Some(mut v) = search.find_path(adj, &mate, root) {
                // Flip the alternating path ending at the free vertex `v`.
                while v != NONE {
                    let pv = search.parent[v];
                    let next = mate[pv];
                    mate[v] = pv;
                    mate[pv] = v;
                    v = next;
                }
            }
        }
    }
    mate.iter().filter(|&&m| m != NONE).count() / 2
}

/// Whether every vertex can be matched.
pub fn has_perfect_matching(adj: &[Vec<usize>]) -> bool {
    adj.len() % 2 == 0 && maximum_matching(adj) * 2 == adj.len()
}

struct Search {
    parent: Vec<usize>,
    base: Vec<usize>,
    used: Vec<bool>,
    blossom: Vec<bool>,
    queue: VecDeque<usize>,
}

impl Search {
    fn new(n: usize) -> Search {
        Search {
            parent: vec![NONE; n],
            base: (0..n).collect(),
            used: vec![false; n],
            blossom: vec![false; n],
            queue: VecDeque::new(),
        }
    }

    fn find_path(&mut self, adj: &[Vec<usize>], mate: &[usize], root: usize) -> Option<usize> {
        let n = adj.len();
        self.parent.iter_mut().for_each(|p| *p = NONE);
        self.used.iter_mut().for_each(|u| *u = false);
        for (i, b) in self.base.iter_mut().enumerate() {
            *b = i;
        }
        self.queue.clear();
        self.used[root] = true;
        self.queue.push_back(root);
        while let Some(v) = self.queue.pop_front() {
            for &to in &adj[v] {
                if self.base[v] == self.base[to] || mate[v] == to {
                    continue;
                }
                if to == root || (mate[to] != NONE && self.parent[mate[to]] != NONE) {
                    let cur = self.lca(mate, v, to);
                    self.blossom.iter_mut().for_each(|b| *b = false);
                    self.mark_path(mate, v, cur, to);
                    self.mark_path(mate, to, cur, v);
                    for i in 0..n {
                        if self.blossom[self.base[i]] {
                            self.base[i] = cur;
                            if !self.used[i] {
                                self.used[i] = true;
                                self.queue.push_back(i);
                            }
                        }
                    }
                } else if self.parent[to] == NONE {
                    self.parent[to] = v;
                    if mate[to] == NONE {
                        return Some(to);
                    }
                    let next = mate[to];
                    self.used[next] = true;
                    self.queue.push_back(next);
                }
            }
        }
        None
    }

    fn lca(&self, mate: &[usize], mut a: usize, mut b: usize) -> usize {
        let mut seen = vec![false; mate.len()];
        loop {
            a = self.base[a];
            seen[a] = true;
            if mate[a] == NONE {
                break;
            }
            a = self.parent[mate[a]];
        }
        loop {
            b = self.base[b];
            if seen[b] {
                return b;
            }
            b = self.parent[mate[b]];
        }
    }

    fn mark_path(&mut self, mate: &[usize], mut v: usize, b: usize, mut child: usize) {
        while self.base[v] != b {
            self.blossom[self.base[v]] = true;
            self.blossom[self.base[mate[v]]] = true;
            self.parent[v] = child;
            child = mate[v];
            v = self.parent[mate[v]];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact maximum matching by search over subsets, for small graphs.
    fn brute(n: usize, edges: &[(usize, usize)]) -> usize {
        fn go(mask: u32, n: usize, adj: &[u32], memo: &mut Vec<Option<usize>>) -> usize {
            if let Some(v) = memo[mask as usize] {
                return v;
            }
            let Some(v) = (0..n).find(|&v| mask & (1 << v) != 0) else {
                return 0;
            };
            let rest = mask & !(1 << v);
            let mut best = go(rest, n, adj, memo);
            for u in 0..n {
                if rest & (1 << u) != 0 && adj[v] & (1 << u) != 0 {
                    best = best.max(1 + go(rest & !(1 << u), n, adj, memo));
                }
            }
            memo[mask as usize] = Some(best);
            best
        }
        let mut adj = vec![0u32; n];
        for &(a, b) in edges {
            adj[a] |= 1 << b;
            adj[b] |= 1 << a;
        }
        let mut memo = vec![None; 1 << n];
        go((1u32 << n) - 1, n, &adj, &mut memo)
    }

    #[test]
    fn agrees_with_exhaustive_search_on_random_graphs() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..600 {
            let n = (next() % 13) as usize + 1;
            let density = next() % 100;
            let mut edges = Vec::new();
            let mut adj = vec![Vec::new(); n];
            for a in 0..n {
                for b in a + 1..n {
                    if next() % 100 < density {
                        edges.push((a, b));
                        adj[a].push(b);
                        adj[b].push(a);
                    }
                }
            }
            assert_eq!(
                maximum_matching(&adj),
                brute(n, &edges),
                "n={n} edges={edges:?}"
            );
        }
    }

    #[test]
    fn odd_cycle_needs_a_blossom() {
        // A triangle with a pendant on each corner: perfect only through the blossom.
        let edges = [(0, 1), (1, 2), (2, 0), (0, 3), (1, 4), (2, 5)];
        let mut adj = vec![Vec::new(); 6];
        for (a, b) in edges {
            adj[a].push(b);
            adj[b].push(a);
        }
        assert!(has_perfect_matching(&adj));
        adj[2].retain(|&x| x != 5);
        adj[5].clear();
        assert!(!has_perfect_matching(&adj));
    }
}
