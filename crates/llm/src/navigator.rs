//! Knowledge Navigator's LLM components (seed 004 §3.3–3.5) and TaxoBench's one-call Bottom-Up
//! organizer. Each validates meaning, not only syntax: a name is not the topic, relatedness and
//! verdict agree, every numbered item is placed exactly once. A partition the model still gets
//! wrong after the repair round-trip is fixed deterministically by litnav (first placement kept,
//! unknown numbers dropped, missing ones gathered under "Other …"; Bottom-Up places papers by
//! their vectors instead when the caller gives them) and the fix is reported.

use crate::client::Client;
use crate::names::check_name;
pub use crate::names::tidy_name;
pub use crate::partition::{Content, check_partition, fix_partition, place_by_content};
use crate::prompts;
use crate::structured::{Answer, Task, ask, extract_json};
use crate::{Error, Result};
use litnav_core::PaperText;
use serde::{Deserialize, Serialize};

/// Characters of each abstract shown to the model.
pub const ABSTRACT_CHARS: usize = 300;

/// What the Cluster Reader says about one cluster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterReading {
    /// What the papers share.
    pub description: String,
    /// The subtopic's name.
    pub name: String,
    /// 1 (unrelated) to 5 (central).
    pub relatedness: u8,
    /// Whether the cluster belongs in the map.
    pub related: bool,
}

/// Read one cluster: description → name → relatedness → verdict, in one call.
pub fn read_cluster(client: &Client, topic: &str, papers: &[PaperText<'_>]) -> Result<Answer<ClusterReading>> {
    let task = Task {
        name: "cluster_reader".into(),
        messages: prompts::cluster_reader(topic, &prompts::paper_list(papers, ABSTRACT_CHARS)),
        schema: prompts::cluster_reader_schema(),
        max_tokens: 300,
    };
    let mut answer = ask(client, &task, |reading: &ClusterReading| {
        if reading.description.trim().is_empty() {
            return Err("the description is empty".into());
        }
        check_name(&tidy_name(&reading.name, topic), topic)?;
        if !(1..=5).contains(&reading.relatedness) {
            return Err(format!("relatedness {} is outside 1 to 5", reading.relatedness));
        }
        if reading.related != (reading.relatedness >= 3) {
            return Err(format!(
                "relatedness {} and related = {} disagree (related means relatedness 3 or more)",
                reading.relatedness, reading.related
            ));
        }
        Ok(())
    })?;
    answer.value.name = tidy_name(&answer.value.name, topic);
    Ok(answer)
}

/// A theme of the map: a name and the (0-based) subtopics under it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Theme {
    /// The theme's name.
    pub name: String,
    /// Indices into the subtopics given.
    pub subtopics: Vec<usize>,
}

/// The Thematic Organizer's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Themes {
    /// The themes, in the model's order.
    pub themes: Vec<Theme>,
    /// The model repaired its first answer.
    pub repaired: bool,
    /// litnav fixed the partition itself (the model's last answer still misplaced subtopics): why.
    pub fixed_by_litnav: Option<String>,
}

#[derive(Debug, Deserialize)]
struct RawThemes {
    themes: Vec<RawTheme>,
}

#[derive(Debug, Deserialize)]
struct RawTheme {
    name: String,
    subtopics: Vec<i64>,
}

/// Group subtopics (name and description each) into themes, every subtopic exactly once.
pub fn organize_themes(client: &Client, topic: &str, subtopics: &[(String, String)]) -> Result<Themes> {
    let listing: String = subtopics
        .iter()
        .enumerate()
        .map(|(i, (name, description))| format!("{}. {name} — {description}\n", i + 1))
        .collect();
    let task = Task {
        name: "thematic_organizer".into(),
        messages: prompts::thematic_organizer(topic, &listing, subtopics.len()),
        schema: prompts::thematic_organizer_schema(),
        max_tokens: 600,
    };
    let count = subtopics.len();
    let validate = |raw: &RawThemes| {
        for theme in &raw.themes {
            check_name(&tidy_name(&theme.name, topic), topic)?;
        }
        check_partition(&raw.themes.iter().map(|t| t.subtopics.clone()).collect::<Vec<_>>(), count)
    };
    let to_themes = |raw: RawThemes| -> Vec<Theme> {
        raw.themes
            .into_iter()
            .map(|t| Theme {
                name: tidy_name(&t.name, topic),
                subtopics: t.subtopics.into_iter().map(|n| n as usize - 1).collect(),
            })
            .collect()
    };
    match ask(client, &task, validate) {
        Ok(answer) => Ok(Themes { themes: to_themes(answer.value), repaired: answer.repaired, fixed_by_litnav: None }),
        Err(Error::Invalid { problem, answer, .. }) => {
            let raw: RawThemes =
                serde_json::from_value(extract_json(&answer).map_err(|e| invalid("thematic_organizer", &e, &answer))?)
                    .map_err(|e| invalid("thematic_organizer", &e.to_string(), &answer))?;
            let (groups, missing) =
                fix_partition(&raw.themes.iter().map(|t| t.subtopics.clone()).collect::<Vec<_>>(), count);
            let mut themes: Vec<Theme> = raw
                .themes
                .into_iter()
                .zip(groups)
                .filter_map(|(t, g)| g.map(|subtopics| Theme { name: fallback_name(&t.name, topic), subtopics }))
                .collect();
            if !missing.is_empty() {
                themes.push(Theme { name: "Other subtopics".into(), subtopics: missing });
            }
            Ok(Themes { themes, repaired: true, fixed_by_litnav: Some(problem) })
        }
        Err(e) => Err(e),
    }
}

fn invalid(task: &str, problem: &str, answer: &str) -> Error {
    Error::Invalid { task: task.into(), problem: problem.into(), answer: answer.into() }
}

/// The model's name when usable, otherwise a neutral one.
fn fallback_name(name: &str, topic: &str) -> String {
    let tidy = tidy_name(name, topic);
    if check_name(&tidy, topic).is_ok() { tidy } else { "Unnamed theme".to_string() }
}

/// The Subtopic Expander's query: terms from the cluster's vocabulary, joined.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expansion {
    /// The terms.
    pub terms: Vec<String>,
}

/// Terms that retrieve more papers on a subtopic.
pub fn expand_subtopic(
    client: &Client,
    topic: &str,
    subtopic: &str,
    description: &str,
    papers: &[PaperText<'_>],
) -> Result<Answer<Expansion>> {
    let task = Task {
        name: "subtopic_expander".into(),
        messages: prompts::subtopic_expander(
            topic,
            subtopic,
            description,
            &prompts::paper_list(papers, ABSTRACT_CHARS),
        ),
        schema: prompts::subtopic_expander_schema(),
        max_tokens: 200,
    };
    ask(client, &task, |expansion: &Expansion| {
        let usable = expansion.terms.iter().filter(|t| !t.trim().is_empty()).count();
        match usable {
            0 => Err("no search terms were given".into()),
            n if n > 20 => Err(format!("{n} terms are too many; give 4 to 10")),
            _ => Ok(()),
        }
    })
}

/// A subcategory: its name and its papers (0-based indices).
pub type Subcategory = (String, Vec<usize>);

/// A category: its name and subcategories.
pub type Category = (String, Vec<Subcategory>);

/// A Bottom-Up taxonomy: categories → subcategories → papers (0-based indices).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Taxonomy {
    /// Top-level categories with their subcategories.
    pub categories: Vec<Category>,
    /// The model repaired its first answer.
    pub repaired: bool,
    /// litnav fixed the paper placement itself: why.
    pub fixed_by_litnav: Option<String>,
}

impl Taxonomy {
    /// As a tree: the topic, its categories, their subcategories holding paper titles.
    pub fn to_tree(&self, topic: &str, titles: &[&str]) -> litnav_eval::tree::Tree {
        use litnav_eval::tree::Tree;
        let categories = self
            .categories
            .iter()
            .map(|(name, subs)| {
                let leaves = subs
                    .iter()
                    .map(|(sub, papers)| {
                        Tree::leaf(sub.clone(), papers.iter().map(|&i| titles[i].to_string()).collect())
                    })
                    .collect();
                Tree::node(name.clone(), leaves)
            })
            .collect();
        Tree::node(topic, categories)
    }
}

#[derive(Debug, Deserialize)]
struct RawTaxonomy {
    categories: Vec<RawCategory>,
}

#[derive(Debug, Deserialize)]
struct RawCategory {
    name: String,
    subcategories: Vec<RawSubcategory>,
}

#[derive(Debug, Deserialize)]
struct RawSubcategory {
    name: String,
    papers: Vec<i64>,
}

/// Knowledge Navigator's Direct-Gen baseline: the model outlines the topic's subtopics from its
/// own knowledge, no papers shown. The outline is a tree of names (no papers): scored by heading
/// soft recall (NSR) and the other label metrics.
pub fn direct_outline(client: &Client, topic: &str) -> Result<Answer<litnav_eval::tree::Tree>> {
    #[derive(Deserialize)]
    struct Section {
        name: String,
        subsections: Vec<String>,
    }
    #[derive(Deserialize)]
    struct Outline {
        sections: Vec<Section>,
    }
    let task = Task {
        name: "direct_outline".into(),
        messages: prompts::direct_outline(topic),
        schema: prompts::direct_outline_schema(),
        max_tokens: 600,
    };
    let answer: Answer<Outline> = ask(client, &task, |outline: &Outline| {
        for name in outline.sections.iter().flat_map(|s| std::iter::once(&s.name).chain(&s.subsections)) {
            check_name(&tidy_name(name, topic), topic)?;
        }
        Ok(())
    })?;
    use litnav_eval::tree::Tree;
    let sections = answer
        .value
        .sections
        .iter()
        .map(|s| {
            let subsections = s.subsections.iter().map(|n| Tree::leaf(tidy_name(n, topic), Vec::new())).collect();
            Tree::node(tidy_name(&s.name, topic), subsections)
        })
        .collect();
    Ok(Answer { value: Tree::node(topic, sections), raw: answer.raw, repaired: answer.repaired, cached: answer.cached })
}

/// What the Bottom-Up organizer is shown of each paper besides its title (TaxoBench's input
/// settings: title and abstract, + summary, + core task and contributions).
#[derive(Debug, Clone, Copy, Default)]
pub struct PaperView<'a> {
    /// Characters of each abstract shown (0: titles only).
    pub abstract_chars: usize,
    /// A note per paper, in the papers' order (an extraction's summary or core task; `None` where
    /// there is none).
    pub notes: &'a [Option<String>],
    /// What the notes are, for the prompt ("a summary").
    pub notes_are: &'a str,
}

impl PaperView<'_> {
    /// Titles only.
    pub const TITLES: PaperView<'static> = PaperView { abstract_chars: 0, notes: &[], notes_are: "" };

    /// The words the prompt uses for what each entry holds.
    fn describe(&self) -> String {
        let mut parts = vec!["title"];
        if self.abstract_chars > 0 {
            parts.push("the start of its abstract");
        }
        if self.notes.iter().any(Option::is_some) && !self.notes_are.is_empty() {
            parts.push(self.notes_are);
        }
        let last = parts.len() - 1;
        if last == 0 { parts[0].to_string() } else { format!("{}, and {}", parts[..last].join(", "), parts[last]) }
    }
}

/// TaxoBench's Bottom-Up organizer: one call, papers in, a taxonomy out, every paper once. When
/// the model's last answer still places a paper twice or not at all, litnav fixes the placement:
/// by content when it is given ([`place_by_content`]), else by keeping a paper's first placement
/// and listing the papers never placed under "Other papers".
pub fn bottom_up(
    client: &Client,
    topic: &str,
    papers: &[PaperText<'_>],
    view: &PaperView<'_>,
    content: Option<&Content<'_>>,
) -> Result<Taxonomy> {
    let count = papers.len();
    let task = Task {
        name: "bottom_up".into(),
        messages: prompts::bottom_up(
            topic,
            &prompts::noted_paper_list(papers, view.abstract_chars, view.notes),
            count,
            &view.describe(),
        ),
        schema: prompts::bottom_up_schema(),
        // The answer lists every paper's number once, plus names and JSON layout (models indent
        // it): room grows with the paper count.
        max_tokens: 512 + 24 * count as u32,
    };
    let groups = |raw: &RawTaxonomy| -> Vec<Vec<i64>> {
        raw.categories.iter().flat_map(|c| c.subcategories.iter().map(|s| s.papers.clone())).collect()
    };
    let validate = |raw: &RawTaxonomy| {
        for category in &raw.categories {
            check_name(&tidy_name(&category.name, topic), topic)?;
        }
        check_partition(&groups(raw), count)
    };
    let (raw, repaired, fixed) = match ask(client, &task, validate) {
        Ok(answer) => (answer.value, answer.repaired, None),
        Err(Error::Invalid { problem, answer, .. }) => {
            let raw: RawTaxonomy =
                serde_json::from_value(extract_json(&answer).map_err(|e| invalid("bottom_up", &e, &answer))?)
                    .map_err(|e| invalid("bottom_up", &e.to_string(), &answer))?;
            (raw, true, Some(problem))
        }
        Err(e) => return Err(e),
    };
    let (placed, missing) = match (&fixed, content) {
        (Some(_), Some(content)) => {
            let names: Vec<String> = raw
                .categories
                .iter()
                .flat_map(|c| c.subcategories.iter().map(move |s| format!("{}: {}", c.name, s.name)))
                .collect();
            place_by_content(&groups(&raw), content.vectors, &(content.embed)(&names))
        }
        _ => fix_partition(&groups(&raw), count),
    };
    let mut placed = placed.into_iter();
    let mut categories: Vec<Category> = raw
        .categories
        .into_iter()
        .map(|c| {
            let subs = c
                .subcategories
                .into_iter()
                .filter_map(|s| placed.next().flatten().map(|papers| (fallback_name(&s.name, topic), papers)))
                .collect::<Vec<_>>();
            (fallback_name(&c.name, topic), subs)
        })
        .filter(|(_, subs)| !subs.is_empty())
        .collect();
    if !missing.is_empty() {
        categories.push(("Other papers".into(), vec![("Unplaced".into(), missing)]));
    }
    Ok(Taxonomy { categories, repaired, fixed_by_litnav: fixed })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_are_checked_and_fixed() {
        assert!(check_partition(&[vec![1, 3], vec![2]], 3).is_ok());
        assert_eq!(check_partition(&[vec![1, 3], vec![3]], 3).unwrap_err(), "number 3 is placed more than once");
        assert_eq!(check_partition(&[vec![1]], 3).unwrap_err(), "numbers 2, 3 are not placed");
        assert!(check_partition(&[vec![1, 9], vec![2, 3]], 3).unwrap_err().contains("9 does not exist"));
        let (fixed, missing) = fix_partition(&[vec![1, 3, 9], vec![3], vec![2, 2]], 4);
        assert_eq!(fixed, vec![Some(vec![0, 2]), None, Some(vec![1])]);
        assert_eq!(missing, vec![3]);
    }

    #[test]
    fn repeated_and_missing_papers_are_placed_by_content() {
        // Papers 0–2 are about one thing, 3–5 about another; so are the two groups' names. The
        // model listed papers 1, 3 and 4 (numbers 2, 4, 5) in both groups, forgot papers 2 and 5,
        // and invented number 99.
        let (a, b) = (vec![1.0, 0.0], vec![0.0, 1.0]);
        let vectors = [a.clone(), a.clone(), a.clone(), b.clone(), b.clone(), b.clone()];
        let groups = [vec![4, 2, 1, 5], vec![2, 5, 4, 99]];
        let (placed, unplaced) = place_by_content(&groups, &vectors, &[a.clone(), b.clone()]);
        // Listed papers keep the model's order; the forgotten ones follow.
        assert_eq!(placed, vec![Some(vec![1, 0, 2]), Some(vec![4, 3, 5])]);
        assert!(unplaced.is_empty());
        // Everything listed everywhere under names alike: ties go to the first group.
        let (placed, _) = place_by_content(&[vec![1, 2], vec![2, 1]], &vectors[..2], &[a.clone(), a.clone()]);
        assert_eq!(placed, vec![Some(vec![0, 1]), None]);
        // No group at all: nothing can be placed.
        assert_eq!(place_by_content(&[], &vectors[..2], &[]), (vec![], vec![0, 1]));
    }

    #[test]
    fn names_must_be_specific() {
        assert!(check_name("Uncertainty Quantification of LLMs!", "uncertainty quantification of llms").is_err());
        assert!(check_name("  ", "x").is_err());
        assert!(check_name("Calibration of verbalized confidence", "uncertainty").is_ok());
        let survey = "A Survey on Uncertainty Quantification of Large Language";
        assert!(check_name("LLM Uncertainty Quantification", survey).is_err(), "LLM is large language model");
        assert!(check_name("Uncertainty Quantification in Large Language Models", survey).is_err());
        assert!(check_name("Large Language Model Uncertainty", survey).is_err());
        assert!(check_name("Uncertainty Quantification and Lie Detection", survey).is_ok());
        assert!(check_name("Calibration of Large Language Models", survey).is_ok());
        assert!(check_name("Survey Design", survey).is_ok(), "the survey's own opening is not its topic");
        assert_eq!(
            tidy_name("Uncertainty Quantification of Large Language: Conformal Prediction", survey),
            "Conformal Prediction"
        );
        let topic = "personalized alignment of large language models";
        assert_eq!(
            tidy_name("Personalized Alignment of Large Language Models: Reinforcement Learning from Feedback", topic),
            "Reinforcement Learning from Feedback"
        );
        assert_eq!(
            tidy_name("Personalized Alignment of Large Language Models for Federated Learning", topic),
            "Federated Learning"
        );
        assert_eq!(
            tidy_name("Personalized Alignment of Large Language Models", topic),
            "Personalized Alignment of Large Language Models"
        );
        assert_eq!(tidy_name("  Reward Models ", topic), "Reward Models");
    }
}
