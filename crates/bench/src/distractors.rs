//! `litnav bench researcharena --distractors N[,N…]`: the discovery task at the seed's
//! difficulty. ResearchArena searches 12M papers; litbench's pool holds only the 3,967 papers its
//! surveys cite, so every candidate is somebody's reference. Here the litbench papers sit inside a
//! larger corpus: first every real paper of `../shared/datasets` that is not litbench's (AAN's
//! 18,041 ACL papers, titles only; CiteSeer's 3,186 with abstracts), then synthetic ones.
//!
//! A synthetic paper is made from a real distractor (its *source*, chosen by a seeded draw): its
//! title and abstract with [`REPLACED_WORDS`] of the words swapped for words of another real
//! distractor, the source's year, and as its vector the source's MiniLM vector plus seeded
//! Gaussian noise ([`crate::dense::SYNTHETIC_NOISE`] per dimension), renormalized — near the
//! field's real papers, never a copy of a relevant one. Real distractors are encoded once (or
//! taken from the AAN corpus another benchmark built) into a cache kept beside the corpora.
//!
//! Each size is its own corpus under the home (`corpora/researcharena-distractors-N`), built once
//! and reused.

use crate::researcharena::{self, Options, Report};
use crate::{Error, Result};
use litnav_app::{IngestRequest, Progress, Workspace};
use litnav_corpus::readers::{Item, read_file};
use litnav_corpus::{Paper, ReadOptions};
use litnav_embed::cache::{VectorCache, corpus_cache_path};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Share of a synthetic paper's words taken from another paper.
pub const REPLACED_WORDS: f64 = 0.3;

/// ResearchArena's published discovery and selection over 12.0M S2ORC papers (Tables 2 and 3,
/// the Title baseline): (retriever, R@100, nDCG@10).
pub const PUBLISHED: [(&str, f64, f64); 2] = [("BM25", 0.1338, 0.0711), ("BGE", 0.2697, 0.1678)];

/// One corpus size's run.
#[derive(Debug, Clone, Serialize)]
pub struct AtSize {
    /// Distractors asked for.
    pub distractors: usize,
    /// Of them, real papers.
    pub real: usize,
    /// Of them, synthetic.
    pub synthetic: usize,
    /// Papers in the corpus.
    pub papers: usize,
    /// ResearchArena's tasks on it.
    pub report: Report,
}

/// Every size's run, with the published numbers beside them.
#[derive(Debug, Clone, Serialize)]
pub struct DistractorReport {
    /// By size, ascending.
    pub sizes: Vec<AtSize>,
    /// ResearchArena's Title baseline over 12.0M papers: (retriever, R@100, nDCG@10).
    pub published: Vec<(String, f64, f64)>,
}

/// Run ResearchArena's tasks (as `options` say) on litbench inside each corpus size.
pub fn run(
    workspace: &Workspace,
    sizes: &[usize],
    options: &Options<'_>,
    progress: &dyn Progress,
) -> Result<DistractorReport> {
    let mut sorted = sizes.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut runs = Vec::new();
    for size in sorted {
        let built = build(workspace, size, progress)?;
        let session = litnav_app::CorpusSession::open(&built.dir)?;
        let papers = session.len();
        let report = researcharena::run(workspace, &session, options)?;
        runs.push(AtSize { distractors: size, real: built.real, synthetic: built.synthetic, papers, report });
    }
    let published = PUBLISHED.iter().map(|(name, recall, ndcg)| (name.to_string(), *recall, *ndcg)).collect();
    Ok(DistractorReport { sizes: runs, published })
}

/// A corpus of litbench and `size` distractors.
struct Built {
    dir: PathBuf,
    real: usize,
    synthetic: usize,
}

/// The corpus of litbench with `size` distractors, built now if it does not exist.
fn build(workspace: &Workspace, size: usize, progress: &dyn Progress) -> Result<Built> {
    let datasets = workspace.settings().datasets()?.to_path_buf();
    let pool = real_distractors(&datasets)?;
    let real = size.min(pool.len());
    let synthetic = size - real;
    let name = format!("researcharena-distractors-{size}");
    let home = workspace.settings().home.clone();
    let dir = home.join("corpora").join(&name);
    if litnav_corpus::Corpus::locate(&dir).is_ok() {
        return Ok(Built { dir, real, synthetic });
    }
    progress.stage(&format!("building litbench with {real} real and {synthetic} synthetic distractors (once)"));
    let shared = home.join("corpora").join("distractor-vectors.bin");
    let sources = if synthetic > 0 { &pool[..] } else { &pool[..real] };
    let mut cache = real_vectors(workspace, &shared, sources, progress)?;
    let made = synthesize(&pool, &cache, synthetic, workspace.settings().seed)?;
    cache.append_all(
        made.iter()
            .map(|(paper, vector)| Ok((VectorCache::key(litnav_embed::MODEL_NAME, &paper.text()), vector.clone()))),
    )?;
    let file = home.join("corpora").join(format!("{name}.jsonl"));
    write_papers(&file, pool[..real].iter().chain(made.iter().map(|(paper, _)| paper)))?;
    let litbench = datasets.join("litbench");
    let mut files = vec![litbench.join("corpus.jsonl"), litbench.join("topics.jsonl")];
    if size > 0 {
        files.push(file.clone());
    }
    let request = IngestRequest { files, ..IngestRequest::default() };
    let built = workspace.dataset_corpus(&name, &request, progress);
    let _ = std::fs::remove_file(&file);
    let dir = built?;
    // The corpus gets every distractor's vector it lacks (litbench's came from the built-in corpus).
    let corpus = litnav_corpus::Corpus::open(&dir)?;
    let mut target = VectorCache::open(&corpus_cache_path(&dir), litnav_embed::DIM)?;
    target.copy_from(&cache, corpus.papers()?.iter().map(|p| VectorCache::key(litnav_embed::MODEL_NAME, &p.text())))?;
    Ok(Built { dir, real, synthetic })
}

/// Every real paper of the datasets that is not litbench's, in a fixed order: AAN, then CiteSeer.
pub fn real_distractors(datasets: &Path) -> Result<Vec<Paper>> {
    let mut papers = Vec::new();
    for file in ["citations/aan/papers.jsonl", "citations/citeseer/papers.jsonl"] {
        let contents = read_file(&datasets.join(file), ReadOptions::default())?;
        papers.extend(contents.items.into_iter().filter_map(|item| match item {
            Item::Paper(record) => Some(record.paper),
            _ => None,
        }));
    }
    Ok(papers)
}

/// The shared cache of distractor vectors, holding every one of `papers`' (taken from the AAN
/// corpus's cache when another benchmark built it, else encoded now).
pub fn real_vectors(
    workspace: &Workspace,
    shared: &Path,
    papers: &[Paper],
    progress: &dyn Progress,
) -> Result<VectorCache> {
    let mut cache = VectorCache::open(shared, litnav_embed::DIM)?;
    let aan = corpus_cache_path(&workspace.settings().home.join("corpora").join("aan"));
    if aan.is_file() {
        let known = VectorCache::open(&aan, litnav_embed::DIM)?;
        cache.copy_from(&known, papers.iter().map(|p| VectorCache::key(litnav_embed::MODEL_NAME, &p.text())))?;
    }
    let texts: Vec<String> = papers.iter().map(Paper::text).collect();
    let encoder = workspace.encoder(progress)?;
    litnav_embed::embed_into_cache(encoder, &mut cache, &texts, |done, total| {
        progress.advance(done, total);
        std::ops::ControlFlow::Continue(())
    })?;
    Ok(cache)
}

/// `count` synthetic papers made from `pool` (see the module's note), with their vectors.
fn synthesize(pool: &[Paper], cache: &VectorCache, count: usize, seed: u64) -> Result<Vec<(Paper, Vec<f32>)>> {
    let mut maker = Synthesizer::new(pool, cache, seed);
    (0..count).map(|i| maker.paper(i)).collect()
}

/// Makes synthetic papers from a pool of real ones with their vectors (see the module's note),
/// one at a time: the same pool and seed give the same papers.
pub struct Synthesizer<'a> {
    pool: &'a [Paper],
    cache: &'a VectorCache,
    draws: litnav_core::rng::SplitMix64,
    noise: litnav_core::rng::SplitMix64,
}

impl<'a> Synthesizer<'a> {
    /// A maker drawing from `pool`, whose every paper has its vector in `cache`.
    pub fn new(pool: &'a [Paper], cache: &'a VectorCache, seed: u64) -> Synthesizer<'a> {
        let (draws, noise) = (litnav_core::rng::SplitMix64(seed), litnav_core::rng::SplitMix64(seed ^ 0x5eed));
        Synthesizer { pool, cache, draws, noise }
    }

    /// The `i`-th synthetic paper (id `d` and `i` in eight digits), with its vector.
    pub fn paper(&mut self, i: usize) -> Result<(Paper, Vec<f32>)> {
        let pool = self.pool;
        let draws = &mut self.draws;
        let mut draw = |n: usize| draws.below(n.max(1));
        let source = &pool[draw(pool.len())];
        let donor: Vec<String> = pool[draw(pool.len())].text().split_whitespace().map(str::to_string).collect();
        let mut mix = |text: &str| -> String {
            let words: Vec<String> = text
                .split_whitespace()
                .map(|word| {
                    let replace = (draw(1_000_000) as f64) < REPLACED_WORDS * 1_000_000.0 && !donor.is_empty();
                    if replace { donor[draw(donor.len())].clone() } else { word.to_string() }
                })
                .collect();
            words.join(" ")
        };
        let title = mix(&source.title);
        let abstract_text = source.abstract_text.as_deref().map(&mut mix);
        let paper = Paper {
            id: format!("d{i:08}"),
            title: if title.is_empty() { source.title.clone() } else { title },
            abstract_text,
            year: source.year,
            ..Paper::default()
        };
        let base = self
            .cache
            .get(&VectorCache::key(litnav_embed::MODEL_NAME, &source.text()))
            .ok_or_else(|| Error::internal(format!("no vector for distractor `{}`", source.id)))?;
        Ok((paper, crate::dense::near(base, &mut self.noise)))
    }
}

/// Write papers as litnav JSON lines.
fn write_papers<'a>(path: &Path, papers: impl Iterator<Item = &'a Paper>) -> Result<()> {
    let file = std::fs::File::create(path).map_err(|e| Error::io(path, &e))?;
    let mut out = std::io::BufWriter::new(file);
    for paper in papers {
        writeln!(out, "{}", paper_line(paper)).map_err(|e| Error::io(path, &e))?;
    }
    out.flush().map_err(|e| Error::io(path, &e))
}

/// A paper as a litnav JSON line (its id, title, abstract, year and venue).
pub fn paper_line(paper: &Paper) -> serde_json::Value {
    serde_json::json!({
        "id": paper.id,
        "title": paper.title,
        "abstract": paper.abstract_text,
        "year": paper.year,
        "venue": paper.venue,
    })
}

impl std::fmt::Display for DistractorReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "ResearchArena's discovery with litbench inside a larger corpus: mean over {} topics",
            self.sizes.first().map_or(0, |s| s.report.topics)
        )?;
        writeln!(
            f,
            "{:>10} {:>10} {:>10} {:<12} {:<10} {:>8} {:>8}",
            "papers", "real", "synthetic", "baseline", "retrieval", "R@100", "nDCG@10"
        )?;
        for size in &self.sizes {
            for row in &size.report.rows {
                writeln!(
                    f,
                    "{:>10} {:>10} {:>10} {:<12} {:<10} {:>8.4} {:>8.4}",
                    size.papers,
                    size.real,
                    size.synthetic,
                    row.baseline,
                    row.retrieval,
                    row.mean("recall@100"),
                    row.mean("ndcg@10")
                )?;
            }
        }
        for (retriever, recall, ndcg) in &self.published {
            writeln!(
                f,
                "{:>10} {:>10} {:>10} {:<12} {:<10} {:>8.4} {:>8.4}   (ResearchArena, S2ORC, 7.9K surveys)",
                "12.0M", "", "", "title", retriever, recall, ndcg
            )?;
        }
        Ok(())
    }
}
