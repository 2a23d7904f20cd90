//! TaxoBench's LLM Bottom-Up organizer as a map method (`litnav map --method llm`): the model
//! reads the papers and writes the taxonomy; litnav makes it a map — ids, descriptions,
//! relevance, the most central papers first, the "Filtered" branch — and makes it work at any
//! size and depth:
//!
//! - **Batches.** One request sees at most [`BottomUpOptions::batch`] papers (a small model's
//!   context holds a few dozen titles and abstracts). A larger set is cut into consecutive runs of
//!   the average-linkage dendrogram's leaf order over the papers' centered vectors, so each
//!   request sees neighbouring papers, and every run is organized bottom-up on its own.
//! - **Merging.** The runs' categories are then themselves organized bottom-up: the Thematic
//!   Organizer groups them into themes (categories of one name in a theme become one), in rounds
//!   of at most [`MERGE_LIMIT`] categories while there are more.
//! - **Depth.** The answer schema has two levels (categories, subcategories; constrained decoding
//!   needs a bounded schema), and deeper levels come the way a person would build them: a
//!   subcategory with more than [`BottomUpOptions::recurse_above`] papers is organized again, down
//!   to three levels below the top.
//!
//! Every paper is placed exactly once: a request whose partition stays wrong after the repair is
//! fixed by content ([`litnav_llm::navigator::bottom_up`]); a request whose answer cannot be read
//! at all has its papers organized offline, and the trace says so. An endpoint that fails stops
//! the map with its error. The papers' input order plays no part.

use crate::map::{Doc, MapNode, assign_ids, by_centrality, fill_leaf, most_representative};
use crate::naming::distinct_names;
use crate::{Options, cluster, filter_unrelated, organize_naming};
use litnav_core::PaperText;
use litnav_llm::navigator::{self, Content, PaperView};
use litnav_llm::{Client, Error, Usage};
use serde::Serialize;

/// Most categories one Thematic Organizer request groups.
pub const MERGE_LIMIT: usize = 40;

/// Deepest level recursion reaches below the top-level categories.
const MAX_DEPTH: usize = 3;

/// Settings of the Bottom-Up map method.
#[derive(Debug, Clone, Copy)]
pub struct BottomUpOptions {
    /// Most papers shown in one request.
    pub batch: usize,
    /// Characters of each abstract shown (0: titles only).
    pub abstract_chars: usize,
    /// Subcategories with more papers than this are organized again (`None`: two levels).
    pub recurse_above: Option<usize>,
    /// Subtopics whose centroid's cosine to the topic is below this go under "Filtered".
    pub min_relevance: f64,
    /// Seed of the offline fallback.
    pub seed: u64,
}

impl Default for BottomUpOptions {
    fn default() -> Self {
        BottomUpOptions {
            batch: 25,
            abstract_chars: 200,
            recurse_above: None,
            min_relevance: 0.0,
            seed: litnav_core::DEFAULT_SEED,
        }
    }
}

/// What the method did, for audit.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BottomUpTrace {
    /// Every Bottom-Up request, in the order the map was built.
    pub requests: Vec<RequestTrace>,
    /// Every grouping of categories into themes.
    pub groupings: Vec<GroupingTrace>,
    /// Calls, cache hits and tokens.
    pub usage: Usage,
}

/// One Bottom-Up request.
#[derive(Debug, Clone, Serialize)]
pub struct RequestTrace {
    /// Papers shown.
    pub papers: usize,
    /// Categories the answer made.
    pub categories: usize,
    /// The model repaired its first answer.
    pub repaired: bool,
    /// litnav fixed the placement (papers listed twice or never): why.
    pub fixed_by_litnav: Option<String>,
    /// The answer could not be read even after the repair, so these papers were organized
    /// offline: why.
    pub organized_offline: Option<String>,
}

/// One grouping of categories into themes.
#[derive(Debug, Clone, Serialize)]
pub struct GroupingTrace {
    /// Categories given.
    pub categories: usize,
    /// Nodes after grouping (themes and categories left alone).
    pub nodes: usize,
    /// The model repaired its first answer.
    pub repaired: bool,
    /// litnav fixed the partition itself: why.
    pub fixed_by_litnav: Option<String>,
    /// The answer was unusable, so the categories stay ungrouped: why.
    pub error: Option<String>,
}

/// Build a map of `docs` for `topic` with the LLM Bottom-Up organizer. `notes` holds, per paper
/// (in the order of `docs`), what an extraction said of it ([`litnav_llm::extract`]), shown under
/// the paper as `notes_are` ("a summary"); it may be empty.
#[allow(clippy::too_many_arguments)]
pub fn bottom_up_map(
    topic: &str,
    topic_vector: &[f32],
    docs: &[Doc],
    notes: &[Option<String>],
    notes_are: &str,
    embed: &(dyn Fn(&[String]) -> Vec<Vec<f32>> + Sync),
    client: &Client,
    options: BottomUpOptions,
) -> Result<(MapNode, BottomUpTrace), Error> {
    // The input's order must not leak into the map (see `organize`): papers in id order.
    let mut order: Vec<usize> = (0..docs.len()).collect();
    order.sort_by(|&a, &b| docs[a].id.cmp(&docs[b].id).then_with(|| docs[a].title.cmp(&docs[b].title)));
    let docs: Vec<Doc> = order.iter().map(|&i| docs[i].clone()).collect();
    let notes: Vec<Option<String>> = order.iter().map(|&i| notes.get(i).cloned().flatten()).collect();
    let mut indices_of: std::collections::HashMap<&str, Vec<usize>> = std::collections::HashMap::new();
    for (i, doc) in docs.iter().enumerate() {
        indices_of.entry(doc.id.as_str()).or_default().push(i);
    }
    let builder =
        Builder { topic, topic_vector, docs: &docs, indices_of, notes: &notes, notes_are, embed, client, options };
    let mut trace = BottomUpTrace::default();
    let all: Vec<usize> = (0..docs.len()).collect();
    let mut root = MapNode::new(topic.to_string(), format!("{} papers on {topic}", docs.len()), 1.0);
    root.id = "root".into();
    root.subtopics = builder.organize_set(&all, &mut trace)?;
    if let Some(threshold) = options.recurse_above {
        builder.deepen(&mut root.subtopics, threshold.max(4), 1, &mut trace)?;
    }
    lift_only_children(&mut root.subtopics);
    distinct_names(&mut root, &|_| None);
    filter_unrelated(&mut root, options.min_relevance);
    assign_ids(&mut root.subtopics, "");
    trace.usage = client.usage();
    Ok((root, trace))
}

/// Nodes built from some papers, with the requests that built them.
type Organized = (Vec<MapNode>, Vec<RequestTrace>);

/// What every step needs.
struct Builder<'a> {
    topic: &'a str,
    topic_vector: &'a [f32],
    docs: &'a [Doc],
    /// The indices in `docs` of each id (a paper set may list one title twice).
    indices_of: std::collections::HashMap<&'a str, Vec<usize>>,
    notes: &'a [Option<String>],
    notes_are: &'a str,
    embed: &'a (dyn Fn(&[String]) -> Vec<Vec<f32>> + Sync),
    client: &'a Client,
    options: BottomUpOptions,
}

impl Builder<'_> {
    /// The categories of `members` (indices into the docs): one request, or one per batch and
    /// then the batches' categories grouped.
    fn organize_set(&self, members: &[usize], trace: &mut BottomUpTrace) -> Result<Vec<MapNode>, Error> {
        let batch = self.options.batch.max(2);
        if members.len() <= batch {
            let (nodes, requests) = self.request_fitting(members)?;
            let split = requests.len() > 1;
            trace.requests.extend(requests);
            return if split { self.merge(nodes, trace) } else { Ok(nodes) };
        }
        let runs = self.coherent_runs(members, batch);
        let answers = self.client.map_parallel(&runs, |run| self.request_fitting(run), Result::is_err, &|_| {});
        let mut categories = Vec::new();
        for answer in answers {
            let (nodes, requests) =
                answer.unwrap_or_else(|| Err(Error::Config("a Bottom-Up thread panicked".into())))?;
            trace.requests.extend(requests);
            categories.extend(nodes);
        }
        self.merge(categories, trace)
    }

    /// `members` cut into runs of at most `batch` papers, consecutive in the average-linkage
    /// dendrogram's leaf order over the members' centered vectors, of sizes that differ by one
    /// at most.
    fn coherent_runs(&self, members: &[usize], batch: usize) -> Vec<Vec<usize>> {
        let vectors: Vec<Vec<f32>> = members.iter().map(|&i| self.docs[i].vector.clone()).collect();
        let order = cluster::agglomerate(&cluster::centered(&vectors), cluster::Linkage::Average).leaf_order();
        let runs = members.len().div_ceil(batch);
        let (size, extra) = (members.len() / runs, members.len() % runs);
        let mut at = 0;
        (0..runs)
            .map(|r| {
                let len = size + usize::from(r < extra);
                let run = order[at..at + len].iter().map(|&o| members[o]).collect();
                at += len;
                run
            })
            .collect()
    }

    /// [`Builder::request`], or — when the endpoint answers that the prompt does not fit its
    /// context (papers with long notes, a model with a short context) — one request per coherent
    /// half, and so on down. No token count is guessed: the endpoint's own tokenizer decides. An
    /// offline replay meets the same split through the cache (a refused request is not cached,
    /// so the halves it led to are looked up instead).
    fn request_fitting(&self, members: &[usize]) -> Result<Organized, Error> {
        let too_long = |e: &Error| match e {
            Error::Status { status: 400, body, .. } => overflows_context(body),
            Error::Offline => true,
            _ => false,
        };
        match self.request(members) {
            Err(e) if members.len() >= 4 && too_long(&e) => {
                let mut nodes = Vec::new();
                let mut requests = Vec::new();
                for half in self.coherent_runs(members, members.len().div_ceil(2)) {
                    let (half_nodes, half_requests) = self.request_fitting(&half)?;
                    nodes.extend(half_nodes);
                    requests.extend(half_requests);
                }
                Ok((nodes, requests))
            }
            answer => answer.map(|(nodes, request)| (nodes, vec![request])),
        }
    }

    /// One Bottom-Up request over `members`: category nodes holding subcategory leaves.
    fn request(&self, members: &[usize]) -> Result<(Vec<MapNode>, RequestTrace), Error> {
        let papers: Vec<PaperText<'_>> = members.iter().map(|&i| self.docs[i].as_text()).collect();
        let notes: Vec<Option<String>> = members.iter().map(|&i| self.notes.get(i).cloned().flatten()).collect();
        let view = PaperView { abstract_chars: self.options.abstract_chars, notes: &notes, notes_are: self.notes_are };
        let vectors: Vec<Vec<f32>> = members.iter().map(|&i| self.docs[i].vector.clone()).collect();
        let content = Content { vectors: &vectors, embed: self.embed };
        match navigator::bottom_up(self.client, self.topic, &papers, &view, Some(&content)) {
            Ok(taxonomy) => {
                let nodes: Vec<MapNode> = taxonomy
                    .categories
                    .iter()
                    .map(|(name, subcategories)| {
                        let leaves: Vec<MapNode> = subcategories
                            .iter()
                            .map(|(sub, papers)| {
                                let global: Vec<usize> = papers.iter().map(|&p| members[p]).collect();
                                self.leaf(sub.clone(), &global)
                            })
                            .collect();
                        self.parent(name.clone(), leaves)
                    })
                    .collect();
                let request = RequestTrace {
                    papers: members.len(),
                    categories: nodes.len(),
                    repaired: taxonomy.repaired,
                    fixed_by_litnav: taxonomy.fixed_by_litnav,
                    organized_offline: None,
                };
                Ok((nodes, request))
            }
            Err(Error::Invalid { problem, .. }) => {
                let nodes = self.offline(members);
                let request = RequestTrace {
                    papers: members.len(),
                    categories: nodes.len(),
                    repaired: true,
                    fixed_by_litnav: None,
                    organized_offline: Some(problem),
                };
                Ok((nodes, request))
            }
            Err(e) => Err(e),
        }
    }

    /// `members` organized by litnav's offline organizer (themes on): its top-level nodes.
    fn offline(&self, members: &[usize]) -> Vec<MapNode> {
        let mut docs: Vec<Doc> = members.iter().map(|&i| self.docs[i].clone()).collect();
        docs.sort_by(|a, b| a.id.cmp(&b.id));
        let options = Options { seed: self.options.seed, ..Options::default() };
        let mut used = std::collections::HashSet::from([self.topic.to_lowercase()]);
        let root = organize_naming(self.topic, self.topic_vector, &docs, self.embed, options, &mut used);
        if root.subtopics.is_empty() { vec![root] } else { root.subtopics }
    }

    /// Categories of one name made one, then grouped into themes, in rounds of at most
    /// [`MERGE_LIMIT`], until one request can see them all; fewer than six are left as they are.
    fn merge(&self, nodes: Vec<MapNode>, trace: &mut BottomUpTrace) -> Result<Vec<MapNode>, Error> {
        let mut nodes = self.merge_namesakes(nodes);
        while nodes.len() > MERGE_LIMIT {
            let before = nodes.len();
            let runs = self.node_runs(&nodes, MERGE_LIMIT);
            let mut slots: Vec<Option<MapNode>> = nodes.into_iter().map(Some).collect();
            nodes = Vec::new();
            for run in runs {
                let group: Vec<MapNode> = run.iter().filter_map(|&i| slots[i].take()).collect();
                nodes.extend(self.themes(group, trace)?);
            }
            if nodes.len() >= before {
                // The model grouped nothing: another round would not either.
                return Ok(nodes);
            }
        }
        if nodes.len() < 6 {
            return Ok(nodes);
        }
        self.themes(nodes, trace)
    }

    /// Nodes cut into consecutive runs of the leaf order of their centroids' dendrogram.
    fn node_runs(&self, nodes: &[MapNode], limit: usize) -> Vec<Vec<usize>> {
        let centroids: Vec<Vec<f32>> = nodes.iter().map(|n| self.centroid(&self.members_of(n))).collect();
        let order = cluster::agglomerate(&centroids, cluster::Linkage::Average).leaf_order();
        order.chunks(limit).map(<[usize]>::to_vec).collect()
    }

    /// One Thematic Organizer request over `categories`; on an unusable answer they stay as
    /// they are.
    fn themes(&self, categories: Vec<MapNode>, trace: &mut BottomUpTrace) -> Result<Vec<MapNode>, Error> {
        let listing: Vec<(String, String)> = categories
            .iter()
            .map(|c| {
                let children: Vec<&str> = c.subtopics.iter().map(|s| s.name.as_str()).collect();
                let about =
                    if children.is_empty() { c.description.clone() } else { format!("covers {}", children.join("; ")) };
                (c.name.clone(), about)
            })
            .collect();
        let count = categories.len();
        let themes = match navigator::organize_themes(self.client, self.topic, &listing) {
            Ok(themes) => themes,
            Err(Error::Invalid { problem, .. }) => {
                trace.groupings.push(GroupingTrace {
                    categories: count,
                    nodes: count,
                    repaired: true,
                    fixed_by_litnav: None,
                    error: Some(problem),
                });
                return Ok(categories);
            }
            Err(e) => return Err(e),
        };
        let mut slots: Vec<Option<MapNode>> = categories.into_iter().map(Some).collect();
        let mut nodes = Vec::new();
        for theme in themes.themes {
            let members: Vec<MapNode> = theme.subtopics.iter().filter_map(|&i| slots.get_mut(i)?.take()).collect();
            let members = self.merge_namesakes(members);
            match <[MapNode; 1]>::try_from(members) {
                Ok([only]) => nodes.push(only),
                Err(members) if members.is_empty() => {}
                Err(members) => nodes.push(self.parent(theme.name, members)),
            }
        }
        // A category the answer left out stays on its own (the navigator already gathers them
        // under "Other subtopics"; this only guards against an index it did not return).
        nodes.extend(slots.into_iter().flatten());
        trace.groupings.push(GroupingTrace {
            categories: count,
            nodes: nodes.len(),
            repaired: themes.repaired,
            fixed_by_litnav: themes.fixed_by_litnav,
            error: None,
        });
        Ok(nodes)
    }

    /// Organize every leaf with more than `threshold` papers again (down to [`MAX_DEPTH`]).
    fn deepen(
        &self,
        nodes: &mut [MapNode],
        threshold: usize,
        depth: usize,
        trace: &mut BottomUpTrace,
    ) -> Result<(), Error> {
        for node in nodes {
            if !node.subtopics.is_empty() {
                self.deepen(&mut node.subtopics, threshold, depth, trace)?;
                continue;
            }
            if node.paper_ids.len() <= threshold || depth > MAX_DEPTH {
                continue;
            }
            let members = self.members_of(node);
            let children = self.organize_set(&members, trace)?;
            // One category holding everything says nothing new: its subcategories are the level.
            let children = match <[MapNode; 1]>::try_from(children) {
                Ok([only]) if !only.subtopics.is_empty() => only.subtopics,
                Ok([only]) => vec![only],
                Err(children) => children,
            };
            if children.len() < 2 {
                continue;
            }
            node.subtopics = children;
            node.papers.clear();
            node.paper_ids.clear();
            node.years.clear();
            node.abstracts.clear();
            self.deepen(&mut node.subtopics, threshold, depth + 1, trace)?;
        }
        Ok(())
    }

    /// Nodes of one name (ignoring case) and kind made one, where the first stood: leaves pool
    /// their papers, inner nodes their children (themselves merged the same way). The batches of
    /// one map often name a category, or a subcategory, alike.
    fn merge_namesakes(&self, nodes: Vec<MapNode>) -> Vec<MapNode> {
        let mut out: Vec<MapNode> = Vec::new();
        for node in nodes {
            let namesake = out.iter().position(|o| {
                o.name.eq_ignore_ascii_case(&node.name) && o.subtopics.is_empty() == node.subtopics.is_empty()
            });
            let Some(at) = namesake else {
                out.push(node);
                continue;
            };
            let first = std::mem::replace(&mut out[at], MapNode::new(String::new(), String::new(), 0.0));
            out[at] = if first.subtopics.is_empty() {
                let mut members = self.members_of(&first);
                members.extend(self.members_of(&node));
                self.leaf(first.name, &members)
            } else {
                let children = self.merge_namesakes(first.subtopics.into_iter().chain(node.subtopics).collect());
                self.parent(first.name, children)
            };
        }
        out
    }

    /// A leaf of `members`, most central first, with its description and relevance.
    fn leaf(&self, name: String, members: &[usize]) -> MapNode {
        let centroid = self.centroid(members);
        let ordered = by_centrality(members, self.docs, &centroid);
        let description =
            format!("{} paper(s). Most representative: {}.", members.len(), most_representative(self.docs, &ordered));
        let mut node = MapNode::new(name, description, self.relevance(&centroid));
        fill_leaf(&mut node, self.docs, &ordered);
        node
    }

    /// An inner node over `children`; its relevance is that of all the papers below it.
    fn parent(&self, name: String, children: Vec<MapNode>) -> MapNode {
        let names: Vec<&str> = children.iter().map(|c| c.name.as_str()).collect();
        let description = format!("Covers {}.", names.join("; "));
        let members: Vec<usize> = children.iter().flat_map(|c| self.members_of(c)).collect();
        let mut node = MapNode::new(name, description, self.relevance(&self.centroid(&members)));
        node.subtopics = children;
        node
    }

    /// Indices of the papers at or below `node` (every paper of a listed id), in index order.
    fn members_of(&self, node: &MapNode) -> Vec<usize> {
        let ids: std::collections::HashSet<String> = node.all_paper_ids().into_iter().collect();
        let mut members: Vec<usize> =
            ids.iter().flat_map(|id| self.indices_of.get(id.as_str()).into_iter().flatten().copied()).collect();
        members.sort_unstable();
        members
    }

    fn centroid(&self, members: &[usize]) -> Vec<f32> {
        let vectors: Vec<&[f32]> = members.iter().map(|&i| self.docs[i].vector.as_slice()).collect();
        litnav_core::vector::unit_mean(&vectors)
    }

    fn relevance(&self, centroid: &[f32]) -> f64 {
        f64::from(litnav_core::vector::dot(centroid, self.topic_vector))
    }
}

/// A node with a single child is replaced by that child (as a theme of one subtopic is in the
/// offline map): a category the model gave one subcategory would only repeat it. Done once the
/// map is whole, so batches' namesakes merge first.
fn lift_only_children(nodes: &mut [MapNode]) {
    for node in nodes {
        lift_only_children(&mut node.subtopics);
        if node.subtopics.len() == 1
            && let Some(only) = node.subtopics.pop()
        {
            *node = only;
        }
    }
}

/// Whether an endpoint's error body says the request is longer than the model's context
/// (llama.cpp: "exceeds the available context size"; OpenAI and vLLM: "maximum context length",
/// `context_length_exceeded`).
fn overflows_context(body: &str) -> bool {
    let body = body.to_lowercase();
    body.contains("context") && (body.contains("exceed") || body.contains("maximum") || body.contains("too long"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use litnav_llm::Config;
    use litnav_llm::fake::{self, Behaviour};
    use serde_json::{Value, json};

    const TOPIC: &str = "uncertainty quantification";

    /// Fifteen "Alpha" papers near one axis and fifteen "Beta" papers near another.
    fn docs() -> Vec<Doc> {
        (0..30)
            .map(|i| {
                let (group, axis) = if i < 15 { ("Alpha", 0) } else { ("Beta", 1) };
                let mut vector = vec![0.05 * (i % 5) as f32, 0.05 * (i % 3) as f32, 0.3];
                vector[axis] = 1.0;
                litnav_core::vector::normalize(&mut vector);
                Doc {
                    id: format!("p{i:02}"),
                    title: format!("{group} paper {i}"),
                    year: Some(2020),
                    abstract_text: Some(format!("About {group}.")),
                    vector,
                }
            })
            .collect()
    }

    fn embed(texts: &[String]) -> Vec<Vec<f32>> {
        texts.iter().map(|t| if t.contains("Alpha") { vec![1.0, 0.0, 0.0] } else { vec![0.0, 1.0, 0.0] }).collect()
    }

    /// The fake model (its context holds at most `fits` papers): categories by group and tens
    /// of i, subcategories by parity (by i mod 4 when a request shows 8 papers or fewer); themes
    /// by the category's first word. A request of six papers showing "paper 29" is answered with
    /// prose, twice.
    fn answer_within(request: &Value, fits: usize) -> Behaviour {
        let task = request["response_format"]["json_schema"]["name"].as_str().unwrap_or("");
        let prompt = request["messages"][1]["content"].as_str().unwrap_or("");
        if task == "thematic_organizer" {
            let mut themes: Vec<(String, Vec<usize>)> = Vec::new();
            for line in prompt.lines() {
                let Some((number, rest)) = line.split_once(". ") else { continue };
                let Ok(number) = number.trim().parse::<usize>() else { continue };
                let word = format!("{} Work", rest.split_whitespace().next().unwrap_or(""));
                match themes.iter_mut().find(|(name, _)| *name == word) {
                    Some((_, members)) => members.push(number),
                    None => themes.push((word, vec![number])),
                }
            }
            let themes: Vec<Value> = themes.iter().map(|(n, m)| json!({"name": n, "subtopics": m})).collect();
            return Behaviour::Answer(json!({ "themes": themes }).to_string());
        }
        if prompt.contains("paper 29\n") && prompt.contains("these 6 papers") {
            return Behaviour::Answer("I would group them by theme.".into());
        }
        let papers: Vec<(usize, String, usize)> = prompt
            .lines()
            .filter_map(|line| {
                let (number, title) = line.strip_prefix('[')?.split_once("] ")?;
                let i = title.rsplit(' ').next()?.parse().ok()?;
                Some((number.parse().ok()?, title.split(' ').next()?.to_string(), i))
            })
            .collect();
        if papers.len() > fits {
            return Behaviour::Status(
                400,
                "request (4646 tokens) exceeds the available context size (4096 tokens)".into(),
            );
        }
        let split = if papers.len() <= 8 { 4 } else { 2 };
        let mut categories: Vec<litnav_llm::navigator::Category> = Vec::new();
        for (number, group, i) in papers {
            let category = format!("{group} Block {}", i / 10);
            let sub = format!("{group} Kind {}", i % split);
            let at = categories.iter().position(|(c, _)| *c == category).unwrap_or_else(|| {
                categories.push((category, Vec::new()));
                categories.len() - 1
            });
            let subs = &mut categories[at].1;
            match subs.iter_mut().find(|(n, _)| *n == sub) {
                Some((_, list)) => list.push(number),
                None => subs.push((sub, vec![number])),
            }
        }
        let categories: Vec<Value> = categories
            .iter()
            .map(|(name, subs)| {
                let subs: Vec<Value> = subs.iter().map(|(n, p)| json!({"name": n, "papers": p})).collect();
                json!({"name": name, "subcategories": subs})
            })
            .collect();
        Behaviour::Answer(json!({ "categories": categories }).to_string())
    }

    fn build(docs: &[Doc], options: BottomUpOptions) -> (MapNode, BottomUpTrace) {
        build_within(docs, options, usize::MAX)
    }

    fn build_within(docs: &[Doc], options: BottomUpOptions, fits: usize) -> (MapNode, BottomUpTrace) {
        let server = fake::serve_with(move |_, request| answer_within(request, fits)).unwrap();
        let client = Client::new(Config { base_url: server.url.clone(), ..Config::default() });
        bottom_up_map(TOPIC, &[0.7, 0.7, 0.14], docs, &[], "", &embed, &client, options).unwrap()
    }

    fn every_paper_once(map: &MapNode) {
        let mut ids = map.all_paper_ids();
        ids.sort();
        assert_eq!(ids, (0..30).map(|i| format!("p{i:02}")).collect::<Vec<_>>());
    }

    #[test]
    fn batches_are_coherent_merged_by_name_and_every_paper_placed_once() {
        let options = BottomUpOptions { batch: 6, ..BottomUpOptions::default() };
        let (map, trace) = build(&docs(), options);
        every_paper_once(&map);
        // Five runs of six papers each; the run with paper 29 was organized offline.
        assert_eq!(trace.requests.len(), 5);
        assert!(trace.requests.iter().all(|r| r.papers == 6));
        assert_eq!(trace.requests.iter().filter(|r| r.organized_offline.is_some()).count(), 1);
        // The runs' categories (namesakes merged) were grouped once, by first word; "Alpha
        // Block 0", named by two runs, became one node whose subcategories of one name pooled
        // their papers.
        assert_eq!(trace.groupings.len(), 1, "{trace:?}");
        let alpha = map.subtopics.iter().find(|n| n.name == "Alpha Work").unwrap();
        let blocks: Vec<&str> = alpha.subtopics.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(blocks, ["Alpha Block 0", "Alpha Block 1"], "{map:#?}");
        assert_eq!(alpha.all_paper_ids().len(), 15);
        let mut kinds: Vec<&str> = alpha.subtopics[0].subtopics.iter().map(|n| n.name.as_str()).collect();
        kinds.sort_unstable();
        assert_eq!(kinds, ["Alpha Kind 0", "Alpha Kind 1", "Alpha Kind 2", "Alpha Kind 3"], "{map:#?}");
        let position = map.subtopics.iter().position(|n| n.name == "Alpha Work").unwrap();
        assert_eq!(alpha.id, format!("t{}", position + 1));
        // Relevance is the cosine of the node's papers' centroid to the topic; leaves list their
        // most central paper first and say so.
        assert!(alpha.relevance > 0.5 && alpha.relevance < 1.0);
        let first = &alpha.subtopics[0].subtopics[0];
        let expected = format!("{} paper(s). Most representative: Alpha paper", first.paper_ids.len());
        assert!(first.description.starts_with(&expected), "{}", first.description);
    }

    #[test]
    fn the_input_order_plays_no_part_and_large_leaves_are_organized_again() {
        let options = BottomUpOptions { batch: 40, recurse_above: Some(4), ..BottomUpOptions::default() };
        let (map, _) = build(&docs(), options);
        let mut reversed = docs();
        reversed.reverse();
        assert_eq!(build(&reversed, options).0, map);
        every_paper_once(&map);
        // One request for all thirty: four blocks, subcategories by parity; those of five papers
        // are organized again by i mod 4.
        fn depth(node: &MapNode) -> usize {
            1 + node.subtopics.iter().map(depth).max().unwrap_or(0)
        }
        assert!(depth(&map) >= 4, "{map:#?}");
    }

    #[test]
    fn a_request_too_long_for_the_context_is_split_into_coherent_halves() {
        let options = BottomUpOptions { batch: 40, ..BottomUpOptions::default() };
        let (map, trace) = build_within(&docs(), options, 12);
        every_paper_once(&map);
        // 30 → 15 + 15 → four requests of 7 or 8; their categories merged as batches' are.
        let sizes: Vec<usize> = trace.requests.iter().map(|r| r.papers).collect();
        assert_eq!(sizes.iter().sum::<usize>(), 30);
        assert!(sizes.iter().all(|&n| n <= 12), "{sizes:?}");
        assert!(overflows_context("This model's maximum context length is 8192 tokens"));
        assert!(!overflows_context("invalid model name"));
    }
}
