//! Bloom-Eval's directory layout (feizhang18/Bloom-Eval, `data/<topic>/{human,llm}/`), read as its
//! scripts read it:
//! - `content.json` — the text: every string of the JSON joined by newlines (blank ones skipped);
//! - `outline.json` — `[level, heading]` pairs (the title at level 0);
//! - `reference.json` — `reference_N` entries in the order of N (or the older
//!   `reference_num` / `paper_N_info` schema), with `title` (or `searched_title`), `date`,
//!   `authors`, `publication`, `citation_count` (a number, or digits in a string; anything else
//!   counts as unknown) and `abs`;
//! - the article file — `expert_article.json` in `human/`, `llm_article.json` in `llm/` (else any
//!   other JSON with a `context` object and a `reference` list): its `context` sections joined are
//!   the body Formatting Integrity reads, its printed `reference` list what the bibliography
//!   defines. Without one, the references section of the content text defines the numbers.
//!
//! Only `content.json` is required; a missing optional file is a warning in the survey's problems.

use crate::markers::{self, CitationId};
use crate::text::{self, normalize_whitespace};
use crate::{Error, Heading, Layout, Problems, Reference, Result, Survey, field_error, value_text};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// Parse a JSON file, naming the file, line and column of a syntax error.
pub(crate) fn read_json(path: &Path) -> Result<Value> {
    let text = crate::read_text(path)?;
    serde_json::from_str(&text).map_err(|e| crate::json_error(path, &e))
}

/// Read the survey in a Bloom-Eval directory.
pub fn read(dir: &Path) -> Result<Survey> {
    let content_path = dir.join("content.json");
    if !content_path.is_file() {
        return Err(Error::Input(format!(
            "{}: no content.json here (a Bloom-Eval survey directory holds content.json, outline.json, reference.json and an article file)",
            dir.display()
        )));
    }
    let mut problems = Problems::default();
    let content_value = read_json(&content_path)?;
    let content = normalize_whitespace(
        &text::json_strings(&content_value).into_iter().filter(|s| !s.trim().is_empty()).collect::<Vec<_>>().join("\n"),
    );
    if content.trim().is_empty() {
        return Err(Error::Input(format!("{}: the survey has no text", content_path.display())));
    }
    let outline_path = dir.join("outline.json");
    let outline = if outline_path.is_file() {
        read_outline(&outline_path)?
    } else {
        problems
            .warnings
            .push(format!("{}: missing; the outline is taken from the text's headings", outline_path.display()));
        crate::outline_from_text(&content)
    };
    let reference_path = dir.join("reference.json");
    let mut bibliography = if reference_path.is_file() {
        read_references(&reference_path)?
    } else {
        problems
            .warnings
            .push(format!("{}: missing; the survey has no bibliography metadata", reference_path.display()));
        Vec::new()
    };
    let article = find_article(dir);
    let (body, printed) = match &article {
        Some((_, value)) => {
            let body = value["context"]
                .as_object()
                .map(|sections| sections.values().map(value_text).collect::<Vec<_>>().join("\n"))
                .unwrap_or_default();
            let printed: Vec<String> = value["reference"].as_array().into_iter().flatten().map(value_text).collect();
            (normalize_whitespace(&body), Some(printed))
        }
        None => {
            problems
                .warnings
                .push(format!("{}: no article file; citations are defined by the references section", dir.display()));
            (content.clone(), None)
        }
    };
    let (body_without_references, references_section) = text::split_references(&body);
    let cited = markers::cited_ids(&body_without_references);
    // What each printed entry defines: together the bibliography's definitions, and each entry's
    // numbers say which bibliography entry it prints.
    let defined_by_entry: Vec<BTreeSet<CitationId>> =
        printed.iter().flatten().map(|line| markers::defined_ids(std::slice::from_ref(line))).collect();
    let (defined, defined_from) = match &printed {
        Some(_) => (
            defined_by_entry.iter().flatten().cloned().collect(),
            format!(
                "the article's reference list ({})",
                article.as_ref().map(|(p, _)| p.display().to_string()).unwrap_or_default()
            ),
        ),
        None => (
            references_section.as_deref().map(markers::numbers_defined_in_section).unwrap_or_default(),
            "the references section".to_string(),
        ),
    };
    attach_printed_entries(&mut bibliography, printed.as_deref().unwrap_or(&[]), &defined_by_entry);
    let sections = crate::structure(&content, &bibliography, &mut problems);
    let title = outline
        .iter()
        .find(|h| h.level == 0)
        .map(|h| h.text.clone())
        .or_else(|| sections.iter().find(|s| !s.heading.is_empty()).map(|s| s.heading.clone()))
        .unwrap_or_else(|| dir.display().to_string());
    Ok(Survey {
        path: dir.to_path_buf(),
        layout: Layout::BloomEval,
        title,
        content,
        outline,
        sections,
        bibliography,
        cited,
        defined,
        defined_from,
        problems,
    })
}

/// The article file of a survey directory, as Bloom-Eval's scripts find it, and its JSON.
fn find_article(dir: &Path) -> Option<(PathBuf, Value)> {
    let article = |path: PathBuf| {
        let value = read_json(&path).ok()?;
        let is_article =
            value.get("context").is_some_and(Value::is_object) && value.get("reference").is_some_and(Value::is_array);
        is_article.then_some((path, value))
    };
    let preferred = if dir.file_name().is_some_and(|n| n == "llm") {
        ["llm_article.json", "expert_article.json"]
    } else {
        ["expert_article.json", "llm_article.json"]
    };
    for name in preferred {
        let path = dir.join(name);
        if path.is_file()
            && let Some(found) = article(path)
        {
            return Some(found);
        }
    }
    let mut others: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|e| e == "json")
                && !p.file_name().is_some_and(|n| n == "content.json" || n == "outline.json" || n == "reference.json")
        })
        .collect();
    others.sort();
    others.into_iter().find_map(article)
}

/// `outline.json`: `[level, heading]` pairs.
pub fn read_outline(path: &Path) -> Result<Vec<Heading>> {
    let value = read_json(path)?;
    let items = value.as_array().ok_or_else(|| field_error(path, "(root)", "a list of [level, heading] pairs"))?;
    let mut outline = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let pair = item
            .as_array()
            .filter(|p| p.len() >= 2)
            .ok_or_else(|| field_error(path, &format!("[{i}]"), "a [level, heading] pair"))?;
        let level = match &pair[0] {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
        .ok_or_else(|| field_error(path, &format!("[{i}][0]"), "a non-negative level"))?;
        outline.push(Heading { level: level as usize, text: value_text(&pair[1]) });
    }
    Ok(outline)
}

/// `reference.json`: bibliography entries in the order of their numbers.
pub fn read_references(path: &Path) -> Result<Vec<Reference>> {
    crate::references::read(path)
}

/// Keep each entry's printed form (the article's `reference` list, with what each one defines),
/// matched by number to the first bibliography entry of that number.
fn attach_printed_entries(
    bibliography: &mut [Reference],
    printed: &[String],
    defined_by_entry: &[BTreeSet<CitationId>],
) {
    let mut by_number: HashMap<u32, usize> = HashMap::new();
    for (i, entry) in bibliography.iter().enumerate() {
        if let Some(n) = entry.number {
            by_number.entry(n).or_insert(i);
        }
    }
    for (line, defined) in printed.iter().zip(defined_by_entry) {
        for id in defined {
            if let CitationId::Number(n) = id
                && let Some(&i) = by_number.get(n)
            {
                bibliography[i].raw = Some(line.clone());
            }
        }
    }
}
