//! OpenAlex works, as the snapshot (JSON lines, often gzipped) and the API (`results` pages) ship
//! them. Fields read: `id`, `doi`, `title` / `display_name`, `abstract_inverted_index` (rebuilt
//! into text), `publication_year`, `publication_date`, `primary_location.source.display_name`,
//! `authorships[].author.display_name`, `cited_by_count`, `referenced_works`, `type` (kept; `review`
//! marks a survey), `is_paratext`, `is_retracted`, `language` and `ids` (`mag`, `pmid`, `pmcid`).
//! Every field the documented work object allows to be null may be; titles, abstracts, venues and
//! names are cleaned of markup ([`litnav_core::markup::plain_text`]).

use super::records::for_each_record;
use super::{Item, PaperRecord, Sink, at};
use crate::error::Result;
use crate::json::{Fields, kind};
use crate::normalize::clean_doi;
use crate::paper::{IdOrigin, Paper};
use litnav_core::markup::plain_text;
use serde_json::Value;
use std::path::Path;

/// Positions beyond this in an inverted abstract are treated as corrupt rather than allocated.
const MAX_ABSTRACT_WORDS: u64 = 50_000;

pub(crate) fn read(path: &Path, sink: &mut Sink<'_>) -> Result<()> {
    for_each_record(path, sink, |fields| Ok(vec![Item::Paper(Box::new(work(&fields)?))]))
}

/// Every work of one OpenAlex snapshot file (JSON lines, gzipped or not), streamed in order: `each`
/// gets the paper (`ids["openalex"]` is the work's short id, `W…`) and its referenced works' short
/// ids. Errors name the file, line and field; reading stops at the first.
pub fn for_each_work(path: &Path, mut each: impl FnMut(Paper, Vec<String>) -> Result<()>) -> Result<()> {
    super::lines::for_each_line(path, |number, line| {
        let value = super::records::json_line(path, number, line?)?;
        let record = work(&Fields::of(&value, path, number)?)?;
        each(record.paper, record.references)
    })
}

fn work(fields: &Fields<'_>) -> Result<PaperRecord> {
    let title = title(fields)?
        .ok_or_else(|| fields.error("title", "is missing (and so is `display_name`); a work needs a title".into()))?;
    let source_type = fields.opt_str("type")?;
    let work_type =
        litnav_core::work::work_type(source_type.as_deref(), fields.opt_bool("is_paratext")?.unwrap_or(false));
    let mut paper = Paper {
        id_origin: IdOrigin::Title,
        title,
        abstract_text: abstract_from_inverted_index(fields)?.map(|text| plain_text(&text).into_owned()),
        year: fields.opt_year("publication_year")?,
        venue: venue(fields)?.map(|venue| plain_text(&venue).into_owned()),
        authors: authors(fields)?.iter().map(|name| plain_text(name).into_owned()).collect(),
        citation_count: fields.opt_count("cited_by_count")?,
        is_survey: source_type.as_deref().is_some_and(|t| t.trim().eq_ignore_ascii_case("review")),
        retracted: fields.opt_bool("is_retracted")?.unwrap_or(false),
        language: fields.opt_str("language")?,
        work_type,
        ..Paper::default()
    };
    super::jsonl::set_date(&mut paper, fields.opt_date("publication_date")?);
    if let Some(id) = fields.opt_str("id")? {
        paper.ids.insert("openalex".into(), short_openalex_id(&id));
    }
    if let Some(doi) = fields.opt_str("doi")? {
        let doi = clean_doi(&doi);
        if let Some(arxiv) = doi.strip_prefix("10.48550/arxiv.") {
            paper.ids.insert("arxiv".into(), arxiv.to_string());
        }
        paper.ids.insert("doi".into(), doi);
    }
    if let Some(Value::Object(ids)) = fields.get("ids") {
        for key in ["mag", "pmid", "pmcid"] {
            match ids.get(key) {
                Some(Value::String(v)) if !v.is_empty() => {
                    paper.ids.insert(key.into(), v.rsplit('/').next().unwrap_or(v).to_string());
                }
                Some(Value::Number(n)) => {
                    paper.ids.insert(key.into(), n.to_string());
                }
                _ => {}
            }
        }
    }
    let references = fields.strings("referenced_works")?.iter().map(|w| short_openalex_id(w)).collect();
    Ok(PaperRecord {
        paper,
        survey_explicit: source_type.is_some(),
        references,
        at: at(fields.file, fields.line, None),
    })
}

/// A work's title as text: `title`, else `display_name`, cleaned of markup; `None` when neither
/// holds any text (OpenAlex has such works).
fn title(fields: &Fields<'_>) -> Result<Option<String>> {
    let (title, display_name) = (fields.opt_str("title")?, fields.opt_str("display_name")?);
    match litnav_core::work::title(title.as_deref(), display_name.as_deref()) {
        litnav_core::work::Title::Text { text, .. } => Ok(Some(text)),
        _ => Ok(None),
    }
}

/// Rebuild the abstract from `{word: [positions]}`: each word at each of its positions, joined by
/// single spaces. Missing positions are skipped.
fn abstract_from_inverted_index(fields: &Fields<'_>) -> Result<Option<String>> {
    const FIELD: &str = "abstract_inverted_index";
    let index = match fields.get(FIELD) {
        None => return Ok(None),
        Some(Value::Object(index)) => index,
        Some(other) => {
            return Err(fields.error(FIELD, format!("expected an object of word → positions, found {}", kind(other))));
        }
    };
    let mut placed: Vec<(u64, &str)> = Vec::new();
    for (word, positions) in index {
        let Value::Array(positions) = positions else {
            return Err(fields.error(
                &format!("{FIELD}.{word}"),
                format!("expected an array of positions, found {}", kind(positions)),
            ));
        };
        for position in positions {
            match position.as_u64() {
                Some(p) if p < MAX_ABSTRACT_WORDS => placed.push((p, word.as_str())),
                _ => {
                    return Err(fields.error(
                        &format!("{FIELD}.{word}"),
                        format!("expected word positions between 0 and {MAX_ABSTRACT_WORDS}, found {position}"),
                    ));
                }
            }
        }
    }
    placed.sort_unstable();
    let text = placed.iter().map(|(_, w)| *w).collect::<Vec<_>>().join(" ");
    Ok(Some(text).filter(|t| !t.trim().is_empty()))
}

fn venue(fields: &Fields<'_>) -> Result<Option<String>> {
    let Some(location) = fields.get("primary_location") else { return Ok(None) };
    let location = fields.nested(location, "primary_location")?;
    let Some(source) = location.get("source") else { return Ok(None) };
    location.nested(source, "source")?.opt_str("display_name")
}

fn authors(fields: &Fields<'_>) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for (i, authorship) in fields.array("authorships")?.iter().enumerate() {
        let authorship = fields.nested(authorship, &format!("authorships[{i}]"))?;
        let name = match authorship.get("author") {
            Some(author) => authorship.nested(author, "author")?.opt_str("display_name")?,
            None => None,
        };
        match name {
            Some(name) => names.push(name),
            None => {
                if let Some(raw) = authorship.opt_str("raw_author_name")? {
                    names.push(raw);
                }
            }
        }
    }
    Ok(names)
}

/// `https://openalex.org/W2741809807` → `W2741809807`.
pub(crate) fn short_openalex_id(id: &str) -> String {
    id.trim().rsplit('/').next().unwrap_or(id).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openalex_id_cleanup() {
        assert_eq!(short_openalex_id("https://openalex.org/W2741809807"), "W2741809807");
        assert_eq!(short_openalex_id("W1"), "W1");
    }
}
