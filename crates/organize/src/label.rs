//! Offline names and descriptions for clusters of papers: class-based TF-IDF over phrases of 1–3
//! words, re-ranked with the sentence encoder for relevance to the cluster and diversity (maximal
//! marginal relevance), shown in the casing the papers themselves use.
//!
//! - **Phrases** are runs of 1–3 consecutive words containing no stop word and not crossing
//!   punctuation, from each paper's title and abstract (the title counted twice: it is the
//!   author's own summary).
//! - **c-TF-IDF** (as in BERTopic): `w(t, c) = tf(t, c) / |c| · ln(1 + A / f(t))`, with `tf(t, c)`
//!   the phrase's count in cluster c, `|c|` the cluster's phrase count, `f(t)` the phrase's count in
//!   all clusters and `A` the mean phrase count per cluster; single words weigh 0.6, three-word
//!   phrases 1.1 (specific phrases name clusters better). Phrases from a single paper of a
//!   cluster with three or more papers are not candidates (one paper's jargon is not a theme).
//! - **Not candidates**: phrases found in half the clusters or more (with four or more clusters)
//!   and phrases made only of the topic's words ("language models" in a map of LLM papers).
//! - **Re-ranking**: the 20 best candidates are embedded; the score is 0.7 · the min–max
//!   normalized c-TF-IDF weight + 0.3 · the cosine to the cluster centroid; picks then follow
//!   maximal marginal relevance (0.7 · score − 0.3 · highest cosine to a picked phrase).

use litnav_core::text::content_runs;
use std::collections::{HashMap, HashSet};

/// Weight multiplier by phrase length: specific multi-word phrases name a cluster better than a
/// single word ("Semantic Entropy" over "Semantic").
const LENGTH_WEIGHT: [f64; 3] = [0.6, 1.0, 1.1];

/// A phrase as counted (lowercase) with the surface forms seen.
struct PhraseCounts {
    counts: Vec<HashMap<String, usize>>,
    documents: Vec<HashMap<String, HashSet<usize>>>,
    surfaces: HashMap<String, HashMap<String, usize>>,
}

/// Every 1–3-word phrase of a text's content runs, lower-cased and as written, in text order.
pub(crate) fn phrases_of(text: &str, mut add: impl FnMut(String, String)) {
    for run in content_runs(text) {
        for start in 0..run.len() {
            for len in 1..=3.min(run.len() - start) {
                let surface = run[start..start + len].join(" ");
                add(surface.to_lowercase(), surface);
            }
        }
    }
}

/// Name-like phrases of a title: the last two or three words of each run of two words or more
/// (an English noun phrase ends in its head: "Bayesian Surrogate Model"), capitalized as names
/// are, in title order.
pub fn title_phrases(title: &str) -> Vec<String> {
    content_runs(title)
        .into_iter()
        .filter(|run| run.len() >= 2)
        .map(|run| run[run.len().saturating_sub(3)..].iter().map(|w| capitalize(w)).collect::<Vec<_>>().join(" "))
        .collect()
}

fn count(classes: &[Vec<(usize, &str)>]) -> PhraseCounts {
    let mut counts = vec![HashMap::new(); classes.len()];
    let mut documents = vec![HashMap::new(); classes.len()];
    let mut surfaces: HashMap<String, HashMap<String, usize>> = HashMap::new();
    for (c, docs) in classes.iter().enumerate() {
        for (doc, text) in docs {
            phrases_of(text, |key, surface| {
                *counts[c].entry(key.clone()).or_insert(0) += 1;
                documents[c].entry(key.clone()).or_insert_with(HashSet::new).insert(*doc);
                *surfaces.entry(key).or_default().entry(surface).or_insert(0) += 1;
            });
        }
    }
    PhraseCounts { counts, documents, surfaces }
}

/// The c-TF-IDF candidates of every class, best first: (phrase key, weight).
fn candidates(
    classes: &[Vec<(usize, &str)>],
    counts: &PhraseCounts,
    limit: usize,
    topic_words: &HashSet<String>,
) -> Vec<Vec<(String, f64)>> {
    let mut total: HashMap<&str, usize> = HashMap::new();
    let mut spread: HashMap<&str, usize> = HashMap::new();
    for class in &counts.counts {
        for (phrase, n) in class {
            *total.entry(phrase).or_insert(0) += n;
            *spread.entry(phrase).or_insert(0) += 1;
        }
    }
    // A phrase found in half the clusters or more (with four or more) distinguishes none of them,
    // and a phrase made only of the topic's own words just repeats the topic.
    let common = |phrase: &str| classes.len() >= 4 && spread[phrase] * 2 >= classes.len();
    let topical = |phrase: &str| phrase.split(' ').all(|w| topic_words.contains(w));
    let sizes: Vec<usize> = counts.counts.iter().map(|c| c.values().sum()).collect();
    let mean = sizes.iter().sum::<usize>() as f64 / sizes.len().max(1) as f64;
    (0..classes.len())
        .map(|c| {
            let papers = classes[c].len();
            let mut scored: Vec<(String, f64)> = counts.counts[c]
                .iter()
                .filter(|(phrase, _)| papers < 3 || counts.documents[c][*phrase].len() >= 2)
                .filter(|(phrase, _)| !common(phrase) && !topical(phrase))
                .map(|(phrase, &n)| {
                    let words = phrase.split(' ').count().clamp(1, 3);
                    let weight = n as f64 / sizes[c].max(1) as f64
                        * (1.0 + mean / total[phrase.as_str()] as f64).ln()
                        * LENGTH_WEIGHT[words - 1];
                    (phrase.clone(), weight)
                })
                .collect();
            scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            scored.truncate(limit);
            scored
        })
        .collect()
}

/// How a phrase should be shown: the casing most used in the papers, or title case when the
/// papers only ever wrote it in lower case.
fn display(key: &str, counts: &PhraseCounts) -> String {
    let best = counts.surfaces.get(key).and_then(|forms| {
        let mut forms: Vec<(&String, &usize)> = forms.iter().collect();
        forms.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        forms.first().map(|(f, _)| (*f).clone())
    });
    let form = best.unwrap_or_else(|| key.to_string());
    if form.chars().any(char::is_uppercase) && form != form.to_uppercase() || form.chars().all(|c| !c.is_lowercase()) {
        // Mixed case as written (e.g. "BERT", "In-Context Learning", "fMRI") is kept.
        if form.chars().next().is_some_and(char::is_lowercase) { capitalize(&form) } else { form }
    } else {
        form.split(' ').map(capitalize).collect::<Vec<_>>().join(" ")
    }
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Key phrases per class, best first, as displayed. Phrases made only of `topic` words are left
/// out.
pub fn key_phrases(
    classes: &[Vec<(usize, &str)>],
    centroids: &[Vec<f32>],
    embed: &dyn Fn(&[String]) -> Vec<Vec<f32>>,
    picks: usize,
    topic: &str,
) -> Vec<Vec<String>> {
    let counts = count(classes);
    let topic_words: HashSet<String> =
        topic.to_lowercase().split(|c: char| !c.is_alphanumeric() && c != '-').map(str::to_string).collect();
    let all = candidates(classes, &counts, 20, &topic_words);
    all.iter()
        .zip(centroids)
        .map(|(candidates, centroid)| {
            if candidates.is_empty() {
                return Vec::new();
            }
            let texts: Vec<String> = candidates.iter().map(|(k, _)| k.clone()).collect();
            let vectors = embed(&texts);
            let (lo, hi) =
                candidates.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (_, w)| (lo.min(*w), hi.max(*w)));
            let score: Vec<f64> = candidates
                .iter()
                .zip(&vectors)
                .map(|((_, w), v)| {
                    let weight = if hi > lo { (w - lo) / (hi - lo) } else { 1.0 };
                    0.7 * weight + 0.3 * f64::from(litnav_core::vector::dot(v, centroid))
                })
                .collect();
            let mut chosen: Vec<usize> = Vec::new();
            while chosen.len() < picks.min(candidates.len()) {
                let next = (0..candidates.len())
                    .filter(|i| !chosen.contains(i))
                    .map(|i| {
                        let redundancy = chosen
                            .iter()
                            .map(|&j| f64::from(litnav_core::vector::dot(&vectors[i], &vectors[j])))
                            .fold(0.0, f64::max);
                        (0.7 * score[i] - 0.3 * redundancy, i)
                    })
                    .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
                match next {
                    Some((_, i)) => chosen.push(i),
                    None => break,
                }
            }
            chosen.into_iter().map(|i| display(&candidates[i].0, &counts)).collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_skip_stop_words_and_punctuation() {
        let mut seen = Vec::new();
        phrases_of("Vision Transformers for dense prediction: a survey", |k, _| seen.push(k));
        assert!(seen.contains(&"vision transformers".to_string()));
        assert!(seen.contains(&"dense prediction".to_string()));
        assert!(!seen.iter().any(|p| p.split(' ').any(|w| w == "for")));
        assert!(!seen.contains(&"prediction survey".to_string()), "no phrase crosses punctuation");
    }

    #[test]
    fn title_phrases_end_in_their_head_word() {
        assert_eq!(
            title_phrases("Efficient Detection of LLM-generated Texts with a Bayesian Surrogate Model"),
            ["Efficient Detection", "LLM-generated Texts", "Bayesian Surrogate Model"]
        );
        assert_eq!(
            title_phrases("In-context retrieval-augmented language models"),
            ["Retrieval-augmented Language Models"]
        );
        assert!(title_phrases("Attention").is_empty());
    }

    #[test]
    fn display_keeps_the_papers_casing() {
        let classes = vec![vec![(0, "BERT pretraining. BERT pretraining helps."), (1, "in-context learning works")]];
        let counts = count(&classes);
        assert_eq!(display("bert pretraining", &counts), "BERT pretraining");
        assert_eq!(display("in-context learning", &counts), "In-context Learning");
    }
}
