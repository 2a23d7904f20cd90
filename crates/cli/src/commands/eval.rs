//! `litnav eval`: score other systems' outputs with the field's metrics.

use super::{print_json, show};
use crate::progress::Terminal;
use anyhow::Result;
use clap::Subcommand;
use litnav_app::request::score::{
    AgreementParams, ClusterScoreParams, EgoScoreParams, PairScoreParams, PathScoreParams, RetrievalParams,
    SurveyParams, TaxobenchParams, TreeParams,
};
use litnav_app::score::{clusters, pairwise, scinet, taxobench, trec, tree};

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
            let weights = args.weights.weights();
            show(&litnav_app::score::agreement::agreement_of_files(&args.first, &args.second, weights)?, args.json)
        }
    }
}

fn run_survey(args: SurveyParams) -> Result<()> {
    use litnav_app::survey;
    let workspace = args.model.workspace()?;
    let progress = Terminal::new();
    let (options, corpus) = (args.options()?, args.corpus.as_deref());
    let client = args.llm.client(&workspace)?;
    let report = survey::evaluate_files(
        &workspace,
        &args.expert,
        &args.generated,
        corpus,
        &options,
        client.as_ref(),
        &progress,
    )?;
    progress.finish();
    super::write_file(args.trace.as_deref(), &serde_json::to_string_pretty(&report.trace)?)?;
    if args.json {
        return print_json(&report);
    }
    print!("{report}");
    if report.tiers.iter().flat_map(|t| &t.metrics).any(|m| m.reason.as_deref() == Some(survey::NO_ENDPOINT)) {
        println!("(the LLM metrics run with --llm; see `litnav eval survey --help`)");
    }
    Ok(())
}

fn run_tree(args: TreeParams) -> Result<()> {
    let reference = args.reference.as_deref().map(tree::read_tree).transpose()?;
    let predicted = tree::read_tree(&args.prediction)?;
    let workspace = args.model.workspace()?;
    let kind = args.similarity.kind();
    let llm = args.llm.client(&workspace)?;
    let progress = Terminal::new();
    let report =
        tree::evaluate(&workspace, reference.as_ref(), &predicted, kind, args.options(), llm.as_ref(), &progress)?;
    show(&report, args.json)
}

fn run_retrieval(args: RetrievalParams) -> Result<()> {
    show(&trec::score_files(&args.qrels, &args.run, &args.k, args.per_query)?, args.json)
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
    println!("TaxoBench scores over {} instance(s); {}", scored.per_instance.len(), args.similarity.caption());
    print!("{}", litnav_app::score::numbers(&summary));
    Ok(())
}

fn run_paths(args: PathScoreParams) -> Result<()> {
    let workspace = litnav_app::Workspace::load()?;
    let session = workspace.open(args.corpus.as_deref(), &Terminal::new())?;
    let client = args.llm.client(&workspace)?;
    let progress = Terminal::start("scoring path queries");
    let report = scinet::score_paths(&session, &args.file, args.max_hops, client.as_ref(), &progress)?;
    progress.finish();
    show(&report, args.json)
}

fn run_ego(args: EgoScoreParams) -> Result<()> {
    let workspace = litnav_app::Workspace::load()?;
    let session = workspace.open(args.corpus.as_deref(), &Terminal::new())?;
    let measure = args.measure.measure();
    let client = args.llm.client(&workspace)?;
    let progress = Terminal::start(&format!("computing {} for every paper", measure.name().to_lowercase()));
    let report = scinet::score_ego(&session, &args.file, measure, args.k, args.pool, client.as_ref(), &progress)?;
    progress.finish();
    show(&report, args.json)
}

fn run_pairs(args: PairScoreParams) -> Result<()> {
    let workspace = litnav_app::Workspace::load()?;
    let session = workspace.open(args.corpus.as_deref(), &Terminal::new())?;
    let client = args.llm.client(&workspace)?;
    let progress = Terminal::start("scoring pair-wise answers");
    let report = pairwise::score_pairs(&session, &args.queries, &args.answers, args.k, client.as_ref(), &progress)?;
    progress.finish();
    show(&report, args.json)
}

fn run_clusters(args: ClusterScoreParams) -> Result<()> {
    let workspace = litnav_app::Workspace::load()?;
    let options = args.options(workspace.settings().seed);
    let report = clusters::score_cluster_files(&args.gold, &args.predicted, options)?;
    show(&report, args.json)
}
