//! A content-addressed cache of chat completions on disk: the key is the SHA-1 of the request's
//! canonical JSON (endpoint, model, messages, schema, sampling settings; never the API key), the
//! value the reply's text and token counts. Each entry is its own file, written to a temporary name
//! and renamed, so concurrent writers and interrupted runs never leave a torn entry. Re-running a
//! command with the same inputs replays the same answers: free and reproducible.

use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A cached reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The assistant's text.
    pub content: String,
    /// Prompt tokens the endpoint reported when the reply was made.
    pub prompt_tokens: u64,
    /// Completion tokens reported.
    pub completion_tokens: u64,
}

/// The cache directory.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// A cache in `dir` (created on first write).
    pub fn new(dir: impl Into<PathBuf>) -> Cache {
        Cache { dir: dir.into() }
    }

    /// The cache directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The key of a request.
    pub fn key(request: &serde_json::Value) -> String {
        sha1_smol::Sha1::from(request.to_string()).digest().to_string()
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{key}.json"))
    }

    /// The cached reply for `key`, if any. An unreadable entry counts as a miss.
    pub fn get(&self, key: &str) -> Option<Entry> {
        let text = std::fs::read_to_string(self.path(key)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Store the reply for `key`.
    pub fn put(&self, key: &str, entry: &Entry) -> Result<()> {
        let path = self.path(key);
        let failed = |message: String| Error::Cache { path: path.clone(), message };
        let parent = path.parent().ok_or_else(|| failed("no parent directory".into()))?;
        std::fs::create_dir_all(parent).map_err(|e| failed(e.to_string()))?;
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        let text = serde_json::to_string(entry).map_err(|e| failed(e.to_string()))?;
        std::fs::write(&tmp, text).map_err(|e| failed(e.to_string()))?;
        std::fs::rename(&tmp, &path).map_err(|e| failed(e.to_string()))
    }
}
