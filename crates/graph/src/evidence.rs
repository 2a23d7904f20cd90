//! What the citation graph and the citation contexts say about a pair of papers: the ground truth
//! of SciNet's pair-wise metrics (seed 003, §4.1) for a query paper Q and a retrieved paper R.
//!
//! - **Cite-Acc**: R cites Q — an edge of the graph, or a context of R citing Q. (The seed's
//!   sentence says "cited by the query paper", but its queries ask "which papers cite Paper XX";
//!   the query decides the direction: [`Direction::Citers`], the default, or
//!   [`Direction::References`] for "which papers does XX cite".)
//! - **Cite-Sentiment**: R cites Q and R's mentions of Q carry the asked sentiment (the majority
//!   label of R's labelled mentions, [`crate::contexts::sentiment_of_citers`]). A citation no
//!   context records cannot be judged and does not count.
//! - **CoMention-Acc**: a third source S cites both R and Q — in the graph, or in its contexts
//!   (a survey ingested with `--surveys` is such a source).
//! - **CoMention-Paragraph**: one paragraph of some source's text cites both.

use crate::Graph;
use crate::contexts::{CitationContext, Sentiment, mentions_between, sentiment_of_citers};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// Which way a citation query points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// The answers cite the query paper.
    #[default]
    Citers,
    /// The query paper cites the answers.
    References,
}

/// The evidence of one graph and its contexts, indexed for pair lookups by paper id.
pub struct PairEvidence<'a> {
    graph: &'a Graph,
    /// (citing, cited) pairs the contexts record.
    context_citations: HashSet<(&'a str, &'a str)>,
    /// Per cited id, the sources whose contexts cite it.
    context_sources: HashMap<&'a str, BTreeSet<&'a str>>,
    /// Per cited id, the paragraphs (source, paragraph) that cite it.
    paragraphs: HashMap<&'a str, BTreeSet<(&'a str, &'a str)>>,
    contexts: &'a [CitationContext],
}

impl<'a> PairEvidence<'a> {
    /// Index `graph` and `contexts`.
    pub fn new(graph: &'a Graph, contexts: &'a [CitationContext]) -> PairEvidence<'a> {
        let mut context_citations = HashSet::new();
        let mut context_sources: HashMap<&str, BTreeSet<&str>> = HashMap::new();
        let mut paragraphs: HashMap<&str, BTreeSet<(&str, &str)>> = HashMap::new();
        for c in contexts {
            context_citations.insert((c.citing_id.as_str(), c.cited_id.as_str()));
            context_sources.entry(&c.cited_id).or_default().insert(&c.citing_id);
            paragraphs.entry(&c.cited_id).or_default().insert((&c.citing_id, &c.paragraph));
        }
        PairEvidence { graph, context_citations, context_sources, paragraphs, contexts }
    }

    /// Whether `citing` cites `cited`.
    pub fn cites(&self, citing: &str, cited: &str) -> bool {
        let in_graph = match (self.graph.find(citing), self.graph.find(cited)) {
            (Some(a), Some(b)) => self.graph.cites(a, b),
            _ => false,
        };
        in_graph || self.context_citations.contains(&(citing, cited))
    }

    /// Every source citing `id`: graph citers and context sources.
    fn sources(&self, id: &str) -> BTreeSet<&str> {
        let mut sources: BTreeSet<&str> = self.context_sources.get(id).cloned().unwrap_or_default();
        if let Some(node) = self.graph.find(id) {
            sources.extend(self.graph.citers(node).iter().map(|&n| self.graph.id(n)));
        }
        sources
    }

    /// A third source citing both papers, when there is one (the smallest id).
    pub fn co_cited_by(&self, a: &str, b: &str) -> Option<String> {
        let (sa, sb) = (self.sources(a), self.sources(b));
        sa.intersection(&sb).find(|&&s| s != a && s != b).map(|s| s.to_string())
    }

    /// A paragraph (source, paragraph id) citing both papers, when there is one.
    pub fn co_mentioned_in(&self, a: &str, b: &str) -> Option<(String, String)> {
        let (pa, pb) = (self.paragraphs.get(a)?, self.paragraphs.get(b)?);
        pa.intersection(pb).next().map(|(s, p)| (s.to_string(), p.to_string()))
    }

    /// How `citing` speaks of `cited` (the majority label of its labelled mentions), if known.
    pub fn sentiment(&self, citing: &str, cited: &str) -> Option<Sentiment> {
        let mentions: Vec<CitationContext> = mentions_between(self.contexts, citing, cited).cloned().collect();
        sentiment_of_citers(&mentions, cited).remove(citing)
    }

    /// The mentions of `cited` by `citing` (their texts, for a judge).
    pub fn mentions(&self, citing: &str, cited: &str) -> Vec<&'a CitationContext> {
        mentions_between(self.contexts, citing, cited).collect()
    }

    /// Every paper co-mentioned with `id` in a paragraph, with the number of such paragraphs.
    pub fn co_mentions_of(&self, id: &str) -> BTreeMap<&'a str, usize> {
        let mut out = BTreeMap::new();
        let Some(mine) = self.paragraphs.get(id) else { return out };
        for (cited, paragraphs) in &self.paragraphs {
            if *cited != id {
                let shared = paragraphs.intersection(mine).count();
                if shared > 0 {
                    out.insert(*cited, shared);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NodeInfo;

    fn context(citing: &str, cited: &str, paragraph: &str, sentiment: Option<Sentiment>) -> CitationContext {
        CitationContext {
            citing_id: citing.into(),
            cited_id: cited.into(),
            paragraph: paragraph.into(),
            section: None,
            text: format!("{citing} on {cited}"),
            sentiment,
        }
    }

    #[test]
    fn evidence_from_the_graph_and_the_contexts() {
        // Graph: a → q, b → q, a → c. Contexts: survey s cites q and d in one paragraph, and e in
        // another; a speaks of q positively.
        let nodes = ["a", "b", "c", "d", "e", "q"].map(|id| NodeInfo { id: id.into(), ..NodeInfo::default() }).to_vec();
        let graph = Graph::build(nodes, &[("a", "q"), ("b", "q"), ("a", "c")]);
        let contexts = vec![
            context("s", "q", "p1", None),
            context("s", "d", "p1", None),
            context("s", "e", "p2", None),
            context("a", "q", "x", Some(Sentiment::Positive)),
        ];
        let evidence = PairEvidence::new(&graph, &contexts);
        assert!(evidence.cites("a", "q") && evidence.cites("s", "q") && !evidence.cites("q", "a"));
        // c and q are both cited by a; d and q by s (contexts); b and q share no source.
        assert_eq!(evidence.co_cited_by("c", "q").as_deref(), Some("a"));
        assert_eq!(evidence.co_cited_by("d", "q").as_deref(), Some("s"));
        assert_eq!(evidence.co_cited_by("b", "q"), None);
        // Only d shares a paragraph with q; e is in another paragraph of the same survey.
        assert_eq!(evidence.co_mentioned_in("d", "q"), Some(("s".into(), "p1".into())));
        assert_eq!(evidence.co_mentioned_in("e", "q"), None);
        assert_eq!(evidence.co_mentions_of("q"), BTreeMap::from([("d", 1)]));
        assert_eq!(evidence.sentiment("a", "q"), Some(Sentiment::Positive));
        assert_eq!(evidence.sentiment("b", "q"), None, "a citation no context records has no label");
    }
}
