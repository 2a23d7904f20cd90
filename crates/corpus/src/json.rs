//! Typed access to the fields of one JSON record, with errors that name the file, line and field.

use crate::error::{Error, Location};
use serde_json::{Map, Value};
use std::path::Path;

/// One JSON object read from `file` at `line`.
pub(crate) struct Fields<'a> {
    pub(crate) object: &'a Map<String, Value>,
    pub(crate) file: &'a Path,
    pub(crate) line: usize,
    /// Prefix for field names in errors, e.g. `pdfs[3].` for nested objects.
    pub(crate) prefix: String,
}

impl<'a> Fields<'a> {
    /// Wrap a parsed value that must be a JSON object.
    pub(crate) fn of(value: &'a Value, file: &'a Path, line: usize) -> Result<Self, Error> {
        match value {
            Value::Object(object) => Ok(Fields { object, file, line, prefix: String::new() }),
            other => Err(Error::BadRecord {
                at: Location { file: file.to_path_buf(), line, field: None },
                message: format!("expected a JSON object, found {}", kind(other)),
            }),
        }
    }

    /// A nested object's fields, with `name` added to the error prefix.
    pub(crate) fn nested(&self, value: &'a Value, name: &str) -> Result<Self, Error> {
        match value {
            Value::Object(object) => {
                Ok(Fields { object, file: self.file, line: self.line, prefix: format!("{}{name}.", self.prefix) })
            }
            other => Err(self.error(name, format!("expected a JSON object, found {}", kind(other)))),
        }
    }

    /// An error about `field` of this record.
    pub(crate) fn error(&self, field: &str, message: String) -> Error {
        Error::BadRecord {
            at: Location {
                file: self.file.to_path_buf(),
                line: self.line,
                field: Some(format!("{}{field}", self.prefix)),
            },
            message,
        }
    }

    /// The raw value, `None` when absent or null.
    pub(crate) fn get(&self, field: &str) -> Option<&'a Value> {
        self.object.get(field).filter(|v| !v.is_null())
    }

    pub(crate) fn has(&self, field: &str) -> bool {
        self.object.contains_key(field)
    }

    /// An optional string; empty or all-white-space strings count as absent.
    pub(crate) fn opt_str(&self, field: &str) -> Result<Option<String>, Error> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.trim().to_string()).filter(|s| !s.is_empty())),
            Some(other) => Err(self.error(field, format!("expected a string, found {}", kind(other)))),
        }
    }

    /// A required, non-empty string.
    pub(crate) fn req_str(&self, field: &str) -> Result<String, Error> {
        match self.get(field) {
            None if self.has(field) => Err(self.error(field, "is null; a non-empty string is required".into())),
            None => Err(self.error(field, "is missing; a non-empty string is required".into())),
            Some(_) => {
                self.opt_str(field)?.ok_or_else(|| self.error(field, "is empty; a non-empty string is required".into()))
            }
        }
    }

    /// An optional id that may be written as a string or an integer.
    pub(crate) fn opt_id(&self, field: &str) -> Result<Option<String>, Error> {
        match self.get(field) {
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            _ => self.opt_str(field),
        }
    }

    /// An optional publication year: an integer, or a string holding one, within 1000..=2999.
    pub(crate) fn opt_year(&self, field: &str) -> Result<Option<i32>, Error> {
        let year = match self.get(field) {
            None => return Ok(None),
            Some(Value::Number(n)) => n.as_i64(),
            Some(Value::String(s)) if s.trim().is_empty() => return Ok(None),
            Some(Value::String(s)) => s.trim().parse::<i64>().ok(),
            Some(other) => return Err(self.error(field, format!("expected a year, found {}", kind(other)))),
        };
        match year {
            Some(y) if (1000..=2999).contains(&y) => Ok(Some(y as i32)),
            _ => Err(self.error(field, format!("expected a year between 1000 and 2999, found {}", self.object[field]))),
        }
    }

    /// An optional calendar date, `YYYY-MM-DD` (a time after it is dropped), written back in
    /// that form.
    pub(crate) fn opt_date(&self, field: &str) -> Result<Option<litnav_core::date::Date>, Error> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(Value::String(s)) => match litnav_core::date::Date::parse(s) {
                Some(date) => Ok(Some(date)),
                None => Err(self.error(field, format!("expected a date as YYYY-MM-DD, found \"{s}\""))),
            },
            Some(other) => Err(self.error(field, format!("expected a date as YYYY-MM-DD, found {}", kind(other)))),
        }
    }

    /// An optional non-negative integer count.
    pub(crate) fn opt_count(&self, field: &str) -> Result<Option<u64>, Error> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::Number(n)) => match n.as_u64() {
                Some(count) => Ok(Some(count)),
                None => Err(self.error(field, format!("expected a non-negative integer, found {n}"))),
            },
            Some(other) => Err(self.error(field, format!("expected a non-negative integer, found {}", kind(other)))),
        }
    }

    /// An optional boolean.
    pub(crate) fn opt_bool(&self, field: &str) -> Result<Option<bool>, Error> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(self.error(field, format!("expected true or false, found {}", kind(other)))),
        }
    }

    /// An optional array (absent or null → empty).
    pub(crate) fn array(&self, field: &str) -> Result<&'a [Value], Error> {
        match self.get(field) {
            None => Ok(&[]),
            Some(Value::Array(items)) => Ok(items),
            Some(other) => Err(self.error(field, format!("expected an array, found {}", kind(other)))),
        }
    }

    /// An optional array of strings (or integers, taken as their decimal text).
    pub(crate) fn strings(&self, field: &str) -> Result<Vec<String>, Error> {
        let mut out = Vec::new();
        for (i, item) in self.array(field)?.iter().enumerate() {
            match item {
                Value::String(s) if !s.trim().is_empty() => out.push(s.trim().to_string()),
                Value::String(_) | Value::Null => {}
                Value::Number(n) => out.push(n.to_string()),
                other => {
                    return Err(
                        self.error(&format!("{field}[{i}]"), format!("expected a string, found {}", kind(other)))
                    );
                }
            }
        }
        Ok(out)
    }
}

/// A JSON value's kind, for error messages.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
