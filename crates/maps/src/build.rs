//! Maps: a topic's papers organized into themes and subtopics (from a corpus by retrieval, or from
//! a file of papers), optionally refined by the LLM stage; and the expansion of one subtopic into
//! a map of its own.

use crate::coverage::{COVERAGE_RULE, Coverage};
use litnav_corpus::{Catalog, MergeReport, Paper, ReadOptions, readers};
use litnav_llm::extract::{self, Input};
use litnav_llm::{Client, navigator};
use litnav_organize::bottom_up::{BottomUpOptions, BottomUpTrace, bottom_up_map};
use litnav_organize::{Doc, MapNode, Options, label, organize};
use litnav_search::{Filter, Hit, ScoreFloor};
use litnav_session::error::{Error, Result};
use litnav_session::progress::Progress;
use litnav_session::session::CorpusSession;
use litnav_session::workspace::Workspace;
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// The relevance floor of maps built from retrieval without a score floor: subtopics whose
/// centroid's cosine to the topic is below it go under the map's "Filtered" node (`litnav bench
/// map-filter` measures it). With a score floor the default is 0 — the floor has already left
/// out what this would, and filtering on top of it only costs recall. Maps of a paper set the
/// user chose keep every subtopic.
pub const RELEVANCE_FLOOR: f64 = 0.35;

/// The relevance floor of an expansion's sub-map: 0, none. Its topic is the subtopic's name, a
/// word or two whose vector lies far from any cluster of papers (in the browser test's
/// expansion the 0.35 of maps filtered 98 of 100 papers); the expansion's query chose the papers.
pub const EXPANSION_RELEVANCE_FLOOR: f64 = 0.0;

/// Papers retrieved for a topic when a map is built from a corpus (the most it keeps).
pub const DEFAULT_MAP_PAPERS: usize = 200;

/// Papers the LLM stage shows the model per cluster (the most central first).
pub const DEFAULT_LLM_PAPERS: usize = 12;

/// How many of the retrieved papers a map keeps: those whose neighbourhood relevance over their
/// 8 nearest hits reaches 0.32 of the best, and at least 20 (`litnav bench map-filter` measures
/// the floor and the neighbourhood together).
pub const MAP_FLOOR: ScoreFloor = ScoreFloor { share: 0.32, at_least: 20, neighbours: 8 };

/// Papers retrieved for an expansion.
pub const DEFAULT_EXPANSION_PAPERS: usize = 100;

/// A score floor's share, checked: a number from 0 (keep every paper retrieved) to 1 (only the
/// best and the floor's minimum). Every face takes the setting through here.
pub fn floor_share(share: f32) -> Result<f32> {
    if (0.0..=1.0).contains(&share) {
        return Ok(share);
    }
    Err(Error::input(format!("the score floor is a share of the best score, between 0 and 1, not {share}")))
}

/// A subtopic relevance floor, checked: a cosine, from -1 to 1.
pub fn relevance_floor(cosine: f64) -> Result<f64> {
    if (-1.0..=1.0).contains(&cosine) {
        return Ok(cosine);
    }
    Err(Error::input(format!("the relevance floor is a cosine to the topic, between -1 and 1, not {cosine}")))
}

/// Where a map's papers come from.
#[derive(Debug, Clone, PartialEq)]
pub enum PaperSource {
    /// The top `k` papers of the default retrieval (expanded) for the topic, filtered, and of
    /// those the ones that reach `floor`.
    Retrieve(MapPapers),
    /// Every paper of this file (any format litnav ingests), or those of one topic or TaxoBench
    /// instance it defines.
    File {
        /// The file.
        path: std::path::PathBuf,
        /// A topic id, or a TaxoBench instance id.
        instance: Option<String>,
    },
}

/// How to build a map.
#[derive(Debug, Clone, PartialEq)]
pub struct MapRequest {
    /// The topic, in plain words (the map's title).
    pub topic: String,
    /// Where the papers come from.
    pub source: PaperSource,
    /// The organizer's settings. Its `min_relevance` is replaced by [`MapRequest::min_relevance`]
    /// or the source's default.
    pub options: Options,
    /// The relevance floor (default: 0 for a file or when retrieving with a score floor,
    /// [`RELEVANCE_FLOOR`] when retrieving without one).
    pub min_relevance: Option<f64>,
    /// Papers the LLM stage shows per subtopic.
    pub llm_papers: usize,
    /// Organize with TaxoBench's LLM Bottom-Up organizer instead of clustering (the options'
    /// seed and `recurse_above` apply; its method does not).
    pub bottom_up: Option<BottomUpSettings>,
}

impl MapRequest {
    /// A map of `topic` with the defaults every face resolves to: [`DEFAULT_MAP_PAPERS`] papers
    /// retrieved without filters and cut at [`MAP_FLOOR`], clustered with the organizer's default
    /// options under `seed`, the relevance floor the source's, [`DEFAULT_LLM_PAPERS`] shown to an
    /// LLM stage, no LLM organizer.
    pub fn new(topic: impl Into<String>, seed: u64) -> MapRequest {
        MapRequest {
            topic: topic.into(),
            source: PaperSource::Retrieve(MapPapers::new(DEFAULT_MAP_PAPERS)),
            options: Options { seed, ..Options::default() },
            min_relevance: None,
            llm_papers: DEFAULT_LLM_PAPERS,
            bottom_up: None,
        }
    }
}

/// How the LLM Bottom-Up organizer sees the papers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BottomUpSettings {
    /// Most papers per request.
    pub batch: usize,
    /// Characters of each abstract shown.
    pub abstract_chars: usize,
    /// TaxoBench's input setting: what is shown besides title and abstract.
    pub input: Input,
}

impl Default for BottomUpSettings {
    fn default() -> Self {
        let defaults = BottomUpOptions::default();
        BottomUpSettings { batch: defaults.batch, abstract_chars: defaults.abstract_chars, input: Input::default() }
    }
}

/// A map and, when an LLM took part, what it did.
#[derive(Debug, Clone, Serialize)]
pub struct MapOutcome {
    /// The map.
    pub map: MapNode,
    /// The LLM stage's trace (offline organizer + `--llm`).
    pub trace: Option<litnav_organize::llm::Trace>,
    /// The LLM Bottom-Up organizer's report (`--method llm`).
    pub bottom_up: Option<BottomUpReport>,
    /// What a reader of the map should know about how it was made (how many of the papers
    /// retrieved the score floor kept; that the corpus may not cover the topic); also told to the
    /// progress as it happens.
    pub notices: Vec<String>,
    /// Whether the corpus covers the topic, with the evidence (maps retrieved from a corpus).
    pub coverage: Option<Coverage>,
    /// Which parts of the map to distrust: its checks without a reference (the "Filtered"
    /// branch left out), problems named by the map's node ids.
    pub checks: Option<crate::suggest::MapChecks>,
}

impl MapOutcome {
    /// The map as `litnav map --json` prints it and the Python face returns it: the map's own
    /// fields at the top and, beside them, whether the corpus covers the topic (`coverage`).
    pub fn printed(&self) -> Result<serde_json::Value> {
        let mut printed = serde_json::to_value(&self.map).map_err(|e| Error::internal(e.to_string()))?;
        if let (Some(coverage), Some(fields)) = (&self.coverage, printed.as_object_mut()) {
            let coverage = serde_json::to_value(coverage).map_err(|e| Error::internal(e.to_string()))?;
            fields.insert("coverage".into(), coverage);
        }
        if let (Some(checks), Some(fields)) = (&self.checks, printed.as_object_mut()) {
            let checks = serde_json::to_value(checks).map_err(|e| Error::internal(e.to_string()))?;
            fields.insert("checks".into(), checks);
        }
        Ok(printed)
    }
}

/// What the LLM Bottom-Up organizer did.
#[derive(Debug, Clone, Serialize)]
pub struct BottomUpReport {
    /// The input setting.
    pub input: Input,
    /// Papers shown with an extracted note.
    pub noted: usize,
    /// Papers whose extraction failed (shown without a note), with why.
    pub notes_failed: Vec<NoteFailure>,
    /// Requests, groupings, repairs and tokens.
    pub trace: BottomUpTrace,
}

impl std::fmt::Display for BottomUpReport {
    /// What the organizer had to work around, a line each.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let trace = &self.trace;
        let offline = trace.requests.iter().filter(|r| r.organized_offline.is_some()).count();
        let fixed = trace.requests.iter().filter(|r| r.fixed_by_litnav.is_some()).count();
        let usage = &trace.usage;
        writeln!(
            f,
            "LLM Bottom-Up: {} request(s), {} grouping(s), {} call(s) ({} from the cache), {} + {} tokens",
            trace.requests.len(),
            trace.groupings.len(),
            usage.calls,
            usage.cache_hits,
            usage.prompt_tokens,
            usage.completion_tokens
        )?;
        if fixed > 0 {
            writeln!(f, "  {fixed} answer(s) placed papers twice or never; litnav placed those papers by content")?;
        }
        if offline > 0 {
            writeln!(f, "  {offline} answer(s) could not be read after a repair; those papers were organized offline")?;
        }
        if !self.notes_failed.is_empty() {
            let (failed, noun) = (self.notes_failed.len(), self.input.noun());
            writeln!(f, "  {failed} paper(s) shown without their {noun} (the extraction failed; see the LLM trace)")?;
        }
        Ok(())
    }
}

/// A map's checks without a reference as text: one summary line, then at most `shown` problems
/// and, after them, at most `shown` suggested corrections.
pub fn check_lines(checks: &crate::suggest::MapChecks, shown: usize) -> Vec<String> {
    let (tree, suggestions) = (&checks.tree, &checks.suggestions);
    let number = |value: Option<f64>| value.map_or("—".to_string(), |v| format!("{v:.2}"));
    let mut lines = vec![format!(
        "checks without a reference: {} problems in {} nodes (entailment {}, semantic-taxonomic ρ {}, balance {})",
        tree.problems.len(),
        tree.nodes,
        number(tree.entailment),
        number(tree.semantic_taxonomic_correlation),
        number(tree.balance),
    )];
    for problem in tree.problems.iter().take(shown) {
        lines.push(format!("  {} “{}”: {}", problem.node, problem.name, problem.reason));
    }
    if tree.problems.len() > shown {
        lines.push(format!("  … {} more (the map's JSON lists them all)", tree.problems.len() - shown));
    }
    if !suggestions.is_empty() {
        lines.push(format!(
            "suggested corrections: {} (each an edit log entry: accept them on the web page, or pass them to --edits)",
            suggestions.len()
        ));
        lines.extend(suggestions.iter().take(shown).map(|s| format!("  {}", s.action)));
        if suggestions.len() > shown {
            lines.push(format!("  … {} more (the map's JSON lists them all)", suggestions.len() - shown));
        }
    }
    lines
}

/// A paper whose summary or core task could not be extracted.
#[derive(Debug, Clone, Serialize)]
pub struct NoteFailure {
    /// Corpus id.
    pub id: String,
    /// Title.
    pub title: String,
    /// What went wrong.
    pub error: String,
}

/// Build a map. `session` is needed when the papers are retrieved from a corpus.
pub fn build_map(
    workspace: &Workspace,
    session: Option<&CorpusSession>,
    request: &MapRequest,
    llm: Option<&Client>,
    progress: &dyn Progress,
) -> Result<MapOutcome> {
    let mut notices = Vec::new();
    let mut coverage = None;
    let (docs, floor) = match &request.source {
        PaperSource::Retrieve(papers) => {
            let session = session.ok_or_else(|| Error::internal("a map retrieved from a corpus needs its session"))?;
            let retrieved = retrieve_for_map(workspace, session, &request.topic, papers, progress)?;
            notices = retrieved.notices;
            coverage = Some(retrieved.coverage);
            let subtopic_floor = if papers.floor.keeps_all() { RELEVANCE_FLOOR } else { 0.0 };
            (retrieved.docs, subtopic_floor)
        }
        PaperSource::File { path, instance } => (docs_from_file(workspace, path, instance.as_deref(), progress)?, 0.0),
    };
    if docs.is_empty() {
        return Err(Error::not_found(format!("no papers to organize for {:?}", request.topic)));
    }
    let options = Options { min_relevance: request.min_relevance.unwrap_or(floor), ..request.options };
    let mut outcome = match request.bottom_up {
        None => organize_docs(workspace, &request.topic, &docs, options, llm, request.llm_papers, progress),
        Some(settings) => {
            let client =
                llm.ok_or_else(|| Error::input("the LLM Bottom-Up organizer needs an LLM, and none was given"))?;
            bottom_up_docs(workspace, &request.topic, &docs, settings, options, client, progress)
        }
    }?;
    if let Some(session) = session {
        let papers = session.papers_of(outcome.map.all_paper_ids())?;
        let retracted: HashSet<&str> = papers.iter().filter(|p| p.retracted).map(|p| p.id.as_str()).collect();
        outcome.map.mark_retracted(&|id| retracted.contains(id));
    }
    let checks = Some(map_checks(workspace, &outcome.map, llm, progress)?);
    Ok(MapOutcome { notices, coverage, checks, ..outcome })
}

impl MapOutcome {
    /// The outcome with the edit log `log` applied to its map (named `source` in the notice), its
    /// checks made again on the edited map (entailment by `llm` when given).
    pub fn edited(
        mut self,
        workspace: &Workspace,
        log: &[crate::edits::Edit],
        source: &str,
        llm: Option<&Client>,
        progress: &dyn Progress,
    ) -> Result<MapOutcome> {
        self.map = crate::edits::apply(&self.map, log)?;
        if self.checks.is_some() {
            self.checks = Some(map_checks(workspace, &self.map, llm, progress)?);
        }
        self.notices.push(format!("{} corrections applied by hand (from {source})", log.len()));
        Ok(self)
    }

    /// The map's self-contained page: its notices and the first problems its checks found under
    /// the title.
    pub fn html(&self) -> String {
        let mut notes = self.notices.clone();
        if let Some(checks) = &self.checks {
            notes.extend(check_lines(checks, PAGE_PROBLEMS));
        }
        litnav_organize::render::html(&self.map, &notes)
    }

    /// The map as a Markdown outline, its checks (every problem) in a section of their own.
    pub fn markdown(&self) -> String {
        let mut text = litnav_organize::render::markdown(&self.map);
        if let Some(checks) = &self.checks {
            text.push_str("\n## Checks without a reference\n\n");
            let every = checks.tree.problems.len().max(checks.suggestions.len());
            for line in check_lines(checks, every) {
                let heading = !line.starts_with(' ');
                let line = line.trim_start();
                text.push_str(&if heading { format!("\n{line}\n\n") } else { format!("- {line}\n") });
            }
        }
        text
    }
}

/// Problems a map's page lists under its title (the JSON and Markdown have them all).
pub const PAGE_PROBLEMS: usize = 5;

/// The checks of `map` without a reference, each problem's node named by its id in the map, and
/// the corrections they suggest.
/// With `llm`, parent–child entailment is the model's judgement (the offline one, saying why,
/// when the model fails).
pub fn map_checks(
    workspace: &Workspace,
    map: &MapNode,
    llm: Option<&Client>,
    progress: &dyn Progress,
) -> Result<crate::suggest::MapChecks> {
    let tree = map.kept_tree();
    let vectors = litnav_score::tree::text_vectors(workspace, &tree, progress)?;
    let mut checks = litnav_eval::checks::check(&tree, &vectors, litnav_eval::checks::CheckOptions::default());
    if let Some(client) = llm {
        // The map is made; a judge that fails leaves the offline entailment, and says so.
        if let Err(e) = litnav_score::tree::judge_entailment(&mut checks, &tree, client, progress) {
            progress.notice(&format!("the LLM could not judge entailment ({e}); the checks use the offline one"));
            checks.entailment_by = format!("{} (the LLM's judgement failed: {e})", checks.entailment_by);
        }
    }
    let encoder = workspace.encoder(progress)?;
    let cache = workspace.settings().vector_cache("labels");
    let embed = |texts: &[String]| litnav_embed::embed_cached(encoder, texts, &cache);
    Ok(crate::suggest::suggest(map, checks, &vectors, &embed))
}

/// The papers a map retrieves for its topic, what the score floor and the coverage check said.
pub struct Retrieved {
    /// The kept papers, most relevant first.
    pub docs: Vec<Doc>,
    /// Whether the corpus covers the topic.
    pub coverage: Coverage,
    /// The floor's notice and, when the corpus may not cover the topic, the coverage warning.
    pub notices: Vec<String>,
}

/// Which papers of a corpus a map retrieves.
#[derive(Debug, Clone, PartialEq)]
pub struct MapPapers {
    /// How many at most.
    pub k: usize,
    /// Leakage filters.
    pub filter: Filter,
    /// How many of the `k` the topic keeps ([`MAP_FLOOR`] by default).
    pub floor: ScoreFloor,
    /// The work types kept (`None`: every type but [`litnav_corpus::NOT_RESEARCH`]); a paper
    /// whose source gives no type is always kept.
    pub include: Option<Vec<String>>,
}

impl MapPapers {
    /// `k` papers without filters, cut at [`MAP_FLOOR`], of every type but the ones maps leave out.
    pub fn new(k: usize) -> MapPapers {
        MapPapers { k, filter: Filter::default(), floor: MAP_FLOOR, include: None }
    }
}

/// Retrieve a map's papers from `session`: the top `k` for `topic` through `filter` among the
/// works of the kept types, those that reach `floor`, and the coverage of the topic by them.
pub fn retrieve_for_map(
    workspace: &Workspace,
    session: &CorpusSession,
    topic: &str,
    papers: &MapPapers,
    progress: &dyn Progress,
) -> Result<Retrieved> {
    let MapPapers { k, filter, floor, ref include } = *papers;
    let include = include.as_deref();
    let encoder = workspace.encoder(progress)?;
    let mut notices = Vec::new();
    progress.check("retrieving papers")?;
    // Works of a type left out are dropped from a deeper ranking, so that k remain.
    let left_out_in_corpus = session.corpus().left_out_of_maps(include)?;
    let hits = session.retrieve(topic, k + left_out_in_corpus.min(k), filter, encoder, progress)?;
    let (hits, left_out) = kept_types(session, hits, include, k)?;
    if !left_out.is_empty() {
        let notice = left_out_notice(&left_out);
        progress.notice(&notice);
        notices.push(notice);
    }
    let retrieved = hits.len();
    let kept = session.above_floor(hits, floor, encoder, progress)?;
    if !floor.keeps_all() {
        let notice = floor_notice(kept.len(), retrieved, k);
        progress.notice(&notice);
        notices.push(notice);
    }
    let ids: Vec<String> = kept.into_iter().map(|hit| hit.id).collect();
    let docs = session.docs(&ids, encoder, progress)?;
    let topic_vector = encoder.embed(&[topic]).pop().unwrap_or_default();
    let coverage = crate::coverage::assess(topic, &topic_vector, &docs, retrieved, COVERAGE_RULE);
    if !coverage.covered {
        progress.notice(&coverage.message);
        notices.push(coverage.message.clone());
    }
    Ok(Retrieved { docs, coverage, notices })
}

/// The first `k` hits whose works are of a kept type, and the hits left out by type.
fn kept_types(
    session: &CorpusSession,
    hits: Vec<Hit>,
    include: Option<&[String]>,
    k: usize,
) -> Result<(Vec<Hit>, BTreeMap<String, usize>)> {
    let mut left_out = BTreeMap::new();
    let mut kept = Vec::with_capacity(k);
    for hit in hits {
        let paper = session.paper(&hit.id)?;
        if paper.is_some_and(|p| !p.kept_in_maps(include)) {
            let work_type = paper.and_then(|p| p.work_type.clone()).unwrap_or_default();
            *left_out.entry(work_type).or_insert(0) += 1;
        } else if kept.len() < k {
            kept.push(hit);
        }
    }
    Ok((kept, left_out))
}

/// What a map says about the works it left out by type.
fn left_out_notice(left_out: &BTreeMap<String, usize>) -> String {
    let parts: Vec<String> = left_out.iter().map(|(work_type, count)| format!("{count} {work_type}")).collect();
    format!("left out of the map as not research: {}; include names the types a map keeps", parts.join(", "))
}

/// Organize `docs` for `topic` with TaxoBench's LLM Bottom-Up organizer, after extracting each
/// paper's note when the input setting asks for one (cached per paper by the client).
pub fn bottom_up_docs(
    workspace: &Workspace,
    topic: &str,
    docs: &[Doc],
    settings: BottomUpSettings,
    options: Options,
    client: &Client,
    progress: &dyn Progress,
) -> Result<MapOutcome> {
    let encoder = workspace.encoder(progress)?;
    let topic_vector = encoder.embed(&[topic]).pop().unwrap_or_default();
    let (notes, notes_failed) = paper_notes(docs, settings.input, client, progress)?;
    progress.check(&format!(
        "organizing {} papers with the LLM (Bottom-Up, {} per request)",
        docs.len(),
        settings.batch
    ))?;
    let embed = |texts: &[String]| encoder.embed(texts);
    let bottom_up_options = BottomUpOptions {
        batch: settings.batch,
        abstract_chars: settings.abstract_chars,
        recurse_above: options.recurse_above,
        min_relevance: options.min_relevance,
        seed: options.seed,
    };
    let (map, trace) = bottom_up_map(
        topic,
        &topic_vector,
        docs,
        &notes,
        settings.input.notes_are(),
        &embed,
        client,
        bottom_up_options,
    )?;
    let noted = notes.iter().filter(|n| n.is_some()).count();
    let report = BottomUpReport { input: settings.input, noted, notes_failed, trace };
    Ok(MapOutcome { map, trace: None, bottom_up: Some(report), notices: Vec::new(), coverage: None, checks: None })
}

/// Each paper's note for `input` (none for title and abstract). A paper whose extraction fails
/// is shown without one and listed; an endpoint that fails stops the map.
fn paper_notes(
    docs: &[Doc],
    input: Input,
    client: &Client,
    progress: &dyn Progress,
) -> Result<(Vec<Option<String>>, Vec<NoteFailure>)> {
    if input == Input::TitleAbstract {
        return Ok((vec![None; docs.len()], Vec::new()));
    }
    progress.check(&format!("extracting each paper's {} with the LLM", input.noun()))?;
    let papers: Vec<litnav_core::PaperText<'_>> = docs.iter().map(Doc::as_text).collect();
    let mut results = extract::notes(client, &papers, input, &|done| progress.advance(done, docs.len()));
    if let Some(at) = results.iter().position(|r| r.as_ref().is_err_and(litnav_llm::Error::is_endpoint_failure))
        && let Err(e) = results.swap_remove(at)
    {
        return Err(e.into());
    }
    let mut notes = Vec::with_capacity(docs.len());
    let mut failed = Vec::new();
    for (doc, result) in docs.iter().zip(results) {
        match result {
            Ok(note) => notes.push(note),
            Err(e) => {
                failed.push(NoteFailure { id: doc.id.clone(), title: doc.title.clone(), error: e.to_string() });
                notes.push(None);
            }
        }
    }
    Ok((notes, failed))
}

/// Organize `docs` for `topic`, then (with a client) run the LLM stage on the map.
pub fn organize_docs(
    workspace: &Workspace,
    topic: &str,
    docs: &[Doc],
    options: Options,
    llm: Option<&Client>,
    llm_papers: usize,
    progress: &dyn Progress,
) -> Result<MapOutcome> {
    let encoder = workspace.encoder(progress)?;
    let topic_vector = encoder.embed(&[topic]).pop().unwrap_or_default();
    let embed = |texts: &[String]| encoder.embed(texts);
    progress.check(&format!("organizing {} papers", docs.len()))?;
    let map = organize(topic, &topic_vector, docs, &embed, options);
    let Some(client) = llm else {
        return Ok(MapOutcome { map, trace: None, bottom_up: None, notices: Vec::new(), coverage: None, checks: None });
    };
    progress.check("naming and grouping subtopics with the LLM")?;
    let (map, trace) = litnav_organize::llm::refine(map, topic, client, llm_papers)?;
    Ok(MapOutcome { map, trace: Some(trace), bottom_up: None, notices: Vec::new(), coverage: None, checks: None })
}

/// Every paper of a file (or of one of its topics), with vectors from litnav's cache of paper
/// vectors outside any corpus.
pub fn docs_from_file(
    workspace: &Workspace,
    file: &Path,
    instance: Option<&str>,
    progress: &dyn Progress,
) -> Result<Vec<Doc>> {
    let contents = readers::read_file(file, ReadOptions::default())?;
    let mut catalog = Catalog::default();
    catalog.merge(contents.items, &mut MergeReport::default())?;
    let (all, topics) = catalog.into_parts()?;
    let papers: Vec<&Paper> = match instance {
        None => all.iter().collect(),
        Some(id) => {
            let wanted = [id.to_string(), litnav_corpus::readers::taxobench_topic_id(id)];
            let kept: Vec<&Paper> = all.iter().filter(|p| p.topics.iter().any(|t| wanted.contains(t))).collect();
            if kept.is_empty() {
                let known: Vec<&str> = topics.iter().map(|t| t.id.as_str()).take(20).collect();
                return Err(Error::not_found(format!(
                    "{} has no papers of instance or topic `{id}` (it defines: {})",
                    file.display(),
                    known.join(", ")
                )));
            }
            kept
        }
    };
    let encoder = workspace.encoder(progress)?;
    let texts: Vec<String> = papers.iter().map(|p| p.text()).collect();
    let vectors = litnav_embed::embed_cached(encoder, &texts, &workspace.settings().vector_cache("papers"));
    Ok(papers.iter().zip(vectors).map(|(p, v)| Doc::from_paper(p, v)).collect())
}

/// How to expand a subtopic.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpandRequest {
    /// Id of the subtopic or theme (`t2.s1`).
    pub subtopic: String,
    /// New papers to retrieve for the expansion query (papers already in the map are skipped).
    pub k: usize,
    /// The organizer's settings for the sub-map (its `min_relevance` is used as given).
    pub options: Options,
    /// Papers the Subtopic Expander and the LLM stage see.
    pub llm_papers: usize,
}

impl ExpandRequest {
    /// An expansion of `subtopic` with the defaults every face resolves to:
    /// [`DEFAULT_EXPANSION_PAPERS`] new papers, the organizer's default options under `seed` with
    /// [`EXPANSION_RELEVANCE_FLOOR`], [`DEFAULT_LLM_PAPERS`] shown to an LLM.
    pub fn new(subtopic: impl Into<String>, seed: u64) -> ExpandRequest {
        ExpandRequest {
            subtopic: subtopic.into(),
            k: DEFAULT_EXPANSION_PAPERS,
            options: Options { seed, min_relevance: EXPANSION_RELEVANCE_FLOOR, ..Options::default() },
            llm_papers: DEFAULT_LLM_PAPERS,
        }
    }
}

/// A subtopic grown into its own map.
#[derive(Debug, Clone, Serialize)]
pub struct Expansion {
    /// The query that retrieved the new papers.
    pub query: String,
    /// Who wrote the query: `offline` (key phrases) or `llm` (the Subtopic Expander).
    pub query_by: &'static str,
    /// Why the Subtopic Expander's answer was not used, when it was not.
    pub expander_error: Option<String>,
    /// The subtopic's own papers.
    pub inside: usize,
    /// Papers the query brought in.
    pub retrieved: usize,
    /// The sub-map.
    pub map: MapNode,
    /// The LLM stage's trace on the sub-map.
    pub trace: Option<litnav_organize::llm::Trace>,
}

impl Expansion {
    /// What a reader of the sub-map should know: how many papers came in, for which query,
    /// written how.
    pub fn notice(&self) -> String {
        let written_by = match self.query_by {
            "llm" => "written by the LLM",
            _ => "the subtopic's name and key phrases",
        };
        format!("{} new papers retrieved for “{}” ({written_by})", self.retrieved, self.query)
    }
}

/// Grow one subtopic of `map`: a query from its name and the phrases that distinguish its papers
/// from the rest of the map (or, with an LLM, the Subtopic Expander's terms) retrieves new papers
/// from the corpus; they and the subtopic's own papers are organized into a sub-map (with the LLM
/// stage when a client is given). What it retrieved is told to `progress` ([`Expansion::notice`]).
pub fn expand(
    workspace: &Workspace,
    session: &CorpusSession,
    map: &MapNode,
    request: &ExpandRequest,
    llm: Option<&Client>,
    progress: &dyn Progress,
) -> Result<Expansion> {
    let node = map
        .find(&request.subtopic)
        .ok_or_else(|| Error::not_found(format!("the map has no node with id {:?}", request.subtopic)))?;
    let encoder = workspace.encoder(progress)?;
    let inside: Vec<String> = node.all_paper_ids();
    let inside_set: HashSet<&str> = inside.iter().map(String::as_str).collect();
    let outside: Vec<String> = map.all_paper_ids().into_iter().filter(|id| !inside_set.contains(id.as_str())).collect();
    let texts =
        |ids: &[String]| -> Result<Vec<String>> { Ok(session.papers_of(ids)?.into_iter().map(Paper::text).collect()) };
    let (inside_texts, outside_texts) = (texts(&inside)?, texts(&outside)?);
    if inside_texts.is_empty() {
        return Err(Error::not_found(format!(
            "none of {}'s papers are in the corpus at {}",
            request.subtopic,
            session.dir().display()
        )));
    }
    // The subtopic's papers with their vectors: they start the sub-map, and their centroid ranks
    // the key phrases.
    let inside_docs = session.docs(&inside, encoder, progress)?;
    let embed = |texts: &[String]| encoder.embed(texts);
    let phrases = distinguishing_phrases(&inside_texts, &outside_texts, &inside_docs, &embed, &map.name);
    let (mut query, mut query_by, mut expander_error) = (query_of(&node.name, &phrases), "offline", None);
    if let Some(client) = llm {
        progress.check("asking the Subtopic Expander for a query")?;
        let known = session.papers_of(&inside)?;
        let papers: Vec<litnav_core::PaperText<'_>> =
            known.into_iter().take(request.llm_papers.max(1)).map(Paper::as_text).collect();
        match navigator::expand_subtopic(client, &map.name, &node.name, &node.description, &papers) {
            Ok(answer) => {
                query = query_of(&node.name, &answer.value.terms);
                query_by = "llm";
            }
            // An unusable answer falls back to the offline query; a failing endpoint fails the run.
            Err(e @ litnav_llm::Error::Invalid { .. }) => expander_error = Some(e.to_string()),
            Err(e) => return Err(e.into()),
        }
    }
    progress.check("retrieving papers for the expansion")?;
    // New papers only: a paper the map already holds elsewhere stays where it is.
    let in_map: HashSet<&str> = inside.iter().chain(&outside).map(String::as_str).collect();
    let retrieved: Vec<String> = session
        .retrieve(&query, request.k + in_map.len(), Filter::default(), encoder, progress)?
        .into_iter()
        .map(|hit| hit.id)
        .filter(|id| !in_map.contains(id.as_str()))
        .take(request.k)
        .collect();
    let mut docs = inside_docs;
    docs.extend(session.docs(&retrieved, encoder, progress)?);
    let outcome = organize_docs(workspace, &node.name, &docs, request.options, llm, request.llm_papers, progress)?;
    let mut sub_map = outcome.map;
    sub_map.description = format!(
        "{} papers: the {} of {} in the map plus {} retrieved for “{query}”",
        docs.len(),
        inside.len(),
        request.subtopic,
        docs.len().saturating_sub(inside.len())
    );
    let expansion = Expansion {
        query,
        query_by,
        expander_error,
        inside: inside.len(),
        retrieved: docs.len().saturating_sub(inside.len()),
        map: sub_map,
        trace: outcome.trace,
    };
    progress.notice(&expansion.notice());
    Ok(expansion)
}

/// The key phrases that set a group of papers (`inside`, with their vectors in `inside_docs`)
/// apart from the others (`outside`), ranked by closeness to the group's centroid: the terms of
/// litnav's offline expansion query. Phrases made only of `topic` words are left out.
pub fn distinguishing_phrases(
    inside: &[String],
    outside: &[String],
    inside_docs: &[Doc],
    embed: &dyn Fn(&[String]) -> Vec<Vec<f32>>,
    topic: &str,
) -> Vec<String> {
    let classes: Vec<Vec<(usize, &str)>> = vec![
        inside.iter().enumerate().map(|(i, t)| (i, t.as_str())).collect(),
        outside.iter().enumerate().map(|(i, t)| (inside.len() + i, t.as_str())).collect(),
    ];
    let centroid = litnav_core::vector::unit_mean(&inside_docs.iter().map(|d| d.vector.as_slice()).collect::<Vec<_>>());
    label::key_phrases(&classes, &[centroid.clone(), centroid], embed, 4, topic).swap_remove(0)
}

/// The expansion query: the subtopic's name, then each term that adds a word the query lacks
/// (a term repeating the name's words would only weigh them twice).
pub fn query_of(name: &str, terms: &[String]) -> String {
    let mut words: HashSet<String> = name.split_whitespace().map(str::to_lowercase).collect();
    let mut query = vec![name.trim().to_string()];
    for term in terms {
        let new_words: Vec<String> =
            term.split_whitespace().map(str::to_lowercase).filter(|w| !words.contains(w)).collect();
        if !new_words.is_empty() {
            query.push(term.trim().to_string());
            words.extend(new_words);
        }
    }
    query.join(" ")
}

/// What the score floor did to a map's `retrieved` papers (of at most `k`): how many it kept and,
/// when it kept nearly all of a full k, what that may mean. A floor relative to the best hit
/// cannot tell a topic larger than k from one spread thinly over related work, so both are named.
fn floor_notice(kept: usize, retrieved: usize, k: usize) -> String {
    let counts = format!("the score floor kept {kept} of the {retrieved} papers retrieved");
    if retrieved == k && kept * 10 >= retrieved * 9 {
        format!(
            "{counts}: nearly all reach it, so the topic may go on beyond the top {k} (ask for more), or this corpus may hold it only thinly among related work (raise the floor)"
        )
    } else {
        format!("{counts} (those near the topic's core)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floors_out_of_their_range_are_refused_with_the_value() {
        assert_eq!(floor_share(0.32).unwrap(), 0.32);
        assert_eq!(floor_share(0.0).unwrap(), 0.0);
        assert!(floor_share(1.5).unwrap_err().to_string().contains("between 0 and 1, not 1.5"));
        assert!(floor_share(f32::NAN).is_err());
        assert_eq!(relevance_floor(-0.2).unwrap(), -0.2);
        assert!(relevance_floor(2.0).unwrap_err().to_string().contains("between -1 and 1, not 2"));
    }

    #[test]
    fn the_query_does_not_repeat_the_names_words() {
        let terms: Vec<String> =
            ["Incremental Learning", "Classes", "Incremental", "Catastrophic Forgetting", "forgetting"]
                .map(String::from)
                .to_vec();
        assert_eq!(query_of("Incremental Learning", &terms), "Incremental Learning Classes Catastrophic Forgetting");
        assert_eq!(query_of("Replay", &[]), "Replay");
    }

    #[test]
    fn the_floor_notice_says_what_nearly_all_kept_may_mean() {
        let core = floor_notice(45, 200, 200);
        assert_eq!(core, "the score floor kept 45 of the 200 papers retrieved (those near the topic's core)");
        assert!(floor_notice(192, 200, 200).contains("nearly all reach it"));
        // Fewer than k came back (the filters left fewer): nothing to say beyond the counts.
        assert!(!floor_notice(40, 42, 200).contains("nearly all"));
    }
}
