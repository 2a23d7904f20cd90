//! The workspace's module rule, enforced: inside every crate, at every level of the module tree,
//! the sibling modules depend on one another without a cycle. A module's dependencies are the
//! paths it names (`use` trees and inline `crate::`/`super::` paths, outside its unit tests),
//! each resolved to the module that holds it; a module and everything under it count as one
//! sibling, and a parent naming its own children (the module tree itself) is not a dependency.

#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

/// Every module of the crate at `crate_dir` (by its path from the crate root) and its file.
fn modules(crate_dir: &Path) -> BTreeMap<Module, PathBuf> {
    let src = crate_dir.join("src");
    let mut found = BTreeMap::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(&src).unwrap().with_extension("");
            let mut module: Module = relative.iter().map(|part| part.to_string_lossy().into_owned()).collect();
            if module.last().is_some_and(|last| last == "mod") || module == ["lib"] || module == ["main"] {
                module.pop();
            }
            found.insert(module, path);
        }
    }
    found
}

/// `text` without comments, string and character literals, and its trailing unit tests.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '"' => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            'r' if chars.get(i + 1) == Some(&'#')
                || (chars.get(i + 1) == Some(&'"') && !ident(chars.get(i.wrapping_sub(1)))) =>
            {
                let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
                let closing: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
                let rest: String = chars[i + 2 + hashes..].iter().collect();
                let length = rest.find(&closing).map_or(rest.len(), |at| at + closing.len());
                i += 2 + hashes + rest[..length].chars().count();
                out.push_str("\"\"");
            }
            '\'' if chars.get(i + 1) == Some(&'\\') || chars.get(i + 2) == Some(&'\'') => {
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

fn ident(c: Option<&char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

/// A `use` tree's paths, braces expanded (`a::{b, c::{d}}` → `a::b`, `a::c::d`).
fn expand(tree: &str) -> Vec<String> {
    let Some(open) = tree.find('{') else { return vec![tree.to_string()] };
    let close = tree.rfind('}').unwrap_or(tree.len());
    let (prefix, body) = (&tree[..open], &tree[open + 1..close]);
    let (mut parts, mut depth, mut current) = (Vec::new(), 0, String::new());
    for c in body.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    parts.push(current);
    parts.iter().filter(|p| !p.is_empty()).flat_map(|p| expand(p)).map(|p| format!("{prefix}{p}")).collect()
}

/// Every path `code` names that starts at `crate` or `super`.
fn paths(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let starts_word = at == 0 || !ident(rest[..at].chars().last().as_ref());
        rest = &rest[at + 4..];
        if let (true, Some(end)) = (starts_word, rest.find(';')) {
            let tree: String = rest[..end].chars().filter(|c| !c.is_whitespace()).collect();
            found.extend(expand(&tree));
        }
    }
    for start in ["crate::", "super::"] {
        for (at, _) in code.match_indices(start) {
            if at > 0 && (ident(code[..at].chars().last().as_ref()) || code[..at].ends_with("::")) {
                continue;
            }
            let path: String =
                code[at..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
            found.push(path);
        }
    }
    found
}

/// The modules `module` depends on, among `all`.
fn dependencies(module: &Module, code: &str, all: &BTreeMap<Module, PathBuf>) -> BTreeSet<Module> {
    let mut out = BTreeSet::new();
    for path in paths(code) {
        let mut parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty() && *p != "self").collect();
        let mut base: Module = match parts.first() {
            Some(&"crate") => Vec::new(),
            Some(&"super") => module.clone(),
            _ => continue,
        };
        if parts[0] == "crate" {
            parts.remove(0);
        }
        while parts.first() == Some(&"super") {
            base.pop();
            parts.remove(0);
        }
        base.extend(parts.iter().map(|p| p.to_string()));
        let target = (0..=base.len()).rev().map(|k| base[..k].to_vec()).find(|m| all.contains_key(m));
        if let Some(target) = target
            && !target.starts_with(module)
        {
            out.insert(target);
        }
    }
    out
}

/// The cycles among the children of each module: (parent, the modules of one cycle).
fn sibling_cycles(crate_dir: &Path) -> Vec<(String, Vec<String>)> {
    let all = modules(crate_dir);
    let graph: BTreeMap<Module, BTreeSet<Module>> = all
        .iter()
        .map(|(module, file)| {
            (module.clone(), dependencies(module, &code_of(&std::fs::read_to_string(file).unwrap()), &all))
        })
        .collect();
    let parents: BTreeSet<Module> = all.keys().filter(|m| !m.is_empty()).map(|m| m[..m.len() - 1].to_vec()).collect();
    let mut cycles = Vec::new();
    for parent in parents {
        let depth = parent.len();
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (module, targets) in &graph {
            if module.len() <= depth || !module.starts_with(&parent) {
                continue;
            }
            let from = module[depth].clone();
            let entry = edges.entry(from.clone()).or_default();
            for target in targets {
                if target.len() > depth && target.starts_with(&parent) && target[depth] != from {
                    entry.insert(target[depth].clone());
                }
            }
        }
        for component in strongly_connected(&edges) {
            let name = if parent.is_empty() { "the crate root".to_string() } else { parent.join("::") };
            cycles.push((name, component));
        }
    }
    cycles
}

/// The components of more than one node (Tarjan's algorithm).
fn strongly_connected(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(state: &mut State<'a>, node: &'a str) {
        let number = state.index.len();
        state.index.insert(node, number);
        state.low.insert(node, number);
        state.stack.push(node);
        for next in state.edges.get(node).into_iter().flatten() {
            if !state.index.contains_key(next.as_str()) {
                visit(state, next);
                let low = state.low[node].min(state.low[next.as_str()]);
                state.low.insert(node, low);
            } else if state.stack.contains(&next.as_str()) {
                let low = state.low[node].min(state.index[next.as_str()]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let at = state.stack.iter().position(|n| *n == node).unwrap();
            let component: Vec<String> = state.stack.split_off(at).into_iter().map(String::from).collect();
            if component.len() > 1 {
                state.found.push(component);
            }
        }
    }
    let mut state = State { edges, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), found: Vec::new() };
    for node in edges.keys() {
        if !state.index.contains_key(node.as_str()) {
            visit(&mut state, node);
        }
    }
    state.found
}

#[test]
fn no_crate_has_a_module_cycle() {
    let crates = litnav_testkit::root().join("crates");
    let mut cycles = Vec::new();
    for entry in std::fs::read_dir(&crates).unwrap() {
        let dir = entry.unwrap().path();
        if dir.join("src").is_dir() {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            cycles
                .extend(sibling_cycles(&dir).into_iter().map(|(parent, cycle)| format!("{name} {parent}: {cycle:?}")));
        }
    }
    assert!(cycles.is_empty(), "module cycles:\n{}", cycles.join("\n"));
}

#[test]
fn the_rule_sees_a_cycle_through_a_child_and_ignores_a_parent_using_its_children() {
    let dir = tempfile_dir();
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("api")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod api;\npub mod openapi;\n").unwrap();
    // api's child names openapi; openapi names api: a cycle between the siblings api and openapi.
    std::fs::write(src.join("api/mod.rs"), "mod search;\npub fn endpoints() { search::run(); }\n").unwrap();
    std::fs::write(src.join("api/search.rs"), "pub fn run() { crate::openapi::document(); }\n").unwrap();
    std::fs::write(src.join("openapi.rs"), "use crate::api::{endpoints};\n// crate::nothing\n").unwrap();
    assert_eq!(sibling_cycles(&dir).len(), 1);
    // Without openapi's use, nothing is left: api naming its child search is the tree itself.
    std::fs::write(src.join("openapi.rs"), "pub fn document() { let _ = \"crate::api\"; }\n").unwrap();
    assert!(sibling_cycles(&dir).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fresh directory for one test.
fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("litnav-modules-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
