//! ARCHITECTURE.md's crate table and layers, checked against the manifests: each crate's litnav
//! dependencies (required and optional) are the table's, and each depends only on crates of
//! layers above its own. A crate added, split or rewired without the document fails here.

#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};

/// A crate's litnav dependencies from its manifest: (required, optional), by short name
/// (`litnav-app` → `app`, the `litnav` command → `cli`).
fn manifest_dependencies(manifest: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut in_dependencies = false;
    let (mut required, mut optional) = (BTreeSet::new(), BTreeSet::new());
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
            continue;
        }
        if !in_dependencies {
            continue;
        }
        let name = line.split(['=', '.', ' ']).next().unwrap_or_default();
        let short = match name {
            "litnav" => "cli".to_string(),
            _ => match name.strip_prefix("litnav-") {
                Some(short) => short.to_string(),
                None => continue,
            },
        };
        if line.contains("optional = true") {
            optional.insert(short)
        } else {
            required.insert(short)
        };
    }
    (required, optional)
}

/// Every crate's short name (its directory under `crates/`) and manifest.
fn manifests() -> BTreeMap<String, String> {
    let crates = litnav_testkit::root().join("crates");
    std::fs::read_dir(&crates)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|dir| dir.join("Cargo.toml").is_file())
        .map(|dir| {
            (
                dir.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(dir.join("Cargo.toml")).unwrap(),
            )
        })
        .collect()
}

fn architecture() -> String {
    std::fs::read_to_string(litnav_testkit::root().join("ARCHITECTURE.md")).unwrap()
}

/// A cell's comma-separated crate names (`—` for none).
fn names(cell: &str) -> BTreeSet<String> {
    cell.split(',').map(str::trim).filter(|n| !n.is_empty() && *n != "—").map(str::to_string).collect()
}

/// The table's rows: crate → (required, optional).
fn table(text: &str) -> BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> {
    let start = text.find("| crate | depends on (litnav crates) |").expect("the crate table");
    text[start..]
        .lines()
        .skip(2)
        .take_while(|line| line.starts_with('|'))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            (cells[1].trim_matches('`').to_string(), (names(cells[2]), names(cells[3])))
        })
        .collect()
}

/// The layers' block: crate → layer.
fn layers(text: &str) -> BTreeMap<String, usize> {
    let start = text.find(" 0  core").expect("the layers");
    let mut layer_of = BTreeMap::new();
    for line in text[start..].lines().take_while(|line| !line.starts_with("```")) {
        let (number, rest) = line.trim_start().split_once("  ").unwrap();
        let layer: usize = number.parse().unwrap();
        for entry in rest.split(" · ") {
            let name = entry.split(" (").next().unwrap().trim();
            layer_of.insert(name.to_string(), layer);
        }
    }
    layer_of
}

#[test]
fn the_crate_table_is_the_manifests() {
    let table = table(&architecture());
    let manifests = manifests();
    assert_eq!(table.keys().collect::<Vec<_>>(), manifests.keys().collect::<Vec<_>>(), "the table lists every crate");
    for (name, manifest) in &manifests {
        assert_eq!(table[name], manifest_dependencies(manifest), "ARCHITECTURE.md's row of `{name}`");
    }
}

#[test]
fn no_crate_depends_on_a_crate_of_its_own_layer_or_below() {
    let layer_of = layers(&architecture());
    for (name, manifest) in manifests() {
        let own = *layer_of.get(&name).unwrap_or_else(|| panic!("`{name}` is in no layer"));
        let (required, optional) = manifest_dependencies(&manifest);
        for dependency in required.union(&optional) {
            assert!(
                layer_of[dependency] < own,
                "`{name}` (layer {own}) depends on `{dependency}` (layer {})",
                layer_of[dependency]
            );
        }
    }
}

#[test]
fn a_table_row_is_read_as_written() {
    let text = "| crate | depends on (litnav crates) | optional | what |\n|---|---|---|---|\n| `x` | a, b | c | it |\n| `y` | — | — | it |\n";
    let rows = table(text);
    assert_eq!(rows["x"], (names("a, b"), names("c")));
    assert!(rows["y"].0.is_empty() && rows["y"].1.is_empty());
    let (required, optional) = manifest_dependencies(
        "[dependencies]\nlitnav-a.workspace = true\nlitnav-b = { workspace = true, optional = true }\nserde = \"1\"\n[dev-dependencies]\nlitnav-c.workspace = true\n",
    );
    assert_eq!((required, optional), (names("a"), names("b")));
}
