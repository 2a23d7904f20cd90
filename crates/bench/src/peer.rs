//! Running a Python peer: the script is shipped inside the binary, given a JSON job on standard
//! input, and answers with a JSON report on standard output.

use crate::{Error, Result};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Run `script` with `python`, feeding it `job`; `install_hint` says how to get what it needs.
pub fn run_python<T: serde::de::DeserializeOwned>(
    python: &Path,
    script: &str,
    job: &serde_json::Value,
    install_hint: &str,
) -> Result<T> {
    let scratch = tempfile::tempdir()?;
    let script_path = scratch.path().join("peer.py");
    std::fs::write(&script_path, script)?;
    let mut child = Command::new(python)
        .arg(&script_path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::unavailable(format!("cannot start {}: {e}", python.display())))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(job.to_string().as_bytes())?;
    }
    let output = child.wait_with_output()?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(Error::unavailable(format!(
            "the Python peer failed ({install_hint} for {}): {}",
            python.display(),
            stderr.lines().last().unwrap_or("no output")
        )));
    }
    serde_json::from_slice(&output.stdout).map_err(|e| Error::unavailable(format!("unreadable peer report: {e}")))
}
