//! What a scorer of other systems' outputs takes (`litnav eval …`): files, thresholds and the
//! options each metric has, with clap's derives behind the `clap` feature. Every default here is
//! the scoring module's own constant.

use super::names::{CompatName, SimilarityName};
use super::workspace::{LlmParams, ModelParams};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// How Cohen's κ weighs disagreements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum WeightsName {
    /// Every disagreement counts 1 (TaxoBench's κ).
    None,
    /// By the distance between scores.
    Linear,
    /// By the squared distance.
    Quadratic,
}

impl WeightsName {
    /// The library's weights.
    pub fn weights(self) -> litnav_eval::agreement::KappaWeights {
        use litnav_eval::agreement::KappaWeights;
        match self {
            WeightsName::None => KappaWeights::Unweighted,
            WeightsName::Linear => KappaWeights::Linear,
            WeightsName::Quadratic => KappaWeights::Quadratic,
        }
    }
}

/// JSON lines given as they are or by the file holding them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum LinesOrFile {
    /// The lines, each a JSON object.
    Lines(Vec<serde_json::Value>),
    /// The path of a JSON-lines file.
    File(String),
}

/// TaxoBench predictions scored against its expert taxonomies (the MCP tool `score_taxobench`;
/// `litnav eval taxobench` reads the same from files, with the same defaults).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScoreTaxobenchParams {
    /// The predictions: TaxoBench's prediction lines as objects (`id`, `hierarchy_tree`, and
    /// optionally `retrieved_papers`), or the path of a JSON-lines file of them.
    pub predictions: LinesOrFile,
    /// TaxoBench's data (`id`, `gt`: the expert taxonomies): lines, or a file's path (default:
    /// `taxobench/data.jsonl` of the datasets).
    #[serde(default)]
    pub data: Option<LinesOrFile>,
    /// Title-alignment threshold.
    #[serde(default)]
    pub threshold: Option<f64>,
    /// Sem-Path's penalty per unmatched ancestor.
    #[serde(default)]
    pub lambda: Option<f64>,
    /// Label similarity for the hierarchy metrics.
    #[serde(default)]
    pub similarity: Option<SimilarityName>,
}

impl ScoreTaxobenchParams {
    /// The threshold, λ and similarity, each given or at its default, or an input error.
    pub fn options(&self) -> Result<(f64, f64, SimilarityName)> {
        let threshold = self.threshold.unwrap_or(crate::score::taxobench::DEFAULT_THRESHOLD);
        if !threshold.is_finite() {
            return Err(Error::input(format!("threshold: a number, not {threshold}")));
        }
        let lambda = self.lambda.unwrap_or(crate::score::taxobench::DEFAULT_LAMBDA);
        if !lambda.is_finite() || lambda < 0.0 {
            return Err(Error::input(format!("lambda: a penalty of at least 0, not {lambda}")));
        }
        Ok((threshold, lambda, self.similarity.unwrap_or_default()))
    }
}

/// A generated survey scored against an expert one with Bloom-Eval's metrics (the MCP tool
/// `score_survey`; `litnav eval survey` takes the same).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScoreSurveyParams {
    /// The expert survey: a directory in Bloom-Eval's layout or a Markdown file.
    pub expert: String,
    /// The generated survey: a directory or a Markdown file; this or `generated_markdown`.
    #[serde(default)]
    pub generated: Option<String>,
    /// The generated survey's Markdown text (as an agent wrote it); this or `generated`.
    #[serde(default)]
    pub generated_markdown: Option<String>,
    /// Only these metrics (abbreviations: EFid, HIRC, FCons, OTC, CF, TFSim, TBal, FMI, DSI, FAP,
    /// STS, SCons, SCS, CAA, FNov, ROQ); none: all 16.
    #[serde(default)]
    pub metrics: Vec<String>,
    /// Where the seed and Bloom-Eval's scripts disagree, follow the scripts (`bloom-eval`).
    #[serde(default)]
    pub compat: Option<CompatName>,
    /// The topic (default: the expert survey's title).
    #[serde(default)]
    pub topic: Option<String>,
    /// Compute the extras (readability similarity, 10-gram overlap, output tokens).
    #[serde(default)]
    pub extras: Option<bool>,
    /// Let the LLM judge the metrics that need one (otherwise they report why they did not run).
    #[serde(default)]
    pub llm: Option<bool>,
}

impl ScoreSurveyParams {
    /// The evaluation's options, or an input error naming an unknown metric.
    pub fn options(&self) -> Result<crate::survey::SurveyOptions> {
        let defaults = crate::survey::SurveyOptions::default();
        Ok(crate::survey::SurveyOptions {
            metrics: crate::survey::Metric::from_keys(&self.metrics)?,
            compat: self.compat.unwrap_or_default().compat(),
            topic: self.topic.clone(),
            extras: self.extras.unwrap_or(defaults.extras),
            ..defaults
        })
    }
}

impl SurveyParams {
    /// The evaluation's options, or an input error naming an unknown metric.
    pub fn options(&self) -> crate::Result<crate::survey::SurveyOptions> {
        Ok(crate::survey::SurveyOptions {
            metrics: crate::survey::Metric::from_keys(&self.metrics)?,
            compat: self.compat.compat(),
            chunk_chars: self.chunk_chars.max(500),
            max_passages: self.max_passages,
            max_citations: self.max_citations,
            topic: self.topic.clone(),
            extras: !self.no_extras,
            ..crate::survey::SurveyOptions::default()
        })
    }
}

impl TreeParams {
    /// The comparison's options.
    pub fn options(&self) -> crate::score::tree::TreeOptions {
        crate::score::tree::TreeOptions {
            threshold: self.threshold,
            lambda: self.lambda,
            tsd_threshold: self.tsd_threshold,
            ..crate::score::tree::TreeOptions::default()
        }
    }
}

impl ClusterScoreParams {
    /// The scoring's options (`coverage` as a share; the seed, when not given, is `default_seed`).
    pub fn options(&self, default_seed: u64) -> crate::score::clusters::ClusterOptions {
        crate::score::clusters::ClusterOptions {
            coverage: self.coverage / 100.0,
            random_runs: self.random_runs,
            seed: self.seed.unwrap_or(default_seed),
        }
    }
}

impl EgoMeasureName {
    /// The library's measure.
    pub fn measure(self) -> crate::relations::Measure {
        match self {
            EgoMeasureName::Disruption => crate::relations::Measure::Disruption,
            EgoMeasureName::Novelty => crate::relations::Measure::Novelty,
        }
    }
}

/// `litnav eval agreement`: two raters' score files.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct AgreementParams {
    /// The first rater's scores (JSON lines: `id` and numeric scores by name).
    #[cfg_attr(feature = "clap", arg(value_name = "FILE"))]
    pub first: PathBuf,
    /// The second rater's scores.
    #[cfg_attr(feature = "clap", arg(value_name = "FILE"))]
    pub second: PathBuf,
    /// How κ weighs disagreements.
    #[cfg_attr(feature = "clap", arg(long, value_enum, default_value_t = WeightsName::None))]
    pub weights: WeightsName,
    /// Print JSON.
    #[cfg_attr(feature = "clap", arg(long))]
    pub json: bool,
}

/// `litnav eval survey`: a generated survey against an expert one (Bloom-Eval).
#[derive(Debug, Clone)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct SurveyParams {
    /// The expert survey (directory or Markdown file).
    #[cfg_attr(feature = "clap", arg(long, value_name = "PATH"))]
    pub expert: PathBuf,
    /// The generated survey (directory or Markdown file).
    #[cfg_attr(feature = "clap", arg(long, value_name = "PATH"))]
    pub generated: PathBuf,
    /// Resolve both bibliographies to this corpus's papers (titles aligned as TaxoBench aligns
    /// them); entries without citation counts take the papers'.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIR"))]
    pub corpus: Option<PathBuf>,
    /// Only these metrics (comma-separated abbreviations: EFid, HIRC, FCons, OTC, CF, TFSim, TBal,
    /// FMI, DSI, FAP, STS, SCons, SCS, CAA, FNov, ROQ).
    #[cfg_attr(feature = "clap", arg(long, value_delimiter = ',', value_name = "LIST"))]
    pub metrics: Vec<String>,
    /// Where the seed and Bloom-Eval's scripts disagree, follow the scripts (`bloom-eval`) to
    /// compare with numbers they produced.
    #[cfg_attr(feature = "clap", arg(long, value_enum, default_value_t = CompatName::default()))]
    pub compat: CompatName,
    /// The topic (default: the expert survey's title).
    #[cfg_attr(feature = "clap", arg(long))]
    pub topic: Option<String>,
    /// Longest passage an LLM extraction step reads, in characters.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 6000))]
    pub chunk_chars: usize,
    /// At most this many passages per survey for each LLM extraction (spread over the text).
    #[cfg_attr(feature = "clap", arg(long))]
    pub max_passages: Option<usize>,
    /// At most this many (sentence, cited paper) pairs checked for Citation Faithfulness.
    #[cfg_attr(feature = "clap", arg(long))]
    pub max_citations: Option<usize>,
    /// Leave out the extras (readability similarity, 10-gram overlap, output tokens), which every
    /// evaluation computes otherwise.
    #[cfg_attr(feature = "clap", arg(long))]
    pub no_extras: bool,
    /// Write every LLM step (answers, repairs, cache hits) as JSON here.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub trace: Option<PathBuf>,
    /// The encoder.
    #[cfg_attr(feature = "clap", command(flatten))]
    pub model: ModelParams,
    /// The LLM.
    #[cfg_attr(feature = "clap", command(flatten))]
    pub llm: LlmParams,
    /// Print the report as JSON.
    #[cfg_attr(feature = "clap", arg(long))]
    pub json: bool,
}

/// `litnav eval tree`: a tree checked, and compared with a reference when one is given.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct TreeParams {
    /// The reference (expert) tree, a JSON file. Without it, only the checks that need no
    /// reference run.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub reference: Option<PathBuf>,
    /// The tree to check (and to compare with the reference), a JSON file: TaxoBench's shape, a
    /// litnav map, an outline with `children`, or a TaxoBench line holding one.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub prediction: PathBuf,
    /// Title-alignment threshold (for trees with papers).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = crate::score::taxobench::DEFAULT_THRESHOLD))]
    pub threshold: f64,
    /// Sem-Path's penalty per unmatched ancestor.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = crate::score::taxobench::DEFAULT_LAMBDA))]
    pub lambda: f64,
    /// Cosine above which Tree Semantic Distance relabels for free.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = crate::score::tree::DEFAULT_TSD_THRESHOLD))]
    pub tsd_threshold: f64,
    /// Label similarity.
    #[cfg_attr(feature = "clap", arg(long, value_enum, default_value_t = SimilarityName::default()))]
    pub similarity: SimilarityName,
    /// The encoder.
    #[cfg_attr(feature = "clap", command(flatten))]
    pub model: ModelParams,
    /// With --llm: parent–child entailment judged by the LLM instead of the offline approximation.
    #[cfg_attr(feature = "clap", command(flatten))]
    pub llm: LlmParams,
    /// Print the scores as JSON.
    #[cfg_attr(feature = "clap", arg(long))]
    pub json: bool,
}

/// `litnav eval retrieval`: a TREC run against qrels.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct RetrievalParams {
    /// Relevance judgments, TREC qrels: `query 0 document grade` per line (grade > 0 = relevant).
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub qrels: PathBuf,
    /// The run, TREC format: `query Q0 document rank score tag` per line.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub run: PathBuf,
    /// Cut-offs for Recall/Precision/nDCG.
    #[cfg_attr(
        feature = "clap",
        arg(long, value_delimiter = ',', default_values_t = crate::score::trec::DEFAULT_CUTOFFS.to_vec())
    )]
    pub k: Vec<usize>,
    /// Also print per-query scores.
    #[cfg_attr(feature = "clap", arg(long))]
    pub per_query: bool,
    /// Print the scores as JSON.
    #[cfg_attr(feature = "clap", arg(long))]
    pub json: bool,
}

/// `litnav eval taxobench`: predictions against TaxoBench's data.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct TaxobenchParams {
    /// TaxoBench's data.jsonl (expert taxonomies in `gt`).
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub data: PathBuf,
    /// Predictions: JSON lines with `id` and `hierarchy_tree`.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub predictions: PathBuf,
    /// Title-alignment threshold.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = crate::score::taxobench::DEFAULT_THRESHOLD))]
    pub threshold: f64,
    /// Sem-Path's penalty per unmatched ancestor.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = crate::score::taxobench::DEFAULT_LAMBDA))]
    pub lambda: f64,
    /// Label similarity for the hierarchy metrics.
    #[cfg_attr(feature = "clap", arg(long, value_enum, default_value_t = SimilarityName::default()))]
    pub similarity: SimilarityName,
    /// Write one JSON line of scores per instance here.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub output: Option<PathBuf>,
    /// The encoder.
    #[cfg_attr(feature = "clap", command(flatten))]
    pub model: ModelParams,
    /// Print the summary as JSON.
    #[cfg_attr(feature = "clap", arg(long))]
    pub json: bool,
}

/// `litnav eval paths`: SciNet's path-wise scores.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct PathScoreParams {
    /// Corpus directory (default: the built-in litbench corpus).
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIR"))]
    pub corpus: Option<PathBuf>,
    /// JSONL, one query per line: `source`, `target` (paper ids, in either order: SciNet writes
    /// them old → new), `retrieved` (the system's papers, ids, in its order), optional `truth`
    /// (the ground-truth path, citing end first; default: the maximum-citation path).
    pub file: PathBuf,
    /// Hop limit of the ground-truth path.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = litnav_graph::paths::DEFAULT_MAX_HOPS))]
    pub max_hops: usize,
    /// Judge each retrieved sequence's Rationality (1–10) with the LLM.
    #[cfg_attr(feature = "clap", command(flatten))]
    pub llm: LlmParams,
    /// Print JSON.
    #[cfg_attr(feature = "clap", arg(long))]
    pub json: bool,
}

/// `litnav eval pairs`: SciNet's pair-wise scores.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct PairScoreParams {
    /// Corpus directory (default: the built-in litbench corpus).
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIR"))]
    pub corpus: Option<PathBuf>,
    /// JSONL, one query per line: `id`, `paper` (a corpus id), `task` (`cite` or `co-mention`),
    /// optional `sentiment` (positive, neutral, negative) and `direction` (`citers`: the answers
    /// cite the paper, the default; `references`: the paper cites them).
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub queries: PathBuf,
    /// JSONL, one answer per line: `id` (the query's) and `retrieved` (ids, in rank order).
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub answers: PathBuf,
    /// Answers scored per query (the first k).
    #[cfg_attr(feature = "clap", arg(long, short, default_value_t = 50))]
    pub k: usize,
    /// Label unlabelled citation mentions with the LLM for Cite-Sentiment.
    #[cfg_attr(feature = "clap", command(flatten))]
    pub llm: LlmParams,
    /// Print JSON.
    #[cfg_attr(feature = "clap", arg(long))]
    pub json: bool,
}

/// `litnav eval clusters`: Knowledge Navigator's clustering scores.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct ClusterScoreParams {
    /// The gold clusters: JSONL (`id`, `cluster`: a string or number; a later line for the same
    /// id is a secondary membership) or a litnav map (leaves are clusters, `also` secondary).
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub gold: PathBuf,
    /// The clustering to score, in the same formats (e.g. `litnav map --json`).
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub predicted: PathBuf,
    /// Coverage p of Rc@p and Rv@p, in percent.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = crate::score::clusters::DEFAULT_COVERAGE_PERCENT))]
    pub coverage: f64,
    /// Random assignments averaged for the baseline.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = crate::score::clusters::DEFAULT_RANDOM_RUNS))]
    pub random_runs: usize,
    /// Seed of the random baseline (default: the settings' seed, 42).
    #[cfg_attr(feature = "clap", arg(long))]
    pub seed: Option<u64>,
    /// Print JSON.
    #[cfg_attr(feature = "clap", arg(long))]
    pub json: bool,
}

/// The property SciNet's ego-centric queries ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum EgoMeasureName {
    /// The CD disruption index.
    Disruption,
    /// Uzzi novelty (negated 10th-percentile z: higher = more novel).
    Novelty,
}

/// `litnav eval ego`: SciNet's ego-centric scores.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct EgoScoreParams {
    /// Corpus directory (default: the built-in litbench corpus).
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIR"))]
    pub corpus: Option<PathBuf>,
    /// JSONL, one query per line: `topic` (a stored topic's id or title, or free text whose BM25
    /// matches form the field) and `retrieved` (the system's papers, ids, in rank order).
    pub file: PathBuf,
    /// Which property the queries asked for.
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    pub measure: EgoMeasureName,
    /// Size of the ground-truth set and of the retrieved list scored (Recall@k).
    #[cfg_attr(feature = "clap", arg(long, short, default_value_t = 50))]
    pub k: usize,
    /// How many BM25 matches a free-text topic takes.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 300))]
    pub pool: usize,
    /// Rate every retrieved paper with the LLM (Novelty-LLM or Disruption-LLM).
    #[cfg_attr(feature = "clap", command(flatten))]
    pub llm: LlmParams,
    /// Print JSON.
    #[cfg_attr(feature = "clap", arg(long))]
    pub json: bool,
}

/// `litnav eval judge tree`: a tree (or a predictions file) and what to judge it against.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct JudgeTreeParams {
    /// The tree (TaxoBench JSON, a litnav map, or any `{name, subtopics|children}` JSON).
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "FILE", required_unless_present = "predictions", conflicts_with = "predictions")
    )]
    pub tree: Option<PathBuf>,
    /// The expert tree to judge against (TaxoBench's LLM-as-Judge).
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE", requires = "tree"))]
    pub reference: Option<PathBuf>,
    /// Batch mode: TaxoBench predictions (`id`, `hierarchy_tree`), each judged against its
    /// instance's expert tree in --data.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE", requires = "data"))]
    pub predictions: Option<PathBuf>,
    /// Batch mode: TaxoBench's data.jsonl (expert trees in `gt`).
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE", requires = "predictions"))]
    pub data: Option<PathBuf>,
    /// Batch mode: write each instance's scores as a JSON line (`id`, dimensions, `mean`) — the
    /// shape `litnav eval agreement` reads.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE", requires = "predictions"))]
    pub output: Option<PathBuf>,
    /// The topic (default: the root's name).
    #[cfg_attr(feature = "clap", arg(long))]
    pub topic: Option<String>,
    /// Levels of the outline shown to the judge.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 3))]
    pub depth: usize,
    /// The LLM judging.
    #[cfg_attr(feature = "clap", command(flatten))]
    pub llm: LlmParams,
}

/// `litnav eval judge grade`: two surveys on a topic.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct GradeParams {
    /// The topic.
    #[cfg_attr(feature = "clap", arg(long))]
    pub topic: String,
    /// The expert survey (text or Markdown; an outline is enough).
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub expert: PathBuf,
    /// The generated survey.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub generated: PathBuf,
    /// Characters of each survey shown to the judge (the rest is cut; small models have small
    /// contexts).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 6000))]
    pub max_chars: usize,
    /// The LLM judging.
    #[cfg_attr(feature = "clap", command(flatten))]
    pub llm: LlmParams,
}

/// `litnav eval judge path`: papers in path order.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct JudgePathParams {
    /// Corpus holding the papers (default: the built-in litbench corpus).
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIR"))]
    pub corpus: Option<PathBuf>,
    /// Paper ids, in path order.
    #[cfg_attr(feature = "clap", arg(required = true, num_args = 2..))]
    pub ids: Vec<String>,
    /// The LLM judging.
    #[cfg_attr(feature = "clap", command(flatten))]
    pub llm: LlmParams,
}

/// `litnav export parquet`.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct ExportParquetParams {
    /// Corpus (default: the built-in litbench corpus).
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIR"))]
    pub corpus: Option<PathBuf>,
    /// Directory to write the tables into.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIR"))]
    pub out: PathBuf,
}

/// `litnav export topics`.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct ExportTopicsParams {
    /// Corpus (default: the built-in litbench corpus).
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIR"))]
    pub corpus: Option<PathBuf>,
    /// Topic file layout.
    #[cfg_attr(feature = "clap", arg(long, value_enum, default_value_t = crate::score::trec::TopicFormat::Tsv))]
    pub format: crate::score::trec::TopicFormat,
    /// Write here instead of standard output.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub out: Option<PathBuf>,
}

/// `litnav export qrels`.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct ExportQrelsParams {
    /// Corpus (default: the built-in litbench corpus).
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIR"))]
    pub corpus: Option<PathBuf>,
    /// Write here instead of standard output.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub out: Option<PathBuf>,
}
