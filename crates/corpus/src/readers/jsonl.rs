//! litnav/litbench paper lines and litbench topic lines.

use super::records::for_each_record;
use super::{Item, PaperRecord, Sink, TopicRecord, at};
use crate::error::Result;
use crate::json::Fields;
use crate::paper::{IdOrigin, Paper, Topic};
use std::path::Path;

pub(crate) fn read_papers(path: &Path, sink: &mut Sink<'_>) -> Result<()> {
    for_each_record(path, sink, |fields| Ok(vec![Item::Paper(Box::new(paper(&fields)?))]))
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
        work_type: fields.opt_str("type")?,
        retracted: fields.opt_bool("retracted")?.unwrap_or(false),
        language: fields.opt_str("language")?,
        ..Paper::default()
    };
    for key in ["doi", "arxiv_id", "openalex_id"] {
        if let Some(value) = fields.opt_str(key)? {
            paper.ids.insert(key.trim_end_matches("_id").to_string(), value);
        }
    }
    if let Some(doi) = paper.ids.get_mut("doi") {
        *doi = crate::normalize::clean_doi(doi);
    }
    let date = match fields.opt_date("date")? {
        Some(date) => Some(date),
        None => fields.opt_date("publication_date")?,
    };
    set_date(&mut paper, date);
    Ok(PaperRecord {
        paper,
        survey_explicit: survey.is_some(),
        references: fields.strings("references")?,
        at: at(fields.file, fields.line, None),
    })
}

/// A paper's publication date, and its year when the source gave none.
pub(crate) fn set_date(paper: &mut Paper, date: Option<litnav_core::date::Date>) {
    if let Some(date) = date {
        paper.year = paper.year.or(Some(date.year));
        paper.date = Some(date.to_string());
    }
}

pub(crate) fn read_topics(path: &Path, sink: &mut Sink<'_>) -> Result<()> {
    for_each_record(path, sink, |fields| Ok(vec![Item::Topic(Box::new(topic(&fields)?))]))
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
