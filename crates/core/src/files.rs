//! Files written whole or not at all, and transport failures described once.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Write `bytes` to `path` so that readers see either the old file or the whole new one, and so
/// that the new one survives a crash once this returns: a temporary file beside it (named by this
/// process and a counter, so that threads writing the same path do not share one) is written,
/// synced and renamed over `path`, then the directory is synced. On any failure the temporary file
/// is removed and `path` is left as it was. The parent directory is created when missing.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        // A bare file name has an empty parent: the current directory.
        _ => Path::new("."),
    };
    fs::create_dir_all(dir)?;
    let temporary = temporary_beside(path, dir);
    let written = (|| {
        let mut file = File::create(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temporary, path)
    })();
    if let Err(error) = written {
        let _ = fs::remove_file(&temporary);
        return Err(error);
    }
    File::open(dir).and_then(|d| d.sync_all())
}

/// Whether `name` is a temporary file [`write_atomically`] left for a file named `target` (a crash
/// between writing and renaming leaves one; cleaners remove them).
pub fn is_temporary_of(name: &str, target: &str) -> bool {
    name.strip_prefix('.')
        .and_then(|rest| rest.strip_prefix(target))
        .is_some_and(|rest| rest.starts_with('.') && rest.ends_with(".tmp"))
}

/// A hidden name in `dir` for `path`'s next version, unique within this process.
fn temporary_beside(path: &Path, dir: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    dir.join(format!(".{name}.{}.{}.tmp", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("litnav-core-files-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn a_file_is_replaced_whole_and_nothing_else_is_left() {
        let dir = scratch("replace");
        let path = dir.join("map.json");
        write_atomically(&path, b"old").unwrap();
        write_atomically(&path, b"new").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(entries(&dir), ["map.json"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_rename_leaves_no_temporary_file_and_the_target_as_it_was() {
        let dir = scratch("fail");
        // A directory in the target's place: the rename fails after the data were written.
        let path = dir.join("answer");
        fs::create_dir(&path).unwrap();
        fs::write(path.join("kept"), b"x").unwrap();
        assert!(write_atomically(&path, b"new").is_err());
        assert_eq!(entries(&dir), ["answer"]);
        assert_eq!(entries(&path), ["kept"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn temporary_files_are_told_from_others() {
        let dir = scratch("names");
        let path = dir.join("manifest.json");
        let temporary = temporary_beside(&path, &dir);
        let name = temporary.file_name().unwrap().to_str().unwrap();
        assert!(is_temporary_of(name, "manifest.json"));
        assert!(!is_temporary_of("manifest.json", "manifest.json"));
        assert!(!is_temporary_of(".manifest.json.swp", "manifest.json"));
        assert!(!is_temporary_of(".other.json.1.2.tmp", "manifest.json"));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_parents_are_created() {
        let dir = scratch("parents");
        let path = dir.join("a/b/c.json");
        write_atomically(&path, b"{}").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"{}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
