//! A survey as one Markdown file, the form generators write: headings (ATX `#` or setext
//! underlines; the first top-level heading is the title), paragraphs with numbered or author–year
//! citation markers, and a references section (`## References`, `Bibliography`, …).
//!
//! Each non-blank line of the references section is one entry (a line that only continues the
//! previous one — indented, without a marker — is joined to it). An entry is numbered when it
//! starts with `[n]`, `n.` or `n)`; its author–year key is read from the text before its first
//! year. Its title is, in order of preference: a quoted span (“…” or "…"); the sentence after a
//! parenthesized year (`Smith, J. (2020). Title. Venue.`); the sentence after an author list
//! ending in a period (`A. Smith and B. Lee. Title. Venue, 2020.`); else the whole entry without
//! its marker. An entry with neither a number nor an author–year key is of an unknown style:
//! counted, kept, unreachable by markers.

use crate::markers::{self, CitationId};
use crate::text::{self, normalize_whitespace};
use crate::{Error, Layout, Problems, Reference, Result, Survey};
use regex::Regex;
use std::path::Path;
use std::sync::LazyLock;

fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| unreachable!("a fixed pattern compiles: {e}"))
}

static MARKER: LazyLock<Regex> = LazyLock::new(|| regex(r"^\s*(?:[-*+]\s*)?(?:\[(\d+)\]|(\d+)\s*[.)])\s*"));
static BULLET: LazyLock<Regex> = LazyLock::new(|| regex(r"^\s*[-*+]\s+"));
static QUOTED: LazyLock<Regex> = LazyLock::new(|| regex(r#"[“"]([^”"]{4,})[”"]"#));
static AFTER_YEAR: LazyLock<Regex> = LazyLock::new(|| regex(r"\((?:19|20)\d{2}[a-z]?\)\.?\s*([^.?!]+[.?!]?)"));
static AFTER_AUTHORS: LazyLock<Regex> = LazyLock::new(|| regex(r"^.*?[a-z]{2,}\.\s+([^.?!]{8,}[.?!]?)"));
static YEAR: LazyLock<Regex> = LazyLock::new(|| regex(r"\b(?:19|20)\d{2}\b"));

/// Read a Markdown survey.
pub fn read(path: &Path) -> Result<Survey> {
    let content = normalize_whitespace(&crate::read_text(path)?);
    if content.trim().is_empty() {
        return Err(Error::Input(format!("{}: the survey is empty", path.display())));
    }
    let mut problems = Problems::default();
    let (body, section) = text::split_references(&content);
    let bibliography = match &section {
        Some(section) => references(section),
        None => {
            problems.warnings.push(format!("{}: no references section (`## References`)", path.display()));
            Vec::new()
        }
    };
    let cited = markers::cited_ids(&body);
    let defined = section.as_deref().map(markers::numbers_defined_in_section).unwrap_or_default();
    let defined = if defined.is_empty() {
        // An author–year bibliography defines keys, not numbers.
        bibliography.iter().filter_map(|r| r.author_year.clone()).collect()
    } else {
        defined
    };
    let outline = crate::outline_from_text(&content);
    let sections = crate::structure(&content, &bibliography, &mut problems);
    let title = outline
        .iter()
        .find(|h| h.level == 0)
        .map(|h| h.text.clone())
        .unwrap_or_else(|| path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default());
    Ok(Survey {
        path: path.to_path_buf(),
        layout: Layout::Markdown,
        title,
        content,
        outline,
        sections,
        bibliography,
        cited,
        defined,
        defined_from: "the references section".into(),
        problems,
    })
}

/// The entries of a references section.
pub fn references(section: &str) -> Vec<Reference> {
    let mut lines: Vec<String> = Vec::new();
    for line in section.split('\n') {
        if line.trim().is_empty() {
            continue;
        }
        let continues = line.starts_with([' ', '\t']) && !MARKER.is_match(line) && !BULLET.is_match(line);
        match lines.last_mut() {
            Some(previous) if continues => {
                previous.push(' ');
                previous.push_str(line.trim());
            }
            _ => lines.push(line.trim().to_string()),
        }
    }
    lines.iter().enumerate().map(|(i, line)| entry(i, line)).collect()
}

fn entry(index: usize, line: &str) -> Reference {
    let number =
        MARKER.captures(line).and_then(|c| c.get(1).or_else(|| c.get(2))).and_then(|m| m.as_str().parse().ok());
    let without_marker = BULLET.replace(&MARKER.replace(line, ""), "").trim().to_string();
    let author_year = markers::defined_ids(std::slice::from_ref(&without_marker))
        .into_iter()
        .find(|id| matches!(id, CitationId::AuthorYear(..)));
    let year = YEAR.find(&without_marker).map(|m| m.as_str().to_string());
    Reference {
        key: number.map_or_else(|| format!("entry_{}", index + 1), |n| format!("[{n}]")),
        number,
        author_year,
        title: title_of(&without_marker),
        year,
        raw: Some(line.to_string()),
        ..Reference::default()
    }
}

/// The title of a printed reference (see the module doc for the rules).
pub fn title_of(entry: &str) -> String {
    let clean = |t: &str| t.trim().trim_end_matches(['.', ',', ';']).trim().to_string();
    if let Some(m) = QUOTED.captures(entry) {
        return clean(&m[1]);
    }
    if let Some(m) = AFTER_YEAR.captures(entry) {
        return clean(&m[1]);
    }
    if YEAR.is_match(entry)
        && let Some(m) = AFTER_AUTHORS.captures(entry)
    {
        return clean(&m[1]);
    }
    clean(entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_of_common_reference_styles() {
        assert_eq!(title_of("Transformers in Vision  A Survey"), "Transformers in Vision  A Survey");
        assert_eq!(
            title_of("Y. LeCun et al., “Gradient-based learning applied to document recognition,” Proc. IEEE, 1998."),
            "Gradient-based learning applied to document recognition"
        );
        assert_eq!(title_of("Smith, J., & Lee, K. (2020). Deep nets for graphs. In NeurIPS."), "Deep nets for graphs");
        assert_eq!(title_of("A. Smith and B. Lee. Deep nets for graphs. NeurIPS, 2020."), "Deep nets for graphs");
    }

    #[test]
    fn a_references_section_in_three_styles() {
        let section = "[1] Alpha paper title\n\n2. Beta paper title\n  continued here\n- Smith, J. (2020). Gamma study. Venue.\nno marker and no year";
        let refs = references(section);
        assert_eq!(refs.len(), 4);
        assert_eq!((refs[0].number, refs[0].title.as_str()), (Some(1), "Alpha paper title"));
        assert_eq!((refs[1].number, refs[1].title.as_str()), (Some(2), "Beta paper title continued here"));
        assert_eq!(refs[2].author_year, Some(CitationId::AuthorYear("smith".into(), "2020".into())));
        assert_eq!(refs[2].title, "Gamma study");
        assert!(refs[3].number.is_none() && refs[3].author_year.is_none());
    }
}
