//! The Python tier: the `litnav` package (this crate's native module, as `cargo test` built it,
//! beside the package's Python sources) imported by pytest in a virtual environment under
//! `~/.cache/litnav/python` that holds the field's own packages (`tests/requirements.txt`), and
//! checked against them and against the `litnav` command's JSON (`tests/python/`). The tier fails
//! — it is never skipped once selected (feature `python`) — when Python, the environment or the
//! command cannot be had.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests fail loudly by design.

use std::path::{Path, PathBuf};
use std::process::Command;

/// This crate's directory, as cargo says when it runs the test (not `env!`: a build reused from a
/// checkout at another path would still name that checkout).
fn crate_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
}

/// Cargo's output directory for this build (`target/debug`): the test binary lives in its `deps`.
fn build_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).unwrap().to_path_buf()
}

fn run(command: &mut Command, what: &str) {
    let status = command.status().unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(status.success(), "{what} failed ({status})");
}

/// A virtual environment with the requirements, made once and remade when they change.
fn environment() -> PathBuf {
    let requirements = crate_dir().join("tests/requirements.txt");
    let wanted = std::fs::read_to_string(&requirements).unwrap();
    let home = std::env::var_os("HOME").map(PathBuf::from).expect("HOME is set");
    let venv = home.join(".cache/litnav/python/venv");
    let stamp = venv.join("litnav-requirements.txt");
    let python = venv.join("bin/python");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) || !python.is_file() {
        let system = std::env::var("LITNAV_PYTHON").unwrap_or_else(|_| "python3".into());
        run(Command::new(&system).args(["-m", "venv", "--clear"]).arg(&venv), "creating the Python environment");
        run(
            Command::new(&python)
                .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"])
                .arg(&requirements),
            "installing the Python test requirements",
        );
        std::fs::write(&stamp, &wanted).unwrap();
    }
    python
}

/// The package as pip would install it: the Python sources and the native module beside them.
fn package(into: &Path) {
    // `cargo test` leaves the module it builds in `deps`; `cargo build` also copies it up a level.
    let modified = |path: &PathBuf| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let library = [build_dir().join("deps/lib_litnav.so"), build_dir().join("lib_litnav.so")]
        .into_iter()
        .filter(|path| path.is_file())
        .max_by_key(modified)
        .expect("the native module lib_litnav.so was not built");
    let target = into.join("litnav");
    std::fs::create_dir_all(&target).unwrap();
    for entry in std::fs::read_dir(crate_dir().join("python/litnav")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, target.join(path.file_name().unwrap())).unwrap();
    }
    std::fs::copy(&library, target.join("_litnav.abi3.so")).unwrap();
}

#[test]
#[cfg_attr(not(feature = "python"), ignore = "tier `python`: needs Python, PyPI once, and the shared datasets")]
fn the_python_package_equals_the_cli_and_the_fields_own_packages() {
    let binary = build_dir().join("litnav");
    assert!(binary.is_file(), "{} is missing: run the workspace's tests (cargo test --workspace)", binary.display());
    let python = environment();
    let site = tempfile::tempdir().unwrap();
    package(site.path());
    let shared = crate_dir().join("../../../shared");
    run(
        Command::new(&python)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir"])
            .arg(crate_dir().join("tests/python"))
            .arg(crate_dir().join("tests/python"))
            .env("PYTHONPATH", site.path())
            .env("LITNAV_BIN", &binary)
            .env("LITNAV_SHARED", &shared),
        "pytest",
    );
}

#[test]
fn the_package_is_built_by_maturin_from_this_crate() {
    let pyproject = std::fs::read_to_string(crate_dir().join("pyproject.toml")).unwrap();
    assert!(pyproject.contains("build-backend = \"maturin\""), "{pyproject}");
    assert!(pyproject.contains("module-name = \"litnav._litnav\""), "the module name must match the library's");
    assert!(
        pyproject.contains("python-source = \"python\"") && crate_dir().join("python/litnav/__init__.py").is_file()
    );
    let manifest = std::fs::read_to_string(crate_dir().join("Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"_litnav\"") && manifest.contains("abi3-py39"), "{manifest}");
}
