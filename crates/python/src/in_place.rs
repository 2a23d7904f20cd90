//! Retrieval judgments and runs read where they are: Python dicts of `str` to numbers walked
//! with borrowed entries, so a run of 19,000 scores costs no reference count, no object and no
//! copied id per entry. The only module of the package allowed `unsafe`.
//!
//! Soundness rests on one rule kept inside this module: while borrowed entries are held, no
//! Python code runs. The GIL is held throughout (every function takes a `Bound`, and none
//! releases it); keys must be exact `str` and values exact `float` or `int`, whose comparison,
//! hashing and reading are CPython's C code, never a method a user could override. Anything else
//! raises `TypeError` before it is used, and the package converts such mappings first. No
//! borrowed entry leaves a function of this module.

#![allow(unsafe_code)]

use litnav_app::score::trec::{self, GradedRanking};
use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::cmp::Ordering;
use std::ptr::{addr_of_mut, null_mut};

/// One query's run graded in trec_eval's order to `depth` against its judgments `judged` (a
/// query missing from the run has `docs` `None`). `query` names the query in errors.
pub fn graded_query(
    judged: &Bound<'_, PyDict>,
    docs: Option<&Bound<'_, PyDict>>,
    depth: usize,
    query: &str,
) -> PyResult<GradedRanking> {
    let mut grades = Vec::with_capacity(judged.len());
    for_each_number(judged, "qrels", query, |_, grade| grades.push(grade))?;
    let mut scored = Vec::with_capacity(docs.map_or(0, |d| d.len()));
    if let Some(docs) = docs {
        for_each_number(docs, "run", query, |doc, score| scored.push((score, doc)))?;
    }
    // SAFETY: `judged`'s keys were all checked to be exact `str` above, so looking one up runs
    // no Python code; its values were checked to be exact numbers.
    let grade = |doc: &Key| -> PyResult<f64> {
        let value = unsafe { ffi::PyDict_GetItemWithError(judged.as_ptr(), doc.0) };
        if value.is_null() {
            // Most documents are not judged: the common miss costs no exception fetch.
            let failed = !unsafe { ffi::PyErr_Occurred() }.is_null();
            return if failed { Err(PyErr::fetch(judged.py())) } else { Ok(0.0) };
        }
        unsafe { exact_number(value) }.ok_or_else(|| PyTypeError::new_err("qrels: a grade changed while read"))
    };
    trec::grade_scored(&mut scored, depth, grades, grade)
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

/// The value of an exact `float` or `int` (`None` for any other type, or with the exception set
/// when an `int` is too large for a float).
///
/// # Safety
/// `value` is a live object and the GIL is held.
unsafe fn exact_number(value: *mut ffi::PyObject) -> Option<f64> {
    let kind = unsafe { ffi::Py_TYPE(value) };
    if kind == addr_of_mut!(ffi::PyFloat_Type) {
        Some(unsafe { ffi::PyFloat_AsDouble(value) })
    } else if kind == addr_of_mut!(ffi::PyLong_Type) {
        let number = unsafe { ffi::PyLong_AsDouble(value) };
        (number != -1.0 || unsafe { ffi::PyErr_Occurred() }.is_null()).then_some(number)
    } else {
        None
    }
}
