//! litnav/litbench paper lines and litbench topic lines, plus the JSON record walker every JSON
//! reader shares.

use super::{Item, PaperRecord, Sink, TopicRecord, at, lines};
use crate::error::{Error, Result};
use crate::json::Fields;
use crate::paper::{IdOrigin, Paper, Topic};
use serde_json::Value;
use std::path::Path;

/// Call `parse` on every JSON record of a file: one per line for JSON lines, or each element of a
/// single JSON document that is an array or an object with a `results` array (an API page).
pub(crate) fn for_each_record(
    path: &Path,
    sink: &mut Sink,
    mut parse: impl FnMut(Fields<'_>) -> Result<Vec<Item>>,
) -> Result<()> {
    let first = lines::first_content(path)?;
    // The first line alone: not JSON but opening one → a pretty-printed document; an object with
    // a `results` array → an API page. Either way the file is one JSON document.
    let is_document = match serde_json::from_str::<Value>(first.trim()) {
        Err(_) => first.trim_start().starts_with(['{', '[']),
        Ok(value) => value.get("results").is_some_and(Value::is_array),
    };
    if is_document {
        let document = lines::whole_json(path)?;
        let records = match &document {
            Value::Array(items) => items.as_slice(),
            Value::Object(map) => match map.get("results") {
                Some(Value::Array(items)) => items.as_slice(),
                _ => std::slice::from_ref(&document),
            },
            _ => std::slice::from_ref(&document),
        };
        for (i, record) in records.iter().enumerate() {
            let outcome = Fields::of(record, path, 0).and_then(|mut fields| {
                fields.prefix = format!("[{i}].");
                parse(fields)
            });
            sink.take(outcome)?;
        }
        return Ok(());
    }
    lines::for_each_line(path, |number, line| {
        let outcome = line.and_then(|text| {
            let value: Value = serde_json::from_str(text).map_err(|e| Error::BadRecord {
                at: at(path, number, None),
                message: format!("is not valid JSON: {e}"),
            })?;
            parse(Fields::of(&value, path, number)?)
        });
        sink.take(outcome)
    })
}

pub(crate) fn read_papers(path: &Path, sink: &mut Sink) -> Result<()> {
    for_each_record(path, sink, |fields| Ok(vec![Item::Paper(paper(&fields)?)]))
}

/// One paper line. Required: `title`. Everything else is optional; unknown fields are ignored.
fn paper(fields: &Fields<'_>) -> Result<PaperRecord> {
    let title = fields.req_str("title")?;
    let id = fields.opt_id("id")?;
    let survey = fields.opt_bool("is_survey")?;
    let mut paper = Paper {
        id_origin: if id.is_some() { IdOrigin::Source } else { IdOrigin::Title },
        id: id.unwrap_or_default(),
        title,
        abstract_text: fields.opt_str("abstract")?,
        year: fields.opt_year("year")?,
        venue: fields.opt_str("venue")?,
        authors: fields.strings("authors")?,
        citation_count: fields.opt_count("citation_count")?,
        is_survey: survey.unwrap_or(false),
        topics: fields.strings("sources")?,
        abstract_suspect: fields.opt_bool("abstract_suspect")?.unwrap_or(false),
        ..Paper::default()
    };
    for key in ["doi", "arxiv_id", "openalex_id"] {
        if let Some(value) = fields.opt_str(key)? {
            paper.ids.insert(key.trim_end_matches("_id").to_string(), value);
        }
    }
    if let Some(doi) = paper.ids.get_mut("doi") {
        *doi = super::openalex::clean_doi(doi);
    }
    Ok(PaperRecord {
        paper,
        survey_explicit: survey.is_some(),
        references: fields.strings("references")?,
        at: at(fields.file, fields.line, None),
    })
}

pub(crate) fn read_topics(path: &Path, sink: &mut Sink) -> Result<()> {
    for_each_record(path, sink, |fields| Ok(vec![Item::Topic(topic(&fields)?)]))
}

/// One litbench topic line: `topic_id` (or `id`), `title`, `year`, `reference_ids`, `outline`,
/// `taxonomy`, `source`.
fn topic(fields: &Fields<'_>) -> Result<TopicRecord> {
    let id = match fields.opt_id("topic_id")? {
        Some(id) => id,
        None => fields.opt_id("id")?.ok_or_else(|| fields.error("topic_id", "is missing; topics need an id".into()))?,
    };
    Ok(TopicRecord {
        topic: Topic {
            id,
            title: fields.req_str("title")?,
            year: fields.opt_year("year")?,
            source: fields.opt_str("source")?.unwrap_or_else(|| "litbench".into()),
            taxonomy: fields.get("taxonomy").cloned(),
            outline: fields.get("outline").cloned(),
            ..Topic::default()
        },
        reference_ids: fields.strings("reference_ids")?,
        reference_titles: Vec::new(),
    })
}
