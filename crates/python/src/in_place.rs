//! Retrieval judgments and runs, and clusterings, read where they are: Python dicts of `str` to
//! numbers (or to clusters) walked with borrowed entries, so a run of 19,000 scores costs no
//! reference count, no object and no copied id per entry. The only module of the package allowed
//! `unsafe`.
//!
//! Soundness rests on one rule kept inside this module: while borrowed entries are held, no
//! Python code runs. The GIL is held throughout (every function takes a `Bound`, and none
//! releases it); keys must be exact `str` and values exact `float` or `int` (clusters: exact `str`
//! or `int`, or exact `list`s or `tuple`s of them), whose comparison,
//! hashing and reading are CPython's C code, never a method a user could override. Anything else
//! raises `TypeError` before it is used, and the package converts such mappings first. No
//! borrowed entry leaves a function of this module.

#![allow(unsafe_code)]

use litnav_app::score::clusters::{Aligned, Label, Memberships, sort_labels};
use litnav_app::score::trec::{self, GradedRanking};
use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::cmp::Ordering;
use std::ptr::{addr_of_mut, null_mut};

/// One query's run graded in trec_eval's order to `depth` against its judgments `judged` (a
/// query missing from the run has `docs` `None`). `query` names the query in errors.
///
/// The run's documents are offered to [`trec::Leading`] as they are walked, so only those that
/// can reach `depth` are kept, looked up in the judgments and ranked.
pub fn graded_query(
    judged: &Bound<'_, PyDict>,
    docs: Option<&Bound<'_, PyDict>>,
    depth: usize,
    query: &str,
) -> PyResult<GradedRanking> {
    let mut grades = Vec::with_capacity(judged.len());
    for_each_number(judged, "qrels", query, |_, grade| grades.push(grade))?;
    let mut leading = trec::Leading::new(depth);
    if let Some(docs) = docs {
        for_each_number(docs, "run", query, |doc, score| leading.offer(score, doc))?;
    }
    let leading = leading.first();
    trec::grade_leading(
        &leading,
        grades,
        |doc| grade_of(judged, doc),
        || match docs {
            Some(docs) => first_relevant(judged, docs, query),
            None => Ok(None),
        },
    )
}

/// The grade `judged` gives `doc` (0 when it is not judged).
fn grade_of(judged: &Bound<'_, PyDict>, doc: &Key) -> PyResult<f64> {
    Ok(number_at(judged, doc)?.unwrap_or(0.0))
}

/// The number `dict` holds for `doc`, `None` when it holds none. `dict` is a checked table:
/// its keys exact `str` and its values exact numbers (`for_each_number`).
fn number_at(dict: &Bound<'_, PyDict>, doc: &Key) -> PyResult<Option<f64>> {
    // SAFETY: `dict`'s keys and `doc` are exact `str` (checked when they were walked), so the
    // lookup runs no Python code.
    let value = unsafe { ffi::PyDict_GetItemWithError(dict.as_ptr(), doc.0) };
    if value.is_null() {
        // Most documents are not judged: the common miss costs no exception fetch.
        let failed = !unsafe { ffi::PyErr_Occurred() }.is_null();
        return if failed { Err(PyErr::fetch(dict.py())) } else { Ok(None) };
    }
    // SAFETY: a live value of a checked table.
    let number = unsafe { exact_number(value) };
    number.map(Some).ok_or_else(|| PyTypeError::new_err("a number changed while read"))
}

/// The rank (from 0) in trec_eval's order of the best relevant document of the run `docs`, or
/// `None` when it holds none: found from the judgments' side — each relevant judged document
/// looked up in the run — and ranked by counting the run's documents ahead of it. Asked only
/// when no document reaching the deepest cut-off is relevant.
fn first_relevant(judged: &Bound<'_, PyDict>, docs: &Bound<'_, PyDict>, query: &str) -> PyResult<Option<usize>> {
    let mut best: Option<(f64, Key)> = None;
    let mut failure = None;
    for_each_number(judged, "qrels", query, |doc, grade| {
        if grade <= 0.0 || failure.is_some() {
            return;
        }
        match number_at(docs, &doc) {
            Err(error) => failure = Some(error),
            Ok(None) => {}
            Ok(Some(score)) => {
                let candidate = (score, doc);
                if best.as_ref().is_none_or(|b| trec::by_trec_order(&candidate, b).is_lt()) {
                    best = Some(candidate);
                }
            }
        }
    })?;
    if let Some(error) = failure {
        return Err(error);
    }
    let Some(best) = best else { return Ok(None) };
    let mut ahead = 0;
    for_each_number(docs, "run", query, |doc, score| {
        ahead += usize::from(trec::by_trec_order(&(score, doc), &best).is_lt())
    })?;
    Ok(Some(ahead))
}

/// Check a run's query that has no judgments as a judged one is checked.
pub fn check_documents(docs: &Bound<'_, PyDict>, query: &str) -> PyResult<()> {
    for_each_number(docs, "run", query, |_, _| ())
}

/// A dict's key while the dict is walked: an exact `str`, borrowed. Ordered as trec_eval orders
/// ids — Python compares strings by code point, the byte order of their UTF-8.
struct Key(*mut ffi::PyObject);

impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        // SAFETY: both are live exact `str` (see `for_each_number`); comparing them cannot fail.
        unsafe { ffi::PyUnicode_Compare(self.0, other.0) }.cmp(&0)
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Key {}

/// Call `each` with every key and number of `dict` (named `table[query]` in errors): keys must
/// be exact `str`, values exact `float` or `int` and not NaN.
fn for_each_number(dict: &Bound<'_, PyDict>, table: &str, query: &str, mut each: impl FnMut(Key, f64)) -> PyResult<()> {
    let (mut position, mut key, mut value): (ffi::Py_ssize_t, _, _) = (0, null_mut(), null_mut());
    // SAFETY: the GIL is held and no Python code runs below (module rule), so the dict does not
    // change while it is walked and its borrowed entries stay alive.
    while unsafe { ffi::PyDict_Next(dict.as_ptr(), &mut position, &mut key, &mut value) } != 0 {
        if unsafe { ffi::Py_TYPE(key) } != addr_of_mut!(ffi::PyUnicode_Type) {
            return Err(PyTypeError::new_err(format!("{table}['{query}']: a document id is not a str")));
        }
        let Some(number) = (unsafe { exact_number(value) }) else {
            return Err(PyErr::take(dict.py()).unwrap_or_else(|| {
                PyTypeError::new_err(format!("{table}['{query}']: a value is not a float or an int"))
            }));
        };
        if number.is_nan() {
            // SAFETY: `key` is a live `str`; the new reference is owned by the `Bound`.
            let doc = unsafe { Bound::from_borrowed_ptr(dict.py(), key) };
            let message = format!("{table}['{query}']['{doc}']: expected a number, not {number}");
            return Err(crate::fail(litnav_app::Error::input(message)));
        }
        each(Key(key), number);
    }
    Ok(())
}

/// CPython's `PyFloatObject`: the object header, then the number. Not in the limited API, but
/// laid out so in every CPython an abi3 module loads into (3.9 on; free-threaded builds, whose
/// header differs, do not load abi3 modules), and read here only for an exact `float`.
#[repr(C)]
struct FloatObject {
    header: ffi::PyObject,
    value: f64,
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::offset_of!(FloatObject, value) == 16, "CPython's float holds its number at 16");

/// The value of an exact `float` or `int` (`None` for any other type, or with the exception set
/// when an `int` is too large for a float).
///
/// # Safety
/// `value` is a live object and the GIL is held.
unsafe fn exact_number(value: *mut ffi::PyObject) -> Option<f64> {
    let kind = unsafe { ffi::Py_TYPE(value) };
    if kind == addr_of_mut!(ffi::PyFloat_Type) {
        // SAFETY: an exact `float` is a `FloatObject`.
        Some(unsafe { (*value.cast::<FloatObject>()).value })
    } else if kind == addr_of_mut!(ffi::PyLong_Type) {
        let number = unsafe { ffi::PyLong_AsDouble(value) };
        (number != -1.0 || unsafe { ffi::PyErr_Occurred() }.is_null()).then_some(number)
    } else {
        None
    }
}

/// Two clusterings given as dicts of exact `str` documents to clusters — exact `str` or `int`,
/// or an exact `list` or `tuple` of them, the first primary — aligned where they are: the
/// documents both hold (in id order when `in_id_order`), each one's clusters numbered in
/// scikit-learn's label order. Only the distinct clusters are read into Rust; documents never
/// are. Anything else raises `TypeError` before it is used (the caller then reads the
/// clusterings one entry at a time, which names what is wrong).
pub fn aligned_clusterings(
    gold: &Bound<'_, PyDict>,
    predicted: &Bound<'_, PyDict>,
    in_id_order: bool,
) -> PyResult<Aligned> {
    // Every key of `predicted` is checked first, so looking gold's documents up in it runs no
    // Python code.
    for_each_entry(predicted, |_, clusters| check_clusters(clusters))?;
    let mut shared: Vec<(Key, *mut ffi::PyObject, *mut ffi::PyObject)> = Vec::with_capacity(gold.len());
    let mut only_in_gold = 0;
    for_each_entry(gold, |document, clusters| {
        check_clusters(clusters)?;
        // SAFETY: `document` is a live exact `str` and every key of `predicted` is one.
        let found = unsafe { ffi::PyDict_GetItemWithError(predicted.as_ptr(), document.0) };
        if found.is_null() {
            if !unsafe { ffi::PyErr_Occurred() }.is_null() {
                return Err(PyErr::fetch(gold.py()));
            }
            only_in_gold += 1;
        } else {
            shared.push((document, clusters, found));
        }
        Ok(())
    })?;
    if in_id_order {
        shared.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    }
    let (mut gold_table, mut predicted_table) = (LabelTable::default(), LabelTable::default());
    let (mut gold_clusters, mut predicted_clusters) = (Memberships::default(), Memberships::default());
    let mut numbers = Vec::new();
    for &(_, gold_value, predicted_value) in &shared {
        for (table, value, memberships) in [
            (&mut gold_table, gold_value, &mut gold_clusters),
            (&mut predicted_table, predicted_value, &mut predicted_clusters),
        ] {
            table.numbers(gold.py(), value, &mut numbers)?;
            memberships.push(numbers.drain(..));
        }
    }
    let (gold_labels, renumber) = gold_table.sorted(gold.py())?;
    gold_clusters.renumber(&renumber);
    let (predicted_labels, renumber) = predicted_table.sorted(gold.py())?;
    predicted_clusters.renumber(&renumber);
    Ok(Aligned {
        only_in_predicted: predicted.len() - shared.len(),
        gold: gold_clusters,
        predicted: predicted_clusters,
        gold_labels,
        predicted_clusters: predicted_labels.len(),
        only_in_gold,
        in_id_order,
    })
}

/// Call `each` with every key (an exact `str`, else `TypeError`) and value of `dict`, borrowed.
fn for_each_entry(
    dict: &Bound<'_, PyDict>,
    mut each: impl FnMut(Key, *mut ffi::PyObject) -> PyResult<()>,
) -> PyResult<()> {
    let (mut position, mut key, mut value): (ffi::Py_ssize_t, _, _) = (0, null_mut(), null_mut());
    // SAFETY: the GIL is held and no Python code runs below (module rule).
    while unsafe { ffi::PyDict_Next(dict.as_ptr(), &mut position, &mut key, &mut value) } != 0 {
        if unsafe { ffi::Py_TYPE(key) } != addr_of_mut!(ffi::PyUnicode_Type) {
            return Err(PyTypeError::new_err("a document is not a str"));
        }
        each(Key(key), value)?;
    }
    Ok(())
}

/// Call `each` with a document's clusters, borrowed: the value itself, or an exact `list`'s or
/// `tuple`'s items; how many there are.
///
/// # Safety
/// `value` is a live object, the GIL is held and nothing changes it while `each` runs.
unsafe fn for_each_label(value: *mut ffi::PyObject, mut each: impl FnMut(*mut ffi::PyObject)) -> usize {
    type Size = unsafe extern "C" fn(*mut ffi::PyObject) -> ffi::Py_ssize_t;
    type Item = unsafe extern "C" fn(*mut ffi::PyObject, ffi::Py_ssize_t) -> *mut ffi::PyObject;
    let kind = unsafe { ffi::Py_TYPE(value) };
    let (size, item): (Size, Item) = if kind == addr_of_mut!(ffi::PyList_Type) {
        (ffi::PyList_Size, ffi::PyList_GetItem)
    } else if kind == addr_of_mut!(ffi::PyTuple_Type) {
        (ffi::PyTuple_Size, ffi::PyTuple_GetItem)
    } else {
        each(value);
        return 1;
    };
    let count = unsafe { size(value) };
    (0..count).for_each(|i| each(unsafe { item(value, i) }));
    count as usize
}

/// Refuse (`TypeError`) a document's clusters unless they are an exact `str` or `int`, or a
/// non-empty exact `list` or `tuple` of them.
fn check_clusters(value: *mut ffi::PyObject) -> PyResult<()> {
    let mut exact = true;
    // SAFETY: `value` is a dict's live value; the GIL is held (module rule).
    let count = unsafe {
        for_each_label(value, |label| {
            let kind = ffi::Py_TYPE(label);
            exact &= kind == addr_of_mut!(ffi::PyUnicode_Type) || kind == addr_of_mut!(ffi::PyLong_Type);
        })
    };
    if count == 0 || !exact {
        return Err(PyTypeError::new_err("a cluster is not a str or an int"));
    }
    Ok(())
}

/// A clustering's distinct clusters (exact `str` or `int`, borrowed), numbered as first seen;
/// equal labels are found by Python's hash and equality (C code for these types).
#[derive(Default)]
struct LabelTable {
    labels: Vec<*mut ffi::PyObject>,
    by_hash: foldhash::HashMap<ffi::Py_hash_t, Vec<usize>>,
    /// The last label looked up, and its number: documents often share the very same object.
    last: Option<(*mut ffi::PyObject, usize)>,
}

impl LabelTable {
    /// Put the numbers of a checked value's clusters (see `check_clusters`) in `numbers`.
    fn numbers(&mut self, py: Python<'_>, value: *mut ffi::PyObject, numbers: &mut Vec<usize>) -> PyResult<()> {
        let mut failed = None;
        // SAFETY: `value` was checked and is alive in its dict; the GIL is held.
        unsafe {
            for_each_label(value, |label| match self.number(py, label) {
                Ok(number) => numbers.push(number),
                Err(error) => failed = Some(error),
            })
        };
        failed.map_or(Ok(()), Err)
    }

    fn number(&mut self, py: Python<'_>, label: *mut ffi::PyObject) -> PyResult<usize> {
        if let Some((object, number)) = self.last
            && object == label
        {
            return Ok(number);
        }
        let number = self.look_up(py, label)?;
        self.last = Some((label, number));
        Ok(number)
    }

    fn look_up(&mut self, py: Python<'_>, label: *mut ffi::PyObject) -> PyResult<usize> {
        // SAFETY: `label` is a live exact `str` or `int`: hashing and comparing it run C code only.
        let hash = unsafe { ffi::PyObject_Hash(label) };
        let fetch = || PyErr::fetch(py);
        if hash == -1 {
            return Err(fetch());
        }
        let candidates = self.by_hash.entry(hash).or_default();
        for &number in candidates.iter() {
            match unsafe { ffi::PyObject_RichCompareBool(self.labels[number], label, ffi::Py_EQ) } {
                1 => return Ok(number),
                0 => {}
                _ => return Err(fetch()),
            }
        }
        candidates.push(self.labels.len());
        self.labels.push(label);
        Ok(self.labels.len() - 1)
    }

    /// The labels in scikit-learn's order, and each first-seen number's place in it.
    fn sorted(&self, py: Python<'_>) -> PyResult<(Vec<Label>, Vec<usize>)> {
        let numbers = self.labels.iter().all(|&l| unsafe { ffi::Py_TYPE(l) } == addr_of_mut!(ffi::PyLong_Type));
        let mut labels = Vec::with_capacity(self.labels.len());
        for &label in &self.labels {
            // SAFETY: a live exact `str` or `int` (its dict holds it); the new reference is the Bound's.
            let label = unsafe { Bound::from_borrowed_ptr(py, label) };
            let text = label.str()?.to_cow()?.into_owned();
            labels.push(if numbers { Label::Number(label.extract::<f64>()?, text) } else { Label::Text(text) });
        }
        let renumber = sort_labels(&mut labels);
        Ok((labels, renumber))
    }
}
