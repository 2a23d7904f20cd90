//! `litnav eval`: score other systems' outputs with the field's metrics.

use super::print_json;
use crate::progress::Terminal;
use anyhow::Result;
use clap::Subcommand;
use litnav_app::relations::Measure;
use litnav_app::request::SimilarityName;
use litnav_app::request::score::{
    AgreementParams, ClusterScoreParams, EgoMeasureName, EgoScoreParams, PairScoreParams, PathScoreParams,
    RetrievalParams, SurveyParams, TaxobenchParams, TreeParams, WeightsName,
};
use litnav_app::score::{clusters, pairwise, scinet, taxobench, trec, tree};

use serde::Serialize;

/// Scorers.
#[derive(Debug, Subcommand)]
pub enum Scorer {
    /// Score TaxoBench predictions (`id`, `hierarchy_tree`) against TaxoBench's `data.jsonl`
    /// (`id`, `gt`): retrieval P/R/F1 after title alignment, leaf ARI / V-measure (end-to-end and
    /// on aligned papers), Sem-Path, US-TED / US-NTED and NSR / NSP / Soft-F1.
    Taxobench(TaxobenchParams),
    /// Compare any two trees (TaxoBench JSON, litnav maps, or outlines with `children`):
    /// US-TED/US-NTED, NSR/NSP/Soft-F1 (= heading soft recall/precision), Bloom-Eval STS and Shape
    /// Consistency, ordered TED, ResearchArena's Tree Semantic Distance — and, when both trees
    /// hold papers, the retrieval, leaf and Sem-Path metrics.
    Tree(TreeParams),
    /// Score a ranked run against relevance judgments, TREC style: Recall/Precision/nDCG@k and MRR.
    Retrieval(RetrievalParams),
    /// SciNet path-wise scores of retrieved papers against the citation graph: Consistency
    /// (share of the maximum-citation path's inner papers retrieved), Connectivity (the retrieved
    /// papers link the endpoints by citations) and, with --llm, Rationality.
    Paths(PathScoreParams),
    /// SciNet ego-centric scores of retrieved papers: SoS (mean corpus percentile of their
    /// disruption or novelty), Recall@k of the field's k most disruptive or novel papers and,
    /// with --llm, Novelty-LLM or Disruption-LLM (1–10 from title and abstract).
    Ego(EgoScoreParams),
    /// SciNet pair-wise scores of answers to citation and co-mention queries: Cite-Acc,
    /// Cite-Sentiment, CoMention-Acc and CoMention-Paragraph, against the corpus's citation graph
    /// and citation contexts (`ingest --contexts`, `ingest --surveys`).
    Pairs(PairScoreParams),
    /// Knowledge Navigator's clustering scores against gold clusters: ARI, NMI, Rc@80 (clusters a
    /// reader opens to see 80% of a gold cluster) and Rv@80 (share of the collection they hold),
    /// beside a random assignment of the same cluster sizes.
    Clusters(ClusterScoreParams),
    /// Bloom-Eval's 16 metrics of a generated survey against an expert survey, by Bloom's six
    /// tiers: the deterministic ones always, the LLM ones with --llm. A survey is a Bloom-Eval
    /// directory (`human/`, `llm/`: content.json, outline.json, reference.json, article) or a
    /// Markdown file.
    Survey(SurveyParams),
    /// LLM judges (tree, GRADE, path rationality), each printing its full trace as JSON.
    #[command(subcommand)]
    Judge(super::judge::Judge),
    /// Agreement of two raters' score files (e.g. `eval judge tree --output` and human scores):
    /// JSON lines with `id` and numeric scores by name; Cohen's κ and Spearman's ρ per name.
    Agreement(AgreementParams),
}

pub fn run(scorer: Scorer) -> Result<()> {
    match scorer {
        Scorer::Taxobench(args) => run_taxobench(args),
        Scorer::Tree(args) => run_tree(args),
        Scorer::Retrieval(args) => run_retrieval(args),
        Scorer::Paths(args) => run_paths(args),
        Scorer::Ego(args) => run_ego(args),
        Scorer::Pairs(args) => run_pairs(args),
        Scorer::Clusters(args) => run_clusters(args),
        Scorer::Survey(args) => run_survey(args),
        Scorer::Judge(judge) => super::judge::run(judge),
        Scorer::Agreement(args) => {
            use litnav_eval::agreement::KappaWeights;
            let weights = match args.weights {
                WeightsName::None => KappaWeights::Unweighted,
                WeightsName::Linear => KappaWeights::Linear,
                WeightsName::Quadratic => KappaWeights::Quadratic,
            };
            let report = litnav_app::score::agreement::agreement_of_files(&args.first, &args.second, weights)?;
            show_report(&report, args.json)
        }
    }
}

fn run_survey(args: SurveyParams) -> Result<()> {
    use litnav_app::survey::{self, Metric, SurveyOptions};
    let workspace = args.model.workspace()?;
    let progress = Terminal::new();
    let session = match &args.corpus {
        Some(dir) => Some(workspace.open(Some(dir), &progress)?),
        None => None,
    };
    let expert = survey::read_survey(&args.expert, session.as_ref())?;
    let generated = survey::read_survey(&args.generated, session.as_ref())?;
    let options = SurveyOptions {
        metrics: Metric::from_keys(&args.metrics)?,
        compat: args.compat.compat(),
        chunk_chars: args.chunk_chars.max(500),
        max_passages: args.max_passages,
        max_citations: args.max_citations,
        topic: args.topic.clone(),
        ..SurveyOptions::default()
    };
    let client = args.llm.client(&workspace)?;
    let report = survey::evaluate(&workspace, &expert, &generated, &options, client.as_ref(), &progress)?;
    progress.finish();
    if let Some(path) = &args.trace {
        super::write_file(Some(path), &serde_json::to_string_pretty(&report.trace)?)?;
    }
    if args.json {
        return print_json(&report);
    }
    print!("{report}");
    if report.tiers.iter().flat_map(|t| &t.metrics).any(|m| m.reason.as_deref() == Some(survey::NO_ENDPOINT)) {
        println!("(the LLM metrics run with --llm; see `litnav eval survey --help`)");
    }
    Ok(())
}

/// Print a flat JSON object as aligned `key value` lines.
fn print_numbers<T: Serialize>(report: &T) -> Result<()> {
    if let serde_json::Value::Object(map) = serde_json::to_value(report)? {
        for (key, value) in map {
            match value {
                serde_json::Value::Number(n) if n.is_u64() => println!("  {key:<24} {n}"),
                serde_json::Value::Number(n) => println!("  {key:<24} {:.6}", n.as_f64().unwrap_or(f64::NAN)),
                serde_json::Value::String(s) => println!("  {key:<24} {s}"),
                _ => {}
            }
        }
    }
    Ok(())
}

fn run_tree(args: TreeParams) -> Result<()> {
    let reference = args.reference.as_deref().map(tree::read_tree).transpose()?;
    let predicted = tree::read_tree(&args.prediction)?;
    let options = tree::TreeOptions {
        threshold: args.threshold,
        lambda: args.lambda,
        tsd_threshold: args.tsd_threshold,
        ..tree::TreeOptions::default()
    };
    let workspace = args.model.workspace()?;
    let kind = args.similarity.kind();
    let report = tree::evaluate(&workspace, reference.as_ref(), &predicted, kind, options, &Terminal::new())?;
    if args.json {
        return print_json(&report);
    }
    if let Some(scores) = &report.scores {
        print_numbers(scores)?;
    }
    match &report.checks {
        Some(checks) => print_checks(checks),
        None => Ok(()),
    }
}

/// The checks that need no reference: the tree's numbers, then each node's problems.
fn print_checks(checks: &litnav_eval::checks::TreeChecks) -> Result<()> {
    println!("checks without a reference (entailment: {})", checks.entailment_by);
    let mut numbers = serde_json::to_value(checks)?;
    if let Some(fields) = numbers.as_object_mut() {
        for key in ["problems", "options", "entailment_by"] {
            fields.remove(key);
        }
    }
    print_numbers(&numbers)?;
    if checks.problems.is_empty() {
        println!("no node has a problem");
    }
    for problem in &checks.problems {
        let node = if problem.node.is_empty() { "root".to_string() } else { problem.node.clone() };
        println!("  {node} “{}”: {}", problem.name, problem.reason);
    }
    Ok(())
}

fn run_retrieval(args: RetrievalParams) -> Result<()> {
    let report = trec::score_files(&args.qrels, &args.run, &args.k, args.per_query)?;
    if args.json {
        return print_json(&report);
    }
    println!("{} queries with relevant documents (queries missing from the run score 0)", report.queries);
    print_numbers(&report.mean)?;
    for row in report.per_query.iter().flatten() {
        println!("query {}", row.query);
        print_numbers(&row.scores)?;
    }
    Ok(())
}

fn run_taxobench(args: TaxobenchParams) -> Result<()> {
    let workspace = args.model.workspace()?;
    let (data, predictions) = (taxobench::Lines::File(&args.data), taxobench::Lines::File(&args.predictions));
    let kind = args.similarity.kind();
    let scored = taxobench::score(&workspace, data, predictions, kind, args.threshold, args.lambda, &Terminal::new())?;
    if let Some(path) = &args.output {
        taxobench::write_rows(path, &scored.per_instance)?;
    }
    let summary = scored.summary;
    for problem in &scored.problems {
        eprintln!("warning: {problem}");
    }
    if args.json {
        return print_json(&summary);
    }
    let label = match args.similarity {
        SimilarityName::Embedding => "label similarity: all-MiniLM-L6-v2 clipped cosine (TaxoBench's)",
        SimilarityName::String => "label similarity: STRING RATIO — not comparable to published TaxoBench numbers",
        SimilarityName::Public => "the public taxobench scorer's readings (its string label similarity)",
    };
    println!("TaxoBench scores over {} instance(s); {label}", scored.per_instance.len());
    print_numbers(&summary)
}

fn run_paths(args: PathScoreParams) -> Result<()> {
    let workspace = litnav_app::Workspace::load()?;
    let session = workspace.open(args.corpus.as_deref(), &Terminal::new())?;
    let client = args.llm.client(&workspace)?;
    let progress = Terminal::start("scoring path queries");
    let report = scinet::score_paths(&session, &args.file, args.max_hops, client.as_ref(), &progress)?;
    progress.finish();
    show_report(&report, args.json)
}

fn run_ego(args: EgoScoreParams) -> Result<()> {
    let workspace = litnav_app::Workspace::load()?;
    let session = workspace.open(args.corpus.as_deref(), &Terminal::new())?;
    let measure = match args.measure {
        EgoMeasureName::Disruption => Measure::Disruption,
        EgoMeasureName::Novelty => Measure::Novelty,
    };
    let client = args.llm.client(&workspace)?;
    let progress = Terminal::start(&format!("computing {} for every paper", measure.name().to_lowercase()));
    let report = scinet::score_ego(&session, &args.file, measure, args.k, args.pool, client.as_ref(), &progress)?;
    progress.finish();
    show_report(&report, args.json)
}

fn run_pairs(args: PairScoreParams) -> Result<()> {
    let workspace = litnav_app::Workspace::load()?;
    let session = workspace.open(args.corpus.as_deref(), &Terminal::new())?;
    let client = args.llm.client(&workspace)?;
    let progress = Terminal::start("scoring pair-wise answers");
    let report = pairwise::score_pairs(&session, &args.queries, &args.answers, args.k, client.as_ref(), &progress)?;
    progress.finish();
    show_report(&report, args.json)
}

fn run_clusters(args: ClusterScoreParams) -> Result<()> {
    let workspace = litnav_app::Workspace::load()?;
    let options = clusters::ClusterOptions {
        coverage: args.coverage / 100.0,
        random_runs: args.random_runs,
        seed: args.seed.unwrap_or(workspace.settings().seed),
    };
    let report = clusters::score_cluster_files(&args.gold, &args.predicted, options)?;
    show_report(&report, args.json)
}

/// A report as JSON or as its own text.
fn show_report<T: Serialize + std::fmt::Display>(report: &T, json: bool) -> Result<()> {
    if json {
        return print_json(report);
    }
    print!("{report}");
    Ok(())
}
