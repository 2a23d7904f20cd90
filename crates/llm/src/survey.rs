//! The LLM steps of Bloom-Eval's metrics (seed 001, Appendix B), each with its own prompt, a JSON
//! schema, meaning checks and one repair: entities and statements extracted from passages,
//! items matched between two surveys, citations checked against the cited paper, redundant
//! headings found. Counting, shortlisting and scoring are the caller's (`litnav-app`).

use crate::Result;
use crate::client::Client;
use crate::prompts::{self, StatementKind};
use crate::structured::{Answer, Task, ask};
use serde::{Deserialize, Serialize};

/// The technical entities a passage names, by kind.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Entities {
    /// Methods and models.
    pub methods_models: Vec<String>,
    /// Datasets and benchmarks.
    pub datasets: Vec<String>,
    /// Evaluation metrics.
    pub evaluation_metrics: Vec<String>,
}

/// Entity Fidelity's extraction from one passage.
pub fn entities(client: &Client, passage: &str) -> Result<Answer<Entities>> {
    let task = Task {
        name: "survey_entities".into(),
        messages: prompts::survey_entities(passage),
        schema: prompts::survey_entities_schema(),
        max_tokens: 1000,
    };
    ask(client, &task, |e: &Entities| {
        let all = e.methods_models.iter().chain(&e.datasets).chain(&e.evaluation_metrics);
        match all.clone().find(|name| name.trim().is_empty() || name.split_whitespace().count() > 12) {
            Some(name) => Err(format!("\"{name}\" is not an entity name (empty, or longer than 12 words)")),
            None => Ok(()),
        }
    })
}

#[derive(Debug, Deserialize)]
struct Statements {
    statements: Vec<String>,
}

/// Factual claims or critical judgments of one passage.
pub fn statements(client: &Client, kind: StatementKind, passage: &str) -> Result<Answer<Vec<String>>> {
    let task = Task {
        name: format!("survey_{}_statements", kind.name()),
        messages: prompts::survey_statements(kind, passage),
        schema: prompts::survey_statements_schema(),
        max_tokens: 1200,
    };
    let answer =
        ask(client, &task, |s: &Statements| match s.statements.iter().find(|t| t.split_whitespace().count() < 3) {
            Some(t) => Err(format!("\"{t}\" is not a statement (fewer than three words)")),
            None => Ok(()),
        })?;
    Ok(Answer { value: answer.value.statements, raw: answer.raw, repaired: answer.repaired, cached: answer.cached })
}

#[derive(Debug, Deserialize)]
struct Matches {
    matches: Vec<usize>,
}

/// For each generated item, which of its numbered candidates (1-based) means the same, or `None`.
/// `what` names the candidates ("entities", "claims", "topics"); `items` pairs each generated
/// item with its candidates.
pub fn match_items(client: &Client, what: &str, items: &[(&str, Vec<&str>)]) -> Result<Answer<Vec<Option<usize>>>> {
    let mut listing = String::new();
    for (i, (item, candidates)) in items.iter().enumerate() {
        listing.push_str(&format!("Item {}: {item}\n", i + 1));
        for (j, candidate) in candidates.iter().enumerate() {
            listing.push_str(&format!("  {}. {candidate}\n", j + 1));
        }
    }
    let task = Task {
        name: "survey_matching".into(),
        messages: prompts::survey_matching(what, &listing),
        schema: prompts::survey_matching_schema(items.len(), items.iter().map(|(_, c)| c.len()).max().unwrap_or(0)),
        max_tokens: 40 + 8 * items.len() as u32,
    };
    let answer = ask(client, &task, |m: &Matches| {
        if m.matches.len() != items.len() {
            return Err(format!("{} answers for {} items; give one per item", m.matches.len(), items.len()));
        }
        let out_of_range = m.matches.iter().zip(items).position(|(n, (_, candidates))| *n > candidates.len());
        match out_of_range {
            Some(i) => Err(format!("item {} has {} candidates, not {}", i + 1, items[i].1.len(), m.matches[i])),
            None => Ok(()),
        }
    })?;
    let value = answer.value.matches.iter().map(|&n| n.checked_sub(1)).collect();
    Ok(Answer { value, raw: answer.raw, repaired: answer.repaired, cached: answer.cached })
}

/// Whether a cited paper supports a sentence, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Support {
    /// The verdict.
    pub supported: bool,
    /// Why.
    pub reason: String,
}

/// Citation Faithfulness for one (sentence, cited paper) pair.
pub fn citation_support(client: &Client, statement: &str, title: &str, abstract_text: &str) -> Result<Answer<Support>> {
    let task = Task {
        name: "citation_support".into(),
        messages: prompts::citation_support(statement, title, abstract_text),
        schema: prompts::citation_support_schema(),
        max_tokens: 200,
    };
    ask(client, &task, |s: &Support| if s.reason.trim().is_empty() { Err("give a reason".into()) } else { Ok(()) })
}

#[derive(Debug, Deserialize)]
struct Pairs {
    pairs: Vec<Vec<String>>,
}

/// Structural Clarity: pairs of heading ids (among `ids`) the model finds redundant, each once.
pub fn redundant_headings(client: &Client, outline: &str, ids: &[String]) -> Result<Answer<Vec<(String, String)>>> {
    let task = Task {
        name: "redundant_headings".into(),
        messages: prompts::redundant_headings(outline),
        schema: prompts::redundant_headings_schema(ids),
        max_tokens: 700,
    };
    let answer = ask(client, &task, |p: &Pairs| match p.pairs.iter().flatten().find(|id| !ids.contains(id)) {
        Some(id) => Err(format!("`{id}` is not a heading id of the outline")),
        None => match p.pairs.iter().find(|pair| pair.len() != 2) {
            Some(pair) => Err(format!("{pair:?} is not a pair of ids")),
            None => Ok(()),
        },
    })?;
    // A pair named twice (in either order) counts once; a heading paired with itself is no redundancy.
    let mut seen = std::collections::HashSet::new();
    let value = answer
        .value
        .pairs
        .into_iter()
        .map(|p| (p[0].clone(), p[1].clone()))
        .filter(|(a, b)| a != b && seen.insert(if a < b { (a.clone(), b.clone()) } else { (b.clone(), a.clone()) }))
        .collect();
    Ok(Answer { value, raw: answer.raw, repaired: answer.repaired, cached: answer.cached })
}
