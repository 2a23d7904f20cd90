//! A litnav corpus as the columnar corpus of [`crate::schema`]: papers, citation edges, topics and
//! citation contexts, each a Parquet file. Node numbers are those of the corpus's citation graph,
//! so results computed from the tables line up with the in-memory graph's.

use crate::schema;
use crate::tables::{BATCH_ROWS, TableWriter, edges_batch};
use crate::{Result, io_error};
use datafusion::arrow::array::{
    ArrayBuilder, ArrayRef, BooleanBuilder, Date32Builder, Int32Builder, Int64Builder, ListBuilder, StringBuilder,
};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use litnav_corpus::{Paper, Topic};
use litnav_graph::Graph;
use litnav_graph::contexts::CitationContext;
use serde::Serialize;
use std::path::Path;
use std::sync::Arc;

/// Rows written per table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Exported {
    /// Papers.
    pub papers: u64,
    /// Citation edges inside the corpus.
    pub edges: u64,
    /// Topics.
    pub topics: u64,
    /// Citation contexts between papers of the corpus.
    pub contexts: u64,
}

/// Write the four tables into `out` (created when missing). Each file appears whole or not at all.
pub fn export_corpus(
    papers: &[Paper],
    topics: &[Topic],
    graph: &Graph,
    contexts: &[CitationContext],
    out: &Path,
) -> Result<Exported> {
    std::fs::create_dir_all(out).map_err(io_error(out))?;
    Ok(Exported {
        papers: write_papers(papers, graph, out)?,
        edges: write_edges(graph, out)?,
        topics: write_topics(topics, graph, out)?,
        contexts: write_contexts(contexts, graph, out)?,
    })
}

fn node_of(graph: &Graph, id: &str) -> Option<i64> {
    graph.find(id).map(i64::from)
}

fn batch(schema: &SchemaRef, columns: Vec<ArrayRef>) -> Result<RecordBatch> {
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}

fn write_papers(papers: &[Paper], graph: &Graph, out: &Path) -> Result<u64> {
    let mut writer = TableWriter::create(out, schema::PAPERS, schema::papers())?;
    for chunk in papers.chunks(BATCH_ROWS) {
        let mut rows = PaperRows::default();
        for paper in chunk {
            // Every paper is a node of its corpus's graph (the graph is built from the papers); a
            // missing one would be refused as a null in the non-null `node` column.
            rows.push(node_of(graph, &paper.id), paper);
        }
        writer.write(&rows.finish()?)?;
    }
    writer.finish()
}

/// Rows of the papers table being built.
#[derive(Default)]
pub(crate) struct PaperRows {
    node: Int64Builder,
    id: StringBuilder,
    title: StringBuilder,
    abstract_text: StringBuilder,
    year: Int32Builder,
    date: Date32Builder,
    venue: StringBuilder,
    authors: ListBuilder<StringBuilder>,
    citation_count: Int64Builder,
    is_survey: BooleanBuilder,
    doi: StringBuilder,
    external: Int32Builder,
}

impl PaperRows {
    /// Add a paper as node `node`.
    pub(crate) fn push(&mut self, node: Option<i64>, paper: &Paper) {
        self.push_with_id(node, &paper.id, paper);
    }

    /// Add a paper under another id than its own (an OpenAlex work's `W…`).
    pub(crate) fn push_with_id(&mut self, node: Option<i64>, id: &str, paper: &Paper) {
        self.node.append_option(node);
        self.id.append_value(id);
        self.title.append_value(&paper.title);
        self.abstract_text.append_option(paper.abstract_text.as_deref());
        self.year.append_option(paper.year);
        self.date.append_option(paper.date.as_deref().and_then(litnav_core::date::Date::parse).map(|d| d.days()));
        self.venue.append_option(paper.venue.as_deref());
        for author in &paper.authors {
            self.authors.values().append_value(author);
        }
        self.authors.append(true);
        self.citation_count.append_option(paper.citation_count.and_then(|c| i64::try_from(c).ok()));
        self.is_survey.append_value(paper.is_survey);
        self.doi.append_option(paper.ids.get("doi").map(String::as_str));
        self.external.append_value(i32::try_from(paper.external_references.len()).unwrap_or(i32::MAX));
    }

    /// Rows added so far.
    pub(crate) fn len(&self) -> usize {
        self.id.len()
    }

    /// The rows as a batch of the papers table (the builders start over).
    pub(crate) fn finish(&mut self) -> Result<RecordBatch> {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.node.finish()),
            Arc::new(self.id.finish()),
            Arc::new(self.title.finish()),
            Arc::new(self.abstract_text.finish()),
            Arc::new(self.year.finish()),
            Arc::new(self.date.finish()),
            Arc::new(self.venue.finish()),
            Arc::new(self.authors.finish()),
            Arc::new(self.citation_count.finish()),
            Arc::new(self.is_survey.finish()),
            Arc::new(self.doi.finish()),
            Arc::new(self.external.finish()),
        ];
        batch(&schema::papers(), columns)
    }
}

fn write_edges(graph: &Graph, out: &Path) -> Result<u64> {
    let mut writer = TableWriter::create(out, schema::EDGES, schema::edges())?;
    let edges: Vec<(u32, u32)> = graph.edges().collect();
    for chunk in edges.chunks(BATCH_ROWS) {
        let citing = chunk.iter().map(|&(from, _)| i64::from(from)).collect();
        let cited = chunk.iter().map(|&(_, to)| i64::from(to)).collect();
        writer.write(&edges_batch(citing, cited)?)?;
    }
    writer.finish()
}

fn write_topics(topics: &[Topic], graph: &Graph, out: &Path) -> Result<u64> {
    let schema = schema::topics();
    let mut writer = TableWriter::create(out, schema::TOPICS, schema.clone())?;
    for chunk in topics.chunks(BATCH_ROWS) {
        let (mut id, mut title, mut source) = (StringBuilder::new(), StringBuilder::new(), StringBuilder::new());
        let (mut year, mut unresolved) = (Int32Builder::new(), Int32Builder::new());
        let mut references = ListBuilder::new(Int64Builder::new());
        for topic in chunk {
            id.append_value(&topic.id);
            title.append_value(&topic.title);
            year.append_option(topic.year);
            source.append_value(&topic.source);
            let mut missing = topic.unresolved_references.len();
            for reference in &topic.reference_ids {
                match node_of(graph, reference) {
                    Some(node) => references.values().append_value(node),
                    None => missing += 1,
                }
            }
            references.append(true);
            unresolved.append_value(i32::try_from(missing).unwrap_or(i32::MAX));
        }
        let columns: Vec<ArrayRef> = vec![
            Arc::new(id.finish()),
            Arc::new(title.finish()),
            Arc::new(year.finish()),
            Arc::new(source.finish()),
            Arc::new(references.finish()),
            Arc::new(unresolved.finish()),
        ];
        writer.write(&batch(&schema, columns)?)?;
    }
    writer.finish()
}

fn write_contexts(contexts: &[CitationContext], graph: &Graph, out: &Path) -> Result<u64> {
    let schema = schema::contexts();
    let mut writer = TableWriter::create(out, schema::CONTEXTS, schema.clone())?;
    let linked: Vec<(i64, i64, &CitationContext)> = contexts
        .iter()
        .filter_map(|c| Some((node_of(graph, &c.citing_id)?, node_of(graph, &c.cited_id)?, c)))
        .collect();
    for chunk in linked.chunks(BATCH_ROWS) {
        let (mut citing, mut cited) = (Int64Builder::new(), Int64Builder::new());
        let (mut section, mut paragraph) = (StringBuilder::new(), StringBuilder::new());
        let (mut text, mut sentiment) = (StringBuilder::new(), StringBuilder::new());
        for &(from, to, context) in chunk {
            citing.append_value(from);
            cited.append_value(to);
            section.append_option(context.section.as_deref());
            paragraph.append_value(&context.paragraph);
            text.append_value(&context.text);
            sentiment.append_option(context.sentiment.map(|s| s.name()));
        }
        let columns: Vec<ArrayRef> = vec![
            Arc::new(citing.finish()),
            Arc::new(cited.finish()),
            Arc::new(section.finish()),
            Arc::new(paragraph.finish()),
            Arc::new(text.finish()),
            Arc::new(sentiment.finish()),
        ];
        writer.write(&batch(&schema, columns)?)?;
    }
    writer.finish()
}
