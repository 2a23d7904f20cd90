//! TaxoBench's public `data.jsonl`: one survey per line with `id`, `survey`, `survey_topic`,
//! `pdfs: [{title, abs}]` and `gt` (the expert taxonomy). Each `pdfs` entry becomes a paper (id
//! derived from its title); the line becomes a topic `taxobench:<id>` that keeps `gt`.

use super::records::for_each_record;
use super::{Item, PaperRecord, Sink, TopicRecord, at};
use crate::error::Result;
use crate::json::Fields;
use crate::paper::{IdOrigin, Paper, Topic};
use std::path::Path;

pub(crate) fn read(path: &Path, sink: &mut Sink<'_>) -> Result<()> {
    for_each_record(path, sink, |fields| instance(&fields))
}

fn instance(fields: &Fields<'_>) -> Result<Vec<Item>> {
    let id = fields
        .opt_id("id")?
        .ok_or_else(|| fields.error("id", "is missing; every TaxoBench instance has an id".into()))?;
    let title = match fields.opt_str("survey_topic")? {
        Some(title) => title,
        None => fields.req_str("survey")?,
    };
    let taxonomy = fields.get("gt").cloned();
    if let Some(gt) = &taxonomy
        && !gt.is_object()
    {
        return Err(fields.error("gt", "must be a taxonomy object with `name` and `subtopics`".into()));
    }
    let mut items = Vec::new();
    let mut titles = Vec::new();
    for (i, pdf) in fields.array("pdfs")?.iter().enumerate() {
        let pdf = fields.nested(pdf, &format!("pdfs[{i}]"))?;
        let paper_title = pdf.req_str("title")?;
        titles.push(paper_title.clone());
        let mut paper = Paper {
            id_origin: IdOrigin::Title,
            title: paper_title,
            abstract_text: pdf.opt_str("abs")?,
            ..Paper::default()
        };
        paper.topics.push(taxobench_topic_id(&id));
        items.push(Item::Paper(Box::new(PaperRecord {
            paper,
            survey_explicit: false,
            references: Vec::new(),
            at: at(fields.file, fields.line, Some(&format!("pdfs[{i}]"))),
        })));
    }
    items.push(Item::Topic(Box::new(TopicRecord {
        topic: Topic { id: taxobench_topic_id(&id), title, source: "taxobench".into(), taxonomy, ..Topic::default() },
        reference_ids: Vec::new(),
        reference_titles: titles,
    })));
    Ok(items)
}

/// The corpus topic id of TaxoBench instance `id` (`taxobench:<id>`).
pub fn taxobench_topic_id(id: &str) -> String {
    format!("taxobench:{id}")
}
