//! `litnav bench …`: benchmark suites.

use anyhow::Result;
use clap::Subcommand;
use litnav_bench::search;
use std::path::PathBuf;

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
    /// TaxoBench scoring speed: `litnav eval taxobench` on TaxoBench's files, against a Python
    /// implementation of the same metrics (with --peer), same files, same run.
    Eval(EvalArgs),
    /// Organizer quality: Bottom-Up maps of the TaxoBench instances scored against the expert
    /// taxonomies (ARI, V-measure, Sem-Path, US-NTED), beside the shipped LLM trees.
    Organize(OrganizeArgs),
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
}

#[derive(Debug, clap::Args)]
pub struct MapFilterArgs {
    /// Papers retrieved per topic (as `litnav map --k`).
    #[arg(long, short, default_value_t = 200)]
    k: usize,
    /// Minimum subtopic relevance values to compare (0 = no filter).
    #[arg(long, value_delimiter = ',', default_value = "0,0.3,0.35,0.4,0.45,0.5")]
    thresholds: Vec<f64>,
    #[command(flatten)]
    model: super::embed::ModelArgs,
    /// Print every topic's counts as JSON.
    #[arg(long)]
    json: bool,
}

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
    model: super::embed::ModelArgs,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

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
    /// Python for the dict-of-sets peer on AAN (any Python 3; e.g. `python3`).
    #[arg(long, value_name = "PYTHON")]
    peer: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct OrganizeArgs {
    /// Seed of the organizer.
    #[arg(long, default_value_t = 42)]
    seed: u64,
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
    /// With --llm: also the LLM stage on the default method's maps and the one-call Bottom-Up LLM organizer.
    #[command(flatten)]
    llm: super::llm::LlmArgs,
    /// Print the rows as JSON.
    #[arg(long)]
    json: bool,
}

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
    /// Python with sentence-transformers, scikit-learn and SciPy, for the peer.
    #[arg(long, value_name = "PYTHON")]
    peer: Option<PathBuf>,
    /// Model directory (default: $LITNAV_MODEL or ~/.cache/litnav/models/all-MiniLM-L6-v2).
    #[arg(long, value_name = "DIR")]
    model: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

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
    #[command(flatten)]
    model: super::embed::ModelArgs,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct DiscoveryArgs {
    /// Corpus with topics (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    #[command(flatten)]
    model: super::embed::ModelArgs,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

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
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(suite: Suite) -> Result<()> {
    match suite {
        Suite::Search(args) => run_search(args),
        Suite::Embed(args) => run_embed(args),
        Suite::Discovery(args) => run_discovery(args),
        Suite::Dense(args) => run_dense(args),
        Suite::Eval(args) => run_eval(args),
        Suite::Organize(args) => run_organize(args),
        Suite::Graph(args) => run_graph(args),
        Suite::OrganizeSpeed(args) => run_organize_speed(args),
        Suite::MapFilter(args) => run_map_filter(args),
    }
}

fn run_map_filter(args: MapFilterArgs) -> Result<()> {
    use litnav_bench::map_filter;
    let encoder = args.model.load()?;
    let dir = crate::defaults::corpus(None)?;
    let topics = map_filter::survey_topics(&crate::defaults::datasets()?.join("litbench"))?;
    let embed = |texts: &[String]| encoder.embed(texts);
    let bar = crate::progress::spinner(&format!("retrieving and organizing {} topics", topics.len()));
    let corpus = super::map::CorpusDocs::open(&dir, &encoder)?;
    let mut cells = Vec::new();
    for topic in &topics {
        let docs = corpus.for_topic(&topic.title, args.k)?;
        let topic_vector = encoder.embed(&[topic.title.as_str()]).pop().unwrap_or_default();
        let options = litnav_organize::Options::default();
        cells.extend(map_filter::measure(topic, &topic_vector, &docs, &embed, &args.thresholds, options));
    }
    bar.finish_and_clear();
    let summary = map_filter::summarize(&cells, &args.thresholds);
    if args.json {
        return super::print_json(&serde_json::json!({ "k": args.k, "summary": summary, "topics": cells }));
    }
    println!("{} litbench topics, top {} papers each; relevant = the survey's references", topics.len(), args.k);
    println!("{:>9}  {:>11}  {:>9}  {:>6}", "threshold", "kept papers", "precision", "recall");
    for row in &summary {
        println!("{:>9.2}  {:>11.1}  {:>9.3}  {:>6.3}", row.threshold, row.kept, row.precision, row.recall);
    }
    Ok(())
}

fn run_organize_speed(args: OrganizeSpeedArgs) -> Result<()> {
    let encoder = args.model.load()?;
    let dir = crate::defaults::corpus(None)?;
    let docs = super::map::docs_from_corpus(&dir, &args.topic, args.k, &encoder)?;
    let topic_vector = encoder.embed(&[args.topic.as_str()]).pop().unwrap_or_default();
    let embed = |texts: &[String]| encoder.embed(texts);
    let bar = crate::progress::spinner(&format!("organizing {} papers", docs.len()));
    let report = litnav_bench::organize::speed(&args.topic, &topic_vector, &docs, &embed, args.peer.as_deref());
    bar.finish_and_clear();
    let (timings, peer) = report?;
    if args.json {
        return super::print_json(&serde_json::json!({ "papers": docs.len(), "litnav": timings, "python": peer }));
    }
    println!("organizing {} litbench papers for {:?} (vectors cached):", docs.len(), args.topic);
    for t in &timings {
        println!("  litnav {:<24} {:>7.2} s  {} subtopics", t.method, t.seconds, t.subtopics);
    }
    if let Some(p) = peer {
        println!(
            "  Python UMAP + HDBSCAN + c-TF-IDF {:>7.2} s  ({:.2} UMAP, {:.2} HDBSCAN, {:.2} c-TF-IDF; imports {:.1} s more), {} clusters, {} outliers",
            p.umap_seconds + p.hdbscan_seconds + p.ctfidf_seconds,
            p.umap_seconds,
            p.hdbscan_seconds,
            p.ctfidf_seconds,
            p.imports_seconds,
            p.clusters,
            p.outliers
        );
    }
    Ok(())
}

fn run_graph(args: GraphArgs) -> Result<()> {
    let aan = crate::defaults::datasets()?.join("citations/aan");
    let bar = crate::progress::spinner("CD and novelty for every AAN paper");
    let corpus =
        litnav_bench::graph::corpus(&aan.join("papers.jsonl"), &aan.join("citations.csv"), args.peer.as_deref());
    bar.finish_and_clear();
    let corpus = corpus?;
    let synthetic = (args.synthetic > 0).then(|| {
        let bar = crate::progress::spinner(&format!("synthetic graph of {} papers", args.synthetic));
        let report = litnav_bench::graph::synthetic(args.synthetic, args.refs, args.nulls, 42);
        bar.finish_and_clear();
        report
    });
    if args.json {
        return super::print_json(&serde_json::json!({ "aan": corpus, "synthetic": synthetic }));
    }
    println!("AAN: {} papers, {} edges; graph built in {:.3} s", corpus.papers, corpus.edges, corpus.build_seconds);
    println!(
        "  CD for every paper: {:.4} s on 1 thread, {:.4} s on all; {} papers have a value",
        corpus.cd_seconds_one_thread, corpus.cd_seconds_all_threads, corpus.cd_defined
    );
    println!("  novelty (10 null graphs): {:.3} s", corpus.novelty_seconds);
    if let (Some(peer), Some(one), Some(all)) = (&corpus.peer, corpus.speedup_one_thread, corpus.speedup_all_threads) {
        println!(
            "  Python dict-of-sets: {:.3} s for CD (same values); litnav {one:.0}x faster on 1 thread, {all:.0}x on all",
            peer.cd_seconds
        );
    }
    if let Some(s) = synthetic {
        println!("synthetic: {} papers, {} edges, generated in {:.2} s", s.papers, s.edges, s.generate_seconds);
        println!("  CD for every paper: {:.2} s ({:.0} papers/s)", s.cd_seconds, s.cd_papers_per_second);
        if let Some(mib) = s.peak_memory_mib_after_cd {
            println!("  peak memory of the process after CD: {mib:.0} MiB");
        }
        if let Some(seconds) = s.novelty_seconds {
            println!("  novelty ({} null graphs, references as units): {seconds:.2} s", args.nulls);
        }
        if let Some(mib) = s.peak_memory_mib_after_novelty {
            println!("  peak memory after novelty: {mib:.0} MiB");
        }
    }
    Ok(())
}

fn run_organize(args: OrganizeArgs) -> Result<()> {
    let taxobench = crate::defaults::datasets()?.join("taxobench");
    let model = args.model.unwrap_or_else(litnav_embed::install::default_model_dir);
    let encoder = litnav_embed::Encoder::load(&model)?;
    let options = litnav_organize::Options { seed: args.seed, recurse_above: args.recurse_above, ..Default::default() };
    let bar = crate::progress::spinner("organizing the TaxoBench instances");
    let client = args.llm.client()?;
    let report = litnav_bench::organize::run(
        &taxobench.join("data.jsonl"),
        &taxobench.join("predictions_example.jsonl"),
        &encoder,
        options,
        client
            .as_ref()
            .map(|client| litnav_bench::organize::LlmStage { client, papers_per_cluster: args.llm.llm_papers }),
    );
    bar.finish_and_clear();
    let mut report = report?;
    if args.bloom {
        let bar = crate::progress::spinner("organizing the litbench Bloom-Eval topics");
        let dir = crate::defaults::corpus(None)?;
        let corpus = super::map::CorpusDocs::open(&dir, &encoder)?;
        let docs_for = |ids: &[String]| corpus.for_ids(ids);
        let topics = litnav_bench::organize::bloom_topics(&crate::defaults::datasets()?.join("litbench"), &docs_for)?;
        let bloom = litnav_bench::organize::run_bloom(&topics, &encoder, options);
        report.rows.extend(bloom.rows);
        report.ceilings.extend(bloom.ceilings);
        bar.finish_and_clear();
    }
    if args.json {
        return super::print_json(&report);
    }
    let rows = &report.rows;
    println!("Bottom-Up organization: TaxoBench instances (truth: expert taxonomies) and, with --bloom, litbench");
    println!(
        "Bloom-Eval topics (truth: survey outlines, references at their primary sections). NSR = heading soft recall."
    );
    let header = || {
        println!(
            "{:<6} {:<46} {:>6} {:>7} {:>7} {:>9} {:>8} {:>6} {:>8}",
            "id", "method", "papers", "ARI", "V", "Sem-Path", "US-NTED", "NSR", "seconds"
        )
    };
    let line = |id: &str, method: &str, papers: String, s: [f64; 5], seconds: String| {
        println!(
            "{id:<6} {method:<46} {papers:>6} {:>7.3} {:>7.3} {:>9.3} {:>8.3} {:>6.3} {seconds:>8}",
            s[0], s[1], s[2], s[3], s[4]
        )
    };
    let values = |r: &litnav_bench::organize::Row| {
        [r.scores.leaf.ari, r.scores.leaf.v_measure, r.scores.sem_path.unwrap_or(0.0), r.scores.us_nted, r.scores.nsr]
    };
    let mut suites: Vec<&str> = rows.iter().map(|r| r.suite.as_str()).collect();
    suites.dedup();
    for suite in suites {
        println!("\n{suite}");
        header();
        let mine: Vec<_> = rows.iter().filter(|r| r.suite == suite).collect();
        for r in &mine {
            line(&r.id, &r.method, r.papers.to_string(), values(r), format!("{:.2}", r.seconds));
        }
        let mut methods: Vec<&str> = mine.iter().map(|r| r.method.as_str()).collect();
        methods.sort_unstable();
        methods.dedup();
        for method in methods {
            let of: Vec<_> = mine.iter().filter(|r| r.method == method).collect();
            let mut mean = [0.0; 5];
            for r in &of {
                mean.iter_mut().zip(values(r)).for_each(|(m, v)| *m += v / of.len() as f64);
            }
            line("mean", method, String::new(), mean, String::new());
        }
    }
    print_ceilings(&report.ceilings);
    if !report.failures.is_empty() {
        println!("\nRows not produced:");
        for failure in &report.failures {
            println!("  {failure}");
        }
    }
    Ok(())
}

/// The diagnostic table: how well the paper vectors alone separate the truth's leaves.
fn print_ceilings(ceilings: &[litnav_bench::organize::Ceiling]) {
    println!("\nCeiling of the representation (uses the truth: a diagnostic, not a method). Pair AUC: how well");
    println!("cosine tells same-leaf from different-leaf pairs (0.5 = chance); oracle ARI: the best cut of the");
    println!("default method's dendrogram, k chosen with the truth; order ARI: the input list cut into as many");
    println!("contiguous runs as the truth has leaves (above 0: the file's order leaks the truth to any system");
    println!("that reads it in order; litnav's organizer ignores it).");
    println!(
        "{:<11} {:<6} {:>14} {:>19} {:>11} {:>9} {:>10}",
        "suite", "id", "pair AUC raw", "pair AUC centered", "oracle ARI", "oracle k", "order ARI"
    );
    let mut suites: Vec<&str> = ceilings.iter().map(|c| c.suite.as_str()).collect();
    suites.dedup();
    for suite in suites {
        let of: Vec<_> = ceilings.iter().filter(|c| c.suite == suite).collect();
        for c in &of {
            println!(
                "{suite:<11} {:<6} {:>14.3} {:>19.3} {:>11.3} {:>9} {:>10.3}",
                c.id, c.pair_auc_raw, c.pair_auc_centered, c.oracle_ari, c.oracle_k, c.order_ari
            );
        }
        let mean =
            |f: fn(&litnav_bench::organize::Ceiling) -> f64| of.iter().map(|c| f(c)).sum::<f64>() / of.len() as f64;
        println!(
            "{suite:<11} {:<6} {:>14.3} {:>19.3} {:>11.3} {:>9} {:>10.3}",
            "mean",
            mean(|c| c.pair_auc_raw),
            mean(|c| c.pair_auc_centered),
            mean(|c| c.oracle_ari),
            "",
            mean(|c| c.order_ari)
        );
    }
}

fn run_eval(args: EvalArgs) -> Result<()> {
    let taxobench = crate::defaults::datasets()?.join("taxobench");
    let data = args.data.unwrap_or_else(|| taxobench.join("data.jsonl"));
    let predictions = args.predictions.unwrap_or_else(|| taxobench.join("predictions_example.jsonl"));
    let model = args.model.unwrap_or_else(litnav_embed::install::default_model_dir);
    let bar = crate::progress::spinner("benchmarking TaxoBench scoring");
    let report = litnav_bench::taxobench::bench(&data, &predictions, &model, args.repeats, args.peer.as_ref());
    bar.finish_and_clear();
    let report = report?;
    if args.json {
        return super::print_json(&report);
    }
    println!("TaxoBench scoring of {} instances (model load, label embedding and every metric):", report.instances);
    println!("  litnav  {:.3} s", report.litnav_seconds);
    if let (Some(peer), Some(speedup), Some(diff), Some(library)) =
        (report.peer_seconds, report.speedup, report.max_abs_difference, &report.peer_library)
    {
        println!("  Python  {peer:.3} s ({library})");
        println!("  litnav is {speedup:.1}x faster; summaries agree to {diff:.1e}");
    }
    Ok(())
}

fn run_dense(args: DenseArgs) -> Result<()> {
    let dir = crate::defaults::corpus(args.corpus.as_deref())?;
    let encoder = args.model.load()?;
    super::embed::ensure_vectors(&dir, &encoder)?;
    let corpus = litnav_corpus::Corpus::open(&dir)?;
    let cache = litnav_embed::cache::VectorCache::open(&litnav_embed::cache::corpus_cache_path(&dir), encoder.dim())?;
    let index = litnav_search::DenseIndex::from_cache(corpus.papers(), &cache, &dir)?;
    let step = (corpus.papers().len() / args.queries.max(1)).max(1);
    let titles: Vec<&str> = corpus.papers().iter().step_by(step).take(args.queries).map(|p| p.title.as_str()).collect();
    let queries = encoder.embed(&titles);
    let mut options = litnav_search::ivf::IvfOptions::for_size(index.len());
    if let Some(lists) = args.lists {
        options = litnav_search::ivf::IvfOptions::with_lists(lists);
    }
    if let Some(probes) = args.probes {
        options.probes = probes;
    }
    let report = litnav_bench::dense::run(&index, &queries, options)?;
    if args.json {
        return super::print_json(&report);
    }
    println!(
        "{} papers, IVF {} lists / {} probes (built in {:.2} s): recall@10 {:.3} over {} queries; p50 exact {:.3} ms, IVF {:.3} ms",
        report.papers,
        report.lists,
        report.probes,
        report.build_seconds,
        report.recall_at_10,
        report.queries,
        report.exact_p50_ms,
        report.ivf_p50_ms
    );
    Ok(())
}

fn run_discovery(args: DiscoveryArgs) -> Result<()> {
    use litnav_search::Mode;
    use litnav_search::hybrid::Fusion;
    let dir = crate::defaults::corpus(args.corpus.as_deref())?;
    let encoder = args.model.load()?;
    super::embed::ensure_vectors(&dir, &encoder)?;
    let retriever = litnav_search::Retriever::open(&dir, Some(encoder))?;
    let corpus = litnav_corpus::Corpus::open(&dir)?;
    let modes = vec![
        ("bm25".to_string(), Mode::Bm25),
        ("dense".to_string(), Mode::Dense),
        ("hybrid-rrf".to_string(), Mode::Hybrid(Fusion::Rrf(60.0))),
        ("hybrid-weighted".to_string(), Mode::Hybrid(Fusion::Weighted(0.5))),
    ];
    let bar = crate::progress::spinner("scoring every topic");
    let report = litnav_bench::discovery::run(&retriever, corpus.topics(), &modes);
    bar.finish_and_clear();
    let report = report?;
    if args.json {
        return super::print_json(&report);
    }
    println!(
        "discovery scoreboard: {} topics, query = survey title, non-surveys before the survey, top 100",
        report.topics.len()
    );
    println!(
        "{:<16} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}",
        "mode (mean)", "R@10", "R@100", "P@10", "P@100", "nDCG@10", "nDCG@30", "nDCG@100", "MRR"
    );
    for (name, s) in report.modes.iter().zip(&report.mean) {
        println!(
            "{:<16} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>7.3}",
            name, s.recall_10, s.recall_100, s.precision_10, s.precision_100, s.ndcg_10, s.ndcg_30, s.ndcg_100, s.mrr
        );
    }
    println!();
    println!("per topic: R@100 / nDCG@10");
    let header: Vec<String> = report.modes.iter().map(|m| format!("{m:>17}")).collect();
    println!("{:<13} {:>5}{}", "topic", "refs", header.join(""));
    for t in &report.topics {
        let cells: Vec<String> =
            t.scores.iter().map(|s| format!("{:>17}", format!("{:.3} / {:.3}", s.recall_100, s.ndcg_10))).collect();
        println!("{:<13} {:>5}{}", t.topic, t.relevant, cells.join(""));
    }
    Ok(())
}

fn run_embed(args: EmbedArgs) -> Result<()> {
    let options = litnav_bench::embed::Options {
        litbench: crate::defaults::datasets()?.join("litbench"),
        model: args.model.unwrap_or_else(litnav_embed::install::default_model_dir),
        labels: args.labels,
        passages: args.passages,
        threads: args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        repeats: args.repeats,
        peer_python: args.peer,
    };
    let bar = crate::progress::spinner("benchmarking the sentence encoder");
    let report = litnav_bench::embed::run(&options);
    bar.finish_and_clear();
    let report = report?;
    if args.json {
        return super::print_json(&report);
    }
    println!(
        "sentence encoder benchmark ({} threads; litnav loads the model in {:.2} s)",
        report.threads, report.litnav_load_seconds
    );
    if let Some((library, load)) = &report.peer {
        println!("peer: {library} (loads in {load:.2} s)");
    }
    println!(
        "{:<10} {:>6} {:>8} {:>12} {:>12} {:>9} {:>12}",
        "workload", "texts", "tokens", "litnav /s", "peer /s", "speed-up", "max |diff|"
    );
    for w in &report.workloads {
        let peer = w.peer_per_second.map_or_else(|| "-".into(), |p| format!("{p:.1}"));
        let speedup = w.speedup.map_or_else(|| "-".into(), |s| format!("{s:.2}x"));
        let diff = w.max_abs_difference.map_or_else(|| "-".into(), |d| format!("{d:.1e}"));
        println!(
            "{:<10} {:>6} {:>8.1} {:>12.1} {:>12} {:>9} {:>12}",
            w.name, w.texts, w.mean_tokens, w.litnav_per_second, peer, speedup, diff
        );
    }
    Ok(())
}

fn run_search(args: SearchArgs) -> Result<()> {
    let papers = if args.papers.is_empty() {
        vec![crate::defaults::datasets()?.join("litbench/corpus.jsonl")]
    } else {
        args.papers
    };
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
    let bar = crate::progress::spinner("benchmarking lexical search");
    let report = search::run(&options);
    bar.finish_and_clear();
    let report = report?;
    if args.json {
        return super::print_json(&report);
    }
    println!("lexical search benchmark (k = {}, {} indexing threads)", report.k, report.threads);
    println!(
        "{:<10} {:>8} {:>10} {:>12} {:>8} {:>9} {:>9}",
        "corpus", "papers", "build s", "papers/s", "queries", "p50 ms", "p99 ms"
    );
    let row = |name: &str, m: &search::Measurement| {
        format!(
            "{:<10} {:>8} {:>10.3} {:>12.0} {:>8} {:>9.3} {:>9.3}",
            name, m.papers, m.build_seconds, m.docs_per_second, m.queries, m.p50_ms, m.p99_ms
        )
    };
    for c in &report.corpora {
        println!("{}", row(&c.name, &c.litnav));
    }
    if let Some(library) = &report.peer_library {
        println!("peer: {library} (Python), same corpora and queries");
        for c in &report.corpora {
            if let Some(p) = &c.peer {
                println!(
                    "{}   litnav is {:.1}x faster to build, {:.1}x faster per query (p50)",
                    row(&c.name, &p.measured),
                    p.build_speedup,
                    p.p50_speedup
                );
            }
        }
    }
    Ok(())
}
