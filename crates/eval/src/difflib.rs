//! Python's `difflib.SequenceMatcher(None, a, b).ratio()`, reproduced exactly, because TaxoBench's
//! public scorer aligns titles with it: `2·M / (|a| + |b|)`, where M is the number of characters
//! in the matching blocks found by recursively taking the longest common block (leftmost in `a`,
//! then in `b`, on ties) and recursing on both sides. As in Python, with `b` of 200 or more
//! characters, characters occurring more than `|b|/100 + 1` times in `b` are "popular" and cannot
//! start a match (they can extend one). Strings are compared as sequences of Unicode scalar
//! values, as Python compares `str`.
//!
//! A string compared many times (a label against every other label, a title against every
//! candidate) is read once into a [`Sequence`]: its characters, and where each one occurs
//! (difflib's `b2j`, kept as one sorted list rather than a map of lists). Comparing two sequences
//! then hashes nothing and allocates only the matcher's two rows.

use std::cmp::Ordering;

/// A string read for comparison: its characters and, per distinct character, where it occurs.
#[derive(Debug, Clone)]
pub struct Sequence {
    chars: Vec<char>,
    /// Each distinct character once, in character order, with its positions in `positions`.
    groups: Vec<Group>,
    /// The positions of every character, grouped by character, increasing within a group.
    positions: Vec<u32>,
    /// For each position, the index of its character's group.
    group_of: Vec<u32>,
}

#[derive(Debug, Clone, Copy)]
struct Group {
    character: char,
    /// Where the group's positions start in `Sequence::positions`.
    start: u32,
    count: u32,
    /// Too frequent to start a match when this sequence is `b` (difflib's autojunk rule).
    popular: bool,
}

impl Sequence {
    /// Read `text` once for any number of comparisons.
    pub fn new(text: &str) -> Sequence {
        let chars: Vec<char> = text.chars().collect();
        let mut by_character: Vec<(char, u32)> = chars.iter().enumerate().map(|(j, &c)| (c, j as u32)).collect();
        by_character.sort_unstable();
        let popular_above = (chars.len() >= 200).then(|| chars.len() / 100 + 1);
        let mut groups: Vec<Group> = Vec::new();
        let mut group_of = vec![0u32; chars.len()];
        for (index, &(character, position)) in by_character.iter().enumerate() {
            if groups.last().is_none_or(|g| g.character != character) {
                groups.push(Group { character, start: index as u32, count: 0, popular: false });
            }
            let last = groups.len() - 1;
            groups[last].count += 1;
            group_of[position as usize] = last as u32;
        }
        for group in &mut groups {
            group.popular = popular_above.is_some_and(|limit| group.count as usize > limit);
        }
        let positions = by_character.into_iter().map(|(_, j)| j).collect();
        Sequence { chars, groups, positions, group_of }
    }

    /// How many characters the sequence holds.
    pub fn len(&self) -> usize {
        self.chars.len()
    }

    /// Whether the sequence holds no character.
    pub fn is_empty(&self) -> bool {
        self.chars.is_empty()
    }

    fn positions_of(&self, group: &Group) -> &[u32] {
        &self.positions[group.start as usize..(group.start + group.count) as usize]
    }
}

/// `SequenceMatcher(None, a, b).ratio()`; 1.0 for two empty strings.
pub fn ratio(a: &str, b: &str) -> f64 {
    sequence_ratio(&Sequence::new(a), &Sequence::new(b))
}

/// [`ratio`] of two read strings (`a` first, as difflib's argument order matters).
pub fn sequence_ratio(a: &Sequence, b: &Sequence) -> f64 {
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    2.0 * matching_characters(a, b) as f64 / total as f64
}

/// [`sequence_ratio`] when it can reach `floor`, `None` when it certainly cannot — decided first
/// by difflib's own cheap upper bounds (`real_quick_ratio`: lengths; `quick_ratio`: shared
/// character counts), so most pairs of unrelated titles never run the full matcher. When `Some`,
/// the value is exactly [`sequence_ratio`].
pub fn ratio_at_least(a: &Sequence, b: &Sequence, floor: f64) -> Option<f64> {
    let total = a.len() + b.len();
    if total == 0 {
        return (1.0 >= floor).then_some(1.0);
    }
    let bound = |matches: usize| 2.0 * matches as f64 / total as f64;
    if bound(a.len().min(b.len())) < floor || bound(shared_characters(a, b)) < floor {
        return None;
    }
    let value = bound(matching_characters(a, b));
    (value >= floor).then_some(value)
}

/// How many characters `a` and `b` share as multisets (`quick_ratio`'s count).
fn shared_characters(a: &Sequence, b: &Sequence) -> usize {
    let mut shared = 0;
    for_common_groups(a, b, |x, y| shared += a.groups[x].count.min(b.groups[y].count) as usize);
    shared
}

/// Call `each` with the indices of the groups of every character both sequences hold, in
/// character order.
fn for_common_groups(a: &Sequence, b: &Sequence, mut each: impl FnMut(usize, usize)) {
    let (mut i, mut j) = (0, 0);
    while i < a.groups.len() && j < b.groups.len() {
        match a.groups[i].character.cmp(&b.groups[j].character) {
            Ordering::Less => i += 1,
            Ordering::Greater => j += 1,
            Ordering::Equal => {
                each(i, j);
                i += 1;
                j += 1;
            }
        }
    }
}

/// The number of characters in difflib's matching blocks of `a` against `b`.
fn matching_characters(a: &Sequence, b: &Sequence) -> usize {
    // Where in `b` each of `a`'s characters may start a match, per group of `a`.
    let mut starts: Vec<&[u32]> = vec![&[]; a.groups.len()];
    for_common_groups(a, b, |x, y| {
        if !b.groups[y].popular {
            starts[x] = b.positions_of(&b.groups[y]);
        }
    });
    let mut matcher = Matcher { a: &a.chars, b: &b.chars, group_of: &a.group_of, starts, rows: Rows::new(b.len()) };
    matched_in_blocks(a.len(), b.len(), |alo, ahi, blo, bhi| matcher.longest_match(alo, ahi, blo, bhi))
}

/// `get_matching_blocks`' recursion, counting characters: the longest block of `a[0..a_len]`
/// and `b[0..b_len]` (`longest_match(alo, ahi, blo, bhi)` gives its start in each and its
/// length), then the same on both sides of it.
fn matched_in_blocks(
    a_len: usize,
    b_len: usize,
    mut longest_match: impl FnMut(usize, usize, usize, usize) -> (usize, usize, usize),
) -> usize {
    let mut matched = 0;
    let mut queue = vec![(0, a_len, 0, b_len)];
    while let Some((alo, ahi, blo, bhi)) = queue.pop() {
        let (i, j, k) = longest_match(alo, ahi, blo, bhi);
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

/// What `find_longest_match` reads, and the two rows of match lengths it reuses between calls.
struct Matcher<'a> {
    a: &'a [char],
    b: &'a [char],
    group_of: &'a [u32],
    starts: Vec<&'a [u32]>,
    rows: Rows,
}

/// Python's `j2len` dicts as two arrays indexed `j + 1`, with the entries each one set, so that a
/// row is cleared by undoing only what it set.
struct Rows {
    run: Vec<usize>,
    next_run: Vec<usize>,
    touched: Vec<usize>,
    next_touched: Vec<usize>,
}

impl Rows {
    fn new(b_len: usize) -> Rows {
        Rows { run: vec![0; b_len + 1], next_run: vec![0; b_len + 1], touched: Vec::new(), next_touched: Vec::new() }
    }

    /// Make the row just built the previous one, and clear the new one.
    fn advance(&mut self) {
        for &t in &self.touched {
            self.run[t] = 0;
        }
        std::mem::swap(&mut self.run, &mut self.next_run);
        std::mem::swap(&mut self.touched, &mut self.next_touched);
        self.next_touched.clear();
    }

    /// Clear both rows for the next call (after a row is advanced, only the previous one holds
    /// anything).
    fn reset(&mut self) {
        self.advance();
    }
}

impl Matcher<'_> {
    /// `find_longest_match` without a junk function: the longest block of `a[alo..ahi]` equal to
    /// a block of `b[blo..bhi]` whose first character is not popular, then extended over equal
    /// neighbours (popular or not).
    fn longest_match(&mut self, alo: usize, ahi: usize, blo: usize, bhi: usize) -> (usize, usize, usize) {
        let (mut best_i, mut best_j, mut best_size) = (alo, blo, 0);
        for i in alo..ahi {
            let rows = &mut self.rows;
            for &j in self.starts[self.group_of[i] as usize] {
                let j = j as usize;
                if j < blo {
                    continue;
                }
                if j >= bhi {
                    break;
                }
                let k = rows.run[j] + 1;
                rows.next_run[j + 1] = k;
                rows.next_touched.push(j + 1);
                if k > best_size {
                    best_i = i + 1 - k;
                    best_j = j + 1 - k;
                    best_size = k;
                }
            }
            rows.advance();
        }
        self.rows.reset();
        let (a, b) = (self.a, self.b);
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// The block finder as it was written before sequences were read once (a map of position
    /// lists built per call, a map per row): the rewrite must count the same characters.
    fn matching_characters_by_map(a: &str, b: &str) -> usize {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let mut b2j: HashMap<char, Vec<usize>> = HashMap::new();
        for (j, &c) in b.iter().enumerate() {
            b2j.entry(c).or_default().push(j);
        }
        if b.len() >= 200 {
            let limit = b.len() / 100 + 1;
            b2j.retain(|_, positions| positions.len() <= limit);
        }
        matched_in_blocks(a.len(), b.len(), |alo, ahi, blo, bhi| {
            let (mut i, mut j, mut k) = (alo, blo, 0);
            let mut j2len: HashMap<usize, usize> = HashMap::new();
            for (x, c) in a.iter().enumerate().take(ahi).skip(alo) {
                let mut next: HashMap<usize, usize> = HashMap::new();
                for &y in b2j.get(c).map_or(&[][..], Vec::as_slice) {
                    if y < blo {
                        continue;
                    }
                    if y >= bhi {
                        break;
                    }
                    let size = j2len.get(&(y.wrapping_sub(1))).copied().unwrap_or(0) + 1;
                    next.insert(y, size);
                    if size > k {
                        (i, j, k) = (x + 1 - size, y + 1 - size, size);
                    }
                }
                j2len = next;
            }
            while i > alo && j > blo && a[i - 1] == b[j - 1] {
                (i, j, k) = (i - 1, j - 1, k + 1);
            }
            while i + k < ahi && j + k < bhi && a[i + k] == b[j + k] {
                k += 1;
            }
            (i, j, k)
        })
    }

    /// Strings that exercise ties, repeats, non-ASCII characters and the popular-character rule.
    fn samples() -> Vec<String> {
        let mut out: Vec<String> = ["", "a", "abcd", "bcde", "tide", "diet", "qabxcd", "abycdf", "private thing"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        out.push("graph neural networks for molecules".into());
        out.push("neural graph networks of molecules".into());
        out.push("Ünïcödé tëxt — ça va? 数据".into());
        out.push("unicode text ca va".into());
        out.push("ab".repeat(150));
        out.push("a".repeat(120) + &"b".repeat(90) + "c");
        out.push("the quick brown fox jumps over the lazy dog ".repeat(6));
        out.push("a lazy dog jumps over the quick brown fox ".repeat(5));
        out
    }

    #[test]
    fn sequences_count_what_the_map_matcher_counts() {
        let samples = samples();
        for a in &samples {
            for b in &samples {
                let (x, y) = (Sequence::new(a), Sequence::new(b));
                assert_eq!(matching_characters(&x, &y), matching_characters_by_map(a, b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn pruned_ratio_is_exact_or_absent() {
        let samples = samples();
        for a in &samples {
            for b in &samples {
                let (x, y) = (Sequence::new(a), Sequence::new(b));
                for floor in [0.0, 0.3, 0.75, 0.92, 1.0] {
                    let full = ratio(a, b);
                    assert_eq!(ratio_at_least(&x, &y, floor), (full >= floor).then_some(full), "{a:?} {b:?} {floor}");
                }
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
