//! The fetch stage: a corpus for a topic from a scholarly source. [`fetch`] searches the source
//! for the topic, then snowballs — the works the hits cite, the works citing the hits (most cited
//! first, a bounded number per hit) — keeping the candidates most connected to the hits, and hands
//! back the works in the source's own record format (which litnav's readers ingest) with a
//! [`FetchReport`] of what it asked, what it found and what the source's data lacks.
//!
//! Sources are a trait ([`Source`]) so that Semantic Scholar, arXiv or Crossref can follow;
//! [`openalex::OpenAlex`] is the one there is. Every request goes through [`http::Http`]: paced,
//! retried with backoff, cached on disk by request, so an interrupted fetch resumes where it
//! stopped and a repeated one makes no call.

pub mod destinations;
pub mod error;
pub mod http;
pub mod openalex;
pub mod stand_in;

pub use error::{Error, Result};
pub use http::{Allowance, ApiKey, Calls, HttpConfig};

use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::Path;

/// Who watches a fetch: its steps, its progress, and whether to stop.
pub trait Observer: Sync {
    /// A new step begins.
    fn stage(&self, _what: &str) {}
    /// `done` of `total` units of the current step are finished.
    fn advance(&self, _done: usize, _total: usize) {}
    /// Whether the user asked to stop.
    fn cancelled(&self) -> bool {
        false
    }
    /// An error if the user asked to stop (checked before every request).
    fn check(&self, what: &str) -> Result<()> {
        if self.cancelled() { Err(Error::Cancelled(format!("while {what}"))) } else { Ok(()) }
    }
}

/// Nobody watches.
pub struct Unwatched;

impl Observer for Unwatched {}

/// One work as a source gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Work {
    /// The source's id (OpenAlex: `W…`).
    pub id: String,
    /// The ids of the works it cites.
    pub references: Vec<String>,
    /// How often it is cited, as the source counts.
    pub cited_by: u64,
    /// Other ids the source knew it by (merged works).
    pub aliases: Vec<String>,
    /// Its title as text (markup removed), `None` when the source has none: such a work is
    /// left out of the corpus.
    pub title: Option<String>,
    /// What the fetch's report counts about it.
    pub notes: Vec<Note>,
    /// The whole record, in the source's format.
    pub record: Value,
}

/// What a fetch's report counts about one work, by reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// Left out of the corpus (`no title`).
    Skipped(&'static str),
    /// Kept, with something the source gave cleaned (`markup removed from the title`).
    Repaired(&'static str),
    /// Kept and marked (`retracted`, `paratext (left out of maps)`).
    Flagged(String),
}

/// A scholarly source.
pub trait Source {
    /// Its name, for messages (`OpenAlex`).
    fn name(&self) -> &'static str;
    /// The input format litnav reads its records as (`openalex`).
    fn format(&self) -> &'static str;
    /// The best `limit` distinct works for `topic`, best first (a work the source listed twice
    /// may be in the list twice; the fetch counts and drops the repeat).
    fn search(&self, topic: &str, limit: usize, observer: &dyn Observer) -> Result<Vec<Work>>;
    /// The works with these ids (merged ones under their new id, with the old one as an alias);
    /// ids the source does not know are left out.
    fn by_ids(&self, ids: &[String], observer: &dyn Observer) -> Result<Vec<Work>>;
    /// At most `limit` works citing `id`, most cited first.
    fn citing(&self, id: &str, limit: usize, observer: &dyn Observer) -> Result<Vec<Work>>;
    /// What was asked so far.
    fn calls(&self) -> Calls;
    /// `work`'s record in the source's format, with its references as the fetch resolved them.
    fn record(&self, work: &Work) -> Value;
}

/// Which citations of the hits are followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Snowball {
    /// The works the hits cite.
    pub references: bool,
    /// The works citing the hits.
    pub citations: bool,
}

/// What to fetch.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The topic, in plain words.
    pub topic: String,
    /// The most works the topic search gives.
    pub max: usize,
    /// Which citations are followed.
    pub snowball: Snowball,
    /// The most works snowballing adds (the most connected to the hits first).
    pub snowball_max: usize,
    /// The most citing works asked for per hit.
    pub citing_per_work: usize,
}

impl Plan {
    /// A fetch of `topic` with every other choice at its default (every face's): 200 hits
    /// (Knowledge Navigator starts from up to 1,000), both directions of snowballing, at most 800
    /// more works (a 1,000-work field), the 25 most cited citers of each hit.
    pub fn new(topic: impl Into<String>) -> Plan {
        Plan {
            topic: topic.into(),
            max: 200,
            snowball: Snowball { references: true, citations: true },
            snowball_max: 800,
            citing_per_work: 25,
        }
    }
}

/// What a fetch asked, found, and found missing.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FetchReport {
    /// The source.
    pub source: &'static str,
    /// The topic.
    pub topic: String,
    /// Works the topic search gave.
    pub hits: usize,
    /// Works added because the hits cite them.
    pub references: usize,
    /// Works added because they cite the hits.
    pub citing: usize,
    /// Snowball candidates left out by `snowball_max` (the least connected).
    pub left_out: usize,
    /// Works in all.
    pub works: usize,
    /// Citations between the fetched works (the corpus's edges).
    pub citations: usize,
    /// Works whose source lists no references at all (a known gap of the data).
    pub works_without_references: usize,
    /// References to works outside the fetched set.
    pub references_outside: usize,
    /// Works asked for by an id the source has merged into another.
    pub merged: usize,
    /// Ids asked for that the source does not know.
    pub not_found: usize,
    /// Works left out of the corpus, by reason (a work without a title; a work a search page
    /// listed again).
    pub skipped: BTreeMap<String, usize>,
    /// Works kept with something cleaned, by what (markup removed from a title).
    pub repaired: BTreeMap<String, usize>,
    /// Works kept and marked, by mark (retracted; types left out of maps).
    pub flagged: BTreeMap<String, usize>,
    /// The calls made.
    pub calls: Calls,
}

/// The works fetched and the report.
#[derive(Debug, Clone)]
pub struct Fetched {
    /// Hits first (best first), then the snowball's works (most connected first).
    pub works: Vec<Work>,
    /// What happened.
    pub report: FetchReport,
}

/// A snowball candidate: how many hits it is linked to, and the work when it is already fetched.
struct Candidate {
    links: usize,
    work: Option<Work>,
    reference: bool,
}

/// Fetch `plan` from `source`.
pub fn fetch(source: &dyn Source, plan: &Plan, observer: &dyn Observer) -> Result<Fetched> {
    let topic = plan.topic.trim();
    if topic.is_empty() {
        return Err(Error::Input("the topic is empty; name the field to fetch in a few words".into()));
    }
    if plan.max == 0 {
        return Err(Error::Input("the number of works to search for must be at least 1".into()));
    }
    observer.stage(&format!("searching {} for the topic", source.name()));
    let (hits, listed_again) = distinct(source.search(topic, plan.max, observer)?);
    if hits.is_empty() {
        return Err(Error::Input(format!(
            "{} has no works for the topic {topic:?}; try other words for it",
            source.name()
        )));
    }
    let hit_ids: HashSet<&str> = hits.iter().map(|w| w.id.as_str()).collect();
    let mut candidates: BTreeMap<String, Candidate> = BTreeMap::new();
    if plan.snowball.references {
        for reference in hits.iter().flat_map(|w| &w.references).filter(|r| !hit_ids.contains(r.as_str())) {
            let entry =
                candidates.entry(reference.clone()).or_insert(Candidate { links: 0, work: None, reference: true });
            entry.links += 1;
        }
    }
    let mut hits_citing_hits = Vec::new();
    if plan.snowball.citations {
        observer.stage("fetching the works citing the hits");
        for (done, hit) in hits.iter().enumerate() {
            for mut citer in source.citing(&hit.id, plan.citing_per_work, observer)? {
                // It cites the hit, under the hit's id or one merged into it.
                cites(&mut citer, &hit.id);
                if hit_ids.contains(citer.id.as_str()) {
                    hits_citing_hits.push((citer.id, hit.id.clone()));
                    continue;
                }
                let links = citer.references.iter().filter(|r| hit_ids.contains(r.as_str())).count().max(1);
                let entry =
                    candidates.entry(citer.id.clone()).or_insert(Candidate { links: 0, work: None, reference: false });
                entry.links = entry.links.max(links);
                match &mut entry.work {
                    Some(known) => cites(known, &hit.id),
                    None => entry.work = Some(citer),
                }
            }
            observer.advance(done + 1, hits.len());
        }
    }
    let mut ranked: Vec<(String, Candidate)> = candidates.into_iter().collect();
    ranked.sort_by(|(a, x), (b, y)| {
        let cited = |c: &Candidate| c.work.as_ref().map_or(0, |w| w.cited_by);
        y.links.cmp(&x.links).then(cited(y).cmp(&cited(x))).then(a.cmp(b))
    });
    let left_out = ranked.len().saturating_sub(plan.snowball_max);
    ranked.truncate(plan.snowball_max);
    let wanted: Vec<String> = ranked.iter().filter(|(_, c)| c.work.is_none()).map(|(id, _)| id.clone()).collect();
    let mut by_id: HashMap<String, Work> = HashMap::new();
    if !wanted.is_empty() {
        observer.stage("fetching the works the hits cite");
        for work in source.by_ids(&wanted, observer)? {
            for alias in work.aliases.iter().chain(std::iter::once(&work.id)) {
                by_id.insert(alias.clone(), work.clone());
            }
        }
    }
    let mut works: Vec<Work> = hits.clone();
    let position: HashMap<String, usize> = works.iter().enumerate().map(|(i, w)| (w.id.clone(), i)).collect();
    for (citing, cited) in hits_citing_hits {
        if let Some(&at) = position.get(&citing) {
            cites(&mut works[at], &cited);
        }
    }
    let (mut references, mut citing, mut not_found) = (0, 0, 0);
    for (id, candidate) in ranked {
        match candidate.work.or_else(|| by_id.get(&id).cloned()) {
            Some(work) => {
                if candidate.reference {
                    references += 1
                } else {
                    citing += 1
                }
                works.push(work);
            }
            None => not_found += 1,
        }
    }
    let (works, untitled): (Vec<Work>, Vec<Work>) = merge_aliases(works).into_iter().partition(|w| w.title.is_some());
    let mut report = report(source, topic, &works, hits.len(), (references, citing, left_out, not_found));
    count_notes(&mut report, &works, &untitled);
    if listed_again > 0 {
        report.skipped.insert("listed again by the topic search".into(), listed_again);
    }
    Ok(Fetched { works, report })
}

/// Record that `work` cites `id` (a source that lists the citers of `id` says so even when the
/// work's own list names `id` by a merged id the fetch never meets).
fn cites(work: &mut Work, id: &str) {
    if !work.references.iter().any(|r| r == id) {
        work.references.push(id.to_string());
    }
}

/// `works` with each id once (the first), and how many were dropped: a search's pages may list a
/// work twice.
fn distinct(works: Vec<Work>) -> (Vec<Work>, usize) {
    let listed = works.len();
    let mut seen = HashSet::new();
    let works: Vec<Work> = works.into_iter().filter(|w| seen.insert(w.id.clone())).collect();
    let dropped = listed - works.len();
    (works, dropped)
}

/// Count the kept works' repairs and marks, and the untitled works left out, in `report`.
fn count_notes(report: &mut FetchReport, kept: &[Work], untitled: &[Work]) {
    for work in untitled {
        let reason = work.notes.iter().find_map(|n| if let Note::Skipped(r) = n { Some(*r) } else { None });
        *report.skipped.entry(reason.unwrap_or("no title").to_string()).or_default() += 1;
    }
    for note in kept.iter().flat_map(|w| &w.notes) {
        let (counts, reason) = match note {
            Note::Skipped(_) => continue,
            Note::Repaired(reason) => (&mut report.repaired, reason.to_string()),
            Note::Flagged(mark) => (&mut report.flagged, mark.clone()),
        };
        *counts.entry(reason).or_default() += 1;
    }
}

/// One work per id (a merged work asked for twice kept once, its aliases joined), and every
/// reference to an alias pointed at the id it was merged into.
fn merge_aliases(works: Vec<Work>) -> Vec<Work> {
    let mut kept: Vec<Work> = Vec::new();
    let mut position: HashMap<String, usize> = HashMap::new();
    for work in works {
        match position.get(&work.id) {
            Some(&at) => {
                for alias in work.aliases {
                    if !kept[at].aliases.contains(&alias) {
                        kept[at].aliases.push(alias);
                    }
                }
            }
            None => {
                position.insert(work.id.clone(), kept.len());
                kept.push(work);
            }
        }
    }
    let renamed: HashMap<String, String> =
        kept.iter().flat_map(|w| w.aliases.iter().map(|a| (a.clone(), w.id.clone()))).collect();
    for work in &mut kept {
        for reference in &mut work.references {
            if let Some(id) = renamed.get(reference) {
                reference.clone_from(id);
            }
        }
    }
    kept
}

fn report(
    source: &dyn Source,
    topic: &str,
    works: &[Work],
    hits: usize,
    (references, citing, left_out, not_found): (usize, usize, usize, usize),
) -> FetchReport {
    let ids: HashSet<&str> = works.iter().map(|w| w.id.as_str()).collect();
    let inside = |w: &Work| w.references.iter().filter(|r| ids.contains(r.as_str())).count();
    let citations: usize = works.iter().map(inside).sum();
    let all_references: usize = works.iter().map(|w| w.references.len()).sum();
    FetchReport {
        source: source.name(),
        topic: topic.to_string(),
        hits,
        references,
        citing,
        left_out,
        works: works.len(),
        citations,
        works_without_references: works.iter().filter(|w| w.references.is_empty()).count(),
        references_outside: all_references - citations,
        merged: works.iter().map(|w| w.aliases.len()).sum(),
        not_found,
        skipped: BTreeMap::new(),
        repaired: BTreeMap::new(),
        flagged: BTreeMap::new(),
        calls: source.calls(),
    }
}

/// Write `works` as JSON lines of `source`'s records (references as the fetch resolved them),
/// through a temporary file and a rename.
pub fn write_works(source: &dyn Source, works: &[Work], path: &Path) -> Result<()> {
    let mut text = Vec::new();
    for work in works {
        serde_json::to_writer(&mut text, &source.record(work)).map_err(|e| Error::io(path, e))?;
        text.write_all(b"\n").map_err(|e| Error::io(path, e))?;
    }
    http::write_atomically(path, &text)
}
