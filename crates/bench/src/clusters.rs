//! Knowledge Navigator's clustering benchmark (seed 004, §5.1, Table 1) on litbench: the seed
//! turned TREC-COVID's topics into gold clusters (up to 50 highly relevant documents per topic,
//! each document in one cluster) and asked how well a clustering of the pooled documents recovers
//! them. Here the topics are litbench's 19 surveys and a topic's documents are the corpus papers
//! its survey cites (papers two surveys cite are left out, so each sits in one cluster), sampled
//! with the seed. Every organizer method clusters the pool into as many subtopics as there are
//! topics (the seed's setting), and `litnav eval clusters`' scorer scores the map's leaves: ARI,
//! NMI, Rc@80, Rv@80, beside the random assignment.

use crate::Result;
use litnav_app::score::clusters::{Assignment, ClusterNumbers, ClusterOptions, score_clusters};
use litnav_app::{CorpusSession, Quiet, Workspace};
use litnav_organize::{Method, Options, organize};
use serde::Serialize;
use std::collections::HashMap;
use std::time::Instant;

/// One method's row.
#[derive(Debug, Clone, Serialize)]
pub struct MethodRow {
    /// The organizer method.
    pub method: &'static str,
    /// Clusters (leaves) it made.
    pub clusters: usize,
    /// Papers listed in a second cluster too (mixture methods).
    pub secondary_memberships: usize,
    /// Its scores.
    pub scores: ClusterNumbers,
    /// Seconds to organize the pool.
    pub seconds: f64,
}

/// The benchmark's report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Gold clusters (topics).
    pub topics: usize,
    /// Documents pooled.
    pub documents: usize,
    /// Each method.
    pub rows: Vec<MethodRow>,
    /// The random assignment (the first method's cluster sizes).
    pub random: ClusterNumbers,
}

const METHODS: [(Method, &str); 4] = [
    (Method::Navigator, "UMAP + GMM (Knowledge Navigator)"),
    (Method::Average, "average-linkage (litnav's default)"),
    (Method::Ward, "Ward"),
    (Method::KMeans, "k-means"),
];

/// Pool up to `per_topic` papers of each topic of the session's corpus, cluster them with every
/// method, and score the clusterings.
pub fn run(workspace: &Workspace, session: &CorpusSession, per_topic: usize, seed: u64) -> Result<Report> {
    let encoder = workspace.encoder(&Quiet)?;
    let gold = gold_clusters(session, per_topic, seed)?;
    if gold.is_empty() {
        return Err(litnav_app::Error::input(format!("the corpus at {} has no topics", session.dir().display())));
    }
    let ids: Vec<String> = gold.iter().flat_map(|(_, ids)| ids.iter().cloned()).collect();
    let docs = session.docs(&ids, encoder, &Quiet)?;
    let gold_assignment =
        Assignment::from_pairs(gold.iter().flat_map(|(topic, ids)| ids.iter().map(move |id| (id.as_str(), *topic))));
    let topic = "litbench";
    let topic_vector = encoder.embed(&[topic]).pop().unwrap_or_default();
    let embed = |texts: &[String]| encoder.embed(texts);
    let options = ClusterOptions { seed, ..ClusterOptions::default() };
    let mut rows = Vec::new();
    let mut random = None;
    for (method, name) in METHODS {
        let started = Instant::now();
        let organizer = Options { method, max_subtopics: gold.len(), themes: false, seed, ..Options::default() };
        let map = organize(topic, &topic_vector, &docs, &embed, organizer);
        let seconds = started.elapsed().as_secs_f64();
        let scored = score_clusters(&gold_assignment, &Assignment::from_map(&map), options)?;
        if let Some(baseline) = scored.random {
            random.get_or_insert(baseline);
        }
        rows.push(MethodRow {
            method: name,
            clusters: scored.predicted_clusters,
            secondary_memberships: scored.secondary_memberships,
            scores: scored.scores,
            seconds,
        });
    }
    Ok(Report {
        topics: gold.len(),
        documents: docs.len(),
        rows,
        random: random.unwrap_or(ClusterNumbers { ari: 0.0, nmi: 0.0, rc: 0.0, rv: 0.0 }),
    })
}

/// Each topic (by id) with up to `per_topic` of its corpus papers that no other topic cites,
/// sampled with `seed`.
fn gold_clusters(session: &CorpusSession, per_topic: usize, seed: u64) -> Result<Vec<(&str, Vec<String>)>> {
    let mut topics_citing: HashMap<&str, usize> = HashMap::new();
    for topic in session.topics() {
        let mut ids: Vec<&str> = topic.reference_ids.iter().map(String::as_str).collect();
        ids.sort_unstable();
        ids.dedup();
        for id in ids {
            *topics_citing.entry(id).or_default() += 1;
        }
    }
    let mut gold = Vec::new();
    for topic in session.topics() {
        let cited_here_only = topic.reference_ids.iter().filter(|id| topics_citing[id.as_str()] == 1);
        let known: Vec<String> = session.papers_of(cited_here_only)?.into_iter().map(|p| p.id.clone()).collect();
        let mut ids = crate::seeded_order(known, seed);
        ids.truncate(per_topic);
        ids.sort_unstable();
        if !ids.is_empty() {
            gold.push((topic.id.as_str(), ids));
        }
    }
    Ok(gold)
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "Clustering {} litbench papers of {} gold topics (each paper cited by one survey) into at most {} subtopics",
            self.documents, self.topics, self.topics
        )?;
        writeln!(
            f,
            "  {:<36} {:>3} {:>8} {:>8} {:>8} {:>8} {:>8}",
            "method", "k", "ARI ↑", "NMI ↑", "Rc@80 ↓", "Rv@80 ↓", "seconds"
        )?;
        let line = |f: &mut std::fmt::Formatter<'_>, name: &str, k: String, n: &ClusterNumbers, seconds: String| {
            writeln!(
                f,
                "  {name:<36} {k:>3} {:>8.3} {:>8.3} {:>8.2} {:>7.1}% {seconds:>8}",
                n.ari,
                n.nmi,
                n.rc,
                100.0 * n.rv
            )
        };
        for row in &self.rows {
            line(f, row.method, row.clusters.to_string(), &row.scores, format!("{:.1}", row.seconds))?;
        }
        line(f, "random (same cluster sizes)", String::new(), &self.random, String::new())?;
        let secondary: usize = self.rows.iter().map(|r| r.secondary_memberships).sum();
        writeln!(f, "  {secondary} papers listed in a second subtopic (counted by Rc/Rv)")
    }
}
