//! Writing Parquet tables whole or not at all: rows go to a hidden temporary file beside the
//! target, renamed over it only when the last row group and the footer are written.

use crate::{Error, Result, io_error};
use datafusion::arrow::array::{ArrayRef, ArrowPrimitiveType, AsArray, Int64Array, PrimitiveArray, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::basic::{Compression, ZstdLevel};
use datafusion::parquet::file::metadata::KeyValue;
use datafusion::parquet::file::properties::WriterProperties;
use std::fs::File;
use std::path::{Path, PathBuf};

/// Rows a writer buffers before handing a batch to Parquet (bounded memory for any table size).
pub(crate) const BATCH_ROWS: usize = 64 * 1024;

/// One Parquet file being written.
pub(crate) struct TableWriter {
    /// None once finished.
    writer: Option<ArrowWriter<File>>,
    temporary: PathBuf,
    target: PathBuf,
    rows: u64,
}

impl TableWriter {
    /// Start `dir/<stem>.parquet` with `schema`.
    pub(crate) fn create(dir: &Path, stem: &str, schema: SchemaRef) -> Result<TableWriter> {
        TableWriter::with_metadata(dir, stem, schema, Vec::new())
    }

    /// Start `dir/<stem>.parquet` with `schema` and key-value pairs in the file's footer.
    pub(crate) fn with_metadata(
        dir: &Path,
        stem: &str,
        schema: SchemaRef,
        metadata: Vec<(String, String)>,
    ) -> Result<TableWriter> {
        let properties = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(3)?))
            .set_max_row_group_row_count(Some(1024 * 1024))
            .set_key_value_metadata(Some(metadata.into_iter().map(|(k, v)| KeyValue::new(k, v)).collect()))
            .build();
        TableWriter::open(dir, stem, schema, properties)
    }

    /// Start `dir/<stem>.parquet` for a plan's working rows, written once and read back by the
    /// same run: no dictionaries and a fast compression (interning every value of an id column
    /// and ZSTD cost more than the reading they save), row groups small enough that a later
    /// query's bounds skip most of a file and that many open writers buffer little.
    pub(crate) fn scratch(dir: &Path, stem: &str, schema: SchemaRef) -> Result<TableWriter> {
        let properties = WriterProperties::builder()
            .set_dictionary_enabled(false)
            .set_compression(Compression::LZ4_RAW)
            .set_max_row_group_row_count(Some(128 * 1024))
            .build();
        TableWriter::open(dir, stem, schema, properties)
    }

    fn open(dir: &Path, stem: &str, schema: SchemaRef, properties: WriterProperties) -> Result<TableWriter> {
        std::fs::create_dir_all(dir).map_err(io_error(dir))?;
        let target = dir.join(format!("{stem}.parquet"));
        let temporary = dir.join(format!(".{stem}.parquet.partial"));
        let file = File::create(&temporary).map_err(io_error(&temporary))?;
        let writer = ArrowWriter::try_new(file, schema, Some(properties))?;
        Ok(TableWriter { writer: Some(writer), temporary, target, rows: 0 })
    }

    /// Append rows.
    pub(crate) fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.rows += batch.num_rows() as u64;
        match &mut self.writer {
            Some(writer) => Ok(writer.write(batch)?),
            None => Err(table_error(&self.target, "written after it was finished")),
        }
    }

    /// Close the file and move it into place; returns the rows written.
    pub(crate) fn finish(mut self) -> Result<u64> {
        if let Some(writer) = self.writer.take() {
            writer.close()?;
            std::fs::rename(&self.temporary, &self.target).map_err(io_error(&self.target))?;
        }
        Ok(self.rows)
    }
}

impl Drop for TableWriter {
    /// A table abandoned half-written (an error, a failed job) leaves no file behind.
    fn drop(&mut self) {
        if self.writer.take().is_some() {
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}

/// The error of a table whose columns are not what litnav wrote.
pub(crate) fn table_error(path: &Path, message: impl Into<String>) -> Error {
    Error::Table { path: path.to_path_buf(), message: message.into() }
}

/// A batch of the edges table.
pub(crate) fn edges_batch(citing: Vec<i64>, cited: Vec<i64>) -> Result<RecordBatch> {
    let columns: Vec<ArrayRef> =
        vec![std::sync::Arc::new(Int64Array::from(citing)), std::sync::Arc::new(Int64Array::from(cited))];
    Ok(RecordBatch::try_new(crate::schema::edges(), columns)?)
}

/// Where a table of the columnar corpus is: one file, or a directory of parts.
pub(crate) enum TableLocation {
    /// `<stem>.parquet`.
    File(PathBuf),
    /// `<stem>/`, every `.parquet` file in it.
    Parts(PathBuf),
}

/// Table `stem` of the columnar corpus in `dir`, if it is there.
pub(crate) fn locate(dir: &Path, stem: &str) -> Option<TableLocation> {
    let file = dir.join(format!("{stem}.parquet"));
    let folder = dir.join(stem);
    if file.is_file() {
        Some(TableLocation::File(file))
    } else if folder.is_dir() {
        Some(TableLocation::Parts(folder))
    } else {
        None
    }
}

/// The error of a required table that is not in `dir`.
pub(crate) fn missing_table(dir: &Path, stem: &str) -> Error {
    table_error(
        dir,
        format!("no `{stem}` table here (expected {stem}.parquet or a {stem}/ directory of Parquet files)"),
    )
}

/// A column of a batch read from `path`, or an error naming both.
pub(crate) fn column<'a>(batch: &'a RecordBatch, path: &Path, name: &str) -> Result<&'a ArrayRef> {
    batch.column_by_name(name).ok_or_else(|| table_error(path, format!("no `{name}` column")))
}

/// A column of exactly the primitive type `T` (a result file's counts and values).
pub(crate) fn typed_column<T: ArrowPrimitiveType>(
    batch: &RecordBatch,
    path: &Path,
    name: &str,
) -> Result<PrimitiveArray<T>> {
    column(batch, path, name)?
        .as_primitive_opt::<T>()
        .cloned()
        .ok_or_else(|| table_error(path, format!("`{name}` is not {}", T::DATA_TYPE)))
}

/// A column of any integer type, as int64 (keys may be written narrower).
pub(crate) fn int64_column(batch: &RecordBatch, path: &Path, name: &str) -> Result<Int64Array> {
    Ok(cast(column(batch, path, name)?, &DataType::Int64)?.as_primitive::<Int64Type>().clone())
}

/// A text column, as Utf8 (DataFusion may read text back as Utf8View).
pub(crate) fn text_column(batch: &RecordBatch, path: &Path, name: &str) -> Result<StringArray> {
    let text = cast(column(batch, path, name)?, &DataType::Utf8)?;
    Ok(text.as_string_opt::<i32>().ok_or_else(|| table_error(path, format!("`{name}` is not text")))?.clone())
}

/// The value of `key` in a result file's footer; when it is missing, an error naming the file
/// and saying it is not `what` (e.g. "a litnav CD result").
pub(crate) fn footer_value(
    metadata: &datafusion::parquet::file::metadata::ParquetMetaData,
    path: &Path,
    key: &str,
    what: &str,
) -> Result<String> {
    metadata
        .file_metadata()
        .key_value_metadata()
        .and_then(|pairs| pairs.iter().find(|kv| kv.key == key))
        .and_then(|kv| kv.value.clone())
        .ok_or_else(|| table_error(path, format!("no `{key}` in the footer: not {what}")))
}
