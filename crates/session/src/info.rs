//! What a corpus holds: counts, field coverage, topics.

use litnav_corpus::{Corpus, Paper};
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

/// Whether a paper has a field.
type Has = fn(&Paper) -> bool;

/// The fields whose coverage a report counts, each with the test of a paper having it.
const FIELDS: [(&str, Has); 9] = [
    ("abstract", |p| p.abstract_text.is_some()),
    ("year", |p| p.year.is_some()),
    ("venue", |p| p.venue.is_some()),
    ("authors", |p| !p.authors.is_empty()),
    ("citation_count", |p| p.citation_count.is_some()),
    ("doi", |p| p.ids.contains_key("doi")),
    ("arxiv", |p| p.ids.contains_key("arxiv")),
    ("openalex", |p| p.ids.contains_key("openalex")),
    ("references (in corpus)", |p| !p.references.is_empty()),
];

/// Counts, field coverage and topics of a corpus, from one pass over its papers read from disk
/// (memory: the set of cited ids, not the papers).
pub fn report(corpus: &Corpus) -> crate::error::Result<CorpusReport> {
    let mut with = [0usize; FIELDS.len()];
    let (mut surveys, mut edges, mut external) = (0, 0, 0);
    let (mut year_min, mut year_max) = (None::<i32>, None::<i32>);
    // References name in-corpus papers only, so the papers cited in the corpus are these ids.
    let mut cited = std::collections::HashSet::new();
    corpus.scan(|_, paper| {
        for (count, (_, has)) in with.iter_mut().zip(FIELDS) {
            *count += usize::from(has(paper));
        }
        surveys += usize::from(paper.is_survey);
        edges += paper.references.len();
        external += paper.external_references.len();
        if let Some(year) = paper.year {
            year_min = Some(year_min.map_or(year, |y| y.min(year)));
            year_max = Some(year_max.map_or(year, |y| y.max(year)));
        }
        cited.extend(paper.references.iter().cloned());
        Ok(())
    })?;
    let n = corpus.len();
    let coverage_of = |field: &'static str, papers: usize| Coverage {
        field,
        papers,
        percent: if n == 0 { 0.0 } else { 100.0 * papers as f64 / n as f64 },
    };
    let mut coverage: Vec<Coverage> =
        FIELDS.iter().zip(with).map(|((field, _), papers)| coverage_of(field, papers)).collect();
    coverage.push(coverage_of("cited in corpus", cited.len()));
    let manifest = corpus.manifest();
    Ok(CorpusReport {
        corpus: corpus.dir().to_path_buf(),
        format_version: manifest.version,
        generation: manifest.generation,
        written_by: manifest.written_by.clone(),
        artifacts: manifest.artifacts.clone(),
        papers: n,
        surveys,
        topics: corpus.topics().len(),
        edges,
        external_references: external,
        year_min,
        year_max,
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
    })
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
