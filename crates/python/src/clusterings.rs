//! Clusterings given as Python objects, read for `score_clusters`: a mapping of document to
//! cluster (or to a list of clusters, the first primary), or a sequence of (document, cluster)
//! pairs. Documents are strings (or whole numbers, read as their text); clusters are strings or
//! whole numbers (NumPy's among them), and a clustering whose clusters are all numbers orders them
//! by value, as scikit-learn does. Two dicts of exact `str` keys are aligned where they are
//! (`in_place::aligned_clusterings`); anything else is read here, one entry at a time.

use crate::in_place;
use litnav_app::score::clusters::{Aligned, Assignment};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyMapping, PyString, PyTuple};

/// The two clusterings over the documents they share. The documents are in id order when
/// `in_id_order` (the random baseline deals them in that order); otherwise in any order.
pub fn aligned(gold: &Bound<'_, PyAny>, predicted: &Bound<'_, PyAny>, in_id_order: bool) -> PyResult<Aligned> {
    if let (Ok(gold), Ok(predicted)) = (gold.cast_exact::<PyDict>(), predicted.cast_exact::<PyDict>()) {
        match in_place::aligned_clusterings(gold, predicted, in_id_order) {
            Ok(aligned) => return Ok(aligned),
            // Keys or clusters of other types: read one entry at a time below, which names them.
            Err(error) if error.is_instance_of::<PyTypeError>(gold.py()) => {}
            Err(error) => return Err(error),
        }
    }
    Ok(Aligned::of(&assignment("gold", gold)?, &assignment("predicted", predicted)?))
}

/// One clustering read entry by entry; `name` names it in errors.
fn assignment(name: &str, given: &Bound<'_, PyAny>) -> PyResult<Assignment> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut numbers = true;
    let mut add = |at: &dyn Fn() -> String, document: &Bound<'_, PyAny>, clusters: &Bound<'_, PyAny>| {
        let document = document_id(document).ok_or_else(|| {
            refused(format!("{}: a document is a string or a whole number, not {}", at(), shown(document)))
        })?;
        let listed = clusters.cast::<PyList>().map(|l| l.to_tuple()).or_else(|_| clusters.cast::<PyTuple>().cloned());
        let clusters: Vec<Bound<'_, PyAny>> = match listed {
            Ok(list) if list.is_empty() => return Err(refused(format!("{}: an empty list of clusters", at()))),
            Ok(list) => list.iter().collect(),
            Err(_) => vec![clusters.clone()],
        };
        for cluster in clusters {
            let (label, is_number) = cluster_label(&cluster).ok_or_else(|| {
                refused(format!("{}: a cluster is a string or a whole number, not {}", at(), shown(&cluster)))
            })?;
            numbers &= is_number;
            pairs.push((document.clone(), label));
        }
        Ok::<(), PyErr>(())
    };
    if let Ok(mapping) = given.cast::<PyMapping>() {
        for item in mapping.items()?.iter() {
            let (document, clusters): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
            add(&|| format!("{name}[{}]", shown(&document)), &document, &clusters)?;
        }
    } else {
        let items = given.try_iter().map_err(|_| {
            refused(format!(
                "{name}: expected a mapping or a sequence of (document, cluster) pairs, not {}",
                kind(given)
            ))
        })?;
        for (position, item) in items.enumerate() {
            let item = item?;
            let pair = item.cast::<PyTuple>().cloned().or_else(|_| item.cast::<PyList>().map(|l| l.to_tuple()));
            match pair {
                Ok(pair) if pair.len() == 2 => {
                    add(&|| format!("{name}[{position}]"), &pair.get_item(0)?, &pair.get_item(1)?)?;
                }
                _ => {
                    return Err(refused(format!(
                        "{name}[{position}]: expected a (document, cluster) pair, not {}",
                        shown(&item)
                    )));
                }
            }
        }
    }
    let pairs = pairs.iter().map(|(d, c)| (d.as_str(), c.as_str()));
    Ok(if numbers { Assignment::from_numbered_pairs(pairs) } else { Assignment::from_pairs(pairs) })
}

/// A document's id: a string, or a whole number's text.
fn document_id(document: &Bound<'_, PyAny>) -> Option<String> {
    if let Ok(text) = document.cast::<PyString>() {
        return text.to_cow().ok().map(|t| t.into_owned());
    }
    whole_number(document).map(|n| n.to_string())
}

/// A cluster's label and whether it was a number: a string, or a whole number (not a bool).
fn cluster_label(cluster: &Bound<'_, PyAny>) -> Option<(String, bool)> {
    if let Ok(text) = cluster.cast::<PyString>() {
        return text.to_cow().ok().map(|t| (t.into_owned(), false));
    }
    whole_number(cluster).map(|n| (n.to_string(), true))
}

/// A whole number: Python's `int` or anything with `__index__` (NumPy's integers), never a bool.
fn whole_number(value: &Bound<'_, PyAny>) -> Option<i64> {
    if value.is_instance_of::<PyBool>() {
        return None;
    }
    value.extract::<i64>().ok()
}

/// `repr(value)`, or its type's name when that fails.
fn shown(value: &Bound<'_, PyAny>) -> String {
    value.repr().map_or_else(|_| kind(value), |r| r.to_string())
}

fn kind(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map_or_else(|_| "an unknown type".into(), |n| n.to_string())
}

/// A wrong input, raised as litnav's input error (the package's `InputError`).
fn refused(message: String) -> PyErr {
    crate::fail(litnav_app::Error::input(message))
}
