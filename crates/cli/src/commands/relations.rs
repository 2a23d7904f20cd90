//! `litnav relations`: how papers relate through citations — which are disruptive or novel, what
//! is co-cited with what, and the citation path from one paper to another.

use anyhow::{Context, Result, bail};
use litnav_corpus::{Corpus, Paper, Topic};
use litnav_graph::disruption::{self, Disruption};
use litnav_graph::novelty::{self, Novelty, Units};
use litnav_graph::pairs::{self, Related};
use litnav_graph::paths::{self, Direction};
use litnav_graph::percentile::PercentileTable;
use litnav_graph::{Graph, Node, contexts, store};
use litnav_search::{Mode, Retriever, SearchQuery};
use serde::Serialize;
use serde_json::json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The relation queries.
#[derive(Debug, clap::Subcommand)]
pub enum Query {
    /// Rank papers by disruption (CD index): the whole corpus, or a topic's papers.
    Disruption(RankArgs),
    /// Rank papers by novelty (Uzzi 10th-percentile z, most novel first).
    Novelty(RankArgs),
    /// One paper's citation profile: degrees, CD values and counts, novelty, percentiles, and the
    /// papers most co-cited and most coupled with it.
    Paper(PaperArgs),
    /// The maximum-citation path between two papers, all shortest paths, and their distance.
    Path(PathArgs),
    /// Papers most often cited together with a paper.
    CoCited(NeighbourArgs),
    /// Papers sharing the most references with a paper (bibliographic coupling).
    Coupled(NeighbourArgs),
    /// Papers mentioned in the same paragraph as a paper (needs ingested citation contexts).
    CoMentioned(NeighbourArgs),
    /// How two papers relate: citation either way, co-citation, coupling.
    Pair(PairArgs),
    /// The papers citing a paper and how they speak of it (from ingested citation contexts;
    /// with --llm, unlabelled contexts are classified by the LLM, SciNet's Cite-Sentiment).
    Citers(CitersArgs),
}

#[derive(Debug, clap::Args)]
pub struct CitersArgs {
    #[command(flatten)]
    corpus: CorpusArg,
    /// The cited paper's id.
    id: String,
    /// Only citers whose sentiment is this.
    #[arg(long, value_enum)]
    sentiment: Option<SentimentArg>,
    #[command(flatten)]
    llm: super::llm::LlmArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SentimentArg {
    Positive,
    Neutral,
    Negative,
}

impl SentimentArg {
    fn label(self) -> contexts::Sentiment {
        match self {
            SentimentArg::Positive => contexts::Sentiment::Positive,
            SentimentArg::Neutral => contexts::Sentiment::Neutral,
            SentimentArg::Negative => contexts::Sentiment::Negative,
        }
    }
}

/// Where the graph comes from.
#[derive(Debug, clap::Args)]
pub struct CorpusArg {
    /// Corpus directory (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// How disruption and novelty are computed.
#[derive(Debug, clap::Args)]
pub struct MetricArgs {
    /// Count only citing papers published within this many years after the focal paper (CD_t).
    #[arg(long, value_name = "YEARS")]
    window: Option<u32>,
    /// What plays the role of Uzzi's journals in novelty.
    #[arg(long, value_enum, default_value_t = UnitsArg::Venues)]
    units: UnitsArg,
    /// Randomized citation graphs drawn for novelty's null model.
    #[arg(long, default_value_t = 10)]
    nulls: usize,
    /// Seed of the randomization.
    #[arg(long, default_value_t = 42)]
    seed: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum UnitsArg {
    /// A reference's venue (its own unit when it has none).
    Venues,
    /// Every reference is its own unit.
    References,
}

impl Default for MetricArgs {
    /// No time window; novelty over venues with 10 null graphs, seed 42.
    fn default() -> Self {
        MetricArgs { window: None, units: UnitsArg::Venues, nulls: 10, seed: 42 }
    }
}

impl MetricArgs {
    fn novelty_options(&self) -> novelty::Options {
        let units = match self.units {
            UnitsArg::Venues => Units::Venues,
            UnitsArg::References => Units::References,
        };
        novelty::Options { units, nulls: self.nulls, seed: self.seed, ..novelty::Options::default() }
    }
}

#[derive(Debug, clap::Args)]
pub struct RankArgs {
    #[command(flatten)]
    corpus: CorpusArg,
    /// Rank only this topic's papers: a stored topic's id or title (its expert survey's
    /// references), otherwise free text whose best BM25 matches (see --pool) are ranked.
    #[arg(long)]
    topic: Option<String>,
    /// How many BM25 matches a free-text topic takes.
    #[arg(long, default_value_t = 300)]
    pool: usize,
    /// How many papers to list.
    #[arg(long, short, default_value_t = 50)]
    k: usize,
    /// Rank by SciNet's printed form (n_i − n_j)/(n_i + n_j) instead of the CD index.
    #[arg(long)]
    scinet_form: bool,
    #[command(flatten)]
    metric: MetricArgs,
}

#[derive(Debug, clap::Args)]
pub struct PaperArgs {
    #[command(flatten)]
    corpus: CorpusArg,
    /// The paper's id.
    id: String,
    #[command(flatten)]
    metric: MetricArgs,
}

#[derive(Debug, clap::Args)]
pub struct PathArgs {
    #[command(flatten)]
    corpus: CorpusArg,
    /// The citing end (the path goes from it, through what it cites, to TO).
    from: String,
    /// The cited end.
    to: String,
    /// Longest path considered, in hops.
    #[arg(long, default_value_t = paths::DEFAULT_MAX_HOPS)]
    max_hops: usize,
    /// At most this many shortest paths are listed.
    #[arg(long, default_value_t = 20)]
    shortest_limit: usize,
}

#[derive(Debug, clap::Args)]
pub struct NeighbourArgs {
    #[command(flatten)]
    corpus: CorpusArg,
    /// The paper's id.
    id: String,
    /// How many papers to list.
    #[arg(long, short, default_value_t = 20)]
    k: usize,
}

#[derive(Debug, clap::Args)]
pub struct PairArgs {
    #[command(flatten)]
    corpus: CorpusArg,
    /// One paper.
    a: String,
    /// The other.
    b: String,
}

/// A property papers are ranked by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Measure {
    /// The CD disruption index.
    Disruption,
    /// Uzzi novelty (negated 10th-percentile z: higher = more novel).
    Novelty,
}

impl Measure {
    /// The name SciNet's tables use.
    pub fn name(self) -> &'static str {
        match self {
            Measure::Disruption => "Disruption",
            Measure::Novelty => "Novelty",
        }
    }
}

/// Every paper's value of a measure, oriented so that higher is better ("more disruptive", "more
/// novel"), and its full record for output.
pub struct Scores {
    /// The ranked value per node (`None` when undefined).
    pub values: Vec<Option<f64>>,
    /// The counts and components behind each value, per node.
    pub details: Vec<serde_json::Value>,
}

/// A record as JSON (these records always serialize).
fn to_json<T: Serialize>(record: &T) -> serde_json::Value {
    serde_json::to_value(record).unwrap_or_default()
}

/// A corpus opened for relation queries: its graph, contexts and paper records by id.
pub struct Loaded {
    dir: PathBuf,
    /// The citation graph.
    pub graph: Graph,
    contexts: Vec<contexts::CitationContext>,
    papers: Vec<Paper>,
    topics: Vec<Topic>,
    by_id: HashMap<String, usize>,
}

impl Loaded {
    /// Open the corpus at `corpus` (default: the built-in one).
    pub fn open(corpus: Option<&Path>) -> Result<Loaded> {
        let dir = crate::defaults::corpus(corpus)?;
        let (graph, contexts) = store::open_corpus(&dir)?;
        let (papers, topics) = Corpus::open(&dir)?.into_parts();
        let by_id = papers.iter().enumerate().map(|(i, p)| (p.id.clone(), i)).collect();
        if graph.edge_count() == 0 {
            eprintln!(
                "note: {} holds no citation edges between its papers; add them with \
                 `litnav ingest --corpus DIR PAPERS EDGES.csv` (citing_id,cited_id) or papers with references",
                dir.display()
            );
        }
        Ok(Loaded { dir, graph, contexts, papers, topics, by_id })
    }

    /// The node of `id`, or an error naming the corpus.
    pub fn node(&self, id: &str) -> Result<Node> {
        self.graph.find(id).with_context(|| format!("no paper with id `{id}` in {}", self.dir.display()))
    }

    fn paper(&self, node: Node) -> Option<&Paper> {
        self.by_id.get(self.graph.id(node)).map(|&i| &self.papers[i])
    }

    /// Id, title and year of a node, for output.
    fn describe(&self, node: Node) -> serde_json::Value {
        let paper = self.paper(node);
        json!({
            "id": self.graph.id(node),
            "title": paper.map(|p| p.title.as_str()),
            "year": self.graph.year(node),
        })
    }

    /// Related papers for output: id, title, year, and the count and similarity relating them.
    fn describe_related(&self, list: &[Related]) -> Vec<serde_json::Value> {
        list.iter()
            .map(|r| {
                let mut value = self.describe(r.node);
                value["count"] = json!(r.count);
                value["similarity"] = json!(r.similarity);
                value
            })
            .collect()
    }

    fn line(&self, node: Node) -> String {
        let paper = self.paper(node);
        let year = self.graph.year(node).map_or_else(|| "    ".to_string(), |y| y.to_string());
        format!("{year}  {}  [{}]", paper.map_or("(untitled)", |p| p.title.as_str()), self.graph.id(node))
    }

    /// Every paper's value of `measure` (SciNet's (n_i − n_j)/(n_i + n_j) for disruption when
    /// `scinet_form`), computed with `metric`'s settings.
    pub fn scores(&self, measure: Measure, metric: &MetricArgs, scinet_form: bool) -> Scores {
        match measure {
            Measure::Disruption => {
                let all = disruption::disruption_all(&self.graph, metric.window);
                let values = all.iter().map(|d| if scinet_form { d.cd_nok } else { d.cd }).collect();
                Scores { values, details: all.iter().map(to_json).collect() }
            }
            Measure::Novelty => {
                let all = novelty::novelty_all(&self.graph, &metric.novelty_options());
                let values = all.iter().map(|n| n.p10.map(|z| -z)).collect();
                Scores { values, details: all.iter().map(to_json).collect() }
            }
        }
    }

    /// How ties in a ranking break: the better-cited paper first (CD = 1 is common among rarely
    /// cited papers), then the smaller id.
    pub fn tie_key(&self, node: Node) -> (std::cmp::Reverse<usize>, Node) {
        (std::cmp::Reverse(self.graph.in_degree(node)), node)
    }

    /// The nodes a ranking considers: every paper, or the topic's.
    pub fn candidates(&self, topic: Option<&str>, pool: usize) -> Result<Vec<Node>> {
        let Some(topic) = topic else { return Ok(self.graph.nodes().collect()) };
        let stored = self.topics.iter().find(|t| t.id == topic || t.title.eq_ignore_ascii_case(topic));
        let ids: Vec<String> = match stored {
            Some(t) => t.reference_ids.clone(),
            None => {
                let retriever = Retriever::open(&self.dir, None)?;
                let query = SearchQuery { k: pool, ..SearchQuery::new(topic) };
                retriever.search(&query, Mode::Bm25)?.into_iter().map(|hit| hit.id).collect()
            }
        };
        let mut nodes: Vec<Node> = ids.iter().filter_map(|id| self.graph.find(id)).collect();
        nodes.sort_unstable();
        nodes.dedup();
        if nodes.is_empty() {
            bail!("no paper of the corpus matches the topic `{topic}`");
        }
        Ok(nodes)
    }
}

pub fn run(query: Query) -> Result<()> {
    match query {
        Query::Disruption(args) => rank(args, Measure::Disruption),
        Query::Novelty(args) => rank(args, Measure::Novelty),
        Query::Paper(args) => paper(args),
        Query::Path(args) => path(args),
        Query::CoCited(args) => neighbours(args, pairs::co_cited_with, "co-citations"),
        Query::Coupled(args) => neighbours(args, pairs::coupled_with, "shared references"),
        Query::CoMentioned(args) => co_mentioned(args),
        Query::Pair(args) => pair(args),
        Query::Citers(args) => citers(args),
    }
}

#[derive(Serialize)]
struct Ranked {
    rank: usize,
    #[serde(flatten)]
    paper: serde_json::Value,
    /// The value ranked by.
    score: f64,
    /// Percentile against every paper of the corpus with a value ("better than x% of the corpus").
    percentile: f64,
    #[serde(flatten)]
    details: serde_json::Value,
}

/// Rank `candidates` by `measure` (higher first), with corpus-wide percentiles.
fn rank(args: RankArgs, measure: Measure) -> Result<()> {
    let loaded = Loaded::open(args.corpus.corpus.as_deref())?;
    let candidates = loaded.candidates(args.topic.as_deref(), args.pool)?;
    let scores = loaded.scores(measure, &args.metric, args.scinet_form);
    let table = PercentileTable::new(scores.values.iter().copied());
    let values: Vec<Option<f64>> = candidates.iter().map(|&n| scores.values[n as usize]).collect();
    let top = litnav_graph::percentile::top_k(&values, args.k, |i| loaded.tie_key(candidates[i]));
    let rows: Vec<Ranked> = top
        .iter()
        .enumerate()
        .map(|(rank, &i)| {
            let node = candidates[i];
            let value = values[i].expect("top_k picks defined values");
            Ranked {
                rank: rank + 1,
                paper: loaded.describe(node),
                score: value,
                percentile: table.rank(value).unwrap_or(0.0),
                details: scores.details[node as usize].clone(),
            }
        })
        .collect();
    let (what, missing) = match measure {
        Measure::Disruption if args.scinet_form => ("disruption ((n_i − n_j)/(n_i + n_j))", NO_CD),
        Measure::Disruption => ("disruption (CD index)", NO_CD),
        Measure::Novelty => ("novelty (−p10 z; higher = more novel)", "fewer than two in-corpus references"),
    };
    let undefined = values.iter().filter(|v| v.is_none()).count();
    if args.corpus.json {
        return super::print_json(&json!({
            "measure": what,
            "candidates": candidates.len(),
            "without_value": undefined,
            "papers": rows,
        }));
    }
    println!(
        "{what}: {} of {} candidate papers have a value ({undefined} without: {missing})",
        values.len() - undefined,
        candidates.len()
    );
    for (row, &i) in rows.iter().zip(&top) {
        println!("{:>3}. {:>7.3}  p{:<5.1}  {}", row.rank, row.score, row.percentile, loaded.line(candidates[i]));
    }
    Ok(())
}

const NO_CD: &str = "no in-corpus references, or nobody cites them or the paper";

fn paper(args: PaperArgs) -> Result<()> {
    let loaded = Loaded::open(args.corpus.corpus.as_deref())?;
    let node = loaded.node(&args.id)?;
    let g = &loaded.graph;
    let all_cd = disruption::disruption_all(g, args.metric.window);
    let all_novelty = novelty::novelty_all(g, &args.metric.novelty_options());
    let cd: Disruption = all_cd[node as usize];
    let nov: Novelty = all_novelty[node as usize];
    let cd_table = PercentileTable::new(all_cd.iter().map(|d| d.cd));
    let novelty_table = PercentileTable::new(all_novelty.iter().map(|n| n.p10.map(|z| -z)));
    let report = json!({
        "paper": loaded.describe(node),
        "venue": g.venue(node),
        "in_degree": g.in_degree(node),
        "out_degree": g.out_degree(node),
        "external_references": g.external_references(node),
        "window_years": args.metric.window,
        "disruption": cd,
        "disruption_reason": cd.undefined.map(|u| u.describe()),
        "disruption_percentile": cd.cd.and_then(|v| cd_table.rank(v)),
        "novelty": nov,
        "novelty_reason": nov.undefined.map(|u| u.describe()),
        "novelty_percentile": nov.p10.and_then(|z| novelty_table.rank(-z)),
        "co_cited": loaded.describe_related(&pairs::co_cited_with(g, node, 10)),
        "coupled": loaded.describe_related(&pairs::coupled_with(g, node, 10)),
    });
    if args.corpus.json {
        return super::print_json(&report);
    }
    println!("{}", loaded.line(node));
    println!(
        "  cited by {} in the corpus; cites {} in the corpus and {} outside it",
        g.in_degree(node),
        g.out_degree(node),
        g.external_references(node)
    );
    let number = |v: Option<f64>| v.map_or_else(|| "—".to_string(), |v| format!("{v:.4}"));
    println!(
        "  disruption: CD {} (n_i {}, n_j {}, n_k {}), SciNet form {}, percentile {}{}",
        number(cd.cd),
        cd.n_i,
        cd.n_j,
        cd.n_k,
        number(cd.cd_nok),
        number(report["disruption_percentile"].as_f64()),
        cd.undefined.map_or_else(String::new, |u| format!(" — undefined: {}", u.describe()))
    );
    println!(
        "  novelty: p10 z {}, median z {} over {} reference pairs, percentile {}{}",
        number(nov.p10),
        number(nov.median),
        nov.pairs,
        number(report["novelty_percentile"].as_f64()),
        nov.undefined.map_or_else(String::new, |u| format!(" — undefined: {}", u.describe()))
    );
    for (title, list) in [
        ("most co-cited with", pairs::co_cited_with(g, node, 5)),
        ("most coupled with", pairs::coupled_with(g, node, 5)),
    ] {
        println!("  {title}:");
        for r in list {
            println!("    {:>4}  {}", r.count, loaded.line(r.node));
        }
    }
    Ok(())
}

fn path(args: PathArgs) -> Result<()> {
    let loaded = Loaded::open(args.corpus.corpus.as_deref())?;
    let (from, to) = (loaded.node(&args.from)?, loaded.node(&args.to)?);
    let g = &loaded.graph;
    let best = paths::max_citation_path(g, from, to, args.max_hops);
    let shortest = paths::shortest_paths(g, from, to, Direction::Cites, args.shortest_limit);
    let describe_path = |nodes: &[Node]| nodes.iter().map(|&n| loaded.describe(n)).collect::<Vec<_>>();
    let report = json!({
        "from": args.from,
        "to": args.to,
        "max_hops": args.max_hops,
        "max_citation_path": best.as_ref().map(|p| json!({
            "papers": describe_path(&p.nodes),
            "hops": p.hops(),
            "total_in_degree": p.total_in_degree,
        })),
        "citation_distance": paths::distance(g, from, to, Direction::Cites),
        "undirected_distance": paths::distance(g, from, to, Direction::Either),
        "shortest_paths": shortest.iter().map(|p| describe_path(p)).collect::<Vec<_>>(),
    });
    if args.corpus.json {
        return super::print_json(&report);
    }
    match &best {
        Some(p) => {
            println!("maximum-citation path ({} hops, {} citations in total):", p.hops(), p.total_in_degree);
            for &n in &p.nodes {
                println!("  {:>5}  {}", g.in_degree(n), loaded.line(n));
            }
        }
        None => println!("no citation path of at most {} hops from {} to {}", args.max_hops, args.from, args.to),
    }
    match report["citation_distance"].as_u64() {
        Some(d) => println!("{} shortest citation path(s) of {d} hops", shortest.len()),
        None => match report["undirected_distance"].as_u64() {
            Some(d) => {
                println!("{} does not reach {} by citations; {d} hops apart ignoring direction", args.from, args.to)
            }
            None => println!("the two papers are not connected in the citation graph"),
        },
    }
    Ok(())
}

fn neighbours(args: NeighbourArgs, find: fn(&Graph, Node, usize) -> Vec<Related>, what: &str) -> Result<()> {
    let loaded = Loaded::open(args.corpus.corpus.as_deref())?;
    let node = loaded.node(&args.id)?;
    let list = find(&loaded.graph, node, args.k);
    if args.corpus.json {
        let rows = loaded.describe_related(&list);
        return super::print_json(&json!({ "paper": loaded.describe(node), "related": rows }));
    }
    if list.is_empty() {
        println!("no paper shares {what} with {}", args.id);
    }
    for (rank, r) in list.iter().enumerate() {
        println!("{:>3}. {:>4} {what} (cosine {:.3})  {}", rank + 1, r.count, r.similarity, loaded.line(r.node));
    }
    Ok(())
}

fn co_mentioned(args: NeighbourArgs) -> Result<()> {
    let loaded = Loaded::open(args.corpus.corpus.as_deref())?;
    if loaded.contexts.is_empty() {
        bail!(
            "{} holds no citation contexts; add them with `litnav ingest --corpus DIR --contexts FILE.jsonl`",
            loaded.dir.display()
        );
    }
    let mut list = contexts::co_mentioned(&loaded.contexts, &args.id);
    list.truncate(args.k);
    if args.corpus.json {
        return super::print_json(&json!({ "paper": args.id, "co_mentioned": list }));
    }
    for (rank, m) in list.iter().enumerate() {
        let title = loaded.by_id.get(&m.paper_id).map_or("(not in the corpus)", |&i| loaded.papers[i].title.as_str());
        println!(
            "{:>3}. {:>3} paragraph(s) in {:>3} paper(s)  {title}  [{}]",
            rank + 1,
            m.paragraphs,
            m.citing_papers,
            m.paper_id
        );
    }
    Ok(())
}

fn pair(args: PairArgs) -> Result<()> {
    let loaded = Loaded::open(args.corpus.corpus.as_deref())?;
    let (a, b) = (loaded.node(&args.a)?, loaded.node(&args.b)?);
    let relation = pairs::relation(&loaded.graph, a, b);
    if args.corpus.json {
        return super::print_json(&json!({ "a": loaded.describe(a), "b": loaded.describe(b), "relation": relation }));
    }
    println!("A {}\nB {}", loaded.line(a), loaded.line(b));
    println!("  A cites B: {}; B cites A: {}", relation.cites, relation.cited_by);
    println!("  co-cited by {} paper(s) (cosine {:.3})", relation.co_citations, relation.co_citation_similarity);
    println!("  {} shared reference(s) (cosine {:.3})", relation.shared_references, relation.coupling_similarity);
    Ok(())
}

fn citers(args: CitersArgs) -> Result<()> {
    let loaded = Loaded::open(args.corpus.corpus.as_deref())?;
    let cited = loaded.node(&args.id)?;
    let cited_title = loaded.paper(cited).map_or(args.id.as_str(), |p| p.title.as_str()).to_string();
    let mut mentions: Vec<contexts::CitationContext> =
        loaded.contexts.iter().filter(|c| c.cited_id == args.id).cloned().collect();
    let mut classified = 0;
    if let Some(client) = args.llm.client()? {
        for mention in mentions.iter_mut().filter(|m| m.sentiment.is_none()) {
            let judged = litnav_llm::judges::citation_sentiment(&client, &cited_title, &mention.text);
            match judged {
                Ok(j) => {
                    mention.sentiment = serde_json::from_value(json!(j.sentiment)).ok();
                    classified += 1;
                }
                Err(e @ litnav_llm::Error::Invalid { .. }) => eprintln!("{}: left unlabelled ({e})", mention.citing_id),
                Err(e) => return Err(e.into()),
            }
        }
    }
    let labels = contexts::sentiment_of_citers(&mentions, &args.id);
    let mut citing: Vec<String> = loaded.graph.citers(cited).iter().map(|&n| loaded.graph.id(n).to_string()).collect();
    citing.extend(mentions.iter().map(|m| m.citing_id.clone()));
    citing.sort();
    citing.dedup();
    // Citers with a known sentiment first.
    citing.sort_by_key(|id| !labels.contains_key(id));
    let rows: Vec<serde_json::Value> = citing
        .iter()
        .filter(|id| args.sentiment.is_none_or(|s| labels.get(*id) == Some(&s.label())))
        .map(|id| {
            let mut row = match loaded.graph.find(id) {
                Some(node) => loaded.describe(node),
                None => json!({ "id": id }),
            };
            row["sentiment"] = json!(labels.get(id));
            row["mentions"] = json!(mentions.iter().filter(|m| &m.citing_id == id).count());
            row
        })
        .collect();
    if args.corpus.json {
        return super::print_json(&json!({
            "paper": loaded.describe(cited),
            "classified_by_llm": classified,
            "citers": rows,
        }));
    }
    println!("{} — {} citer(s) listed; {classified} mention(s) classified by the LLM", loaded.line(cited), rows.len());
    for row in &rows {
        let sentiment = row["sentiment"].as_str().unwrap_or("unknown");
        println!(
            "  {sentiment:<8} {}  [{}]",
            row["title"].as_str().unwrap_or("(not in the corpus)"),
            row["id"].as_str().unwrap_or("")
        );
    }
    Ok(())
}
