//! Any two trees compared with every tree metric litnav has: TaxoBench's hierarchy metrics,
//! Bloom-Eval's STS and Shape Consistency, ResearchArena's Heading Entity Recall and Tree
//! Semantic Distance, ordered TED,
//! and — when both trees hold papers — the retrieval, leaf and Sem-Path metrics.

use litnav_eval::taxobench::{LeafScores, Options, Reading, score_instance};
use litnav_eval::tree::LabelSimilarity;
pub use litnav_eval::tree::Tree;
use litnav_eval::{hierarchy, ordered};
use litnav_session::error::{Error, Result};
use serde::Serialize;
use serde_json::Value;
use std::path::Path;

/// Read a tree from a JSON file: a bare tree (TaxoBench shape, a litnav map, an outline with
/// `children`) or a TaxoBench line holding one (`hierarchy_tree`, `gt`, `taxonomy`).
pub fn read_tree(path: &Path) -> Result<Tree> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, &e))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| Error::input(format!("{} is not valid JSON: {e}", path.display())))?;
    tree_of_value(&value, &path.display().to_string())
}

/// Settings of a tree comparison.
#[derive(Debug, Clone, Copy)]
pub struct TreeOptions {
    /// Title-alignment threshold (trees with papers).
    pub threshold: f64,
    /// Sem-Path's penalty per unmatched ancestor.
    pub lambda: f64,
    /// Cosine above which Tree Semantic Distance relabels for free.
    pub tsd_threshold: f64,
    /// Whose readings of TaxoBench's paper metrics.
    pub reading: Reading,
}

/// The cosine above which Tree Semantic Distance relabels for free, as ResearchArena sets it.
pub const DEFAULT_TSD_THRESHOLD: f64 = 0.8;

impl Default for TreeOptions {
    fn default() -> Self {
        TreeOptions {
            threshold: crate::taxobench::DEFAULT_THRESHOLD,
            lambda: crate::taxobench::DEFAULT_LAMBDA,
            tsd_threshold: DEFAULT_TSD_THRESHOLD,
            reading: Reading::Seed,
        }
    }
}

/// A tree given as its parsed JSON (a bare tree or a TaxoBench line holding one), as
/// [`read_tree`] reads a file.
pub fn tree_of_value(value: &Value, name: &str) -> Result<Tree> {
    let tree =
        value.get("hierarchy_tree").or_else(|| value.get("gt")).or_else(|| value.get("taxonomy")).unwrap_or(value);
    Tree::from_json(tree).map_err(|e| Error::input(format!("{name}: {e}")))
}

/// Compare `predicted` with `reference` under the label similarity `kind` (the encoder is loaded
/// only for embeddings); the options' reading is the one that goes with `kind`.
pub fn score(
    workspace: &litnav_session::Workspace,
    reference: &Tree,
    predicted: &Tree,
    kind: crate::similarity::Kind,
    options: TreeOptions,
    progress: &dyn litnav_session::Progress,
) -> Result<TreeReport> {
    let sim = kind.build(workspace, &[reference, predicted], progress)?;
    let options = TreeOptions { reading: kind.reading(), ..options };
    Ok(compare(reference, predicted, options, sim.as_ref(), kind.name()))
}

/// Scores of a predicted tree against a reference tree.
#[derive(Debug, Clone, Serialize)]
pub struct TreeReport {
    /// US-TED.
    pub us_ted: f64,
    /// US-NTED.
    pub us_nted: f64,
    /// Node soft recall.
    pub nsr: f64,
    /// Node soft precision.
    pub nsp: f64,
    /// Soft F1.
    pub soft_f1: f64,
    /// ResearchArena's heading soft recall (= NSR).
    pub heading_soft_recall: f64,
    /// ResearchArena's Heading Entity Recall (offline extractor; `None` when the reference's
    /// headings name no entity).
    pub heading_entity_recall: Option<f64>,
    /// Bloom-Eval's Semantic Tree Similarity.
    pub sts: f64,
    /// Bloom-Eval's Shape Consistency.
    pub shape_consistency: f64,
    /// ResearchArena's Tree Semantic Distance.
    pub tree_semantic_distance: f64,
    /// Ordered tree edit distance with exact-label relabeling.
    pub ordered_ted: f64,
    /// Nodes of the reference.
    pub reference_nodes: usize,
    /// Nodes of the prediction.
    pub prediction_nodes: usize,
    /// Retrieval and leaf metrics, when both trees hold papers.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub papers: Option<PaperScores>,
    /// The label similarity used.
    pub similarity: String,
}

/// The paper-level part of a tree comparison.
#[derive(Debug, Clone, Serialize)]
pub struct PaperScores {
    /// Retrieval and leaf scores.
    #[serde(flatten)]
    pub leaf: LeafScores,
    /// Sem-Path (`None` when no paper aligned).
    pub sem_path: Option<f64>,
}

/// A stored survey's tree: its expert taxonomy (TaxoBench), else its outline (Bloom-Eval's
/// nested headings, by title), rooted at the survey's title; `None` when it has neither (or its
/// taxonomy is not a tree).
pub fn survey_tree(topic: &litnav_corpus::Topic) -> Option<Tree> {
    if let Some(taxonomy) = &topic.taxonomy {
        let mut tree = Tree::from_json(taxonomy).ok()?;
        tree.name = topic.title.clone();
        return Some(tree);
    }
    Some(outline_tree(&topic.title, topic.outline.as_ref()?, &[], &[]))
}

/// The outline as a tree named by section titles, each paper at the section its path names
/// (no placements: the heading tree alone).
pub fn outline_tree(name: &str, node: &Value, path: &[String], placements: &[(Vec<String>, String)]) -> Tree {
    let children = node["children"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|child| {
            let mut child_path = path.to_vec();
            child_path.push(child["name"].as_str().unwrap_or_default().to_string());
            outline_tree(child["title"].as_str().unwrap_or_default(), child, &child_path, placements)
        })
        .collect();
    let papers = if path.is_empty() {
        Vec::new()
    } else {
        placements.iter().filter(|(p, _)| p.as_slice() == path).map(|(_, t)| t.clone()).collect()
    };
    Tree { name: name.to_string(), children, papers }
}

/// Compare two trees.
pub fn compare(
    reference: &Tree,
    predicted: &Tree,
    options: TreeOptions,
    sim: &dyn LabelSimilarity,
    similarity_name: &str,
) -> TreeReport {
    let cosine = |a: &str, b: &str| sim.similarity(a, b);
    let (nsr, nsp, soft_f1) = hierarchy::nsr_nsp_soft_f1(reference, predicted, sim);
    let papers = (!reference.paper_nodes().is_empty() && !predicted.paper_nodes().is_empty()).then(|| {
        let scoring = Options { threshold: options.threshold, lambda: options.lambda, reading: options.reading };
        let scores = score_instance(reference, predicted, None, scoring, sim);
        PaperScores { leaf: scores.leaf, sem_path: scores.sem_path }
    });
    TreeReport {
        us_ted: hierarchy::us_ted(reference, predicted, sim),
        us_nted: hierarchy::us_nted(reference, predicted, sim),
        nsr,
        nsp,
        soft_f1,
        heading_soft_recall: nsr,
        heading_entity_recall: litnav_eval::entities::heading_entity_recall(reference, predicted),
        sts: ordered::semantic_tree_similarity(reference, predicted, &cosine),
        shape_consistency: ordered::shape_consistency(reference, predicted),
        tree_semantic_distance: ordered::tree_semantic_distance(reference, predicted, &cosine, options.tsd_threshold),
        ordered_ted: ordered::tree_edit_distance(reference, predicted, &|a, b| if a == b { 0.0 } else { 1.0 }),
        reference_nodes: ordered::node_count(reference),
        prediction_nodes: ordered::node_count(predicted),
        papers,
        similarity: similarity_name.to_string(),
    }
}

/// A tree checked without a reference and, when one is given, compared with it.
#[derive(Debug, Clone, Serialize)]
pub struct TreeEvaluation {
    /// Every comparison metric, when a reference was given.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub scores: Option<TreeReport>,
    /// The reference-free checks of the prediction (they compare texts through the encoder's
    /// vectors: none when a reference is compared under another similarity, which needs no model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checks: Option<litnav_eval::checks::TreeChecks>,
}

impl std::fmt::Display for TreeEvaluation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(scores) = &self.scores {
            write!(f, "{}", super::numbers(scores))?;
        }
        let Some(checks) = &self.checks else { return Ok(()) };
        writeln!(f, "checks without a reference (entailment: {})", checks.entailment_by)?;
        let mut numbers = serde_json::to_value(checks).unwrap_or_default();
        if let Some(fields) = numbers.as_object_mut() {
            for key in ["problems", "options", "entailment_by"] {
                fields.remove(key);
            }
        }
        write!(f, "{}", super::numbers(&numbers))?;
        if checks.problems.is_empty() {
            writeln!(f, "no node has a problem")?;
        }
        for problem in &checks.problems {
            let node = if problem.node.is_empty() { "root" } else { problem.node.as_str() };
            writeln!(f, "  {node} “{}”: {}", problem.name, problem.reason)?;
        }
        Ok(())
    }
}

/// The reference-free checks of `tree` (`litnav_eval::checks`) on the encoder's vectors of its
/// labels and paper titles (cached with the label vectors).
/// With `llm`, parent–child entailment is the model's judgement instead of the offline one.
pub fn check(
    workspace: &litnav_session::Workspace,
    tree: &Tree,
    llm: Option<&litnav_llm::Client>,
    progress: &dyn litnav_session::Progress,
) -> Result<litnav_eval::checks::TreeChecks> {
    let vectors = text_vectors(workspace, tree, progress)?;
    let mut checks = litnav_eval::checks::check(tree, &vectors, litnav_eval::checks::CheckOptions::default());
    if let Some(client) = llm {
        judge_entailment(&mut checks, tree, client, progress)?;
    }
    Ok(checks)
}

/// Replace `checks`' offline entailment with the LLM's: one request per node with children below
/// the first level (in parallel as the client allows), the topic being the root's name. A failed
/// request fails the check (the LLM was asked for: an offline answer would be a silent swap).
pub fn judge_entailment(
    checks: &mut litnav_eval::checks::TreeChecks,
    tree: &Tree,
    client: &litnav_llm::Client,
    progress: &dyn litnav_session::Progress,
) -> Result<()> {
    let questions = litnav_eval::checks::entailment_questions(tree);
    if questions.is_empty() {
        return Ok(());
    }
    progress
        .stage(&format!("asking the LLM whether each subtopic belongs under its parent ({} nodes)", questions.len()));
    let answers = client.map_parallel(
        &questions,
        |question| {
            let children: Vec<String> = question.children.iter().map(|(_, name)| name.clone()).collect();
            litnav_llm::judges::entailment(client, &tree.name, &question.parent, &children)
        },
        |answer| answer.is_err(),
        &|_| {},
    );
    let mut verdicts = Vec::with_capacity(answers.len());
    for (question, answer) in questions.iter().zip(answers) {
        let answer = answer.ok_or_else(|| {
            Error::internal(format!("the entailment of “{}”'s subtopics was not judged", question.parent))
        })?;
        verdicts.push(answer?);
    }
    let by = format!("LLM ({}): is each subtopic a kind, part or aspect of its parent?", client.config().model);
    checks.judge_entailment(&questions, &verdicts, &by);
    Ok(())
}

/// The encoder's unit vector of every label and paper title of `tree`, by text (cached with the
/// label vectors).
pub fn text_vectors(
    workspace: &litnav_session::Workspace,
    tree: &Tree,
    progress: &dyn litnav_session::Progress,
) -> Result<std::collections::HashMap<String, Vec<f32>>> {
    let mut texts: Vec<String> = Vec::new();
    collect_texts(tree, &mut texts);
    texts.sort_unstable();
    texts.dedup();
    let encoder = workspace.encoder(progress)?;
    let vectors = litnav_embed::embed_cached(encoder, &texts, &workspace.settings().vector_cache("labels"));
    Ok(texts.into_iter().zip(vectors).collect())
}

fn collect_texts(tree: &Tree, out: &mut Vec<String>) {
    out.push(tree.name.clone());
    out.extend(tree.papers.iter().cloned());
    tree.children.iter().for_each(|child| collect_texts(child, out));
}

/// `prediction` compared with `reference` when there is one (under the label similarity `kind`, as
/// [`score`]), and checked without a reference — always when no reference is given, otherwise
/// when `kind` is the embedding similarity (the checks need the encoder, the other kinds do not).
pub fn evaluate(
    workspace: &litnav_session::Workspace,
    reference: Option<&Tree>,
    prediction: &Tree,
    kind: crate::similarity::Kind,
    options: TreeOptions,
    llm: Option<&litnav_llm::Client>,
    progress: &dyn litnav_session::Progress,
) -> Result<TreeEvaluation> {
    let scores = match reference {
        Some(reference) => Some(score(workspace, reference, prediction, kind, options, progress)?),
        None => None,
    };
    let checks = match (&scores, kind) {
        (None, _) | (_, crate::similarity::Kind::Embedding) => Some(check(workspace, prediction, llm, progress)?),
        _ => None,
    };
    Ok(TreeEvaluation { scores, checks })
}
