//! The on-disk vector cache: content-addressed, append-only, crash-tolerant.
//!
//! A corpus keeps its paper vectors in `DIR/vectors/all-MiniLM-L6-v2.bin`, outside the corpus
//! generations, so re-ingesting (which writes a new generation) never throws vectors away: a
//! vector is found again by the hash of the exact text it encodes.
//!
//! File layout: a 16-byte header (`litnavv1`, dimension as u32 LE, 4 reserved bytes), then
//! records of a 16-byte key (the first 16 bytes of SHA-256 of the model name, a NUL and the text)
//! followed by `dim` little-endian f32. Appends are flushed and synced per chunk; a crash can only
//! leave a partial last record, which opening truncates away, so an interrupted `litnav embed
//! --corpus` resumes where it stopped.

use crate::{Error, Result};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"litnavv1";
const HEADER: usize = 16;

/// Where a corpus directory keeps its vectors.
pub fn corpus_cache_path(corpus_dir: &Path) -> PathBuf {
    corpus_dir.join("vectors").join(format!("{}.bin", crate::MODEL_NAME))
}

/// A cache key.
pub type Key = [u8; 16];

/// Vectors by content key.
pub struct VectorCache {
    path: PathBuf,
    dim: usize,
    index: HashMap<Key, usize>,
    vectors: Vec<f32>,
}

impl VectorCache {
    /// The key of `text` under `model`.
    pub fn key(model: &str, text: &str) -> Key {
        let mut hasher = Sha256::new();
        hasher.update(model.as_bytes());
        hasher.update([0u8]);
        hasher.update(text.as_bytes());
        let digest = hasher.finalize();
        let mut key = [0u8; 16];
        key.copy_from_slice(&digest[..16]);
        key
    }

    /// Open (or create) the cache file at `path` for vectors of dimension `dim`.
    pub fn open(path: &Path, dim: usize) -> Result<VectorCache> {
        let bad = |message: String| Error::model(path, message);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| bad(format!("cannot create the cache directory: {e}")))?;
        }
        let mut cache = VectorCache { path: path.to_path_buf(), dim, index: HashMap::new(), vectors: Vec::new() };
        if !path.exists() {
            let mut file = File::create(path).map_err(|e| bad(format!("cannot create: {e}")))?;
            let mut header = MAGIC.to_vec();
            header.extend_from_slice(&(dim as u32).to_le_bytes());
            header.extend_from_slice(&[0; 4]);
            file.write_all(&header).and_then(|_| file.sync_all()).map_err(|e| bad(format!("cannot write: {e}")))?;
            return Ok(cache);
        }
        let mut bytes = Vec::new();
        File::open(path).and_then(|mut f| f.read_to_end(&mut bytes)).map_err(|e| bad(format!("cannot read: {e}")))?;
        if bytes.len() < HEADER || &bytes[..8] != MAGIC {
            return Err(bad("is not a litnav vector cache; delete it to rebuild".into()));
        }
        let stored_dim = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
        if stored_dim != dim {
            return Err(bad(format!(
                "holds {stored_dim}-dimensional vectors, the model makes {dim}; delete it to rebuild"
            )));
        }
        let record = 16 + dim * 4;
        let complete = (bytes.len() - HEADER) / record;
        if HEADER + complete * record != bytes.len() {
            // A crash during an append: drop the partial record.
            let file = File::options().write(true).open(path).map_err(|e| bad(format!("cannot repair: {e}")))?;
            file.set_len((HEADER + complete * record) as u64).map_err(|e| bad(format!("cannot repair: {e}")))?;
        }
        cache.vectors.reserve(complete * dim);
        for chunk in bytes[HEADER..HEADER + complete * record].chunks_exact(record) {
            let mut key = [0u8; 16];
            key.copy_from_slice(&chunk[..16]);
            let slot = cache.vectors.len() / dim;
            cache.vectors.extend(chunk[16..].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])));
            cache.index.insert(key, slot);
        }
        Ok(cache)
    }

    /// Number of cached vectors.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The vector stored under `key`.
    pub fn get(&self, key: &Key) -> Option<&[f32]> {
        self.index.get(key).map(|&slot| &self.vectors[slot * self.dim..(slot + 1) * self.dim])
    }

    /// Append vectors and make them durable before returning.
    pub fn append(&mut self, entries: &[(Key, Vec<f32>)]) -> Result<()> {
        let mut bytes = Vec::with_capacity(entries.len() * (16 + self.dim * 4));
        for (key, vector) in entries {
            if self.index.contains_key(key) {
                continue;
            }
            bytes.extend_from_slice(key);
            for v in vector {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
            let slot = self.vectors.len() / self.dim;
            self.vectors.extend_from_slice(vector);
            self.index.insert(*key, slot);
        }
        let mut file = File::options()
            .append(true)
            .open(&self.path)
            .map_err(|e| Error::model(&self.path, format!("cannot append: {e}")))?;
        file.write_all(&bytes)
            .and_then(|_| file.sync_data())
            .map_err(|e| Error::model(&self.path, format!("cannot append: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn survives_reopen_and_a_torn_append() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("v.bin");
        let k1 = VectorCache::key("m", "one");
        let k2 = VectorCache::key("m", "two");
        {
            let mut cache = VectorCache::open(&path, 3).unwrap_or_else(|e| panic!("{e}"));
            cache.append(&[(k1, vec![1.0, 2.0, 3.0]), (k2, vec![4.0, 5.0, 6.0])]).unwrap_or_else(|e| panic!("{e}"));
        }
        // Tear the last record.
        let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        File::options().write(true).open(&path).and_then(|f| f.set_len(len - 5)).unwrap_or_else(|e| panic!("{e}"));
        let cache = VectorCache::open(&path, 3).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.get(&k1), Some(&[1.0, 2.0, 3.0][..]));
        assert_eq!(cache.get(&k2), None);
        assert!(VectorCache::open(&path, 4).is_err(), "a dimension mismatch is refused");
    }
}
