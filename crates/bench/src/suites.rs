//! The benchmark suites as a command takes them (`litnav bench …`): each suite's options (clap
//! derives, behind the `cli` feature) and how its options compose the datasets, defaults and peers
//! into a run. The command line only parses, hands over its progress display and prints.

use crate::search;
use crate::{Error, Result};
use clap::Subcommand;
use litnav_app::Progress;
use litnav_app::Workspace;
use litnav_app::request::{InputName, LlmParams as LlmArgs, MapParams, MethodName, ModelParams as ModelArgs};
use std::path::PathBuf;

/// What a face gives the suites: progress shown to the user while a suite runs.
pub trait Face {
    /// Progress of a run titled `title`, shown until it is dropped.
    fn start(&self, title: &str) -> Box<dyn Progress + '_>;
    /// Progress without a title of its own (opening a corpus).
    fn progress(&self) -> Box<dyn Progress + '_>;
}

/// The suites.
#[derive(Debug, Subcommand)]
pub enum Suite {
    /// Lexical search: index build throughput (papers/s) and query latency p50/p99, on the real
    /// litbench corpus and on a synthetic corpus replicated from it.
    Search(SearchArgs),
    /// Sentence encoder: texts per second for short labels and for title+abstract passages, side
    /// by side with sentence-transformers on the same weights (with --peer).
    Embed(EmbedArgs),
    /// Retrieval scoreboard: every topic's survey title as the query, leakage filters on,
    /// Recall/Precision/nDCG/MRR against its references, for BM25, dense and hybrid side by side.
    Discovery(DiscoveryArgs),
    /// Dense retrieval: IVF (approximate) against exact search on a corpus's real vectors —
    /// recall@10 and latency; queries are the corpus's own titles.
    Dense(DenseArgs),
    /// TaxoBench scoring speed: `litnav eval taxobench` on TaxoBench's files, beside the public
    /// taxobench scorer (with --peer; litnav with --similarity public, values compared key by key)
    /// and a Python implementation of the seed's metrics (with --embedding-peer), same run.
    Eval(EvalArgs),
    /// Organizer quality: Bottom-Up maps of the TaxoBench instances scored against the expert
    /// taxonomies (ARI, V-measure, Sem-Path, US-NTED), beside the shipped LLM trees.
    Organize(OrganizeArgs),
    /// Corrections measured: litnav's map of each TaxoBench instance and litbench Bloom-Eval
    /// topic, its suggested corrections accepted one by one where the expert tree agrees, and
    /// how ARI, Sem-Path and NSR move per accepted edit.
    Corrections(CorrectionsArgs),
    /// Citation graph: CD index (and novelty) for every AAN paper against the plain Python
    /// implementation (dict of sets; with --peer), and on a synthetic preferential-attachment
    /// graph (default 1M papers, 10M edges) with time and peak memory.
    Graph(GraphArgs),
    /// Organizer speed: the topic's top papers (default 1,000) from the litbench corpus, vectors
    /// cached, organized by every offline method; beside the BERTopic-style UMAP + HDBSCAN +
    /// c-TF-IDF pipeline in Python on the same vectors (with --peer).
    OrganizeSpeed(OrganizeSpeedArgs),
    /// The map's relevance filter: every litbench survey title as the topic, its top-k papers
    /// retrieved and organized as `litnav map` does, subtopics filtered at several thresholds;
    /// precision of the papers kept and recall of the survey's references retrieval brought in.
    MapFilter(MapFilterArgs),
    /// Whether maps say when the corpus does not cover their topic: each litbench survey's title
    /// mapped from the corpus with its references (must not warn) and without them (must warn);
    /// the evidence per survey, the shipped rule's shares right and a leave-one-out choice.
    Coverage(CoverageArgs),
    /// What fetching a field costs: a 1,000-work field from the OpenAlex stand-in on loopback
    /// (the datasets' CiteSeer and AAN as OpenAlex works), fetched with snowballing, encoded, and
    /// fetched again from the answer cache: calls, bytes, seconds.
    Fetch(FetchBenchArgs),
    /// Memory of each command as a function of corpus size: corpora of several sizes (litbench
    /// replicated, with a synthetic citation graph), every command run as its own process, its
    /// peak resident memory, and a line through the sizes: which corpus fits in how much memory.
    Memory(MemoryArgs),
    /// Search and maps at the seeds' scale: corpora of synthetic papers made from the datasets'
    /// real ones (their vectors from real MiniLM vectors with seeded noise) at each size; ingest,
    /// the dense index's build, opening, a map — each its own process, with time and peak memory —
    /// and BM25 latency and the approximate index's recall@10 and latency, against the goals.
    ScaleSearch(ScaleSearchArgs),
    /// `litnav serve` under load on loopback: concurrent clients sending search, paper and
    /// map-reading requests; latency percentiles, errors and resident memory.
    Serve(ServeArgs),
    /// Beyond one machine: the CD index of synthetic power-law graphs (default 1M papers / 10M
    /// edges) as Parquet, by the in-memory CSR, DataFusion embedded and a Ballista cluster (a
    /// scheduler and two executors on loopback), each its own process: time, peak memory, values
    /// checked against the CSR, extrapolated to OpenAlex. Needs the `analytics` build feature.
    Scale(ScaleArgs),
    /// Survey evaluation: Bloom-Eval's deterministic metrics on the 14 Bloom-Eval topics (each
    /// expert survey against itself) and cs_01's LLM survey (JSON and Markdown), beside Bloom-Eval's
    /// own scripts on the same files (with --peer): values, agreement and time.
    Survey(SurveyArgs),
    /// SciNet's three task families on real data: ego (AAN subfields' most disruptive and novel
    /// papers), pair (who cites / is co-cited with a paper on AAN; same-paragraph co-mentions in
    /// the 14 expert surveys) and path (AAN pairs three hops apart), answered by BM25, dense and
    /// litnav's relations, scored as `litnav eval ego|pairs|paths` score them.
    Scinet(ScinetArgs),
    /// Knowledge Navigator's clustering benchmark: up to --per-topic papers of each litbench
    /// topic (cited by that survey only) pooled and clustered by every organizer method into as
    /// many subtopics as topics; ARI, NMI, Rc@80 and Rv@80 beside a random assignment.
    Clusters(ClustersArgs),
    /// Knowledge Navigator's Subtopic Expander benchmark: for each litbench topic, a cluster of 20
    /// papers its survey cites; P@K and R@K (K = 20, 50, 100, 200) of BM25 for the original query,
    /// litnav's offline expansion and, with --llm, the Subtopic Expander from the title alone and
    /// from the title and the cluster; the survey's other references are the truth.
    Expander(ExpanderArgs),
    /// TaxoBench end to end with litnav as the system: Deep-Research (each instance's topic →
    /// leakage-filtered retrieval → map) or Bottom-Up (the instance's papers → map); writes the
    /// prediction file and scores it with every TaxoBench metric, per instance and on average.
    Taxobench(TaxobenchArgs),
    /// ResearchArena end to end on a corpus's topics: discovery (R/P@10/100) and selection (graded
    /// nDCG@10/30/100, MRR) for the Title, Zero-shot, Decomposer (with --llm) and litnav baselines
    /// under BM25, dense and hybrid retrieval; organization (oracle and end to end) with heading
    /// soft and entity recall, tree semantic distance and TED; trec_eval beside it with --peer.
    Researcharena(ResearcharenaArgs),
}

/// A choice among the mode values of a suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    /// The survey topic alone: litnav retrieves, then organizes.
    DeepResearch,
    /// The instance's own papers, organized.
    BottomUp,
}

/// The options of `litnav bench taxobench`.
#[derive(Debug, clap::Args)]
pub struct TaxobenchArgs {
    /// Which TaxoBench mode.
    #[arg(long, value_enum)]
    mode: ModeArg,
    /// TaxoBench data.jsonl (default: the shared TaxoBench instances).
    #[arg(long, value_name = "FILE")]
    data: Option<PathBuf>,
    /// Corpus Deep-Research mode retrieves from (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// Where to write the prediction lines (default: taxobench-MODE.jsonl here).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Papers retrieved per topic (Deep-Research; default as `litnav map`).
    #[arg(long, short)]
    k: Option<usize>,
    /// Subtopic clustering, as `litnav map --method`.
    #[arg(long, value_enum)]
    method: Option<MethodName>,
    /// With --method llm, as `litnav map --input`.
    #[arg(long, value_enum)]
    input: Option<InputName>,
    /// With --method llm, as `litnav map --llm-batch`.
    #[arg(long, value_name = "PAPERS")]
    llm_batch: Option<usize>,
    /// Organize subtopics with more papers than this again, as `litnav map --recurse-above`.
    #[arg(long, value_name = "PAPERS")]
    recurse_above: Option<usize>,
    /// The relevance floor of retrieved maps (default 0.35, `litnav map`'s without a score
    /// floor: Deep-Research mode organizes all k papers retrieved).
    #[arg(long, value_name = "COSINE")]
    min_relevance: Option<f64>,
    /// Seed of every stochastic step (default: the settings' seed).
    #[arg(long)]
    seed: Option<u64>,
    /// Only the first N instances.
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Label similarity of the hierarchy metrics.
    #[arg(long, value_enum, default_value_t = litnav_app::request::SimilarityName::Embedding)]
    similarity: litnav_app::request::SimilarityName,
    #[command(flatten)]
    llm: LlmArgs,
    #[command(flatten)]
    model: ModelArgs,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// A choice among the task values of a suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TaskArg {
    /// Recall and Precision at 10 and 100.
    Discovery,
    /// Graded nDCG at 10, 30, 100 and MRR.
    Selection,
    /// Mind-maps against the surveys' heading trees.
    Organization,
}

/// A choice among the baseline values of a suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BaselineArg {
    /// The survey's title as the query.
    Title,
    /// One query written by the LLM (needs --llm).
    ZeroShot,
    /// Sub-queries written by the LLM, fused by RRF (needs --llm).
    Decomposer,
    /// Hybrid retrieval with pseudo-relevance feedback.
    Litnav,
}

/// A choice among the retrieval values of a suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RetrievalArg {
    /// BM25 over title and abstract.
    Bm25,
    /// Dense (MiniLM, exact).
    Dense,
    /// BM25 and dense fused by RRF.
    Hybrid,
}

/// A choice among the merge values of a suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MergeArg {
    /// Reciprocal rank fusion, k = 60.
    Rrf,
    /// Raw scores, best first.
    Score,
}

/// How a suite's searches are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ViaArg {
    /// Also as an agent makes them: `search` tool calls to `litnav mcp` over the protocol.
    Mcp,
}

/// The options of `litnav bench researcharena`.
#[derive(Debug, clap::Args)]
pub struct ResearcharenaArgs {
    /// Tasks to run (default: all three).
    #[arg(long, value_enum, value_delimiter = ',')]
    task: Vec<TaskArg>,
    /// Discovery baselines (default: title and litnav, and with --llm zero-shot and decomposer).
    #[arg(long, value_enum, value_delimiter = ',')]
    baseline: Vec<BaselineArg>,
    /// Retrieval models of the query baselines (default: all three).
    #[arg(long, value_enum, value_delimiter = ',')]
    retrieval: Vec<RetrievalArg>,
    /// Corpus with topics (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// Selection grades: litbench's assignments.jsonl (default: the shared one for the built-in
    /// corpus; none for another corpus, so every reference is grade 1).
    #[arg(long, value_name = "FILE")]
    assignments: Option<PathBuf>,
    /// Write qrels.txt and one TREC run per row here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Python with pytrec-eval-terrier: trec_eval scores the same files, every value compared.
    #[arg(long, value_name = "PYTHON")]
    peer: Option<PathBuf>,
    /// How the Decomposer merges its sub-queries' rankings: reciprocal rank fusion (the paper's
    /// text) or raw scores, best first (the paper's public code).
    #[arg(long, value_enum, default_value_t = MergeArg::Rrf)]
    merge: MergeArg,
    /// Run the tasks with litbench inside larger corpora: N distractors each (comma-separated
    /// sizes) — first the datasets' other real papers (AAN, CiteSeer), then synthetic ones made
    /// from them; each corpus is built once under the home.
    #[arg(long, value_name = "N", value_delimiter = ',', conflicts_with = "corpus")]
    distractors: Vec<usize>,
    /// Only the first N topics.
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// `mcp`: run every discovery search again as a `search` tool call to `litnav mcp` (this
    /// binary) through the MCP SDK's client, and report whether the rankings are the same and the
    /// protocol's cost per call.
    #[arg(long, value_enum)]
    via: Option<ViaArg>,
    /// Seed of litnav's map (default: the settings' seed).
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    llm: LlmArgs,
    #[command(flatten)]
    model: ModelArgs,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// The options of `litnav bench expander`.
#[derive(Debug, clap::Args)]
pub struct ExpanderArgs {
    /// Papers per cluster (the seed's 20).
    #[arg(long, default_value_t = 20)]
    cluster_size: usize,
    /// Seed of the cluster samples (default: the settings' seed).
    #[arg(long)]
    seed: Option<u64>,
    /// With --llm: the Subtopic Expander rows (--llm-papers of the cluster shown).
    #[command(flatten)]
    llm: LlmArgs,
    #[command(flatten)]
    model: ModelArgs,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// The options of `litnav bench clusters`.
#[derive(Debug, clap::Args)]
pub struct ClustersArgs {
    /// Papers sampled per topic (the seed's CLUSTREC-COVID takes up to 50).
    #[arg(long, default_value_t = 50)]
    per_topic: usize,
    /// Seed of the sample, the organizer and the random baseline (default: the settings' seed).
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    model: ModelArgs,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// The options of `litnav bench scinet`.
#[derive(Debug, clap::Args)]
pub struct ScinetArgs {
    /// Queries per pair and path family, and subfields of the ego task (at most 10).
    #[arg(long, default_value_t = 50)]
    queries: usize,
    #[command(flatten)]
    model: ModelArgs,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// The options of `litnav bench survey`.
#[derive(Debug, clap::Args)]
pub struct SurveyArgs {
    /// Python with thefuzz, zss and numpy, to run Bloom-Eval's scripts beside litnav.
    #[arg(long, value_name = "PYTHON")]
    peer: Option<PathBuf>,
    /// Bloom-Eval's scripts (default: ../shared/peers/bloom-eval beside the datasets).
    #[arg(long, value_name = "DIR")]
    scripts: Option<PathBuf>,
    #[command(flatten)]
    model: ModelArgs,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// The options of `litnav bench serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Concurrent clients (each sends its next request when the last is answered).
    #[arg(long, default_value_t = 50)]
    clients: usize,
    /// Seconds of load.
    #[arg(long, default_value_t = 60.0)]
    seconds: f64,
    /// The topic of the map the reading requests read.
    #[arg(long, default_value = "uncertainty quantification of large language models")]
    topic: String,
    /// Corpus to serve (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<std::path::PathBuf>,
    /// Send the new queries on a fixed schedule, this many per second in all (open loop; latency
    /// from the time each was due) instead of in a closed loop.
    #[arg(long, value_name = "PER_SECOND")]
    new_query_rate: Option<f64>,
    #[command(flatten)]
    model: ModelArgs,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// The options of `litnav bench map-filter`.
#[derive(Debug, clap::Args)]
pub struct MapFilterArgs {
    /// Papers retrieved per topic (as `litnav map --k`).
    #[arg(long, short, default_value_t = 200)]
    k: usize,
    /// Score floors to compare: shares of the best neighbourhood relevance (0 = every paper).
    #[arg(long, value_delimiter = ',', default_value = "0,0.3,0.32,0.34,0.36")]
    floors: Vec<f32>,
    /// Neighbourhoods the floors judge relevance over (nearest hits), each with every floor.
    #[arg(long, value_delimiter = ',', default_value = "8,20")]
    neighbours: Vec<usize>,
    /// Minimum subtopic relevance values to compare (0 = no filter).
    #[arg(long, value_delimiter = ',', default_value = "0,0.35")]
    thresholds: Vec<f64>,
    #[command(flatten)]
    model: ModelArgs,
    /// Print every topic's counts as JSON.
    #[arg(long)]
    json: bool,
}

/// The options of `litnav bench fetch`.
#[derive(Debug, clap::Args)]
pub struct FetchBenchArgs {
    /// The field to fetch.
    #[arg(long, default_value = "machine translation")]
    topic: String,
    #[command(flatten)]
    params: litnav_app::request::FetchParams,
    #[command(flatten)]
    model: ModelArgs,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// The options of `litnav bench coverage`.
#[derive(Debug, clap::Args)]
pub struct CoverageArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Print every survey's evidence as JSON.
    #[arg(long)]
    json: bool,
}

/// The options of `litnav bench organize-speed`.
#[derive(Debug, clap::Args)]
pub struct OrganizeSpeedArgs {
    /// The topic whose papers are organized.
    #[arg(long, default_value = "machine learning")]
    topic: String,
    /// Papers.
    #[arg(long, short, default_value_t = 1000)]
    k: usize,
    /// Python with umap-learn and scikit-learn for the peer.
    #[arg(long, value_name = "PYTHON")]
    peer: Option<PathBuf>,
    #[command(flatten)]
    model: ModelArgs,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// The options of `litnav bench memory`.
#[derive(Debug, clap::Args)]
pub struct MemoryArgs {
    /// Corpus sizes in papers.
    #[arg(long, value_delimiter = ',', default_values_t = [4_000, 16_000, 64_000])]
    sizes: Vec<usize>,
    /// References per paper in each corpus's synthetic citation graph.
    #[arg(long, default_value_t = 10)]
    refs: usize,
    /// Build the corpora here (kept) instead of in a temporary directory.
    #[arg(long, value_name = "DIR")]
    work: Option<PathBuf>,
    #[command(flatten)]
    model: ModelArgs,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// The options of `litnav bench scale-search`.
#[derive(Debug, clap::Args)]
pub struct ScaleSearchArgs {
    /// Corpus sizes in papers.
    #[arg(long, value_delimiter = ',', default_values_t = [1_000_000])]
    sizes: Vec<usize>,
    /// Title queries for the latencies and the recall.
    #[arg(long, default_value_t = 200)]
    queries: usize,
    /// Build the corpora here (kept) instead of in a temporary directory.
    #[arg(long, value_name = "DIR")]
    work: Option<PathBuf>,
    #[command(flatten)]
    model: ModelArgs,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// The options of `litnav bench scale`.
#[derive(Debug, clap::Args)]
pub struct ScaleArgs {
    /// The analysis: cd, counts, cocitation, coupling or novelty.
    #[arg(long, default_value = "cd")]
    analysis: String,
    /// Graph sizes as PAPERSxREFS (references per paper), ascending.
    #[arg(long, value_delimiter = ',', default_values_t = ["1000000x10".to_string()])]
    sizes: Vec<String>,
    /// CD window in years (`none`: unbounded).
    #[arg(long, default_value = "5")]
    window: String,
    /// Engines, of memory, local, ballista.
    #[arg(long, value_delimiter = ',', default_values_t = ["memory".to_string(), "local".to_string(), "ballista".to_string()])]
    engines: Vec<String>,
    /// Ballista executors.
    #[arg(long, default_value_t = 2)]
    executors: usize,
    /// Task slots per executor.
    #[arg(long, default_value_t = 1)]
    slots: usize,
    /// Memory per executor for its tasks, MiB.
    #[arg(long, value_name = "MIB", default_value_t = 4096)]
    executor_memory: u64,
    /// Memory DataFusion embedded may hold before it spills, MiB (default: no limit).
    #[arg(long, value_name = "MIB")]
    local_memory: Option<usize>,
    /// How the plans cut the work: CD's --ranges, co-citation's and coupling's --groups
    /// (default: each command's own).
    #[arg(long, value_name = "N")]
    cuts: Option<u32>,
    /// Run the cuts as this many separate queries (cd, cocitation, coupling; default: one).
    #[arg(long, value_name = "N")]
    jobs: Option<u32>,
    /// Write the tables here (kept) instead of in a temporary directory.
    #[arg(long, value_name = "DIR")]
    work: Option<PathBuf>,
    /// Measure nothing: merge these `bench scale --json` reports (runs at other sizes) into one,
    /// fitting each engine's power law through all of them (comma-separated files).
    #[arg(long, value_delimiter = ',', value_name = "FILES")]
    merge: Vec<PathBuf>,
    /// Also draw the times and their extrapolation as an SVG plot to this file.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// The options of `litnav bench graph`.
#[derive(Debug, clap::Args)]
pub struct GraphArgs {
    /// Papers of the synthetic graph (0 skips it).
    #[arg(long, default_value_t = 1_000_000)]
    synthetic: usize,
    /// References per synthetic paper.
    #[arg(long, default_value_t = 10)]
    refs: usize,
    /// Null graphs for novelty on the synthetic graph (0 skips novelty there).
    #[arg(long, default_value_t = 0)]
    nulls: usize,
    /// Novelty's memory budget on the synthetic graph, MiB: for one partition's pair counts, and
    /// for the null graphs kept in memory (beyond it they wait in temporary files).
    #[arg(long, value_name = "MIB", default_value_t = 256)]
    novelty_budget: usize,
    /// Python for the dict-of-sets peer on AAN (any Python 3; e.g. `python3`).
    #[arg(long, value_name = "PYTHON")]
    peer: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// The options of `litnav bench organize`.
#[derive(Debug, clap::Args)]
pub struct OrganizeArgs {
    /// Seed of the organizer (default: the settings' seed, 42).
    #[arg(long)]
    seed: Option<u64>,
    /// Model directory (default: $LITNAV_MODEL or ~/.cache/litnav/models/all-MiniLM-L6-v2).
    #[arg(long, value_name = "DIR")]
    model: Option<PathBuf>,
    /// Also the 14 litbench Bloom-Eval topics: their references organized, scored against the
    /// survey outlines with each reference at its primary section (NSR = heading soft recall).
    #[arg(long)]
    bloom: bool,
    /// Organize subtopics with more papers than this again, as `litnav map --recurse-above` does.
    #[arg(long, value_name = "N")]
    recurse_above: Option<usize>,
    /// With --llm: also the LLM stage on the default method's maps and the LLM Bottom-Up organizer (`map --method llm`) and Direct-Gen.
    #[command(flatten)]
    llm: LlmArgs,
    /// Print the rows as JSON.
    #[arg(long)]
    json: bool,
}

/// The options of `litnav bench corrections`.
#[derive(Debug, clap::Args)]
pub struct CorrectionsArgs {
    /// Seed of the organizer (default: the settings' seed, 42).
    #[arg(long)]
    seed: Option<u64>,
    /// Model directory (default: $LITNAV_MODEL or ~/.cache/litnav/models/all-MiniLM-L6-v2).
    #[arg(long, value_name = "DIR")]
    model: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// The options of `litnav bench eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// TaxoBench data.jsonl (default: the shared TaxoBench example).
    #[arg(long, value_name = "FILE")]
    data: Option<PathBuf>,
    /// Predictions (default: the shared example predictions).
    #[arg(long, value_name = "FILE")]
    predictions: Option<PathBuf>,
    /// Repetitions (median reported).
    #[arg(long, default_value_t = 3)]
    repeats: usize,
    /// Python with numpy and scikit-learn: runs the public TaxoBench scorer beside litnav's
    /// `--similarity public`.
    #[arg(long, value_name = "PYTHON")]
    peer: Option<PathBuf>,
    /// The public scorer's repository (default: ../shared/peers/taxobench beside the datasets).
    #[arg(long, value_name = "DIR")]
    public_scorer: Option<PathBuf>,
    /// Python with sentence-transformers, scikit-learn and SciPy: runs a Python implementation of
    /// the seed's definitions with the same encoder beside litnav's default similarity.
    #[arg(long, value_name = "PYTHON")]
    embedding_peer: Option<PathBuf>,
    /// Model directory (default: $LITNAV_MODEL or ~/.cache/litnav/models/all-MiniLM-L6-v2).
    #[arg(long, value_name = "DIR")]
    model: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// The options of `litnav bench dense`.
#[derive(Debug, clap::Args)]
pub struct DenseArgs {
    /// Corpus (default: the built-in litbench corpus); its vectors are computed if missing.
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// Queries (titles sampled evenly from the corpus).
    #[arg(long, default_value_t = 200)]
    queries: usize,
    /// IVF clusters (default ⌈2·√n⌉).
    #[arg(long)]
    lists: Option<usize>,
    /// Clusters probed per query (default max(8, lists/8)).
    #[arg(long)]
    probes: Option<usize>,
    /// Measure on this many vectors made from the corpus's real ones (each a real vector plus
    /// seeded Gaussian noise, renormalized), in memory, instead of the corpus's own.
    #[arg(long, value_name = "N")]
    synthetic: Option<usize>,
    #[command(flatten)]
    model: ModelArgs,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// The options of `litnav bench discovery`.
#[derive(Debug, clap::Args)]
pub struct DiscoveryArgs {
    /// Corpus with topics (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    #[command(flatten)]
    model: ModelArgs,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// The options of `litnav bench embed`.
#[derive(Debug, clap::Args)]
pub struct EmbedArgs {
    /// Labels (3–8 word survey headings) to encode.
    #[arg(long, default_value_t = 2000)]
    labels: usize,
    /// Title + abstract passages to encode.
    #[arg(long, default_value_t = 200)]
    passages: usize,
    /// Threads for litnav and the peer (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Timed repetitions (median reported).
    #[arg(long, default_value_t = 3)]
    repeats: usize,
    /// Also run sentence-transformers with this Python (which must have it installed, e.g. a venv
    /// made with `python3 -m venv V && V/bin/pip install sentence-transformers`).
    #[arg(long, value_name = "PYTHON")]
    peer: Option<PathBuf>,
    /// Model directory (default: $LITNAV_MODEL or ~/.cache/litnav/models/all-MiniLM-L6-v2).
    #[arg(long, value_name = "DIR")]
    model: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// The options of `litnav bench search`.
#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// Paper files to index (default: litbench's corpus.jsonl).
    #[arg(long, value_name = "FILE")]
    papers: Vec<PathBuf>,
    /// Size of the synthetic corpus (0 skips it).
    #[arg(long, default_value_t = 100_000)]
    synthetic: usize,
    /// Queries sampled from the corpus titles.
    #[arg(long, default_value_t = 300)]
    queries: usize,
    /// Hits per query.
    #[arg(long, short, default_value_t = 10)]
    k: usize,
    /// Index builds per corpus (median reported).
    #[arg(long, default_value_t = 3)]
    builds: usize,
    /// Timed passes over the queries.
    #[arg(long, default_value_t = 3)]
    passes: usize,
    /// Also run the Python peer (bm25s, `pip install bm25s PyStemmer`) on the same corpora and
    /// queries, and report litnav's speed-up over it.
    #[arg(long)]
    peer: bool,
    /// Measure known-item search instead: N titles (200 when no N is given) of the built-in
    /// corpus and of AAN searched exactly, with a typo and with a word left out by the default
    /// search, and how often their paper comes first.
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "200")]
    known_items: Option<usize>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// Run `suite`; returns what to print (its report as JSON with `--json`, else its table).
pub fn run(suite: Suite, face: &dyn Face) -> Result<String> {
    match suite {
        Suite::Search(args) => run_search(face, args),
        Suite::Embed(args) => run_embed(face, args),
        Suite::Discovery(args) => {
            let (workspace, session) = open(face, &args.model, args.corpus.as_deref())?;
            let progress = face.start("scoring every topic");
            show(&crate::discovery::run_session(&workspace, &session)?, args.json, progress)
        }
        Suite::Dense(args) => {
            let (workspace, session) = open(face, &args.model, args.corpus.as_deref())?;
            let progress = face.start("measuring IVF against exact search");
            let shape = crate::dense::Shape {
                queries: args.queries,
                lists: args.lists,
                probes: args.probes,
                synthetic: args.synthetic,
            };
            let report = crate::dense::run_session(&workspace, &session, shape)?;
            show(&report, args.json, progress)
        }
        Suite::Eval(args) => run_eval(face, args),
        Suite::Organize(args) => run_organize(face, args),
        Suite::Corrections(args) => run_corrections(face, args),
        Suite::Graph(args) => run_graph(face, args),
        Suite::Memory(args) => run_memory(face, args),
        Suite::ScaleSearch(args) => run_scale_search(face, args),
        Suite::Scale(args) => run_scale(face, args),
        Suite::OrganizeSpeed(args) => {
            let (workspace, session) = open(face, &args.model, None)?;
            let progress = face.start(&format!("organizing the top {} papers", args.k));
            let report = crate::organize::speed_suite(&workspace, &session, &args.topic, args.k, args.peer.as_deref())?;
            show(&report, args.json, progress)
        }
        Suite::Survey(args) => {
            let workspace = args.model.workspace()?;
            let datasets = workspace.settings().datasets()?.to_path_buf();
            let scripts = args.scripts.clone().unwrap_or_else(|| datasets.join("../peers/bloom-eval"));
            let progress = face.start("scoring the Bloom-Eval surveys");
            let peer = args.peer.as_deref().map(|python| (python, scripts.as_path()));
            show(&crate::survey::run(&workspace, &datasets.join("bloom-eval"), peer)?, args.json, progress)
        }
        Suite::Scinet(args) => {
            let workspace = args.model.workspace()?;
            let progress = face.start("SciNet's tasks");
            show(&crate::scinet::run(&workspace, args.queries, &*progress)?, args.json, progress)
        }
        Suite::Clusters(args) => {
            let (workspace, session) = open(face, &args.model, None)?;
            let seed = args.seed.unwrap_or(workspace.settings().seed);
            let progress = face.start("clustering litbench's topics");
            show(&crate::clusters::run(&workspace, &session, args.per_topic, seed)?, args.json, progress)
        }
        Suite::Taxobench(args) => run_taxobench(face, args),
        Suite::Researcharena(args) => run_researcharena(face, args),
        Suite::Expander(args) => {
            let (workspace, session) = open(face, &args.model, None)?;
            let client = args.llm.client(&workspace)?;
            let options = crate::expander::ExpanderOptions {
                cluster_size: args.cluster_size,
                llm_papers: args.llm.papers(),
                llm: client.as_ref(),
                seed: args.seed.unwrap_or(workspace.settings().seed),
            };
            let progress = face.start("expanding litbench's topics");
            show(&crate::expander::run(&workspace, &session, options)?, args.json, progress)
        }
        Suite::Serve(args) => {
            if args.clients == 0 || args.clients > 500 || !(args.seconds > 0.0 && args.seconds <= 600.0) {
                return Err(Error::input("clients must be 1 to 500 and seconds at most 600 (load stays bounded)"));
            }
            if args.new_query_rate.is_some_and(|rate| !(rate > 0.0 && rate <= 1000.0)) {
                return Err(Error::input("new_query_rate must be above 0 and at most 1000 per second"));
            }
            // The server under load encodes queries as `litnav serve` does.
            let workspace = args.model.serving_workspace()?;
            let corpus = workspace.corpus_dir(args.corpus.as_deref(), &*face.progress())?;
            let progress = face.start("building a map, then loading the server");
            let options = crate::serve::Options {
                clients: args.clients,
                seconds: args.seconds,
                topic: args.topic,
                new_query_rate: args.new_query_rate,
            };
            show(&crate::serve::run(workspace, corpus, &options)?, args.json, progress)
        }
        Suite::Fetch(args) => {
            let workspace = args.model.workspace()?;
            let progress = face.start("fetching a field from the OpenAlex stand-in");
            let report = crate::fetch::run(&workspace, &args.topic, &args.params, &*progress)?;
            show(&report, args.json, progress)
        }
        Suite::Coverage(args) => {
            let workspace = args.model.workspace()?;
            let litbench = workspace.settings().datasets()?.join("litbench");
            let progress = face.start("mapping every litbench survey with and without its references");
            let report = crate::coverage::run(&workspace, &litbench, &*progress)?;
            show(&report, args.json, progress)
        }
        Suite::MapFilter(args) => {
            let (workspace, session) = open(face, &args.model, None)?;
            let litbench = workspace.settings().datasets()?.join("litbench");
            let progress = face.start("retrieving and organizing every litbench topic");
            let settings = crate::map_filter::settings(&args.neighbours, &args.floors, &args.thresholds);
            let report = crate::map_filter::run(&workspace, &session, &litbench, args.k, &settings)?;
            show(&report, args.json, progress)
        }
    }
}

/// The workspace of these model flags and a session on the corpus (default: built-in).
fn open(
    face: &dyn Face,
    model: &ModelArgs,
    corpus: Option<&std::path::Path>,
) -> Result<(litnav_app::Workspace, litnav_app::CorpusSession)> {
    let workspace = model.workspace()?;
    let session = workspace.open(corpus, &*face.progress())?;
    Ok((workspace, session))
}

/// Print a report: as JSON, or as its table.
fn show<T: serde::Serialize + std::fmt::Display>(
    report: &T,
    json: bool,
    progress: Box<dyn Progress + '_>,
) -> Result<String> {
    drop(progress);
    if json {
        let text = serde_json::to_string_pretty(report).map_err(|e| Error::internal(e.to_string()))?;
        return Ok(text + "\n");
    }
    Ok(report.to_string())
}

fn datasets() -> Result<PathBuf> {
    Ok(Workspace::load()?.settings().datasets()?.to_path_buf())
}

fn run_memory(face: &dyn Face, args: MemoryArgs) -> Result<String> {
    let workspace = args.model.workspace()?;
    let progress = face.start("memory of each command at each corpus size");
    // Installs the default encoder when missing, so that every size measures the same model.
    workspace.encoder(&*progress)?;
    let mut sizes = args.sizes.clone();
    sizes.sort_unstable();
    sizes.dedup();
    let datasets = workspace.settings().datasets()?.to_path_buf();
    let options = crate::memory::Options {
        litnav: std::env::current_exe().map_err(Error::from)?,
        papers: datasets.join("litbench/corpus.jsonl"),
        datasets,
        model: workspace.settings().model_dir.clone(),
        sizes,
        refs: args.refs,
        work: args.work,
    };
    let report = crate::memory::run(&options)?;
    show(&report, args.json, progress)
}

fn run_scale_search(face: &dyn Face, args: ScaleSearchArgs) -> Result<String> {
    let workspace = args.model.workspace()?;
    let progress = face.start("search and maps at scale");
    let mut sizes = args.sizes.clone();
    sizes.sort_unstable();
    sizes.dedup();
    let options = crate::scale_search::Options {
        litnav: std::env::current_exe().map_err(Error::from)?,
        sizes,
        work: args.work,
        queries: args.queries,
        seed: workspace.settings().seed,
    };
    let report = crate::scale_search::run(&workspace, &options, &*progress)?;
    show(&report, args.json, progress)
}

#[cfg(feature = "analytics")]
fn run_scale(face: &dyn Face, args: ScaleArgs) -> Result<String> {
    let sizes = args
        .sizes
        .iter()
        .map(|size| {
            size.split_once('x')
                .and_then(|(papers, refs)| Some((papers.parse().ok()?, refs.parse().ok()?)))
                .ok_or_else(|| Error::input(format!("sizes: `{size}` is not PAPERSxREFS (e.g. 1000000x10)")))
        })
        .collect::<Result<Vec<(usize, usize)>>>()?;
    let window = match args.window.as_str() {
        "none" => None,
        years => Some(
            years.parse().map_err(|_| Error::input(format!("window: `{years}` is not a number of years or `none`")))?,
        ),
    };
    if !crate::scale::ANALYSES.contains(&args.analysis.as_str()) {
        let known = crate::scale::ANALYSES.join(", ");
        return Err(Error::input(format!("analysis: `{}` is not one of {known}", args.analysis)));
    }
    if let Some(engine) = args.engines.iter().find(|e| !crate::scale::ENGINES.contains(&e.as_str())) {
        return Err(Error::input(format!("engines: `{engine}` is not one of memory, local, ballista")));
    }
    let options = crate::scale::Options {
        analysis: args.analysis,
        litnav: std::env::current_exe().map_err(Error::from)?,
        sizes,
        window,
        engines: args.engines,
        executors: args.executors,
        slots: args.slots,
        executor_memory_mib: args.executor_memory,
        local_memory_mib: args.local_memory,
        cuts: args.cuts,
        jobs: args.jobs,
        seed: 1,
        work: args.work,
    };
    let progress = face.start(&format!("computing {} on every engine", options.analysis));
    let report = if args.merge.is_empty() {
        crate::scale::run(&options, &*progress)?
    } else {
        let reports = args
            .merge
            .iter()
            .map(|file| {
                let text = std::fs::read_to_string(file).map_err(|e| Error::io(file, &e))?;
                serde_json::from_str(&text)
                    .map_err(|e| Error::input(format!("{}: not a `bench scale --json` report: {e}", file.display())))
            })
            .collect::<Result<Vec<_>>>()?;
        crate::scale::merge(reports)?
    };
    if let Some(file) = &args.plot {
        std::fs::write(file, crate::scale::plot(&report)).map_err(|e| Error::io(file, &e))?;
    }
    show(&report, args.json, progress)
}

#[cfg(not(feature = "analytics"))]
fn run_scale(face: &dyn Face, args: ScaleArgs) -> Result<String> {
    let _ = (face, args);
    Err(Error::input(
        "this litnav was built without the `analytics` feature (DataFusion and Ballista): rebuild with `cargo build --release --features analytics`",
    ))
}

fn run_graph(face: &dyn Face, args: GraphArgs) -> Result<String> {
    let aan = datasets()?.join("citations/aan");
    let progress = face.start("CD and novelty for every AAN paper");
    let corpus = crate::graph::corpus(&aan.join("papers.jsonl"), &aan.join("citations.csv"), args.peer.as_deref())?;
    let synthetic = (args.synthetic > 0)
        .then(|| {
            progress.stage(&format!("synthetic graph of {} papers", args.synthetic));
            crate::graph::synthetic(
                args.synthetic,
                args.refs,
                args.nulls,
                args.novelty_budget << 20,
                litnav_core::DEFAULT_SEED,
            )
        })
        .transpose()?;
    let report = crate::graph::Report { aan: corpus, synthetic, synthetic_nulls: args.nulls };
    show(&report, args.json, progress)
}

fn run_organize(face: &dyn Face, args: OrganizeArgs) -> Result<String> {
    let workspace = match &args.model {
        Some(dir) => Workspace::load()?.with_model_dir(dir.clone()),
        None => Workspace::load()?,
    };
    let taxobench = workspace.settings().datasets()?.join("taxobench");
    let options = litnav_organize::Options {
        seed: args.seed.unwrap_or(workspace.settings().seed),
        recurse_above: args.recurse_above,
        ..Default::default()
    };
    let progress = face.start("organizing the TaxoBench instances");
    let client = args.llm.client(&workspace)?;
    let stage =
        client.as_ref().map(|client| crate::organize::LlmStage { client, papers_per_cluster: args.llm.papers() });
    let mut report = crate::organize::run(
        &workspace,
        &taxobench.join("data.jsonl"),
        &taxobench.join("predictions_example.jsonl"),
        options,
        stage,
    )?;
    if args.bloom {
        progress.stage("organizing the litbench Bloom-Eval topics");
        let topics = bloom_topics_of(&workspace, &*progress)?;
        let bloom = crate::organize::run_bloom(&topics, &workspace, options, stage)?;
        report.rows.extend(bloom.rows);
        report.ceilings.extend(bloom.ceilings);
        report.failures.extend(bloom.failures);
    }
    show(&report, args.json, progress)
}

/// The litbench Bloom-Eval topics with their references' vectors (computed once, before any topic).
fn bloom_topics_of(workspace: &Workspace, progress: &dyn Progress) -> Result<Vec<crate::organize::BloomTopic>> {
    let session = workspace.open(None, progress)?;
    let encoder = workspace.encoder(progress)?;
    session.dense(encoder, progress)?;
    let docs_for = |ids: &[String]| session.docs(ids, encoder, progress).unwrap_or_default();
    let litbench = workspace.settings().datasets()?.join("litbench");
    crate::organize::bloom_topics(&litbench, &docs_for)
}

fn run_corrections(face: &dyn Face, args: CorrectionsArgs) -> Result<String> {
    let workspace = match &args.model {
        Some(dir) => Workspace::load()?.with_model_dir(dir.clone()),
        None => Workspace::load()?,
    };
    let options =
        litnav_organize::Options { seed: args.seed.unwrap_or(workspace.settings().seed), ..Default::default() };
    let progress = face.start("correcting litnav's maps where the expert agrees");
    let topics = bloom_topics_of(&workspace, &*progress)?;
    let data = workspace.settings().datasets()?.join("taxobench/data.jsonl");
    let report = crate::corrections::run(&workspace, &data, &topics, options)?;
    show(&report, args.json, progress)
}

fn run_researcharena(face: &dyn Face, args: ResearcharenaArgs) -> Result<String> {
    use crate::researcharena::{Baseline, Merge, Options, Retrieval, Task, read_grades, run};
    let (workspace, session) = open(face, &args.model, args.corpus.as_deref())?;
    let client = args.llm.client(&workspace)?;
    let tasks = if args.task.is_empty() {
        vec![TaskArg::Discovery, TaskArg::Selection, TaskArg::Organization]
    } else {
        args.task
    };
    let baselines = if !args.baseline.is_empty() {
        args.baseline
    } else if client.is_some() {
        vec![BaselineArg::Title, BaselineArg::ZeroShot, BaselineArg::Decomposer, BaselineArg::Litnav]
    } else {
        vec![BaselineArg::Title, BaselineArg::Litnav]
    };
    let retrievals = if args.retrieval.is_empty() {
        vec![RetrievalArg::Bm25, RetrievalArg::Dense, RetrievalArg::Hybrid]
    } else {
        args.retrieval
    };
    let assignments = match (args.assignments, &args.corpus) {
        (Some(path), _) => Some(path),
        (None, None) => Some(workspace.settings().datasets()?.join("litbench/assignments.jsonl")),
        (None, Some(_)) => None,
    };
    let options = Options {
        tasks: tasks
            .into_iter()
            .map(|t| match t {
                TaskArg::Discovery => Task::Discovery,
                TaskArg::Selection => Task::Selection,
                TaskArg::Organization => Task::Organization,
            })
            .collect(),
        baselines: baselines
            .into_iter()
            .map(|b| match b {
                BaselineArg::Title => Baseline::Title,
                BaselineArg::ZeroShot => Baseline::ZeroShot,
                BaselineArg::Decomposer => Baseline::Decomposer,
                BaselineArg::Litnav => Baseline::Litnav,
            })
            .collect(),
        retrievals: retrievals
            .into_iter()
            .map(|r| match r {
                RetrievalArg::Bm25 => Retrieval::Bm25,
                RetrievalArg::Dense => Retrieval::Dense,
                RetrievalArg::Hybrid => Retrieval::Hybrid,
            })
            .collect(),
        llm: client.as_ref(),
        grades: assignments.as_deref().map(read_grades).transpose()?.unwrap_or_default(),
        limit: args.limit,
        out: args.out,
        peer: args.peer,
        merge: match args.merge {
            MergeArg::Rrf => Merge::Rrf,
            MergeArg::Score => Merge::Score,
        },
        organizer: litnav_organize::Options {
            seed: args.seed.unwrap_or(workspace.settings().seed),
            ..Default::default()
        },
        via_mcp: match args.via {
            Some(ViaArg::Mcp) => Some(std::env::current_exe()?),
            None => None,
        },
    };
    let progress = face.start("running ResearchArena's tasks");
    if !args.distractors.is_empty() {
        let report = crate::distractors::run(&workspace, &args.distractors, &options, &*progress)?;
        return show(&report, args.json, progress);
    }
    show(&run(&workspace, &session, &options)?, args.json, progress)
}

fn run_taxobench(face: &dyn Face, args: TaxobenchArgs) -> Result<String> {
    use crate::taxobench::{Mode, Options};
    let workspace = args.model.workspace()?;
    let mode = match args.mode {
        ModeArg::DeepResearch => Mode::DeepResearch,
        ModeArg::BottomUp => Mode::BottomUp,
    };
    // The organizer's options are a map's, checked as `litnav map` checks them.
    let params = MapParams {
        topic: Some(mode.name().to_string()),
        k: args.k,
        method: args.method,
        input: args.input,
        llm_batch: args.llm_batch,
        recurse_above: args.recurse_above,
        min_relevance: args.min_relevance,
        seed: args.seed,
        llm: args.llm.llm.then_some(true),
        llm_papers: args.llm.llm_papers,
        ..MapParams::default()
    };
    let map = params.resolve(workspace.settings().seed)?;
    let client = if params.needs_llm() { Some(args.llm.required(&workspace)?) } else { None };
    let k = params.filled().k.unwrap_or_default();
    let session = match mode {
        Mode::DeepResearch => Some(workspace.open(args.corpus.as_deref(), &*face.progress())?),
        Mode::BottomUp => None,
    };
    let options = Options {
        mode,
        data: match args.data {
            Some(path) => path,
            None => workspace.settings().datasets()?.join("taxobench/data.jsonl"),
        },
        predictions_out: args.out.unwrap_or_else(|| PathBuf::from(format!("taxobench-{}.jsonl", mode.name()))),
        k,
        organizer: map.options,
        min_relevance: map.min_relevance,
        llm: client.as_ref(),
        llm_papers: map.llm_papers,
        bottom_up: map.bottom_up,
        similarity: args.similarity.kind(),
        limit: args.limit,
    };
    let progress = face.start(&format!("TaxoBench, {} mode", mode.name()));
    let report = crate::taxobench::run(&workspace, session.as_ref(), &options, &*progress)?;
    show(&report, args.json, progress)
}

fn run_eval(face: &dyn Face, args: EvalArgs) -> Result<String> {
    let workspace = Workspace::load()?;
    let datasets = workspace.settings().datasets()?;
    let taxobench = datasets.join("taxobench");
    let data = args.data.unwrap_or_else(|| taxobench.join("data.jsonl"));
    let predictions = args.predictions.unwrap_or_else(|| taxobench.join("predictions_example.jsonl"));
    let model = args.model.unwrap_or_else(|| workspace.settings().model_dir.clone());
    let labels = workspace.settings().vector_cache("labels");
    let progress = face.start("benchmarking TaxoBench scoring");
    let peers = crate::scoring::Peers {
        public_python: args.peer.as_deref(),
        public_package: args.public_scorer.unwrap_or_else(|| datasets.join("../peers/taxobench")),
        embedding_python: args.embedding_peer.as_deref(),
    };
    let report = crate::scoring::bench(&data, &predictions, &model, &labels, args.repeats, &peers)?;
    show(&report, args.json, progress)
}

fn run_embed(face: &dyn Face, args: EmbedArgs) -> Result<String> {
    let workspace = Workspace::load()?;
    let options = crate::embed::Options {
        litbench: workspace.settings().datasets()?.join("litbench"),
        model: args.model.unwrap_or_else(|| workspace.settings().model_dir.clone()),
        labels: args.labels,
        passages: args.passages,
        threads: args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        repeats: args.repeats,
        peer_python: args.peer,
    };
    let progress = face.start("benchmarking the sentence encoder");
    show(&crate::embed::run(&options)?, args.json, progress)
}

fn run_search(face: &dyn Face, args: SearchArgs) -> Result<String> {
    if let Some(sample) = args.known_items {
        let workspace = Workspace::load()?;
        let progress = face.start("benchmarking known-item search");
        let report = crate::known_items::run(&workspace, sample, &*progress)?;
        return show(&report, args.json, progress);
    }
    let papers = if args.papers.is_empty() { vec![datasets()?.join("litbench/corpus.jsonl")] } else { args.papers };
    let options = search::Options {
        papers,
        queries: Vec::new(),
        sample_queries: args.queries,
        synthetic_size: args.synthetic,
        build_repeats: args.builds,
        query_passes: args.passes,
        k: args.k,
        peer: args.peer,
    };
    let progress = face.start("benchmarking lexical search");
    show(&search::run(&options)?, args.json, progress)
}
