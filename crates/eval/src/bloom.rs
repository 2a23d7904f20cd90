//! Bloom-Eval's deterministic metrics (seed 001, Appendix A–D).
//!
//! Choices the paper leaves open, stated here:
//! - **Distributional Similarity**: distributions over the union of the two count maps; JSD uses
//!   natural logarithms and is divided by ln 2; Hellinger is `√(1 − Σ √(pᵢqᵢ))`; total variation
//!   is `½ Σ |pᵢ − qᵢ|`. Two empty count maps are identical (1); one empty map scores 0.
//! - **TBal** = 1 − Gini over theme counts; `None` when there are no themes or no references.
//! - **FMI** = Jaccard of cited and defined citation keys; both empty → 1.
//! - **DSI**: a required section is present when some heading, with leading numbering removed and
//!   normalized, has a word starting with the required name ("Conclusions and Future Work" counts
//!   as "conclusion"). Default required sections: abstract, introduction, conclusion, references.
//! - **HIRC**: F1 of generated references against the expert references with more than 50
//!   citations (the threshold is a parameter).
//! - **Readability**: Flesch–Kincaid grade, Gunning fog and Coleman–Liau with litnav's own
//!   tokenization: sentences end at `.`, `!` or `?` followed by white space or the end; words are
//!   runs of letters, digits, apostrophes and hyphens containing a letter; syllables are vowel
//!   groups (y counts as a vowel), minus a final silent "e" (not "le"), at least one per word;
//!   complex words have three or more syllables. Each formula's similarity is
//!   min/max of the two values (1 when equal, 0 when either is ≤ 0 and they differ); the score
//!   is their mean.
//! - **Exact 10-gram overlap**: share of the generated text's distinct 10-grams of lowercased
//!   words that also occur in the expert text (0 when the generated text has none).

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

/// Distributional Similarity of two count maps (expert, generated).
pub fn distributional_similarity<K: Hash + Eq>(expert: &HashMap<K, f64>, generated: &HashMap<K, f64>) -> f64 {
    let (total_e, total_g): (f64, f64) = (expert.values().sum(), generated.values().sum());
    if total_e <= 0.0 && total_g <= 0.0 {
        return 1.0;
    }
    if total_e <= 0.0 || total_g <= 0.0 {
        return 0.0;
    }
    let keys: HashSet<&K> = expert.keys().chain(generated.keys()).collect();
    let (mut js, mut bhattacharyya, mut tv) = (0.0, 0.0, 0.0);
    for key in keys {
        let p = expert.get(key).copied().unwrap_or(0.0) / total_e;
        let q = generated.get(key).copied().unwrap_or(0.0) / total_g;
        let m = (p + q) / 2.0;
        if p > 0.0 {
            js += 0.5 * p * (p / m).ln();
        }
        if q > 0.0 {
            js += 0.5 * q * (q / m).ln();
        }
        bhattacharyya += (p * q).sqrt();
        tv += (p - q).abs() / 2.0;
    }
    let hellinger = (1.0 - bhattacharyya).max(0.0).sqrt();
    let js_normalized = js / std::f64::consts::LN_2;
    ((1.0 - js_normalized) + (1.0 - hellinger) + (1.0 - tv)) / 3.0
}

/// 1 − Gini of theme counts.
pub fn thematic_balance(counts: &[f64]) -> Option<f64> {
    let total: f64 = counts.iter().sum();
    if counts.is_empty() || total <= 0.0 {
        return None;
    }
    let n = counts.len() as f64;
    let differences: f64 = counts.iter().map(|a| counts.iter().map(|b| (a - b).abs()).sum::<f64>()).sum();
    Some(1.0 - differences / (2.0 * n * total))
}

/// Jaccard similarity of two sets (1 when both are empty).
pub fn jaccard<T: Hash + Eq>(a: &HashSet<T>, b: &HashSet<T>) -> f64 {
    let union = a.union(b).count();
    if union == 0 { 1.0 } else { a.intersection(b).count() as f64 / union as f64 }
}

/// Sections every survey should have, for [`document_structure_integrity`].
pub const REQUIRED_SECTIONS: [&str; 4] = ["abstract", "introduction", "conclusion", "references"];

/// Share of `required` sections present among `headings`.
pub fn document_structure_integrity(headings: &[&str], required: &[&str]) -> f64 {
    if required.is_empty() {
        return 1.0;
    }
    let normalized: Vec<Vec<String>> = headings
        .iter()
        .map(|h| {
            let text = crate::tree::normalize_title(h);
            text.split(' ').filter(|w| !w.chars().all(|c| c.is_ascii_digit())).map(str::to_string).collect()
        })
        .collect();
    let found = required
        .iter()
        .filter(|r| {
            let r = r.to_lowercase();
            normalized.iter().any(|words| words.iter().any(|w| w.starts_with(&r)))
        })
        .count();
    found as f64 / required.len() as f64
}

/// (precision, recall, F1) of generated references against the expert's high-impact ones.
pub fn high_impact_reference_coverage<T: Hash + Eq>(
    generated: &HashSet<T>,
    expert_citations: &HashMap<T, u64>,
    threshold: u64,
) -> (f64, f64, f64) {
    let high: HashSet<&T> = expert_citations.iter().filter(|(_, c)| **c > threshold).map(|(k, _)| k).collect();
    let hits = generated.iter().filter(|g| high.contains(g)).count() as f64;
    let precision = if generated.is_empty() { 0.0 } else { hits / generated.len() as f64 };
    let recall = if high.is_empty() { 0.0 } else { hits / high.len() as f64 };
    let f1 = if precision + recall > 0.0 { 2.0 * precision * recall / (precision + recall) } else { 0.0 };
    (precision, recall, f1)
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
    let chars: Vec<char> = text.chars().collect();
    let mut count = 0;
    for (i, c) in chars.iter().enumerate() {
        if matches!(c, '.' | '!' | '?') && chars.get(i + 1).is_none_or(|n| n.is_whitespace()) {
            count += 1;
        }
    }
    if count == 0 && !words(text).is_empty() { 1 } else { count }
}

/// Syllables of one word (see the module doc for the rule).
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

/// Readability indices; `None` for a text without words.
pub fn readability(text: &str) -> Option<Readability> {
    let words = words(text);
    if words.is_empty() {
        return None;
    }
    let (w, s) = (words.len() as f64, sentences(text) as f64);
    let syllable_total: usize = words.iter().map(|w| syllables(w)).sum();
    let complex = words.iter().filter(|w| syllables(w) >= 3).count() as f64;
    let letters = words.iter().flat_map(|w| w.chars()).filter(|c| c.is_alphabetic()).count() as f64;
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
pub fn ngram_overlap(expert: &str, generated: &str, n: usize) -> f64 {
    let grams = |text: &str| -> HashSet<Vec<String>> {
        let tokens: Vec<String> = words(text).iter().map(|w| w.to_lowercase()).collect();
        tokens.windows(n.max(1)).map(|w| w.to_vec()).collect()
    };
    let (expert_grams, generated_grams) = (grams(expert), grams(generated));
    if generated_grams.is_empty() {
        return 0.0;
    }
    generated_grams.iter().filter(|g| expert_grams.contains(*g)).count() as f64 / generated_grams.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(items: &[(&'static str, f64)]) -> HashMap<&'static str, f64> {
        items.iter().copied().collect()
    }

    #[test]
    fn distributional_similarity_laws() {
        let p = counts(&[("a", 3.0), ("b", 1.0)]);
        assert!((distributional_similarity(&p, &p) - 1.0).abs() < 1e-12);
        let scaled = counts(&[("a", 30.0), ("b", 10.0)]);
        assert!((distributional_similarity(&p, &scaled) - 1.0).abs() < 1e-12, "counts are normalized");
        let disjoint = counts(&[("c", 2.0)]);
        assert!(distributional_similarity(&p, &disjoint).abs() < 1e-12, "disjoint supports score 0");
        // By hand: p = (1/2, 1/2), q = (1, 0): JSD/ln2 = 0.311278..., H = √(1 − √½), TV = ½.
        let half = counts(&[("a", 1.0), ("b", 1.0)]);
        let one = counts(&[("a", 1.0)]);
        let js =
            (0.5 * 0.5 * (0.5f64 / 0.75).ln() + 0.5 * 0.5 * 2.0f64.ln() + 0.5 * (1.0f64 / 0.75).ln()) / 2.0f64.ln();
        let h = (1.0 - 0.5f64.sqrt()).sqrt();
        let expected = ((1.0 - js) + (1.0 - h) + 0.5) / 3.0;
        assert!((distributional_similarity(&half, &one) - expected).abs() < 1e-12);
    }

    #[test]
    fn gini_and_sets() {
        assert_eq!(thematic_balance(&[5.0, 5.0, 5.0]), Some(1.0));
        // One theme holds everything among four: G = 3/4.
        assert_eq!(thematic_balance(&[0.0, 0.0, 0.0, 8.0]), Some(0.25));
        assert_eq!(thematic_balance(&[]), None);
        let a: HashSet<i32> = [1, 2, 3].into();
        let b: HashSet<i32> = [2, 3, 4].into();
        assert_eq!(jaccard(&a, &b), 0.5);
        let headings = ["Abstract", "1 INTRODUCTION", "5 Conclusions and Future Work"];
        assert_eq!(document_structure_integrity(&headings, &REQUIRED_SECTIONS), 0.75);
    }

    #[test]
    fn hirc_by_hand() {
        let generated: HashSet<&str> = ["a", "b", "x"].into();
        let expert: HashMap<&str, u64> = [("a", 100), ("b", 51), ("c", 50), ("d", 500)].into();
        let (p, r, f) = high_impact_reference_coverage(&generated, &expert, 50);
        assert_eq!((p, r), (2.0 / 3.0, 2.0 / 3.0));
        assert!((f - 2.0 / 3.0).abs() < 1e-15);
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
