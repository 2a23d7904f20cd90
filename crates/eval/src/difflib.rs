//! Python's `difflib.SequenceMatcher(None, a, b).ratio()`, reproduced exactly, because TaxoBench's
//! public scorer aligns titles with it: `2·M / (|a| + |b|)`, where M is the number of characters
//! in the matching blocks found by recursively taking the longest common block (leftmost in `a`,
//! then in `b`, on ties) and recursing on both sides. As in Python, with `b` of 200 or more
//! characters, characters occurring more than `|b|/100 + 1` times in `b` are "popular" and cannot
//! start a match (they can extend one). Strings are compared as sequences of Unicode scalar
//! values, as Python compares `str`.

use std::collections::HashMap;

/// `SequenceMatcher(None, a, b).ratio()`; 1.0 for two empty strings.
pub fn ratio(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    2.0 * matching_characters(&a, &b) as f64 / total as f64
}

/// `ratio(a, b)` when it can reach `floor`, `None` when it certainly cannot — decided first by
/// difflib's own cheap upper bounds (`real_quick_ratio`: lengths; `quick_ratio`: shared character
/// counts), so most pairs of unrelated titles never run the full matcher. When `Some`, the value
/// is exactly [`ratio`].
pub fn ratio_at_least(a: &str, b: &str, floor: f64) -> Option<f64> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let total = a.len() + b.len();
    if total == 0 {
        return (1.0 >= floor).then_some(1.0);
    }
    let bound = |matches: usize| 2.0 * matches as f64 / total as f64;
    if bound(a.len().min(b.len())) < floor {
        return None;
    }
    let mut available: HashMap<char, usize> = HashMap::new();
    for &c in &b {
        *available.entry(c).or_default() += 1;
    }
    let mut shared = 0;
    for c in &a {
        if let Some(n) = available.get_mut(c).filter(|n| **n > 0) {
            *n -= 1;
            shared += 1;
        }
    }
    if bound(shared) < floor {
        return None;
    }
    let value = bound(matching_characters(&a, &b));
    (value >= floor).then_some(value)
}

fn matching_characters(a: &[char], b: &[char]) -> usize {
    let mut b2j: HashMap<char, Vec<usize>> = HashMap::new();
    for (j, &c) in b.iter().enumerate() {
        b2j.entry(c).or_default().push(j);
    }
    if b.len() >= 200 {
        let limit = b.len() / 100 + 1;
        b2j.retain(|_, positions| positions.len() <= limit);
    }
    let mut matched = 0;
    let mut queue = vec![(0, a.len(), 0, b.len())];
    while let Some((alo, ahi, blo, bhi)) = queue.pop() {
        let (i, j, k) = longest_match(a, b, &b2j, alo, ahi, blo, bhi);
        if k > 0 {
            matched += k;
            if alo < i && blo < j {
                queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                queue.push((i + k, ahi, j + k, bhi));
            }
        }
    }
    matched
}

/// `find_longest_match` without a junk function: the longest block of `a[alo..ahi]` equal to a
/// block of `b[blo..bhi]` whose first character is not popular, then extended over equal
/// neighbours (popular or not).
fn longest_match(
    a: &[char],
    b: &[char],
    b2j: &HashMap<char, Vec<usize>>,
    alo: usize,
    ahi: usize,
    blo: usize,
    bhi: usize,
) -> (usize, usize, usize) {
    let (mut best_i, mut best_j, mut best_size) = (alo, blo, 0);
    // Python keeps `j2len` in a dict rebuilt per i; two arrays (indexed j + 1) and the list of
    // entries set in the previous round give the same values without hashing.
    let mut run = vec![0usize; b.len() + 1];
    let mut next_run = vec![0usize; b.len() + 1];
    let mut touched: Vec<usize> = Vec::new();
    let mut next_touched: Vec<usize> = Vec::new();
    for (i, c) in a.iter().enumerate().take(ahi).skip(alo) {
        for &j in b2j.get(c).map_or(&[][..], Vec::as_slice) {
            if j < blo {
                continue;
            }
            if j >= bhi {
                break;
            }
            let k = run[j] + 1;
            next_run[j + 1] = k;
            next_touched.push(j + 1);
            if k > best_size {
                best_i = i + 1 - k;
                best_j = j + 1 - k;
                best_size = k;
            }
        }
        for &t in &touched {
            run[t] = 0;
        }
        std::mem::swap(&mut run, &mut next_run);
        std::mem::swap(&mut touched, &mut next_touched);
        next_touched.clear();
    }
    while best_i > alo && best_j > blo && a[best_i - 1] == b[best_j - 1] {
        best_i -= 1;
        best_j -= 1;
        best_size += 1;
    }
    while best_i + best_size < ahi && best_j + best_size < bhi && a[best_i + best_size] == b[best_j + best_size] {
        best_size += 1;
    }
    (best_i, best_j, best_size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pruned_ratio_is_exact_or_absent() {
        let pairs =
            [("abcd", "bcde"), ("private thing", "private think"), ("tide", "diet"), ("a", "abcdefgh"), ("", "")];
        for (a, b) in pairs {
            for floor in [0.0, 0.3, 0.75, 0.92, 1.0] {
                let full = ratio(a, b);
                assert_eq!(ratio_at_least(a, b, floor), (full >= floor).then_some(full), "{a:?} {b:?} {floor}");
            }
        }
    }

    #[test]
    fn matches_python() {
        // Values from CPython 3.11's difflib.
        assert_eq!(ratio("abcd", "bcde"), 0.75);
        assert_eq!(ratio("", ""), 1.0);
        assert_eq!(ratio("abc", ""), 0.0);
        assert!((ratio("private thing", "private think") - 0.9230769230769231).abs() < 1e-15);
        assert!((ratio("tide", "diet") - 0.25).abs() < 1e-15);
        assert!((ratio("qabxcd", "abycdf") - 0.6666666666666666).abs() < 1e-15);
    }
}
