//! How papers relate through citations, as typed reports: rankings by disruption or novelty with
//! corpus-wide percentiles, one paper's profile, citation paths, co-citation, coupling, co-mention,
//! pairs, and who cites a paper and how.

use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::session::CorpusSession;
use litnav_core::Sentiment;
use litnav_graph::disruption::{self, CdOptions, Disruption, Reading};
use litnav_graph::novelty::{self, Novelty, Units};
use litnav_graph::pairs::{self, PairRelation, Related};
use litnav_graph::paths::{self, Direction};
use litnav_graph::percentile::{PercentileTable, top_k};
use litnav_graph::{Node, contexts};
use serde::Serialize;
use std::sync::Arc;

/// A property papers are ranked by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// The CD disruption index.
    Disruption,
    /// Uzzi novelty (negated 10th-percentile z: higher = more novel).
    Novelty,
    /// In-corpus citations (most cited first).
    Citations,
}

impl Measure {
    /// The name SciNet's tables use.
    pub fn name(self) -> &'static str {
        match self {
            Measure::Disruption => "Disruption",
            Measure::Novelty => "Novelty",
            Measure::Citations => "Citations",
        }
    }
}

/// How disruption and novelty are computed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricOptions {
    /// Count only citing papers published within this many years after the focal paper.
    pub window: Option<u32>,
    /// Which citing papers CD counts (later ones, as the index's authors compute it, by default).
    pub reading: Reading,
    /// What plays the role of Uzzi's journals in novelty.
    pub units: Units,
    /// Randomized citation graphs of novelty's null model.
    pub nulls: usize,
    /// Seed of the randomization.
    pub seed: u64,
}

impl Default for MetricOptions {
    /// No window; novelty over venues with 10 null graphs and the default seed.
    fn default() -> Self {
        let n = novelty::Options::default();
        MetricOptions {
            window: None,
            reading: Reading::default(),
            units: n.units,
            nulls: n.nulls,
            seed: litnav_core::DEFAULT_SEED,
        }
    }
}

impl MetricOptions {
    fn cd(&self) -> CdOptions {
        CdOptions { window: self.window, reading: self.reading }
    }

    fn novelty(&self) -> novelty::Options {
        novelty::Options { units: self.units, nulls: self.nulls, seed: self.seed, ..novelty::Options::default() }
    }
}

/// A paper's value of one measure with the counts behind it.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(untagged)]
pub enum Detail {
    /// CD counts and indices.
    Disruption(Disruption),
    /// Novelty's pair count and z-scores.
    Novelty(Novelty),
    /// In-corpus citation counts.
    Citations(CitationCounts),
}

/// A paper's in-corpus citations and references.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CitationCounts {
    /// Papers of the corpus citing it.
    pub citations: u64,
    /// Papers of the corpus it cites.
    pub references: u64,
}

/// Every paper's value of a measure (node order), oriented so that higher is more disruptive or
/// more novel, with the counts behind each.
#[derive(Debug)]
pub struct Scores {
    /// The ranked value per node (`None` when undefined).
    pub values: Vec<Option<f64>>,
    /// The record behind each value, per node.
    pub details: Vec<Detail>,
    /// Percentiles against every paper with a value.
    pub table: PercentileTable,
}

/// A paper as relation reports show it.
#[derive(Debug, Clone, Serialize)]
pub struct PaperRef {
    /// Corpus id.
    pub id: String,
    /// Title (none when the id is not a corpus paper).
    pub title: Option<String>,
    /// Year.
    pub year: Option<i32>,
    /// In-corpus citations.
    pub cited_by: usize,
    /// Its source marks it retracted.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub retracted: bool,
}

/// A related paper and the count and similarity relating it.
#[derive(Debug, Clone, Serialize)]
pub struct RelatedPaper {
    /// The paper.
    #[serde(flatten)]
    pub paper: PaperRef,
    /// Co-citations or shared references.
    pub count: usize,
    /// Salton's cosine of the two papers' citing (or cited) sets.
    pub similarity: f64,
}

/// One row of a ranking.
#[derive(Debug, Clone, Serialize)]
pub struct Ranked {
    /// 1-based rank.
    pub rank: usize,
    /// The paper.
    #[serde(flatten)]
    pub paper: PaperRef,
    /// The value ranked by.
    pub score: f64,
    /// Percentile against every paper of the corpus with a value.
    pub percentile: f64,
    /// The counts behind the value.
    #[serde(flatten)]
    pub details: Detail,
}

/// A ranking of papers by a measure.
#[derive(Debug, Clone, Serialize)]
pub struct Ranking {
    /// What was ranked by, in words.
    pub measure: String,
    /// Papers considered.
    pub candidates: usize,
    /// Candidates without a value.
    pub without_value: usize,
    /// Why papers have no value.
    pub without_value_reason: &'static str,
    /// The top papers.
    pub papers: Vec<Ranked>,
}

/// What to rank.
#[derive(Debug, Clone, PartialEq)]
pub struct RankRequest {
    /// The measure.
    pub measure: Measure,
    /// A stored topic's id or title, or free text whose best BM25 matches are ranked.
    pub topic: Option<String>,
    /// BM25 matches a free-text topic takes.
    pub pool: usize,
    /// Papers listed.
    pub k: usize,
    /// Rank disruption by SciNet's (n_i − n_j)/(n_i + n_j) instead of the CD index.
    pub scinet_form: bool,
    /// How the measures are computed.
    pub metric: MetricOptions,
}

impl RankRequest {
    /// A ranking of the whole corpus by `measure` with the defaults every face resolves to:
    /// [`DEFAULT_RANKED`] papers, the CD index, the measures' defaults under `seed`.
    pub fn new(measure: Measure, seed: u64) -> RankRequest {
        RankRequest {
            measure,
            topic: None,
            pool: DEFAULT_TOPIC_POOL,
            k: DEFAULT_RANKED,
            scinet_form: false,
            metric: MetricOptions { seed, ..MetricOptions::default() },
        }
    }
}

/// BM25 matches a free-text topic takes when a ranking is limited to it, unless asked otherwise.
pub const DEFAULT_TOPIC_POOL: usize = 300;

/// Papers a ranking lists, unless asked otherwise.
pub const DEFAULT_RANKED: usize = 50;

/// Co-cited or coupled papers listed, unless asked otherwise.
pub const DEFAULT_NEIGHBOURS: usize = 20;

/// The longest citation path considered, in hops, unless asked otherwise.
pub use litnav_graph::paths::DEFAULT_MAX_HOPS;

/// How many shortest citation paths a path report lists at most, unless asked otherwise.
pub const DEFAULT_SHORTEST_PATHS: usize = 20;

/// The path report between the nodes `ends` (named `names`) of `graph`, papers shown by `paper`.
pub(crate) fn path_between(
    graph: &litnav_graph::Graph,
    names: (&str, &str),
    (a, b): (Node, Node),
    max_hops: usize,
    shortest_limit: usize,
    paper: &dyn Fn(Node) -> Result<PaperRef>,
) -> Result<PathReport> {
    let refs = |nodes: &[Node]| nodes.iter().map(|&n| paper(n)).collect::<Result<Vec<_>>>();
    let max_citation_path = match paths::max_citation_path(graph, a, b, max_hops) {
        Some(p) => Some(MaxPath { papers: refs(&p.nodes)?, hops: p.hops(), total_in_degree: p.total_in_degree }),
        None => None,
    };
    let shortest = paths::shortest_paths(graph, a, b, Direction::Cites, shortest_limit);
    Ok(PathReport {
        from: names.0.to_string(),
        to: names.1.to_string(),
        max_hops,
        max_citation_path,
        citation_distance: paths::distance(graph, a, b, Direction::Cites),
        undirected_distance: paths::distance(graph, a, b, Direction::Either),
        shortest_paths: shortest.iter().map(|p| refs(p)).collect::<Result<_>>()?,
    })
}

const NO_CD: &str = "no in-corpus references, or nobody cites them or the paper";
const NO_NOVELTY: &str = "fewer than two in-corpus references";

/// Why a corpus's citation measures are all empty.
pub const NO_CITATIONS: &str = "this corpus holds no citations between its papers, so disruption, novelty, \
    co-citation, coupling and citation paths are empty; a corpus fetched from OpenAlex with its citations \
    (snowballing the references and the citing works) has them";

/// One paper's citation profile.
#[derive(Debug, Clone, Serialize)]
pub struct PaperProfile {
    /// The paper.
    pub paper: PaperRef,
    /// Its venue.
    pub venue: Option<String>,
    /// In-corpus citations.
    pub in_degree: usize,
    /// In-corpus references.
    pub out_degree: usize,
    /// References to works outside the corpus.
    pub external_references: u32,
    /// The CD window, in years.
    pub window_years: Option<u32>,
    /// Which citing papers CD counted.
    pub cd_reading: Reading,
    /// CD counts and values.
    pub disruption: Disruption,
    /// Why CD is undefined, when it is.
    pub disruption_reason: Option<&'static str>,
    /// CD percentile in the corpus.
    pub disruption_percentile: Option<f64>,
    /// Novelty.
    pub novelty: Novelty,
    /// Why novelty is undefined, when it is.
    pub novelty_reason: Option<&'static str>,
    /// Novelty percentile in the corpus.
    pub novelty_percentile: Option<f64>,
    /// Papers most co-cited with it.
    pub co_cited: Vec<RelatedPaper>,
    /// Papers sharing most references with it.
    pub coupled: Vec<RelatedPaper>,
    /// Why the citation measures are empty, when the corpus holds no citations at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub citations_note: Option<&'static str>,
}

/// The maximum-citation path between two papers.
#[derive(Debug, Clone, Serialize)]
pub struct MaxPath {
    /// Papers from the citing end to the cited end.
    pub papers: Vec<PaperRef>,
    /// Hops.
    pub hops: usize,
    /// Sum of the in-corpus citation counts of its papers.
    pub total_in_degree: u64,
}

/// Paths between two papers.
#[derive(Debug, Clone, Serialize)]
pub struct PathReport {
    /// The citing end.
    pub from: String,
    /// The cited end.
    pub to: String,
    /// Longest path considered.
    pub max_hops: usize,
    /// The maximum-citation path, when one exists within `max_hops`.
    pub max_citation_path: Option<MaxPath>,
    /// Hops of the shortest citation path.
    pub citation_distance: Option<usize>,
    /// Hops of the shortest path ignoring direction.
    pub undirected_distance: Option<usize>,
    /// The shortest citation paths (at most the limit asked for).
    pub shortest_paths: Vec<Vec<PaperRef>>,
}

/// Papers related to one paper.
#[derive(Debug, Clone, Serialize)]
pub struct Neighbours {
    /// The paper.
    pub paper: PaperRef,
    /// Related papers, most related first.
    pub related: Vec<RelatedPaper>,
}

impl Neighbours {
    /// The list as text, a line per related paper with its count of `which`'s kind.
    pub fn describe(&self, which: Neighbourhood) -> String {
        let what = match which {
            Neighbourhood::CoCited => "co-citations",
            Neighbourhood::Coupled => "shared references",
        };
        if self.related.is_empty() {
            return format!("no paper shares {what} with {}\n", self.paper.id);
        }
        let line = |(rank, r): (usize, &RelatedPaper)| {
            format!("{:>3}. {:>4} {what} (cosine {:.3})  {}\n", rank + 1, r.count, r.similarity, r.paper)
        };
        self.related.iter().enumerate().map(line).collect()
    }
}

/// Which neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Neighbourhood {
    /// Papers most often cited together with it.
    CoCited,
    /// Papers sharing the most references with it.
    Coupled,
}

/// A paper mentioned in the same paragraph as another.
#[derive(Debug, Clone, Serialize)]
pub struct CoMentioned {
    /// The co-mention counts.
    #[serde(flatten)]
    pub mention: contexts::CoMention,
    /// Its title, when it is a corpus paper.
    pub title: Option<String>,
}

/// Papers mentioned together with a paper.
#[derive(Debug, Clone, Serialize)]
pub struct CoMentions {
    /// The paper's id.
    pub paper: String,
    /// Co-mentioned papers, most often first.
    pub co_mentioned: Vec<CoMentioned>,
}

/// How two papers relate.
#[derive(Debug, Clone, Serialize)]
pub struct PairReport {
    /// One paper.
    pub a: PaperRef,
    /// The other.
    pub b: PaperRef,
    /// Citation either way, co-citation and coupling.
    pub relation: PairRelation,
}

/// A paper citing another, and how.
#[derive(Debug, Clone, Serialize)]
pub struct Citer {
    /// The citing paper.
    #[serde(flatten)]
    pub paper: PaperRef,
    /// How its mentions speak of the cited paper, when known.
    pub sentiment: Option<Sentiment>,
    /// Its mentions (contexts) of the cited paper.
    pub mentions: usize,
    /// The text of its first mention, when there is one.
    pub context: Option<String>,
}

/// Who cites a paper and how.
#[derive(Debug, Clone, Serialize)]
pub struct CitersReport {
    /// The cited paper.
    pub paper: PaperRef,
    /// Mentions the LLM labelled now.
    pub classified_by_llm: usize,
    /// Mentions whose sentiment an LLM gave, now or earlier in this session (the corpus's own
    /// labels come first; an LLM labels only mentions without one).
    pub llm_labelled: usize,
    /// Mentions with no sentiment (an LLM can classify them).
    pub without_sentiment: usize,
    /// Mentions the LLM could not label, and why.
    pub unlabelled: Vec<String>,
    /// Citers, those with a known sentiment first.
    pub citers: Vec<Citer>,
}

/// The key of a measure's scores in a session's cache.
fn scores_key(measure: Measure, metric: &MetricOptions, scinet_form: bool) -> String {
    match measure {
        // Counting citations depends on no option.
        Measure::Citations => format!("scores/{measure:?}"),
        _ => format!("scores/{measure:?}/{metric:?}/{scinet_form}"),
    }
}

/// A paper's citations as a ranked value (every paper has one) with its counts.
fn citation_score(counts: CitationCounts) -> (Option<f64>, Detail) {
    (Some(counts.citations as f64), Detail::Citations(counts))
}

impl CorpusSession {
    /// A node as a report shows it.
    pub fn paper_ref(&self, node: Node) -> Result<PaperRef> {
        let graph = &self.citations()?.graph;
        let id = graph.id(node);
        let paper = self.paper(id)?;
        Ok(PaperRef {
            id: id.to_string(),
            title: paper.map(|p| p.title.clone()),
            year: graph.year(node),
            cited_by: graph.in_degree(node),
            retracted: paper.is_some_and(|p| p.retracted),
        })
    }

    fn related(&self, list: &[Related]) -> Result<Vec<RelatedPaper>> {
        list.iter()
            .map(|r| Ok(RelatedPaper { paper: self.paper_ref(r.node)?, count: r.count, similarity: r.similarity }))
            .collect()
    }

    /// Every paper's value of `measure`, computed once per session and settings.
    pub fn scores(&self, measure: Measure, metric: &MetricOptions, scinet_form: bool) -> Result<Arc<Scores>> {
        let key = scores_key(measure, metric, scinet_form);
        if let Some(scores) = self.kept::<Scores>(&key)? {
            return Ok(scores);
        }
        let graph = &self.citations()?.graph;
        let (values, details): (Vec<Option<f64>>, Vec<Detail>) = match measure {
            Measure::Disruption => disruption::disruption_all(graph, metric.cd())
                .into_iter()
                .map(|d| (if scinet_form { d.cd_nok } else { d.cd }, Detail::Disruption(d)))
                .unzip(),
            Measure::Novelty => novelty::novelty_all(graph, &metric.novelty())?
                .into_iter()
                .map(|n| (n.p10.map(|z| -z), Detail::Novelty(n)))
                .unzip(),
            Measure::Citations => graph
                .nodes()
                .map(|node| CitationCounts {
                    citations: graph.in_degree(node) as u64,
                    references: graph.out_degree(node) as u64,
                })
                .map(citation_score)
                .unzip(),
        };
        self.store_scores(key, values, details)
    }

    fn store_scores(&self, key: String, values: Vec<Option<f64>>, details: Vec<Detail>) -> Result<Arc<Scores>> {
        let table = PercentileTable::new(values.iter().copied());
        let scores = Arc::new(Scores { values, details, table });
        self.keep(key, scores.clone())?;
        Ok(scores)
    }

    /// Use every paper's disruption computed elsewhere (by `litnav analytics cd`, read back from
    /// its `cd.parquet`) instead of computing it: rankings and profiles under `metric` read these
    /// values. They must be this corpus's papers, all of them.
    pub fn use_disruption(&self, metric: &MetricOptions, results: Vec<(String, disruption::Disruption)>) -> Result<()> {
        let details = self.values_by_node(results)?;
        for scinet_form in [false, true] {
            let key = scores_key(Measure::Disruption, metric, scinet_form);
            let values = details.iter().map(|d| if scinet_form { d.cd_nok } else { d.cd }).collect();
            self.store_scores(key, values, details.iter().copied().map(Detail::Disruption).collect())?;
        }
        Ok(())
    }

    /// Use every paper's novelty computed elsewhere (by `litnav analytics novelty`, against its
    /// expected null) instead of computing it, as [`CorpusSession::use_disruption`] does.
    pub fn use_novelty(&self, metric: &MetricOptions, results: Vec<(String, novelty::Novelty)>) -> Result<()> {
        let details = self.values_by_node(results)?;
        let values = details.iter().map(|n| n.p10.map(|z| -z)).collect();
        self.store_scores(
            scores_key(Measure::Novelty, metric, false),
            values,
            details.into_iter().map(Detail::Novelty).collect(),
        )?;
        Ok(())
    }

    /// Use every paper's citation counts computed elsewhere (by `litnav analytics counts`, read
    /// back from its `counts.parquet`), as [`CorpusSession::use_disruption`] does.
    pub fn use_citations(&self, results: Vec<(String, CitationCounts)>) -> Result<()> {
        let (values, details) = self.values_by_node(results)?.into_iter().map(citation_score).unzip();
        self.store_scores(scores_key(Measure::Citations, &MetricOptions::default(), false), values, details)?;
        Ok(())
    }

    /// Values computed elsewhere, in node order: every paper of this corpus, and no other.
    fn values_by_node<T>(&self, results: Vec<(String, T)>) -> Result<Vec<T>> {
        let graph = &self.citations()?.graph;
        let mut by_node: Vec<Option<T>> = std::iter::repeat_with(|| None).take(graph.len()).collect();
        let mut foreign = Vec::new();
        for (id, value) in results {
            match graph.find(&id) {
                Some(node) => by_node[node as usize] = Some(value),
                None => foreign.push(id),
            }
        }
        if let Some(example) = foreign.first() {
            return Err(Error::input(format!(
                "{} papers of the results are not in this corpus (e.g. `{example}`): they were computed from another corpus",
                foreign.len()
            )));
        }
        let missing = by_node.iter().filter(|d| d.is_none()).count();
        if missing > 0 {
            return Err(Error::input(format!("the results lack {missing} of this corpus's papers")));
        }
        Ok(by_node.into_iter().flatten().collect())
    }

    /// How ties in a ranking break: the better-cited paper first (CD = 1 is common among rarely
    /// cited papers), then the smaller id.
    pub fn tie_key(&self, node: Node) -> (std::cmp::Reverse<usize>, Node) {
        let in_degree = self.citations().map_or(0, |c| c.graph.in_degree(node));
        (std::cmp::Reverse(in_degree), node)
    }

    /// The nodes a ranking considers: every paper, a stored topic's references, or the best BM25
    /// matches of free text.
    pub fn field(&self, topic: Option<&str>, pool: usize) -> Result<Vec<Node>> {
        let graph = &self.citations()?.graph;
        let Some(topic) = topic else { return Ok(graph.nodes().collect()) };
        let ids: Vec<String> = match self.topic(topic) {
            Some(t) => t.reference_ids.clone(),
            None => {
                let request = crate::session::SearchRequest { k: pool, ..crate::session::SearchRequest::new(topic) };
                self.search_lexical(&request)?.into_iter().map(|hit| hit.id).collect()
            }
        };
        let mut nodes: Vec<Node> = ids.iter().filter_map(|id| graph.find(id)).collect();
        nodes.sort_unstable();
        nodes.dedup();
        if nodes.is_empty() {
            return Err(Error::not_found(format!("no paper of the corpus matches the topic `{topic}`")));
        }
        Ok(nodes)
    }

    /// Rank a field's papers by a measure, with corpus-wide percentiles.
    pub fn rank(&self, request: &RankRequest) -> Result<Ranking> {
        let candidates = self.field(request.topic.as_deref(), request.pool)?;
        let scores = self.scores(request.measure, &request.metric, request.scinet_form)?;
        let values: Vec<Option<f64>> = candidates.iter().map(|&n| scores.values[n as usize]).collect();
        let top = top_k(&values, request.k, |i| self.tie_key(candidates[i]));
        let mut papers = Vec::with_capacity(top.len());
        for (rank, &i) in top.iter().enumerate() {
            let node = candidates[i];
            let value = values[i].unwrap_or_default();
            papers.push(Ranked {
                rank: rank + 1,
                paper: self.paper_ref(node)?,
                score: value,
                percentile: scores.table.rank(value).unwrap_or(0.0),
                details: scores.details[node as usize],
            });
        }
        let (measure, without_value_reason) = match request.measure {
            Measure::Disruption if request.scinet_form => ("disruption ((n_i − n_j)/(n_i + n_j))", NO_CD),
            Measure::Disruption => ("disruption (CD index)", NO_CD),
            Measure::Novelty => ("novelty (−p10 z; higher = more novel)", NO_NOVELTY),
            Measure::Citations => ("in-corpus citations", ""),
        };
        Ok(Ranking {
            measure: measure.into(),
            candidates: candidates.len(),
            without_value: values.iter().filter(|v| v.is_none()).count(),
            without_value_reason,
            papers,
        })
    }

    /// One paper's profile: degrees, CD, novelty, percentiles, co-cited and coupled papers.
    pub fn profile(&self, id: &str, metric: &MetricOptions) -> Result<PaperProfile> {
        let node = self.node(id)?;
        let graph = &self.citations()?.graph;
        let cd_scores = self.scores(Measure::Disruption, metric, false)?;
        let novelty_scores = self.scores(Measure::Novelty, metric, false)?;
        let (Detail::Disruption(cd), Detail::Novelty(nov)) =
            (cd_scores.details[node as usize], novelty_scores.details[node as usize])
        else {
            return Err(Error::internal("score details of the wrong measure"));
        };
        Ok(PaperProfile {
            paper: self.paper_ref(node)?,
            venue: graph.venue(node).map(str::to_string),
            in_degree: graph.in_degree(node),
            out_degree: graph.out_degree(node),
            external_references: graph.external_references(node),
            window_years: metric.window,
            cd_reading: metric.reading,
            disruption: cd,
            disruption_reason: cd.undefined.map(|u| u.describe()),
            disruption_percentile: cd.cd.and_then(|v| cd_scores.table.rank(v)),
            novelty: nov,
            novelty_reason: nov.undefined.map(|u| u.describe()),
            novelty_percentile: nov.p10.and_then(|z| novelty_scores.table.rank(-z)),
            co_cited: self.related(&pairs::co_cited_with(graph, node, 10))?,
            coupled: self.related(&pairs::coupled_with(graph, node, 10))?,
            citations_note: (graph.edge_count() == 0).then_some(NO_CITATIONS),
        })
    }

    /// The maximum-citation path from `from` (citing) to `to` (cited), the shortest paths, and
    /// the distances.
    pub fn path(&self, from: &str, to: &str, max_hops: usize, shortest_limit: usize) -> Result<PathReport> {
        let ends = (self.node(from)?, self.node(to)?);
        let graph = &self.citations()?.graph;
        path_between(graph, (from, to), ends, max_hops, shortest_limit, &|node| self.paper_ref(node))
    }

    /// When the corpus holds no citation edges between its papers, what that means and how to
    /// get them (relations that need citations are empty without them).
    pub fn edgeless_note(&self) -> Result<Option<String>> {
        if self.citations()?.graph.edge_count() > 0 {
            return Ok(None);
        }
        Ok(Some(format!(
            "{} holds no citation edges between its papers; ingest an edge list (citing_id,cited_id) or papers \
             with references, or fetch the field from OpenAlex with its citations",
            self.dir().display()
        )))
    }

    /// Papers co-cited or coupled with a paper.
    pub fn neighbours(&self, id: &str, which: Neighbourhood, k: usize) -> Result<Neighbours> {
        let node = self.node(id)?;
        let graph = &self.citations()?.graph;
        let list = match which {
            Neighbourhood::CoCited => pairs::co_cited_with(graph, node, k),
            Neighbourhood::Coupled => pairs::coupled_with(graph, node, k),
        };
        Ok(Neighbours { paper: self.paper_ref(node)?, related: self.related(&list)? })
    }

    /// A paper's neighbours as a list computed elsewhere (`litnav analytics cocitation|coupling`):
    /// (related paper id, count, similarity), most related first. Every id must be this corpus's.
    pub fn neighbours_listed(&self, id: &str, list: &[(String, usize, f64)]) -> Result<Neighbours> {
        let node = self.node(id)?;
        let graph = &self.citations()?.graph;
        let related = list
            .iter()
            .map(|(other, count, similarity)| {
                let node = graph.find(other).ok_or_else(|| {
                    Error::input(format!(
                        "the results name `{other}`, which is not in this corpus: computed from another corpus"
                    ))
                })?;
                Ok(Related { node, count: *count, similarity: *similarity })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Neighbours { paper: self.paper_ref(node)?, related: self.related(&related)? })
    }

    /// Papers mentioned in the same paragraph as a paper (from the citation contexts).
    pub fn co_mentioned(&self, id: &str, k: usize) -> Result<CoMentions> {
        let contexts = &self.citations()?.contexts;
        if contexts.is_empty() {
            return Err(Error::not_found(format!("{} holds no citation contexts", self.dir().display())));
        }
        let mut list = contexts::co_mentioned(contexts, id);
        list.truncate(k);
        let co_mentioned = list
            .into_iter()
            .map(|mention| {
                let title = self.paper(&mention.paper_id)?.map(|p| p.title.clone());
                Ok(CoMentioned { mention, title })
            })
            .collect::<Result<_>>()?;
        Ok(CoMentions { paper: id.to_string(), co_mentioned })
    }

    /// The sentences in which `citing` mentions `cited` (from the citation contexts), at most
    /// `limit`.
    pub fn citing_sentences(&self, citing: &str, cited: &str, limit: usize) -> Result<Vec<String>> {
        let contexts = &self.citations()?.contexts;
        Ok(contexts::mentions_between(contexts, citing, cited).map(|c| c.text.clone()).take(limit).collect())
    }

    /// How two papers relate.
    pub fn pair(&self, a: &str, b: &str) -> Result<PairReport> {
        let (na, nb) = (self.node(a)?, self.node(b)?);
        let relation = pairs::relation(&self.citations()?.graph, na, nb);
        Ok(PairReport { a: self.paper_ref(na)?, b: self.paper_ref(nb)?, relation })
    }

    /// The papers `id` cites and, at most `shown` of, the papers citing it with how they speak of
    /// it: what a paper's page lists (the server's paper answer, the MCP tool `citations`).
    pub fn citations_of(&self, id: &str, shown: usize) -> Result<CitationsOf> {
        let node = self.node(id)?;
        let graph = &self.citations()?.graph;
        let references = graph.references(node).iter().map(|&n| self.paper_ref(n)).collect::<Result<Vec<_>>>()?;
        let mut citers = self.citers(id, None, None, &crate::Quiet)?;
        let citers_total = citers.citers.len();
        citers.citers.truncate(shown);
        Ok(CitationsOf { references, citers_total, citers })
    }

    /// The papers citing `id` and how they speak of it: labels from the contexts; with a client,
    /// unlabelled mentions are classified by the LLM (SciNet's Cite-Sentiment). `only` keeps the
    /// citers of one sentiment.
    pub fn citers(
        &self,
        id: &str,
        only: Option<Sentiment>,
        llm: Option<&litnav_llm::Client>,
        progress: &dyn Progress,
    ) -> Result<CitersReport> {
        let cited = self.node(id)?;
        let citations = self.citations()?;
        let cited_title = self.paper(id)?.map_or(id, |p| p.title.as_str()).to_string();
        // Each mention with its place among the corpus's contexts (the key of an LLM's label).
        let (places, mut mentions): (Vec<usize>, Vec<contexts::CitationContext>) = citations
            .contexts
            .iter()
            .enumerate()
            .filter(|(_, c)| c.cited_id == id)
            .map(|(i, c)| (i, c.clone()))
            .unzip();
        // The lock is held only to read or add labels, never across an LLM call: a paper's other
        // readers (the server's paper requests) must not wait for a classification job.
        let judged = || self.judged_sentiments.lock().map_err(|_| Error::internal("poisoned"));
        let earlier = judged()?;
        let mut llm_labelled = 0;
        for (mention, place) in mentions.iter_mut().zip(&places) {
            if mention.sentiment.is_none()
                && let Some(&sentiment) = earlier.get(place)
            {
                mention.sentiment = Some(sentiment);
                llm_labelled += 1;
            }
        }
        drop(earlier);
        let (mut classified, mut unlabelled) = (0, Vec::new());
        if let Some(client) = llm {
            let pending = mentions.iter().filter(|m| m.sentiment.is_none()).count();
            progress.stage(&format!("classifying {pending} mentions with the LLM"));
            for (mention, place) in mentions.iter_mut().zip(&places).filter(|(m, _)| m.sentiment.is_none()) {
                if progress.cancelled() {
                    return Err(Error::cancelled("stopped while classifying mentions"));
                }
                match litnav_llm::judges::citation_sentiment(client, &cited_title, &mention.text) {
                    Ok(verdict) => {
                        mention.sentiment = Some(verdict.sentiment);
                        judged()?.insert(*place, verdict.sentiment);
                        classified += 1;
                    }
                    Err(e @ litnav_llm::Error::Invalid { .. }) => {
                        unlabelled.push(format!("{}: {e}", mention.citing_id))
                    }
                    Err(e) => return Err(e.into()),
                }
                progress.advance(classified + unlabelled.len(), pending);
            }
        }
        let without_sentiment = mentions.iter().filter(|m| m.sentiment.is_none()).count();
        let labels = contexts::sentiment_of_citers(&mentions, id);
        let mut citing: Vec<String> =
            citations.graph.citers(cited).iter().map(|&n| citations.graph.id(n).to_string()).collect();
        citing.extend(mentions.iter().map(|m| m.citing_id.clone()));
        citing.sort();
        citing.dedup();
        // Citers with a known sentiment first.
        citing.sort_by_key(|id| !labels.contains_key(id));
        let mut citers = Vec::new();
        for citing_id in citing.iter().filter(|c| only.is_none_or(|s| labels.get(*c) == Some(&s))) {
            let paper = match citations.graph.find(citing_id) {
                Some(node) => self.paper_ref(node)?,
                // A survey ingested with its contexts cites as its topic.
                None => {
                    let topic = self.topics().iter().find(|t| &t.id == citing_id);
                    PaperRef {
                        id: citing_id.clone(),
                        title: topic.map(|t| t.title.clone()),
                        year: topic.and_then(|t| t.year),
                        cited_by: 0,
                        retracted: false,
                    }
                }
            };
            let own: Vec<&contexts::CitationContext> = mentions.iter().filter(|m| &m.citing_id == citing_id).collect();
            citers.push(Citer {
                paper,
                sentiment: labels.get(citing_id).copied(),
                mentions: own.len(),
                context: own.first().map(|m| m.text.clone()),
            });
        }
        Ok(CitersReport {
            paper: self.paper_ref(cited)?,
            classified_by_llm: classified,
            llm_labelled: llm_labelled + classified,
            without_sentiment,
            unlabelled,
            citers,
        })
    }
}

/// A paper's references and its citers ([`CorpusSession::citations_of`]).
#[derive(Debug, Clone, Serialize)]
pub struct CitationsOf {
    /// The papers it cites, in the corpus.
    pub references: Vec<PaperRef>,
    /// How many papers cite it (citers are listed up to the number asked for).
    pub citers_total: usize,
    /// Its citers, those whose sentiment is known first, with the sentence that cites it.
    pub citers: CitersReport,
}

/// What a line of text output ends with for a work its source marks retracted (relations and
/// search alike).
pub fn retracted_mark(retracted: bool) -> &'static str {
    if retracted { "  RETRACTED" } else { "" }
}

impl std::fmt::Display for PaperRef {
    /// Year, title, id on one line (and RETRACTED when the source says so).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let title = self.title.as_deref().unwrap_or("(untitled)");
        write!(f, "{}  {title}  [{}]{}", crate::year(self.year), self.id, retracted_mark(self.retracted))
    }
}

impl std::fmt::Display for Ranking {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} of {} candidate papers have a value",
            self.measure,
            self.candidates - self.without_value,
            self.candidates
        )?;
        if self.without_value > 0 {
            write!(f, " ({} without: {})", self.without_value, self.without_value_reason)?;
        }
        writeln!(f)?;
        for row in &self.papers {
            let (value, counts) = shown(row.score, &row.details);
            writeln!(f, "{:>3}. {value:>7}  p{:<5.1}  {counts}{}", row.rank, row.percentile, row.paper)?;
        }
        Ok(())
    }
}

/// A ranked value as a reader tells rows apart: a count as a whole number, a CD index or a
/// novelty with the counts behind it (so that ties at 1.000 differ by how many papers made them).
fn shown(score: f64, details: &Detail) -> (String, String) {
    match details {
        Detail::Citations(_) => (format!("{score:.0}"), String::new()),
        Detail::Disruption(d) => (format!("{score:.3}"), format!("(n_i {}, n_j {}, n_k {})  ", d.n_i, d.n_j, d.n_k)),
        Detail::Novelty(n) => (format!("{score:.3}"), format!("({} reference pairs)  ", n.pairs)),
    }
}

impl std::fmt::Display for PaperProfile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (cd, nov) = (&self.disruption, &self.novelty);
        let undefined = |reason: Option<&str>| reason.map_or_else(String::new, |r| format!(" — undefined: {r}"));
        writeln!(f, "{}", self.paper)?;
        writeln!(
            f,
            "  cited by {} in the corpus; cites {} in the corpus and {} outside it",
            self.in_degree, self.out_degree, self.external_references
        )?;
        writeln!(
            f,
            "  disruption: CD {} (n_i {}, n_j {}, n_k {}), SciNet form {}, I-index {}, mCD {}, percentile {}{}",
            crate::number(cd.cd),
            cd.n_i,
            cd.n_j,
            cd.n_k,
            crate::number(cd.cd_nok),
            cd.i_index,
            crate::number(cd.mcd),
            crate::number(self.disruption_percentile),
            undefined(self.disruption_reason)
        )?;
        writeln!(
            f,
            "  novelty: p10 z {}, median z {} over {} reference pairs, percentile {}{}",
            crate::number(nov.p10),
            crate::number(nov.median),
            nov.pairs,
            crate::number(self.novelty_percentile),
            undefined(self.novelty_reason)
        )?;
        for (title, list) in [("most co-cited with", &self.co_cited), ("most coupled with", &self.coupled)] {
            writeln!(f, "  {title}:")?;
            for r in list.iter().take(5) {
                writeln!(f, "    {:>4}  {}", r.count, r.paper)?;
            }
        }
        Ok(())
    }
}

impl std::fmt::Display for PathReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.max_citation_path {
            Some(p) => {
                writeln!(f, "maximum-citation path ({} hops, {} citations in total):", p.hops, p.total_in_degree)?;
                for paper in &p.papers {
                    writeln!(f, "  {:>5}  {paper}", paper.cited_by)?;
                }
            }
            None => {
                writeln!(f, "no citation path of at most {} hops from {} to {}", self.max_hops, self.from, self.to)?
            }
        }
        match (self.citation_distance, self.undirected_distance) {
            (Some(d), _) => writeln!(f, "{} shortest citation path(s) of {d} hops", self.shortest_paths.len()),
            (None, Some(d)) => {
                writeln!(f, "{} does not reach {} by citations; {d} hops apart ignoring direction", self.from, self.to)
            }
            (None, None) => writeln!(f, "the two papers are not connected in the citation graph"),
        }
    }
}

impl std::fmt::Display for CoMentions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (rank, m) in self.co_mentioned.iter().enumerate() {
            writeln!(
                f,
                "{:>3}. {:>3} paragraph(s) in {:>3} paper(s)  {}  [{}]",
                rank + 1,
                m.mention.paragraphs,
                m.mention.citing_papers,
                m.title.as_deref().unwrap_or("(not in the corpus)"),
                m.mention.paper_id
            )?;
        }
        Ok(())
    }
}

impl std::fmt::Display for PairReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let r = &self.relation;
        writeln!(f, "A {}\nB {}", self.a, self.b)?;
        writeln!(f, "  A cites B: {}; B cites A: {}", r.cites, r.cited_by)?;
        writeln!(f, "  co-cited by {} paper(s) (cosine {:.3})", r.co_citations, r.co_citation_similarity)?;
        writeln!(f, "  {} shared reference(s) (cosine {:.3})", r.shared_references, r.coupling_similarity)
    }
}

impl std::fmt::Display for CitersReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{} — {} citer(s) listed; {} mention(s) classified by the LLM",
            self.paper,
            self.citers.len(),
            self.classified_by_llm
        )?;
        for citer in &self.citers {
            let sentiment = citer.sentiment.map_or("unknown", Sentiment::name);
            let title = citer.paper.title.as_deref().unwrap_or("(not in the corpus)");
            writeln!(f, "  {sentiment:<8} {title}  [{}]", citer.paper.id)?;
        }
        Ok(())
    }
}
