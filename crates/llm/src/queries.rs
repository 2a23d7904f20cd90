//! ResearchArena's LLM query writers (seed 002 §6.1): Zero-shot (one query written from the
//! survey's title) and Decomposer (the topic broken into sub-questions, one query each; the
//! caller retrieves for every query and fuses the rankings by reciprocal rank fusion).
//!
//! The paper's prompts ask for free text with tagged lists; litnav asks for JSON under a schema
//! (which OpenAI-compatible servers, llama.cpp included, can enforce), validates it and repairs
//! once, so a small local model still yields usable queries or a clear error.

use crate::structured::{Answer, Task, ask};
use crate::{Client, Result, prompts};
use serde::Deserialize;

/// Longest query kept (characters).
const MAX_QUERY_CHARS: usize = 200;

/// Zero-shot: one search query for the topic.
pub fn zero_shot_query(client: &Client, topic: &str) -> Result<Answer<String>> {
    #[derive(Deserialize)]
    struct Query {
        query: String,
    }
    let task = Task {
        name: "survey_query".into(),
        messages: prompts::survey_query(topic),
        schema: prompts::survey_query_schema(),
        max_tokens: 120,
    };
    let answer: Answer<Query> = ask(client, &task, |q: &Query| usable(&q.query).map(|_| ()))?;
    let query = usable(&answer.value.query).unwrap_or_default();
    Ok(Answer { value: query, raw: answer.raw, repaired: answer.repaired, cached: answer.cached })
}

/// Decomposer: the sub-questions' queries, distinct, in the model's order.
pub fn decomposed_queries(client: &Client, topic: &str) -> Result<Answer<Vec<String>>> {
    /// The sub-question itself is asked for (it makes the model decompose before it writes
    /// queries) but only its query is used.
    #[derive(Deserialize)]
    struct SubQuestion {
        query: String,
    }
    #[derive(Deserialize)]
    struct Decomposition {
        sub_questions: Vec<SubQuestion>,
    }
    let task = Task {
        name: "survey_subqueries".into(),
        messages: prompts::survey_subqueries(topic),
        schema: prompts::survey_subqueries_schema(),
        max_tokens: 900,
    };
    let answer: Answer<Decomposition> = ask(client, &task, |d: &Decomposition| {
        if distinct(d.sub_questions.iter().map(|s| s.query.as_str())).is_empty() {
            return Err("no sub-question has a usable query (a few words of the field's terms)".into());
        }
        Ok(())
    })?;
    let queries = distinct(answer.value.sub_questions.iter().map(|s| s.query.as_str()));
    Ok(Answer { value: queries, raw: answer.raw, repaired: answer.repaired, cached: answer.cached })
}

/// A query with white space collapsed and wrapping quotes removed, or what is wrong with it.
fn usable(query: &str) -> std::result::Result<String, String> {
    let cleaned = query.split_whitespace().collect::<Vec<_>>().join(" ");
    let cleaned = cleaned.trim_matches(|c: char| c == '"' || c == '\'' || c == '`').trim();
    if cleaned.chars().filter(|c| c.is_alphanumeric()).count() < 3 {
        return Err(format!("the query \"{query}\" has no words to search for"));
    }
    Ok(cleaned.chars().take(MAX_QUERY_CHARS).collect())
}

/// The usable queries, each once (compared case-insensitively).
fn distinct<'a>(queries: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    queries.filter_map(|q| usable(q).ok()).filter(|q| seen.insert(q.to_lowercase())).collect()
}
