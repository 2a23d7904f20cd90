//! Citation contexts: where and how one paper cites another. SciNet's pair-wise tasks ask which
//! papers cite X positively and which are mentioned together with X in one paragraph; both need
//! the text around each citation, which litnav ingests when a source provides it.
//!
//! Input is JSONL, one citation mention per line:
//! `{"citing_id": "P1", "cited_id": "P2", "paragraph": "sec2-p3", "text": "...", "sentiment": "positive"}`.
//! `paragraph` (string or number) identifies the paragraph within the citing paper; `section` (the
//! heading the paragraph is under) and `sentiment` (`positive`, `neutral`, `negative`) are
//! optional — a judge (the LLM layer) can fill the sentiment later. Surveys ingested with
//! `litnav ingest --surveys` contribute contexts too.

use crate::{Error, Result};
pub use litnav_core::Sentiment;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One mention of a cited paper in a citing paper's text.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CitationContext {
    /// The citing paper.
    pub citing_id: String,
    /// The cited paper.
    pub cited_id: String,
    /// The paragraph of the citing paper the mention is in.
    pub paragraph: String,
    /// The heading of the section the paragraph is in, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// The text around the mention.
    pub text: String,
    /// The mention's sentiment, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sentiment: Option<Sentiment>,
}

/// Read citation contexts from a JSONL file. Errors name the file, line and field.
pub fn read_jsonl(path: &Path) -> Result<Vec<CitationContext>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    let mut contexts = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |field: &str, message: &str| {
            Error::Input(format!("{}:{}: field `{field}`: {message}", path.display(), number + 1))
        };
        let value: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| Error::Input(format!("{}:{}: not JSON: {e}", path.display(), number + 1)))?;
        let string = |field: &str| -> Result<String> {
            match value.get(field) {
                Some(serde_json::Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
                Some(serde_json::Value::Number(n)) if field == "paragraph" => Ok(n.to_string()),
                Some(_) => Err(at(field, "expected a non-empty string")),
                None => Err(at(field, "missing")),
            }
        };
        let sentiment = match value.get("sentiment") {
            None | Some(serde_json::Value::Null) => None,
            Some(v) => Some(
                serde_json::from_value(v.clone())
                    .map_err(|_| at("sentiment", "expected \"positive\", \"neutral\" or \"negative\""))?,
            ),
        };
        contexts.push(CitationContext {
            citing_id: string("citing_id")?,
            cited_id: string("cited_id")?,
            paragraph: string("paragraph")?,
            section: value.get("section").and_then(|v| v.as_str()).map(str::to_string),
            text: string("text")?,
            sentiment,
        });
    }
    Ok(contexts)
}

/// A paper mentioned in the same paragraph as the query paper.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CoMention {
    /// The co-mentioned paper.
    pub paper_id: String,
    /// Distinct paragraphs (citing paper + paragraph) mentioning both.
    pub paragraphs: usize,
    /// Distinct citing papers with such a paragraph.
    pub citing_papers: usize,
}

/// Papers mentioned in a paragraph that also mentions `paper_id`, most paragraphs first (ties:
/// more citing papers, then smaller id).
pub fn co_mentioned(contexts: &[CitationContext], paper_id: &str) -> Vec<CoMention> {
    let mut by_paragraph: BTreeMap<(&str, &str), BTreeSet<&str>> = BTreeMap::new();
    for context in contexts {
        by_paragraph.entry((&context.citing_id, &context.paragraph)).or_default().insert(&context.cited_id);
    }
    let mut found: BTreeMap<&str, (usize, BTreeSet<&str>)> = BTreeMap::new();
    for ((citing, _), cited) in &by_paragraph {
        if cited.contains(paper_id) {
            for other in cited.iter().filter(|&&other| other != paper_id) {
                let entry = found.entry(other).or_default();
                entry.0 += 1;
                entry.1.insert(citing);
            }
        }
    }
    let mut out: Vec<CoMention> = found
        .into_iter()
        .map(|(id, (paragraphs, citing))| CoMention {
            paper_id: id.to_string(),
            paragraphs,
            citing_papers: citing.len(),
        })
        .collect();
    out.sort_by(|a, b| {
        b.paragraphs.cmp(&a.paragraphs).then(b.citing_papers.cmp(&a.citing_papers)).then(a.paper_id.cmp(&b.paper_id))
    });
    out
}

/// The mentions of `cited` by `citing`, in file order.
pub fn mentions_between<'c>(
    contexts: &'c [CitationContext],
    citing: &str,
    cited: &str,
) -> impl Iterator<Item = &'c CitationContext> {
    contexts.iter().filter(move |c| c.citing_id == citing && c.cited_id == cited)
}

/// How the papers citing `cited_id` speak of it: per citing paper with labelled mentions, the
/// most frequent label (a tie with neutral is neutral; a positive–negative tie is negative).
pub fn sentiment_of_citers(contexts: &[CitationContext], cited_id: &str) -> BTreeMap<String, Sentiment> {
    let mut tallies: BTreeMap<&str, [usize; 3]> = BTreeMap::new();
    for context in contexts.iter().filter(|c| c.cited_id == cited_id) {
        if let Some(sentiment) = context.sentiment {
            tallies.entry(&context.citing_id).or_default()[sentiment as usize] += 1;
        }
    }
    tallies
        .into_iter()
        .map(|(citing, [positive, neutral, negative])| {
            let label = if positive > neutral && positive > negative {
                Sentiment::Positive
            } else if negative > neutral && negative >= positive {
                Sentiment::Negative
            } else {
                Sentiment::Neutral
            };
            (citing.to_string(), label)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("contexts.jsonl");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    #[test]
    fn reads_contexts_and_finds_co_mentions_and_sentiment() {
        let (_dir, path) = write(concat!(
            r#"{"citing_id":"P1","cited_id":"A","paragraph":"p1","text":"A and B both","sentiment":"positive"}"#,
            "\n",
            r#"{"citing_id":"P1","cited_id":"B","paragraph":"p1","text":"A and B both"}"#,
            "\n\n",
            r#"{"citing_id":"P2","cited_id":"A","paragraph":7,"text":"A fails","sentiment":"negative"}"#,
            "\n",
            r#"{"citing_id":"P2","cited_id":"B","paragraph":7,"text":"unlike B"}"#,
            "\n",
            r#"{"citing_id":"P2","cited_id":"C","paragraph":8,"text":"C alone"}"#,
            "\n",
        ));
        let contexts = read_jsonl(&path).unwrap();
        assert_eq!(contexts.len(), 5);
        assert_eq!(contexts[2].paragraph, "7");
        let with_a = co_mentioned(&contexts, "A");
        assert_eq!(with_a, vec![CoMention { paper_id: "B".into(), paragraphs: 2, citing_papers: 2 }]);
        let sentiment = sentiment_of_citers(&contexts, "A");
        assert_eq!(sentiment["P1"], Sentiment::Positive);
        assert_eq!(sentiment["P2"], Sentiment::Negative);
    }

    #[test]
    fn bad_records_name_line_and_field() {
        let (_dir, path) = write(
            "{\"citing_id\":\"P1\",\"cited_id\":\"A\",\"paragraph\":\"p\",\"text\":\"x\"}\n{\"citing_id\":\"P1\",\"paragraph\":\"p\",\"text\":\"x\"}\n",
        );
        let message = read_jsonl(&path).unwrap_err().to_string();
        assert!(message.ends_with(":2: field `cited_id`: missing"), "{message}");
        let (_dir, path) = write(
            "{\"citing_id\":\"P1\",\"cited_id\":\"A\",\"paragraph\":\"p\",\"text\":\"x\",\"sentiment\":\"great\"}\n",
        );
        let message = read_jsonl(&path).unwrap_err().to_string();
        assert!(message.contains(":1: field `sentiment`"), "{message}");
        let (_dir, path) = write("{oops\n");
        assert!(read_jsonl(&path).unwrap_err().to_string().contains(":1: not JSON"));
    }
}
