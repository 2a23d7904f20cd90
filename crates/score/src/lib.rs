//! Scoring other systems' outputs with the field's metrics, over whole files: TaxoBench
//! prediction files, any two trees, TREC runs, SciNet's queries and Knowledge Navigator's clusterings
//! ([`taxobench`], [`tree`], [`trec`], [`scinet`] and [`pairwise`], [`clusters`]); a generated
//! survey against an expert one with Bloom-Eval's 16 metrics ([`survey`]); the LLM judges over
//! files ([`judge`]). The pure metrics live in `litnav-eval`; this crate reads the files they are
//! computed from, pairs them, and reports.

pub mod agreement;
pub mod clusters;
pub mod judge;
pub mod pairwise;
pub mod scinet;
pub mod similarity;
pub mod survey;
pub mod taxobench;
pub mod trec;
pub mod tree;

use litnav_session::error::{Error, Result};
use serde_json::Value;
use std::path::Path;

/// A report's flat numbers as aligned `  key value` lines (whole numbers as they are, the others
/// to six decimals, strings as they are; nested values left out).
pub fn numbers<T: serde::Serialize>(report: &T) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    if let Ok(Value::Object(map)) = serde_json::to_value(report) {
        for (key, value) in map {
            let _ = match value {
                Value::Number(n) if n.is_u64() => writeln!(out, "  {key:<24} {n}"),
                Value::Number(n) => writeln!(out, "  {key:<24} {:.6}", n.as_f64().unwrap_or(f64::NAN)),
                Value::String(s) => writeln!(out, "  {key:<24} {s}"),
                _ => Ok(()),
            };
        }
    }
    out
}

/// The records of a JSON-lines file with their 1-based line numbers (blank lines skipped). A line
/// that is not JSON is an error naming it; an empty file is an error.
pub fn read_json_lines(file: &Path) -> Result<Vec<(usize, Value)>> {
    let text = std::fs::read_to_string(file).map_err(|e| Error::io(file, &e))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let value: Value = serde_json::from_str(line)
            .map_err(|e| Error::input(format!("{}:{}: not JSON: {e}", file.display(), i + 1)))?;
        out.push((i + 1, value));
    }
    if out.is_empty() {
        return Err(Error::input(format!("{}: no records", file.display())));
    }
    Ok(out)
}

/// A string field of a JSON-lines record, or an error naming file, line and field.
pub fn field_str<'v>(value: &'v Value, field: &str, file: &Path, line: usize) -> Result<&'v str> {
    value[field]
        .as_str()
        .ok_or_else(|| Error::input(format!("{}:{line}: field `{field}`: expected a string", file.display())))
}

/// A list-of-strings field of a JSON-lines record, or an error naming file, line and field.
pub fn field_strings(value: &Value, field: &str, file: &Path, line: usize) -> Result<Vec<String>> {
    let list = value[field].as_array().ok_or_else(|| {
        Error::input(format!("{}:{line}: field `{field}`: expected a list of strings", file.display()))
    })?;
    list.iter().map(|v| v.as_str().map(str::to_string)).collect::<Option<Vec<_>>>().ok_or_else(|| {
        Error::input(format!("{}:{line}: field `{field}`: every entry must be a string", file.display()))
    })
}

/// The mean of some values (`None` for none).
pub fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}
