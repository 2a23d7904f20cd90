//! Names of a map's nodes: chosen from each group's key phrases (or a representative title) so
//! that no name is taken twice, and the rule every map ends with, that no two nodes share a name.

use crate::label;
use crate::map::{Doc, MapNode, by_centrality, fill_leaf, most_representative};

/// What naming a group of papers needs besides the group.
pub(crate) struct Namer<'a> {
    pub(crate) topic: &'a str,
    pub(crate) docs: &'a [Doc],
    /// Each paper's text for key phrases (title twice, then the abstract).
    pub(crate) texts: &'a [String],
    pub(crate) topic_vector: &'a [f32],
    pub(crate) embed: &'a dyn Fn(&[String]) -> Vec<Vec<f32>>,
}

impl Namer<'_> {
    /// Leaf nodes for groups of documents, named from their own text, in group order (`None` for
    /// an empty group). Larger groups choose first; a name already in `used` (lowercased) is not
    /// taken again, and every chosen name is added to it.
    pub(crate) fn name_groups(
        &self,
        members: &[Vec<usize>],
        centroids: &[Vec<f32>],
        used: &mut std::collections::HashSet<String>,
    ) -> Vec<Option<MapNode>> {
        let docs = self.docs;
        let classes: Vec<Vec<(usize, &str)>> =
            members.iter().map(|m| m.iter().map(|&i| (i, self.texts[i].as_str())).collect()).collect();
        let phrases = label::key_phrases(&classes, centroids, self.embed, 6, self.topic);
        let mut order: Vec<usize> = (0..members.len()).collect();
        order.sort_by_key(|&g| std::cmp::Reverse(members[g].len()));
        let mut nodes: Vec<Option<MapNode>> = vec![None; members.len()];
        for g in order {
            let m = &members[g];
            let Some(centroid) = centroids.get(g).filter(|_| !m.is_empty()) else { continue };
            // Papers ordered by closeness to the centroid: the first are the most representative.
            let ordered = by_centrality(m, docs, centroid);
            // Only small groups fall back on a title: in larger ones the pair of key words says
            // more of the whole group (TaxoBench NSR 0.763 against 0.775 with every group).
            let from_title = if m.len() <= 3 { self.title_phrases(ordered[0], m) } else { Vec::new() };
            let name = pick_name(&phrases[g], &from_title, used).unwrap_or_else(|| docs[ordered[0]].title.clone());
            used.insert(name.to_lowercase());
            let shown = &phrases[g][..phrases[g].len().min(3)];
            let description = format!(
                "{} paper(s){}. Most representative: {}.",
                m.len(),
                if shown.is_empty() { String::new() } else { format!(" on {}", join_words(shown)) },
                most_representative(docs, &ordered)
            );
            let mut node =
                MapNode::new(name, description, f64::from(litnav_core::vector::dot(centroid, self.topic_vector)));
            fill_leaf(&mut node, docs, &ordered);
            nodes[g] = Some(node);
        }
        nodes
    }

    /// Name-like phrases of paper `paper`'s title, those whose words the most papers of `members`
    /// mention first (ties in title order).
    fn title_phrases(&self, paper: usize, members: &[usize]) -> Vec<String> {
        let texts: Vec<String> = members.iter().map(|&i| self.texts[i].to_lowercase()).collect();
        let coverage = |phrase: &String| -> usize {
            phrase.to_lowercase().split(' ').map(|w| texts.iter().filter(|t| t.contains(w)).count()).sum::<usize>()
                / phrase.split(' ').count()
        };
        let mut phrases = label::title_phrases(&self.docs[paper].title);
        phrases.sort_by_key(|p| std::cmp::Reverse(coverage(p)));
        phrases
    }
}

/// A name from a group's key phrases (best first) that is not taken: the best multi-word phrase,
/// else one of `title_phrases` (from the group's most representative title), else the
/// two best single words joined, else the best single word. A name is taken when its words all
/// occur in one name of `used` (lowercased): "Language Inference" says nothing that "Natural
/// Language Inference" did not.
pub(crate) fn pick_name(
    phrases: &[String],
    title_phrases: &[String],
    used: &std::collections::HashSet<String>,
) -> Option<String> {
    let free = |name: &String| {
        let name = name.to_lowercase();
        let words: Vec<&str> = name.split_whitespace().collect();
        !used.iter().any(|taken| {
            let taken: std::collections::HashSet<&str> = taken.split_whitespace().collect();
            words.iter().all(|w| taken.contains(w))
        })
    };
    let words: Vec<&String> = phrases.iter().filter(|p| !p.contains(' ')).collect();
    let pairs = words.windows(2).map(|w| format!("{} and {}", w[0], w[1]));
    phrases
        .iter()
        .filter(|p| p.contains(' '))
        .chain(title_phrases)
        .cloned()
        .chain(pairs)
        .chain(words.iter().map(|w| (*w).clone()))
        .find(free)
}

fn join_words(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_lowercase_first(),
        [init @ .., last] => format!(
            "{} and {}",
            init.iter().map(|s| s.to_lowercase_first()).collect::<Vec<_>>().join(", "),
            last.to_lowercase_first()
        ),
    }
}

trait LowerFirst {
    fn to_lowercase_first(&self) -> String;
}

impl LowerFirst for String {
    /// Lowercase a capitalized ordinary word, keep acronyms and mixed-case names.
    fn to_lowercase_first(&self) -> String {
        let mut words: Vec<String> = self.split(' ').map(str::to_string).collect();
        for word in &mut words {
            let rest_lower = word.chars().skip(1).all(|c| !c.is_uppercase());
            if rest_lower {
                *word = word.to_lowercase();
            }
        }
        words.join(" ")
    }
}

/// Make every name in the map distinct (ignoring case), the rule both the offline namer and the
/// LLM stage end with. Walking in preorder, a node whose name an earlier node (or the root) has
/// gets a qualifier in parentheses: `qualifier(node)` when given and free, else its parent theme's
/// name, else the first free number from 2.
pub(crate) fn distinct_names(root: &mut MapNode, qualifier: &dyn Fn(&MapNode) -> Option<String>) {
    fn walk(
        nodes: &mut [MapNode],
        parent: Option<&str>,
        used: &mut std::collections::HashSet<String>,
        qualifier: &dyn Fn(&MapNode) -> Option<String>,
    ) {
        for node in nodes {
            if used.contains(&node.name.to_lowercase()) {
                node.name = qualified_name(node, parent, used, qualifier);
            }
            used.insert(node.name.to_lowercase());
            let name = node.name.clone();
            walk(&mut node.subtopics, Some(&name), used, qualifier);
        }
    }
    let mut used = std::collections::HashSet::from([root.name.to_lowercase()]);
    walk(&mut root.subtopics, None, &mut used, qualifier);
}

/// `node`'s name with the first qualifier that makes it free (see [`distinct_names`]).
fn qualified_name(
    node: &MapNode,
    parent: Option<&str>,
    used: &std::collections::HashSet<String>,
    qualifier: &dyn Fn(&MapNode) -> Option<String>,
) -> String {
    let free = |name: &String| !used.contains(&name.to_lowercase());
    let words = qualifier(node).into_iter().chain(parent.map(str::to_string));
    if let Some(name) = words.map(|q| format!("{} ({q})", node.name)).find(free) {
        return name;
    }
    let mut number = 2;
    loop {
        let name = format!("{} ({number})", node.name);
        if free(&name) {
            return name;
        }
        number += 1;
    }
}
