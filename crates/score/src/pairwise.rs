//! SciNet's pair-wise scores (seed 003, §4) of another system's answers: Cite-Acc and
//! Cite-Sentiment for citation queries ("which papers cite X positively?"), CoMention-Acc and
//! CoMention-Paragraph for co-mention queries ("which papers are mentioned together with X?"),
//! with a corpus's citation graph and citation contexts as the truth
//! ([`litnav_graph::evidence`] says what each metric checks).
//!
//! Each metric of a query is the share of its (at most `k`) answers that pass the check — an
//! answer that is not a corpus paper, or about which the corpus knows nothing, fails it — and a
//! metric over the file is the mean over the queries it applies to. Lines that cannot be scored
//! (unknown ids, missing or mistyped fields, answers to no query) are listed with file, line and
//! field, and the rest is scored.

use super::{mean, read_json_lines};
use litnav_core::Sentiment;
use litnav_graph::evidence::{Direction, PairEvidence};
use litnav_session::error::Result;
use litnav_session::progress::Progress;
use litnav_session::session::CorpusSession;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// What a pair-wise query asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PairTask {
    /// Which papers cite the query paper (with a sentiment, when given).
    Cite,
    /// Which papers are mentioned together with the query paper.
    CoMention,
}

/// One query's scores.
#[derive(Debug, Clone, Serialize)]
pub struct PairQueryScore {
    /// Line of the query file.
    pub line: usize,
    /// The query's id.
    pub id: String,
    /// The query paper.
    pub paper: String,
    /// What it asks.
    pub task: PairTask,
    /// The sentiment asked for (citation queries).
    pub sentiment: Option<Sentiment>,
    /// Answers scored (at most k).
    pub answers: usize,
    /// Answers that are not corpus papers (nor sources of its contexts).
    pub unknown_answers: usize,
    /// Cite-Acc (citation queries).
    pub cite_acc: Option<f64>,
    /// Cite-Sentiment (citation queries with a sentiment).
    pub cite_sentiment: Option<f64>,
    /// Citations among the answers whose sentiment no context records.
    pub unlabelled_citations: usize,
    /// CoMention-Acc (co-mention queries).
    pub comention_acc: Option<f64>,
    /// CoMention-Paragraph (co-mention queries).
    pub comention_paragraph: Option<f64>,
}

/// Pair-wise scores over a query file and an answer file.
#[derive(Debug, Clone, Serialize)]
pub struct PairScores {
    /// Queries scored.
    pub queries: usize,
    /// Queries without an answer line (scored as no answers).
    pub unanswered: usize,
    /// Mean Cite-Acc over citation queries.
    pub cite_acc: Option<f64>,
    /// Mean Cite-Sentiment over citation queries with a sentiment.
    pub cite_sentiment: Option<f64>,
    /// Mean CoMention-Acc over co-mention queries.
    pub comention_acc: Option<f64>,
    /// Mean CoMention-Paragraph over co-mention queries.
    pub comention_paragraph: Option<f64>,
    /// Mentions labelled by the LLM for Cite-Sentiment.
    pub labelled_by_llm: usize,
    /// Lines that could not be scored, each naming file, line and field.
    pub problems: Vec<String>,
    /// Per query.
    pub per_query: Vec<PairQueryScore>,
}

/// A parsed query line.
struct Query {
    line: usize,
    id: String,
    paper: String,
    task: PairTask,
    sentiment: Option<Sentiment>,
    direction: Direction,
}

/// Score `answers` to `queries`. Query lines: `id`, `paper` (a corpus id), `task` (`cite` or
/// `co-mention`), optional `sentiment` and `direction` (`citers`, the default, or `references`).
/// Answer lines: `id` (a query's) and `retrieved` (ids, in rank order). With a client, mentions
/// without a sentiment label are labelled by the LLM, as SciNet labels them with GPT-5.
pub fn score_pairs(
    session: &CorpusSession,
    queries: &Path,
    answers: &Path,
    k: usize,
    llm: Option<&litnav_llm::Client>,
    progress: &dyn Progress,
) -> Result<PairScores> {
    let citations = session.citations()?;
    let mut contexts = citations.contexts.clone();
    let mut problems = Vec::new();
    let parsed = read_queries(session, queries, &mut problems)?;
    let answered = read_answers(answers, &parsed, &mut problems)?;
    let mut labelled_by_llm = 0;
    if let Some(client) = llm {
        labelled_by_llm = label_needed_mentions(session, &parsed, &answered, k, &mut contexts, client, progress)?;
    }
    let evidence = PairEvidence::new(&citations.graph, &contexts);
    let known =
        |id: &str| -> Result<bool> { Ok(session.paper(id)?.is_some() || contexts.iter().any(|c| c.citing_id == id)) };
    let mut rows = Vec::new();
    for query in &parsed {
        let retrieved: Vec<&str> =
            answered.get(query.id.as_str()).map_or(Vec::new(), |r| r.iter().take(k).map(String::as_str).collect());
        let share =
            |passes: usize| (!retrieved.is_empty()).then(|| passes as f64 / retrieved.len() as f64).or(Some(0.0));
        let q = query.paper.as_str();
        let mut row = PairQueryScore {
            line: query.line,
            id: query.id.clone(),
            paper: query.paper.clone(),
            task: query.task,
            sentiment: query.sentiment,
            answers: retrieved.len(),
            unknown_answers: retrieved
                .iter()
                .map(|r| known(r))
                .collect::<Result<Vec<bool>>>()?
                .into_iter()
                .filter(|k| !k)
                .count(),
            cite_acc: None,
            cite_sentiment: None,
            unlabelled_citations: 0,
            comention_acc: None,
            comention_paragraph: None,
        };
        match query.task {
            PairTask::Cite => {
                let pairs: Vec<(&str, &str)> = retrieved.iter().map(|&r| query.citation(r)).collect();
                let cited: Vec<&(&str, &str)> = pairs.iter().filter(|(a, b)| evidence.cites(a, b)).collect();
                row.cite_acc = share(cited.len());
                if let Some(wanted) = query.sentiment {
                    let labels: Vec<Option<Sentiment>> = cited.iter().map(|(a, b)| evidence.sentiment(a, b)).collect();
                    row.unlabelled_citations = labels.iter().filter(|l| l.is_none()).count();
                    row.cite_sentiment = share(labels.iter().filter(|l| **l == Some(wanted)).count());
                }
            }
            PairTask::CoMention => {
                row.comention_acc = share(retrieved.iter().filter(|r| evidence.co_cited_by(r, q).is_some()).count());
                row.comention_paragraph =
                    share(retrieved.iter().filter(|r| evidence.co_mentioned_in(r, q).is_some()).count());
            }
        }
        rows.push(row);
    }
    Ok(PairScores {
        queries: rows.len(),
        unanswered: parsed.iter().filter(|q| !answered.contains_key(q.id.as_str())).count(),
        cite_acc: mean(rows.iter().filter_map(|r| r.cite_acc)),
        cite_sentiment: mean(rows.iter().filter_map(|r| r.cite_sentiment)),
        comention_acc: mean(rows.iter().filter_map(|r| r.comention_acc)),
        comention_paragraph: mean(rows.iter().filter_map(|r| r.comention_paragraph)),
        labelled_by_llm,
        problems,
        per_query: rows,
    })
}

impl Query {
    /// The (citing, cited) pair a citation query asks about for answer `answer`.
    fn citation<'a>(&'a self, answer: &'a str) -> (&'a str, &'a str) {
        match self.direction {
            Direction::Citers => (answer, self.paper.as_str()),
            Direction::References => (self.paper.as_str(), answer),
        }
    }
}

/// The query lines that can be scored; the others go to `problems`.
fn read_queries(session: &CorpusSession, file: &Path, problems: &mut Vec<String>) -> Result<Vec<Query>> {
    let mut out: Vec<Query> = Vec::new();
    for (line, value) in read_json_lines(file)? {
        match parse_query(session, &value) {
            Ok(mut query) if out.iter().all(|q| q.id != query.id) => {
                query.line = line;
                out.push(query);
            }
            Ok(query) => problems.push(format!(
                "{}:{line}: field `id`: `{}` is used by an earlier query",
                file.display(),
                query.id
            )),
            Err((field, message)) => problems.push(format!("{}:{line}: field `{field}`: {message}", file.display())),
        }
    }
    Ok(out)
}

fn parse_query(session: &CorpusSession, value: &Value) -> std::result::Result<Query, (&'static str, String)> {
    let string = |field: &'static str| match &value[field] {
        Value::String(s) if !s.trim().is_empty() => Ok(Some(s.clone())),
        Value::Null => Ok(None),
        other => Err((field, format!("expected a string, found {other}"))),
    };
    let id = string("id")?.ok_or(("id", "missing".to_string()))?;
    let paper = string("paper")?.ok_or(("paper", "missing".to_string()))?;
    match session.paper(&paper) {
        Ok(Some(_)) => {}
        Ok(None) => return Err(("paper", format!("`{paper}` is not a paper of the corpus"))),
        Err(e) => return Err(("paper", format!("`{paper}` cannot be read from the corpus: {e}"))),
    }
    let task = match string("task")?.as_deref() {
        Some("cite") => PairTask::Cite,
        Some("co-mention") => PairTask::CoMention,
        Some(other) => return Err(("task", format!("`{other}` is neither `cite` nor `co-mention`"))),
        None => return Err(("task", "missing (`cite` or `co-mention`)".to_string())),
    };
    let sentiment = match string("sentiment")? {
        Some(s) => Some(s.parse::<Sentiment>().map_err(|e| ("sentiment", e.to_string()))?),
        None => None,
    };
    let direction = match string("direction")?.as_deref() {
        None | Some("citers") => Direction::Citers,
        Some("references") => Direction::References,
        Some(other) => return Err(("direction", format!("`{other}` is neither `citers` nor `references`"))),
    };
    if sentiment.is_some() && task != PairTask::Cite {
        return Err(("sentiment", "only citation queries ask for a sentiment".to_string()));
    }
    Ok(Query { line: 0, id, paper, task, sentiment, direction })
}

/// Each answered query's retrieved ids; lines answering no query, repeating an answer or
/// lacking fields go to `problems`.
fn read_answers(file: &Path, queries: &[Query], problems: &mut Vec<String>) -> Result<HashMap<String, Vec<String>>> {
    let mut out = HashMap::new();
    for (line, value) in read_json_lines(file)? {
        let at = |field: &str, message: String| format!("{}:{line}: field `{field}`: {message}", file.display());
        let Some(id) = value["id"].as_str() else {
            problems.push(at("id", "expected a string".into()));
            continue;
        };
        if queries.iter().all(|q| q.id != id) {
            problems.push(at("id", format!("`{id}` names no query that could be scored")));
            continue;
        }
        let retrieved = match super::field_strings(&value, "retrieved", file, line) {
            Ok(list) => list,
            Err(e) => {
                problems.push(e.to_string());
                continue;
            }
        };
        if out.insert(id.to_string(), retrieved).is_some() {
            problems.push(at("id", format!("`{id}` is answered twice; the later answer is scored")));
        }
    }
    Ok(out)
}

/// Label, with the LLM, the mentions Cite-Sentiment needs that no label covers; returns how many.
fn label_needed_mentions(
    session: &CorpusSession,
    queries: &[Query],
    answered: &HashMap<String, Vec<String>>,
    k: usize,
    contexts: &mut [litnav_graph::contexts::CitationContext],
    client: &litnav_llm::Client,
    progress: &dyn Progress,
) -> Result<usize> {
    let mut needed: BTreeMap<(String, String), ()> = BTreeMap::new();
    for query in queries.iter().filter(|q| q.sentiment.is_some()) {
        for answer in answered.get(&query.id).into_iter().flatten().take(k) {
            let (citing, cited) = query.citation(answer);
            needed.insert((citing.to_string(), cited.to_string()), ());
        }
    }
    let pending: Vec<usize> = (0..contexts.len())
        .filter(|&i| {
            let c = &contexts[i];
            c.sentiment.is_none() && needed.contains_key(&(c.citing_id.clone(), c.cited_id.clone()))
        })
        .collect();
    progress.stage(&format!("labelling {} citation mentions with the LLM", pending.len()));
    let mut labelled = 0;
    for (done, i) in pending.iter().enumerate() {
        let context = &contexts[*i];
        let title = session.paper(&context.cited_id)?.map_or(context.cited_id.clone(), |p| p.title.clone());
        match litnav_llm::judges::citation_sentiment(client, &title, &context.text) {
            Ok(judged) => {
                contexts[*i].sentiment = Some(judged.sentiment);
                labelled += 1;
            }
            // An answer that stays invalid leaves the mention unlabelled (counted per query).
            Err(litnav_llm::Error::Invalid { .. }) => {}
            Err(e) => return Err(e.into()),
        }
        progress.advance(done + 1, pending.len());
    }
    Ok(labelled)
}

impl std::fmt::Display for PairScores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let percent = |v: Option<f64>| v.map_or_else(|| "     -".to_string(), |v| format!("{:>5.2}%", 100.0 * v));
        writeln!(f, "{} queries ({} unanswered)", self.queries, self.unanswered)?;
        writeln!(f, "  Cite-Acc            {}", percent(self.cite_acc))?;
        writeln!(f, "  Cite-Sentiment      {}", percent(self.cite_sentiment))?;
        writeln!(f, "  CoMention-Acc       {}", percent(self.comention_acc))?;
        writeln!(f, "  CoMention-Paragraph {}", percent(self.comention_paragraph))?;
        if self.labelled_by_llm > 0 {
            writeln!(f, "  {} mentions labelled by the LLM", self.labelled_by_llm)?;
        }
        let unlabelled: usize = self.per_query.iter().map(|q| q.unlabelled_citations).sum();
        if unlabelled > 0 {
            writeln!(
                f,
                "  {unlabelled} cited answers have no sentiment label (they count as wrong for Cite-Sentiment; an LLM can label them)"
            )?;
        }
        for problem in &self.problems {
            writeln!(f, "  skipped: {problem}")?;
        }
        Ok(())
    }
}
