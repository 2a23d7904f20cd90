//! litnav as the research environment agents call: a Model Context Protocol server (the official
//! Rust SDK, `rmcp`) over one corpus. Its tools are litnav's request types ([`tools`]): the input
//! schema of `search` is `SearchParams`' JSON schema, so a tool cannot drift from `litnav search`
//! or `GET /api/search`. Answers are the commands' JSON as structured content with a short text
//! summary; a bad argument or a failed request is a tool error naming the argument (the agent
//! reads it and tries again), never a protocol failure. Long tools (a map) report progress when
//! the call carries a progress token and stop when the client cancels.
//!
//! Resources: the corpus's description (`litnav://corpus`) and every map made in this session
//! (`litnav://maps/{id}`). Prompt: `survey_topic`, the steps of surveying a topic with the tools.

mod progress;
pub mod tools;

use litnav_app::fetch::{FetchOutcome, FetchRequest};
use litnav_app::maps::{self as build, MapOutcome};
use litnav_app::request::{ExpandNodeParams, FetchParams, MapParams};
use litnav_app::{CorpusSession, Error, Progress, Result, SearchRequest, Workspace};
use litnav_organize::MapNode;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, Implementation, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, Prompt, PromptArgument, PromptMessage, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Role, ServerCapabilities,
    ServerConfig, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Maps a session keeps for `expand` and as resources; the oldest is forgotten first.
const MAPS_KEPT: usize = 64;

/// Where the tools find their workspace, corpus and LLM: a corpus this process opened
/// ([`Opened`], `litnav mcp`) or a web server's (`litnav serve`'s `/mcp`, which answers from the
/// session, generation by generation, that its API answers from).
pub trait Host: Send + Sync + 'static {
    /// The workspace (settings, the encoder).
    fn workspace(&self) -> &Workspace;
    /// The corpus's session (opened on first use, or the current generation's).
    fn session(&self) -> Result<Arc<CorpusSession>>;
    /// The LLM for a call that asks for one, or an input error saying how to start the server
    /// with one.
    fn llm(&self) -> Result<litnav_llm::Client>;
    /// `text` as this host may show it to a client (a web server names no path of its machine).
    fn redact(&self, text: &str) -> String {
        text.to_string()
    }
    /// Keep a map the `map` tool made where this host keeps its maps (a web server: in its map
    /// store under the same id, so that the map is a permalink of its page too).
    fn keep_map(&self, _id: &str, _topic: &str, _request: &Value, _outcome: &MapOutcome) -> Result<()> {
        Ok(())
    }
    /// A map this host keeps under `id` (a web server's, made through its page, API or tools),
    /// with its topic.
    fn kept_map(&self, _id: &str) -> Option<(String, MapOutcome)> {
        None
    }
    /// Admit a map the `map` tool is asked to make (a web server: within its callers' maps a
    /// minute, as its API's map requests are).
    fn admit_map(&self) -> Result<()> {
        Ok(())
    }
    /// The lock its heavy work takes turns on (a web server computes one map at a time, every
    /// core to it, its page's and its tools' alike).
    fn heavy_work(&self) -> Option<&Mutex<()>> {
        None
    }
    /// Whether a call may name files of this machine for a tool to read (a survey, predictions).
    /// A web server's callers may not: its answers say nothing of its machine, so `score_survey`
    /// is not offered there and `score_taxobench` takes its lines inline.
    fn reads_files(&self) -> bool {
        true
    }
    /// Whether its owner lets it open network connections (then the `fetch_openalex` tool is
    /// offered).
    fn network(&self) -> bool {
        false
    }
    /// Fetch a field from OpenAlex into the corpus served, from the API its owner chose; the
    /// next call answers from the new generation.
    fn fetch(&self, _topic: &str, _params: FetchParams, _progress: &dyn Progress) -> Result<FetchOutcome> {
        Err(Error::input("this server opens no network connection (its owner starts it with --allow-network)"))
    }
}

/// A corpus `litnav mcp` opened itself, on the first call that needs it.
pub struct Opened {
    workspace: Workspace,
    corpus: Option<PathBuf>,
    llm: Option<litnav_app::LlmOptions>,
    network: Option<Network>,
    session: Mutex<Option<Arc<CorpusSession>>>,
}

/// What a server whose owner allows network connections fetches into, and from where.
#[derive(Debug, Clone)]
pub struct Network {
    /// The API (`None`: OpenAlex's public one).
    pub api_url: Option<String>,
}

impl Opened {
    /// The corpus at `corpus` (the built-in litbench corpus when none) in `workspace`, with the
    /// LLM endpoint the map and expand tools use when a call asks for it.
    pub fn new(workspace: Workspace, corpus: Option<PathBuf>, llm: Option<litnav_app::LlmOptions>) -> Opened {
        Opened { workspace, corpus, llm, network: None, session: Mutex::new(None) }
    }

    /// Let the `fetch_openalex` tool fetch into this corpus, which must then be named (the
    /// built-in litbench corpus is never written to).
    pub fn with_network(self, network: Network) -> Result<Opened> {
        if self.corpus.is_none() {
            return Err(Error::input(
                "--allow-network: name the corpus the fetched works go into (--corpus DIR); the built-in corpus is not written to",
            ));
        }
        Ok(Opened { network: Some(network), ..self })
    }
}

impl Host for Opened {
    fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    fn session(&self) -> Result<Arc<CorpusSession>> {
        let mut held = self.session.lock().map_err(|_| Error::internal("the session's lock is poisoned"))?;
        if let Some(session) = held.as_ref() {
            return Ok(Arc::clone(session));
        }
        let session = Arc::new(self.workspace.open(self.corpus.as_deref(), &litnav_app::Quiet)?);
        *held = Some(Arc::clone(&session));
        Ok(session)
    }

    fn llm(&self) -> Result<litnav_llm::Client> {
        let options = self.llm.as_ref().ok_or_else(|| {
            Error::input("this server has no LLM; start it with one (litnav mcp --llm, with --llm-url and --llm-model)")
        })?;
        self.workspace.llm(options)
    }

    fn network(&self) -> bool {
        self.network.is_some()
    }

    fn fetch(&self, topic: &str, params: FetchParams, progress: &dyn Progress) -> Result<FetchOutcome> {
        let (Some(network), Some(corpus)) = (&self.network, &self.corpus) else {
            return Err(Error::input("this server opens no network connection (litnav mcp --allow-network)"));
        };
        let params = FetchParams { api_url: network.api_url.clone(), ..params };
        let request =
            FetchRequest { topic: topic.to_string(), corpus: corpus.clone(), params, api_key: None, allowance: None };
        let outcome = litnav_app::fetch::fetch_openalex(&self.workspace, &request, progress)?;
        // The next call opens the generation the fetch wrote.
        *self.session.lock().map_err(|_| Error::internal("the session's lock is poisoned"))? = None;
        Ok(outcome)
    }
}

/// The server: where its corpus comes from, and the maps made so far.
#[derive(Clone)]
pub struct Litnav(Arc<Inner>);

/// What [`Litnav`] shares between calls.
pub struct Inner {
    host: Box<dyn Host>,
    maps: Mutex<VecDeque<(String, Arc<Built>)>>,
}

impl std::ops::Deref for Litnav {
    type Target = Inner;

    fn deref(&self) -> &Inner {
        &self.0
    }
}

/// A map made in this session.
pub struct Built {
    /// Its id (as the server's permalinks are made: from the corpus and the request).
    pub id: String,
    /// What it is a map of.
    pub topic: String,
    /// The map.
    pub map: MapNode,
    /// The map tool's answer: the map as `--json` prints it, with its id as `map_id`.
    pub printed: Value,
}

impl Litnav {
    /// A server answering from `host`.
    pub fn new(host: impl Host) -> Litnav {
        Litnav(Arc::new(Inner { host: Box::new(host), maps: Mutex::new(VecDeque::new()) }))
    }

    /// The workspace.
    pub fn workspace(&self) -> &Workspace {
        self.host.workspace()
    }

    /// The corpus's session.
    pub fn session(&self) -> Result<Arc<CorpusSession>> {
        self.host.session()
    }

    /// The host answering the tools.
    pub(crate) fn host(&self) -> &dyn Host {
        self.host.as_ref()
    }

    /// The tools this server offers (`fetch_openalex` only where the owner allows the network,
    /// `score_survey` only where calls may name files).
    fn offered(&self) -> Vec<tools::Tool> {
        let host = self.host.as_ref();
        tools::all()
            .into_iter()
            .filter(|tool| (!tool.network || host.network()) && (!tool.reads_files || host.reads_files()))
            .collect()
    }

    /// A search's hits (the encoder loaded when its mode needs it).
    fn search(&self, request: &SearchRequest, progress: &dyn Progress) -> Result<Vec<litnav_search::Hit>> {
        self.session()?.answer(request, self.workspace(), progress)
    }

    /// The LLM, when a call asks for it (`option` names the argument that asks).
    pub(crate) fn llm_for(&self, asked: bool, option: &str) -> Result<Option<litnav_llm::Client>> {
        if !asked {
            return Ok(None);
        }
        self.host.llm().map(Some).map_err(|e| Error::input(format!("{option}: {e}")))
    }

    /// A map of the topic `params` names, made once per request and kept.
    fn map(&self, params: MapParams, progress: &dyn Progress) -> Result<Arc<Built>> {
        if params.fetch.is_some() {
            return Err(Error::input(
                "fetch: the map tool maps the corpus this server serves; fetch a field first (litnav fetch openalex) \
                 and serve that corpus",
            ));
        }
        let topic = params.topic()?;
        let params = MapParams { topic: Some(topic.clone()), ..params };
        let request = params.resolve(self.workspace().settings().seed)?;
        let session = self.session()?;
        let id = params.map_id(session.dir())?;
        if let Some(built) = self.kept(&id)? {
            return Ok(built);
        }
        let client = self.llm_for(params.needs_llm(), "llm")?;
        self.host.admit_map()?;
        let _turn = self.turn(progress)?;
        let outcome = build::build_map(self.workspace(), Some(&session), &request, client.as_ref(), progress)?;
        let asked = serde_json::to_value(&params).map_err(|e| Error::internal(e.to_string()))?;
        self.host.keep_map(&id, &topic, &asked, &outcome)?;
        self.keep(id, topic, outcome)
    }

    /// A sub-map of a kept map's node, made once per request and kept.
    fn expand(&self, params: ExpandNodeParams, progress: &dyn Progress) -> Result<Arc<Built>> {
        let parent = self.kept(&params.map)?.ok_or_else(|| {
            Error::not_found(format!("map: no map {:?} was made in this session (the map tool makes one)", params.map))
        })?;
        let subtopic = parent
            .map
            .find(&params.node)
            .ok_or_else(|| Error::not_found(format!("node: map {} has no node {:?}", parent.id, params.node)))?;
        let topic = format!("{} › {}", parent.topic, subtopic.name);
        let request = params.expansion.resolve(&params.node, self.workspace().settings().seed)?;
        let id = params.expansion.expansion_id(&parent.id, &params.node)?;
        // Not the host's store: under this id a web server keeps the map with the expansion
        // grafted in, where this tool answers the sub-map.
        if let Some(built) = self.made(&id)? {
            return Ok(built);
        }
        let client = self.llm_for(params.expansion.llm == Some(true), "llm")?;
        let session = self.session()?;
        let _turn = self.turn(progress)?;
        let expansion = build::expand(self.workspace(), &session, &parent.map, &request, client.as_ref(), progress)?;
        let mut printed = serde_json::to_value(&expansion.map).map_err(|e| Error::internal(e.to_string()))?;
        if let Some(fields) = printed.as_object_mut() {
            fields.insert("notice".into(), Value::String(expansion.notice()));
        }
        self.store(Built { id, topic, map: expansion.map, printed })
    }

    /// The host's turn for heavy work (none to take where it has no such lock).
    fn turn(&self, progress: &dyn Progress) -> Result<Option<std::sync::MutexGuard<'_, ()>>> {
        self.host.heavy_work().map(|lock| litnav_app::progress::take_turn(lock, progress, "another map")).transpose()
    }

    /// Keep a map made (or found in the host) for this session.
    fn keep(&self, id: String, topic: String, outcome: MapOutcome) -> Result<Arc<Built>> {
        let printed = outcome.printed()?;
        self.store(Built { id, topic, map: outcome.map, printed })
    }

    /// Keep `built` (its id added to its answer), forgetting the oldest map beyond [`MAPS_KEPT`].
    fn store(&self, mut built: Built) -> Result<Arc<Built>> {
        if let Some(fields) = built.printed.as_object_mut() {
            fields.insert("map_id".into(), Value::String(built.id.clone()));
        }
        let built = Arc::new(built);
        let mut maps = self.maps.lock().map_err(|_| Error::internal("the maps' lock is poisoned"))?;
        maps.push_back((built.id.clone(), Arc::clone(&built)));
        while maps.len() > MAPS_KEPT {
            maps.pop_front();
        }
        Ok(built)
    }

    /// The map `id` made in this session.
    fn made(&self, id: &str) -> Result<Option<Arc<Built>>> {
        let maps = self.maps.lock().map_err(|_| Error::internal("the maps' lock is poisoned"))?;
        Ok(maps.iter().find(|(kept, _)| kept == id).map(|(_, built)| Arc::clone(built)))
    }

    /// The map `id`: made in this session, or kept by the host.
    fn kept(&self, id: &str) -> Result<Option<Arc<Built>>> {
        if let Some(built) = self.made(id)? {
            return Ok(Some(built));
        }
        match self.host.kept_map(id) {
            Some((topic, outcome)) => self.keep(id.to_string(), topic, outcome).map(Some),
            None => Ok(None),
        }
    }

    /// A resource's text by its URI.
    fn resource(&self, uri: &str) -> Result<String> {
        let text = if uri == CORPUS_URI {
            let report = litnav_app::info::report(self.session()?.corpus())?;
            serde_json::to_string_pretty(&report).map(|text| self.host.redact(&text))
        } else if let Some(id) = uri.strip_prefix(MAP_URI_PREFIX) {
            let built =
                self.kept(id)?.ok_or_else(|| Error::not_found(format!("no map {id:?} was made in this session")))?;
            serde_json::to_string_pretty(&built.printed)
        } else {
            return Err(Error::not_found(format!("no resource {uri:?} (litnav://corpus, litnav://maps/{{id}})")));
        };
        text.map_err(|e| Error::internal(e.to_string()))
    }
}

const CORPUS_URI: &str = "litnav://corpus";
const MAP_URI_PREFIX: &str = "litnav://maps/";

/// A failed call as the agent sees it: the message, and its stable code as structured content.
fn tool_error(error: &Error, host: &dyn Host) -> CallToolResult {
    let code = error.code().row().code;
    let message = host.redact(&error.to_string());
    let result = CallToolResult::structured_error(json!({ "error": message, "code": code }));
    in_words(result, format!("{code}: {message}"))
}

/// `result` with `text` as its content (the structured content's summary) instead of the
/// structured content repeated as text.
fn in_words(mut result: CallToolResult, text: String) -> CallToolResult {
    result.content = vec![ContentBlock::text(text)];
    result
}

/// An internal failure of the server itself (a lost thread), as a JSON-RPC error.
fn internal(message: impl Into<String>) -> ErrorData {
    ErrorData::internal_error(message.into(), None)
}

impl ServerHandler for Litnav {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools().enable_resources().enable_prompts().build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("litnav", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.offered().iter().map(described).collect()))
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.offered().iter().find(|tool| tool.name == name).map(described)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let Some(tool) = self.offered().into_iter().find(|tool| tool.name == request.name) else {
            return Err(ErrorData::invalid_params(format!("no tool {:?}", request.name), None));
        };
        // The SDK moves a request's `_meta` into the context.
        let token = context.meta.get_progress_token().or_else(|| request.meta.as_ref()?.get_progress_token());
        let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
        let peer = context.peer.clone();
        let forwarder = tokio::spawn(async move {
            while let Some(notification) = receiver.recv().await {
                // A client that went away hears nothing more; the call ends on its own.
                let _ = peer.notify_progress(notification).await;
            }
        });
        let progress = progress::ToolProgress::new(token.map(|token| (sender, token)), context.ct.clone());
        let (litnav, arguments) = (self.clone(), request.arguments.unwrap_or_default());
        let answered = tokio::task::spawn_blocking(move || (tool.answer)(&litnav, arguments, &progress)).await;
        // Every notification is sent before the answer.
        let _ = forwarder.await;
        let result = match answered {
            Ok(Ok(answer)) => in_words(CallToolResult::structured(answer.structured), answer.summary),
            Ok(Err(error)) => tool_error(&error, self.host.as_ref()),
            Err(lost) => return Err(internal(format!("the tool's thread failed: {lost}"))),
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourcesResult, ErrorData> {
        let corpus = Resource::new(CORPUS_URI, "corpus")
            .with_title("The corpus")
            .with_description(
                "What the corpus holds: papers, topics, citations, the coverage of each field (litnav info --json)",
            )
            .with_mime_type("application/json");
        let maps = self.maps.lock().map_err(|_| internal("the maps' lock is poisoned"))?;
        let made = maps.iter().map(|(id, built)| {
            Resource::new(format!("{MAP_URI_PREFIX}{id}"), format!("map {id}"))
                .with_title(format!("Map: {}", built.topic))
                .with_mime_type("application/json")
        });
        Ok(ListResourcesResult::with_all_items(std::iter::once(corpus).chain(made).collect()))
    }

    async fn list_resource_templates(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourceTemplatesResult, ErrorData> {
        let template = ResourceTemplate::new(format!("{MAP_URI_PREFIX}{{id}}"), "map")
            .with_title("A map made in this session, by the id the map tool answered")
            .with_mime_type("application/json");
        Ok(ListResourceTemplatesResult::with_all_items(vec![template]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _: RequestContext<RoleServer>,
    ) -> std::result::Result<ReadResourceResponse, ErrorData> {
        let (litnav, uri) = (self.clone(), request.uri.clone());
        let text = tokio::task::spawn_blocking(move || litnav.resource(&uri))
            .await
            .map_err(|lost| internal(lost.to_string()))?
            .map_err(|error| ErrorData::resource_not_found(self.host.redact(&error.to_string()), None))?;
        let contents = ResourceContents::text(text, request.uri).with_mime_type("application/json");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn list_prompts(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> std::result::Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![survey_prompt()]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _: RequestContext<RoleServer>,
    ) -> std::result::Result<GetPromptResponse, ErrorData> {
        if request.name != SURVEY_PROMPT {
            return Err(ErrorData::invalid_params(
                format!("no prompt {:?} (one: {SURVEY_PROMPT})", request.name),
                None,
            ));
        }
        let topic = request.arguments.as_ref().and_then(|arguments| arguments.get("topic")).and_then(Value::as_str);
        let Some(topic) = topic.filter(|topic| !topic.trim().is_empty()) else {
            return Err(ErrorData::invalid_params("topic: name the topic to survey", None));
        };
        let message = PromptMessage::new_text(Role::User, survey_steps(topic.trim()));
        Ok(GetPromptResult::new(vec![message])
            .with_description(format!("Survey “{}” with litnav", topic.trim()))
            .into())
    }
}

/// What the server tells a client about itself at initialization.
const INSTRUCTIONS: &str = "litnav answers questions about a corpus of scientific papers offline: search it \
     (search), read a paper and its citation profile (paper, citations, related), follow citations from a \
     classic to today (path), and organize a topic into a map of themes and subtopics (map, expand). Papers \
     are named by their corpus ids, which search gives; litnav://corpus says what the corpus holds.";

/// A tool as the protocol lists it.
fn described(tool: &tools::Tool) -> rmcp::model::Tool {
    let mut annotations = ToolAnnotations::new().read_only(tool.read_only).open_world(false);
    annotations.title = Some(tool.title.to_string());
    rmcp::model::Tool::new(tool.name, tool.about, (tool.schema)()).with_title(tool.title).with_annotations(annotations)
}

const SURVEY_PROMPT: &str = "survey_topic";

fn survey_prompt() -> Prompt {
    let topic =
        PromptArgument::new("topic").with_description("The topic to survey, in plain words").with_required(true);
    Prompt::new(
        SURVEY_PROMPT,
        Some("Survey a topic with litnav's tools: find, organize, relate, cite"),
        Some(vec![topic]),
    )
}

/// The steps of surveying `topic` with the tools (the prompt's one message).
fn survey_steps(topic: &str) -> String {
    format!(
        "Survey the research on “{topic}” using litnav's tools, citing papers by their corpus ids.\n\
         1. Read litnav://corpus to see what the corpus holds, then call `map` with topic “{topic}”. If its \
         coverage verdict says the corpus does not cover the topic, say so and stop.\n\
         2. For each theme of the map, read its subtopics and papers; call `expand` on a subtopic that is \
         too broad or too thin (with the map's id and the node's id).\n\
         3. Call `search` for what the map leaves out (methods, datasets, recent work), with `before` set \
         to a year if the survey must not see later work.\n\
         4. For the most cited papers of each theme, call `paper` (disruption and novelty say which work \
         changed the field) and `citations` (who builds on it and how they speak of it); call `path` from a \
         recent paper to a classic to show the line of work between them.\n\
         5. Write the survey: an introduction, one section per theme with its subtopics, what is disruptive \
         and what is incremental, open problems — every claim cited by paper id."
    )
}

/// The streamable-HTTP transport serving `litnav`, for a web server to mount (`litnav serve`
/// mounts it at `/mcp`, behind its own guard: the Host and Origin checks and the token are the
/// web server's, so the SDK's own Host check is off here). Every HTTP session is answered by
/// the same server, so a map made in one is a resource of the others; `stop` ends them all.
pub fn http_service(
    litnav: Litnav,
    stop: tokio_util::sync::CancellationToken,
) -> rmcp::transport::StreamableHttpService<
    Litnav,
    rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
> {
    let mut config = rmcp::transport::StreamableHttpServerConfig::default().disable_allowed_hosts();
    config.cancellation_token = stop;
    rmcp::transport::StreamableHttpService::new(move || Ok(litnav.clone()), Default::default(), config)
}

/// Serve `litnav` over standard input and output until the client closes them.
pub fn serve_stdio(litnav: Litnav) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::internal(format!("cannot start the MCP server's runtime: {e}")))?;
    runtime.block_on(async move {
        let running = rmcp::serve_server(litnav, rmcp::transport::stdio())
            .await
            .map_err(|e| Error::unavailable(format!("the MCP client did not initialize the session: {e}")))?;
        running.waiting().await.map_err(|e| Error::internal(format!("the MCP session failed: {e}")))?;
        Ok(())
    })
}
