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
    let mut run: HashMap<usize, usize> = HashMap::new();
    for (i, c) in a.iter().enumerate().take(ahi).skip(alo) {
        let mut next_run = HashMap::new();
        for &j in b2j.get(c).map_or(&[][..], Vec::as_slice) {
            if j < blo {
                continue;
            }
            if j >= bhi {
                break;
            }
            let k = run.get(&j.wrapping_sub(1)).copied().unwrap_or(0) + 1;
            next_run.insert(j, k);
            if k > best_size {
                best_i = i + 1 - k;
                best_j = j + 1 - k;
                best_size = k;
            }
        }
        run = next_run;
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
