//! Exact dense retrieval: cosine similarity between a query vector and every paper vector
//! (vectors are unit length, so cosine is the dot product), top-k by a partial selection.
//!
//! A corpus's vectors are read through its rows file ([`litnav_embed::rows`]), memory-mapped:
//! opening costs nothing, and a search touches only the rows it scores. The file is derived
//! from the vector cache once per generation ([`DenseIndex::open`]).

use crate::{Error, Filter, Hit, Result};
use litnav_core::bytes::fnv1a;
use litnav_core::vector::dot;
use litnav_corpus::{Paper, PaperScan};
use litnav_embed::cache::{Key, VectorCache};
use litnav_embed::rows::{MappedRows, RowsWriter, Shape, quantize, rows_path};
use std::path::Path;

/// What dense retrieval needs to know about a paper besides its vector.
#[derive(Debug, Clone)]
pub struct DocMeta {
    /// Corpus id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Year.
    pub year: Option<i32>,
    /// Survey flag.
    pub is_survey: bool,
}

/// The vectors themselves: given in memory, or mapped from a corpus's rows file. Both keep each
/// row in full precision and quantized to int8 (see [`litnav_embed::rows`]).
enum Vectors {
    Owned { floats: Vec<f32>, scales: Vec<f32>, quantized: Vec<i8> },
    Mapped(MappedRows),
}

/// Paper vectors in corpus order, with their metadata.
pub struct DenseIndex {
    docs: Vec<DocMeta>,
    vectors: Vectors,
    dim: usize,
    rows: std::collections::HashMap<String, usize>,
}

/// Where a corpus's vectors come from, for [`DenseIndex::open`].
pub struct VectorSource<'a> {
    /// The corpus directory (its `vectors/` holds the rows files).
    pub corpus_dir: &'a Path,
    /// The generation the papers are of.
    pub generation: u64,
    /// The name of the model that made the vectors.
    pub model: &'a str,
    /// Their dimension.
    pub dim: usize,
    /// The vector cache they are kept in (by model and text).
    pub cache: &'a Path,
}

impl DenseIndex {
    /// The index of `papers` (a generation's, in corpus order) over their rows file. When the
    /// file is missing, for other papers, or damaged, it is written from the vector cache, read
    /// through once without holding it; if papers lack a vector there, `fill` is called with
    /// their number first (to encode them into the cache) and the cache read again. Rows files of
    /// earlier generations are removed once a newer one is written (a reader that mapped one
    /// keeps it until it lets go). Fails with a count of missing vectors and the command that
    /// computes them.
    pub fn open<E: From<Error>>(
        papers: &dyn PaperScan,
        source: VectorSource<'_>,
        fill: impl FnOnce(usize) -> std::result::Result<(), E>,
    ) -> std::result::Result<DenseIndex, E> {
        let path = rows_path(source.corpus_dir, source.model, source.generation);
        let mut docs = Vec::with_capacity(papers.count());
        papers
            .each_paper(&mut |_, paper| {
                docs.push(DocMeta::of(paper));
                Ok(())
            })
            .map_err(Error::from)?;
        let shape = Shape { dim: source.dim, rows: docs.len(), fingerprint: papers_fingerprint(&docs, &source) };
        // A damaged file is derived data: rebuilt, not reported.
        let rows = match MappedRows::open(&path, shape) {
            Ok(Some(rows)) => rows,
            _ => {
                match write_rows(papers, &source, &path, shape) {
                    Err(Error::MissingVectors { missing, .. }) => {
                        fill(missing)?;
                        write_rows(papers, &source, &path, shape)?;
                    }
                    other => other?,
                }
                remove_older_rows(&source);
                let read_back = MappedRows::open(&path, shape).map_err(Error::Embed)?;
                read_back.ok_or_else(|| {
                    Error::Embed(litnav_embed::Error::Model {
                        path: path.clone(),
                        message: "was written but does not read back".into(),
                    })
                })?
            }
        };
        Ok(DenseIndex::with_vectors(docs, Vectors::Mapped(rows), source.dim))
    }

    /// An index over given metadata and row-major vectors (`docs.len() × dim`), in memory.
    pub fn from_parts(docs: Vec<DocMeta>, floats: Vec<f32>, dim: usize) -> DenseIndex {
        assert_eq!(docs.len() * dim, floats.len(), "one vector per document");
        let (mut scales, mut quantized) = (Vec::with_capacity(docs.len()), Vec::with_capacity(floats.len()));
        for vector in floats.chunks_exact(dim.max(1)) {
            let (scale, q) = quantize(vector);
            scales.push(scale);
            quantized.extend(q);
        }
        DenseIndex::with_vectors(docs, Vectors::Owned { floats, scales, quantized }, dim)
    }

    fn with_vectors(docs: Vec<DocMeta>, vectors: Vectors, dim: usize) -> DenseIndex {
        let rows = docs.iter().enumerate().map(|(i, d)| (d.id.clone(), i)).collect();
        DenseIndex { docs, vectors, dim, rows }
    }

    /// Number of papers.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Vector dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The vector of document `i`.
    pub fn vector(&self, i: usize) -> &[f32] {
        match &self.vectors {
            Vectors::Owned { floats, .. } => &floats[i * self.dim..(i + 1) * self.dim],
            Vectors::Mapped(rows) => rows.row(i),
        }
    }

    /// Document `i`'s int8 vector and its scale: dot products with a query quantized the same
    /// way ([`litnav_embed::rows::dot_quantized`]) come close to the exact ones, a quarter of the
    /// bytes read (approximate scans rescore their best with [`DenseIndex::vector`]).
    pub fn quantized(&self, i: usize) -> (f32, &[i8]) {
        match &self.vectors {
            Vectors::Owned { scales, quantized, .. } => (scales[i], &quantized[i * self.dim..(i + 1) * self.dim]),
            Vectors::Mapped(rows) => rows.quantized(i),
        }
    }

    /// The vector of the document with this corpus id.
    pub fn vector_of(&self, id: &str) -> Option<&[f32]> {
        self.rows.get(id).map(|&i| self.vector(i))
    }

    /// Metadata of document `i`.
    pub fn doc(&self, i: usize) -> &DocMeta {
        &self.docs[i]
    }

    /// Exact top-k documents for a unit query vector, filtered; ties broken by id.
    pub fn search(&self, query: &[f32], k: usize, filter: Filter) -> Vec<Hit> {
        let candidates = (0..self.docs.len()).filter(|&i| self.admits(i, filter));
        let scored: Vec<(f32, usize)> = candidates.map(|i| (dot(query, self.vector(i)), i)).collect();
        self.top_k(scored, k)
    }

    /// Whether document `i` passes the filter.
    pub fn admits(&self, i: usize, filter: Filter) -> bool {
        let doc = &self.docs[i];
        filter.admits(doc.year, doc.is_survey)
    }

    /// The best `k` of scored documents as hits, by score then id.
    pub fn top_k(&self, mut scored: Vec<(f32, usize)>, k: usize) -> Vec<Hit> {
        let order = |a: &(f32, usize), b: &(f32, usize)| {
            b.0.total_cmp(&a.0).then_with(|| self.docs[a.1].id.cmp(&self.docs[b.1].id))
        };
        if k < scored.len() {
            scored.select_nth_unstable_by(k, order);
            scored.truncate(k);
        }
        scored.sort_by(order);
        scored
            .into_iter()
            .map(|(score, i)| {
                let doc = &self.docs[i];
                Hit { id: doc.id.clone(), title: doc.title.clone(), year: doc.year, score, known: None }
            })
            .collect()
    }
}

impl DocMeta {
    fn of(paper: &Paper) -> DocMeta {
        DocMeta { id: paper.id.clone(), title: paper.title.clone(), year: paper.year, is_survey: paper.is_survey }
    }
}

/// What a rows file is built for: the model, the generation and every paper's id, in order.
fn papers_fingerprint(papers: &[DocMeta], source: &VectorSource<'_>) -> u64 {
    let mut bytes = Vec::with_capacity(papers.len() * 24);
    bytes.extend_from_slice(source.model.as_bytes());
    bytes.extend_from_slice(&source.generation.to_le_bytes());
    for paper in papers {
        bytes.extend_from_slice(paper.id.as_bytes());
        bytes.push(0);
    }
    fnv1a(&bytes)
}

/// Write every paper's vector into the rows file at `path`, reading the vector cache once
/// through (memory: the papers' keys, sorted, and one record); nothing is left behind when a
/// paper has no vector there.
fn write_rows(papers: &dyn PaperScan, source: &VectorSource<'_>, path: &Path, shape: Shape) -> Result<()> {
    // Papers with the same text share a key, and so a vector.
    let mut wanted: Vec<(Key, usize)> = Vec::with_capacity(papers.count());
    papers.each_paper(&mut |row, paper| {
        wanted.push((VectorCache::key(source.model, &paper.text()), row));
        Ok(())
    })?;
    wanted.sort_unstable();
    let mut writer = RowsWriter::create(path, shape)?;
    let mut failure = None;
    VectorCache::scan(source.cache, source.dim, |key, vector| {
        let start = wanted.partition_point(|(k, _)| k < key);
        for &(_, row) in wanted[start..].iter().take_while(|(k, _)| k == key) {
            // A key written twice keeps its first vector, as the cache does.
            if failure.is_none() && !writer.has(row) {
                failure = writer.put(row, vector).err();
            }
        }
    })?;
    if let Some(e) = failure {
        return Err(e.into());
    }
    let missing = writer.unwritten();
    if missing > 0 {
        return Err(Error::MissingVectors { dir: source.corpus_dir.to_path_buf(), missing, papers: papers.count() });
    }
    Ok(writer.finish()?)
}

/// Remove the rows files of `source.model` for generations before `source.generation`.
fn remove_older_rows(source: &VectorSource<'_>) {
    let prefix = format!("{}.g", litnav_embed::cache::file_safe(source.model));
    remove_older_generations(&source.corpus_dir.join("vectors"), &prefix, ".rows", source.generation);
}

/// Remove the files of `dir` named `<prefix><generation><suffix>` whose generation is before
/// `current` (a reader that still has one open keeps it until it lets go).
pub fn remove_older_generations(dir: &Path, prefix: &str, suffix: &str, current: u64) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let generation = name.strip_prefix(prefix).and_then(|rest| rest.strip_suffix(suffix)?.parse::<u64>().ok());
        if generation.is_some_and(|g| g < current) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
