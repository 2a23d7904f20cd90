//! BM25 over title and abstract, built on tantivy.
//!
//! Choices, and why:
//! - **Analyzer** (`litnav_en`, see [`crate::analyzer`]): split on non-alphanumerics, drop tokens
//!   over 40 bytes, lowercase, fold accents to ASCII, remove English stop words, Snowball English
//!   stemming. Queries go through the same analyzer.
//! - **Scoring**: tantivy's BM25 (k1 = 1.2, b = 0.75) per field, summed over fields with boosts
//!   (1.0 and 1.0 by default; BM25's length normalization already makes a short title's match
//!   weigh more). Measured on litbench's 19 discovery topics, mean Recall@100 is 0.435 at title
//!   boost 1.0, 0.436 at 0.75 and 1.25, 0.432 at 0.5 and 0.419 at 2.0. The
//!   query is a bag of words (each distinct analyzed term once, OR semantics), never parsed as
//!   query syntax, so titles such as "Domain Generalization: A Survey" search as written.
//! - **Determinism**: hits are ordered by score, then id. Indexing threads spread documents over
//!   segments in an order that varies between builds, and BM25 statistics are index-wide, so scores
//!   do not depend on it; the one thing that could is which of several equally scored papers makes
//!   the top k. The search therefore widens its candidate window until every paper tied with the
//!   k-th is inside it, and breaks the tie by id: same corpus and query, same ranking.
//! - **Filters**: `before: Some(y)` keeps papers with a known year `< y` (papers of unknown year
//!   cannot be shown to precede the cut-off, so they are excluded); `exclude_surveys` drops papers
//!   flagged `is_survey`.

use crate::{Error, Hit, Result};
use litnav_corpus::{Lease, PaperScan};
use std::collections::HashSet;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::{
    Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TantivyDocument, TextFieldIndexing, TextOptions, Value,
};
use tantivy::{Index, IndexReader, ReloadPolicy, Term, doc};

/// Name of the artifact (subdirectory of a corpus generation) holding the index.
pub const ARTIFACT: &str = "lexical";
const ANALYZER: &str = "litnav_en";

/// Index-building knobs.
#[derive(Debug, Clone, Copy)]
pub struct BuildOptions {
    /// Indexing memory budget in bytes, shared by the threads (tantivy flushes a segment when a
    /// thread's share is full).
    pub memory_budget: usize,
    /// Indexing threads.
    pub threads: usize,
}

impl Default for BuildOptions {
    /// 512 MiB and one thread per core, at most four.
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        BuildOptions { memory_budget: 512 << 20, threads: cores.clamp(1, 4) }
    }
}

/// What building an index measured.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct BuildStats {
    /// Documents indexed.
    pub documents: usize,
    /// Wall-clock seconds for adding, committing and merging.
    pub seconds: f64,
}

/// A query with its options.
#[derive(Debug, Clone)]
pub struct SearchQuery {
    /// Free text.
    pub text: String,
    /// How many hits to return.
    pub k: usize,
    /// Keep only papers published strictly before this year.
    pub before: Option<i32>,
    /// Drop surveys.
    pub exclude_surveys: bool,
    /// Weight of title matches.
    pub title_boost: f32,
    /// Weight of abstract matches.
    pub abstract_boost: f32,
    /// How the dense side scans the paper vectors for this query (default: as the retriever
    /// was opened to; the lexical side ignores it).
    pub scan: Option<crate::DenseScan>,
}

/// How many papers a search answers unless told otherwise (every face's default).
pub const DEFAULT_K: usize = 10;

impl SearchQuery {
    /// A query with default options ([`DEFAULT_K`] papers, no filters, both boosts 1).
    pub fn new(text: impl Into<String>) -> Self {
        SearchQuery {
            text: text.into(),
            k: DEFAULT_K,
            before: None,
            exclude_surveys: false,
            title_boost: 1.0,
            abstract_boost: 1.0,
            scan: None,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Fields {
    id: Field,
    title: Field,
    abstract_text: Field,
    year: Field,
    survey: Field,
}

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let text = |stored: bool| {
        let indexing =
            TextFieldIndexing::default().set_tokenizer(ANALYZER).set_index_option(IndexRecordOption::WithFreqs);
        let options = TextOptions::default().set_indexing_options(indexing);
        if stored { options.set_stored() } else { options }
    };
    let fields = Fields {
        id: builder.add_text_field("id", STRING | STORED),
        title: builder.add_text_field("title", text(true)),
        abstract_text: builder.add_text_field("abstract", text(false)),
        year: builder.add_i64_field("year", INDEXED | STORED),
        survey: builder.add_u64_field("survey", INDEXED),
    };
    (builder.build(), fields)
}

fn register_analyzer(index: &Index) {
    index.tokenizers().register(ANALYZER, crate::analyzer::english());
}

/// A BM25 index over a corpus's titles and abstracts. Clones share the index.
#[derive(Clone)]
pub struct LexicalIndex {
    dir: PathBuf,
    index: Index,
    reader: IndexReader,
    fields: Fields,
    /// The hold on the corpus generation the index belongs to, when it was opened through its
    /// corpus: while the index lives, no writer deletes its files.
    lease: Option<Lease>,
}

impl LexicalIndex {
    /// Build an index of `papers` in the (new, empty or absent) directory `dir`.
    pub fn build(dir: &Path, papers: &(impl PaperScan + ?Sized), options: BuildOptions) -> Result<BuildStats> {
        let engine = |source| Error::Engine { dir: dir.to_path_buf(), source };
        let started = Instant::now();
        std::fs::create_dir_all(dir).map_err(|e| engine(e.into()))?;
        let (schema, fields) = schema();
        let index = Index::create_in_dir(dir, schema).map_err(engine)?;
        register_analyzer(&index);
        let threads = options.threads.max(1);
        let budget = options.memory_budget.max(threads * (15 << 20));
        let mut writer = index.writer_with_num_threads::<TantivyDocument>(threads, budget).map_err(engine)?;
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        papers.each_paper(&mut |_, paper| {
            let mut document = doc!(
                fields.id => paper.id.as_str(),
                fields.title => paper.title.as_str(),
                fields.survey => u64::from(paper.is_survey),
            );
            if let Some(abstract_text) = &paper.abstract_text {
                document.add_text(fields.abstract_text, abstract_text);
            }
            if let Some(year) = paper.year {
                document.add_i64(fields.year, i64::from(year));
            }
            writer
                .add_document(document)
                .map_err(|e| litnav_corpus::Error::Artifact { name: ARTIFACT.into(), source: Box::new(engine(e)) })?;
            Ok(())
        })?;
        writer.commit().map_err(engine)?;
        writer.wait_merging_threads().map_err(engine)?;
        Ok(BuildStats { documents: papers.count(), seconds: started.elapsed().as_secs_f64() })
    }

    /// Open an index directory.
    pub fn open(dir: &Path) -> Result<LexicalIndex> {
        if !dir.join("meta.json").is_file() {
            return Err(Error::MissingIndex { dir: dir.to_path_buf() });
        }
        let engine = |source| Error::Engine { dir: dir.to_path_buf(), source };
        let index = guarded(dir, || Index::open_in_dir(dir).map_err(engine))?;
        // Every file's checksum, so that a damaged index is refused here rather than read into
        // wrong scores or a panic later (reads the whole index: milliseconds for litbench).
        let mut damaged: Vec<String> = guarded(dir, || index.validate_checksum().map_err(engine))?
            .iter()
            .map(|file| file.display().to_string())
            .collect();
        if !damaged.is_empty() {
            damaged.sort();
            let message = format!("{} fail(s) the checksum tantivy wrote", damaged.join(", "));
            return Err(Error::Damaged { dir: dir.to_path_buf(), message });
        }
        register_analyzer(&index);
        let (_, fields) = schema();
        let reader =
            guarded(dir, || index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into().map_err(engine))?;
        Ok(LexicalIndex { dir: dir.to_path_buf(), index, reader, fields, lease: None })
    }

    /// Open the index of the corpus at `corpus_dir` (its current generation, leased for as long
    /// as the index lives).
    pub fn open_corpus(corpus_dir: &Path) -> Result<LexicalIndex> {
        let (lease, _) = Lease::acquire(corpus_dir)?;
        Self::open_leased(lease)
    }

    /// Open the index of the generation `lease` holds, keeping the lease while the index lives.
    pub fn open_leased(lease: Lease) -> Result<LexicalIndex> {
        let mut index = Self::open(&lease.dir().join(ARTIFACT))?;
        index.lease = Some(lease);
        Ok(index)
    }

    /// The corpus generation this index was opened from and holds, when opened through its corpus.
    pub fn generation(&self) -> Option<u64> {
        self.lease.as_ref().map(Lease::generation)
    }

    /// Number of indexed papers.
    pub fn len(&self) -> usize {
        self.reader.searcher().num_docs() as usize
    }

    /// True when the index holds no papers.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Distinct analyzed terms of `text`, in first-seen order.
    pub fn analyze(&self, text: &str) -> Vec<String> {
        let mut analyzer = self.index.tokenizers().get(ANALYZER).unwrap_or_default();
        let mut stream = analyzer.token_stream(text);
        let mut seen = HashSet::new();
        let mut terms = Vec::new();
        while stream.advance() {
            let term = stream.token().text.clone();
            if seen.insert(term.clone()) {
                terms.push(term);
            }
        }
        terms
    }

    /// Rank papers for `query`.
    pub fn search(&self, query: &SearchQuery) -> Result<Vec<Hit>> {
        guarded(&self.dir, || self.search_unguarded(query))
    }

    fn search_unguarded(&self, query: &SearchQuery) -> Result<Vec<Hit>> {
        let terms = self.analyze(&query.text);
        if terms.is_empty() {
            return Err(Error::EmptyQuery { query: query.text.clone() });
        }
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for (field, boost) in
            [(self.fields.title, query.title_boost), (self.fields.abstract_text, query.abstract_boost)]
        {
            if boost <= 0.0 {
                continue;
            }
            for term in &terms {
                let term_query = TermQuery::new(Term::from_field_text(field, term), IndexRecordOption::WithFreqs);
                should.push((Occur::Should, Box::new(BoostQuery::new(Box::new(term_query), boost))));
            }
        }
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, Box::new(BooleanQuery::new(should)))];
        if let Some(year) = query.before {
            let upper = Term::from_field_i64(self.fields.year, i64::from(year));
            clauses.push((Occur::Must, Box::new(RangeQuery::new(Bound::Unbounded, Bound::Excluded(upper)))));
        }
        if query.exclude_surveys {
            clauses.push((
                Occur::MustNot,
                Box::new(TermQuery::new(Term::from_field_u64(self.fields.survey, 1), IndexRecordOption::Basic)),
            ));
        }
        let searcher = self.reader.searcher();
        let engine = |source| Error::Engine { dir: self.dir.clone(), source };
        let query_tree = BooleanQuery::new(clauses);
        let k = query.k.max(1);
        let mut window = 2 * k + 32;
        let top = loop {
            let top = searcher.search(&query_tree, &TopDocs::with_limit(window).order_by_score()).map_err(engine)?;
            let ties_may_continue = top.len() == window && top[window - 1].0 >= top[k - 1].0;
            if !ties_may_continue || window >= searcher.num_docs() as usize {
                break top;
            }
            window *= 4;
        };
        let cutoff = top.get(k - 1).map_or(f32::NEG_INFINITY, |(score, _)| *score);
        let mut hits = Vec::with_capacity(k);
        for (score, address) in top.into_iter().take_while(|(score, _)| *score >= cutoff) {
            let document: TantivyDocument = searcher.doc(address).map_err(engine)?;
            let text = |field| document.get_first(field).and_then(|v| v.as_str()).unwrap_or_default().to_string();
            let year = document.get_first(self.fields.year).and_then(|v| v.as_i64()).map(|y| y as i32);
            hits.push(Hit { id: text(self.fields.id), title: text(self.fields.title), year, score, known: None });
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
        hits.truncate(query.k);
        Ok(hits)
    }
}

/// Run a call into the search engine, turning a panic inside it into [`Error::Damaged`]: tantivy
/// panics on some damaged files instead of returning an error (a file of 4 to 7 bytes, for one,
/// underflows its footer reader), and a damaged index must be an error, never a crash.
fn guarded<T>(dir: &Path, call: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(call)).unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        Err(Error::Damaged { dir: dir.to_path_buf(), message: format!("the search engine failed reading it ({why})") })
    })
}
