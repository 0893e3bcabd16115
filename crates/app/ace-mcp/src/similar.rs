//! How alike two entries' texts are, as ace_claude_mcp's `curate_playbook`
//! measures it: `difflib.SequenceMatcher(None, a.lower(), b.lower())
//! .ratio()`, CPython's Ratcliff/Obershelp matching with its automatic
//! junk heuristic, over characters (code points). The `difflib` crate is
//! not used: its heuristic keeps the popular characters that CPython's
//! drops, so its ratios differ on texts of 200 characters or more.

use std::collections::HashMap;

/// `SequenceMatcher(None, a, b).ratio()`.
pub fn ratio(a: &[char], b: &[char]) -> f64 {
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    2.0 * matched(a, b) as f64 / total as f64
}

/// The most [`ratio`] can be, from the lengths alone
/// (`real_quick_ratio`): a pair it rules out needs no matching.
pub fn bound_by_length(a: usize, b: usize) -> f64 {
    match a + b {
        0 => 1.0,
        total => 2.0 * a.min(b) as f64 / total as f64,
    }
}

/// The most [`ratio`] can be, from the characters each holds
/// (`quick_ratio`).
pub fn bound_by_counts(a: &[char], b: &[char]) -> f64 {
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    let mut counts: HashMap<char, i64> = HashMap::new();
    for c in b {
        *counts.entry(*c).or_default() += 1;
    }
    let mut common = 0usize;
    for c in a {
        if let Some(n) = counts.get_mut(c) {
            if *n > 0 {
                common += 1;
            }
            *n -= 1;
        }
    }
    2.0 * common as f64 / total as f64
}

/// `f"{x:.0%}"`: Python multiplies by 100 and rounds half to even, as
/// Rust's formatting does.
pub fn percent(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// The characters of all matching blocks (`get_matching_blocks`).
fn matched(a: &[char], b: &[char]) -> usize {
    let mut b2j: HashMap<char, Vec<usize>> = HashMap::new();
    for (j, c) in b.iter().enumerate() {
        b2j.entry(*c).or_default().push(j);
    }
    // CPython's autojunk: in a `b` of 200 or more, a character more
    // frequent than 1% (plus one) starts no match.
    if b.len() >= 200 {
        let most = b.len() / 100 + 1;
        b2j.retain(|_, js| js.len() <= most);
    }
    let mut m = Matcher {
        a,
        b,
        b2j,
        j2len: vec![0; b.len() + 1],
        next: vec![0; b.len() + 1],
        touched: Vec::new(),
        fresh: Vec::new(),
    };
    let mut total = 0;
    let mut queue = vec![(0, a.len(), 0, b.len())];
    while let Some((alo, ahi, blo, bhi)) = queue.pop() {
        let (i, j, k) = m.longest(alo, ahi, blo, bhi);
        if k > 0 {
            total += k;
            if alo < i && blo < j {
                queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                queue.push((i + k, ahi, j + k, bhi));
            }
        }
    }
    total
}

struct Matcher<'a> {
    a: &'a [char],
    b: &'a [char],
    b2j: HashMap<char, Vec<usize>>,
    /// CPython's `j2len` and `newj2len` dicts as arrays indexed by
    /// `j + 1`, with the indices set so that each row is cleared in
    /// the time it was filled.
    j2len: Vec<usize>,
    next: Vec<usize>,
    touched: Vec<usize>,
    fresh: Vec<usize>,
}

impl Matcher<'_> {
    /// `find_longest_match(alo, ahi, blo, bhi)`: the earliest longest
    /// block, extended over equal characters on both sides.
    fn longest(&mut self, alo: usize, ahi: usize, blo: usize, bhi: usize) -> (usize, usize, usize) {
        let (a, b) = (self.a, self.b);
        let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0);
        for (i, c) in a.iter().enumerate().take(ahi).skip(alo) {
            if let Some(js) = self.b2j.get(c) {
                for &j in js {
                    if j < blo {
                        continue;
                    }
                    if j >= bhi {
                        break;
                    }
                    let k = self.j2len[j] + 1;
                    self.next[j + 1] = k;
                    self.fresh.push(j + 1);
                    if k > bestsize {
                        (besti, bestj, bestsize) = (i + 1 - k, j + 1 - k, k);
                    }
                }
            }
            for &t in &self.touched {
                self.j2len[t] = 0;
            }
            self.touched.clear();
            for &t in &self.fresh {
                self.j2len[t] = self.next[t];
                self.next[t] = 0;
            }
            std::mem::swap(&mut self.touched, &mut self.fresh);
        }
        for &t in &self.touched {
            self.j2len[t] = 0;
        }
        self.touched.clear();
        while besti > alo && bestj > blo && a[besti - 1] == b[bestj - 1] {
            besti -= 1;
            bestj -= 1;
            bestsize += 1;
        }
        while besti + bestsize < ahi
            && bestj + bestsize < bhi
            && a[besti + bestsize] == b[bestj + bestsize]
        {
            bestsize += 1;
        }
        (besti, bestj, bestsize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(a: &str, b: &str) -> f64 {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        ratio(&a, &b)
    }

    /// Ratios CPython 3.11's `difflib` gives, printed with `repr`.
    #[test]
    fn ratios_are_cpythons() {
        let cases: &[(&str, &str, f64)] = &[
            ("abcd", "bcde", 0.75),
            ("", "", 1.0),
            ("abc", "", 0.0),
            ("qabxcd", "abycdf", 0.6666666666666666),
            ("private thread", "private volume", 0.6428571428571429),
        ];
        for (a, b, want) in cases {
            assert_eq!(r(a, b), *want, "{a:?} {b:?}");
        }
    }

    /// 200 pairs and CPython's ratios for them (`tests/data/ratios.py`
    /// wrote them), 95 of them past the 200 characters where the junk
    /// heuristic starts.
    #[test]
    fn ratios_match_cpythons_on_its_own_pairs() {
        let text = include_str!("../tests/data/ratios.json");
        let pairs: Vec<serde_json::Value> = serde_json::from_str(text).unwrap();
        assert_eq!(pairs.len(), 200);
        for p in &pairs {
            let (a, b) = (p["a"].as_str().unwrap(), p["b"].as_str().unwrap());
            let got = r(a, b);
            assert_eq!(got, p["ratio"].as_f64().unwrap(), "{a:?} {b:?}");
            assert_eq!(percent(got), p["percent"].as_str().unwrap());
            let (ca, cb): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            assert!(bound_by_counts(&ca, &cb) >= got);
            assert!(bound_by_length(ca.len(), cb.len()) >= got);
        }
    }

    #[test]
    fn percents_round_half_to_even_as_python_does() {
        for (x, want) in [
            (0.125, "12%"),
            (0.375, "38%"),
            (0.625, "62%"),
            (0.825, "82%"),
            (0.805, "80%"),
        ] {
            assert_eq!(percent(x), want, "{x}");
        }
    }
}
