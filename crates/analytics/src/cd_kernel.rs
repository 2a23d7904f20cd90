//! `litnav_cd`, the CD kernel as an aggregate function: it gathers one range's rows (see the
//! plan in [`crate::cd`]) column by column, and when the range is complete numbers their papers,
//! builds a small CSR of them and runs litnav's in-memory kernel
//! ([`litnav_graph::disruption`]) for each focal paper of the range.
//!
//! An aggregate rather than `array_agg` of structs handed to a scalar function: the rows stay
//! four plain `i64` columns from the plan's batches to the kernel, with no list of structs built,
//! concatenated and taken apart again. Measured alone that saved memory (3.5 → 3.0 GB at 10M
//! papers) but no time; the time came from running a partition's ranges side by side and from
//! numbering close keys through a bitmap of their span (see [`NumberedRows`]).

use crate::cd::{KERNEL, value_columns, value_fields};
use crate::kernel;
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Int64Array, ListArray, PrimitiveArray, StructArray,
};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields, Int64Type};
use datafusion::common::ScalarValue;
use datafusion::error::Result;
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, EmitTo, GroupsAccumulator, Signature, Volatility,
};
use datafusion::physical_expr::expressions::Literal;
use litnav_graph::disruption::{self, CdOptions, Disruption};
use litnav_graph::{Graph, Node};
use rayon::iter::Either;
use rayon::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

/// The kinds of a kernel row (column `kind`).
const REFERENCE: i64 = 0;
const CITATION: i64 = 1;
const FOCAL: i64 = 2;

/// `litnav_cd(kind, x, y, t, window, dated)`, aggregated per range: the values of the range's
/// focal papers, as a list of result structs (`node`, then [`value_fields`]). A row of kind 2 is a
/// focal paper `x` published at `t`; of kind 0 a reference `y` (published at `t`) of focal `x`;
/// of kind 1 a citation of `y` by `x` published at `t`. `window` (Δ in years, negative for none)
/// and `dated` (whether times are days, else years) are literals.
#[derive(Debug, PartialEq, Eq, Hash)]
struct CdKernel {
    signature: Signature,
}

/// The kernel as a DataFusion aggregate function (registered by every engine's session).
pub fn kernel_udaf() -> AggregateUDF {
    AggregateUDF::new_from_impl(CdKernel { signature: Signature::any(6, Volatility::Immutable) })
}

/// The four row columns, in the order of the function's arguments.
const COLUMNS: [&str; 4] = ["kind", "x", "y", "t"];

impl AggregateUDFImpl for CdKernel {
    fn name(&self) -> &str {
        KERNEL
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(result_type())
    }

    fn state_fields(&self, _args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        let list = DataType::List(Arc::new(Field::new("item", DataType::Int64, false)));
        Ok(COLUMNS.iter().map(|name| Arc::new(Field::new(*name, list.clone(), true))).collect())
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Ok(Box::new(OneRange(RangesRows::new(&args)?)))
    }

    fn groups_accumulator_supported(&self, _args: AccumulatorArgs) -> bool {
        true
    }

    fn create_groups_accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn GroupsAccumulator>> {
        Ok(Box::new(RangesRows::new(&args)?))
    }
}

/// One range's rows, column by column.
#[derive(Debug, Default)]
struct RangeRows {
    kind: Vec<i64>,
    x: Vec<i64>,
    y: Vec<i64>,
    t: Vec<i64>,
}

impl RangeRows {
    fn columns_mut(&mut self) -> [&mut Vec<i64>; 4] {
        [&mut self.kind, &mut self.x, &mut self.y, &mut self.t]
    }

    fn columns(&self) -> [&Vec<i64>; 4] {
        [&self.kind, &self.x, &self.y, &self.t]
    }
}

/// Every group's (range's) rows, and the literal arguments.
#[derive(Debug)]
struct RangesRows {
    window: Option<u32>,
    dated: bool,
    ranges: Vec<RangeRows>,
}

impl RangesRows {
    fn new(args: &AccumulatorArgs) -> Result<RangesRows> {
        let literal = |place: usize, what: &str| match args.exprs.get(place).and_then(|e| e.downcast_ref::<Literal>()) {
            Some(literal) => Ok(literal.value().clone()),
            None => Err(kernel_error(format!("{what} must be a literal"))),
        };
        let window = match literal(4, "the window")? {
            ScalarValue::Int64(Some(w)) if w >= 0 => Some(u32::try_from(w).unwrap_or(u32::MAX)),
            ScalarValue::Int64(_) => None,
            other => return Err(kernel_error(format!("the window must be an int64, not {other:?}"))),
        };
        let dated = match literal(5, "`dated`")? {
            ScalarValue::Boolean(Some(dated)) => dated,
            other => return Err(kernel_error(format!("`dated` must be a boolean, not {other:?}"))),
        };
        Ok(RangesRows { window, dated, ranges: Vec::new() })
    }

    fn grow(&mut self, groups: usize) {
        if self.ranges.len() < groups {
            self.ranges.resize_with(groups, RangeRows::default);
        }
    }
}

/// The row columns of an update, as int64 without nulls.
fn row_columns(values: &[ArrayRef]) -> Result<Vec<PrimitiveArray<Int64Type>>> {
    COLUMNS
        .iter()
        .zip(values)
        .map(|(name, column)| {
            let column = cast(column, &DataType::Int64)?;
            if column.null_count() > 0 {
                return Err(kernel_error(format!("`{name}` holds nulls")));
            }
            Ok(column.as_primitive::<Int64Type>().clone())
        })
        .collect()
}

impl GroupsAccumulator for RangesRows {
    fn update_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        opt_filter: Option<&BooleanArray>,
        total_num_groups: usize,
    ) -> Result<()> {
        self.grow(total_num_groups);
        let columns = row_columns(values)?;
        let columns: Vec<&[i64]> = columns.iter().map(|c| c.values().as_ref()).collect();
        for (row, &group) in group_indices.iter().enumerate() {
            if opt_filter.is_some_and(|keep| !keep.is_valid(row) || !keep.value(row)) {
                continue;
            }
            for (to, from) in self.ranges[group].columns_mut().into_iter().zip(&columns) {
                to.push(from[row]);
            }
        }
        Ok(())
    }

    fn merge_batch(&mut self, values: &[ArrayRef], group_indices: &[usize], total_num_groups: usize) -> Result<()> {
        self.grow(total_num_groups);
        let lists: Vec<&ListArray> = values
            .iter()
            .map(|v| v.as_list_opt::<i32>().ok_or_else(|| kernel_error("a partial state is not a list")))
            .collect::<Result<_>>()?;
        for (row, &group) in group_indices.iter().enumerate() {
            for (to, list) in self.ranges[group].columns_mut().into_iter().zip(&lists) {
                let part = list.value(row);
                let part =
                    part.as_primitive_opt::<Int64Type>().ok_or_else(|| kernel_error("a partial state is not int64"))?;
                to.extend_from_slice(part.values());
            }
        }
        Ok(())
    }

    fn state(&mut self, emit_to: EmitTo) -> Result<Vec<ArrayRef>> {
        let mut taken = emit_to.take_needed(&mut self.ranges);
        (0..COLUMNS.len())
            .map(|column| {
                let offsets = OffsetBuffer::from_lengths(taken.iter().map(|range| range.columns()[column].len()));
                // One range (a job of one range, or a partition that saw one) hands its rows on
                // as they are; several are joined into one list's values.
                let values: Int64Array = match taken.as_mut_slice() {
                    [one] => std::mem::take(one.columns_mut()[column]).into(),
                    many => many
                        .iter()
                        .flat_map(|range| range.columns()[column].iter().copied())
                        .collect::<Vec<i64>>()
                        .into(),
                };
                let item = Arc::new(Field::new("item", DataType::Int64, false));
                Ok(Arc::new(ListArray::try_new(item, offsets, Arc::new(values), None)?) as ArrayRef)
            })
            .collect()
    }

    fn evaluate(&mut self, emit_to: EmitTo) -> Result<ArrayRef> {
        let taken = emit_to.take_needed(&mut self.ranges);
        // The ranges side by side: a range's numbering and graph building run on one core, and
        // the hash of a job's few ranges often hands one partition several of them.
        let results: Vec<Vec<(i64, Disruption)>> =
            taken.par_iter().map(|rows| range_disruption(rows, self.window, self.dated)).collect::<Result<_>>()?;
        Ok(Arc::new(results_list(&results)?))
    }

    fn convert_to_state(&self, _values: &[ArrayRef], _opt_filter: Option<&BooleanArray>) -> Result<Vec<ArrayRef>> {
        // Only called when `supports_convert_to_state` says so, which it does not: a range's rows
        // are meant to be gathered, and a group per row would gain nothing.
        Err(kernel_error("rows cannot be passed on ungathered"))
    }

    fn size(&self) -> usize {
        let rows: usize = self.ranges.iter().map(|range| range.kind.capacity()).sum();
        rows * COLUMNS.len() * size_of::<i64>() + self.ranges.capacity() * size_of::<RangeRows>()
    }
}

/// The function without groups (`SELECT litnav_cd(…) FROM rows`): every row one range.
#[derive(Debug)]
struct OneRange(RangesRows);

impl Accumulator for OneRange {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let rows = values.first().map_or(0, |column| column.len());
        self.0.update_batch(values, &vec![0; rows], None, 1)
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let rows = states.first().map_or(0, |column| column.len());
        self.0.merge_batch(states, &vec![0; rows], 1)
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        self.0.grow(1);
        let columns = GroupsAccumulator::state(&mut self.0, EmitTo::All)?;
        columns.iter().map(|column| ScalarValue::try_from_array(column, 0)).collect()
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        self.0.grow(1);
        ScalarValue::try_from_array(&GroupsAccumulator::evaluate(&mut self.0, EmitTo::All)?, 0)
    }

    fn size(&self) -> usize {
        size_of::<Self>() + GroupsAccumulator::size(&self.0)
    }
}

fn kernel_error(message: impl std::fmt::Display) -> datafusion::error::DataFusionError {
    kernel::error(KERNEL, message)
}

/// The kernel's output row type: the paper's node, then [`value_fields`].
fn result_fields() -> Fields {
    let mut fields = vec![Field::new("node", DataType::Int64, false)];
    fields.extend(value_fields());
    Fields::from(fields)
}

fn result_type() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Struct(result_fields()), true)))
}

/// Rows below this many are worked through by one core.
const ROWS_PER_TASK: usize = 1 << 14;

/// A paper no row has timed yet (outside i32, the kernel's range of times).
const UNTIMED: i64 = i64::MIN;

/// One range's rows as a small CSR, and the kernel run for each of its focal papers.
fn range_disruption(rows: &RangeRows, window: Option<u32>, dated: bool) -> Result<Vec<(i64, Disruption)>> {
    let RangeRows { kind, x, y, t } = rows;
    let numbered = NumberedRows::new(kind, x, y)?;
    // Every row on every core: a focal paper's row times it, a reference's the cited paper, a
    // citation's the citer. A paper has one time, so rows that time it again store the same value.
    let stamps: Vec<AtomicI64> = (0..numbered.keys.len()).map(|_| AtomicI64::new(UNTIMED)).collect();
    (0..kind.len()).into_par_iter().with_min_len(ROWS_PER_TASK).try_for_each(|row| {
        let time = t[row];
        i32::try_from(time).map_err(|_| kernel_error(format!("time {time} is out of range")))?;
        let (a, b) = numbered.row(row);
        // CITATION otherwise: the numbering refused any other kind.
        let timed = if kind[row] == REFERENCE { b } else { a };
        stamps[timed as usize].store(time, Ordering::Relaxed);
        Ok::<_, datafusion::error::DataFusionError>(())
    })?;
    let times: Vec<Option<i32>> = stamps.into_par_iter().map(|stamp| i32::try_from(stamp.into_inner()).ok()).collect();
    // The focal papers and the citations, in one pass over the rows.
    let (mut focals, pairs): (Vec<Node>, Vec<(Node, Node)>) =
        (0..kind.len()).into_par_iter().with_min_len(ROWS_PER_TASK).partition_map(|row| match numbered.row(row) {
            (focal, _) if kind[row] == FOCAL => Either::Left(focal),
            pair => Either::Right(pair),
        });
    focals.sort_unstable();
    focals.dedup();
    let untimed = vec![None; times.len()];
    let (years, dates) = if dated { (untimed, times) } else { (times, untimed) };
    let graph = Graph::anonymous(years, dates, &pairs);
    let options = CdOptions { window, ..CdOptions::default() };
    let values = disruption::disruption_of(&graph, &focals, options);
    Ok(focals.into_iter().map(|f| numbered.keys[f as usize]).zip(values).collect())
}

/// A range's rows with their papers numbered: every paper's key once, ascending, and each row's
/// `x` and `y` by their place among them (a focal paper's row has no `y`, and 0 in its place).
/// A range holds millions of rows, and neither a hash map nor a comparison sort numbers them
/// fast: keys that lie close together (litnav's tables number papers consecutively) are numbered
/// through a bitmap of their span, others by a radix sort.
struct NumberedRows {
    keys: Vec<i64>,
    /// Row `r`'s `x` at `2r`, its `y` at `2r + 1`.
    numbers: Vec<Node>,
}

/// Call `each` with every key of the rows and where its number goes: `2r` for row `r`'s `x`,
/// `2r + 1` for its `y` (a focal paper's row has none).
fn for_each_key(kind: &[i64], x: &[i64], y: &[i64], mut each: impl FnMut(i64, u32)) {
    for (row, &kind) in kind.iter().enumerate() {
        each(x[row], 2 * row as u32);
        if kind != FOCAL {
            each(y[row], 2 * row as u32 + 1);
        }
    }
}

impl NumberedRows {
    fn new(kind: &[i64], x: &[i64], y: &[i64]) -> Result<NumberedRows> {
        if let Some(kind) = kind.iter().find(|kind| !matches!(**kind, REFERENCE | CITATION | FOCAL)) {
            return Err(kernel_error(format!("unknown row kind {kind}")));
        }
        u32::try_from(2 * kind.len()).map_err(|_| kernel_error("a range holds too many rows"))?;
        let (mut lowest, mut highest, mut count) = (i64::MAX, i64::MIN, 0usize);
        for_each_key(kind, x, y, |key, _| (lowest, highest, count) = (lowest.min(key), highest.max(key), count + 1));
        if count == 0 {
            return Ok(NumberedRows { keys: Vec::new(), numbers: Vec::new() });
        }
        let span = highest.abs_diff(lowest);
        // A bitmap no larger than the sort's pairs would be (a quarter of a byte per key of the
        // span against 16 bytes a row's key).
        Ok(if span < 64 * count as u64 {
            Self::by_bitmap(kind, x, y, lowest, span as usize + 1)
        } else {
            Self::by_sort(kind, x, y, lowest, span)
        })
    }

    /// Numbered through a bitmap of the `span` keys from `lowest`: a bit per key present, in
    /// words of 64 that each carry the count of present keys before them, so a key's number is
    /// that count plus the set bits below its own. A word and its count share a cache line, and
    /// the whole map is a quarter of a byte per key of the span — 2.5 MB for ten million, where
    /// a table of numbers (4 bytes a key) outgrew the cache and made every row's lookup a miss
    /// to memory.
    fn by_bitmap(kind: &[i64], x: &[i64], y: &[i64], lowest: i64, span: usize) -> NumberedRows {
        let place = |key: i64| key.abs_diff(lowest) as usize;
        // The bits set by each core over its share of the rows, then joined.
        let share = kind.len().div_ceil(rayon::current_num_threads()).max(ROWS_PER_TASK);
        let bits = (0..kind.len().div_ceil(share))
            .into_par_iter()
            .map(|part| {
                let rows = part * share..((part + 1) * share).min(kind.len());
                let mut bits = vec![0u64; span.div_ceil(64)];
                for_each_key(&kind[rows.clone()], &x[rows.clone()], &y[rows], |key, _| {
                    let at = place(key);
                    bits[at / 64] |= 1 << (at % 64);
                });
                bits
            })
            .reduce_with(|mut all, part| {
                all.iter_mut().zip(part).for_each(|(word, bits)| *word |= bits);
                all
            })
            .unwrap_or_default();
        let mut words: Vec<(u64, Node)> = bits.into_iter().map(|bits| (bits, 0)).collect();
        let mut keys = Vec::new();
        for (word, (bits, before)) in words.iter_mut().enumerate() {
            *before = keys.len() as Node;
            let mut rest = *bits;
            while rest != 0 {
                keys.push(lowest.wrapping_add_unsigned((word * 64) as u64 + u64::from(rest.trailing_zeros())));
                rest &= rest - 1;
            }
        }
        let number = |key: i64| {
            let at = place(key);
            let (bits, before) = words[at / 64];
            before + (bits & ((1 << (at % 64)) - 1)).count_ones()
        };
        // Each row's numbers, the rows split between the cores.
        let mut numbers = vec![0; 2 * kind.len()];
        numbers.par_chunks_mut(2).with_min_len(ROWS_PER_TASK).enumerate().for_each(|(row, pair)| {
            pair[0] = number(x[row]);
            if kind[row] != FOCAL {
                pair[1] = number(y[row]);
            }
        });
        NumberedRows { keys, numbers }
    }

    /// Numbered by sorting (key offset, place) pairs with a radix sort over the bits in which the
    /// keys differ (`span`, the highest offset from `lowest`), then reading the runs of equal keys.
    fn by_sort(kind: &[i64], x: &[i64], y: &[i64], lowest: i64, span: u64) -> NumberedRows {
        let mut pairs: Vec<(u64, u32)> = Vec::with_capacity(2 * kind.len());
        for_each_key(kind, x, y, |key, slot| pairs.push((key.abs_diff(lowest), slot)));
        let pairs = radix_sort_by_key(pairs, u64::BITS - span.leading_zeros());
        let mut keys: Vec<i64> = Vec::new();
        let mut numbers = vec![0; 2 * kind.len()];
        let mut previous = None;
        for (offset, slot) in pairs {
            if previous != Some(offset) {
                keys.push(lowest.wrapping_add_unsigned(offset));
                previous = Some(offset);
            }
            numbers[slot as usize] = (keys.len() - 1) as Node;
        }
        NumberedRows { keys, numbers }
    }

    /// Row `row`'s `x` and `y` (0 for a focal paper's row).
    fn row(&self, row: usize) -> (Node, Node) {
        (self.numbers[2 * row], self.numbers[2 * row + 1])
    }
}

/// `pairs` in ascending order of key, where every key is below 2^`bits`: a least-significant-
/// digit radix sort in as few passes of at most 12 bits (4,096 counters, in the core's first
/// cache) as the bits need; each pass is stable, so equal keys keep their order.
fn radix_sort_by_key(pairs: Vec<(u64, u32)>, bits: u32) -> Vec<(u64, u32)> {
    if bits == 0 {
        return pairs;
    }
    let passes = bits.div_ceil(12);
    let digit_bits = bits.div_ceil(passes);
    let mask = (1u64 << digit_bits) - 1;
    let mut from = pairs;
    let mut to = vec![(0, 0); from.len()];
    for pass in 0..passes {
        let shift = pass * digit_bits;
        let digit = |key: u64| ((key >> shift) & mask) as usize;
        let mut next = vec![0usize; 1 << digit_bits];
        for &(key, _) in &from {
            next[digit(key)] += 1;
        }
        let mut start = 0;
        for slot in next.iter_mut() {
            (*slot, start) = (start, start + *slot);
        }
        for &pair in &from {
            let place = &mut next[digit(pair.0)];
            to[*place] = pair;
            *place += 1;
        }
        std::mem::swap(&mut from, &mut to);
    }
    from
}

/// The kernel's answers as a list (one per range) of result structs.
fn results_list(results: &[Vec<(i64, Disruption)>]) -> Result<ListArray> {
    let all: Vec<&Disruption> = results.iter().flatten().map(|(_, d)| d).collect();
    let mut columns: Vec<ArrayRef> =
        vec![Arc::new(results.iter().flatten().map(|(node, _)| *node).collect::<Int64Array>())];
    columns.extend(value_columns(&all));
    let structs = StructArray::try_new(result_fields(), columns, None)?;
    let offsets = OffsetBuffer::from_lengths(results.iter().map(Vec::len));
    Ok(ListArray::try_new(
        Arc::new(Field::new("item", DataType::Struct(result_fields()), true)),
        offsets,
        Arc::new(structs),
        None,
    )?)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn rows_are_numbered_by_their_papers_keys_in_ascending_order() {
        // A focal paper (its row has no `y`), a reference of it and two citations, keys unsorted.
        let kind = [FOCAL, REFERENCE, CITATION, CITATION];
        let x = [40, 40, -7, 900];
        let y = [12345, 5, 40, 5];
        let numbered = NumberedRows::new(&kind, &x, &y).unwrap();
        assert_eq!(numbered.keys, [-7, 5, 40, 900]);
        assert_eq!(numbered.row(0).0, 2);
        assert_eq!(numbered.row(1), (2, 1));
        assert_eq!(numbered.row(2), (0, 2));
        assert_eq!(numbered.row(3), (3, 1));
        let error = NumberedRows::new(&[3], &[1], &[2]).err().unwrap();
        assert!(error.to_string().contains("unknown row kind 3"), "{error}");
    }

    #[test]
    fn the_radix_sort_orders_keys_of_any_width_and_keeps_equal_keys_in_order() {
        // Keys of 0, 5, 24, 33 and 64 bits, with repeats, in a scrambled order.
        for bits in [0u32, 5, 24, 33, 64] {
            let top = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
            let pairs: Vec<(u64, u32)> = (0..5000u32)
                .map(|slot| {
                    ((u64::from(slot).wrapping_mul(0x9E37_79B9_7F4A_7C15) % 97 * (top / 97).max(1)) & top, slot)
                })
                .collect();
            let mut expected = pairs.clone();
            expected.sort_by_key(|&(key, _)| key);
            assert_eq!(radix_sort_by_key(pairs, bits), expected, "{bits} bits");
        }
        // The extremes of int64 as keys of one range.
        let numbered = NumberedRows::new(&[CITATION], &[i64::MAX], &[i64::MIN]).unwrap();
        assert_eq!(numbered.keys, [i64::MIN, i64::MAX]);
        assert_eq!(numbered.row(0), (1, 0));
    }

    /// A small range: six focal papers of 2000 citing references of 1995, and later papers
    /// citing the focal papers, their references or both.
    fn small_range() -> RangeRows {
        let mut rows = RangeRows::default();
        let mut push = |kind, x, y, t| {
            for (to, value) in rows.columns_mut().into_iter().zip([kind, x, y, t]) {
                to.push(value);
            }
        };
        for focal in 1..=6 {
            push(FOCAL, focal, 0, 2000);
            push(REFERENCE, focal, 100 + focal % 3, 1995);
            push(REFERENCE, focal, 100 + (focal + 1) % 5, 1995);
        }
        for citer in 200..220 {
            let year = 2001 + citer % 6;
            if citer % 4 != 0 {
                push(CITATION, citer, 1 + citer % 6, year);
            }
            if citer % 3 == 0 {
                push(CITATION, citer, 100 + citer % 5, year);
            }
        }
        rows
    }

    #[test]
    fn the_aggregate_gathers_rows_from_every_partition_into_one_kernel_call() {
        use datafusion::arrow::datatypes::Schema;
        use datafusion::arrow::record_batch::RecordBatch;
        use datafusion::datasource::MemTable;
        use datafusion::prelude::{SessionConfig, SessionContext};
        let rows = small_range();
        let expected = results_list(&[range_disruption(&rows, Some(5), false).unwrap()]).unwrap();
        assert_eq!(expected.value(0).len(), 6, "every focal paper has a value");
        // The rows in three partitions of two batches each, so that partial states are merged.
        let schema = Arc::new(Schema::new(
            ["g"].iter().chain(&COLUMNS).map(|name| Field::new(*name, DataType::Int64, false)).collect::<Vec<_>>(),
        ));
        let total = rows.kind.len();
        let batch = |range: std::ops::Range<usize>| {
            let mut columns: Vec<ArrayRef> = vec![Arc::new(Int64Array::from(vec![7; range.len()]))];
            columns.extend(rows.columns().map(|c| Arc::new(Int64Array::from(c[range.clone()].to_vec())) as ArrayRef));
            RecordBatch::try_new(schema.clone(), columns).unwrap()
        };
        let cuts: Vec<usize> = (0..=6).map(|k| k * total / 6).collect();
        let partitions: Vec<Vec<RecordBatch>> = (0..3)
            .map(|p| vec![batch(cuts[2 * p]..cuts[2 * p + 1]), batch(cuts[2 * p + 1]..cuts[2 * p + 2])])
            .collect();
        let context = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(3));
        context.register_udaf(kernel_udaf());
        context.register_table("rows", Arc::new(MemTable::try_new(schema, partitions).unwrap())).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let call = "litnav_cd(kind, x, y, t, CAST(5 AS BIGINT), false) AS v";
        for sql in [format!("SELECT g, {call} FROM rows GROUP BY g"), format!("SELECT {call} FROM rows")] {
            let batches = runtime.block_on(async { context.sql(&sql).await?.collect().await }).unwrap();
            let answers: Vec<ArrayRef> = batches
                .iter()
                .filter(|b| b.num_rows() > 0)
                .map(|b| b.column_by_name("v").unwrap().as_list::<i32>().value(0))
                .collect();
            assert_eq!(answers.len(), 1, "{sql}");
            assert_eq!(&answers[0], &expected.value(0), "{sql}");
        }
        // The window and `dated` must be literals.
        let sql = "SELECT litnav_cd(kind, x, y, t, g, false) FROM rows";
        let error = runtime.block_on(async { context.sql(sql).await?.collect().await }).unwrap_err();
        assert!(error.to_string().contains("the window must be a literal"), "{error}");
    }

    #[test]
    fn the_bitmap_and_the_sort_number_rows_alike() {
        // Keys with repeats, negative keys among them, in scrambled order: dense ones (most of the
        // bitmap's words full) and sparse ones (about one key in ten, some words empty).
        let rows = 3000;
        for spread in [2500, 50_000] {
            let scramble = |r: usize, salt: u64| {
                ((r as u64 ^ salt).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as i64 % spread - 700
            };
            let kind: Vec<i64> = (0..rows).map(|r| [FOCAL, REFERENCE, CITATION][r % 3]).collect();
            let x: Vec<i64> = (0..rows).map(|r| scramble(r, 1)).collect();
            let y: Vec<i64> = (0..rows).map(|r| scramble(r, 2)).collect();
            let (mut lowest, mut highest) = (i64::MAX, i64::MIN);
            for_each_key(&kind, &x, &y, |key, _| (lowest, highest) = (lowest.min(key), highest.max(key)));
            let span = highest.abs_diff(lowest);
            let bitmap = NumberedRows::by_bitmap(&kind, &x, &y, lowest, span as usize + 1);
            let sort = NumberedRows::by_sort(&kind, &x, &y, lowest, span);
            assert_eq!(bitmap.keys, sort.keys, "spread {spread}");
            assert_eq!(bitmap.numbers, sort.numbers, "spread {spread}");
            assert!(bitmap.keys.windows(2).all(|w| w[0] < w[1]));
            for (row, (&kind, (&x, &y))) in kind.iter().zip(x.iter().zip(&y)).enumerate() {
                let (a, b) = bitmap.row(row);
                assert_eq!(bitmap.keys[a as usize], x);
                if kind != FOCAL {
                    assert_eq!(bitmap.keys[b as usize], y);
                }
            }
            // `new` takes the bitmap for these keys and gives the same numbering.
            let chosen = NumberedRows::new(&kind, &x, &y).unwrap();
            assert_eq!((chosen.keys, chosen.numbers), (bitmap.keys, bitmap.numbers));
        }
        // No rows at all.
        let empty = NumberedRows::new(&[], &[], &[]).unwrap();
        assert!(empty.keys.is_empty() && empty.numbers.is_empty());
    }
}
