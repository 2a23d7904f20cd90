//! Exact dense retrieval: cosine similarity between a query vector and every paper vector
//! (vectors are unit length, so cosine is the dot product), top-k by a partial selection.
//!
//! A corpus's vectors are read through its rows file ([`litnav_embed::rows`]), memory-mapped:
//! opening costs nothing, and a search touches only the rows it scores. The file is derived
//! from the vector cache once per generation ([`DenseIndex::open`]).

use crate::{Error, Filter, Hit, Result};
use litnav_core::bytes::fnv1a;
use litnav_core::vector::dot;
use litnav_corpus::{Corpus, Lease, Paper, PaperFacts, PaperScan, Records};
use litnav_embed::cache::{Key, VectorCache};
use litnav_embed::rows::{MappedRows, RowsWriter, Shape, quantize, rows_path};
use std::collections::HashMap;
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

/// Who the rows are: given in memory, or a corpus's records read when a hit needs its id and
/// title (what filters read — years and survey flags — is in memory either way).
enum Docs {
    Owned { docs: Vec<DocMeta>, rows: std::collections::HashMap<String, usize> },
    Records { records: Records, _lease: Lease },
}

/// Paper vectors in corpus order, with their metadata.
pub struct DenseIndex {
    docs: Docs,
    facts: PaperFacts,
    vectors: Vectors,
    dim: usize,
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
    /// The index of `corpus`'s papers over their rows file. Opening reads what filters need
    /// (eight bytes a paper, [`Corpus::facts`]) and the ids of 64 papers; ids and titles of hits
    /// are read from the records as searches need them. When the rows file is missing, for other
    /// papers, or damaged, it is written from the vector cache, read through once without
    /// holding it; if papers lack a vector there, `fill` is called with their number first (to
    /// encode them into the cache) and the cache read again. Rows files of earlier generations
    /// are removed once a newer one is written (a reader that mapped one keeps it until it lets
    /// go). Fails with a count of missing vectors and the command that computes them.
    pub fn open<E: From<Error>>(
        corpus: &Corpus,
        source: VectorSource<'_>,
        fill: impl FnOnce(usize) -> std::result::Result<(), E>,
    ) -> std::result::Result<DenseIndex, E> {
        let path = rows_path(source.corpus_dir, source.model, source.generation);
        let records = corpus.records().map_err(Error::from)?;
        let facts = corpus.facts().map_err(Error::from)?;
        let shape = Shape { dim: source.dim, rows: records.len(), fingerprint: papers_fingerprint(&records, &source)? };
        // A damaged file is derived data: rebuilt, not reported.
        let rows = match MappedRows::open(&path, shape) {
            Ok(Some(rows)) => rows,
            _ => {
                match write_rows(corpus, &source, &path, shape) {
                    Err(Error::MissingVectors { missing, .. }) => {
                        fill(missing)?;
                        write_rows(corpus, &source, &path, shape)?;
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
        let docs = Docs::Records { records, _lease: corpus.lease().clone() };
        Ok(DenseIndex { docs, facts, vectors: Vectors::Mapped(rows), dim: source.dim })
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
        let facts = PaperFacts {
            years: docs.iter().map(|d| d.year).collect(),
            surveys: docs.iter().map(|d| d.is_survey).collect(),
        };
        let rows = docs.iter().enumerate().map(|(i, d)| (d.id.clone(), i)).collect();
        let vectors = Vectors::Owned { floats, scales, quantized };
        DenseIndex { docs: Docs::Owned { docs, rows }, facts, vectors, dim }
    }

    /// Number of papers.
    pub fn len(&self) -> usize {
        self.facts.years.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.facts.years.is_empty()
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
    pub fn vector_of(&self, id: &str) -> Result<Option<&[f32]>> {
        let row = match &self.docs {
            Docs::Owned { rows, .. } => rows.get(id).copied(),
            Docs::Records { records, .. } => records.position(id)?,
        };
        Ok(row.map(|i| self.vector(i)))
    }

    /// The vectors of the documents with these ids that have one, by id.
    pub fn vectors_of<'i>(&self, ids: impl IntoIterator<Item = &'i str>) -> Result<HashMap<String, &[f32]>> {
        let mut found = HashMap::new();
        for id in ids {
            if let Some(vector) = self.vector_of(id)? {
                found.insert(id.to_string(), vector);
            }
        }
        Ok(found)
    }

    /// Metadata of document `i`.
    pub fn doc(&self, i: usize) -> Result<DocMeta> {
        match &self.docs {
            Docs::Owned { docs, .. } => Ok(docs[i].clone()),
            Docs::Records { records, .. } => Ok(DocMeta::of(&records.get(i)?)),
        }
    }

    /// Exact top-k documents for a unit query vector, filtered; ties broken by id.
    pub fn search(&self, query: &[f32], k: usize, filter: Filter) -> Result<Vec<Hit>> {
        let candidates = (0..self.len()).filter(|&i| self.admits(i, filter));
        let scored: Vec<(f32, usize)> = candidates.map(|i| (dot(query, self.vector(i)), i)).collect();
        self.top_k(scored, k)
    }

    /// Whether document `i` passes the filter.
    pub fn admits(&self, i: usize, filter: Filter) -> bool {
        filter.admits(self.facts.years[i], self.facts.surveys[i])
    }

    /// The best `k` of scored documents as hits, by score then id. Only the documents that make
    /// the top k, and those tied with the k-th, are read.
    pub fn top_k(&self, mut scored: Vec<(f32, usize)>, k: usize) -> Result<Vec<Hit>> {
        let by_score = |a: &(f32, usize), b: &(f32, usize)| b.0.total_cmp(&a.0);
        if k == 0 {
            return Ok(Vec::new());
        }
        if k < scored.len() {
            scored.select_nth_unstable_by(k - 1, by_score);
            // Every document scoring as the k-th competes for the last places, by id.
            let kth = scored[k - 1].0;
            let mut kept: Vec<(f32, usize)> =
                scored[..k].iter().copied().filter(|s| s.0.total_cmp(&kth).is_gt()).collect();
            kept.extend(scored.iter().copied().filter(|s| s.0.total_cmp(&kth).is_eq()));
            scored = kept;
        }
        let mut hits = scored
            .into_iter()
            .map(|(score, i)| {
                let doc = self.doc(i)?;
                Ok(Hit { id: doc.id, title: doc.title, year: doc.year, score, known: None })
            })
            .collect::<Result<Vec<Hit>>>()?;
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
        hits.truncate(k);
        Ok(hits)
    }
}

impl DocMeta {
    fn of(paper: &Paper) -> DocMeta {
        DocMeta { id: paper.id.clone(), title: paper.title.clone(), year: paper.year, is_survey: paper.is_survey }
    }
}

/// What a rows file is built for: the model, the generation, the number of papers and the ids of
/// up to 64 of them spread over the corpus (a generation's records never change, so its number
/// and count name its papers; the ids catch a corpus directory rebuilt from other files).
fn papers_fingerprint(records: &Records, source: &VectorSource<'_>) -> Result<u64> {
    let mut bytes = Vec::new();
    bytes.extend_from_slice(source.model.as_bytes());
    bytes.extend_from_slice(&source.generation.to_le_bytes());
    bytes.extend_from_slice(&(records.len() as u64).to_le_bytes());
    let step = records.len().div_ceil(64).max(1);
    for position in (0..records.len()).step_by(step) {
        bytes.extend_from_slice(records.get(position)?.id.as_bytes());
        bytes.push(0);
    }
    Ok(fnv1a(&bytes))
}

/// Write every paper's vector into the rows file at `path`, reading the vector cache once
/// through (memory: the papers' keys, sorted, and one record); nothing is left behind when a
/// paper has no vector there.
fn write_rows(papers: &Corpus, source: &VectorSource<'_>, path: &Path, shape: Shape) -> Result<()> {
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
