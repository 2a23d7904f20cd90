//! The in-memory engine over the columnar corpus: the papers and edges tables read into litnav's
//! CSR graph, the analytics computed there and written in the same result format as the
//! DataFusion plans — the baseline `bench scale` compares the engines against, and the fastest
//! choice for any graph that fits in memory.

use crate::cd::CdSummary;
use crate::novelty::NoveltySummary;
use crate::related::{RelatedSummary, Relation};
use crate::tables::{
    BATCH_ROWS, TableLocation, TableWriter, column, int64_column, locate, missing_table, table_error, text_column,
};
use crate::{Result, io_error, schema};
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Float64Array, Int64Array, RecordBatch, StringArray, UInt32Array, UInt64Array,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Int32Type, Schema};
use datafusion::parquet::arrow::ProjectionMask;
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use litnav_graph::disruption::{CdOptions, disruption_all};
use litnav_graph::novelty::Units;
use litnav_graph::pairs::{Related, TwoSteps};
use litnav_graph::{Graph, Node, NodeInfo};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The Parquet files of table `stem` in `dir` (one file, or every file of its directory).
fn table_files(dir: &Path, stem: &str) -> Result<Vec<PathBuf>> {
    let folder = match locate(dir, stem) {
        Some(TableLocation::File(file)) => return Ok(vec![file]),
        Some(TableLocation::Parts(folder)) => folder,
        None => return Err(missing_table(dir, stem)),
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .map_err(io_error(&folder))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "parquet"))
        .collect();
    files.sort();
    Ok(files)
}

/// Every batch of the columns `names` of table `stem`, in file order.
fn read_columns(
    dir: &Path,
    stem: &str,
    names: &[&str],
    mut each: impl FnMut(&Path, &RecordBatch) -> Result<()>,
) -> Result<()> {
    for path in table_files(dir, stem)? {
        let file = std::fs::File::open(&path).map_err(io_error(&path))?;
        let builder = ParquetRecordBatchReaderBuilder::try_new(file)?;
        let fields = builder.parquet_schema();
        for name in names {
            if !fields.columns().iter().any(|c| c.path().parts().first().is_some_and(|p| p == name)) {
                return Err(table_error(&path, format!("the {stem} table has no `{name}` column")));
            }
        }
        let mask = ProjectionMask::columns(fields, names.iter().copied());
        for batch in builder.with_projection(mask).with_batch_size(BATCH_ROWS).build()? {
            each(&path, &batch?)?;
        }
    }
    Ok(())
}

/// The graph of a columnar corpus, and each graph node's key (`node` column). Nodes are in key
/// order; edges naming a key the papers lack are dropped, as are self-citations and repeats.
pub fn load_graph(dir: &Path) -> Result<(Graph, Vec<i64>)> {
    load(dir, false)
}

/// [`load_graph`] with each paper's venue (novelty's units).
pub fn load_graph_with_venues(dir: &Path) -> Result<(Graph, Vec<i64>)> {
    load(dir, true)
}

fn load(dir: &Path, with_venues: bool) -> Result<(Graph, Vec<i64>)> {
    let mut papers: Vec<(i64, NodeInfo)> = Vec::new();
    let mut columns = schema::PAPERS_READ.to_vec();
    if with_venues {
        columns.push("venue");
    }
    read_columns(dir, schema::PAPERS, &columns, |path, batch| {
        let keys = int64_column(batch, path, "node")?;
        let ids = text_column(batch, path, "id")?;
        let years = cast(column(batch, path, "year")?, &DataType::Int32)?;
        let years = years.as_primitive::<Int32Type>();
        let dates = cast(column(batch, path, "date")?, &DataType::Int32)?;
        let dates = dates.as_primitive::<Int32Type>();
        let venues = if with_venues { Some(text_column(batch, path, "venue")?) } else { None };
        for row in 0..batch.num_rows() {
            let optional = |a: &datafusion::arrow::array::Int32Array| a.is_valid(row).then(|| a.value(row));
            if keys.is_null(row) || ids.is_null(row) {
                return Err(table_error(path, format!("a paper without `node` or `id` (row {row} of a batch)")));
            }
            let info = NodeInfo {
                id: ids.value(row).to_string(),
                year: optional(years),
                date: optional(dates),
                venue: venues.as_ref().and_then(|v| v.is_valid(row).then(|| v.value(row).to_string())),
                ..NodeInfo::default()
            };
            papers.push((keys.value(row), info));
        }
        Ok(())
    })?;
    papers.sort_unstable_by_key(|(key, _)| *key);
    if let Some(pair) = papers.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(table_error(dir, format!("node {} appears twice in the papers table", pair[0].0)));
    }
    let keys: Vec<i64> = papers.iter().map(|(key, _)| *key).collect();
    let pairs = numbered_edges(dir, &keys)?;
    let nodes = papers.into_iter().map(|(_, info)| info).collect();
    Ok((Graph::from_numbered_edges(nodes, &pairs), keys))
}

/// The edges between papers of `keys` (ascending, distinct) as node numbers; edges naming a key
/// the papers lack, and self-citations, are left out.
fn numbered_edges(dir: &Path, keys: &[i64]) -> Result<Vec<(Node, Node)>> {
    let number = numbering(keys);
    let mut pairs = Vec::new();
    read_columns(dir, schema::EDGES, &schema::EDGES_READ, |path, batch| {
        let (citing, cited) = (int64_column(batch, path, "citing")?, int64_column(batch, path, "cited")?);
        for row in 0..batch.num_rows() {
            if let (Some(from), Some(to)) = (number(citing.value(row)), number(cited.value(row)))
                && from != to
            {
                pairs.push((from, to));
            }
        }
        Ok(())
    })?;
    Ok(pairs)
}

/// The node number of a paper's key, given every key ascending and distinct. Keys that are one
/// contiguous run (litnav's exports and synthetic tables number papers 0, 1, 2, …) are numbered
/// by subtraction; others by binary search, which on 100M edges cost more than the kernel.
fn numbering(keys: &[i64]) -> impl Fn(i64) -> Option<Node> + '_ {
    let first = keys.first().copied().unwrap_or(0);
    let contiguous =
        keys.last().and_then(|last| last.checked_sub(first)).is_some_and(|span| span == keys.len() as i64 - 1);
    move |key| {
        if contiguous {
            key.checked_sub(first)
                .filter(|&offset| (0..keys.len() as i64).contains(&offset))
                .map(|offset| offset as Node)
        } else {
            keys.binary_search(&key).ok().map(|index| index as Node)
        }
    }
}

/// The CD index of every paper from the in-memory graph, written as `out/cd.parquet` in the
/// format of [`crate::cd::compute`].
pub fn disruption(dir: &Path, window: Option<u32>, out: &Path) -> Result<CdSummary> {
    let (graph, keys) = load_graph(dir)?;
    let values = disruption_all(&graph, CdOptions { window, ..CdOptions::default() });
    let fields = crate::cd::value_fields();
    let metadata = crate::cd::metadata(window);
    let papers = write_per_paper(&graph, &keys, (out, crate::cd::RESULT, metadata), fields, |chunk| {
        crate::cd::value_columns(&chunk.iter().map(|&n| &values[n as usize]).collect::<Vec<_>>())
    })?;
    let timed = graph.nodes().filter(|&n| graph.timestamp(n).is_some()).count() as u64;
    Ok(CdSummary {
        papers,
        timed,
        dated: graph.timeline() == litnav_graph::Timeline::Dates,
        ranges: 1,
        jobs: 1,
        window,
    })
}

/// Every paper's novelty against the expected null from the in-memory graph, written as
/// `out/novelty.parquet` in the format of [`crate::novelty::compute`].
pub fn novelty(dir: &Path, units: Units, out: &Path) -> Result<NoveltySummary> {
    let (graph, keys) = load_graph_with_venues(dir)?;
    let values = litnav_graph::novelty::expected::novelty_all(&graph, units);
    let target = (out, crate::novelty::RESULT, crate::novelty::metadata(units));
    let papers = write_per_paper(&graph, &keys, target, crate::novelty::value_fields(), |chunk| {
        crate::novelty::value_columns(&chunk.iter().map(|&n| &values[n as usize]).collect::<Vec<_>>())
    })?;
    Ok(NoveltySummary { papers, units: units.name(), null: "expected" })
}

/// Write one row per paper — `node`, `id`, then `fields` as `columns` gives them for a chunk of
/// nodes — to `dir/<stem>.parquet` with the footer `metadata`; returns the rows written.
fn write_per_paper(
    graph: &Graph,
    keys: &[i64],
    (dir, stem, metadata): (&Path, &str, Vec<(String, String)>),
    fields: Vec<Field>,
    columns: impl Fn(&[Node]) -> Vec<ArrayRef>,
) -> Result<u64> {
    let mut all = vec![Field::new("node", DataType::Int64, false), Field::new("id", DataType::Utf8, false)];
    all.extend(fields);
    let schema = Arc::new(Schema::new(all));
    let mut writer = TableWriter::with_metadata(dir, stem, schema.clone(), metadata)?;
    let nodes: Vec<Node> = graph.nodes().collect();
    for chunk in nodes.chunks(BATCH_ROWS) {
        let mut row: Vec<ArrayRef> = vec![
            Arc::new(chunk.iter().map(|&n| keys[n as usize]).collect::<Int64Array>()),
            Arc::new(chunk.iter().map(|&n| Some(graph.id(n))).collect::<StringArray>()),
        ];
        row.extend(columns(chunk));
        writer.write(&RecordBatch::try_new(schema.clone(), row)?)?;
    }
    writer.finish()
}

/// Every paper's citation counts and percentile from the in-memory graph, written as
/// `out/counts.parquet` in the format of [`crate::counts::compute`]; returns the papers written.
pub fn counts(dir: &Path, out: &Path) -> Result<u64> {
    let (graph, keys) = load_graph(dir)?;
    let table = litnav_graph::percentile::PercentileTable::new(graph.nodes().map(|n| Some(graph.in_degree(n) as f64)));
    let fields = vec![
        Field::new("citations", DataType::Int64, false),
        Field::new("references", DataType::Int64, false),
        Field::new("citation_percentile", DataType::Float64, false),
    ];
    write_per_paper(&graph, &keys, (out, crate::counts::RESULT, Vec::new()), fields, |chunk| {
        vec![
            Arc::new(chunk.iter().map(|&n| graph.in_degree(n) as i64).collect::<Int64Array>()),
            Arc::new(chunk.iter().map(|&n| graph.out_degree(n) as i64).collect::<Int64Array>()),
            Arc::new(chunk.iter().map(|&n| table.rank(graph.in_degree(n) as f64)).collect::<Float64Array>()),
        ]
    })
}

/// The top related papers of every paper from the in-memory graph, written as
/// `out/<relation>.parquet` in the format of [`crate::related::compute`].
pub fn related(dir: &Path, relation: Relation, top: u32, out: &Path) -> Result<RelatedSummary> {
    use rayon::prelude::*;
    let (graph, keys) = load_graph(dir)?;
    let mut fields = vec![Field::new("node", DataType::Int64, false), Field::new("id", DataType::Utf8, false)];
    fields.extend(crate::related::value_fields());
    let schema = Arc::new(Schema::new(fields));
    let metadata = crate::related::metadata(relation, top);
    let mut writer = TableWriter::with_metadata(out, relation.name(), schema.clone(), metadata)?;
    let nodes: Vec<Node> = graph.nodes().collect();
    for chunk in nodes.chunks(BATCH_ROWS) {
        let lists: Vec<Vec<Related>> = chunk
            .par_iter()
            .map_init(
                || TwoSteps::new(graph.len()),
                |counter, &paper| match relation {
                    Relation::CoCitation => counter.co_cited(&graph, paper, top as usize),
                    Relation::Coupling => counter.coupled(&graph, paper, top as usize),
                },
            )
            .collect();
        let entries: Vec<(Node, usize, &Related)> = chunk
            .iter()
            .zip(&lists)
            .flat_map(|(&paper, list)| list.iter().enumerate().map(move |(i, r)| (paper, i, r)))
            .collect();
        let columns: Vec<ArrayRef> = vec![
            Arc::new(entries.iter().map(|(n, _, _)| keys[*n as usize]).collect::<Int64Array>()),
            Arc::new(entries.iter().map(|(n, _, _)| Some(graph.id(*n))).collect::<StringArray>()),
            Arc::new(entries.iter().map(|(_, i, _)| *i as u32 + 1).collect::<UInt32Array>()),
            Arc::new(entries.iter().map(|(_, _, r)| keys[r.node as usize]).collect::<Int64Array>()),
            Arc::new(entries.iter().map(|(_, _, r)| Some(graph.id(r.node))).collect::<StringArray>()),
            Arc::new(entries.iter().map(|(_, _, r)| r.count as u64).collect::<UInt64Array>()),
            Arc::new(entries.iter().map(|(_, _, r)| r.similarity).collect::<Float64Array>()),
        ];
        writer.write(&RecordBatch::try_new(schema.clone(), columns)?)?;
    }
    let rows = writer.finish()?;
    Ok(RelatedSummary { relation, rows, top })
}

#[cfg(test)]
mod tests {
    use super::numbering;

    #[test]
    fn keys_are_numbered_by_their_rank_whether_contiguous_or_not() {
        let contiguous = [7, 8, 9, 10];
        let number = numbering(&contiguous);
        assert_eq!([6, 7, 10, 11, i64::MIN, i64::MAX].map(&number), [None, Some(0), Some(3), None, None, None]);
        let gapped = [-5, 0, 3, 1_000_000];
        let number = numbering(&gapped);
        assert_eq!([-5, 3, 1_000_000, 1, 4].map(&number), [Some(0), Some(2), Some(3), None, None]);
        let extreme = [i64::MIN, i64::MAX];
        let number = numbering(&extreme);
        assert_eq!([i64::MIN, i64::MAX, 0].map(&number), [Some(0), Some(1), None]);
        assert_eq!(numbering(&[])(0), None);
    }
}
