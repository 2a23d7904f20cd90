//! Knowledge Navigator's Subtopic Expander benchmark (seed 004, §5.1, Table 3) on litbench. The
//! seed built a cluster of 20 relevant papers per TREC-COVID topic, had the expander write a
//! query from it, retrieved with BM25 from the whole collection, and compared Precision@K and
//! Recall@K with two baselines: the topic's original query, and a query written from the title
//! alone. Here a topic is a litbench survey, its cluster 20 of the corpus papers it cites (seeded
//! sample), the truth the rest of them; retrieval is BM25 under ResearchArena's protocol (no
//! surveys, nothing from the survey's year or later) with the cluster's own papers removed from
//! the ranking.
//!
//! Query types: the original (the survey title); the Subtopic Expander with the title only; the
//! Subtopic Expander with the title and the cluster's papers (both with an LLM); and litnav's
//! offline expansion (`litnav expand` without --llm: the title plus the cluster's key phrases
//! against the other clusters). When the LLM's answer is unusable, that topic keeps the original
//! query for that row, and the row says how often that happened.

use crate::Result;
use litnav_app::maps::{distinguishing_phrases, query_of};
use litnav_app::{CorpusSession, Quiet, SearchRequest, Workspace};
use litnav_core::PaperText;
use litnav_corpus::Paper;
use litnav_organize::Doc;
use litnav_search::{Filter, Mode};
use serde::Serialize;
use std::collections::HashSet;

/// Cut-offs of P@K and R@K.
pub const CUTOFFS: [usize; 4] = [20, 50, 100, 200];

/// What to run.
#[derive(Clone, Copy)]
pub struct ExpanderOptions<'a> {
    /// Papers per cluster (20 in the seed).
    pub cluster_size: usize,
    /// Papers of the cluster shown to the LLM.
    pub llm_papers: usize,
    /// The LLM (the expander rows are skipped without one).
    pub llm: Option<&'a litnav_llm::Client>,
    /// Seed of the cluster samples.
    pub seed: u64,
}

/// One query type's mean scores over the topics.
#[derive(Debug, Clone, Serialize)]
pub struct QueryRow {
    /// The query type.
    pub query: &'static str,
    /// Mean P@K for each of [`CUTOFFS`].
    pub precision: Vec<f64>,
    /// Mean R@K for each of [`CUTOFFS`].
    pub recall: Vec<f64>,
    /// Topics whose LLM answer was unusable (they kept the original query).
    pub fallbacks: usize,
}

/// One topic's queries.
#[derive(Debug, Clone, Serialize)]
pub struct TopicQueries {
    /// The topic's id.
    pub topic: String,
    /// Papers in its cluster.
    pub cluster: usize,
    /// Papers still to find.
    pub truth: usize,
    /// Each query type's query.
    pub queries: Vec<(&'static str, String)>,
}

/// The benchmark's report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The cut-offs K.
    pub cutoffs: Vec<usize>,
    /// Each query type.
    pub rows: Vec<QueryRow>,
    /// Each topic's queries.
    pub topics: Vec<TopicQueries>,
}

const ORIGINAL: &str = "original query (survey title)";
const OFFLINE: &str = "title + cluster, offline key phrases";
const LLM_TITLE: &str = "Subtopic Expander: title";
const LLM_CLUSTER: &str = "Subtopic Expander: title + cluster";

/// Run the benchmark on the session's corpus topics.
pub fn run(workspace: &Workspace, session: &CorpusSession, options: ExpanderOptions<'_>) -> Result<Report> {
    let encoder = workspace.encoder(&Quiet)?;
    let clusters = clusters(session, options.cluster_size, options.seed)?;
    if clusters.is_empty() {
        return Err(litnav_app::Error::input(format!(
            "the corpus at {} has no topics with references in it",
            session.dir().display()
        )));
    }
    let texts =
        |ids: &[String]| -> Result<Vec<String>> { Ok(session.papers_of(ids)?.into_iter().map(Paper::text).collect()) };
    let cluster_texts: Vec<Vec<String>> = clusters.iter().map(|c| texts(&c.cluster)).collect::<Result<_>>()?;
    let embed = |t: &[String]| encoder.embed(t);
    let mut names: Vec<&'static str> = vec![ORIGINAL, OFFLINE];
    if options.llm.is_some() {
        names.extend([LLM_TITLE, LLM_CLUSTER]);
    }
    let mut sums = vec![(vec![0.0; CUTOFFS.len()], vec![0.0; CUTOFFS.len()], 0usize); names.len()];
    let mut topics = Vec::new();
    for (i, cluster) in clusters.iter().enumerate() {
        // The cluster's vectors come from the corpus's cache.
        let cluster_docs = session.docs(&cluster.cluster, encoder, &Quiet)?;
        let phrases = offline_phrases(i, &cluster_texts, &cluster_docs, &embed, &cluster.title);
        let mut queries =
            vec![(ORIGINAL, cluster.title.clone(), false), (OFFLINE, query_of(&cluster.title, &phrases), false)];
        if let Some(client) = options.llm {
            let known = session.papers_of(&cluster.cluster)?;
            let papers: Vec<PaperText<'_>> =
                known.into_iter().take(options.llm_papers.max(1)).map(Paper::as_text).collect();
            for (name, shown) in [(LLM_TITLE, &papers[..0]), (LLM_CLUSTER, &papers[..])] {
                queries.push(match litnav_llm::navigator::expand_subtopic(client, "", &cluster.title, "", shown) {
                    Ok(answer) => (name, query_of(&cluster.title, &answer.value.terms), false),
                    Err(litnav_llm::Error::Invalid { .. }) => (name, cluster.title.clone(), true),
                    Err(e) => return Err(e.into()),
                });
            }
        }
        let excluded: HashSet<&str> = cluster.cluster.iter().map(String::as_str).collect();
        let truth: HashSet<&str> = cluster.truth.iter().map(String::as_str).collect();
        for (slot, (_, query, fell_back)) in queries.iter().enumerate() {
            let ranking = retrieve(session, query, cluster.before, &excluded)?;
            for (c, &k) in CUTOFFS.iter().enumerate() {
                let found = ranking.iter().take(k).filter(|id| truth.contains(id.as_str())).count() as f64;
                sums[slot].0[c] += found / k as f64;
                sums[slot].1[c] += found / truth.len() as f64;
            }
            sums[slot].2 += usize::from(*fell_back);
        }
        topics.push(TopicQueries {
            topic: cluster.topic.clone(),
            cluster: cluster.cluster.len(),
            truth: cluster.truth.len(),
            queries: queries.into_iter().map(|(name, query, _)| (name, query)).collect(),
        });
    }
    let n = clusters.len() as f64;
    let rows = names
        .into_iter()
        .zip(sums)
        .map(|(query, (p, r, fallbacks))| QueryRow {
            query,
            precision: p.into_iter().map(|v| v / n).collect(),
            recall: r.into_iter().map(|v| v / n).collect(),
            fallbacks,
        })
        .collect();
    Ok(Report { cutoffs: CUTOFFS.to_vec(), rows, topics })
}

/// A topic's cluster and the papers left to find.
struct Cluster {
    topic: String,
    title: String,
    before: Option<i32>,
    cluster: Vec<String>,
    truth: Vec<String>,
}

/// Each topic with `size` of its corpus references (seeded sample) as the cluster and at least
/// as many left as the truth.
fn clusters(session: &CorpusSession, size: usize, seed: u64) -> Result<Vec<Cluster>> {
    let mut clusters = Vec::new();
    for topic in session.topics() {
        let in_corpus = session.papers_of(&topic.reference_ids)?.into_iter().map(|p| p.id.clone()).collect();
        let mut ids = crate::seeded_order(in_corpus, seed);
        if ids.len() < 2 * size {
            continue;
        }
        let truth = ids.split_off(size);
        clusters.push(Cluster {
            topic: topic.id.clone(),
            title: topic.title.clone(),
            before: topic.year,
            cluster: ids,
            truth,
        });
    }
    Ok(clusters)
}

/// The key phrases of cluster `i` against the other clusters, as `litnav expand` picks them.
fn offline_phrases(
    i: usize,
    cluster_texts: &[Vec<String>],
    cluster_docs: &[Doc],
    embed: &dyn Fn(&[String]) -> Vec<Vec<f32>>,
    title: &str,
) -> Vec<String> {
    let outside: Vec<String> = cluster_texts
        .iter()
        .enumerate()
        .filter(|&(j, _)| j != i)
        .flat_map(|(_, texts)| texts.iter().cloned())
        .collect();
    distinguishing_phrases(&cluster_texts[i], &outside, cluster_docs, embed, title)
}

/// BM25's ranking for `query` under the protocol, without the cluster's papers.
fn retrieve(
    session: &CorpusSession,
    query: &str,
    before: Option<i32>,
    excluded: &HashSet<&str>,
) -> Result<Vec<String>> {
    let k = CUTOFFS[CUTOFFS.len() - 1] + excluded.len();
    let request = SearchRequest {
        k,
        mode: Mode::Bm25,
        filter: Filter { before, exclude_surveys: true },
        ..SearchRequest::new(query)
    };
    Ok(session
        .search_lexical(&request)?
        .into_iter()
        .map(|hit| hit.id)
        .filter(|id| !excluded.contains(id.as_str()))
        .collect())
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "Subtopic expansion on {} litbench topics (a cluster of {} cited papers; BM25; the survey's other references as truth)",
            self.topics.len(),
            self.topics.first().map_or(0, |t| t.cluster)
        )?;
        let header: String = self.cutoffs.iter().map(|k| format!("{:>7}", format!("P@{k}"))).collect();
        let recall_header: String = self.cutoffs.iter().map(|k| format!("{:>7}", format!("R@{k}"))).collect();
        writeln!(f, "  {:<40}{header}{recall_header}", "query")?;
        for row in &self.rows {
            let cells: String = row.precision.iter().chain(&row.recall).map(|v| format!("{v:>7.3}")).collect();
            write!(f, "  {:<40}{cells}", row.query)?;
            if row.fallbacks > 0 {
                write!(f, "  ({} unusable answers: original query)", row.fallbacks)?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
