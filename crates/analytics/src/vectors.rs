//! Paper vectors as a Parquet table (`id`, `vector`): the other form `litnav ingest --vectors`
//! takes, as pandas, Polars or pyarrow write it — `vector` a list (or fixed-size list) of float32
//! or float64, `id` text.

use crate::tables::{table_error, text_column};
use crate::{Error, Result};
use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float32Type};
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::path::Path;

/// Every row's id and vector, in file order. A row with an empty id or vector, a value that is
/// not finite, or a vector whose length differs from the first one's is an error naming the
/// row (counted from 0 over the whole file).
pub fn read(path: &Path) -> Result<Vec<(String, Vec<f32>)>> {
    let file = std::fs::File::open(path).map_err(crate::io_error(path))?;
    let mut rows: Vec<(String, Vec<f32>)> = Vec::new();
    for batch in ParquetRecordBatchReaderBuilder::try_new(file)?.build()? {
        let batch = batch?;
        let ids = text_column(&batch, path, "id")?;
        let vectors = batch.column_by_name("vector").ok_or_else(|| table_error(path, "has no `vector` column"))?;
        for row in 0..batch.num_rows() {
            let at = rows.len();
            if ids.is_null(row) || vectors.is_null(row) {
                return Err(table_error(path, format!("row {at}: an empty id or vector")));
            }
            let values = floats(&list_item(vectors, row, path, at)?, path, at)?;
            if let Some((_, first)) = rows.first()
                && first.len() != values.len()
            {
                return Err(table_error(
                    path,
                    format!("row {at}: a vector of {} values, the first row's has {}", values.len(), first.len()),
                ));
            }
            if let Some(column) = values.iter().position(|v| !v.is_finite()) {
                return Err(table_error(
                    path,
                    format!("row {at}, value {column}: {} is not a finite number", values[column]),
                ));
            }
            rows.push((ids.value(row).to_string(), values));
        }
    }
    if rows.first().is_some_and(|(_, v)| v.is_empty()) {
        return Err(table_error(path, "its vectors are empty"));
    }
    Ok(rows)
}

/// Row `row` of a list column.
fn list_item(column: &ArrayRef, row: usize, path: &Path, at: usize) -> Result<ArrayRef> {
    match column.data_type() {
        DataType::List(_) => Ok(column.as_list::<i32>().value(row)),
        DataType::LargeList(_) => Ok(column.as_list::<i64>().value(row)),
        DataType::FixedSizeList(_, _) => Ok(column.as_fixed_size_list().value(row)),
        other => Err(table_error(path, format!("row {at}: `vector` is {other}, not a list of numbers"))),
    }
}

/// A list's values as f32 (float64 narrowed; nulls refused).
fn floats(values: &ArrayRef, path: &Path, at: usize) -> Result<Vec<f32>> {
    if !matches!(values.data_type(), DataType::Float32 | DataType::Float64 | DataType::Float16) {
        return Err(table_error(path, format!("row {at}: `vector` holds {}, not floats", values.data_type())));
    }
    let values = cast(values, &DataType::Float32).map_err(Error::from)?;
    let values = values.as_primitive::<Float32Type>();
    if values.null_count() > 0 {
        return Err(table_error(path, format!("row {at}: the vector holds an empty value")));
    }
    Ok(values.values().to_vec())
}
