//! Vectors computed elsewhere, taken in at ingest: `litnav ingest PAPERS --vectors FILE
//! --vectors-model NAME`. Encoding millions of papers on these two cores takes days; a GPU
//! machine or a provider does it in hours, and litnav then uses its vectors for dense search,
//! similar papers and maps.
//!
//! A `.npy` file holds one float32 row per paper record of the (one) papers file, in its order; a
//! Parquet table (`id`, `vector`; read in builds with the `analytics` feature) names each row's
//! paper by id. Every row is checked (count, dimension, finite values, ids) before anything is
//! written; each row then goes to the paper its record (or id) merged into, keyed like litnav's own vectors by the model
//! and the paper's text, into the corpus's cache for that model. The corpus remembers the model
//! (`vectors/model.json`) when it is not litnav's own: a query text cannot be encoded in another
//! model's space, so text searches of such a corpus run lexically, while `search --like` and
//! everything that compares papers with papers use the vectors.

use crate::error::{Error, Result};
use litnav_corpus::readers::Item;
use litnav_corpus::{Catalog, Format, ReadOptions, Records};
use litnav_embed::cache::{Key, VectorCache, model_cache_path};
use litnav_embed::npy::NpyRows;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What an ingest did with supplied vectors.
#[derive(Debug, Clone, Serialize)]
pub struct VectorsStored {
    /// The file read.
    pub file: PathBuf,
    /// The model they are of, and its dimension.
    pub model: VectorsModel,
    /// Rows stored.
    pub rows: usize,
}

/// Where supplied vectors come from.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorsInput {
    /// The `.npy` file.
    pub file: PathBuf,
    /// The name of the model that computed them.
    pub model: String,
}

/// The model a corpus's paper vectors come from.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct VectorsModel {
    /// Its name.
    pub model: String,
    /// Its dimension.
    pub dim: usize,
}

impl VectorsModel {
    /// litnav's own encoder.
    pub fn local() -> VectorsModel {
        VectorsModel { model: litnav_embed::MODEL_NAME.into(), dim: litnav_embed::DIM }
    }

    /// The model of the corpus at `dir`: the one `vectors/model.json` names, else litnav's own.
    pub fn of(dir: &Path) -> Result<VectorsModel> {
        let path = model_file(dir);
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .map_err(|e| Error::input(format!("{}: {e}; delete it to use litnav's own vectors", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(VectorsModel::local()),
            Err(e) => Err(Error::io(&path, &e)),
        }
    }

    /// Whether litnav runs this model, so that a query text can be encoded in its space.
    pub fn is_local(&self) -> bool {
        self.model == litnav_embed::MODEL_NAME
    }

    /// The name a user gives, with `sentence-transformers/all-MiniLM-L6-v2` read as litnav's own.
    fn named(name: &str, dim: usize) -> VectorsModel {
        let name = name.trim();
        let model =
            name.strip_prefix("sentence-transformers/").filter(|n| *n == litnav_embed::MODEL_NAME).unwrap_or(name);
        VectorsModel { model: model.to_string(), dim }
    }
}

/// `DIR/vectors/model.json`.
pub fn model_file(dir: &Path) -> PathBuf {
    dir.join("vectors").join("model.json")
}

/// A vectors file checked against the records it belongs to, ready to be stored.
pub(crate) struct Supplied {
    input: VectorsInput,
    model: VectorsModel,
    rows: Rows,
}

/// How a file's rows name their papers.
enum Rows {
    /// A `.npy`: row `i` is record `i` of the papers file (read again when the rows are matched
    /// to papers, and the rows again when stored: neither is held in memory).
    InRecordOrder { papers: PathBuf, options: ReadOptions },
    /// A Parquet table: each row's paper id and vector (held in memory).
    ById(Vec<(String, Vec<f32>)>),
}

impl Supplied {
    /// Read the vectors file once through (every row finite, of the model's dimension; a `.npy`
    /// with as many rows as `files` has paper records) before anything is written.
    pub(crate) fn check(input: &VectorsInput, files: &[PathBuf], options: ReadOptions) -> Result<Supplied> {
        if input.model.trim().is_empty() {
            return Err(Error::input("--vectors-model: name the model that computed the vectors"));
        }
        let (rows, dim) = if input.file.extension().is_some_and(|e| e.eq_ignore_ascii_case("parquet")) {
            let rows = read_parquet(&input.file)?;
            let dim = rows.first().map_or(0, |(_, v)| v.len());
            (Rows::ById(rows), dim)
        } else {
            check_npy(&input.file, files, options)?
        };
        let model = VectorsModel::named(&input.model, dim);
        if model.is_local() && dim != litnav_embed::DIM {
            return Err(Error::input(format!(
                "{}: rows of {dim} values, but {} makes {}",
                input.file.display(),
                model.model,
                litnav_embed::DIM
            )));
        }
        Ok(Supplied { input: input.clone(), model, rows })
    }

    /// The cache key of every row: its paper among those ingested (the one its record merged
    /// into, or the one with its id), by that paper's text as written to `records`. An error
    /// names the first row whose paper is not there.
    pub(crate) fn keys(&self, records: &Records, catalog: &Catalog) -> Result<Vec<Key>> {
        let mut by_position = Vec::with_capacity(records.len());
        records.scan(|_, paper| {
            by_position.push(VectorCache::key(&self.model.model, &paper.text()));
            Ok(())
        })?;
        let missing = |row: usize, what: String| {
            Error::input(format!(
                "{}: row {row} ({what}): its paper is not in the corpus after merging",
                self.input.file.display()
            ))
        };
        match &self.rows {
            Rows::InRecordOrder { papers, options } => {
                let mut keys = Vec::with_capacity(by_position.len());
                let mut refused = None;
                litnav_corpus::for_each_item(papers, *options, |item| {
                    let Item::Paper(record) = item else { return Ok(()) };
                    match catalog.position_of(&record) {
                        Some(position) => keys.push(by_position[position]),
                        None if refused.is_none() => {
                            refused = Some(missing(keys.len(), format!("{}, {}", record.at, record.paper.title)));
                        }
                        None => {}
                    }
                    Ok(())
                })?;
                refused.map_or(Ok(keys), Err)
            }
            Rows::ById(rows) => rows
                .iter()
                .enumerate()
                .map(|(row, (id, _))| {
                    let position = catalog.resolve(id);
                    position.map(|p| by_position[p]).ok_or_else(|| missing(row, format!("id `{id}`")))
                })
                .collect(),
        }
    }

    /// Append every row to the corpus's cache for the model, under `keys`, and record the model.
    pub(crate) fn store(&self, dir: &Path, keys: &[Key]) -> Result<VectorsStored> {
        let mut cache = VectorCache::open_for_appending(&model_cache_path(dir, &self.model.model), self.model.dim)?;
        let vectors: Box<dyn Iterator<Item = litnav_embed::Result<Vec<f32>>> + '_> = match &self.rows {
            Rows::InRecordOrder { .. } => {
                let mut npy = NpyRows::open(&self.input.file)?;
                Box::new(std::iter::from_fn(move || npy.next_row()))
            }
            Rows::ById(rows) => Box::new(rows.iter().map(|(_, vector)| Ok(vector.clone()))),
        };
        let rows = cache.append_all(keys.iter().zip(vectors).map(|(key, vector)| vector.map(|v| (*key, v))))?;
        if rows != keys.len() {
            return Err(Error::internal(format!("the vectors file ended after {rows} of {} rows", keys.len())));
        }
        self.record_model(dir)?;
        Ok(VectorsStored { file: self.input.file.clone(), model: self.model.clone(), rows })
    }

    /// Name the corpus's model in `vectors/model.json`, or remove the file for litnav's own.
    fn record_model(&self, dir: &Path) -> Result<()> {
        let path = model_file(dir);
        if self.model.is_local() {
            return match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(&path, &e)),
                _ => Ok(()),
            };
        }
        let json = serde_json::to_vec_pretty(&self.model).map_err(|e| Error::internal(e.to_string()))?;
        litnav_corpus::store::write_atomically(&path, &json).map_err(Error::from)
    }
}

/// A `.npy`'s rows checked against the records of the papers file: the rows and their dimension.
fn check_npy(file: &Path, files: &[PathBuf], options: ReadOptions) -> Result<(Rows, usize)> {
    let mut rows = NpyRows::open(file)?;
    let (papers, records) = papers_file(files, options)?;
    if records != rows.rows {
        return Err(Error::input(format!(
            "{}: {} rows for {records} paper records (one row per record of the papers file, in its order)",
            file.display(),
            rows.rows,
        )));
    }
    let dim = rows.dim;
    while let Some(row) = rows.next_row() {
        row?;
    }
    Ok((Rows::InRecordOrder { papers, options }, dim))
}

/// A Parquet table of vectors (`analytics` builds).
#[cfg(feature = "analytics")]
fn read_parquet(file: &Path) -> Result<Vec<(String, Vec<f32>)>> {
    litnav_analytics::vectors::read(file).map_err(|e| Error::input(e.to_string()))
}

/// A Parquet table of vectors: refused by builds without the `analytics` feature.
#[cfg(not(feature = "analytics"))]
fn read_parquet(file: &Path) -> Result<Vec<(String, Vec<f32>)>> {
    Err(Error::input(format!(
        "{}: Parquet vectors are read by litnav built with `--features analytics`; this build reads .npy",
        file.display()
    )))
}

/// The one papers file among `files`, and how many paper records it holds (counted as they
/// stream by).
fn papers_file(files: &[PathBuf], options: ReadOptions) -> Result<(PathBuf, usize)> {
    let mut found: Option<(PathBuf, usize)> = None;
    for file in files {
        let mut records = 0;
        let read = litnav_corpus::for_each_item(file, options, |item| {
            records += usize::from(matches!(item, Item::Paper(_)));
            Ok(())
        })?;
        if records == 0 || read.format == Format::Edges {
            continue;
        }
        if let Some((first, _)) = &found {
            return Err(Error::input(format!(
                "--vectors: rows follow the records of one papers file, and both {} and {} hold papers (ingest them one at a time)",
                first.display(),
                file.display()
            )));
        }
        found = Some((file.clone(), records));
    }
    found.ok_or_else(|| Error::input("--vectors: none of the files holds papers"))
}
