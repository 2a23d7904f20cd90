//! `litnav ingest`.

use crate::progress::Terminal;
use anyhow::Result;
use litnav_app::request::ingest::IngestParams;

pub fn run(args: IngestParams) -> Result<()> {
    if let (Some(snapshot), Some(out)) = (&args.openalex_snapshot, &args.parquet) {
        return snapshot_to_parquet(snapshot, out, args.json);
    }
    let Some(corpus) = args.corpus.clone() else { anyhow::bail!("--corpus is required") };
    let request = args.request();
    let progress = Terminal::start(&format!("ingesting {} file(s) into {}", args.files.len(), corpus.display()));
    let report = litnav_app::Workspace::load()?.ingest(&corpus, &request);
    progress.finish();
    let report = report?;
    super::show(&report, args.json)
}

/// `ingest --openalex-snapshot DIR --parquet OUT`.
fn snapshot_to_parquet(snapshot: &std::path::Path, out: &std::path::Path, json: bool) -> Result<()> {
    let progress = Terminal::start(&format!("reading the OpenAlex snapshot {}", snapshot.display()));
    let ingested = litnav_app::analytics::snapshot_to_parquet(snapshot, out);
    progress.finish();
    super::show(&ingested?, json)
}
