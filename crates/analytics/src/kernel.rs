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

/// `cuts` pieces of work (ranges, groups) shared out to `jobs` separate queries: consecutive
/// runs of pieces, as even as they divide (`jobs` is clamped to 1..=`cuts`).
pub(crate) fn shares(cuts: u32, jobs: u32) -> Vec<std::ops::Range<i64>> {
    let cuts = i64::from(cuts.max(1));
    let jobs = i64::from(jobs).clamp(1, cuts);
    (0..jobs).map(|job| job * cuts / jobs..(job + 1) * cuts / jobs).collect()
}

#[cfg(test)]
mod tests {
    use super::shares;

    #[test]
    fn shares_cover_every_cut_once_and_evenly() {
        assert_eq!(shares(7, 3), vec![0..2, 2..4, 4..7]);
        assert_eq!(shares(4, 9), vec![0..1, 1..2, 2..3, 3..4]);
        assert_eq!(shares(0, 0), vec![0..1]);
        for (cuts, jobs) in [(64, 16), (13, 5), (1, 1)] {
            let runs = shares(cuts, jobs);
            assert_eq!(runs.first().unwrap().start, 0);
            assert_eq!(runs.last().unwrap().end, i64::from(cuts));
            assert!(runs.windows(2).all(|w| w[0].end == w[1].start && !w[0].is_empty()));
        }
    }
}
