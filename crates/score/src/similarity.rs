//! Label similarities for the hierarchy metrics: TaxoBench's (clipped cosine of all-MiniLM-L6-v2
//! vectors, tabulated once per file pair) and a string similarity that needs no model.

use litnav_embed::Encoder;
use litnav_eval::taxobench::Reading;
use litnav_eval::taxobench::Title;
use litnav_eval::tree::{LabelSimilarity, Tree};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

/// Label similarity from embeddings, `max(0, cos)`, precomputed for every pair of labels.
pub struct Embedded {
    index: HashMap<String, usize>,
    similarities: Vec<f64>,
}

impl Embedded {
    /// Embed every label of `trees` once (vectors come from, and go to, the label cache at
    /// `cache` when it can be opened), and tabulate all pairwise similarities.
    pub fn new(encoder: &Encoder, trees: &[&Tree], cache: &Path) -> Embedded {
        let mut labels: Vec<&str> = trees.iter().flat_map(|t| t.labels()).collect();
        labels.sort_unstable();
        labels.dedup();
        let vectors = litnav_embed::embed_cached(encoder, &labels, cache);
        let n = labels.len();
        let mut similarities = vec![0.0; n * n];
        for i in 0..n {
            for j in i..n {
                let s = f64::from(litnav_core::vector::cosine(&vectors[i], &vectors[j])).max(0.0);
                similarities[i * n + j] = s;
                similarities[j * n + i] = s;
            }
        }
        Embedded { index: labels.into_iter().enumerate().map(|(i, l)| (l.to_string(), i)).collect(), similarities }
    }
}

impl LabelSimilarity for Embedded {
    fn similarity(&self, a: &str, b: &str) -> f64 {
        match (self.index.get(a), self.index.get(b)) {
            (Some(&i), Some(&j)) => self.similarities[i * self.index.len() + j],
            _ => 0.0,
        }
    }
}

/// Label similarity without a model: difflib ratio of normalized labels. Not TaxoBench's
/// definition; outputs computed with it are labelled as such.
pub fn textual(a: &Title, b: &Title) -> f64 {
    litnav_eval::difflib::sequence_ratio(a.sequence(), b.sequence())
}

/// A string similarity computed at most once per ordered pair of labels: the hierarchy metrics
/// ask for the same pairs many times (US-TED twice over every node pair, soft cardinalities,
/// Sem-Path's chains), and a ratio costs far more than a lookup. Each distinct label is
/// normalized and read for difflib once, when the table is made.
pub struct Memoized {
    rule: fn(&Title, &Title) -> f64,
    index: FoldMap<String, u32>,
    titles: Vec<Title>,
    known: Mutex<FoldMap<(u32, u32), f64>>,
}

type FoldMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

impl Memoized {
    /// `rule` over the labels of `trees`.
    pub fn new(rule: fn(&Title, &Title) -> f64, trees: &[&Tree]) -> Memoized {
        let mut index = FoldMap::default();
        let mut titles = Vec::new();
        for label in trees.iter().flat_map(|t| t.labels()) {
            index.entry(label.to_string()).or_insert_with(|| {
                titles.push(Title::new(label));
                titles.len() as u32 - 1
            });
        }
        Memoized { rule, index, titles, known: Mutex::new(FoldMap::default()) }
    }
}

impl LabelSimilarity for Memoized {
    fn similarity(&self, a: &str, b: &str) -> f64 {
        let (Some(&i), Some(&j)) = (self.index.get(a), self.index.get(b)) else {
            return (self.rule)(&Title::new(a), &Title::new(b));
        };
        let mut known = self.known.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        *known.entry((i, j)).or_insert_with(|| (self.rule)(&self.titles[i as usize], &self.titles[j as usize]))
    }
}

/// Which label similarity the hierarchy metrics use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `max(0, cos)` of all-MiniLM-L6-v2 vectors: TaxoBench's definition.
    Embedding,
    /// difflib's ratio of normalized labels: no model needed, not comparable to published numbers.
    String,
    /// The public `taxobench` package's title similarity (normalized labels, containment → 1, else
    /// difflib's ratio), with its readings of every metric it reports ([`Reading::Public`]).
    Public,
}

impl Kind {
    /// The name reports carry.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Embedding => "embedding:all-MiniLM-L6-v2",
            Kind::String => "string:difflib-ratio",
            Kind::Public => "public:taxobench-package",
        }
    }

    /// Whose readings of TaxoBench's metrics go with this similarity.
    pub fn reading(self) -> Reading {
        match self {
            Kind::Public => Reading::Public,
            Kind::Embedding | Kind::String => Reading::Seed,
        }
    }

    /// The similarity over the labels of `trees` (the encoder is loaded only for embeddings).
    pub fn build(
        self,
        workspace: &litnav_session::Workspace,
        trees: &[&Tree],
        progress: &dyn litnav_session::Progress,
    ) -> litnav_session::Result<Box<dyn LabelSimilarity>> {
        Ok(match self {
            Kind::String => Box::new(Memoized::new(textual, trees)),
            Kind::Public => Box::new(Memoized::new(litnav_eval::taxobench::title_similarity, trees)),
            Kind::Embedding => {
                let cache = workspace.settings().vector_cache("labels");
                Box::new(Embedded::new(workspace.encoder(progress)?, trees, &cache))
            }
        })
    }
}
