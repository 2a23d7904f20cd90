//! Exact dense retrieval: cosine similarity between a query vector and every paper vector
//! (vectors are unit length, so cosine is the dot product), top-k by a partial selection.

use crate::{Error, Filter, Hit, Result};
use litnav_core::vector::dot;
use litnav_corpus::Paper;
use litnav_embed::MODEL_NAME;
use litnav_embed::cache::VectorCache;
use std::path::Path;

/// What dense retrieval needs to know about a paper besides its vector.
#[derive(Debug, Clone)]
pub struct DocMeta {
    /// Corpus id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Year.
    pub year: Option<i32>,
    /// Survey flag.
    pub is_survey: bool,
}

/// Paper vectors in corpus order, with their metadata.
pub struct DenseIndex {
    docs: Vec<DocMeta>,
    vectors: Vec<f32>,
    dim: usize,
    rows: std::collections::HashMap<String, usize>,
}

impl DenseIndex {
    /// Gather every paper's vector (title + abstract, see `Paper::text`) from `cache`. Fails with
    /// a count of missing vectors and the command that computes them.
    pub fn from_cache(papers: &[Paper], cache: &VectorCache, corpus_dir: &Path) -> Result<DenseIndex> {
        let mut vectors = Vec::new();
        let mut docs = Vec::with_capacity(papers.len());
        let mut missing = 0;
        let mut dim = 0;
        for paper in papers {
            match cache.get(&VectorCache::key(MODEL_NAME, &paper.text())) {
                Some(vector) => {
                    dim = vector.len();
                    vectors.extend_from_slice(vector);
                    docs.push(DocMeta {
                        id: paper.id.clone(),
                        title: paper.title.clone(),
                        year: paper.year,
                        is_survey: paper.is_survey,
                    });
                }
                None => missing += 1,
            }
        }
        if missing > 0 {
            return Err(Error::MissingVectors { dir: corpus_dir.to_path_buf(), missing, papers: papers.len() });
        }
        Ok(DenseIndex::from_parts(docs, vectors, dim))
    }

    /// An index over given metadata and row-major vectors (`docs.len() × dim`).
    pub fn from_parts(docs: Vec<DocMeta>, vectors: Vec<f32>, dim: usize) -> DenseIndex {
        assert_eq!(docs.len() * dim, vectors.len(), "one vector per document");
        let rows = docs.iter().enumerate().map(|(i, d)| (d.id.clone(), i)).collect();
        DenseIndex { docs, vectors, dim, rows }
    }

    /// Number of papers.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Vector dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The vector of document `i`.
    pub fn vector(&self, i: usize) -> &[f32] {
        &self.vectors[i * self.dim..(i + 1) * self.dim]
    }

    /// The vector of the document with this corpus id.
    pub fn vector_of(&self, id: &str) -> Option<&[f32]> {
        self.rows.get(id).map(|&i| self.vector(i))
    }

    /// Metadata of document `i`.
    pub fn doc(&self, i: usize) -> &DocMeta {
        &self.docs[i]
    }

    /// Exact top-k documents for a unit query vector, filtered; ties broken by id.
    pub fn search(&self, query: &[f32], k: usize, filter: Filter) -> Vec<Hit> {
        let candidates = (0..self.docs.len()).filter(|&i| self.admits(i, filter));
        let scored: Vec<(f32, usize)> = candidates.map(|i| (dot(query, self.vector(i)), i)).collect();
        self.top_k(scored, k)
    }

    /// Whether document `i` passes the filter.
    pub fn admits(&self, i: usize, filter: Filter) -> bool {
        let doc = &self.docs[i];
        filter.admits(doc.year, doc.is_survey)
    }

    /// The best `k` of scored documents as hits, by score then id.
    pub fn top_k(&self, mut scored: Vec<(f32, usize)>, k: usize) -> Vec<Hit> {
        let order = |a: &(f32, usize), b: &(f32, usize)| {
            b.0.total_cmp(&a.0).then_with(|| self.docs[a.1].id.cmp(&self.docs[b.1].id))
        };
        if k < scored.len() {
            scored.select_nth_unstable_by(k, order);
            scored.truncate(k);
        }
        scored.sort_by(order);
        scored
            .into_iter()
            .map(|(score, i)| {
                let doc = &self.docs[i];
                Hit { id: doc.id.clone(), title: doc.title.clone(), year: doc.year, score }
            })
            .collect()
    }
}
