//! A citation graph as the columnar corpus's papers and edges (for benchmarks and for checking
//! the plans against the in-memory graph): each node a paper whose title is its id, with its
//! year or date and venue; each edge a citation.

use crate::Result;
use crate::schema;
use crate::tables::{BATCH_ROWS, TableWriter, edges_batch};
use datafusion::arrow::array::{
    ArrayRef, BooleanArray, Date32Array, Int32Array, Int64Array, ListBuilder, StringArray, StringBuilder,
};
use datafusion::arrow::record_batch::RecordBatch;
use litnav_graph::{Graph, Node};
use std::path::Path;
use std::sync::Arc;

/// Write `graph` as `papers.parquet` and `edges.parquet` in `out`; node keys are graph nodes.
pub fn write_graph(graph: &Graph, out: &Path) -> Result<()> {
    let schema = schema::papers();
    let mut papers = TableWriter::create(out, schema::PAPERS, schema.clone())?;
    let nodes: Vec<Node> = graph.nodes().collect();
    for chunk in nodes.chunks(BATCH_ROWS) {
        let ids: StringArray = chunk.iter().map(|&n| Some(graph.id(n))).collect();
        let mut authors = ListBuilder::new(StringBuilder::new());
        for _ in chunk {
            authors.append(true);
        }
        let nulls = |n: usize| -> ArrayRef { Arc::new(StringArray::new_null(n)) };
        let columns: Vec<ArrayRef> = vec![
            Arc::new(chunk.iter().map(|&n| i64::from(n)).collect::<Int64Array>()),
            Arc::new(ids.clone()),
            Arc::new(ids),
            nulls(chunk.len()),
            Arc::new(chunk.iter().map(|&n| graph.year(n)).collect::<Int32Array>()),
            Arc::new(chunk.iter().map(|&n| graph.date(n)).collect::<Date32Array>()),
            Arc::new(chunk.iter().map(|&n| graph.venue(n)).collect::<StringArray>()),
            Arc::new(authors.finish()),
            Arc::new(Int64Array::new_null(chunk.len())),
            Arc::new(BooleanArray::from(vec![false; chunk.len()])),
            nulls(chunk.len()),
            Arc::new(chunk.iter().map(|&n| graph.external_references(n) as i32).collect::<Int32Array>()),
        ];
        papers.write(&RecordBatch::try_new(schema.clone(), columns)?)?;
    }
    papers.finish()?;
    let mut edges = TableWriter::create(out, schema::EDGES, schema::edges())?;
    let (mut citing, mut cited) = (Vec::with_capacity(BATCH_ROWS), Vec::with_capacity(BATCH_ROWS));
    for (from, to) in graph.edges() {
        citing.push(i64::from(from));
        cited.push(i64::from(to));
        if citing.len() == BATCH_ROWS {
            edges.write(&edges_batch(std::mem::take(&mut citing), std::mem::take(&mut cited))?)?;
        }
    }
    if !citing.is_empty() {
        edges.write(&edges_batch(citing, cited)?)?;
    }
    edges.finish()?;
    Ok(())
}
