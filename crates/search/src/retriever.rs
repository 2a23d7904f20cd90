//! One entry point for the three retrieval modes over a corpus directory.

use crate::hybrid::{Fusion, fuse};
use crate::queries::QueryEncoder;
use crate::{DenseIndex, Filter, Hit, LexicalIndex, Result, SearchQuery};
use litnav_corpus::Corpus;
use litnav_embed::Encoder;
use litnav_embed::cache::{VectorCache, corpus_cache_path};
use std::path::Path;

/// Retrieval mode.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Mode {
    /// BM25 over title and abstract.
    #[default]
    Bm25,
    /// Cosine similarity of MiniLM vectors (exact).
    Dense,
    /// Fusion of the two.
    Hybrid(Fusion),
}

/// Candidates each side contributes to a hybrid ranking (at least k).
pub const HYBRID_CANDIDATES: usize = 100;

/// Pseudo-relevance feedback on the dense side of a hybrid search (Rocchio): the query vector
/// moves towards the centroid of the first ranking's top `documents`, `weight` times its length,
/// and the moved query is fused with the same lexical ranking again.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Feedback {
    /// Top documents of the first ranking taken as relevant.
    pub documents: usize,
    /// Weight of their centroid against the query (both unit vectors).
    pub weight: f32,
}

impl Default for Feedback {
    fn default() -> Self {
        Feedback { documents: 10, weight: 1.0 }
    }
}

/// Lexical and (when dense parts are given) dense retrieval over one corpus.
pub struct Retriever {
    lexical: LexicalIndex,
    dense: Option<(DenseIndex, QueryEncoder)>,
}

impl Retriever {
    /// Open the corpus at `dir`. With an encoder, dense and hybrid modes become available; every
    /// paper must then have a vector in the corpus's vector cache.
    pub fn open(dir: &Path, encoder: Option<Encoder>) -> Result<Retriever> {
        let lexical = LexicalIndex::open_corpus(dir)?;
        let dense = match encoder {
            None => None,
            Some(encoder) => {
                let corpus = Corpus::open(dir)?;
                let cache = VectorCache::open(&corpus_cache_path(dir), encoder.dim())?;
                Some((DenseIndex::from_cache(corpus.papers(), &cache, dir)?, QueryEncoder::new(encoder)))
            }
        };
        Ok(Retriever { lexical, dense })
    }

    /// A retriever over an opened lexical index, and dense parts when given (the paper vectors
    /// and the encoder of queries).
    pub fn from_parts(lexical: LexicalIndex, dense: Option<(DenseIndex, Encoder)>) -> Retriever {
        Retriever { lexical, dense: dense.map(|(index, encoder)| (index, QueryEncoder::new(encoder))) }
    }

    /// The dense index, when the retriever has one.
    pub fn dense_index(&self) -> Option<&DenseIndex> {
        self.dense.as_ref().map(|(index, _)| index)
    }

    /// The lexical index.
    pub fn lexical(&self) -> &LexicalIndex {
        &self.lexical
    }

    /// Rank papers for `query` in `mode`.
    pub fn search(&self, query: &SearchQuery, mode: Mode) -> Result<Vec<Hit>> {
        let filter = Filter { before: query.before, exclude_surveys: query.exclude_surveys };
        match mode {
            Mode::Bm25 => self.lexical.search(query),
            Mode::Dense => Ok(self.dense_search(&query.text, query.k, filter)?),
            Mode::Hybrid(fusion) => {
                let depth = query.k.max(HYBRID_CANDIDATES);
                let lexical = self.lexical_candidates(query, depth)?;
                let dense = self.dense_search(&query.text, depth, filter)?;
                Ok(fuse(&lexical, &dense, fusion, query.k))
            }
        }
    }

    /// A hybrid search with pseudo-relevance feedback on its dense side ([`Feedback`]).
    pub fn search_with_feedback(&self, query: &SearchQuery, fusion: Fusion, feedback: Feedback) -> Result<Vec<Hit>> {
        let filter = Filter { before: query.before, exclude_surveys: query.exclude_surveys };
        let depth = query.k.max(HYBRID_CANDIDATES);
        let lexical = self.lexical_candidates(query, depth)?;
        let (index, queries) = self.dense_parts()?;
        let mut vector = queries.vector(&query.text).to_vec();
        let first = fuse(&lexical, &index.search(&vector, depth, filter), fusion, feedback.documents);
        let top: Vec<&[f32]> = first.iter().filter_map(|h| index.vector_of(&h.id)).collect();
        if !top.is_empty() {
            let centroid = litnav_core::vector::unit_mean(&top);
            vector.iter_mut().zip(&centroid).for_each(|(q, c)| *q += feedback.weight * c);
            litnav_core::vector::normalize(&mut vector);
        }
        Ok(fuse(&lexical, &index.search(&vector, depth, filter), fusion, query.k))
    }

    /// The lexical side of a hybrid search, `depth` deep; a query of only stop words finds
    /// nothing here but still has a dense side.
    fn lexical_candidates(&self, query: &SearchQuery, depth: usize) -> Result<Vec<Hit>> {
        match self.lexical.search(&SearchQuery { k: depth, ..query.clone() }) {
            Ok(hits) => Ok(hits),
            Err(crate::Error::EmptyQuery { .. }) => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    }

    fn dense_parts(&self) -> Result<(&DenseIndex, &QueryEncoder)> {
        self.dense.as_ref().map(|(index, queries)| (index, queries)).ok_or_else(|| {
            crate::Error::Embed(litnav_embed::Error::Model {
                path: Default::default(),
                message: "dense retrieval needs the sentence encoder (open the retriever with one)".into(),
            })
        })
    }

    fn dense_search(&self, text: &str, k: usize, filter: Filter) -> Result<Vec<Hit>> {
        let (index, queries) = self.dense_parts()?;
        Ok(index.search(&queries.vector(text), k, filter))
    }
}
