//! What litnav's DataFusion functions share: errors naming the function, and the rows a plan
//! aggregates per group (a list of structs per group) handed over group by group.

use datafusion::arrow::array::{Array, AsArray, Int64Array, StructArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::ColumnarValue;

/// An execution error naming the function.
pub(crate) fn error(function: &str, message: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::Execution(format!("{function}: {message}"))
}

/// `each` called with every group's rows: `rows` is a list (one per group) of structs.
pub(crate) fn per_group<T>(
    function: &str,
    rows: &ColumnarValue,
    number_rows: usize,
    mut each: impl FnMut(&StructArray) -> Result<T>,
) -> Result<Vec<T>> {
    let rows = rows.to_array(number_rows)?;
    let lists = rows.as_list_opt::<i32>().ok_or_else(|| error(function, "rows must be a list of structs"))?;
    (0..lists.len())
        .map(|group| {
            let group_rows = lists.value(group);
            let group_rows =
                group_rows.as_struct_opt().ok_or_else(|| error(function, "rows must be a list of structs"))?;
            each(group_rows)
        })
        .collect()
}

/// A field of the rows as int64.
pub(crate) fn int64_field(function: &str, rows: &StructArray, name: &str) -> Result<Int64Array> {
    let column = rows.column_by_name(name).ok_or_else(|| error(function, format!("rows lack `{name}`")))?;
    Ok(cast(column, &DataType::Int64)?.as_primitive::<Int64Type>().clone())
}
