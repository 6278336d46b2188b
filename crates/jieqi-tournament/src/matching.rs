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
    let mut m = Matcher::new(adj, vec![true; adj.len()]);
    m.maximize()
}

/// Whether every vertex can be matched.
pub fn has_perfect_matching(adj: &[Vec<usize>]) -> bool {
    adj.len() % 2 == 0 && maximum_matching(adj) * 2 == adj.len()
}

/// A matching of the vertices still present in a graph, kept maximum as vertices
/// are paired off and removed.
#[derive(Clone)]
pub struct Matcher<'a> {
    adj: &'a [Vec<usize>],
    present: Vec<bool>,
    mate: Vec<usize>,
    search: Search,
}

impl<'a> Matcher<'a> {
    /// An empty matching of the vertices marked `present`.
    pub fn new(adj: &'a [Vec<usize>], present: Vec<bool>) -> Matcher<'a> {
        let n = adj.len();
        Matcher {
            adj,
            present,
            mate: vec![NONE; n],
            search: Search::new(n),
        }
    }

    /// Grows the matching to maximum size; returns that size.
    pub fn maximize(&mut self) -> usize {
        let n = self.adj.len();
        // A greedy start leaves only a few augmenting searches to the blossom code.
        for v in 0..n {
            if self.present[v] && self.mate[v] == NONE {
                if let Some(&u) = self.adj[v]
                    .iter()
                    .find(|&&u| u != v && self.present[u] && self.mate[u] == NONE)
                {
                    self.mate[u] = v;
                    self.mate[v] = u;
                }
            }
        }
        for root in 0..n {
            if self.present[root] && self.mate[root] == NONE {
                self.augment_from(root);
            }
        }
        self.size()
    }

    /// Matched pairs.
    pub fn size(&self) -> usize {
        (0..self.adj.len())
            .filter(|&v| self.present[v] && self.mate[v] != NONE)
            .count()
            / 2
    }

    /// Whether every present vertex is matched.
    pub fn is_perfect(&self) -> bool {
        (0..self.adj.len()).all(|v| !self.present[v] || self.mate[v] != NONE)
    }

    fn augment_from(&mut self, root: usize) -> bool {
        let Some(mut v) = self
            .search
            .find_path(self.adj, &self.present, &self.mate, root)
        else {
            return false;
        };
        // Flip the alternating path ending at the free vertex `v`.
        while v != NONE {
            let pv = self.search.parent[v];
            let next = self.mate[pv];
            self.mate[v] = pv;
            self.mate[pv] = v;
            v = next;
        }
        true
    }

    /// With a perfect matching: pairs `u` with `v` and removes both, if the rest can
    /// still be perfectly matched (one augmenting search between their old partners).
    /// Otherwise leaves everything unchanged and returns false.
    pub fn try_remove_pair(&mut self, u: usize, v: usize) -> bool {
        let (pu, pv) = (self.mate[u], self.mate[v]);
        if pu == NONE || pv == NONE {
            return false;
        }
        let saved = self.mate.clone();
        self.present[u] = false;
        self.present[v] = false;
        self.mate[u] = NONE;
        self.mate[v] = NONE;
        if pu == v {
            return true;
        }
        self.mate[pu] = NONE;
        self.mate[pv] = NONE;
        if self.augment_from(pu) && self.mate[pv] != NONE {
            return true;
        }
        self.mate = saved;
        self.present[u] = true;
        self.present[v] = true;
        false
    }
}

#[derive(Clone)]
struct Search {
    parent: Vec<usize>,
    base: Vec<usize>,
    used: Vec<bool>,
    blossom: Vec<bool>,
    seen: Vec<bool>,
    queue: VecDeque<usize>,
}

impl Search {
    fn new(n: usize) -> Search {
        Search {
            parent: vec![NONE; n],
            base: (0..n).collect(),
            used: vec![false; n],
            blossom: vec![false; n],
            seen: vec![false; n],
            queue: VecDeque::new(),
        }
    }

    fn find_path(
        &mut self,
        adj: &[Vec<usize>],
        present: &[bool],
        mate: &[usize],
        root: usize,
    ) -> Option<usize> {
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
                if !present[to] || self.base[v] == self.base[to] || mate[v] == to {
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

    fn lca(&mut self, mate: &[usize], mut a: usize, mut b: usize) -> usize {
        self.seen.iter_mut().for_each(|s| *s = false);
        loop {
            a = self.base[a];
            self.seen[a] = true;
            if mate[a] == NONE {
                break;
            }
            a = self.parent[mate[a]];
        }
        loop {
            b = self.base[b];
            if self.seen[b] {
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
    fn removing_pairs_agrees_with_recomputing() {
        let mut state = 0x1234_5678_9abc_def1u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..400 {
            let n = 2 * ((next() % 6) as usize + 1);
            let density = 30 + next() % 70;
            let mut adj = vec![Vec::new(); n];
            for a in 0..n {
                for b in a + 1..n {
                    if next() % 100 < density {
                        adj[a].push(b);
                        adj[b].push(a);
                    }
                }
            }
            let mut m = Matcher::new(&adj, vec![true; n]);
            if m.maximize() * 2 != n {
                continue;
            }
            let mut alive: Vec<usize> = (0..n).collect();
            while alive.len() >= 2 {
                let u = alive[0];
                let v = alive[1 + (next() as usize % (alive.len() - 1))];
                let rest: Vec<usize> = alive
                    .iter()
                    .copied()
                    .filter(|&x| x != u && x != v)
                    .collect();
                let idx = |x: usize| rest.iter().position(|&y| y == x);
                let sub: Vec<Vec<usize>> = rest
                    .iter()
                    .map(|&a| adj[a].iter().filter_map(|&b| idx(b)).collect())
                    .collect();
                let expect = adj[u].contains(&v) && has_perfect_matching(&sub);
                let got = adj[u].contains(&v) && m.try_remove_pair(u, v);
                assert_eq!(got, expect);
                assert!(m.is_perfect());
                if got {
                    alive = rest;
                } else if let Some(&w) = alive[1..]
                    .iter()
                    .find(|&&w| adj[u].contains(&w) && m.mate[u] == w)
                {
                    // Follow the current matching to keep going.
                    assert!(m.try_remove_pair(u, w));
                    alive.retain(|&x| x != u && x != w);
                } else {
                    break;
                }
            }
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
