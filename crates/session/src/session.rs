//! A corpus session: one corpus read once and kept — its papers with an id index, its lexical
//! index, and, when first needed, its paper vectors (dense retrieval, maps) and its citation graph
//! (relations). A session leases the generation it opened, so everything it reads comes from that
//! one generation even while the corpus is re-ingested; a new session sees the new one.

use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::supplied::VectorsModel;
use crate::workspace::{CacheFill, Workspace, fill_vectors};
use litnav_corpus::{Corpus, Paper, Topic};
use litnav_embed::Encoder;
use litnav_embed::cache::{VectorCache, corpus_cache_path, model_cache_path};
use litnav_graph::contexts::CitationContext;
use litnav_graph::{Graph, Node, store as graph_store};
use litnav_organize::Doc;
use litnav_search::{
    DenseIndex, DenseScan, Expansion, Filter, Hit, LexicalIndex, Mode, Retriever, ScoreFloor, SearchQuery,
    VectorSource, lexical,
};
use std::any::Any;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// A search as the faces ask for it.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRequest {
    /// Plain words.
    pub query: String,
    /// How many hits.
    pub k: usize,
    /// Retrieval mode.
    pub mode: Mode,
    /// Leakage filters.
    pub filter: Filter,
    /// Weight of title matches (BM25).
    pub title_boost: f32,
    /// Weight of abstract matches (BM25).
    pub abstract_boost: f32,
    /// How the dense side scans the vectors (default: as the session was opened to).
    pub scan: Option<DenseScan>,
    /// Rank the papers nearest this paper's vector (its id) instead: the query's words and the
    /// mode are not used, the filters and `k` are.
    pub like: Option<String>,
}

impl SearchRequest {
    /// A search for `query` with the defaults — the lexical query's (`SearchQuery::new`: how many
    /// papers, boosts, no filters) in the expanded mode (the best measured: hybrid with feedback,
    /// widened by the neighbours of its best hits). Every face's defaults are these.
    pub fn new(query: impl Into<String>) -> SearchRequest {
        let query = SearchQuery::new(query);
        SearchRequest {
            k: query.k,
            mode: Mode::Expanded(Expansion::default()),
            filter: Filter { before: query.before, exclude_surveys: query.exclude_surveys },
            title_boost: query.title_boost,
            abstract_boost: query.abstract_boost,
            scan: query.scan,
            query: query.text,
            like: None,
        }
    }

    fn to_query(&self) -> SearchQuery {
        SearchQuery {
            k: self.k,
            before: self.filter.before,
            exclude_surveys: self.filter.exclude_surveys,
            title_boost: self.title_boost,
            abstract_boost: self.abstract_boost,
            scan: self.scan,
            ..SearchQuery::new(self.query.clone())
        }
    }
}

/// Where a generation's IVF index is saved (beside the vector cache it is built from).
fn ivf_path(corpus_dir: &Path, generation: u64) -> PathBuf {
    corpus_dir.join("vectors").join(format!("ivf-{}-g{generation}.bin", litnav_embed::MODEL_NAME))
}

/// Remove the IVF indexes of generations before `current` (a session still on one keeps its index
/// in memory; a new session reads the current generation's).
fn remove_older_ivf_files(corpus_dir: &Path, current: u64) {
    let prefix = format!("ivf-{}-g", litnav_embed::MODEL_NAME);
    litnav_search::dense::remove_older_generations(&corpus_dir.join("vectors"), &prefix, ".bin", current);
}

/// A corpus's citation graph and the citation contexts kept with it.
pub struct Citations {
    /// The graph.
    pub graph: Graph,
    /// Citation contexts (citing paper, cited paper, paragraph, text, sentiment).
    pub contexts: Vec<CitationContext>,
}

/// One corpus, opened once.
pub struct CorpusSession {
    dir: PathBuf,
    corpus: Corpus,
    lexical: Retriever,
    dense: OnceLock<Retriever>,
    dense_lock: Mutex<()>,
    scan: DenseScan,
    citations: OnceLock<Citations>,
    /// Values other modules compute from the whole corpus and keep for the session (every
    /// paper's disruption, say), by key; typed by their owners (see [`CorpusSession::kept`]).
    kept: Mutex<HashMap<String, Arc<dyn Any + Send + Sync>>>,
    /// Sentiments an LLM gave to mentions without one, by the mention's place among the
    /// corpus's contexts: kept for the session (a server's generation), so a classification is
    /// paid for once.
    pub(crate) judged_sentiments: Mutex<HashMap<usize, litnav_core::Sentiment>>,
    /// What encoding the papers the vector cache lacked did, and its seconds, when the dense
    /// index had to (`litnav embed --corpus` reports it).
    filled: Mutex<Option<(CacheFill, f64)>>,
}

impl CorpusSession {
    /// Open the corpus at `dir`: its records and lexical index (the rest loads on first use).
    pub fn open(dir: &Path) -> Result<CorpusSession> {
        let corpus = Corpus::open(dir)?;
        let lexical = LexicalIndex::open(&corpus.generation_dir().join(lexical::ARTIFACT))?;
        Ok(CorpusSession {
            dir: dir.to_path_buf(),
            corpus,
            lexical: Retriever::from_parts(lexical, None),
            dense: OnceLock::new(),
            dense_lock: Mutex::new(()),
            scan: DenseScan::default(),
            citations: OnceLock::new(),
            kept: Mutex::new(HashMap::new()),
            judged_sentiments: Mutex::new(HashMap::new()),
            filled: Mutex::new(None),
        })
    }

    /// Scan paper vectors as `scan` says in dense and hybrid searches and maps (default: exact
    /// below [`litnav_search::APPROXIMATE_ABOVE`] papers, the IVF index from there on).
    pub fn with_scan(mut self, scan: DenseScan) -> CorpusSession {
        self.scan = scan;
        self
    }

    /// The corpus directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The corpus as read.
    pub fn corpus(&self) -> &Corpus {
        &self.corpus
    }

    /// Every paper in ingest order, read from disk on the first call and kept for the session:
    /// for the commands that need them all. Others ask for papers by id ([`CorpusSession::paper`]).
    pub fn papers(&self) -> Result<&[Paper]> {
        Ok(self.corpus.papers()?)
    }

    /// Number of papers.
    pub fn len(&self) -> usize {
        self.corpus.len()
    }

    /// True when the corpus holds no paper.
    pub fn is_empty(&self) -> bool {
        self.corpus.is_empty()
    }

    /// Topics (expert surveys) in ingest order.
    pub fn topics(&self) -> &[Topic] {
        self.corpus.topics()
    }

    /// The paper with this id, if the corpus holds it (read from disk once, then kept).
    pub fn paper(&self, id: &str) -> Result<Option<&Paper>> {
        Ok(self.corpus.paper(id)?)
    }

    /// The paper with this id, or an error naming the corpus.
    pub fn require(&self, id: &str) -> Result<&Paper> {
        self.paper(id)?.ok_or_else(|| Error::not_found(format!("no paper with id `{id}` in {}", self.dir.display())))
    }

    /// The papers among `ids` the corpus holds, in the order given (unknown ids skipped).
    pub fn papers_of<I: IntoIterator>(&self, ids: I) -> Result<Vec<&Paper>>
    where
        I::Item: AsRef<str>,
    {
        ids.into_iter().filter_map(|id| self.paper(id.as_ref()).transpose()).collect()
    }

    /// The stored topic with this id or title (case-insensitive).
    pub fn topic(&self, id_or_title: &str) -> Option<&Topic> {
        self.topics().iter().find(|t| t.id == id_or_title || t.title.eq_ignore_ascii_case(id_or_title))
    }

    /// Rank papers for a request. Dense and hybrid modes compute missing paper vectors first.
    pub fn search(&self, request: &SearchRequest, encoder: &Encoder, progress: &dyn Progress) -> Result<Vec<Hit>> {
        let retriever = match request.mode {
            Mode::Bm25 => &self.lexical,
            _ => self.dense(encoder, progress)?,
        };
        if !retriever.encodes_queries() && !matches!(request.mode, Mode::Bm25) {
            progress.notice(&format!(
                "this corpus's paper vectors come from {}, which litnav does not run, so a query text cannot be placed among them: searched lexically (BM25)",
                self.vectors_model()?.model
            ));
            return self.search_lexical(request);
        }
        if let Mode::Expanded(expansion) = request.mode {
            let text_of = |hit: &Hit| self.seed_text(hit);
            return Ok(retriever.search_expanded(&request.to_query(), expansion, &text_of)?);
        }
        Ok(retriever.search(&request.to_query(), request.mode)?)
    }

    /// Answer `request` in its mode: BM25 from the lexical index alone (no encoder loaded), every
    /// other mode with the workspace's encoder; the paper the query names, if it names one (its
    /// id, DOI, OpenAlex or arXiv id, its title: [`crate::known`]), first.
    pub fn answer(&self, request: &SearchRequest, workspace: &Workspace, progress: &dyn Progress) -> Result<Vec<Hit>> {
        self.answer_with(request, || workspace.encoder(progress), progress)
    }

    /// [`CorpusSession::answer`] with the encoder from `encoder`, called only when the mode needs
    /// one (the server encodes a new query there, without holding a turn of the cores).
    pub fn answer_with<'e>(
        &self,
        request: &SearchRequest,
        encoder: impl FnOnce() -> Result<&'e Encoder>,
        progress: &dyn Progress,
    ) -> Result<Vec<Hit>> {
        if let Some(id) = &request.like {
            return self.search_like(request, id, encoder()?, progress);
        }
        let hits = match request.mode {
            Mode::Bm25 => self.search_lexical(request),
            _ => self.search(request, encoder()?, progress),
        }?;
        self.known_first(request, hits)
    }

    /// The papers nearest paper `id`'s vector (`litnav search --like ID`), under the request's
    /// filters and `k`.
    fn search_like(
        &self,
        request: &SearchRequest,
        id: &str,
        encoder: &Encoder,
        progress: &dyn Progress,
    ) -> Result<Vec<Hit>> {
        self.require(id)?;
        let retriever = self.dense(encoder, progress)?;
        retriever
            .search_like(&request.to_query(), id)?
            .ok_or_else(|| Error::internal(format!("paper `{id}` has no vector in the dense index")))
    }

    /// Whether a search would start without waiting for the encoder: BM25, or its query vector is
    /// among the recent ones (false before the dense index is loaded).
    pub fn query_is_encoded(&self, request: &SearchRequest) -> bool {
        if request.like.is_some() {
            return self.dense.get().is_some();
        }
        matches!(request.mode, Mode::Bm25)
            || self.dense.get().is_some_and(|retriever| retriever.query_is_encoded(&request.query))
    }

    /// Encode a search's words as a query vector now (dense, hybrid and expanded searches find it
    /// ready); nothing for BM25.
    pub fn encode_query(&self, request: &SearchRequest, encoder: &Encoder, progress: &dyn Progress) -> Result<()> {
        if request.like.is_some() {
            return self.dense(encoder, progress).map(|_| ());
        }
        if matches!(request.mode, Mode::Bm25) {
            return Ok(());
        }
        Ok(self.dense(encoder, progress)?.encode_query(&request.query)?)
    }

    /// The text an expanded search queries a seed with on the lexical side: the paper's title and
    /// abstract (the lexical index keeps only titles).
    pub fn seed_text(&self, hit: &Hit) -> litnav_corpus::Result<String> {
        Ok(self.corpus.paper(&hit.id)?.map_or_else(|| hit.title.clone(), Paper::text))
    }

    /// Lexical search only (no encoder needed).
    pub fn search_lexical(&self, request: &SearchRequest) -> Result<Vec<Hit>> {
        Ok(self.lexical.search(&request.to_query(), Mode::Bm25)?)
    }

    /// Whether dense search is loaded (every paper's vector read or computed): a search in a
    /// mode that needs vectors then starts at once.
    pub fn dense_ready(&self) -> bool {
        self.dense.get().is_some()
    }

    /// The retriever with dense parts: every paper's vector, computed now where missing (the vector
    /// cache lives beside the generations and is shared with other processes).
    pub fn dense(&self, encoder: &Encoder, progress: &dyn Progress) -> Result<&Retriever> {
        if let Some(retriever) = self.dense.get() {
            return Ok(retriever);
        }
        let _one_at_a_time = self.dense_lock.lock().map_err(|_| Error::internal("a dense index build panicked"))?;
        if let Some(retriever) = self.dense.get() {
            return Ok(retriever);
        }
        let generation = self.corpus.manifest().generation;
        let model = self.vectors_model()?;
        let cache = model_cache_path(&self.dir, &model.model);
        let source =
            VectorSource { corpus_dir: &self.dir, generation, model: &model.model, dim: model.dim, cache: &cache };
        let index = if model.is_local() {
            DenseIndex::open(&self.corpus, source, |_missing| -> Result<()> {
                let started = std::time::Instant::now();
                let mut cache = VectorCache::open(&cache, encoder.dim())?;
                let fill = fill_vectors(encoder, &mut cache, self.papers()?, progress)?;
                let seconds = started.elapsed().as_secs_f64();
                *self.filled.lock().map_err(|_| Error::internal("a dense index build panicked"))? =
                    Some((fill, seconds));
                progress.stage("writing the paper vectors in corpus order");
                Ok(())
            })?
        } else {
            // Vectors of a model litnav does not run come only from --vectors.
            DenseIndex::open(&self.corpus, source, |missing| -> Result<()> {
                Err(Error::input(format!(
                    "{missing} of {} papers in {} have no vector of {}: ingest them with --vectors FILE --vectors-model {}",
                    self.len(),
                    self.dir.display(),
                    model.model,
                    model.model
                )))
            })?
        };
        let ivf_file = (ivf_path(&self.dir, generation), litnav_search::ivf::fingerprint(&index, generation)?);
        let retriever = if model.is_local() {
            Retriever::from_parts(self.lexical.lexical().clone(), Some((index, encoder.clone())))
        } else {
            Retriever::from_vectors(self.lexical.lexical().clone(), index)
        }
        .with_scan(self.scan, Some(ivf_file));
        if retriever.approximate() {
            progress.stage("approximate index of the paper vectors (IVF)");
            retriever.ivf();
            remove_older_ivf_files(&self.dir, generation);
        }
        Ok(self.dense.get_or_init(|| retriever))
    }

    /// Make dense search ready: every paper's vector, its rows file, and — when this session's
    /// scan searches approximately — the IVF index, built and saved now if missing; its file then.
    pub fn prepare_dense(&self, encoder: &Encoder, progress: &dyn Progress) -> Result<Option<PathBuf>> {
        let retriever = self.dense(encoder, progress)?;
        Ok(retriever.approximate().then(|| ivf_path(&self.dir, self.corpus.manifest().generation)))
    }

    /// The model this corpus's paper vectors come from ([`VectorsModel::of`]).
    pub fn vectors_model(&self) -> Result<VectorsModel> {
        VectorsModel::of(&self.dir)
    }

    /// The papers with these ids as documents to organize, with their vectors (in this order;
    /// unknown ids skipped). Maps compare papers with their topic's words, so the vectors must
    /// be of a model litnav runs.
    pub fn docs(&self, ids: &[String], encoder: &Encoder, progress: &dyn Progress) -> Result<Vec<Doc>> {
        let retriever = self.dense(encoder, progress)?;
        if !retriever.encodes_queries() {
            return Err(Error::input(format!(
                "maps place papers and their topic's words in one space, and this corpus's vectors come from {}, which litnav does not run: ingest {} vectors (--vectors-model {}) or use search --like",
                self.vectors_model()?.model,
                litnav_embed::MODEL_NAME,
                litnav_embed::MODEL_NAME
            )));
        }
        let index = retriever.dense_index().ok_or_else(|| Error::internal("no dense index"))?;
        let mut docs = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(position) = self.corpus.position(id)? {
                docs.push(Doc::from_paper(self.corpus.paper_at(position)?, index.vector(position).to_vec()));
            }
        }
        Ok(docs)
    }

    /// A query's top-k hits by the default retrieval ([`SearchRequest::new`]) under `filter`.
    pub fn retrieve(
        &self,
        query: &str,
        k: usize,
        filter: Filter,
        encoder: &Encoder,
        progress: &dyn Progress,
    ) -> Result<Vec<Hit>> {
        self.search(&SearchRequest { k, filter, ..SearchRequest::new(query) }, encoder, progress)
    }

    /// The hits of a ranking (best first) that reach `floor` ([`litnav_search::smoothing::above_floor`]).
    pub fn above_floor(
        &self,
        hits: Vec<Hit>,
        floor: ScoreFloor,
        encoder: &Encoder,
        progress: &dyn Progress,
    ) -> Result<Vec<Hit>> {
        if floor.keeps_all() {
            return Ok(hits);
        }
        Ok(self.dense(encoder, progress)?.above_floor(hits, floor)?)
    }

    /// The citation graph and contexts of the session's generation, loaded on first use.
    pub fn citations(&self) -> Result<&Citations> {
        if let Some(citations) = self.citations.get() {
            return Ok(citations);
        }
        let artifact = self.corpus.generation_dir().join(graph_store::ARTIFACT);
        let citations = if self.corpus.manifest().artifacts.iter().any(|a| a == graph_store::ARTIFACT) {
            Citations { graph: graph_store::load(&artifact)?, contexts: graph_store::load_contexts(&artifact)? }
        } else {
            // A corpus written before graphs were saved.
            Citations { graph: Graph::from_papers(self.papers()?), contexts: Vec::new() }
        };
        Ok(self.citations.get_or_init(|| citations))
    }

    /// The graph node of a paper id, or an error naming the corpus.
    pub fn node(&self, id: &str) -> Result<Node> {
        self.citations()?
            .graph
            .find(id)
            .ok_or_else(|| Error::not_found(format!("no paper with id `{id}` in {}", self.dir.display())))
    }
}

impl CorpusSession {
    /// The value kept under `key` (see [`CorpusSession::keep`]), when there is one of type `T`.
    pub(crate) fn kept<T: Any + Send + Sync>(&self, key: &str) -> Result<Option<Arc<T>>> {
        let kept = self.kept.lock().map_err(|_| Error::internal("a session's cache was poisoned"))?;
        Ok(kept.get(key).cloned().and_then(|value| value.downcast::<T>().ok()))
    }

    /// Keep `value` under `key` for as long as the session lives.
    pub(crate) fn keep<T: Any + Send + Sync>(&self, key: String, value: Arc<T>) -> Result<()> {
        let mut kept = self.kept.lock().map_err(|_| Error::internal("a session's cache was poisoned"))?;
        kept.insert(key, value);
        Ok(())
    }
}

/// What computing a corpus's vectors did (`litnav embed --corpus`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct EmbedReport {
    /// The corpus.
    pub corpus: PathBuf,
    /// Its vector cache.
    pub cache: PathBuf,
    /// Papers.
    pub papers: usize,
    /// Papers whose vectors were already in the cache.
    pub already_cached: usize,
    /// Papers encoded now.
    pub encoded: usize,
    /// Seconds encoding took.
    pub seconds: f64,
    /// Papers encoded per second.
    pub papers_per_second: f64,
    /// The approximate (IVF) index, when the scan uses one.
    pub ivf: Option<PathBuf>,
}

impl std::fmt::Display for EmbedReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{} papers: {} already had vectors, {} encoded in {:.1} s ({:.0}/s); vectors in {}",
            self.papers,
            self.already_cached,
            self.encoded,
            self.seconds,
            self.papers_per_second,
            self.cache.display()
        )?;
        if let Some(ivf) = &self.ivf {
            writeln!(f, "approximate index (IVF) in {}", ivf.display())?;
        }
        Ok(())
    }
}

impl Workspace {
    /// Compute and store the vector of every paper of the corpus in `dir` that has none (resumable),
    /// and the approximate index when `scan` uses one, so the first search waits for neither.
    pub fn embed_corpus(&self, dir: &Path, scan: DenseScan, progress: &dyn Progress) -> Result<EmbedReport> {
        let encoder = self.encoder(progress)?;
        let session = self.open(Some(dir), progress)?.with_scan(scan);
        let ivf = session.prepare_dense(encoder, progress)?;
        // Nothing encoded when every vector was found (in the rows file or the cache).
        let papers = session.len();
        let (fill, seconds) = session
            .filled
            .lock()
            .map_err(|_| Error::internal("a dense index build panicked"))?
            .take()
            .unwrap_or((CacheFill { texts: papers, cached: papers, encoded: 0 }, 0.0));
        Ok(EmbedReport {
            corpus: dir.to_path_buf(),
            cache: corpus_cache_path(dir),
            papers: fill.texts,
            already_cached: fill.cached,
            encoded: fill.encoded,
            seconds,
            papers_per_second: if seconds > 0.0 { fill.encoded as f64 / seconds } else { 0.0 },
            ivf,
        })
    }

    /// Open a session on a corpus (see [`Workspace::corpus_dir`]).
    pub fn open(&self, given: Option<&Path>, progress: &dyn Progress) -> Result<CorpusSession> {
        let dir = self.corpus_dir(given, progress)?;
        CorpusSession::open(&dir)
    }
}
