//! One entry point for the four retrieval modes over a corpus directory.

use crate::dense::VectorSource;
use crate::hybrid::{Fusion, fuse, weighted_reciprocal_rank_fusion};
use crate::ivf::{IvfIndex, IvfOptions};
use crate::queries::QueryEncoder;
use crate::smoothing::{ScoreFloor, Smoothing, above_floor, smooth_by_neighbours};
use crate::{DenseIndex, DenseScan, Filter, Hit, LexicalIndex, Result, SearchQuery};
use litnav_corpus::{Corpus, Lease};
use litnav_embed::Encoder;
use litnav_embed::cache::corpus_cache_path;
use std::path::Path;
use std::path::PathBuf;
use std::sync::OnceLock;

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
    /// A hybrid search with feedback, widened by the neighbours of its best hits ([`Expansion`]).
    Expanded(Expansion),
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

/// Neighbour expansion ("more like these"): the best `seeds` hits of a hybrid search with
/// [`Feedback`] each become a query of their own — their vector on the dense side, their text on
/// the lexical side — and every ranking is fused by weighted reciprocal rank fusion. Seed `i`
/// (from 0) weighs `1 / (1 + decay · i)` in each of its two rankings; the first ranking weighs
/// `first_weight` times the seeds' weights together. The best [`EXPANSION_DEPTH`] (or k) of the
/// fused ranking are then smoothed over their own nearest neighbours ([`Smoothing`]). Without
/// seeds it is the feedback search.
///
/// Why: an expert's references span the topic's subtopics, while a title query finds the papers
/// nearest its own words; papers near any of the best hits cover the subtopics those hits open.
/// The defaults are the best of a 48-setting grid on the litbench surveys, which `litnav bench
/// discovery` also scores held out (leave-one-out over the topics).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Expansion {
    /// Best hits of the first ranking searched again.
    pub seeds: usize,
    /// How fast a seed's weight falls with its rank.
    pub decay: f32,
    /// Weight of the first ranking relative to all seeds' weights together.
    pub first_weight: f32,
    /// The k of the reciprocal rank fusion.
    pub rrf_k: f32,
    /// How the fused scores are smoothed over the ranking's own neighbours.
    pub smoothing: Smoothing,
}

impl Default for Expansion {
    fn default() -> Self {
        Expansion { seeds: 15, decay: 0.3, first_weight: 0.2, rrf_k: 10.0, smoothing: Smoothing::default() }
    }
}

impl Expansion {
    fn seed_weight(&self, rank: usize) -> f32 {
        1.0 / (1.0 + self.decay * rank as f32)
    }
}

/// Depth of every ranking an expanded search fuses (at least k).
pub const EXPANSION_DEPTH: usize = 200;

/// Lexical and (when dense parts are given) dense retrieval over one corpus.
pub struct Retriever {
    lexical: LexicalIndex,
    /// The paper vectors, and the encoder of query texts in their space (none when they come
    /// from a model litnav does not run).
    dense: Option<(DenseIndex, Option<QueryEncoder>)>,
    scan: DenseScan,
    /// Where the IVF index is saved, and the fingerprint of the vectors it must be built from.
    ivf_file: Option<(PathBuf, u64)>,
    ivf: OnceLock<IvfIndex>,
}

impl Retriever {
    /// Open the corpus at `dir`. With an encoder, dense and hybrid modes become available; every
    /// paper must then have a vector in the corpus's vector cache. The lexical index and the
    /// papers come from one generation, leased for as long as the retriever lives, so a re-ingest
    /// meanwhile neither mixes two generations nor deletes the files it reads.
    pub fn open(dir: &Path, encoder: Option<Encoder>) -> Result<Retriever> {
        let Some(encoder) = encoder else {
            let (lease, _) = Lease::acquire(dir)?;
            return Ok(Retriever::new(LexicalIndex::open_leased(lease)?, None));
        };
        let corpus = Corpus::open(dir)?;
        let lexical = LexicalIndex::open_leased(corpus.lease().clone())?;
        let cache = corpus_cache_path(dir);
        let source = VectorSource {
            corpus_dir: dir,
            generation: corpus.manifest().generation,
            model: litnav_embed::MODEL_NAME,
            dim: encoder.dim(),
            cache: &cache,
        };
        // Vectors are computed elsewhere (`litnav embed --corpus`, a session): none here.
        let dense = DenseIndex::open(&corpus, source, |_| Ok::<(), crate::Error>(()))?;
        Ok(Retriever::new(lexical, Some((dense, Some(QueryEncoder::new(encoder))))))
    }

    fn new(lexical: LexicalIndex, dense: Option<(DenseIndex, Option<QueryEncoder>)>) -> Retriever {
        Retriever { lexical, dense, scan: DenseScan::default(), ivf_file: None, ivf: OnceLock::new() }
    }

    /// Scan the vectors as `scan` says; the IVF index is read from (or, when missing, stale or
    /// damaged, built and saved to) `ivf_file` — a path and the [`crate::ivf::fingerprint`] of
    /// the vectors — or built in memory when no file is given.
    pub fn with_scan(mut self, scan: DenseScan, ivf_file: Option<(PathBuf, u64)>) -> Retriever {
        self.scan = scan;
        self.ivf_file = ivf_file;
        self
    }

    /// Whether dense searches go through the IVF index.
    pub fn approximate(&self) -> bool {
        self.dense.as_ref().is_some_and(|(index, _)| self.scan.approximate(index.len()))
    }

    /// The IVF index over the dense vectors (read or built on first use; `None` without dense
    /// parts).
    pub fn ivf(&self) -> Option<&IvfIndex> {
        let (index, _) = self.dense.as_ref()?;
        Some(self.ivf.get_or_init(|| {
            if let Some((path, fingerprint)) = &self.ivf_file
                && let Ok(Some(ivf)) = IvfIndex::read(path, index, *fingerprint)
            {
                return ivf;
            }
            let ivf = IvfIndex::build(index, IvfOptions::for_size(index.len()));
            if let Some((path, fingerprint)) = &self.ivf_file {
                // A file that cannot be written costs a rebuild next time, nothing else.
                let _ = ivf.write(path, *fingerprint);
            }
            ivf
        }))
    }

    /// A retriever over an opened lexical index, and dense parts when given (the paper vectors
    /// and the encoder of queries).
    pub fn from_parts(lexical: LexicalIndex, dense: Option<(DenseIndex, Encoder)>) -> Retriever {
        Retriever::new(lexical, dense.map(|(index, encoder)| (index, Some(QueryEncoder::new(encoder)))))
    }

    /// A retriever over paper vectors whose model litnav cannot run: papers are compared with
    /// papers ([`Retriever::search_like`], floors, smoothing), and a query text only lexically.
    pub fn from_vectors(lexical: LexicalIndex, index: DenseIndex) -> Retriever {
        Retriever::new(lexical, Some((index, None)))
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
        match mode {
            Mode::Bm25 => self.lexical.search(query),
            Mode::Dense => Ok(self.dense_search(query, query.k)?),
            Mode::Hybrid(fusion) => {
                let depth = query.k.max(HYBRID_CANDIDATES);
                let lexical = self.lexical_candidates(query, depth)?;
                let dense = self.dense_search(query, depth)?;
                Ok(fuse(&lexical, &dense, fusion, query.k))
            }
            Mode::Expanded(expansion) => self.search_expanded(query, expansion, &|hit: &Hit| Ok(hit.title.clone())),
        }
    }

    /// The papers nearest paper `id`'s vector under `query`'s filters and scan (its text is not
    /// used), the paper itself left out; `None` when the dense index has no paper `id`.
    pub fn search_like(&self, query: &SearchQuery, id: &str) -> Result<Option<Vec<Hit>>> {
        let index = self.vectors()?;
        let Some(vector) = index.vector_of(id)? else { return Ok(None) };
        let mut hits = self.scan_vectors(query, index, vector, query.k + 1)?;
        hits.retain(|hit| hit.id != id);
        hits.truncate(query.k);
        Ok(Some(hits))
    }

    /// A search expanded by the neighbours of its best hits ([`Expansion`]); `text_of` gives the
    /// text a seed is searched with on the lexical side (its title and abstract where the caller
    /// has them; [`Retriever::search`] uses the title, the only text the index keeps).
    pub fn search_expanded(
        &self,
        query: &SearchQuery,
        expansion: Expansion,
        text_of: &dyn Fn(&Hit) -> litnav_corpus::Result<String>,
    ) -> Result<Vec<Hit>> {
        if expansion.seeds == 0 {
            return self.search_with_feedback(query, Fusion::default(), Feedback::default());
        }
        let depth = query.k.max(EXPANSION_DEPTH);
        let deep = SearchQuery { k: depth, ..query.clone() };
        let first = self.search_with_feedback(&deep, Fusion::default(), Feedback::default())?;
        let (index, _) = self.dense_parts()?;
        let seeds: Vec<Hit> = first.iter().take(expansion.seeds).cloned().collect();
        let seed_weights: f32 = (0..seeds.len()).map(|i| expansion.seed_weight(i)).sum();
        let mut rankings = vec![(expansion.first_weight * seed_weights, first)];
        for (rank, seed) in seeds.iter().enumerate() {
            let weight = expansion.seed_weight(rank);
            if let Some(vector) = index.vector_of(&seed.id)? {
                rankings.push((weight, self.scan_vectors(query, index, vector, depth)?));
            }
            let text = SearchQuery { text: text_of(seed)?, ..deep.clone() };
            rankings.push((weight, self.lexical_candidates(&text, depth)?));
        }
        let weighted: Vec<(f32, &[Hit])> = rankings.iter().map(|(w, hits)| (*w, hits.as_slice())).collect();
        let fused = weighted_reciprocal_rank_fusion(&weighted, expansion.rrf_k, depth);
        let vectors = index.vectors_of(fused.iter().map(|hit| hit.id.as_str()))?;
        let mut smoothed = smooth_by_neighbours(fused, |id| vectors.get(id).copied(), expansion.smoothing);
        smoothed.truncate(query.k);
        Ok(smoothed)
    }

    /// The hits of a ranking (best first) that reach `floor`, judged with their vectors
    /// ([`above_floor`]).
    pub fn above_floor(&self, hits: Vec<Hit>, floor: ScoreFloor) -> Result<Vec<Hit>> {
        if floor.keeps_all() {
            return Ok(hits);
        }
        let index = self.vectors()?;
        let vectors = index.vectors_of(hits.iter().map(|hit| hit.id.as_str()))?;
        Ok(above_floor(hits, |id| vectors.get(id).copied(), floor))
    }

    /// A hybrid search with pseudo-relevance feedback on its dense side ([`Feedback`]).
    pub fn search_with_feedback(&self, query: &SearchQuery, fusion: Fusion, feedback: Feedback) -> Result<Vec<Hit>> {
        let depth = query.k.max(HYBRID_CANDIDATES);
        let lexical = self.lexical_candidates(query, depth)?;
        let (index, queries) = self.dense_parts()?;
        let mut vector = queries.vector(&query.text).to_vec();
        let first = fuse(&lexical, &self.scan_vectors(query, index, &vector, depth)?, fusion, feedback.documents);
        let vectors = index.vectors_of(first.iter().map(|h| h.id.as_str()))?;
        let top: Vec<&[f32]> = first.iter().filter_map(|h| vectors.get(&h.id).copied()).collect();
        if !top.is_empty() {
            let centroid = litnav_core::vector::unit_mean(&top);
            vector.iter_mut().zip(&centroid).for_each(|(q, c)| *q += feedback.weight * c);
            litnav_core::vector::normalize(&mut vector);
        }
        Ok(fuse(&lexical, &self.scan_vectors(query, index, &vector, depth)?, fusion, query.k))
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

    /// Whether a search for `text` would find its query vector ready (false without dense parts).
    pub fn query_is_encoded(&self, text: &str) -> bool {
        self.queries().is_some_and(|queries| queries.is_cached(text))
    }

    /// Encode `text` as a query now (or find it among the recent ones), so that a search for it
    /// that follows does not wait for the encoder.
    pub fn encode_query(&self, text: &str) -> Result<()> {
        let (_, queries) = self.dense_parts()?;
        queries.vector(text);
        Ok(())
    }

    /// The paper vectors and the encoder of query texts.
    fn dense_parts(&self) -> Result<(&DenseIndex, &QueryEncoder)> {
        let index = self.vectors()?;
        let queries = self.queries().ok_or_else(|| {
            no_dense("a query text cannot be encoded: the paper vectors come from a model litnav does not run")
        })?;
        Ok((index, queries))
    }

    /// The paper vectors.
    fn vectors(&self) -> Result<&DenseIndex> {
        self.dense
            .as_ref()
            .map(|(index, _)| index)
            .ok_or_else(|| no_dense("dense retrieval needs the sentence encoder (open the retriever with one)"))
    }

    /// Whether query texts can be encoded in the space of the paper vectors.
    pub fn encodes_queries(&self) -> bool {
        self.queries().is_some()
    }

    /// The encoder of query texts, when the paper vectors are in its space.
    fn queries(&self) -> Option<&QueryEncoder> {
        self.dense.as_ref().and_then(|(_, queries)| queries.as_ref())
    }

    fn dense_search(&self, query: &SearchQuery, k: usize) -> Result<Vec<Hit>> {
        let (index, queries) = self.dense_parts()?;
        self.scan_vectors(query, index, &queries.vector(&query.text), k)
    }

    /// The top k of the dense vectors for a query vector under `query`'s filters, exact or
    /// through the IVF index as `query.scan` (or else the retriever's scan) says.
    fn scan_vectors(&self, query: &SearchQuery, index: &DenseIndex, vector: &[f32], k: usize) -> Result<Vec<Hit>> {
        let filter = Filter { before: query.before, exclude_surveys: query.exclude_surveys };
        if query.scan.unwrap_or(self.scan).approximate(index.len())
            && let Some(ivf) = self.ivf()
        {
            return ivf.search(index, vector, k, filter);
        }
        index.search(vector, k, filter)
    }
}

fn no_dense(message: &str) -> crate::Error {
    crate::Error::Embed(litnav_embed::Error::Model { path: Default::default(), message: message.into() })
}
