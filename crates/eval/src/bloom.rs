//! Bloom-Eval's deterministic metrics (seed 001, Appendix A–D), computed as Bloom-Eval's public
//! scripts compute them (feizhang18/Bloom-Eval, `scripts/level*/run_*.py`) wherever the seed
//! leaves a choice open; where the two disagree the seed is followed and the scripts' form is
//! available (`Compat::BloomEval`).
//!
//! - **Distributional Similarity** (A.1) of paired counts (matched entities or themes): `(1 − JSD /
//!   ln 2 + 1 − H + 1 − TV) / 3` with `H = √(½ Σ (√pᵢ − √qᵢ)²)` and `TV = ½ Σ |pᵢ − qᵢ|`. The
//!   seed's JSD is exact; the scripts add 10⁻¹⁰ to `p`, `q` and `m` inside SciPy's `entropy`
//!   (which renormalizes them) — a difference below 10⁻⁹ that `Compat::BloomEval` reproduces.
//! - **TBal** = 1 − Gini of theme sizes, Gini as the scripts compute it (`1 − 2B/n + 1/n` with `B`
//!   the sum of the sorted cumulative shares), which equals the mean-absolute-difference form; no
//!   themes count as Gini 1.
//! - **HIRC**: the expert's high-impact references are those cited more than 50 times; each
//!   generated reference title, in order, takes the not-yet-matched high-impact title most similar
//!   to it by `fuzz.ratio` of the lowercased titles (thefuzz: `round(200 · LCS / (|a| + |b|))`,
//!   halves to even) when that similarity is at least 90; precision over the generated references,
//!   recall over the high-impact ones.
//! - **DSI** of a text's ATX headings: abstract, introduction, conclusion, and references (or
//!   bibliography) each present when some heading (trimmed, trailing colon removed, spaces
//!   collapsed, lowercase) contains the word.
//! - **STS** and **SCons** on outlines built as the scripts build them ([`outline_tree`]): a
//!   virtual root over the outline (the title at level 0), each heading's number removed, a
//!   heading placed under the last heading one level up (or the root). STS is `1 − TED / (|A| +
//!   |B|)` with the virtual roots in the edit distance and not in the counts; SCons uses depths
//!   and counts without the virtual root.
//! - **Readability** and **exact n-gram overlap** (not among the scripts; litnav's tokenization):
//!   Flesch–Kincaid grade, Gunning fog and Coleman–Liau with sentences ending at `.`, `!` or `?`
//!   followed by white space or the end; words are runs of letters, digits, apostrophes and
//!   hyphens containing a letter; syllables are vowel groups (y counts as a vowel), minus a final
//!   silent "e" (not "le"), at least one per word; complex words have three or more syllables.
//!   Each formula's similarity is min/max of the two values (1 when equal, 0 when either is ≤ 0 and
//!   they differ); the score is their mean. The overlap is the share of the generated text's
//!   distinct n-grams of lowercased words that also occur in the expert text.

use crate::tree::Tree;
use foldhash::fast::FixedState;
use std::collections::{HashMap, HashSet};
use std::hash::Hash;

/// Which implementation's reading of a metric to follow where the seed and Bloom-Eval's scripts
/// differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compat {
    /// The seed paper's definitions (the default).
    #[default]
    Seed,
    /// Bloom-Eval's public scripts, for comparing with numbers they produced.
    BloomEval,
}

/// Precision, recall and F1 from matched, generated and expert counts (0 where undefined).
pub fn prf(matched: usize, generated: usize, expert: usize) -> (f64, f64, f64) {
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let (p, r) = (ratio(matched, generated), ratio(matched, expert));
    (p, r, if p + r > 0.0 { 2.0 * p * r / (p + r) } else { 0.0 })
}

/// Distributional Similarity of paired counts: `expert[i]` and `generated[i]` count the same item
/// (a matched entity or theme) in the two surveys. 0 when either side counts nothing.
pub fn distributional_similarity(expert: &[f64], generated: &[f64], compat: Compat) -> f64 {
    let (total_e, total_g): (f64, f64) = (expert.iter().sum(), generated.iter().sum());
    if expert.is_empty() || total_e <= 0.0 || total_g <= 0.0 {
        return 0.0;
    }
    let p: Vec<f64> = expert.iter().map(|c| c / total_e).collect();
    let q: Vec<f64> = generated.iter().map(|c| c / total_g).collect();
    let m: Vec<f64> = p.iter().zip(&q).map(|(a, b)| 0.5 * (a + b)).collect();
    let js = match compat {
        Compat::Seed => 0.5 * (kl(&p, &m) + kl(&q, &m)),
        Compat::BloomEval => {
            let plus = |v: &[f64]| normalized(&v.iter().map(|x| x + 1e-10).collect::<Vec<_>>());
            let m = plus(&m);
            0.5 * (kl(&plus(&p), &m) + kl(&plus(&q), &m))
        }
    };
    let hellinger =
        (p.iter().zip(&q).map(|(a, b)| (a.sqrt() - b.sqrt()).powi(2)).sum::<f64>()).sqrt() / std::f64::consts::SQRT_2;
    let tv = 0.5 * p.iter().zip(&q).map(|(a, b)| (a - b).abs()).sum::<f64>();
    ((1.0 - js / std::f64::consts::LN_2) + (1.0 - hellinger) + (1.0 - tv)) / 3.0
}

fn normalized(v: &[f64]) -> Vec<f64> {
    let total: f64 = v.iter().sum();
    v.iter().map(|x| x / total).collect()
}

/// Kullback–Leibler divergence in nats (terms with `p = 0` contribute 0).
fn kl(p: &[f64], q: &[f64]) -> f64 {
    p.iter().zip(q).filter(|(a, _)| **a > 0.0).map(|(a, b)| a * (a / b).ln()).sum()
}

/// The Gini coefficient of counts (1 for no counts, 0 when all are zero).
pub fn gini(counts: &[f64]) -> f64 {
    if counts.is_empty() {
        return 1.0;
    }
    let mut sorted = counts.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mut cumulative = 0.0;
    let mut cumulative_sum = 0.0;
    for c in &sorted {
        cumulative += c;
        cumulative_sum += cumulative;
    }
    if cumulative == 0.0 {
        return 0.0;
    }
    let n = sorted.len() as f64;
    1.0 - 2.0 * (cumulative_sum / cumulative) / n + 1.0 / n
}

/// Thematic Balance: 1 − Gini of theme sizes.
pub fn thematic_balance(counts: &[f64]) -> f64 {
    1.0 - gini(counts)
}

/// Jaccard similarity of two sets (1 when both are empty).
pub fn jaccard<T: Hash + Eq>(a: &HashSet<T>, b: &HashSet<T>) -> f64 {
    let union = a.union(b).count();
    if union == 0 { 1.0 } else { a.intersection(b).count() as f64 / union as f64 }
}

/// A character sequence prepared for bit-parallel longest-common-subsequence queries (Hyyrö's
/// algorithm): one match mask per distinct character.
pub struct LcsPattern {
    len: usize,
    words: usize,
    /// Match masks of ASCII characters, `words` per character.
    ascii: Vec<u64>,
    /// Match masks of other characters.
    other: HashMap<char, Vec<u64>>,
}

impl LcsPattern {
    /// Prepare `a`.
    pub fn new(a: &[char]) -> LcsPattern {
        let words = a.len().div_ceil(64).max(1);
        let mut ascii = vec![0u64; 128 * words];
        let mut other: HashMap<char, Vec<u64>> = HashMap::new();
        for (i, &c) in a.iter().enumerate() {
            let bit = 1u64 << (i % 64);
            if c.is_ascii() {
                ascii[c as usize * words + i / 64] |= bit;
            } else {
                other.entry(c).or_insert_with(|| vec![0; words])[i / 64] |= bit;
            }
        }
        LcsPattern { len: a.len(), words, ascii, other }
    }

    fn mask(&self, c: char) -> Option<&[u64]> {
        if c.is_ascii() {
            let start = c as usize * self.words;
            Some(&self.ascii[start..start + self.words])
        } else {
            self.other.get(&c).map(Vec::as_slice)
        }
    }

    /// Length of the longest common subsequence of the pattern and `b`.
    pub fn lcs(&self, b: &[char]) -> usize {
        if self.len == 0 || b.is_empty() {
            return 0;
        }
        let mut v = vec![u64::MAX; self.words];
        for &c in b {
            let Some(mask) = self.mask(c) else { continue };
            let mut carry = 0u64;
            for (w, m) in mask.iter().enumerate() {
                let u = v[w] & m;
                let (sum, overflow_a) = v[w].overflowing_add(u);
                let (sum, overflow_b) = sum.overflowing_add(carry);
                carry = u64::from(overflow_a || overflow_b);
                v[w] = sum | (v[w] - u);
            }
        }
        let tail = self.len % 64;
        v.iter()
            .enumerate()
            .map(|(w, bits)| {
                let bits = if w == self.words - 1 && tail != 0 { bits | !((1u64 << tail) - 1) } else { *bits };
                bits.count_zeros() as usize
            })
            .sum()
    }

    /// thefuzz's ratio of the pattern and `b` (see [`fuzz_ratio`]).
    pub fn ratio(&self, b: &[char]) -> u32 {
        ratio_of(self.len, b.len(), self.lcs(b))
    }

    /// The highest ratio the pattern can reach with any sequence of `other_len` characters (all
    /// of the shorter one in common), found without reading it.
    pub fn ratio_bound(&self, other_len: usize) -> u32 {
        self.ratio_at_most(other_len, usize::MAX)
    }

    /// The highest ratio the pattern can reach with a sequence of `other_len` characters that has
    /// at most `common` characters in common with it (see [`CharCounts::common`]).
    pub fn ratio_at_most(&self, other_len: usize, common: usize) -> u32 {
        ratio_of(self.len, other_len, common.min(self.len).min(other_len))
    }
}

/// How many times each character occurs in a sequence. Two sequences have at most the sum over
/// characters of the smaller count in common (a common subsequence uses each occurrence once), a
/// bound found in a few vector instructions where the subsequence itself reads every character of
/// one sequence against the other's masks: two titles that share too few letters to reach
/// [`TITLE_SIMILARITY`] are passed over on it.
pub struct CharCounts {
    ascii: [u32; 128],
    /// The characters beyond ASCII, sorted.
    other: Vec<char>,
}

impl CharCounts {
    /// The counts of `chars`.
    pub fn of(chars: &[char]) -> CharCounts {
        let mut counts = CharCounts { ascii: [0; 128], other: Vec::new() };
        for &c in chars {
            match counts.ascii.get_mut(c as usize) {
                Some(count) => *count += 1,
                None => counts.other.push(c),
            }
        }
        counts.other.sort_unstable();
        counts
    }

    /// The sum over characters of the smaller of the two counts: at least the length of the two
    /// sequences' longest common subsequence.
    pub fn common(&self, other: &CharCounts) -> usize {
        let ascii: u32 = self.ascii.iter().zip(&other.ascii).map(|(a, b)| *a.min(b)).sum();
        let (mut common, mut i, mut j) = (ascii as usize, 0, 0);
        while i < self.other.len() && j < other.other.len() {
            match self.other[i].cmp(&other.other[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => (common, i, j) = (common + 1, i + 1, j + 1),
            }
        }
        common
    }
}

/// thefuzz's ratio of sequences of `a` and `b` characters with `lcs` in common.
fn ratio_of(a: usize, b: usize, lcs: usize) -> u32 {
    let total = a + b;
    if total == 0 {
        return 100;
    }
    let indel = total - 2 * lcs;
    ((1.0 - indel as f64 / total as f64) * 100.0).round_ties_even() as u32
}

/// Length of the longest common subsequence of two character sequences.
pub fn lcs_length(a: &[char], b: &[char]) -> usize {
    LcsPattern::new(a).lcs(b)
}

/// thefuzz's `fuzz.ratio`: `round(100 · (1 − indel / (|a| + |b|)))` over characters, halves to even
/// (Python's `round`); 100 for two empty strings.
pub fn fuzz_ratio(a: &str, b: &str) -> u32 {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    LcsPattern::new(&a).ratio(&b)
}

/// HIRC with the pairs it matched.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Hirc {
    /// Matched ÷ generated references.
    pub precision: f64,
    /// Matched ÷ high-impact expert references.
    pub recall: f64,
    /// Their harmonic mean.
    pub f1: f64,
    /// Generated references.
    pub generated: usize,
    /// High-impact expert references.
    pub high_impact: usize,
    /// (generated index, expert index, similarity) of each match.
    pub matches: Vec<(usize, usize, u32)>,
}

/// Expert references cited more than this many times are high-impact.
pub const HIGH_IMPACT_CITATIONS: u64 = 50;
/// Least `fuzz.ratio` for two titles to be the same reference.
pub const TITLE_SIMILARITY: u32 = 90;

/// High-Impact Reference Coverage of generated reference titles against expert references
/// `(title, citation count)` (see the module doc).
pub fn high_impact_reference_coverage(generated: &[&str], expert: &[(&str, u64)]) -> Hirc {
    let high: Vec<(usize, LcsPattern, CharCounts)> = expert
        .iter()
        .enumerate()
        .filter(|(_, (_, c))| *c > HIGH_IMPACT_CITATIONS)
        .map(|(i, (t, _))| {
            let chars: Vec<char> = t.to_lowercase().chars().collect();
            (i, LcsPattern::new(&chars), CharCounts::of(&chars))
        })
        .collect();
    let high_count = high.len();
    let mut unmatched = high;
    let mut matches = Vec::new();
    for (g, title) in generated.iter().enumerate() {
        let title: Vec<char> = title.to_lowercase().chars().collect();
        let counts = CharCounts::of(&title);
        let mut best: Option<(usize, u32)> = None;
        for (slot, (_, candidate, candidate_counts)) in unmatched.iter().enumerate() {
            // Only a first strict maximum of at least TITLE_SIMILARITY is used: a candidate whose
            // length, or whose characters, alone keep it below either cannot change the
            // outcome, and none beats 100.
            let least = best.map_or(TITLE_SIMILARITY, |(_, s)| s.max(TITLE_SIMILARITY - 1) + 1);
            if candidate.ratio_bound(title.len()) < least
                || candidate.ratio_at_most(title.len(), counts.common(candidate_counts)) < least
            {
                continue;
            }
            let similarity = candidate.ratio(&title);
            if similarity > best.map_or(0, |(_, s)| s) {
                best = Some((slot, similarity));
                if similarity == 100 {
                    break;
                }
            }
        }
        if let Some((slot, similarity)) = best.filter(|(_, s)| *s >= TITLE_SIMILARITY) {
            let (expert_index, _, _) = unmatched.remove(slot);
            matches.push((g, expert_index, similarity));
        }
    }
    let (precision, recall, f1) = prf(matches.len(), generated.len(), high_count);
    Hirc { precision, recall, f1, generated: generated.len(), high_impact: high_count, matches }
}

/// The sections Document Structure Integrity looks for.
pub const REQUIRED_SECTIONS: [&str; 4] = ["abstract", "introduction", "conclusion", "references"];

/// Document Structure Integrity of a text's headings: the share of [`REQUIRED_SECTIONS`] found,
/// and which.
pub fn document_structure_integrity(headings: &[&str]) -> (f64, [bool; 4]) {
    let mut found = [false; 4];
    for heading in headings {
        let h = normalize_heading(heading);
        found[0] |= h.contains("abstract");
        found[1] |= h.contains("introduction");
        found[2] |= h.contains("conclusion");
        found[3] |= h.contains("references") || h.contains("bibliography");
    }
    (found.iter().filter(|f| **f).count() as f64 / 4.0, found)
}

/// A heading trimmed, its trailing colon removed, spaces collapsed, lowercase.
fn normalize_heading(heading: &str) -> String {
    let trimmed = heading.trim();
    let without_colon = trimmed.trim_end_matches(|c: char| c.is_whitespace()).trim_end_matches([':', '：']);
    without_colon.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// A heading without its leading number (`2.1 Self-Attention` → `Self-Attention`).
pub fn clean_heading(heading: &str) -> String {
    let chars: Vec<char> = heading.chars().collect();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < chars.len() && chars[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    };
    if digits(&mut i) {
        loop {
            let mark = i;
            if i < chars.len() && chars[i] == '.' {
                i += 1;
                if digits(&mut i) {
                    continue;
                }
            }
            i = mark;
            break;
        }
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
    } else {
        i = 0;
    }
    chars[i..].iter().collect::<String>().trim().to_string()
}

/// An outline (`(level, heading)`, the title at level 0) as Bloom-Eval's scripts build its tree:
/// a virtual root named `root`; each heading, number removed, under the last heading one level up
/// (or the root when there is none).
pub fn outline_tree(outline: &[(usize, &str)]) -> Tree {
    // Paths of child indices from the root to the last heading of each level.
    let mut root = Tree { name: "root".into(), ..Tree::default() };
    let mut last_at_level: HashMap<usize, Vec<usize>> = HashMap::new();
    for &(level, heading) in outline {
        let parent_path = level.checked_sub(1).and_then(|l| last_at_level.get(&l)).cloned().unwrap_or_default();
        let mut parent = &mut root;
        for &step in &parent_path {
            parent = &mut parent.children[step];
        }
        parent.children.push(Tree { name: clean_heading(heading), ..Tree::default() });
        let mut path = parent_path;
        path.push(parent.children.len() - 1);
        last_at_level.insert(level, path);
    }
    root
}

/// Shape Consistency of two outline trees ([`outline_tree`]) with its parts.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Shape {
    /// Depth of the expert outline (without the virtual root).
    pub expert_depth: usize,
    /// Depth of the generated outline.
    pub generated_depth: usize,
    /// Headings of the expert outline.
    pub expert_headings: usize,
    /// Headings of the generated outline.
    pub generated_headings: usize,
    /// Depth Consistency (min/max).
    pub depth_consistency: f64,
    /// Breadth Consistency (min/max of heading counts).
    pub breadth_consistency: f64,
    /// `√(DC · BC)`.
    pub shape_consistency: f64,
}

/// SCons of two outline trees.
pub fn outline_shape(expert: &Tree, generated: &Tree) -> Shape {
    let ratio = |a: usize, b: usize| if a.max(b) == 0 { 0.0 } else { a.min(b) as f64 / a.max(b) as f64 };
    let (de, dg) = (crate::ordered::depth(expert) - 1, crate::ordered::depth(generated) - 1);
    let (ne, ng) = (crate::ordered::node_count(expert) - 1, crate::ordered::node_count(generated) - 1);
    let (depth_consistency, breadth_consistency) = (ratio(de, dg), ratio(ne, ng));
    Shape {
        expert_depth: de,
        generated_depth: dg,
        expert_headings: ne,
        generated_headings: ng,
        depth_consistency,
        breadth_consistency,
        shape_consistency: (depth_consistency * breadth_consistency).sqrt(),
    }
}

/// STS of two outline trees with its parts.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct TreeSimilarity {
    /// `1 − TED / bound` (0 when either outline is empty).
    pub score: f64,
    /// The tree edit distance (unit insert and delete, relabel `1 − cos`).
    pub edit_distance: f64,
    /// `|A| + |B|`, headings without the virtual roots.
    pub bound: usize,
}

/// Semantic Tree Similarity of two outline trees, with `cosine` between headings.
pub fn outline_similarity(expert: &Tree, generated: &Tree, cosine: &dyn Fn(&str, &str) -> f64) -> TreeSimilarity {
    let (ne, ng) = (crate::ordered::node_count(expert) - 1, crate::ordered::node_count(generated) - 1);
    if ne == 0 || ng == 0 {
        return TreeSimilarity { score: 0.0, edit_distance: f64::NAN, bound: ne + ng };
    }
    let edit_distance = crate::ordered::tree_edit_distance(expert, generated, &|a, b| 1.0 - cosine(a, b));
    TreeSimilarity { score: 1.0 - edit_distance / (ne + ng) as f64, edit_distance, bound: ne + ng }
}

/// The three readability indices of a text.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Readability {
    /// Flesch–Kincaid grade level.
    pub flesch_kincaid: f64,
    /// Gunning fog index.
    pub gunning_fog: f64,
    /// Coleman–Liau index.
    pub coleman_liau: f64,
}

fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
        .filter(|w| w.chars().any(char::is_alphabetic))
        .collect()
}

fn sentences(text: &str) -> usize {
    let mut count = 0;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if matches!(c, '.' | '!' | '?') && chars.peek().is_none_or(|n| n.is_whitespace()) {
            count += 1;
        }
    }
    if count == 0 && !words(text).is_empty() { 1 } else { count }
}

/// Syllables of one word (see the module doc for the rule).
pub fn syllables(word: &str) -> usize {
    if word.is_ascii() {
        // The same rule on bytes: an ASCII letter's lowercase is one ASCII letter.
        let lower = word.bytes().filter(u8::is_ascii_alphabetic).map(|b| char::from(b.to_ascii_lowercase()));
        return syllables_of_letters(lower);
    }
    let lower: Vec<char> = word.to_lowercase().chars().filter(|c| c.is_alphabetic()).collect();
    syllables_of_letters(lower.into_iter())
}

/// Vowel groups of a word's lowercase letters, less a silent final "e", at least one.
fn syllables_of_letters(letters: impl Iterator<Item = char>) -> usize {
    let vowel = |c: char| matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y');
    let (mut groups, mut n) = (0, 0);
    let (mut previous, mut last, mut before_last) = (false, '\0', '\0');
    for c in letters {
        let v = vowel(c);
        if v && !previous {
            groups += 1;
        }
        previous = v;
        (before_last, last) = (last, c);
        n += 1;
    }
    if n > 2 && last == 'e' && !vowel(before_last) && before_last != 'l' && groups > 1 {
        groups -= 1;
    }
    groups.max(1)
}

/// Readability indices; `None` for a text without words.
pub fn readability(text: &str) -> Option<Readability> {
    let words = words(text);
    if words.is_empty() {
        return None;
    }
    let (w, s) = (words.len() as f64, sentences(text) as f64);
    let (mut syllable_total, mut complex, mut letters) = (0usize, 0usize, 0usize);
    for word in &words {
        let count = syllables(word);
        syllable_total += count;
        complex += usize::from(count >= 3);
        letters += word.chars().filter(|c| c.is_alphabetic()).count();
    }
    let complex = complex as f64;
    let letters = letters as f64;
    Some(Readability {
        flesch_kincaid: 0.39 * (w / s) + 11.8 * (syllable_total as f64 / w) - 15.59,
        gunning_fog: 0.4 * ((w / s) + 100.0 * (complex / w)),
        coleman_liau: 0.0588 * (letters / w * 100.0) - 0.296 * (s / w * 100.0) - 15.8,
    })
}

/// Bloom-Eval's readability similarity of a generated text to the expert's, in [0, 1].
pub fn readability_similarity(expert: &Readability, generated: &Readability) -> f64 {
    let sim = |a: f64, b: f64| {
        if a == b {
            1.0
        } else if a <= 0.0 || b <= 0.0 {
            0.0
        } else {
            a.min(b) / a.max(b)
        }
    };
    (sim(expert.flesch_kincaid, generated.flesch_kincaid)
        + sim(expert.gunning_fog, generated.gunning_fog)
        + sim(expert.coleman_liau, generated.coleman_liau))
        / 3.0
}

/// Share of the generated text's distinct n-grams (lowercased words) found in the expert text.
///
/// Each distinct lowercased word is numbered once (both texts share the numbering), so an n-gram is
/// compared and hashed as n numbers rather than n strings.
pub fn ngram_overlap(expert: &str, generated: &str, n: usize) -> f64 {
    let n = n.max(1);
    let mut numbers: HashMap<String, u32, FixedState> = HashMap::default();
    let mut lower = String::new();
    let mut number_words = |text: &str| -> Vec<u32> {
        words(text)
            .iter()
            .map(|word| {
                lower.clear();
                if word.is_ascii() {
                    lower.push_str(word);
                    lower.make_ascii_lowercase();
                } else {
                    lower.push_str(&word.to_lowercase());
                }
                if let Some(&number) = numbers.get(lower.as_str()) {
                    return number;
                }
                let number = numbers.len() as u32;
                numbers.insert(lower.clone(), number);
                number
            })
            .collect()
    };
    let (expert_words, generated_words) = (number_words(expert), number_words(generated));
    let expert_grams: HashSet<&[u32], FixedState> = expert_words.windows(n).collect();
    let generated_grams: HashSet<&[u32], FixedState> = generated_words.windows(n).collect();
    if generated_grams.is_empty() {
        return 0.0;
    }
    generated_grams.iter().filter(|g| expert_grams.contains(*g)).count() as f64 / generated_grams.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The readability and overlap measures as first written, one allocation per word: the faster
    /// forms must give the same numbers.
    mod plain {
        use std::collections::HashSet;

        pub fn syllables(word: &str) -> usize {
            let lower: Vec<char> = word.to_lowercase().chars().filter(|c| c.is_alphabetic()).collect();
            let vowel = |c: char| "aeiouy".contains(c);
            let mut groups = 0;
            let mut previous = false;
            for &c in &lower {
                let v = vowel(c);
                if v && !previous {
                    groups += 1;
                }
                previous = v;
            }
            let n = lower.len();
            if n > 2 && lower[n - 1] == 'e' && !vowel(lower[n - 2]) && lower[n - 2] != 'l' && groups > 1 {
                groups -= 1;
            }
            groups.max(1)
        }

        pub fn sentences(text: &str) -> usize {
            let chars: Vec<char> = text.chars().collect();
            let count = (0..chars.len())
                .filter(|&i| matches!(chars[i], '.' | '!' | '?') && chars.get(i + 1).is_none_or(|n| n.is_whitespace()))
                .count();
            if count == 0 && !super::words(text).is_empty() { 1 } else { count }
        }

        pub fn readability(text: &str) -> Option<[f64; 3]> {
            let words = super::words(text);
            if words.is_empty() {
                return None;
            }
            let (w, s) = (words.len() as f64, sentences(text) as f64);
            let syllable_total: usize = words.iter().map(|w| syllables(w)).sum();
            let complex = words.iter().filter(|w| syllables(w) >= 3).count() as f64;
            let letters = words.iter().flat_map(|w| w.chars()).filter(|c| c.is_alphabetic()).count() as f64;
            Some([
                0.39 * (w / s) + 11.8 * (syllable_total as f64 / w) - 15.59,
                0.4 * ((w / s) + 100.0 * (complex / w)),
                0.0588 * (letters / w * 100.0) - 0.296 * (s / w * 100.0) - 15.8,
            ])
        }

        pub fn ngram_overlap(expert: &str, generated: &str, n: usize) -> f64 {
            let tokens = |text: &str| -> Vec<String> { super::words(text).iter().map(|w| w.to_lowercase()).collect() };
            let (e, g) = (tokens(expert), tokens(generated));
            let (e, g): (HashSet<&[String]>, HashSet<&[String]>) = (e.windows(n).collect(), g.windows(n).collect());
            if g.is_empty() { 0.0 } else { g.iter().filter(|x| e.contains(*x)).count() as f64 / g.len() as f64 }
        }
    }

    #[test]
    fn readability_and_overlap_equal_their_plain_forms() {
        let texts = [
            "The Vision Transformer (ViT) splits an image into patches. Does it scale? Yes! See Fig. 3.",
            "İstanbul's naïve café-owners re-create ÆON; Straße GROSSE Übermensch. ﬁle ﬂow.",
            "little able table fire the be see me queue rhythm syzygy I a e. e.g. vs.",
            "",
            "no terminal punctuation here",
            "ends with a question?\nand\tanother line. Last.",
            "repeated words repeated words repeated words repeated words repeated words repeated words",
        ];
        for text in texts {
            assert_eq!(sentences(text), plain::sentences(text), "{text}");
            for word in words(text) {
                assert_eq!(syllables(word), plain::syllables(word), "{word}");
            }
            for other in texts {
                for n in [1, 2, 3, 10] {
                    assert_eq!(ngram_overlap(other, text, n).to_bits(), plain::ngram_overlap(other, text, n).to_bits());
                }
            }
        }
        for text in texts {
            let fast = readability(text).map(|r| [r.flesch_kincaid, r.gunning_fog, r.coleman_liau].map(f64::to_bits));
            assert_eq!(fast, plain::readability(text).map(|r| r.map(f64::to_bits)), "{text}");
        }
    }

    #[test]
    fn distributional_similarity_by_hand() {
        let p = [3.0, 1.0];
        assert!((distributional_similarity(&p, &p, Compat::Seed) - 1.0).abs() < 1e-12);
        assert!(
            (distributional_similarity(&p, &[30.0, 10.0], Compat::Seed) - 1.0).abs() < 1e-12,
            "counts are normalized"
        );
        // p = (1/2, 1/2), q = (1, 0): JSD/ln2 = 0.311278..., H = √(1 − √½), TV = ½.
        let js =
            (0.5 * 0.5 * (0.5f64 / 0.75).ln() + 0.5 * 0.5 * 2.0f64.ln() + 0.5 * (1.0f64 / 0.75).ln()) / 2.0f64.ln();
        let h = (1.0 - 0.5f64.sqrt()).sqrt();
        let expected = ((1.0 - js) + (1.0 - h) + 0.5) / 3.0;
        assert!((distributional_similarity(&[1.0, 1.0], &[1.0, 0.0], Compat::Seed) - expected).abs() < 1e-12);
        // The scripts' ε changes the value by less than 1e-9.
        let compat = distributional_similarity(&[1.0, 1.0], &[1.0, 0.0], Compat::BloomEval);
        assert!((compat - expected).abs() < 1e-9 && compat != expected);
        assert_eq!(distributional_similarity(&[], &[], Compat::Seed), 0.0);
    }

    #[test]
    fn gini_as_the_scripts_compute_it() {
        assert_eq!(thematic_balance(&[5.0, 5.0, 5.0]), 1.0);
        // One theme holds everything among four: G = 3/4.
        assert!((thematic_balance(&[0.0, 0.0, 0.0, 8.0]) - 0.25).abs() < 1e-15);
        assert_eq!(thematic_balance(&[]), 0.0, "no themes: Gini 1");
        // The mean-absolute-difference form agrees.
        let counts = [3.0, 1.0, 7.0, 2.0, 2.0];
        let n = counts.len() as f64;
        let total: f64 = counts.iter().sum();
        let mad: f64 = counts.iter().map(|a| counts.iter().map(|b| (a - b).abs()).sum::<f64>()).sum();
        assert!((gini(&counts) - mad / (2.0 * n * total)).abs() < 1e-15);
    }

    #[test]
    fn lcs_and_fuzz_ratio() {
        let chars = |s: &str| s.chars().collect::<Vec<_>>();
        assert_eq!(lcs_length(&chars("abcbdab"), &chars("bdcaba")), 4);
        let long_a: String = "ab".repeat(70);
        let long_b: String = "ba".repeat(70);
        assert_eq!(lcs_length(&chars(&long_a), &chars(&long_b)), 139, "more than one 64-bit word");
        assert_eq!(fuzz_ratio("this is a test", "this is a test!"), 97);
        assert_eq!(fuzz_ratio("", ""), 100);
        assert_eq!(fuzz_ratio("abc", "xyz"), 0);
        // 200·1/4 = 50 exactly; 200·2/7 = 57.14 → 57.
        assert_eq!(fuzz_ratio("ab", "ac"), 50);
        assert_eq!(fuzz_ratio("abcd", "acx"), 57);
    }

    #[test]
    fn character_counts_bound_the_common_subsequence_and_leave_hirc_as_the_plain_greedy_match() {
        // Random titles over a small alphabet with non-ASCII letters, so that many pairs come
        // near the threshold.
        let mut seed = 3u64;
        let mut title = |length: usize| -> String {
            (0..length)
                .map(|_| {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                    ['a', 'b', 'c', 'é', 'ß', ' ', 'd'][(seed >> 33) as usize % 7]
                })
                .collect()
        };
        let titles: Vec<String> = (0..120).map(|i| title(20 + i % 13)).collect();
        for pair in titles.windows(2) {
            let (a, b): (Vec<char>, Vec<char>) = (pair[0].chars().collect(), pair[1].chars().collect());
            let common = CharCounts::of(&a).common(&CharCounts::of(&b));
            assert!(lcs_length(&a, &b) <= common, "{pair:?}");
            let counted = |s: &[char], c: char| s.iter().filter(|&&x| x == c).count();
            let letters: std::collections::BTreeSet<char> = a.iter().copied().collect();
            assert_eq!(common, letters.iter().map(|&c| counted(&a, c).min(counted(&b, c))).sum::<usize>());
        }
        // Each generated title near an expert one (a few letters changed), against the greedy
        // match computed with every ratio.
        let expert: Vec<(&str, u64)> = titles.iter().map(|t| (t.as_str(), 100)).collect();
        let generated: Vec<String> = titles
            .iter()
            .rev()
            .enumerate()
            .map(|(i, t)| if i % 3 == 0 { t.replacen('a', "d", 2) } else { title(25) })
            .collect();
        let generated: Vec<&str> = generated.iter().map(String::as_str).collect();
        let mut unmatched: Vec<usize> = (0..expert.len()).collect();
        let mut plain = Vec::new();
        for (g, title) in generated.iter().enumerate() {
            let scored = unmatched
                .iter()
                .enumerate()
                .map(|(slot, &e)| (slot, fuzz_ratio(&title.to_lowercase(), &expert[e].0.to_lowercase())));
            // The first of the highest ratios, when it reaches the threshold.
            let best = scored.fold(
                None,
                |best: Option<(usize, u32)>, (slot, r)| {
                    if best.is_none_or(|b| r > b.1) { Some((slot, r)) } else { best }
                },
            );
            if let Some((slot, r)) = best.filter(|b| b.1 >= TITLE_SIMILARITY) {
                plain.push((g, unmatched.remove(slot), r));
            }
        }
        let hirc = high_impact_reference_coverage(&generated, &expert);
        assert!(plain.len() > 10, "{} matches", plain.len());
        assert_eq!(hirc.matches, plain);
    }

    #[test]
    fn hirc_by_hand() {
        let expert = [("Attention Is All You Need", 9000), ("Deep Residual Learning", 40), ("BERT pretraining", 300)];
        let generated = ["attention is all you need.", "Something else", "BERT pre-training"];
        let hirc = high_impact_reference_coverage(&generated, &expert);
        assert_eq!(hirc.matches.iter().map(|m| (m.0, m.1)).collect::<Vec<_>>(), [(0, 0), (2, 2)]);
        assert_eq!((hirc.precision, hirc.recall), (2.0 / 3.0, 1.0));
    }

    #[test]
    fn structure_and_outlines() {
        assert_eq!(document_structure_integrity(&["Abstract", "1 INTRODUCTION", "5 Conclusions:"]).0, 0.75);
        assert_eq!(clean_heading("2.1 Self-Attention"), "Self-Attention");
        assert_eq!(clean_heading("2. Methods"), ". Methods", "the scripts' pattern stops before a dot without digits");
        assert_eq!(clean_heading("Intro 1"), "Intro 1");
        let outline = [(0, "Title"), (1, "1 A"), (2, "1.1 B"), (1, "2 C"), (4, "deep orphan")];
        let tree = outline_tree(&outline);
        assert_eq!(tree.children.len(), 2, "the title and the orphan hang under the root");
        assert_eq!(tree.children[0].children.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["A", "C"]);
        let same = |a: &str, b: &str| if a == b { 1.0 } else { 0.0 };
        assert_eq!(outline_similarity(&tree, &tree, &same).score, 1.0);
        let shape = outline_shape(&tree, &outline_tree(&outline[..2]));
        assert_eq!(
            (shape.expert_depth, shape.generated_depth, shape.expert_headings, shape.generated_headings),
            (3, 2, 5, 2)
        );
    }

    #[test]
    fn readability_by_hand() {
        assert_eq!(syllables("the"), 1);
        assert_eq!(syllables("table"), 2);
        assert_eq!(syllables("make"), 1);
        assert_eq!(syllables("readability"), 5);
        let text = "The cat sat. The dog ran away quickly!";
        let r = readability(text).unwrap_or_else(|| panic!("has words"));
        // 8 words, 2 sentences, syllables 1+1+1+1+1+1+2+2 = 10, letters 29.
        assert!((r.flesch_kincaid - (0.39 * 4.0 + 11.8 * 10.0 / 8.0 - 15.59)).abs() < 1e-12);
        assert!((r.coleman_liau - (0.0588 * (29.0 / 8.0 * 100.0) - 0.296 * 25.0 - 15.8)).abs() < 1e-12);
        assert_eq!(readability_similarity(&r, &r), 1.0);
        assert_eq!(readability(""), None);
    }

    #[test]
    fn ngrams() {
        let expert = "one two three four five six seven eight nine ten eleven";
        assert_eq!(ngram_overlap(expert, expert, 10), 1.0);
        assert_eq!(ngram_overlap(expert, "One two three four five six seven eight nine ten zzz", 10), 0.5);
        assert_eq!(ngram_overlap(expert, "too short", 10), 0.0);
    }
}
