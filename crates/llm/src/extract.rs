//! TaxoBench's input settings (seed 000 §4 "Input Settings", Appendix E.2): what an organizer is
//! shown of each paper besides its title and abstract — a summary the LLM extracts (problem,
//! motivation, methods, conclusions, contributions), or the paper's core task with its claimed
//! contributions. One request per paper and extraction, answered through the client's response
//! cache: a paper is read once, whatever map or benchmark shows it again, and `+ Core-task` reuses
//! the contributions `+ Summary` extracted.

use crate::client::Client;
use crate::prompts;
use crate::structured::{Answer, Task, ask};
use crate::{Error, Result};
use litnav_core::PaperText;
use serde::{Deserialize, Serialize};

/// What an organizer is shown of each paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Input {
    /// Title and abstract (TaxoBench's "Title + Abstract").
    #[default]
    TitleAbstract,
    /// Plus the extracted summary ("+ Summary").
    Summary,
    /// Plus the core task and the claimed contributions ("+ Core-task & Contributions").
    CoreTask,
}

impl Input {
    /// The setting's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Input::TitleAbstract => "title-abstract",
            Input::Summary => "summary",
            Input::CoreTask => "core-task",
        }
    }

    /// What the setting adds to each paper, for messages ("summary").
    pub fn noun(self) -> &'static str {
        match self {
            Input::TitleAbstract => "",
            Input::Summary => "summary",
            Input::CoreTask => "core task and contributions",
        }
    }

    /// What the notes of this setting are, in the organizer's prompt.
    pub fn notes_are(self) -> &'static str {
        match self {
            Input::TitleAbstract => "",
            Input::Summary => "a summary",
            Input::CoreTask => "its core task and contributions",
        }
    }
}

/// A paper's summary, as TaxoBench's extraction types it (problem, motivation, methods,
/// conclusions, contributions), flattened to phrases.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// The problem the paper addresses.
    pub problem: String,
    /// Why the authors find it important.
    pub motivation: String,
    /// Key methods (at most 3).
    pub methods: Vec<String>,
    /// Main conclusions (at most 2).
    pub conclusions: Vec<String>,
    /// Contributions the authors claim (at most 3).
    pub contributions: Vec<String>,
}

impl Summary {
    /// One line for a paper list: the non-empty parts, labelled.
    pub fn line(&self) -> String {
        let mut parts = Vec::new();
        let mut add = |label: &str, items: &[String]| {
            let items: Vec<&str> = items.iter().map(|s| s.trim()).filter(|s| !s.is_empty()).collect();
            if !items.is_empty() {
                parts.push(format!("{label}: {}.", items.join("; ").trim_end_matches('.')));
            }
        };
        add("Problem", std::slice::from_ref(&self.problem));
        add("Motivation", std::slice::from_ref(&self.motivation));
        add("Methods", &self.methods);
        add("Conclusions", &self.conclusions);
        add("Contributions", &self.contributions);
        parts.join(" ")
    }
}

/// The paper as the extraction prompts show it.
fn paper_text(paper: &PaperText<'_>) -> String {
    match paper.abstract_text.map(str::trim).filter(|a| !a.is_empty()) {
        Some(abstract_text) => format!("Title: {}\nAbstract: {abstract_text}", paper.title.trim()),
        None => format!("Title: {}\n(no abstract)", paper.title.trim()),
    }
}

/// Extract a paper's summary. An answer with nothing in it is refused and repaired.
pub fn summarize(client: &Client, paper: &PaperText<'_>) -> Result<Answer<Summary>> {
    let task = Task {
        name: "paper_summary".into(),
        messages: prompts::paper_summary(&paper_text(paper)),
        schema: prompts::paper_summary_schema(),
        max_tokens: 400,
    };
    ask(client, &task, |summary: &Summary| {
        if summary.line().is_empty() {
            return Err("every field is empty; say at least the problem or a contribution".into());
        }
        for (field, items, most) in [
            ("methods", &summary.methods, 3),
            ("conclusions", &summary.conclusions, 2),
            ("contributions", &summary.contributions, 3),
        ] {
            if items.len() > most {
                return Err(format!("{field} lists {} items; at most {most}", items.len()));
            }
        }
        Ok(())
    })
}

/// Extract a paper's core task: one phrase of 5 to 15 words (TaxoBench's bounds), without a final
/// full stop or quotation marks.
pub fn core_task(client: &Client, paper: &PaperText<'_>) -> Result<Answer<String>> {
    #[derive(Deserialize)]
    struct Raw {
        core_task: String,
    }
    let task = Task {
        name: "core_task".into(),
        messages: prompts::core_task(&paper_text(paper)),
        schema: prompts::core_task_schema(),
        max_tokens: 80,
    };
    let answer = ask(client, &task, |raw: &Raw| {
        let words = tidy_phrase(&raw.core_task).split_whitespace().count();
        if !(5..=15).contains(&words) {
            return Err(format!("the core task has {words} words; use one phrase of 5 to 15 words"));
        }
        Ok(())
    })?;
    Ok(Answer {
        value: tidy_phrase(&answer.value.core_task),
        raw: answer.raw,
        repaired: answer.repaired,
        cached: answer.cached,
    })
}

/// A phrase without surrounding quotes, a "Core task:" prefix or a final full stop.
fn tidy_phrase(phrase: &str) -> String {
    let mut text = phrase.trim().trim_matches(['"', '\'', '`']).trim();
    if let Some(rest) = text.get(..10).filter(|p| p.eq_ignore_ascii_case("core task:")).map(|_| &text[10..]) {
        text = rest.trim();
    }
    text.trim_end_matches('.').trim().to_string()
}

/// The note `input` shows under one paper: the summary's line, or "Core task: …. Contributions:
/// …." (`None` for title and abstract).
pub fn note(client: &Client, paper: &PaperText<'_>, input: Input) -> Result<Option<String>> {
    match input {
        Input::TitleAbstract => Ok(None),
        Input::Summary => Ok(Some(summarize(client, paper)?.value.line())),
        Input::CoreTask => {
            let task = core_task(client, paper)?.value;
            let contributions = summarize(client, paper)?.value.contributions;
            let contributions: Vec<&str> = contributions.iter().map(|c| c.trim()).filter(|c| !c.is_empty()).collect();
            let mut note = format!("Core task: {task}.");
            if !contributions.is_empty() {
                note.push_str(&format!(" Contributions: {}.", contributions.join("; ").trim_end_matches('.')));
            }
            Ok(Some(note))
        }
    }
}

/// The notes of many papers, as many requests in flight as the client allows; `done` is told how
/// many papers are finished after each one. A paper whose extraction fails gets its error (the
/// caller decides: show the paper without a note, or stop); a refused or unreachable endpoint
/// fails every remaining paper fast rather than waiting out each timeout.
pub fn notes(
    client: &Client,
    papers: &[PaperText<'_>],
    input: Input,
    done: &(dyn Fn(usize) + Sync),
) -> Vec<Result<Option<String>>> {
    if input == Input::TitleAbstract {
        return papers.iter().map(|_| Ok(None)).collect();
    }
    let results = client.map_parallel(
        papers,
        |paper| note(client, paper, input),
        |result| result.as_ref().is_err_and(Error::is_endpoint_failure),
        done,
    );
    let first_failure = results
        .iter()
        .flatten()
        .find_map(|r| r.as_ref().err().filter(|e| e.is_endpoint_failure()))
        .map(Error::to_string);
    results
        .into_iter()
        .map(|result| {
            result.unwrap_or_else(|| {
                Err(Error::Config(match &first_failure {
                    Some(message) => format!("not asked: {message}"),
                    None => "an extraction thread stopped".into(),
                }))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_are_tidied_and_summaries_read_as_one_line() {
        assert_eq!(
            tidy_phrase(" \"Core task: estimating uncertainty of model answers.\" "),
            "estimating uncertainty of model answers"
        );
        assert_eq!(tidy_phrase("core"), "core");
        let summary = Summary {
            problem: "Models are overconfident.".into(),
            motivation: String::new(),
            methods: vec!["sampling".into(), " ".into()],
            conclusions: vec![],
            contributions: vec!["a benchmark".into(), "a metric.".into()],
        };
        assert_eq!(
            summary.line(),
            "Problem: Models are overconfident. Methods: sampling. Contributions: a benchmark; a metric."
        );
        assert_eq!(Input::CoreTask.notes_are(), "its core task and contributions");
    }
}
