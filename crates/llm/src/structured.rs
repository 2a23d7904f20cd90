//! Typed answers: a request with a JSON schema, the answer's JSON found even inside prose or code
//! fences, parsed with serde, validated for meaning, and — when anything is wrong — one repair
//! round-trip that tells the model exactly what was wrong. Still wrong: a clear error carrying the
//! last answer.

use crate::client::{Client, Message};
use crate::{Error, Result, prompts};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// One structured request.
#[derive(Debug, Clone)]
pub struct Task {
    /// A short name (errors and traces use it; also the schema's name).
    pub name: String,
    /// The conversation.
    pub messages: Vec<Message>,
    /// The JSON schema of the answer.
    pub schema: Value,
    /// Completion-token limit of this request (below the client's own).
    pub max_tokens: u32,
}

/// A validated answer with its provenance.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer<T> {
    /// The typed, validated answer.
    pub value: T,
    /// The model's text it came from.
    pub raw: String,
    /// True when the first answer was invalid and the repaired one is used.
    pub repaired: bool,
    /// True when every reply came from the cache.
    pub cached: bool,
}

/// The JSON value inside `text`: the whole text, or the first balanced `{…}` / `[…]` in it
/// (models wrap JSON in prose and code fences). Errors say what is wrong.
pub fn extract_json(text: &str) -> std::result::Result<Value, String> {
    let trimmed = text.trim();
    if let Ok(value) = serde_json::from_str(trimmed) {
        return Ok(value);
    }
    let start = trimmed.find(['{', '[']).ok_or("the answer holds no JSON object")?;
    let bytes = trimmed.as_bytes();
    let (mut depth, mut in_string, mut escaped) = (0i32, false, false);
    for (i, &b) in bytes.iter().enumerate().skip(start) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return serde_json::from_str(&trimmed[start..=i])
                        .map_err(|e| format!("the JSON is malformed: {e}"));
                }
            }
            _ => {}
        }
    }
    Err("the JSON is truncated (unbalanced braces): the answer was cut off".into())
}

/// Parse and validate one answer text.
fn check<T: DeserializeOwned>(
    text: &str,
    validate: &impl Fn(&T) -> std::result::Result<(), String>,
) -> std::result::Result<T, String> {
    let value = extract_json(text)?;
    let typed: T = serde_json::from_value(value).map_err(|e| format!("the JSON does not have the asked shape: {e}"))?;
    validate(&typed)?;
    Ok(typed)
}

/// Ask `task`, validate the answer with `validate` (returning what is wrong, in words the model
/// can act on), repair once.
pub fn ask<T: DeserializeOwned>(
    client: &Client,
    task: &Task,
    validate: impl Fn(&T) -> std::result::Result<(), String>,
) -> Result<Answer<T>> {
    let first = client.chat(&task.messages, Some((&task.name, &task.schema)), Some(task.max_tokens))?;
    let problem = match check(&first.content, &validate) {
        Ok(value) => return Ok(Answer { value, raw: first.content, repaired: false, cached: first.cached }),
        Err(problem) => problem,
    };
    let mut messages = task.messages.clone();
    messages.push(Message::assistant(first.content.clone()));
    messages.push(Message::user(prompts::repair(&problem)));
    let second = client.chat(&messages, Some((&task.name, &task.schema)), Some(task.max_tokens))?;
    match check(&second.content, &validate) {
        Ok(value) => Ok(Answer { value, raw: second.content, repaired: true, cached: first.cached && second.cached }),
        Err(problem) => Err(Error::Invalid { task: task.name.clone(), problem, answer: second.content }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_json_in_prose_fences_and_reports_truncation() {
        assert_eq!(extract_json(r#"{"a": 1}"#).unwrap()["a"], 1);
        assert_eq!(extract_json("Sure! ```json\n{\"a\": \"}\"}\n``` hope it helps").unwrap()["a"], "}");
        assert_eq!(extract_json("[1, 2]").unwrap()[1], 2);
        assert!(extract_json(r#"{"a": [1, 2"#).unwrap_err().contains("truncated"));
        assert!(extract_json("no json here").unwrap_err().contains("no JSON"));
        assert!(extract_json("{\"a\": tru}").unwrap_err().contains("malformed"));
    }
}
