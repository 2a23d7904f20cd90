//! The on-disk vector cache: content-addressed, append-only, crash-tolerant, shared safely by
//! concurrent processes.
//!
//! A corpus keeps its paper vectors in `DIR/vectors/all-MiniLM-L6-v2.bin`, outside the corpus
//! generations, so re-ingesting (which writes a new generation) never throws vectors away: a
//! vector is found again by the hash of the exact text it encodes.
//!
//! File layout: a 16-byte header (`litnavv1`, dimension as u32 LE, 4 reserved bytes), then
//! records of a 16-byte key (the first 16 bytes of SHA-256 of the model name, a NUL and the text)
//! followed by `dim` little-endian f32.
//!
//! Concurrency: appenders hold an exclusive `flock` on the file while they write, readers a shared
//! one while they read it. Before appending, a writer first reads the records other processes added
//! since it last looked (so no key is written twice), and only then — holding the exclusive lock,
//! so no live writer can be mid-append — cuts off a partial last record, which can only be the
//! leftover of a writer that was killed. Opening never truncates: a reader ignores a partial tail.
//! Each append is synced before the lock is released, so an interrupted `litnav embed --corpus`
//! resumes where it stopped.

use crate::{Error, Result};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"litnavv1";
const HEADER: usize = 16;

/// Where a corpus directory keeps its vectors of litnav's own model.
pub fn corpus_cache_path(corpus_dir: &Path) -> PathBuf {
    model_cache_path(corpus_dir, crate::MODEL_NAME)
}

/// Where a corpus directory keeps its vectors of `model` (a name made safe as a file name:
/// `BAAI/bge-small-en-v1.5` is kept as `BAAI_bge-small-en-v1.5.bin`).
pub fn model_cache_path(corpus_dir: &Path, model: &str) -> PathBuf {
    corpus_dir.join("vectors").join(format!("{}.bin", file_safe(model)))
}

/// `name` with every character but ASCII letters, digits, `.`, `-` and `_` replaced by `_`.
pub fn file_safe(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' }).collect()
}

/// A cache key.
pub type Key = [u8; 16];

/// Vectors [`VectorCache::append_all`] writes (and syncs) at a time.
pub const APPEND_BATCH: usize = 4096;

/// Vectors by content key.
pub struct VectorCache {
    path: PathBuf,
    dim: usize,
    index: HashMap<Key, usize>,
    vectors: Vec<f32>,
    /// False for a handle that only appends ([`VectorCache::open_for_appending`]): it knows the
    /// keys, not the vectors.
    holds_vectors: bool,
    /// Bytes of the file read so far (header and complete records).
    read_to: u64,
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

    /// Read every complete record of the cache file at `path` in file order, without holding
    /// them: `each` gets a key and its vector (a key written twice is given twice; the first is
    /// the cache's). A missing file has no records. Memory stays at one read buffer whatever the
    /// file's size — what writing a corpus's rows file needs ([`crate::rows`]).
    pub fn scan(path: &Path, dim: usize, mut each: impl FnMut(&Key, &[f32])) -> Result<()> {
        let bad = |message: String| Error::model(path, message);
        let file = match File::open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(bad(format!("cannot open: {e}"))),
        };
        file.lock_shared().map_err(|e| bad(format!("cannot lock: {e}")))?;
        let mut reader = std::io::BufReader::with_capacity(1 << 20, &file);
        let mut header = [0u8; HEADER];
        match reader.read_exact(&mut header) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(bad(format!("cannot read: {e}"))),
        }
        check_header(path, &header, dim)?;
        let mut record = vec![0u8; 16 + dim * 4];
        let mut vector = vec![0f32; dim];
        loop {
            match reader.read_exact(&mut record) {
                Ok(()) => {}
                // A partial last record is a killed writer's leftover: not a record.
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
                Err(e) => return Err(bad(format!("cannot read: {e}"))),
            }
            let mut key = [0u8; 16];
            key.copy_from_slice(&record[..16]);
            for (v, b) in vector.iter_mut().zip(record[16..].chunks_exact(4)) {
                *v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
            each(&key, &vector);
        }
    }

    /// Open (or create) the cache file at `path` for vectors of dimension `dim`.
    pub fn open(path: &Path, dim: usize) -> Result<VectorCache> {
        Self::open_holding(path, dim, true)
    }

    /// [`VectorCache::open`] for appending only: the handle keeps the keys written (so that none
    /// is written twice), not the vectors — millions of vectors supplied at ingest are written
    /// without being held — and [`VectorCache::get`] finds nothing through it.
    pub fn open_for_appending(path: &Path, dim: usize) -> Result<VectorCache> {
        Self::open_holding(path, dim, false)
    }

    fn open_holding(path: &Path, dim: usize, holds_vectors: bool) -> Result<VectorCache> {
        let bad = |message: String| Error::model(path, message);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| bad(format!("cannot create the cache directory: {e}")))?;
        }
        let mut cache = VectorCache {
            path: path.to_path_buf(),
            dim,
            index: HashMap::new(),
            vectors: Vec::new(),
            holds_vectors,
            read_to: 0,
        };
        let mut file = File::options()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(|e| bad(format!("cannot open: {e}")))?;
        file.lock_shared().map_err(|e| bad(format!("cannot lock: {e}")))?;
        if file.metadata().map_err(|e| bad(format!("cannot read: {e}")))?.len() == 0 {
            // A new file: write the header, under the exclusive lock (two processes may race here).
            file.unlock().map_err(|e| bad(format!("cannot unlock: {e}")))?;
            file.lock().map_err(|e| bad(format!("cannot lock: {e}")))?;
            if file.metadata().map_err(|e| bad(format!("cannot read: {e}")))?.len() == 0 {
                let mut header = MAGIC.to_vec();
                header.extend_from_slice(&(dim as u32).to_le_bytes());
                header.extend_from_slice(&[0; 4]);
                file.write_all(&header).and_then(|_| file.sync_all()).map_err(|e| bad(format!("cannot write: {e}")))?;
            }
        }
        cache.catch_up(&mut file)?;
        Ok(cache)
    }

    /// Index the complete records written since `read_to` (the caller holds a lock on `file`).
    /// Returns the file's length, which may end in a partial record.
    fn catch_up(&mut self, file: &mut File) -> Result<u64> {
        let bad = |message: String| Error::model(&self.path, message);
        let mut bytes = Vec::new();
        file.seek(SeekFrom::Start(self.read_to))
            .and_then(|_| file.read_to_end(&mut bytes))
            .map_err(|e| bad(format!("cannot read: {e}")))?;
        let length = self.read_to + bytes.len() as u64;
        let mut records = &bytes[..];
        if self.read_to == 0 {
            check_header(&self.path, &bytes, self.dim)?;
            records = &bytes[HEADER..];
            self.read_to = HEADER as u64;
        }
        let record = self.record_len();
        let complete = records.len() / record;
        if self.holds_vectors {
            self.vectors.reserve(complete * self.dim);
        }
        for chunk in records[..complete * record].chunks_exact(record) {
            let mut key = [0u8; 16];
            key.copy_from_slice(&chunk[..16]);
            let slot = self.slots();
            if self.holds_vectors {
                self.vectors.extend(chunk[16..].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])));
            }
            // A key written twice (by a writer that did not see the other's records) keeps the first.
            self.index.entry(key).or_insert(slot);
        }
        self.read_to += (complete * record) as u64;
        Ok(length)
    }

    fn record_len(&self) -> usize {
        16 + self.dim * 4
    }

    /// The slot the next vector takes: where it is among the vectors held (or, holding none, a
    /// number no other key has).
    fn slots(&self) -> usize {
        if self.holds_vectors { self.vectors.len() / self.dim.max(1) } else { self.index.len() }
    }

    /// Number of cached vectors.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The vector stored under `key` (none through a handle opened for appending).
    pub fn get(&self, key: &Key) -> Option<&[f32]> {
        if !self.holds_vectors {
            return None;
        }
        self.index.get(key).map(|&slot| &self.vectors[slot * self.dim..(slot + 1) * self.dim])
    }

    /// Take from `source` the vectors it holds under `keys` that this cache lacks (appended in
    /// batches); returns how many were copied.
    pub fn copy_from(&mut self, source: &VectorCache, keys: impl IntoIterator<Item = Key>) -> Result<usize> {
        let missing: Vec<(Key, Vec<f32>)> = keys
            .into_iter()
            .filter(|key| !self.index.contains_key(key))
            .filter_map(|key| source.get(&key).map(|v| (key, v.to_vec())))
            .collect();
        self.append_all(missing.into_iter().map(Ok))
    }

    /// Append `entries` as they come, [`APPEND_BATCH`] at a time (each batch as [`VectorCache::append`]
    /// does); the first failed entry stops it. Returns how many were given.
    pub fn append_all(&mut self, entries: impl IntoIterator<Item = Result<(Key, Vec<f32>)>>) -> Result<usize> {
        let (mut batch, mut given) = (Vec::with_capacity(APPEND_BATCH), 0);
        for entry in entries {
            batch.push(entry?);
            given += 1;
            if batch.len() == APPEND_BATCH {
                self.append(&batch)?;
                batch.clear();
            }
        }
        self.append(&batch)?;
        Ok(given)
    }

    /// Append vectors (those whose key is not cached yet, by this process or another) and make
    /// them durable before returning. Only then does this handle know them: after a failed write
    /// (a full disk) it holds what it held before, and the file's partial tail is cut off.
    pub fn append(&mut self, entries: &[(Key, Vec<f32>)]) -> Result<()> {
        let bad = |message: String| Error::model(&self.path, message);
        let mut file =
            File::options().read(true).append(true).open(&self.path).map_err(|e| bad(format!("cannot append: {e}")))?;
        file.lock().map_err(|e| bad(format!("cannot lock: {e}")))?;
        let length = self.catch_up(&mut file)?;
        if length > self.read_to {
            // Under the exclusive lock nobody is appending: this tail was left by a killed writer.
            file.set_len(self.read_to).map_err(|e| Error::model(&self.path, format!("cannot repair: {e}")))?;
        }
        let mut bytes = Vec::with_capacity(entries.len() * self.record_len());
        let mut new: Vec<&(Key, Vec<f32>)> = Vec::with_capacity(entries.len());
        let mut seen = std::collections::HashSet::new();
        for entry in entries {
            if self.index.contains_key(&entry.0) || !seen.insert(entry.0) {
                continue;
            }
            bytes.extend_from_slice(&entry.0);
            for v in &entry.1 {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
            new.push(entry);
        }
        if let Err(e) = write_durably(&mut file, &bytes) {
            // Best effort: the next writer cuts a torn tail off anyway.
            let _ = file.set_len(self.read_to);
            return Err(Error::model(&self.path, format!("cannot append: {e}")));
        }
        for (key, vector) in new {
            let slot = self.slots();
            if self.holds_vectors {
                self.vectors.extend_from_slice(vector);
            }
            self.index.insert(*key, slot);
        }
        self.read_to += bytes.len() as u64;
        Ok(())
    }
}

/// Refuse a file whose first bytes are not a cache header for vectors of `dim` dimensions.
fn check_header(path: &Path, bytes: &[u8], dim: usize) -> Result<()> {
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return Err(Error::model(path, "is not a litnav vector cache; delete it to rebuild".into()));
    }
    let stored_dim = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
    if stored_dim != dim {
        let message = format!("holds {stored_dim}-dimensional vectors, the model makes {dim}; delete it to rebuild");
        return Err(Error::model(path, message));
    }
    Ok(())
}

/// Write `bytes` at the end of `file` and flush them to the disk.
fn write_durably(file: &mut File, bytes: &[u8]) -> std::io::Result<()> {
    #[cfg(test)]
    if tests::FAIL_WRITES.with(std::cell::Cell::get) {
        return Err(std::io::Error::new(std::io::ErrorKind::StorageFull, "No space left on device (test)"));
    }
    file.write_all(bytes)?;
    file.sync_data()
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// Makes this thread's cache writes fail as on a full disk.
        pub(super) static FAIL_WRITES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    #[test]
    fn a_handle_opened_for_appending_writes_each_key_once_and_holds_no_vector() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("v.bin");
        let (k1, k2) = (VectorCache::key("m", "one"), VectorCache::key("m", "two"));
        let mut reader = VectorCache::open(&path, 2).unwrap_or_else(|e| panic!("{e}"));
        reader.append(&[(k1, vec![1.0, 2.0])]).unwrap_or_else(|e| panic!("{e}"));
        let mut appender = VectorCache::open_for_appending(&path, 2).unwrap_or_else(|e| panic!("{e}"));
        let entries = [(k1, vec![9.0, 9.0]), (k2, vec![3.0, 4.0]), (k2, vec![5.0, 6.0])];
        appender.append_all(entries.into_iter().map(Ok)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((appender.len(), appender.vectors.len(), appender.get(&k2)), (2, 0, None));
        let length = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        assert_eq!(length, (HEADER + 2 * (16 + 8)) as u64, "each key written once");
        let again = VectorCache::open(&path, 2).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((again.get(&k1), again.get(&k2)), (Some(&[1.0f32, 2.0][..]), Some(&[3.0f32, 4.0][..])));
    }

    #[test]
    fn a_failed_append_leaves_the_handle_and_the_file_as_they_were() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("v.bin");
        let (k1, k2) = (VectorCache::key("m", "one"), VectorCache::key("m", "two"));
        let mut cache = VectorCache::open(&path, 2).unwrap_or_else(|e| panic!("{e}"));
        cache.append(&[(k1, vec![1.0, 2.0])]).unwrap_or_else(|e| panic!("{e}"));
        let before = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        FAIL_WRITES.with(|fail| fail.set(true));
        let failed = cache.append(&[(k2, vec![3.0, 4.0])]);
        FAIL_WRITES.with(|fail| fail.set(false));
        assert!(failed.is_err_and(|e| e.to_string().contains("No space left")));
        assert_eq!((cache.len(), cache.get(&k2)), (1, None), "the handle does not believe k2 stored");
        assert_eq!(std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0), before);
        // Once the disk has room, the same vector is written, and the same key twice in one
        // batch only once.
        cache.append(&[(k2, vec![3.0, 4.0]), (k2, vec![5.0, 6.0])]).unwrap_or_else(|e| panic!("{e}"));
        let reopened = VectorCache::open(&path, 2).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((reopened.len(), reopened.get(&k2)), (2, Some(&[3.0, 4.0][..])));
        assert_eq!(std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0), before + 16 + 8);
    }

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
        let mut cache = VectorCache::open(&path, 3).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.get(&k1), Some(&[1.0, 2.0, 3.0][..]));
        assert_eq!(cache.get(&k2), None);
        assert_eq!(std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0), len - 5, "opening never truncates");
        // The next append cuts the torn record off before writing.
        cache.append(&[(k2, vec![7.0, 8.0, 9.0])]).unwrap_or_else(|e| panic!("{e}"));
        let cache = VectorCache::open(&path, 3).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cache.get(&k2), Some(&[7.0, 8.0, 9.0][..]));
        assert_eq!(std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0), len);
        assert!(VectorCache::open(&path, 4).is_err(), "a dimension mismatch is refused");
    }

    #[test]
    fn a_scan_reads_the_complete_records_in_order_without_opening_the_cache() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("v.bin");
        let mut seen = Vec::new();
        VectorCache::scan(&path, 3, |key, v| seen.push((*key, v.to_vec()))).unwrap_or_else(|e| panic!("{e}"));
        assert!(seen.is_empty(), "no file, no records");
        let (k1, k2) = (VectorCache::key("m", "one"), VectorCache::key("m", "two"));
        let mut cache = VectorCache::open(&path, 3).unwrap_or_else(|e| panic!("{e}"));
        cache.append(&[(k1, vec![1.0, 2.0, 3.0]), (k2, vec![4.0, 5.0, 6.0])]).unwrap_or_else(|e| panic!("{e}"));
        let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        File::options().write(true).open(&path).and_then(|f| f.set_len(len - 5)).unwrap_or_else(|e| panic!("{e}"));
        VectorCache::scan(&path, 3, |key, v| seen.push((*key, v.to_vec()))).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(seen, vec![(k1, vec![1.0, 2.0, 3.0])], "a torn last record is not a record");
        assert!(VectorCache::scan(&path, 4, |_, _| {}).is_err(), "a dimension mismatch is refused");
    }

    #[test]
    fn two_handles_append_without_writing_a_key_twice() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("v.bin");
        let mut a = VectorCache::open(&path, 2).unwrap_or_else(|e| panic!("{e}"));
        let mut b = VectorCache::open(&path, 2).unwrap_or_else(|e| panic!("{e}"));
        let k = |t: &str| VectorCache::key("m", t);
        a.append(&[(k("one"), vec![1.0, 0.0])]).unwrap_or_else(|e| panic!("{e}"));
        // `b` has not seen "one": it catches up before appending and skips it.
        b.append(&[(k("one"), vec![9.0, 9.0]), (k("two"), vec![0.0, 1.0])]).unwrap_or_else(|e| panic!("{e}"));
        a.append(&[(k("three"), vec![1.0, 1.0])]).unwrap_or_else(|e| panic!("{e}"));
        let all = VectorCache::open(&path, 2).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(all.len(), 3);
        assert_eq!(all.get(&k("one")), Some(&[1.0, 0.0][..]));
        assert_eq!(std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0), 16 + 3 * (16 + 8));
    }
}
