//! Your own field: a corpus for a topic fetched from OpenAlex (`litnav fetch openalex`, `litnav map
//! --fetch openalex`). The works are fetched first — every answer cached under
//! `HOME/cache/openalex`, so an interrupted fetch resumes and a repeated one asks nothing — then
//! ingested in one step: the corpus is the previous generation or the new one, never half of it.
//! litnav opens a connection only here, and only when a face asks for a fetch.

use crate::ingest::{IngestReport, IngestRequest};
use crate::progress::Progress;
use crate::request::FetchParams;
use crate::{Error, Result, Workspace};
use litnav_corpus::readers::Format;
use litnav_fetch::openalex::OpenAlex;
pub use litnav_fetch::{ApiKey, FetchReport};
use litnav_fetch::{HttpConfig, Observer};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// A fetch to run.
#[derive(Debug, Clone)]
pub struct FetchRequest {
    /// The field, in plain words.
    pub topic: String,
    /// The corpus the works go into (created, or merged into an existing one).
    pub corpus: PathBuf,
    /// How to fetch.
    pub params: FetchParams,
    /// A key given by the face (else the settings'), with where it came from.
    pub api_key: Option<ApiKey>,
    /// The calls the fetch may make, when its caller is budgeted (a server's); `None`: unbounded.
    pub allowance: Option<std::sync::Arc<litnav_fetch::Allowance>>,
}

/// What a fetch did.
#[derive(Debug, Clone, Serialize)]
pub struct FetchOutcome {
    /// What was asked and found.
    pub fetch: FetchReport,
    /// What the ingest did.
    pub ingest: IngestReport,
    /// Seconds from the first call to the corpus written.
    pub seconds: f64,
}

/// The progress of a face as the fetch stage's observer.
struct Watch<'a>(&'a dyn Progress);

impl Observer for Watch<'_> {
    fn stage(&self, what: &str) {
        self.0.stage(what);
    }
    fn advance(&self, done: usize, total: usize) {
        self.0.advance(done.min(total), total);
    }
    fn cancelled(&self) -> bool {
        self.0.cancelled()
    }
}

/// Fetch `request.topic`'s works and ingest them into `request.corpus`.
pub fn fetch_openalex(workspace: &Workspace, request: &FetchRequest, progress: &dyn Progress) -> Result<FetchOutcome> {
    let started = std::time::Instant::now();
    let plan = request.params.plan(&request.topic)?;
    let filled = request.params.filled();
    let key = request.api_key.clone().or_else(|| workspace.settings().openalex_key.clone());
    let config = HttpConfig {
        rate: request.params.rate()?,
        cache_dir: Some(workspace.settings().home.join("cache").join("openalex")),
        // An API the owner named (the CLI's user, a server's `--api-url`) may be on their own
        // network; the public default must resolve to public addresses.
        trusted_host: request.params.api_url.as_deref().and_then(litnav_fetch::destinations::host_of),
        allowance: request.allowance.clone(),
        ..HttpConfig::default()
    };
    let source = OpenAlex::new(filled.api_url.as_deref().unwrap_or(litnav_fetch::openalex::PUBLIC_API), key, config)?;
    let fetched = litnav_fetch::fetch(&source, &plan, &Watch(progress))?;
    progress.check("writing the corpus")?;
    let staging = staging_dir(&request.corpus)?;
    let file = staging.path().join("openalex-works.jsonl");
    litnav_fetch::write_works(&source, &fetched.works, &file)?;
    let ingest = IngestRequest { files: vec![file], format: Some(Format::OpenAlex), ..IngestRequest::default() };
    let report = workspace.ingest(&request.corpus, &ingest)?;
    progress.notice(&summary(&fetched.report));
    Ok(FetchOutcome { fetch: fetched.report, ingest: report, seconds: started.elapsed().as_secs_f64() })
}

/// Where `litnav map --fetch` keeps a fetched topic's corpus when no directory is named:
/// `HOME/corpora/fetched/<the topic's words joined by dashes>`.
/// `litnav map --fetch`: with a source, fetch `topic`'s field into `corpus` (the topic's default
/// corpus when none is named) and answer that corpus; without one, nothing — and fetch options
/// given without a source are refused.
pub fn fetch_for_map(
    workspace: &Workspace,
    source: Option<crate::request::SourceName>,
    topic: &str,
    corpus: Option<PathBuf>,
    params: &FetchParams,
    api_key: Option<ApiKey>,
    progress: &dyn Progress,
) -> Result<Option<PathBuf>> {
    let Some(crate::request::SourceName::Openalex) = source else {
        if *params != FetchParams::default() || api_key.is_some() {
            return Err(Error::input(
                "max, snowball, snowball_max, citing_per_work, api_url, rate and api_key go with fetch",
            ));
        }
        return Ok(None);
    };
    let corpus = corpus.unwrap_or_else(|| default_corpus(workspace, topic));
    let request = FetchRequest {
        topic: topic.to_string(),
        corpus: corpus.clone(),
        params: params.clone(),
        api_key,
        allowance: None,
    };
    fetch_openalex(workspace, &request, progress)?;
    Ok(Some(corpus))
}

/// The corpus a topic's field is fetched into unless another is named.
pub fn default_corpus(workspace: &Workspace, topic: &str) -> PathBuf {
    let words: Vec<String> =
        topic.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).take(12).collect();
    let name = if words.is_empty() { "topic".to_string() } else { words.join("-") };
    workspace.settings().home.join("corpora").join("fetched").join(name)
}

/// A scratch directory beside the corpus (on the same disk), removed when dropped.
fn staging_dir(corpus: &Path) -> Result<tempfile::TempDir> {
    let parent = beside(corpus);
    std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, &e))?;
    remove_abandoned_staging(corpus);
    tempfile::Builder::new()
        .prefix(&format!("{STAGING_PREFIX}{}-", std::process::id()))
        .tempdir_in(parent)
        .map_err(|e| Error::io(parent, &e))
}

/// The directory `corpus` is in, where its fetches stage their files.
fn beside(corpus: &Path) -> &Path {
    corpus.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// How a fetch's staging directory is named: the prefix, then the fetching process's id.
const STAGING_PREFIX: &str = ".litnav-fetch-";

/// Remove the staging directories beside `corpus` of fetches whose process is gone (stopped by a
/// kill or a crash before it could clean up): each fetch does, and a server when it starts. Where
/// a process cannot be looked up (not Linux), only those without a process id are.
pub fn remove_abandoned_staging(corpus: &Path) {
    let Ok(entries) = std::fs::read_dir(beside(corpus)) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(STAGING_PREFIX) else { continue };
        let owner = rest.split('-').next().and_then(|pid| pid.parse::<u32>().ok());
        let alive = owner.is_some_and(|pid| !cfg!(target_os = "linux") || Path::new(&format!("/proc/{pid}")).exists());
        if !alive {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// One paragraph on what a fetch found and what the data lacks.
pub fn summary(report: &FetchReport) -> String {
    let calls = &report.calls;
    let mut text = format!(
        "{} works for “{}” from {}: {} from the topic search, {} they cite, {} citing them; {} citations among them. \
         Calls: {} search, {} list, {} singleton ({} answered from the cache, {} retried, {:.1} MB read)",
        report.works,
        report.topic,
        report.source,
        report.hits,
        report.references,
        report.citing,
        report.citations,
        calls.search,
        calls.list,
        calls.singleton,
        calls.cached,
        calls.retries,
        calls.bytes as f64 / 1e6,
    );
    if let Some(remaining) = &calls.remaining {
        text.push_str(&format!("; allowance left: {remaining}"));
    }
    text.push('.');
    let gaps = [
        (report.works_without_references, "works list no references at all"),
        (report.merged, "ids were merged into other works"),
        (report.not_found, "cited ids are unknown to the source"),
        (report.left_out, "less connected works were left out by the snowball's limit"),
    ];
    for (count, what) in gaps.iter().filter(|(count, _)| *count > 0) {
        text.push_str(&format!(" {count} {what}."));
    }
    for (heading, counts) in [("Left out", &report.skipped), ("Cleaned", &report.repaired), ("Marked", &report.flagged)]
    {
        if !counts.is_empty() {
            let parts: Vec<String> = counts.iter().map(|(reason, count)| format!("{count} {reason}")).collect();
            text.push_str(&format!(" {heading}: {}.", parts.join(", ")));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_staging_of_a_fetch_whose_process_is_gone_is_removed_and_a_live_ones_kept() {
        let parent = tempfile::tempdir().unwrap();
        let dead = parent.path().join(format!("{STAGING_PREFIX}4194305-a1b2"));
        let live = parent.path().join(format!("{STAGING_PREFIX}{}-c3d4", std::process::id()));
        let unnamed = parent.path().join(format!("{STAGING_PREFIX}e5f6"));
        let other = parent.path().join("corpus");
        for dir in [&dead, &live, &unnamed, &other] {
            std::fs::create_dir_all(dir.join("inside")).unwrap();
        }
        let staging = staging_dir(&other).unwrap();
        assert!(!dead.exists() && !unnamed.exists(), "abandoned staging removed");
        assert!(live.exists() && other.exists(), "a running fetch's staging and the corpus kept");
        let name = staging.path().file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(&format!("{STAGING_PREFIX}{}-", std::process::id())), "{name}");
    }
}
