//! A survey's bibliography against a corpus's papers: which references are corpus papers, and
//! the citation contexts (sentence, paragraph, section) a survey gives them — what an ingest keeps
//! and what survey evaluation resolves.

use litnav_survey::Survey;
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Resolve a survey's bibliography entries to `papers`: by exact normalized title, then by
/// TaxoBench's title alignment (difflib ratio ≥ 0.92, containment counts as 1); an entry without a
/// citation count takes the paper's. Returns how many entries resolved.
pub fn resolve_against(survey: &mut Survey, papers: &[litnav_corpus::Paper]) -> usize {
    use litnav_eval::tree::normalize_title;
    let by_title: std::collections::HashMap<String, usize> =
        papers.iter().enumerate().map(|(i, p)| (normalize_title(&p.title), i)).collect();
    let mut resolved: Vec<Option<usize>> = Vec::with_capacity(survey.bibliography.len());
    let mut unresolved = Vec::new();
    for (i, entry) in survey.bibliography.iter().enumerate() {
        let found = by_title.get(&normalize_title(&entry.title)).copied();
        if found.is_none() {
            unresolved.push(i);
        }
        resolved.push(found);
    }
    if !unresolved.is_empty() {
        let titles: Vec<String> = unresolved.iter().map(|&i| survey.bibliography[i].title.clone()).collect();
        let corpus_titles: Vec<String> = papers.iter().map(|p| p.title.clone()).collect();
        for (k, aligned) in litnav_eval::taxobench::align(&titles, &corpus_titles, 0.92).into_iter().enumerate() {
            resolved[unresolved[k]] = aligned;
        }
    }
    for (entry, found) in survey.bibliography.iter_mut().zip(resolved) {
        if let Some(p) = found {
            entry.paper_id = Some(papers[p].id.clone());
            entry.citation_count = entry.citation_count.or(papers[p].citation_count);
        }
    }
    survey.bibliography.iter().filter(|r| r.paper_id.is_some()).count()
}

/// What a survey contributed to a corpus's citation contexts.
#[derive(Debug, Clone, Serialize)]
pub struct SurveyContexts {
    /// The survey.
    pub path: PathBuf,
    /// The id its contexts cite from: the corpus topic with the survey's title, else the id
    /// litnav gives a paper of that title.
    pub citing_id: String,
    /// Bibliography entries.
    pub references: usize,
    /// Entries that resolved to corpus papers.
    pub resolved: usize,
    /// Contexts kept (one per sentence and cited paper).
    pub contexts: usize,
    /// Paragraphs they are in.
    pub paragraphs: usize,
}

/// Every citation context of a survey whose reference resolves to one of `papers`: the sentence
/// citing it, its paragraph (`<citing id>/s3-p2`) and section heading.
pub fn contexts_of(
    survey: &Survey,
    papers: &[litnav_corpus::Paper],
    topics: &[litnav_corpus::Topic],
) -> (Vec<litnav_graph::contexts::CitationContext>, SurveyContexts) {
    use litnav_eval::tree::normalize_title;
    let mut survey = survey.clone();
    let resolved = resolve_against(&mut survey, papers);
    let key = normalize_title(&survey.title);
    let citing_id = topics
        .iter()
        .find(|t| normalize_title(&t.title) == key)
        .map(|t| t.id.clone())
        .unwrap_or_else(|| litnav_corpus::title_id(&survey.title));
    let mut contexts = Vec::new();
    let mut paragraphs = BTreeSet::new();
    for (section, paragraph, sentence) in survey.citing_sentences() {
        for &r in &sentence.references {
            let Some(cited) = survey.bibliography[r].paper_id.clone() else { continue };
            paragraphs.insert(paragraph.id.clone());
            contexts.push(litnav_graph::contexts::CitationContext {
                citing_id: citing_id.clone(),
                cited_id: cited,
                paragraph: format!("{citing_id}/{}", paragraph.id),
                section: (!section.heading.is_empty()).then(|| section.heading.clone()),
                text: sentence.text.clone(),
                sentiment: None,
            });
        }
    }
    let report = SurveyContexts {
        path: survey.path.clone(),
        citing_id,
        references: survey.bibliography.len(),
        resolved,
        contexts: contexts.len(),
        paragraphs: paragraphs.len(),
    };
    (contexts, report)
}
