//! The JSON record walker every JSON reader shares: JSON lines, or one document holding an
//! array of records or an API page (`results`).

use super::{Item, Sink, at, lines};
use crate::error::{Error, Result};
use crate::json::Fields;
use serde_json::Value;
use std::path::Path;

/// Call `parse` on every JSON record of a file: one per line for JSON lines, or each element of a
/// single JSON document that is an array or an object with a `results` array (an API page).
pub(crate) fn for_each_record(
    path: &Path,
    sink: &mut Sink<'_>,
    mut parse: impl FnMut(Fields<'_>) -> Result<Vec<Item>>,
) -> Result<()> {
    let first = lines::first_content(path)?;
    // The first line alone: not JSON but opening one → a pretty-printed document; an object with
    // a `results` array → an API page. Either way the file is one JSON document.
    let is_document = match serde_json::from_str::<Value>(first.trim()) {
        Err(_) => first.trim_start().starts_with(['{', '[']),
        Ok(value) => value.get("results").is_some_and(Value::is_array),
    };
    if is_document {
        let document = lines::whole_json(path)?;
        let records = match &document {
            Value::Array(items) => items.as_slice(),
            Value::Object(map) => match map.get("results") {
                Some(Value::Array(items)) => items.as_slice(),
                _ => std::slice::from_ref(&document),
            },
            _ => std::slice::from_ref(&document),
        };
        for (i, record) in records.iter().enumerate() {
            let outcome = Fields::of(record, path, 0).and_then(|mut fields| {
                fields.prefix = format!("[{i}].");
                parse(fields)
            });
            sink.take(outcome)?;
        }
        return Ok(());
    }
    lines::for_each_line(path, |number, line| {
        let outcome = line.and_then(|text| {
            let value = json_line(path, number, text)?;
            parse(Fields::of(&value, path, number)?)
        });
        sink.take(outcome)
    })
}

/// One line of a JSON-lines file as a value, or an error naming the file and line.
pub(crate) fn json_line(path: &Path, number: usize, text: &str) -> Result<Value> {
    serde_json::from_str(text)
        .map_err(|e| Error::BadRecord { at: at(path, number, None), message: format!("is not valid JSON: {e}") })
}
