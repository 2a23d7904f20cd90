//! `litnav map`: organize a topic's papers into a browsable map.

use super::embed::{ModelArgs, ensure_vectors};
use anyhow::{Context, Result, bail};
use litnav_corpus::{Catalog, Corpus, MergeReport, Paper, ReadOptions, readers};
use litnav_embed::cache::{VectorCache, corpus_cache_path};
use litnav_organize::{Doc, MapNode, Options, organize, render};
use litnav_search::hybrid::Fusion;
use litnav_search::{Mode, Retriever, SearchQuery};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MethodArg {
    /// Average-linkage (UPGMA) agglomerative clustering on cosine distance.
    Average,
    /// Ward agglomerative clustering.
    Ward,
    /// Knowledge Navigator's pipeline: UMAP (seeded) + Gaussian mixture, soft assignments kept.
    Navigator,
    /// Seeded spherical k-means.
    Kmeans,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The topic, in plain words (also the map's title).
    #[arg(long, short)]
    topic: String,
    /// Corpus to retrieve the topic's papers from (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR", conflicts_with = "papers")]
    corpus: Option<PathBuf>,
    /// How many papers to retrieve for the topic (hybrid BM25 + dense search).
    #[arg(long, short, default_value_t = 200)]
    k: usize,
    /// Organize exactly these papers instead of retrieving (Bottom-Up mode): any file litnav
    /// ingests (litbench JSONL, OpenAlex, BibTeX, TaxoBench data.jsonl …).
    #[arg(long, value_name = "FILE")]
    papers: Option<PathBuf>,
    /// With --papers: keep only the papers of this topic of the file — a TaxoBench instance id
    /// (`--papers data.jsonl --instance 3`) or any topic id the file defines.
    #[arg(long, value_name = "ID", requires = "papers")]
    instance: Option<String>,
    /// Write the map as JSON (TaxoBench-compatible tree with ids, descriptions, relevance).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Write a Markdown outline.
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// Write a self-contained HTML page to browse the map.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Seed of every stochastic step.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Move subtopics whose cosine to the topic is below this under a final "Filtered" node
    /// (default 0.35 when retrieving from a corpus, 0 — keep all — with --papers).
    #[arg(long, value_name = "COSINE")]
    min_relevance: Option<f64>,
    /// Subtopic clustering: average-linkage agglomerative (the most even on litnav's organizer
    /// benchmarks), Ward agglomerative (ResearchArena's baseline), Knowledge Navigator's UMAP +
    /// Gaussian mixture, or k-means.
    #[arg(long, value_enum, default_value_t = MethodArg::Average)]
    method: MethodArg,
    /// Organize subtopics with more papers than this again, into deeper levels (up to three).
    #[arg(long, value_name = "PAPERS")]
    recurse_above: Option<usize>,
    #[command(flatten)]
    model: ModelArgs,
    #[command(flatten)]
    llm: super::llm::LlmArgs,
    /// Write what the LLM stage did (each cluster's reading, repairs, tokens) as JSON.
    #[arg(long, value_name = "FILE")]
    llm_trace: Option<PathBuf>,
    /// Print the map as JSON on standard output.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<()> {
    let client = args.llm.client()?;
    let encoder = args.model.load()?;
    let docs = match &args.papers {
        Some(file) => docs_from_file(file, args.instance.as_deref(), &encoder)?,
        None => {
            let dir = crate::defaults::corpus(args.corpus.as_deref())?;
            docs_from_corpus(&dir, &args.topic, args.k, &encoder)?
        }
    };
    if docs.is_empty() {
        bail!("no papers to organize for {:?}", args.topic);
    }
    let topic_vector = encoder.embed(&[args.topic.as_str()]).pop().unwrap_or_default();
    let embed = |texts: &[String]| encoder.embed(texts);
    let bar = crate::progress::spinner(&format!("organizing {} papers", docs.len()));
    let method = match args.method {
        MethodArg::Ward => litnav_organize::Method::Ward,
        MethodArg::Average => litnav_organize::Method::Average,
        MethodArg::Kmeans => litnav_organize::Method::KMeans,
        MethodArg::Navigator => litnav_organize::Method::Navigator,
    };
    let min_relevance = args.min_relevance.unwrap_or(if args.papers.is_some() { 0.0 } else { 0.35 });
    let options =
        Options { seed: args.seed, method, min_relevance, recurse_above: args.recurse_above, ..Options::default() };
    let mut map = organize(&args.topic, &topic_vector, &docs, &embed, options);
    bar.finish_and_clear();
    if let Some(client) = &client {
        let bar = crate::progress::spinner("naming and grouping subtopics with the LLM");
        let refined = litnav_organize::llm::refine(map, &args.topic, client, args.llm.llm_papers);
        bar.finish_and_clear();
        let (refined, trace) = refined?;
        map = refined;
        write_file(args.llm_trace.as_deref(), &serde_json::to_string_pretty(&trace)?)?;
    }
    let json = serde_json::to_string_pretty(&map)?;
    write_file(args.out.as_deref(), &json)?;
    write_file(args.markdown.as_deref(), &render::markdown(&map))?;
    write_file(args.html.as_deref(), &render::html(&map))?;
    if args.json {
        return super::print_json(&map);
    }
    print_outline(&map);
    Ok(())
}

/// Write `text` to `path` (when given) through a temporary file and a rename, so a reader never
/// sees half a map.
fn write_file(path: Option<&Path>, text: &str) -> Result<()> {
    let Some(path) = path else { return Ok(()) };
    litnav_corpus::store::write_atomically(path, text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Print a map as an indented outline.
pub fn print_outline(map: &MapNode) {
    println!("{} — {}", map.name, map.description);
    for theme in &map.subtopics {
        print_node(theme, 1);
    }
}

fn print_node(node: &MapNode, depth: usize) {
    let indent = "  ".repeat(depth);
    let papers = node.paper_ids.len();
    let count = match papers {
        0 => String::new(),
        1 => " (1 paper)".to_string(),
        _ => format!(" ({papers} papers)"),
    };
    println!("{indent}{} {}{count}  [relevance {:.2}]", node.id, node.name, node.relevance);
    for child in &node.subtopics {
        print_node(child, depth + 1);
    }
}

fn to_doc(paper: &Paper, vector: Vec<f32>) -> Doc {
    Doc {
        id: paper.id.clone(),
        title: paper.title.clone(),
        year: paper.year,
        abstract_text: paper.abstract_text.clone(),
        vector,
    }
}

/// The topic's top-k papers by hybrid retrieval, with their corpus vectors.
pub fn docs_from_corpus(dir: &Path, topic: &str, k: usize, encoder: &litnav_embed::Encoder) -> Result<Vec<Doc>> {
    CorpusDocs::open(dir, encoder)?.for_topic(topic, k)
}

/// A corpus opened once for many lookups of documents with vectors: by topic (hybrid retrieval)
/// or by id. Benchmarks that visit many topics open it once, not per topic.
pub struct CorpusDocs {
    corpus: Corpus,
    /// Position of each paper in `corpus.papers()`, by id.
    index: std::collections::HashMap<String, usize>,
    retriever: Retriever,
    cache: VectorCache,
}

impl CorpusDocs {
    /// Open the corpus at `dir`, computing its paper vectors first if they are missing.
    pub fn open(dir: &Path, encoder: &litnav_embed::Encoder) -> Result<CorpusDocs> {
        ensure_vectors(dir, encoder)?;
        let corpus = Corpus::open(dir)?;
        let index = corpus.papers().iter().enumerate().map(|(i, p)| (p.id.clone(), i)).collect();
        Ok(CorpusDocs {
            corpus,
            index,
            retriever: Retriever::open(dir, Some(encoder.clone()))?,
            cache: VectorCache::open(&corpus_cache_path(dir), encoder.dim())?,
        })
    }

    /// Ids of the query's top-k papers by hybrid retrieval.
    pub fn search(&self, query: &str, k: usize) -> Result<Vec<String>> {
        let hits =
            self.retriever.search(&SearchQuery { k, ..SearchQuery::new(query) }, Mode::Hybrid(Fusion::default()))?;
        Ok(hits.into_iter().map(|hit| hit.id).collect())
    }

    /// The topic's top-k papers by hybrid retrieval.
    pub fn for_topic(&self, topic: &str, k: usize) -> Result<Vec<Doc>> {
        Ok(self.for_ids(&self.search(topic, k)?))
    }

    /// The corpus paper with this id.
    pub fn paper(&self, id: &str) -> Option<&Paper> {
        self.index.get(id).map(|&i| &self.corpus.papers()[i])
    }

    /// The papers with these ids (in this order; unknown ids and papers without a vector skipped).
    pub fn for_ids(&self, ids: &[String]) -> Vec<Doc> {
        ids.iter()
            .filter_map(|id| {
                let paper = self.paper(id)?;
                let vector = self.cache.get(&VectorCache::key(litnav_embed::MODEL_NAME, &paper.text()))?.to_vec();
                Some(to_doc(paper, vector))
            })
            .collect()
    }
}

/// Every paper of a file, embedded through litnav's paper-vector cache.
fn docs_from_file(file: &Path, instance: Option<&str>, encoder: &litnav_embed::Encoder) -> Result<Vec<Doc>> {
    let contents = readers::read_file(file, ReadOptions::default())?;
    let mut catalog = Catalog::default();
    catalog.merge(contents.items, &mut MergeReport::default());
    let papers: Vec<&Paper> = match instance {
        None => catalog.papers().iter().collect(),
        Some(id) => {
            let wanted = [id.to_string(), format!("taxobench:{id}")];
            let kept: Vec<&Paper> =
                catalog.papers().iter().filter(|p| p.topics.iter().any(|t| wanted.contains(t))).collect();
            if kept.is_empty() {
                let known: Vec<&str> = catalog.topics().iter().map(|t| t.id.as_str()).take(20).collect();
                bail!(
                    "{} has no papers of instance or topic `{id}` (it defines: {})",
                    file.display(),
                    known.join(", ")
                );
            }
            kept
        }
    };
    let texts: Vec<String> = papers.iter().map(|p| p.text()).collect();
    let cache = crate::defaults::home().join("cache").join("papers.bin");
    let vectors = litnav_embed::embed_cached(encoder, &texts, &cache);
    Ok(papers.iter().zip(vectors).map(|(p, v)| to_doc(p, v)).collect())
}
