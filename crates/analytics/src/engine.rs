//! Where plans run: DataFusion embedded in this process, or a Ballista cluster. Both get the
//! same SQL over the same tables and the same user-defined functions; only the session differs.

use crate::tables::{TableLocation, TableWriter, locate, missing_table, table_error};
use crate::{Error, Result, schema};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::execution::memory_pool::FairSpillPool;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The engine a session runs on.
#[derive(Debug, Clone, PartialEq)]
pub enum Engine {
    /// litnav's in-memory CSR graph (no SQL: the tables are read into memory).
    Memory,
    /// DataFusion in this process.
    Local(LocalOptions),
    /// A Ballista scheduler (`df://host:port`) and the executors registered with it.
    Ballista {
        /// The scheduler's URL.
        scheduler: String,
        /// How long a job may take before it is abandoned with an error (a lost executor can
        /// leave a Ballista job waiting indefinitely).
        timeout: std::time::Duration,
    },
}

/// How the embedded engine uses this machine.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalOptions {
    /// Parallel partitions (default: the cores).
    pub partitions: usize,
    /// Memory the engine may hold before spilling sorts and aggregates to disk (None: no limit).
    pub memory_limit: Option<usize>,
    /// Where spill files go (None: the system's temporary directory).
    pub spill_dir: Option<PathBuf>,
}

impl Default for LocalOptions {
    fn default() -> LocalOptions {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        LocalOptions { partitions: cores, memory_limit: None, spill_dir: None }
    }
}

impl Engine {
    /// The embedded engine with default options.
    pub fn local() -> Engine {
        Engine::Local(LocalOptions::default())
    }

    /// The engine's name in reports.
    pub fn name(&self) -> &'static str {
        match self {
            Engine::Memory => "memory",
            Engine::Local(_) => "datafusion",
            Engine::Ballista { .. } => "ballista",
        }
    }
}

/// A plan cut into separate queries (see [`Session::write_in_jobs`]).
///
/// A plan leaves out jobs with no work: nothing is read for them, and Ballista's adaptive
/// planner (which litnav's client does not use: `cluster::client`) never finishes a job whose
/// input is empty.
pub struct Jobs {
    /// One query per job, each answering a part of table `parts`.
    pub queries: Vec<String>,
    /// A query with the parts' columns: with no job at all, `parts` is empty with these columns
    /// (planned, never run).
    pub shape: String,
    /// The name the parts are registered under, as one table.
    pub parts: &'static str,
    /// The query over `parts` whose answer is the result.
    pub result: String,
}

/// A session over one columnar corpus.
pub struct Session {
    runtime: tokio::runtime::Runtime,
    context: SessionContext,
    dir: PathBuf,
    /// A job's time limit, and where it runs (for the error).
    limit: Option<(std::time::Duration, String)>,
}

impl Session {
    /// Open the tables in `dir` (papers and edges required; topics and contexts when present) on
    /// `engine`.
    pub fn open(engine: &Engine, dir: &Path) -> Result<Session> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .thread_stack_size(16 * 1024 * 1024)
            .build()
            .map_err(|e| Error::Cluster(format!("cannot start the async runtime: {e}")))?;
        let dir = std::path::absolute(dir).map_err(crate::io_error(dir))?;
        let context = runtime.block_on(context(engine))?;
        for function in crate::litnav_functions() {
            context.register_udf(function.as_ref().clone());
        }
        for function in crate::litnav_aggregates() {
            context.register_udaf(function.as_ref().clone());
        }
        let limit = match engine {
            Engine::Ballista { scheduler, timeout } => Some((*timeout, scheduler.clone())),
            _ => None,
        };
        let session = Session { runtime, context, dir, limit };
        for (stem, required) in
            [(schema::PAPERS, true), (schema::EDGES, true), (schema::TOPICS, false), (schema::CONTEXTS, false)]
        {
            match locate(&session.dir, stem) {
                Some(location) => {
                    let path = match location {
                        TableLocation::File(file) => file,
                        TableLocation::Parts(folder) => every_file_of(&folder),
                    };
                    session.register(stem, &path)?;
                    session.require_columns(stem, &path)?;
                }
                None if required => return Err(missing_table(&session.dir, stem)),
                None => {}
            }
        }
        Ok(session)
    }

    fn register(&self, name: &str, path: &Path) -> Result<()> {
        let location = path.to_string_lossy().into_owned();
        self.runtime.block_on(self.context.register_parquet(name, &location, ParquetReadOptions::default()))?;
        Ok(())
    }

    /// Refuse a table that lacks a column the plans read (named, with the file).
    fn require_columns(&self, name: &str, path: &Path) -> Result<()> {
        let needed: &[&str] = match name {
            schema::PAPERS => &schema::PAPERS_READ,
            schema::EDGES => &schema::EDGES_READ,
            _ => return Ok(()),
        };
        let table = self.runtime.block_on(self.context.table(name))?;
        match needed.iter().find(|column| table.schema().field_with_unqualified_name(column).is_err()) {
            Some(column) => Err(table_error(path, format!("the {name} table has no `{column}` column"))),
            None => Ok(()),
        }
    }

    /// Run `sql` and keep its answer as table `name` for the queries after it: a plan cut into
    /// stages, each a query of its own (Ballista ships a plan to its scheduler as nested protobuf
    /// messages, and a deep plan exceeds the decoder's nesting limit). The table is written to
    /// `work/<name>.parquet`, which every executor must be able to read, like the corpus.
    pub fn stage(&self, sql: &str, work: &Path, name: &str) -> Result<u64> {
        let rows = self.write_scratch(sql, work, name)?;
        self.register(name, &work.join(format!("{name}.parquet")))?;
        Ok(rows)
    }

    /// Run `sql` once and keep its answer as several tables, each row in one file per part: for
    /// each `(name, column)` of `tables`, table `name` is the directory `work/<name>` holding
    /// `part-<k>.parquet` for every part `k = part(value)` of the rows' whole-number `column`
    /// (`None`: a value no part holds, an error). A later query whose literal bounds match a
    /// part's rows then reads only that part's files (Parquet's row-group statistics), as if the
    /// table were partitioned by the job that needs it; a table without rows is one empty file.
    /// Returns the rows of the answer.
    pub fn stage_split(
        &self,
        sql: &str,
        work: &Path,
        tables: &[(&str, &str)],
        part: impl Fn(i64) -> Option<usize>,
    ) -> Result<u64> {
        // The answer's schema, its rows so far, and each table's open writers by part.
        type Split = (SchemaRef, u64, Vec<BTreeMap<usize, TableWriter>>);
        let open = |schema| Ok((schema, 0, tables.iter().map(|_| BTreeMap::new()).collect()));
        let each = |(schema, rows, writers): &mut Split, batch: &RecordBatch| {
            *rows += batch.num_rows() as u64;
            for ((name, column), parts) in tables.iter().zip(writers.iter_mut()) {
                for (k, rows_of_part) in split_rows(batch, column, &part, work)? {
                    let writer = match parts.entry(k) {
                        Entry::Occupied(slot) => slot.into_mut(),
                        Entry::Vacant(slot) => slot.insert(TableWriter::scratch(
                            &work.join(name),
                            &format!("part-{k:05}"),
                            schema.clone(),
                        )?),
                    };
                    writer.write(&datafusion::arrow::compute::take_record_batch(batch, &rows_of_part)?)?;
                }
            }
            Ok(())
        };
        let (schema, rows, writers): Split = self.stream(sql, open, each)?;
        for ((name, _), parts) in tables.iter().zip(writers) {
            if parts.is_empty() {
                TableWriter::scratch(&work.join(name), "part-00000", schema.clone())?.finish()?;
            }
            for writer in parts.into_values() {
                writer.finish()?;
            }
        }
        for (name, _) in tables {
            self.register(name, &every_file_of(&work.join(name)))?;
        }
        Ok(rows)
    }

    /// Run a plan cut into [`Jobs`]: each job's answer becomes a part of table `jobs.parts` in a
    /// hidden directory of `out` (removed at the end), then `jobs.result` is written as
    /// `out/<stem>.parquet` with `metadata` in its footer; returns the result's rows. The jobs
    /// run one after another, so memory and Ballista's shuffle files hold one job's rows.
    pub fn write_in_jobs(&self, jobs: Jobs, out: &Path, stem: &str, metadata: Vec<(String, String)>) -> Result<u64> {
        std::fs::create_dir_all(out).map_err(crate::io_error(out))?;
        let work = tempfile::Builder::new().prefix(".jobs-").tempdir_in(out).map_err(crate::io_error(out))?;
        let folder = work.path().join(jobs.parts);
        if jobs.queries.is_empty() {
            let schema = self.run(async { Ok(self.context.sql(&jobs.shape).await?.schema().as_arrow().clone()) })?;
            TableWriter::scratch(&folder, "part-00000", Arc::new(schema))?.finish()?;
        }
        for (job, sql) in jobs.queries.iter().enumerate() {
            self.write_scratch(sql, &folder, &format!("part-{job:05}"))?;
        }
        self.register(jobs.parts, &every_file_of(&folder))?;
        let written = self.write(&jobs.result, out, stem, metadata);
        // The parts go with the work directory: the session may run the plan again.
        self.context.deregister_table(jobs.parts)?;
        written
    }

    /// The directory of the tables.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Run `job` on the session's runtime, within the engine's time limit.
    fn run<T>(&self, job: impl std::future::Future<Output = Result<T>>) -> Result<T> {
        match &self.limit {
            None => self.runtime.block_on(job),
            Some((limit, scheduler)) => self.runtime.block_on(async {
                tokio::time::timeout(*limit, job).await.unwrap_or_else(|_| {
                    Err(Error::Cluster(format!(
                        "the job on {scheduler} did not finish within {} s (an executor lost mid-job can leave it \
                         waiting); nothing was written",
                        limit.as_secs()
                    )))
                })
            }),
        }
    }

    /// Run a query and gather its (small) answer.
    pub fn collect(&self, sql: &str) -> Result<Vec<RecordBatch>> {
        self.run(async {
            let frame = self.context.sql(sql).await?;
            Ok(frame.collect().await?)
        })
    }

    /// Run a query and stream its answer into `out/<stem>.parquet` (with `metadata` in its
    /// footer); returns the rows written.
    pub fn write(&self, sql: &str, out: &Path, stem: &str, metadata: Vec<(String, String)>) -> Result<u64> {
        let open = |schema| TableWriter::with_metadata(out, stem, schema, metadata);
        self.stream(sql, open, |writer, batch| writer.write(batch))?.finish()
    }

    /// [`Session::write`] for a plan's working rows, read back by the same run
    /// ([`TableWriter::scratch`]).
    fn write_scratch(&self, sql: &str, dir: &Path, stem: &str) -> Result<u64> {
        let open = |schema| TableWriter::scratch(dir, stem, schema);
        self.stream(sql, open, |writer, batch| writer.write(batch))?.finish()
    }

    /// Run a query: `open` gets its answer's schema, and `each` every batch of the answer with
    /// what `open` made, which is returned at the end.
    fn stream<T>(
        &self,
        sql: &str,
        open: impl FnOnce(SchemaRef) -> Result<T>,
        mut each: impl FnMut(&mut T, &RecordBatch) -> Result<()>,
    ) -> Result<T> {
        self.run(async {
            use futures::StreamExt;
            let frame = self.context.sql(sql).await?;
            let mut sink = open(Arc::new(frame.schema().as_arrow().clone()))?;
            let mut stream = frame.execute_stream().await?;
            while let Some(batch) = stream.next().await.transpose()? {
                each(&mut sink, &batch)?;
            }
            Ok(sink)
        })
    }
}

/// The rows of `batch` per part of their whole-number `column` (`part(value)`), as row indices.
fn split_rows(
    batch: &RecordBatch,
    column: &str,
    part: &impl Fn(i64) -> Option<usize>,
    work: &Path,
) -> Result<Vec<(usize, datafusion::arrow::array::UInt32Array)>> {
    use datafusion::arrow::array::AsArray;
    let values =
        batch.column_by_name(column).ok_or_else(|| table_error(work, format!("the staged rows have no `{column}`")))?;
    let values = datafusion::arrow::compute::cast(values, &datafusion::arrow::datatypes::DataType::Int64)?;
    let values = values.as_primitive::<datafusion::arrow::datatypes::Int64Type>();
    // The rows of part k at index k: a stage has a few dozen parts, and this runs for every row.
    let mut parts: Vec<Vec<u32>> = Vec::new();
    for (row, value) in values.iter().enumerate() {
        let Some(value) = value else { continue };
        let k = part(value).ok_or_else(|| table_error(work, format!("no part holds the staged `{column}` {value}")))?;
        if k >= parts.len() {
            parts.resize_with(k + 1, Vec::new);
        }
        parts[k].push(row as u32);
    }
    Ok(parts.into_iter().enumerate().filter(|(_, rows)| !rows.is_empty()).map(|(k, rows)| (k, rows.into())).collect())
}

/// A directory as a table location: a trailing slash tells DataFusion to read every file in it.
fn every_file_of(folder: &Path) -> PathBuf {
    PathBuf::from(format!("{}/", folder.display()))
}

async fn context(engine: &Engine) -> Result<SessionContext> {
    match engine {
        Engine::Local(options) => {
            let mut runtime = RuntimeEnvBuilder::new();
            if let Some(limit) = options.memory_limit {
                runtime = runtime.with_memory_pool(Arc::new(FairSpillPool::new(limit)));
            }
            if let Some(dir) = &options.spill_dir {
                runtime = runtime.with_temp_file_path(dir.clone());
            }
            let config = SessionConfig::new().with_target_partitions(options.partitions.max(1));
            Ok(SessionContext::new_with_config_rt(config, runtime.build_arc()?))
        }
        Engine::Ballista { scheduler, .. } => crate::cluster::client(scheduler).await,
        Engine::Memory => Err(Error::Cluster("the in-memory engine runs no query plans".into())),
    }
}
