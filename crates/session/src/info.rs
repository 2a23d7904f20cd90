//! What a corpus holds: counts, field coverage, topics.

use litnav_corpus::Corpus;
use serde::Serialize;
use std::path::PathBuf;

/// Share of papers that have a field.
#[derive(Debug, Serialize)]
pub struct Coverage {
    /// The field.
    pub field: &'static str,
    /// Papers with it.
    pub papers: usize,
    /// Their share, in percent.
    pub percent: f64,
}

/// One topic (expert survey) of a corpus.
#[derive(Debug, Serialize)]
pub struct TopicSummary {
    /// Topic id.
    pub id: String,
    /// The survey's title.
    pub title: String,
    /// Its year.
    pub year: Option<i32>,
    /// References resolved to corpus papers.
    pub references: usize,
    /// References not found in the corpus.
    pub unresolved: usize,
    /// It carries an expert taxonomy.
    pub has_taxonomy: bool,
    /// It carries an outline.
    pub has_outline: bool,
}

/// What a corpus holds.
#[derive(Debug, Serialize)]
pub struct CorpusReport {
    /// The corpus directory.
    pub corpus: PathBuf,
    /// Its format version.
    pub format_version: u32,
    /// Its current generation.
    pub generation: u64,
    /// The litnav that wrote it.
    pub written_by: String,
    /// Artifacts of the generation.
    pub artifacts: Vec<String>,
    /// Papers.
    pub papers: usize,
    /// Surveys among them.
    pub surveys: usize,
    /// Topics.
    pub topics: usize,
    /// In-corpus citation edges.
    pub edges: usize,
    /// References to works outside the corpus.
    pub external_references: usize,
    /// Earliest year.
    pub year_min: Option<i32>,
    /// Latest year.
    pub year_max: Option<i32>,
    /// Field coverage.
    pub coverage: Vec<Coverage>,
    /// The topics.
    pub topic_list: Vec<TopicSummary>,
}

/// Counts, field coverage and topics of a corpus.
pub fn report(corpus: &Corpus) -> CorpusReport {
    let papers = corpus.papers();
    let n = papers.len();
    let count = |has: &dyn Fn(&litnav_corpus::Paper) -> bool| papers.iter().filter(|p| has(p)).count();
    let coverage_of = |field: &'static str, has: &dyn Fn(&litnav_corpus::Paper) -> bool| {
        let with = count(has);
        Coverage { field, papers: with, percent: if n == 0 { 0.0 } else { 100.0 * with as f64 / n as f64 } }
    };
    let coverage = vec![
        coverage_of("abstract", &|p| p.abstract_text.is_some()),
        coverage_of("year", &|p| p.year.is_some()),
        coverage_of("venue", &|p| p.venue.is_some()),
        coverage_of("authors", &|p| !p.authors.is_empty()),
        coverage_of("citation_count", &|p| p.citation_count.is_some()),
        coverage_of("doi", &|p| p.ids.contains_key("doi")),
        coverage_of("arxiv", &|p| p.ids.contains_key("arxiv")),
        coverage_of("openalex", &|p| p.ids.contains_key("openalex")),
        coverage_of("references (in corpus)", &|p| !p.references.is_empty()),
        coverage_of("cited in corpus", &{
            let cited: std::collections::HashSet<&str> =
                papers.iter().flat_map(|p| p.references.iter().map(String::as_str)).collect();
            move |p: &litnav_corpus::Paper| cited.contains(p.id.as_str())
        }),
    ];
    let manifest = corpus.manifest();
    CorpusReport {
        corpus: corpus.dir().to_path_buf(),
        format_version: manifest.version,
        generation: manifest.generation,
        written_by: manifest.written_by.clone(),
        artifacts: manifest.artifacts.clone(),
        papers: n,
        surveys: count(&|p| p.is_survey),
        topics: corpus.topics().len(),
        edges: papers.iter().map(|p| p.references.len()).sum(),
        external_references: papers.iter().map(|p| p.external_references.len()).sum(),
        year_min: papers.iter().filter_map(|p| p.year).min(),
        year_max: papers.iter().filter_map(|p| p.year).max(),
        coverage,
        topic_list: corpus
            .topics()
            .iter()
            .map(|t| TopicSummary {
                id: t.id.clone(),
                title: t.title.clone(),
                year: t.year,
                references: t.reference_ids.len(),
                unresolved: t.unresolved_references.len(),
                has_taxonomy: t.taxonomy.is_some(),
                has_outline: t.outline.is_some(),
            })
            .collect(),
    }
}

impl std::fmt::Display for CorpusReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "corpus {} (format v{}, generation {}, {})",
            self.corpus.display(),
            self.format_version,
            self.generation,
            self.written_by
        )?;
        writeln!(f, "  papers     {:>9}   surveys {}", self.papers, self.surveys)?;
        writeln!(f, "  topics     {:>9}", self.topics)?;
        writeln!(f, "  edges      {:>9}   in-corpus citations", self.edges)?;
        writeln!(f, "  external   {:>9}   references to works outside the corpus", self.external_references)?;
        if let (Some(min), Some(max)) = (self.year_min, self.year_max) {
            writeln!(f, "  years      {min}–{max}")?;
        }
        let artifacts = if self.artifacts.is_empty() { "none".to_string() } else { self.artifacts.join(", ") };
        writeln!(f, "  artifacts  {artifacts}")?;
        writeln!(f, "field coverage:")?;
        for c in &self.coverage {
            writeln!(f, "  {:<24} {:>9}  {:>5.1}%", c.field, c.papers, c.percent)?;
        }
        if !self.topic_list.is_empty() {
            writeln!(f, "topics:")?;
        }
        for t in &self.topic_list {
            let unresolved = if t.unresolved > 0 { format!(" ({} unresolved)", t.unresolved) } else { String::new() };
            let title: String = if t.title.chars().count() > 70 {
                format!("{}…", t.title.chars().take(69).collect::<String>())
            } else {
                t.title.clone()
            };
            writeln!(f, "  {:<14} {}  {:>4} refs{unresolved}  {title}", t.id, crate::year(t.year), t.references)?;
        }
        Ok(())
    }
}

/// The sentence encoder as installed: where, its dimension and vocabulary (`litnav model info`).
#[derive(Debug, Clone, Serialize)]
pub struct ModelInfo {
    /// The model's name.
    pub model: &'static str,
    /// Its directory.
    pub dir: std::path::PathBuf,
    /// Vector dimension.
    pub dimension: usize,
    /// Word pieces in its vocabulary.
    pub vocabulary: usize,
}

impl ModelInfo {
    /// Load the encoder in `dir` and describe it.
    pub fn load(dir: &std::path::Path) -> crate::Result<ModelInfo> {
        let encoder = litnav_embed::Encoder::load(dir)?;
        Ok(ModelInfo {
            model: litnav_embed::MODEL_NAME,
            dir: dir.to_path_buf(),
            dimension: encoder.dim(),
            vocabulary: encoder.tokenizer().vocab_size(),
        })
    }
}

impl std::fmt::Display for ModelInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (model, dir) = (self.model, self.dir.display());
        writeln!(f, "{model} at {dir}: {} dimensions, {} word pieces", self.dimension, self.vocabulary)
    }
}
