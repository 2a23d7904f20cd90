//! Label similarities for the hierarchy metrics: TaxoBench's (clipped cosine of all-MiniLM-L6-v2
//! vectors, tabulated once per file pair) and a string similarity that needs no model.

use litnav_embed::Encoder;
use litnav_eval::taxobench::Reading;
use litnav_eval::tree::{LabelSimilarity, Tree, normalize_title};
use std::collections::HashMap;
use std::path::Path;

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
pub struct Textual;

impl LabelSimilarity for Textual {
    fn similarity(&self, a: &str, b: &str) -> f64 {
        litnav_eval::difflib::ratio(&normalize_title(a), &normalize_title(b))
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
        workspace: &crate::Workspace,
        trees: &[&Tree],
        progress: &dyn crate::Progress,
    ) -> crate::Result<Box<dyn LabelSimilarity>> {
        Ok(match self {
            Kind::String => Box::new(Textual),
            Kind::Public => Box::new(litnav_eval::taxobench::public::label_similarity),
            Kind::Embedding => {
                let cache = workspace.settings().vector_cache("labels");
                Box::new(Embedded::new(workspace.encoder(progress)?, trees, &cache))
            }
        })
    }
}
