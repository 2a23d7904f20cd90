//! Building corpora: an ingest of files into a corpus with every artifact of the new
//! generation, the built-in litbench corpus and the benchmarks' dataset corpora, all as methods of
//! the [`Workspace`].

use crate::bibliography::{SurveyContexts, contexts_of};
use crate::error::{Context, Error, Result};
use crate::progress::Progress;
pub use crate::supplied::VectorsStored;
use crate::supplied::{Supplied, VectorsInput};
use crate::workspace::Workspace;
use litnav_corpus::{Format, IngestOutcome, Manifest, MergeReport, ReadOptions, Staging, ingest_files};
use litnav_embed::cache::{VectorCache, corpus_cache_path};
use litnav_graph::{Graph, contexts, store as graph_store};
use litnav_search::{BuildOptions, LexicalIndex, lexical};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// An ingest: input files, how to read them, and citation-context files.
#[derive(Debug, Clone, Default)]
pub struct IngestRequest {
    /// Paper, topic and edge files, in any order.
    pub files: Vec<PathBuf>,
    /// Read every file as this format instead of detecting it.
    pub format: Option<Format>,
    /// Skip malformed records instead of stopping at the first.
    pub skip_bad: bool,
    /// Citation-context files (JSONL) to keep with the graph, beside those already kept.
    pub contexts: Vec<PathBuf>,
    /// Surveys (Bloom-Eval directories or Markdown files) whose citation contexts to keep: every
    /// paragraph's citations of references that resolve to corpus papers.
    pub surveys: Vec<PathBuf>,
    /// Paper vectors computed elsewhere, one row per paper record of the papers file.
    pub vectors: Option<VectorsInput>,
}

/// How many skipped-record reasons an ingest report keeps per file.
pub const SHOWN_REASONS: usize = 5;

/// What an ingest did.
#[derive(Debug, Clone, Serialize)]
pub struct IngestReport {
    /// The corpus directory.
    pub corpus: PathBuf,
    /// The manifest of the generation now current.
    pub manifest: Manifest,
    /// Merge counts.
    pub merge: MergeReport,
    /// Per input file.
    pub files: Vec<FileReport>,
    /// Per survey whose contexts were taken.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub surveys: Vec<SurveyContexts>,
    /// The supplied vectors stored, when `--vectors` was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vectors: Option<VectorsStored>,
}

/// One input file of an ingest.
#[derive(Debug, Clone, Serialize)]
pub struct FileReport {
    /// The file.
    pub file: PathBuf,
    /// The format it was read as.
    pub format: &'static str,
    /// Malformed records skipped.
    pub skipped: usize,
    /// The first reasons (at most [`SHOWN_REASONS`]).
    pub skipped_reasons: Vec<String>,
}

impl IngestReport {
    fn new(corpus: &Path, outcome: IngestOutcome) -> IngestReport {
        let files = outcome
            .files
            .into_iter()
            .map(|(file, format, skipped)| FileReport {
                file,
                format: format.name(),
                skipped: skipped.len(),
                skipped_reasons: skipped.iter().take(SHOWN_REASONS).map(ToString::to_string).collect(),
            })
            .collect();
        IngestReport {
            corpus: corpus.to_path_buf(),
            manifest: outcome.manifest,
            merge: outcome.report,
            files,
            surveys: Vec::new(),
            vectors: None,
        }
    }
}

impl Workspace {
    /// The corpus an operation uses: the one given, the settings' default, or the built-in
    /// litbench corpus (built now if it does not exist yet).
    pub fn corpus_dir(&self, given: Option<&Path>, progress: &dyn Progress) -> Result<PathBuf> {
        if let Some(dir) = given.or(self.settings().corpus.as_deref()) {
            return Ok(dir.to_path_buf());
        }
        self.builtin_corpus(progress)
    }

    /// The built-in litbench corpus. It is built when missing, and rebuilt when it is provably
    /// stale (an older corpus format; the old one is moved aside, not deleted). Anything else
    /// wrong with it — a damaged manifest, an unreadable directory, a transient error — is
    /// reported and the directory left as it is: litnav never deletes a corpus on an error.
    fn builtin_corpus(&self, progress: &dyn Progress) -> Result<PathBuf> {
        let dir = self.settings().default_corpus_dir();
        match litnav_corpus::Corpus::locate(&dir) {
            Ok(_) => return Ok(dir),
            Err(litnav_corpus::Error::NotACorpus { missing: true, .. }) => {}
            Err(litnav_corpus::Error::Version { found, supported, .. }) if found < supported => {
                let aside = dir.with_file_name(format!("litbench.format-v{found}"));
                std::fs::rename(&dir, &aside).map_err(|e| Error::io(&dir, &e))?;
                progress.notice(&format!(
                    "the built-in corpus had format v{found} (this litnav writes v{supported}); moved it to {} and building it again",
                    aside.display()
                ));
            }
            Err(e) => {
                return Err(Error::from(e).context(format!(
                    "the built-in corpus at {} cannot be used and was left as it is (remove it to have it built again)",
                    dir.display()
                )));
            }
        }
        let litbench = self.settings().datasets()?.join("litbench");
        progress.stage("building the default litbench corpus (first run only)");
        let request = IngestRequest {
            files: vec![litbench.join("corpus.jsonl"), litbench.join("topics.jsonl")],
            ..IngestRequest::default()
        };
        self.ingest(&dir, &request)?;
        progress.notice(&format!(
            "built the default corpus at {} from {} (the datasets {})",
            dir.display(),
            litbench.display(),
            self.settings().datasets_origin
        ));
        Ok(dir)
    }

    /// Ingest files into the corpus at `dir` (created if needed) and build every artifact of the
    /// new generation — the lexical index and the citation graph with its contexts — under the
    /// corpus's write lock. On any failure the corpus stays as it was.
    pub fn ingest(&self, dir: &Path, request: &IngestRequest) -> Result<IngestReport> {
        // New context files and surveys are read (and checked) before anything is locked.
        let mut new_contexts = Vec::new();
        for file in &request.contexts {
            new_contexts.extend(contexts::read_jsonl(file)?);
        }
        let surveys = request
            .surveys
            .iter()
            .map(|path| litnav_survey::Survey::read(path).map_err(|e| Error::input(e.to_string())))
            .collect::<Result<Vec<_>>>()?;
        let options = ReadOptions { format: request.format, skip_bad: request.skip_bad };
        let supplied =
            request.vectors.as_ref().map(|input| Supplied::check(input, &request.files, options)).transpose()?;
        let mut survey_reports = Vec::new();
        let (mut keys, mut refused) = (Vec::new(), None);
        let outcome = ingest_files(dir, &request.files, options, |staging| {
            if let Some(supplied) = &supplied {
                match supplied.keys(staging.records, staging.catalog) {
                    Ok(found) => keys = found,
                    Err(e) => {
                        let message = e.to_string();
                        refused = Some(e);
                        return Err(litnav_corpus::Error::Artifact { name: "vectors".into(), source: message.into() });
                    }
                }
            }
            let mut all = new_contexts.clone();
            if !surveys.is_empty() {
                // A survey's references are matched against every title (by alignment too).
                let mut papers = Vec::with_capacity(staging.records.len());
                staging.records.scan(|_, paper| {
                    papers.push(paper);
                    Ok(())
                })?;
                for survey in &surveys {
                    let (found, report) = contexts_of(survey, &papers, staging.topics);
                    all.extend(found);
                    survey_reports.push(report);
                }
            }
            build_artifacts(staging, &all)
        });
        // A vectors file that does not fit the papers is the input's fault, not an artifact's.
        let outcome = match (outcome, refused) {
            (Err(_), Some(refused)) => Err(refused),
            (outcome, _) => outcome.map_err(Error::from),
        }
        .context(|| format!("ingest into {} failed; the corpus is unchanged", dir.display()))?;
        let mut report = IngestReport::new(dir, outcome);
        report.surveys = survey_reports;
        if let Some(supplied) = &supplied {
            report.vectors = Some(supplied.store(dir, &keys).context(|| {
                format!("the papers were ingested into {}, their vectors were not stored; ingest again", dir.display())
            })?);
        }
        Ok(report)
    }

    /// A corpus litnav builds from the datasets for its own use (the benchmarks'):
    /// `HOME/corpora/<name>`, ingested from `request` when it does not exist yet (an existing one
    /// is used as it is; a damaged one is reported and left alone). A new one's vector cache starts
    /// with the vectors the built-in corpus already holds for the same texts, so papers the two
    /// share are not encoded again.
    pub fn dataset_corpus(&self, name: &str, request: &IngestRequest, progress: &dyn Progress) -> Result<PathBuf> {
        let dir = self.settings().home.join("corpora").join(name);
        match litnav_corpus::Corpus::locate(&dir) {
            Ok(_) => return Ok(dir),
            Err(litnav_corpus::Error::NotACorpus { missing: true, .. }) => {}
            Err(e) => {
                return Err(Error::from(e).context(format!(
                    "the {name} corpus at {} cannot be used and was left as it is (remove it to have it built again)",
                    dir.display()
                )));
            }
        }
        progress.stage(&format!("building the {name} corpus (first run only)"));
        self.ingest(&dir, request)?;
        self.seed_vectors(&dir)?;
        progress.notice(&format!("built the {name} corpus at {}", dir.display()));
        Ok(dir)
    }

    /// Copy into the vector cache of the corpus at `dir` the vectors the built-in corpus holds
    /// for its papers' texts (vectors are keyed by model and text, so they are the same).
    fn seed_vectors(&self, dir: &Path) -> Result<()> {
        let source_path = corpus_cache_path(&self.settings().default_corpus_dir());
        if !source_path.is_file() {
            return Ok(());
        }
        let dim = litnav_embed::DIM;
        let source = VectorCache::open(&source_path, dim)?;
        let mut target = VectorCache::open(&corpus_cache_path(dir), dim)?;
        let corpus = litnav_corpus::Corpus::open(dir)?;
        target.copy_from(
            &source,
            corpus.papers()?.iter().map(|p| VectorCache::key(litnav_embed::MODEL_NAME, &p.text())),
        )?;
        Ok(())
    }
}

/// Every artifact of a corpus generation, written into the staging directory.
fn build_artifacts(
    staging: Staging<'_>,
    new_contexts: &[contexts::CitationContext],
) -> litnav_corpus::Result<Vec<String>> {
    let artifact_error = |name: &str, e: Box<dyn std::error::Error + Send + Sync>| litnav_corpus::Error::Artifact {
        name: name.into(),
        source: e,
    };
    LexicalIndex::build(&staging.dir.join(lexical::ARTIFACT), staging.records, BuildOptions::default())
        .map_err(|e| artifact_error(lexical::ARTIFACT, Box::new(e)))?;
    // The contexts the corpus keeps, read under the lock, then the new ones, without repeats.
    let mut all = match staging.previous.map(|dir| dir.join(graph_store::ARTIFACT)) {
        Some(dir) if dir.is_dir() => {
            graph_store::load_contexts(&dir).map_err(|e| artifact_error(graph_store::ARTIFACT, Box::new(e)))?
        }
        _ => Vec::new(),
    };
    all.extend_from_slice(new_contexts);
    let mut seen = std::collections::HashSet::new();
    all.retain(|c| seen.insert(c.clone()));
    let graph = Graph::from_scan(staging.records).map_err(|e| artifact_error(graph_store::ARTIFACT, Box::new(e)))?;
    graph_store::save(&staging.dir.join(graph_store::ARTIFACT), &graph, &all)
        .map_err(|e| artifact_error(graph_store::ARTIFACT, Box::new(e)))?;
    Ok(vec![lexical::ARTIFACT.to_string(), graph_store::ARTIFACT.to_string()])
}

impl std::fmt::Display for IngestReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (m, r) = (&self.manifest, &self.merge);
        writeln!(f, "corpus {} — generation {}", self.corpus.display(), m.generation)?;
        for file in &self.files {
            writeln!(f, "  read {} as {}", file.file.display(), file.format)?;
            if file.skipped > 0 {
                writeln!(f, "    skipped {} malformed record(s); first reasons:", file.skipped)?;
                for reason in &file.skipped_reasons {
                    writeln!(f, "      {reason}")?;
                }
            }
        }
        writeln!(
            f,
            "  {} paper records: {} new, {} merged into existing papers; {} topics added, {} replaced",
            r.paper_records, r.papers_added, r.papers_merged, r.topics_added, r.topics_replaced
        )?;
        if r.edge_records > 0 {
            writeln!(
                f,
                "  {} edge records; {} dropped (citing paper not in the corpus)",
                r.edge_records, r.edges_dropped_unknown_citing
            )?;
            for example in &r.dropped_examples {
                writeln!(f, "    e.g. {example}")?;
            }
        }
        for s in &self.surveys {
            writeln!(
                f,
                "  survey {} ({}): {} of {} references in the corpus, {} contexts in {} paragraphs",
                s.path.display(),
                s.citing_id,
                s.resolved,
                s.references,
                s.contexts,
                s.paragraphs
            )?;
        }
        if let Some(v) = &self.vectors {
            writeln!(
                f,
                "  {} vectors of {} ({} dimensions) from {}",
                v.rows,
                v.model.model,
                v.model.dim,
                v.file.display()
            )?;
        }
        writeln!(
            f,
            "now: {} papers, {} topics, {} citation edges in the corpus, {} references to outside works",
            m.papers, m.topics, m.edges, m.external_references
        )
    }
}
