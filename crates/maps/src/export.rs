//! Papers and maps written out for other tools: BibTeX and RIS for reference managers, CSV for
//! spreadsheets, JSON (records litnav itself ingests), Markdown, and the self-contained HTML page.
//! Each text format is one that litnav's own readers (BibTeX, JSON) or a common library (CSV)
//! read back, which the tests check.

use litnav_corpus::Paper;
use litnav_organize::{MapNode, render};
use litnav_session::error::{Error, Result};
use litnav_session::session::CorpusSession;
use serde::Serialize;
use std::collections::HashSet;

/// An export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// BibTeX entries (`@article` with a venue, `@misc` without).
    Bibtex,
    /// RIS records.
    Ris,
    /// One row per paper with a header.
    Csv,
    /// Paper records (or, for a map, the map itself).
    Json,
    /// An outline (a map) or a list (papers).
    Markdown,
    /// The self-contained page of a map.
    Html,
}

impl Format {
    /// Every format, in the order menus list them.
    pub const ALL: [Format; 6] =
        [Format::Bibtex, Format::Ris, Format::Csv, Format::Json, Format::Markdown, Format::Html];

    /// The format's name in URLs and flags.
    pub fn name(self) -> &'static str {
        match self {
            Format::Bibtex => "bibtex",
            Format::Ris => "ris",
            Format::Csv => "csv",
            Format::Json => "json",
            Format::Markdown => "markdown",
            Format::Html => "html",
        }
    }

    /// The format with this name (`md` and `bib` accepted too).
    pub fn parse(name: &str) -> Result<Format> {
        let name = name.to_ascii_lowercase();
        Format::ALL.into_iter().find(|f| f.name() == name || f.extension() == name).ok_or_else(|| {
            let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
            Error::input(format!("unknown export format {name:?} (one of {})", names.join(", ")))
        })
    }

    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Bibtex => "bib",
            Format::Ris => "ris",
            Format::Csv => "csv",
            Format::Json => "json",
            Format::Markdown => "md",
            Format::Html => "html",
        }
    }

    /// The media type.
    pub fn media_type(self) -> &'static str {
        match self {
            Format::Bibtex => "application/x-bibtex; charset=utf-8",
            Format::Ris => "application/x-research-info-systems; charset=utf-8",
            Format::Csv => "text/csv; charset=utf-8",
            Format::Json => "application/json",
            Format::Markdown => "text/markdown; charset=utf-8",
            Format::Html => "text/html; charset=utf-8",
        }
    }
}

/// Papers (a basket) in `format`; `title` heads the formats that have a heading.
pub fn papers(title: &str, papers: &[&Paper], format: Format) -> Result<String> {
    match format {
        Format::Bibtex => Ok(bibtex(papers)),
        Format::Ris => Ok(ris(papers)),
        Format::Csv => csv(papers),
        Format::Json => {
            let records: Vec<Record<'_>> = papers.iter().map(|p| Record::of(p)).collect();
            serde_json::to_string_pretty(&records).map_err(|e| Error::internal(format!("JSON export: {e}")))
        }
        Format::Markdown => Ok(markdown_list(title, papers)),
        Format::Html => Ok(render::html(&basket_map(title, papers), &[])),
    }
}

/// A map in `format`: the map itself as JSON, Markdown or HTML (the HTML page with `notes`, what
/// building the map said); its papers (each once, in map order) as BibTeX, RIS or CSV.
pub fn map(session: &CorpusSession, map: &MapNode, notes: &[String], format: Format) -> Result<String> {
    match format {
        Format::Json => serde_json::to_string_pretty(map).map_err(|e| Error::internal(format!("JSON export: {e}"))),
        Format::Markdown => Ok(render::markdown(map)),
        Format::Html => Ok(render::html(&with_display_fields(session, map)?, notes)),
        Format::Bibtex | Format::Ris | Format::Csv => {
            let mut seen = HashSet::new();
            let ids = map.all_paper_ids();
            let list = session.papers_of(ids.iter().filter(|id| seen.insert(id.as_str())))?;
            papers(&map.name, &list, format)
        }
    }
}

/// The map with each paper's year and abstract filled in from the corpus (JSON maps do not carry
/// them; the page shows them).
pub fn with_display_fields(session: &CorpusSession, map: &MapNode) -> Result<MapNode> {
    let mut map = map.clone();
    fill(session, &mut map)?;
    Ok(map)
}

fn fill(session: &CorpusSession, node: &mut MapNode) -> Result<()> {
    let found: Vec<Option<&Paper>> = node.paper_ids.iter().map(|id| session.paper(id)).collect::<Result<_>>()?;
    node.years = found.iter().map(|p| p.and_then(|p| p.year)).collect();
    node.abstracts = found.iter().map(|p| p.and_then(|p| p.abstract_text.clone())).collect();
    for child in &mut node.subtopics {
        fill(session, child)?;
    }
    Ok(())
}

/// A paper as litnav's JSON reader reads it back.
#[derive(Serialize)]
struct Record<'a> {
    id: &'a str,
    title: &'a str,
    #[serde(rename = "abstract", skip_serializing_if = "Option::is_none")]
    abstract_text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    year: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    venue: Option<&'a str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    authors: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    citation_count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    doi: Option<&'a str>,
}

impl<'a> Record<'a> {
    fn of(paper: &'a Paper) -> Record<'a> {
        Record {
            id: &paper.id,
            title: &paper.title,
            abstract_text: paper.abstract_text.as_deref(),
            year: paper.year,
            venue: paper.venue.as_deref(),
            authors: &paper.authors,
            citation_count: paper.citation_count,
            doi: doi(paper),
        }
    }
}

fn doi(paper: &Paper) -> Option<&str> {
    paper.ids.get("doi").map(String::as_str)
}

fn bibtex(papers: &[&Paper]) -> String {
    let mut keys = HashSet::new();
    let mut out = String::new();
    for paper in papers {
        let key = unique_key(&mut keys, &citation_key(paper));
        let kind = if paper.venue.is_some() { "article" } else { "misc" };
        out.push_str(&format!("@{kind}{{{key},\n"));
        // Double braces keep the title's capitals as written.
        out.push_str(&format!("  title = {{{{{}}}}},\n", bibtex_text(&paper.title)));
        if !paper.authors.is_empty() {
            let authors: Vec<String> = paper.authors.iter().map(|a| bibtex_text(a)).collect();
            out.push_str(&format!("  author = {{{}}},\n", authors.join(" and ")));
        }
        if let Some(year) = paper.year {
            out.push_str(&format!("  year = {{{year}}},\n"));
        }
        if let Some(venue) = &paper.venue {
            out.push_str(&format!("  journal = {{{}}},\n", bibtex_text(venue)));
        }
        if let Some(doi) = doi(paper) {
            out.push_str(&format!("  doi = {{{}}},\n", bibtex_text(doi)));
        }
        if let Some(text) = &paper.abstract_text {
            out.push_str(&format!("  abstract = {{{}}},\n", bibtex_text(text)));
        }
        out.push_str(&format!("  note = {{litnav id {}}}\n}}\n\n", bibtex_text(&paper.id)));
    }
    out
}

/// `surname` + year + first content word of the title, ASCII letters and digits only.
fn citation_key(paper: &Paper) -> String {
    let surname = paper.authors.first().and_then(|a| a.split_whitespace().last()).unwrap_or("anon");
    let word = paper.title.split_whitespace().find(|w| w.chars().filter(|c| c.is_alphanumeric()).count() > 3);
    let raw = format!("{surname}{}{}", paper.year.map(|y| y.to_string()).unwrap_or_default(), word.unwrap_or(""));
    let key: String = raw.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_lowercase();
    if key.is_empty() { "paper".to_string() } else { key }
}

fn unique_key(taken: &mut HashSet<String>, key: &str) -> String {
    let mut candidate = key.to_string();
    let mut suffix = b'a';
    while !taken.insert(candidate.clone()) {
        candidate = format!("{key}{}", suffix as char);
        suffix = if suffix == b'z' { b'a' } else { suffix + 1 };
        if suffix == b'a' {
            candidate = format!("{candidate}{}", taken.len());
        }
    }
    candidate
}

/// Text safe inside a braced BibTeX value: braces and backslashes dropped (they would unbalance
/// or escape the value), TeX's special characters escaped.
fn bibtex_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '{' | '}' | '\\' => {}
            '&' | '%' | '$' | '#' | '_' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' | '\t' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

fn ris(papers: &[&Paper]) -> String {
    let mut out = String::new();
    let line = |out: &mut String, tag: &str, value: &str| {
        let value: String = value.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        out.push_str(&format!("{tag}  - {value}\n"));
    };
    for paper in papers {
        line(&mut out, "TY", if paper.venue.is_some() { "JOUR" } else { "GEN" });
        line(&mut out, "TI", &paper.title);
        for author in &paper.authors {
            line(&mut out, "AU", author);
        }
        if let Some(year) = paper.year {
            line(&mut out, "PY", &year.to_string());
        }
        if let Some(venue) = &paper.venue {
            line(&mut out, "T2", venue);
        }
        if let Some(doi) = doi(paper) {
            line(&mut out, "DO", doi);
        }
        if let Some(text) = &paper.abstract_text {
            line(&mut out, "AB", text);
        }
        line(&mut out, "ID", &paper.id);
        out.push_str("ER  - \n\n");
    }
    out
}

fn csv(papers: &[&Paper]) -> Result<String> {
    let failed = |e: csv::Error| Error::internal(format!("CSV export: {e}"));
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(["id", "title", "year", "venue", "authors", "citations", "doi", "abstract"]).map_err(failed)?;
    for paper in papers {
        writer
            .write_record([
                paper.id.as_str(),
                paper.title.as_str(),
                &paper.year.map(|y| y.to_string()).unwrap_or_default(),
                paper.venue.as_deref().unwrap_or(""),
                &paper.authors.join("; "),
                &paper.citation_count.map(|c| c.to_string()).unwrap_or_default(),
                doi(paper).unwrap_or(""),
                paper.abstract_text.as_deref().unwrap_or(""),
            ])
            .map_err(failed)?;
    }
    let bytes = writer.into_inner().map_err(|e| Error::internal(format!("CSV export: {e}")))?;
    String::from_utf8(bytes).map_err(|e| Error::internal(format!("CSV export: {e}")))
}

fn markdown_list(title: &str, papers: &[&Paper]) -> String {
    let mut out = format!("# {title}\n\n");
    for paper in papers {
        let year = paper.year.map(|y| format!(" ({y})")).unwrap_or_default();
        let authors = if paper.authors.is_empty() { String::new() } else { format!(" {}.", paper.authors.join(", ")) };
        let venue = paper.venue.as_deref().map(|v| format!(" *{v}*.")).unwrap_or_default();
        out.push_str(&format!("- **{}**{year}.{authors}{venue} `{}`\n", paper.title, paper.id));
    }
    out
}

/// A map whose one subtopic holds the papers, so a basket gets the same page a map does.
fn basket_map(title: &str, papers: &[&Paper]) -> MapNode {
    let mut list = MapNode::new("Papers".to_string(), String::new(), 1.0);
    list.id = "b1".to_string();
    list.papers = papers.iter().map(|p| p.title.clone()).collect();
    list.paper_ids = papers.iter().map(|p| p.id.clone()).collect();
    list.years = papers.iter().map(|p| p.year).collect();
    list.abstracts = papers.iter().map(|p| p.abstract_text.clone()).collect();
    let mut map = MapNode::new(title.to_string(), format!("{} papers", papers.len()), 1.0);
    map.id = "root".to_string();
    map.subtopics = vec![list];
    map
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn paper(id: &str, title: &str, authors: &[&str], year: Option<i32>, venue: Option<&str>) -> Paper {
        Paper {
            id: id.into(),
            title: title.into(),
            authors: authors.iter().map(|a| a.to_string()).collect(),
            year,
            venue: venue.map(String::from),
            abstract_text: Some("We study {braces} & 50% of $things_here\non two lines.".into()),
            ..Paper::default()
        }
    }

    #[test]
    fn keys_are_unique_and_plain() {
        let a = paper("a", "The Attention Mechanism", &["Ashish Vaswani"], Some(2017), Some("NeurIPS"));
        let b = paper("b", "The Attention Mechanism", &["Ashish Vaswani"], Some(2017), None);
        let text = bibtex(&[&a, &b]);
        assert!(text.contains("@article{vaswani2017attention,"), "{text}");
        assert!(text.contains("@misc{vaswani2017attentiona,"), "{text}");
        assert!(text.contains(r"\& 50\% of \$things\_here on two lines."), "{text}");
        assert!(!text.contains("{braces}"), "{text}");
    }

    #[test]
    fn formats_parse_by_name_and_extension() {
        assert_eq!(Format::parse("BibTeX").unwrap(), Format::Bibtex);
        assert_eq!(Format::parse("md").unwrap(), Format::Markdown);
        let error = Format::parse("docx").unwrap_err().to_string();
        assert!(error.contains("bibtex, ris, csv, json, markdown, html"), "{error}");
    }

    #[test]
    fn ris_has_one_record_per_paper() {
        let a = paper("a", "One", &["A B", "C D"], Some(2020), Some("V"));
        let b = paper("b", "Two", &[], None, None);
        let text = ris(&[&a, &b]);
        assert_eq!(text.matches("ER  - ").count(), 2);
        assert_eq!(text.matches("\nAU  - ").count(), 2);
        assert!(text.starts_with("TY  - JOUR\nTI  - One\n"));
        assert!(text.contains("TY  - GEN\nTI  - Two\n"));
    }
}
