//! The columnar corpus: one directory of Parquet tables, written by `litnav export parquet` (from
//! a litnav corpus) and by `litnav ingest --openalex-snapshot … --parquet` (from an OpenAlex
//! snapshot), read by `litnav analytics`.
//!
//! | table | file | columns |
//! |---|---|---|
//! | papers | `papers.parquet` or `papers/*.parquet` | `node` int64 (key), `id` utf8, `title` utf8, `abstract` utf8?, `year` int32?, `date` date32?, `venue` utf8?, `authors` list⟨utf8⟩, `citation_count` int64? (the source's own count), `is_survey` bool, `doi` utf8?, `external_references` int32 |
//! | edges | `edges.parquet` or `edges/*.parquet` | `citing` int64, `cited` int64 — one row per "`citing` cites `cited`"; both ends are `node` keys |
//! | topics | `topics.parquet` | `id` utf8, `title` utf8, `year` int32?, `source` utf8, `references` list⟨int64⟩ (nodes), `unresolved_references` int32 |
//! | contexts | `contexts.parquet` | `citing` int64, `cited` int64, `section` utf8?, `paragraph` utf8, `text` utf8, `sentiment` utf8? |
//!
//! `node` is an int64 key, unique in `papers`: for a litnav corpus the node number of its
//! citation graph (papers in id order), for OpenAlex the number of the work's id (`W2741809807` →
//! 2741809807). An edge may name a node that `papers` lacks (a reference outside the corpus); the
//! analytics ignore such edges, as the in-memory graph counts them as external references. Dates
//! are days since 1970-01-01 (Arrow date32).
//!
//! Results (`litnav analytics … --out DIR`) are Parquet too: `cd.parquet` (see [`crate::cd`]).

use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use std::sync::Arc;

/// The papers table's file stem.
pub const PAPERS: &str = "papers";
/// The edges table's file stem.
pub const EDGES: &str = "edges";
/// The topics table's file stem.
pub const TOPICS: &str = "topics";
/// The contexts table's file stem.
pub const CONTEXTS: &str = "contexts";

/// The papers table's columns the analytics read (a table must have at least these).
pub const PAPERS_READ: [&str; 4] = ["node", "id", "year", "date"];
/// The edges table's columns the analytics read.
pub const EDGES_READ: [&str; 2] = ["citing", "cited"];

fn utf8_list() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
}

/// The papers table.
pub fn papers() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("node", DataType::Int64, false),
        Field::new("id", DataType::Utf8, false),
        Field::new("title", DataType::Utf8, false),
        Field::new("abstract", DataType::Utf8, true),
        Field::new("year", DataType::Int32, true),
        Field::new("date", DataType::Date32, true),
        Field::new("venue", DataType::Utf8, true),
        Field::new("authors", utf8_list(), false),
        Field::new("citation_count", DataType::Int64, true),
        Field::new("is_survey", DataType::Boolean, false),
        Field::new("doi", DataType::Utf8, true),
        Field::new("external_references", DataType::Int32, false),
    ]))
}

/// The edges table.
pub fn edges() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("citing", DataType::Int64, false),
        Field::new("cited", DataType::Int64, false),
    ]))
}

/// The topics table.
pub fn topics() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("title", DataType::Utf8, false),
        Field::new("year", DataType::Int32, true),
        Field::new("source", DataType::Utf8, false),
        Field::new("references", DataType::List(Arc::new(Field::new("item", DataType::Int64, true))), false),
        Field::new("unresolved_references", DataType::Int32, false),
    ]))
}

/// The contexts table.
pub fn contexts() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("citing", DataType::Int64, false),
        Field::new("cited", DataType::Int64, false),
        Field::new("section", DataType::Utf8, true),
        Field::new("paragraph", DataType::Utf8, false),
        Field::new("text", DataType::Utf8, false),
        Field::new("sentiment", DataType::Utf8, true),
    ]))
}
