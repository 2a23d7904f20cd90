//! What every request shares: the workspace (settings, the encoder), the corpus session of the
//! current generation, the jobs, and the stored maps.
//!
//! A request takes the session once, at its start, and uses only that one: when the corpus is
//! re-ingested while the server runs, the next request that notices the new generation opens it
//! (others keep the old one meanwhile), so a request sees the old or the new generation whole,
//! never a mix — the session's lease keeps its generation on disk for as long as it is used.

use crate::error::{ApiError, ApiResult};
use crate::jobs::Jobs;
use litnav_app::{CorpusSession, LlmOptions, Progress, Quiet, Workspace};
use litnav_organize::MapNode;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

/// Shared state of the server (cheap to clone).
#[derive(Clone)]
pub struct AppState(pub(crate) Arc<Shared>);

pub(crate) struct Shared {
    pub workspace: Workspace,
    pub corpus_dir: PathBuf,
    current: RwLock<Arc<CorpusSession>>,
    reopening: Mutex<()>,
    pub jobs: Jobs,
    pub maps: MapStore,
    pub llm: Option<LlmOptions>,
    /// Whether jobs may open network connections (a map that fetches its field first).
    pub network: bool,
    /// The API a fetch goes to, as the owner named it (`None`: OpenAlex's public one).
    pub api_url: Option<String>,
    /// The budgets per caller and what was spent.
    pub usage: crate::budget::Usage,
    /// Computing the corpus's vectors at start-up.
    pub warming: Warming,
    pub guard: crate::guard::Guard,
    /// One map or expansion computes at a time (each uses every core); others wait their turn.
    pub heavy: Mutex<()>,
    /// One edit log changes at a time (read, check the revision, write).
    pub editing: Mutex<()>,
    /// Set when the server begins to shut down (event streams end, jobs are cancelled).
    pub shutdown: tokio::sync::watch::Sender<bool>,
    /// Cancelled when the server begins to shut down: MCP sessions at `/mcp` end.
    pub mcp_stop: tokio_util::sync::CancellationToken,
}

impl AppState {
    /// State over the corpus at `corpus_dir`, storing maps under `maps_dir`; `llm` is the endpoint
    /// jobs may use when they ask for one.
    pub fn new(
        workspace: Workspace,
        corpus_dir: PathBuf,
        maps_dir: PathBuf,
        llm: Option<LlmOptions>,
        guard: crate::guard::Guard,
    ) -> Result<AppState, litnav_app::Error> {
        // Absolute, so that every message naming them is recognised and redacted.
        let corpus_dir = std::path::absolute(&corpus_dir).unwrap_or(corpus_dir);
        let maps_dir = std::path::absolute(&maps_dir).unwrap_or(maps_dir);
        crate::redact::register(&corpus_dir.display().to_string(), "the corpus");
        crate::redact::register(&maps_dir.display().to_string(), "the map store");
        crate::redact::register(&workspace.settings().home.display().to_string(), "litnav's home");
        litnav_app::fetch::remove_abandoned_staging(&corpus_dir);
        let session = CorpusSession::open(&corpus_dir)?;
        Ok(AppState(Arc::new(Shared {
            workspace,
            corpus_dir,
            current: RwLock::new(Arc::new(session)),
            reopening: Mutex::new(()),
            jobs: Jobs::default(),
            maps: MapStore::new(maps_dir),
            llm,
            network: false,
            api_url: None,
            usage: crate::budget::Usage::new(crate::budget::Budgets::default(), guard.token.is_some()),
            warming: Warming::default(),
            guard,
            heavy: Mutex::new(()),
            editing: Mutex::new(()),
            shutdown: tokio::sync::watch::channel(false).0,
            mcp_stop: tokio_util::sync::CancellationToken::new(),
        })))
    }

    /// Let jobs open network connections (`litnav serve --allow-network`); call before serving.
    pub fn with_network(mut self, allowed: bool) -> AppState {
        if let Some(shared) = Arc::get_mut(&mut self.0) {
            shared.network = allowed;
        }
        self
    }

    /// Fetch from the API at `url` (`litnav serve --api-url`; `None`: OpenAlex's public one);
    /// call before serving.
    pub fn with_api_url(mut self, url: Option<String>) -> AppState {
        if let Some(url) = &url {
            crate::redact::register(url.trim().trim_end_matches('/'), "the API");
        }
        if let Some(shared) = Arc::get_mut(&mut self.0) {
            shared.api_url = url;
        }
        self
    }

    /// Budget each caller with `budgets`; call before serving.
    pub fn with_budgets(mut self, budgets: crate::budget::Budgets) -> AppState {
        if let Some(shared) = Arc::get_mut(&mut self.0) {
            shared.usage = crate::budget::Usage::new(budgets, shared.guard.token.is_some());
        }
        self
    }

    /// Refuse a new job with `id` when the caller's jobs at once are spent (a job with this id
    /// already queued or running is joined, not counted again).
    pub fn admit_job(&self, id: &str) -> ApiResult<()> {
        if self.0.jobs.get(id).is_some_and(|job| !job.view().state.is_final()) {
            return Ok(());
        }
        self.0.usage.new_job(self.0.jobs.running())
    }

    /// The budgets and what was spent.
    pub fn usage(&self) -> &crate::budget::Usage {
        &self.0.usage
    }

    /// The name of the served corpus's directory (what answers call it; never its path).
    pub fn corpus_name(&self) -> String {
        self.0.corpus_dir.file_name().map_or_else(|| "corpus".to_string(), |n| n.to_string_lossy().into_owned())
    }

    /// The API a fetch goes to, as the owner named it.
    pub fn api_url(&self) -> Option<&str> {
        self.0.api_url.as_deref()
    }

    /// An error unless jobs may open network connections.
    pub fn network(&self) -> ApiResult<()> {
        if self.0.network {
            return Ok(());
        }
        Err(ApiError::forbidden(
            "this server opens no network connection: start it with `litnav serve --allow-network` to fetch a field from OpenAlex",
        ))
    }

    /// The stored maps.
    pub fn maps(&self) -> &MapStore {
        &self.0.maps
    }

    /// The jobs of this server's life.
    pub fn jobs(&self) -> &Jobs {
        &self.0.jobs
    }

    /// The workspace.
    pub fn workspace(&self) -> &Workspace {
        &self.0.workspace
    }

    /// The session of the corpus's current generation (blocking: may open a new generation).
    pub fn session(&self) -> ApiResult<Arc<CorpusSession>> {
        let held = self.held();
        let on_disk = litnav_corpus::Corpus::locate(&self.0.corpus_dir).map(|(manifest, _)| manifest.generation);
        let Ok(generation) = on_disk else { return Ok(held) };
        if generation == held.corpus().manifest().generation {
            return Ok(held);
        }
        // One request opens the new generation; the others go on with the old one meanwhile.
        let Ok(_opening) = self.0.reopening.try_lock() else { return Ok(held) };
        let current = self.held();
        if current.corpus().manifest().generation == generation {
            return Ok(current);
        }
        let fresh = Arc::new(CorpusSession::open(&self.0.corpus_dir)?);
        tracing::info!(generation = fresh.corpus().manifest().generation, "serving a new corpus generation");
        *self.0.current.write().map_err(|_| ApiError::internal("the session lock is poisoned"))? = Arc::clone(&fresh);
        Ok(fresh)
    }

    fn held(&self) -> Arc<CorpusSession> {
        match self.0.current.read() {
            Ok(guard) => Arc::clone(&guard),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// The LLM client for a job that asks for one.
    pub fn llm(&self) -> ApiResult<litnav_llm::Client> {
        let options = self.0.llm.as_ref().ok_or_else(|| {
            ApiError::input("this server has no LLM endpoint: start it with `litnav serve --llm` to use one")
        })?;
        Ok(self.0.workspace.llm(options)?)
    }

    /// A client of the server's LLM endpoint for `job`: a request out when the job is cancelled
    /// is given up within 50 ms.
    pub fn llm_for(&self, job: &Arc<crate::jobs::Job>) -> ApiResult<litnav_llm::Client> {
        let job = Arc::clone(job);
        Ok(self.llm()?.with_stop(Arc::new(move || job.cancelled())))
    }

    /// Load the encoder and the current session's vectors now — computing the vectors a corpus
    /// lacks, with their progress in [`AppState::warming`] — so that searches use them as soon as
    /// they are ready (until then they are answered lexically, and say so).
    pub fn warm_up(&self) {
        let started = std::time::Instant::now();
        self.0.warming.start();
        let outcome = self.0.workspace.encoder(&Quiet).map_err(ApiError::from).and_then(|encoder| {
            let session = self.session()?;
            session.dense(encoder, &self.0.warming)?;
            Ok(())
        });
        self.0.warming.finish(outcome.as_ref().err().map(|e| e.message.clone()));
        match outcome {
            Ok(()) => tracing::info!(seconds = started.elapsed().as_secs_f64(), "encoder and vectors loaded"),
            Err(e) => tracing::warn!(error = %e.message, "warming up failed; dense search will retry"),
        }
    }

    /// How far computing the served corpus's vectors has come.
    pub fn warming(&self) -> WarmingView {
        self.0.warming.view()
    }

    /// Wait until the vectors are ready (or warming up ended), telling `job` how far they are.
    pub fn await_vectors(&self, job: &crate::jobs::Job) -> ApiResult<()> {
        let mut shown = false;
        loop {
            let view = self.warming();
            if !view.under_way() {
                return Ok(());
            }
            if !shown {
                job.stage("waiting for the corpus's vectors (computed once, when the server started)");
                shown = true;
            }
            if let (Some(done), Some(total)) = (view.done, view.total) {
                job.advance(done, total);
            }
            if Progress::cancelled(job) {
                return Err(litnav_app::Error::cancelled("stopped while waiting for the corpus's vectors").into());
            }
            std::thread::sleep(std::time::Duration::from_millis(250));
        }
    }
}

/// Computing the served corpus's vectors at start-up, as `/api/health` reports it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct WarmingView {
    /// Whether the warm-up has begun (the server starts it at once; tests may not).
    pub started: bool,
    /// Whether every paper has its vector and dense search is loaded.
    pub ready: bool,
    /// Papers encoded so far, while they are being encoded.
    pub done: Option<usize>,
    /// Papers to encode.
    pub total: Option<usize>,
    /// Why warming up failed (dense search then tries again on its own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The warm-up's progress, shared.
#[derive(Default)]
pub(crate) struct Warming(Mutex<WarmingView>);

impl WarmingView {
    /// Whether the warm-up is under way: loading the encoder, reading or computing vectors.
    pub fn under_way(&self) -> bool {
        self.started && !self.ready && self.error.is_none()
    }
}

impl Warming {
    fn view(&self) -> WarmingView {
        self.0.lock().map(|v| v.clone()).unwrap_or_default()
    }

    fn start(&self) {
        if let Ok(mut view) = self.0.lock() {
            view.started = true;
        }
    }

    fn finish(&self, error: Option<String>) {
        if let Ok(mut view) = self.0.lock() {
            view.ready = error.is_none();
            view.error = error;
        }
    }
}

impl Progress for Warming {
    fn advance(&self, done: usize, total: usize) {
        if let Ok(mut view) = self.0.lock() {
            view.done = Some(done);
            view.total = Some(total);
        }
    }
}

/// A map the server built (or grafted), as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredMap {
    /// Content-derived id: the same request on the same corpus gives the same id.
    pub id: String,
    /// The topic.
    pub topic: String,
    /// The request that built it (for display and permalinks).
    pub request: serde_json::Value,
    /// The map this one grew from by an expansion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// The node that was expanded, in the parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expanded: Option<String>,
    /// The map.
    pub map: MapNode,
    /// What building it said a reader should know (how many papers the score floor kept; for
    /// an expansion, the map's own and what the expansion retrieved).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
    /// Whether the corpus covers the map's topic, with the evidence (maps retrieved from it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<litnav_app::coverage::Coverage>,
    /// Its checks without a reference, as building it made them (a grafted expansion and maps
    /// stored before they were kept have none: they are made when asked for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<litnav_app::suggest::MapChecks>,
    /// The corrections made by hand, in order (`GET /api/maps/{id}/edits`): `map` is `original`
    /// with them applied, so the permalink, exports and scores show the edited map.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edits: Vec<litnav_app::edits::Edit>,
    /// The map as it was built, once it has been edited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original: Option<litnav_organize::MapNode>,
    /// How many times the edit log changed. A change names the revision it was made on; one made
    /// on an older revision (another tab changed the log first) is refused, never merged blind.
    #[serde(default)]
    pub revision: u64,
}

/// Maps kept in memory at most (the most recently read or stored); the rest are read from disk
/// when asked, so a long-running server's memory does not grow with the maps it has built.
pub const MAPS_IN_MEMORY: usize = 64;

/// Maps `GET /api/maps` lists at most (the newest).
pub const MAPS_LISTED: usize = 100;

/// Maps on disk (one JSON file per map, written atomically) with the recent ones kept in memory.
pub struct MapStore {
    dir: PathBuf,
    loaded: Mutex<RecentMaps>,
}

/// The maps in memory, least recently used first.
#[derive(Default)]
struct RecentMaps {
    maps: HashMap<String, Arc<StoredMap>>,
    order: std::collections::VecDeque<String>,
}

impl RecentMaps {
    fn get(&mut self, id: &str) -> Option<Arc<StoredMap>> {
        let map = Arc::clone(self.maps.get(id)?);
        self.touch(id);
        Some(map)
    }

    fn insert(&mut self, map: Arc<StoredMap>) {
        let id = map.id.clone();
        self.maps.insert(id.clone(), map);
        self.touch(&id);
        while self.order.len() > MAPS_IN_MEMORY
            && let Some(oldest) = self.order.pop_front()
        {
            self.maps.remove(&oldest);
        }
    }

    fn touch(&mut self, id: &str) {
        self.order.retain(|kept| kept != id);
        self.order.push_back(id.to_string());
    }

    fn len(&self) -> usize {
        self.maps.len()
    }
}

impl MapStore {
    fn new(dir: PathBuf) -> MapStore {
        MapStore { dir, loaded: Mutex::new(RecentMaps::default()) }
    }

    /// Maps held in memory now (at most [`MAPS_IN_MEMORY`]).
    pub fn in_memory(&self) -> usize {
        self.loaded.lock().map_or(0, |loaded| loaded.len())
    }

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    /// The map with this id (ids are hex digests: anything else is not found, and never a path).
    pub fn get(&self, id: &str) -> ApiResult<Arc<StoredMap>> {
        if !is_digest(id) {
            return Err(ApiError::not_found(format!("no map with id {id:?}")));
        }
        if let Some(map) = self.loaded.lock().map_err(|_| poisoned())?.get(id) {
            return Ok(map);
        }
        let map = self.read(id)?;
        self.loaded.lock().map_err(|_| poisoned())?.insert(Arc::clone(&map));
        Ok(map)
    }

    /// The map with this id from its file.
    fn read(&self, id: &str) -> ApiResult<Arc<StoredMap>> {
        let path = self.path(id);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(ApiError::not_found(format!("no map with id {id:?}")));
            }
            Err(e) => return Err(ApiError::internal(format!("{}: {e}", path.display()))),
        };
        let map: StoredMap = serde_json::from_str(&text)
            .map_err(|e| ApiError::internal(format!("{} is damaged: {e}", path.display())))?;
        Ok(Arc::new(map))
    }

    /// Whether a map with this id is stored.
    pub fn contains(&self, id: &str) -> bool {
        self.get(id).is_ok()
    }

    /// Store a map (atomically: a reader sees the whole file or none).
    pub fn put(&self, map: StoredMap) -> ApiResult<Arc<StoredMap>> {
        std::fs::create_dir_all(&self.dir).map_err(|e| ApiError::internal(format!("{}: {e}", self.dir.display())))?;
        let json = serde_json::to_vec_pretty(&map).map_err(|e| ApiError::internal(e.to_string()))?;
        litnav_corpus::store::write_atomically(&self.path(&map.id), &json)
            .map_err(|e| ApiError::internal(format!("storing map {}: {e}", map.id)))?;
        let map = Arc::new(map);
        self.loaded.lock().map_err(|_| poisoned())?.insert(Arc::clone(&map));
        Ok(map)
    }

    /// The newest stored maps' ids, topics and parents (at most [`MAPS_LISTED`]), newest first.
    pub fn list(&self) -> Vec<MapSummary> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return Vec::new() };
        let mut found: Vec<(std::time::SystemTime, String)> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().strip_suffix(".json")?.to_string();
                let modified = e.metadata().and_then(|m| m.modified()).ok()?;
                is_digest(&name).then_some((modified, name))
            })
            .collect();
        found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        found
            .into_iter()
            .take(MAPS_LISTED)
            // Listing reads files without keeping them: it must not push the maps being browsed
            // out of memory.
            .filter_map(|(_, id)| {
                let in_memory = self.loaded.lock().ok().and_then(|loaded| loaded.maps.get(&id).cloned());
                in_memory.or_else(|| self.read(&id).ok())
            })
            .map(|m| MapSummary {
                id: m.id.clone(),
                topic: m.topic.clone(),
                parent: m.parent.clone(),
                papers: m.map.all_paper_ids().len(),
            })
            .collect()
    }

    /// Where maps are stored.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// A stored map in a list.
#[derive(Debug, Clone, Serialize)]
pub struct MapSummary {
    /// Id.
    pub id: String,
    /// Topic.
    pub topic: String,
    /// The map it grew from.
    pub parent: Option<String>,
    /// Papers placed.
    pub papers: usize,
}

fn poisoned() -> ApiError {
    ApiError::internal("the map store's lock is poisoned")
}

/// The MCP tools at `/mcp` answer from the served corpus's current generation, with the server's
/// LLM, and say nothing of the machine (as the API).
impl litnav_mcp::Host for AppState {
    fn workspace(&self) -> &Workspace {
        &self.0.workspace
    }

    fn session(&self) -> Result<Arc<CorpusSession>, litnav_app::Error> {
        AppState::session(self).map_err(ApiError::into_library)
    }

    fn llm(&self) -> Result<litnav_llm::Client, litnav_app::Error> {
        AppState::llm(self).map_err(ApiError::into_library)
    }

    fn redact(&self, text: &str) -> String {
        crate::redact::scrub(text)
    }

    fn network(&self) -> bool {
        self.0.network
    }

    fn reads_files(&self) -> bool {
        false
    }

    fn admit_map(&self) -> Result<(), litnav_app::Error> {
        self.usage().map_request().map_err(ApiError::into_library)
    }

    fn heavy_work(&self) -> Option<&Mutex<()>> {
        Some(&self.0.heavy)
    }

    /// A map made by the tools is stored as the page's maps are: a permalink.
    fn keep_map(
        &self,
        id: &str,
        topic: &str,
        request: &serde_json::Value,
        outcome: &litnav_app::maps::MapOutcome,
    ) -> Result<(), litnav_app::Error> {
        let stored = StoredMap {
            id: id.to_string(),
            topic: topic.to_string(),
            request: request.clone(),
            parent: None,
            expanded: None,
            map: outcome.map.clone(),
            notices: outcome.notices.iter().map(|notice| crate::redact::scrub(notice)).collect(),
            coverage: outcome.coverage.clone(),
            checks: outcome.checks.clone(),
            edits: Vec::new(),
            original: None,
            revision: 0,
        };
        self.0.maps.put(stored).map(|_| ()).map_err(ApiError::into_library)
    }

    /// The page's maps (and the tools'), as the map tool answers them: edited maps as edited.
    fn kept_map(&self, id: &str) -> Option<(String, litnav_app::maps::MapOutcome)> {
        let stored = self.0.maps.get(id).ok()?;
        let outcome = litnav_app::maps::MapOutcome {
            map: stored.map.clone(),
            trace: None,
            bottom_up: None,
            notices: stored.notices.clone(),
            coverage: stored.coverage.clone(),
            checks: stored.checks.clone(),
        };
        Some((stored.topic.clone(), outcome))
    }

    /// As a map job's fetch: into the served corpus, from the owner's API, within the caller's
    /// allowance of calls.
    fn fetch(
        &self,
        topic: &str,
        params: litnav_app::request::FetchParams,
        progress: &dyn litnav_app::Progress,
    ) -> Result<litnav_app::fetch::FetchOutcome, litnav_app::Error> {
        AppState::network(self).map_err(ApiError::into_library)?;
        let allowance = self.usage().fetch_allowance().map_err(ApiError::into_library)?;
        let request = litnav_app::fetch::FetchRequest {
            topic: topic.to_string(),
            corpus: self.0.corpus_dir.clone(),
            params: litnav_app::request::FetchParams { api_url: self.api_url().map(str::to_string), ..params },
            api_key: None,
            allowance: Some(allowance),
        };
        litnav_app::fetch::fetch_openalex(self.workspace(), &request, progress)
    }
}

/// Whether `id` looks like one of the server's ids (16 lowercase hex digits).
pub fn is_digest(id: &str) -> bool {
    id.len() == 16 && id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A 16-hex-digit id derived from `parts`.
pub use litnav_app::request::digest;

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(i: usize) -> StoredMap {
        StoredMap {
            id: format!("{i:016x}"),
            topic: format!("topic {i}"),
            request: serde_json::json!({}),
            parent: None,
            expanded: None,
            map: litnav_organize::MapNode::new(format!("topic {i}"), String::new(), 1.0),
            notices: Vec::new(),
            coverage: None,
            checks: None,
            edits: Vec::new(),
            original: None,
            revision: 0,
        }
    }

    #[test]
    fn memory_holds_the_recent_maps_and_disk_holds_them_all() {
        let dir = tempfile::tempdir().unwrap();
        let store = MapStore::new(dir.path().to_path_buf());
        for i in 0..MAPS_IN_MEMORY + 10 {
            store.put(stored(i)).unwrap();
        }
        assert_eq!(store.in_memory(), MAPS_IN_MEMORY);
        // The first maps left memory but are read back from their files.
        assert_eq!(store.get(&format!("{:016x}", 0)).unwrap().topic, "topic 0");
        assert_eq!(store.in_memory(), MAPS_IN_MEMORY);
        // Listing reads the newest files without evicting what is being browsed.
        store.get(&format!("{:016x}", 5)).unwrap();
        assert_eq!(store.list().len(), MAPS_IN_MEMORY + 10);
        assert!(store.loaded.lock().unwrap().maps.contains_key(&format!("{:016x}", 5)));
    }
}
