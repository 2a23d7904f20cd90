//! The map: the tree an organizer builds — themes, subtopics and their papers, in TaxoBench's
//! shape with litnav's fields — and the documents it is built from.

use serde::{Deserialize, Serialize};

/// A paper to organize.
#[derive(Debug, Clone)]
pub struct Doc {
    /// Corpus id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Year.
    pub year: Option<i32>,
    /// Abstract.
    pub abstract_text: Option<String>,
    /// Unit vector of the paper's text.
    pub vector: Vec<f32>,
}

impl From<&MapNode> for litnav_eval::tree::Tree {
    /// The map as a TaxoBench tree: names, children, paper titles (ids, descriptions and
    /// relevance dropped; the "Filtered" branch, when there is one, kept as a node).
    fn from(map: &MapNode) -> litnav_eval::tree::Tree {
        litnav_eval::tree::Tree {
            name: map.name.clone(),
            children: map.subtopics.iter().map(Into::into).collect(),
            papers: map.papers.clone(),
        }
    }
}

impl MapNode {
    /// The map as a system's answer: its tree without the "Filtered" branch (and any subtopic
    /// marked filtered), so what litnav judged off-topic counts neither as retrieved nor as placed.
    pub fn kept_tree(&self) -> litnav_eval::tree::Tree {
        litnav_eval::tree::Tree {
            name: self.name.clone(),
            children: self.subtopics.iter().filter(|s| !s.filtered).map(MapNode::kept_tree).collect(),
            papers: self.papers.clone(),
        }
    }

    /// Corpus ids of every paper the map places outside the "Filtered" branch, in map order.
    pub fn kept_paper_ids(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self.paper_ids.iter().map(String::as_str).collect();
        for child in self.subtopics.iter().filter(|s| !s.filtered) {
            out.extend(child.kept_paper_ids());
        }
        out
    }
}

impl Doc {
    /// A corpus paper with its vector.
    pub fn from_paper(paper: &litnav_corpus::Paper, vector: Vec<f32>) -> Doc {
        Doc {
            id: paper.id.clone(),
            title: paper.title.clone(),
            year: paper.year,
            abstract_text: paper.abstract_text.clone(),
            vector,
        }
    }

    /// The paper as title and abstract.
    pub fn as_text(&self) -> litnav_core::PaperText<'_> {
        litnav_core::PaperText::new(&self.title, self.abstract_text.as_deref())
    }
}

/// A node of a map: TaxoBench's `name` / `subtopics` / `papers`, plus litnav's fields.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MapNode {
    /// Stable id within the map (`t2`, `t2.s1`).
    pub id: String,
    /// Display name.
    pub name: String,
    /// What the node covers.
    pub description: String,
    /// Cosine of the node's centroid to the topic (1 for the root).
    pub relevance: f64,
    /// Children (absent at leaves).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subtopics: Vec<MapNode>,
    /// Paper titles (leaves only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub papers: Vec<String>,
    /// Corpus ids, in the order of `papers`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paper_ids: Vec<String>,
    /// Soft assignments (Gaussian-mixture methods): each paper's probability of belonging to this
    /// subtopic, in the order of `papers`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paper_weights: Vec<f64>,
    /// Papers the mixture places in another subtopic but gives this one a weight of at least
    /// [`crate::SECONDARY_MEMBERSHIP`] too: listed here as well, marked as secondary members
    /// (Gaussian-mixture methods; highest weight first). Scorers that need a partition read
    /// `paper_ids` only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<SecondaryMember>,
    /// Years, in the order of `papers` (for display).
    #[serde(skip)]
    pub years: Vec<Option<i32>>,
    /// Abstracts, in the order of `papers` (for display).
    #[serde(skip)]
    pub abstracts: Vec<Option<String>>,
    /// Set on subtopics judged unrelated to the topic (kept, under the `filtered` node, with the
    /// reason in the description).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub filtered: bool,
    /// Ids of the node's papers that their source marks retracted (each page shows the mark).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retracted: Vec<String>,
}

/// A paper listed in a second subtopic (see [`MapNode::also`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SecondaryMember {
    /// Corpus id.
    pub id: String,
    /// Title.
    pub title: String,
    /// The mixture's probability that the paper belongs to this subtopic.
    pub weight: f64,
}

impl MapNode {
    /// Whether the node's `i`-th paper is marked retracted.
    pub fn is_retracted(&self, i: usize) -> bool {
        self.paper_ids.get(i).is_some_and(|id| self.retracted.contains(id))
    }

    /// Mark, at every node, the papers `retracted` says are (by id).
    pub fn mark_retracted(&mut self, retracted: &impl Fn(&str) -> bool) {
        self.retracted = self.paper_ids.iter().filter(|id| retracted(id)).cloned().collect();
        for child in &mut self.subtopics {
            child.mark_retracted(retracted);
        }
    }

    /// A node with no children and no papers (the id is assigned once the tree is complete).
    pub fn new(name: String, description: String, relevance: f64) -> MapNode {
        MapNode {
            id: String::new(),
            name,
            description,
            relevance,
            subtopics: Vec::new(),
            papers: Vec::new(),
            paper_ids: Vec::new(),
            paper_weights: Vec::new(),
            also: Vec::new(),
            years: Vec::new(),
            abstracts: Vec::new(),
            filtered: false,
            retracted: Vec::new(),
        }
    }

    /// The node with this id, anywhere below (or at) this one.
    pub fn find(&self, id: &str) -> Option<&MapNode> {
        if self.id == id {
            return Some(self);
        }
        self.subtopics.iter().find_map(|child| child.find(id))
    }

    /// The node whose child has this id, anywhere below (or at) this one.
    pub fn parent_of(&self, id: &str) -> Option<&MapNode> {
        if self.subtopics.iter().any(|child| child.id == id) {
            return Some(self);
        }
        self.subtopics.iter().find_map(|child| child.parent_of(id))
    }

    /// The node with this id, anywhere below (or at) this one, to change.
    pub fn find_mut(&mut self, id: &str) -> Option<&mut MapNode> {
        if self.id == id {
            return Some(self);
        }
        self.subtopics.iter_mut().find_map(|child| child.find_mut(id))
    }

    /// Corpus ids of every paper at or below this node, in map order.
    pub fn all_paper_ids(&self) -> Vec<String> {
        let mut ids = self.paper_ids.clone();
        for child in &self.subtopics {
            ids.extend(child.all_paper_ids());
        }
        ids
    }
}

pub(crate) fn size(node: &MapNode) -> usize {
    node.paper_ids.len() + node.subtopics.iter().map(size).sum::<usize>()
}

/// Most relevant to the topic first (a reader looks at the top of a list first), then the
/// largest, then by name.
pub(crate) fn sort_by_relevance(nodes: &mut [MapNode]) {
    nodes.sort_by(|a, b| {
        b.relevance.total_cmp(&a.relevance).then_with(|| size(b).cmp(&size(a))).then_with(|| a.name.cmp(&b.name))
    });
}

/// `members` (indices into `docs`) most central first: by cosine to `centroid`, ties by id.
pub(crate) fn by_centrality(members: &[usize], docs: &[Doc], centroid: &[f32]) -> Vec<usize> {
    let mut ordered = members.to_vec();
    ordered.sort_by(|&a, &b| {
        let (sa, sb) =
            (litnav_core::vector::dot(&docs[a].vector, centroid), litnav_core::vector::dot(&docs[b].vector, centroid));
        sb.total_cmp(&sa).then_with(|| docs[a].id.cmp(&docs[b].id))
    });
    ordered
}

/// The first two papers of `ordered` as "Title (year); Title (year)", for descriptions.
pub(crate) fn most_representative(docs: &[Doc], ordered: &[usize]) -> String {
    let examples: Vec<String> = ordered
        .iter()
        .take(2)
        .map(|&i| match docs[i].year {
            Some(year) => format!("{} ({year})", docs[i].title),
            None => docs[i].title.clone(),
        })
        .collect();
    examples.join("; ")
}

pub(crate) fn fill_leaf(node: &mut MapNode, docs: &[Doc], order: &[usize]) {
    for &i in order {
        node.papers.push(docs[i].title.clone());
        node.paper_ids.push(docs[i].id.clone());
        node.years.push(docs[i].year);
        node.abstracts.push(docs[i].abstract_text.clone());
    }
}

pub(crate) fn assign_ids(nodes: &mut [MapNode], prefix: &str) {
    for (i, node) in nodes.iter_mut().enumerate() {
        node.id = if prefix.is_empty() { format!("t{}", i + 1) } else { format!("{prefix}.s{}", i + 1) };
        let id = node.id.clone();
        assign_ids(&mut node.subtopics, &id);
    }
}
