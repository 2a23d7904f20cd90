//! Trees as every metric sees them: TaxoBench's interchange shape (named nodes, child nodes, paper
//! titles at any node), parsed from JSON with errors that name the offending node; their labels;
//! and the label similarity the hierarchy metrics take from the caller.

/// A taxonomy in TaxoBench's interchange shape: named nodes, child nodes, paper titles.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tree {
    /// Node name.
    pub name: String,
    /// Child nodes in order.
    pub children: Vec<Tree>,
    /// Paper titles placed at this node.
    pub papers: Vec<String>,
}

impl Tree {
    /// Every (paper title, node position in preorder) of the tree, in preorder; a title seen
    /// again (after normalization) is skipped.
    pub fn paper_nodes(&self) -> Vec<(String, usize)> {
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut position = 0;
        self.walk(&mut position, &mut |node, at| {
            for title in &node.papers {
                if seen.insert(normalize_title(title)) {
                    out.push((title.clone(), at));
                }
            }
        });
        out
    }

    fn walk(&self, position: &mut usize, visit: &mut impl FnMut(&Tree, usize)) {
        let here = *position;
        *position += 1;
        visit(self, here);
        for child in &self.children {
            child.walk(position, visit);
        }
    }
}

/// TaxoBench's title normalization.
pub fn normalize_title(title: &str) -> String {
    let replaced: String =
        title.to_lowercase().chars().map(|c| if c.is_alphanumeric() || c == '_' { c } else { ' ' }).collect();
    replaced.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Deepest tree accepted from JSON (deeper input is an error, not a stack overflow).
pub const MAX_DEPTH: usize = 256;

impl Tree {
    /// Parse TaxoBench's JSON shape: `{"name", "subtopics": [...], "papers": [...]}`, where a paper
    /// is a title string or an object with a `title` (litbench's `{title, paper_id}`). Errors name
    /// the path of the offending node (`subtopics[2].papers[0]`).
    pub fn from_json(value: &serde_json::Value) -> Result<Tree, String> {
        Self::parse(value, "", 0)
    }

    fn parse(value: &serde_json::Value, path: &str, depth: usize) -> Result<Tree, String> {
        use serde_json::Value;
        let here = if path.is_empty() { "the root".to_string() } else { format!("`{path}`") };
        if depth > MAX_DEPTH {
            return Err(format!("the tree is deeper than {MAX_DEPTH} levels at {here}"));
        }
        let Value::Object(node) = value else { return Err(format!("{here} is not an object")) };
        let name = match node.get("name") {
            Some(Value::String(name)) => name.clone(),
            Some(Value::Null) | None => String::new(),
            Some(_) => return Err(format!("the name of {here} is not a string")),
        };
        let mut tree = Tree { name, ..Tree::default() };
        let field = |key: &str| -> Result<&[Value], String> {
            match node.get(key).or_else(|| if key == "subtopics" { node.get("children") } else { None }) {
                None | Some(Value::Null) => Ok(&[]),
                Some(Value::Array(items)) => Ok(items),
                Some(_) => Err(format!("`{key}` of {here} is not an array")),
            }
        };
        for (i, child) in field("subtopics")?.iter().enumerate() {
            let child_path = if path.is_empty() { format!("subtopics[{i}]") } else { format!("{path}.subtopics[{i}]") };
            tree.children.push(Self::parse(child, &child_path, depth + 1)?);
        }
        for (i, paper) in field("papers")?.iter().enumerate() {
            let title = match paper {
                Value::String(title) => title.clone(),
                Value::Object(object) => match object.get("title") {
                    Some(Value::String(title)) => title.clone(),
                    _ => return Err(format!("paper {i} of {here} has no title")),
                },
                _ => return Err(format!("paper {i} of {here} is neither a title nor an object with one")),
            };
            tree.papers.push(title);
        }
        Ok(tree)
    }

    /// Every paper title as listed, in preorder (a node's papers before its children's),
    /// duplicates kept.
    pub fn listed_titles(&self) -> Vec<String> {
        let mut out = self.papers.clone();
        for child in &self.children {
            out.extend(child.listed_titles());
        }
        out
    }

    /// Every node name (root first, preorder).
    pub fn labels(&self) -> Vec<&str> {
        preorder_labels(self)
    }
}

/// Hierarchy labels in preorder (root included).
pub fn preorder_labels(tree: &Tree) -> Vec<&str> {
    let mut out = vec![tree.name.as_str()];
    for child in &tree.children {
        out.extend(preorder_labels(child));
    }
    out
}

/// Similarity of two labels, in [0, 1].
pub trait LabelSimilarity {
    /// `Sim(a, b)`.
    fn similarity(&self, a: &str, b: &str) -> f64;
}

impl<F: Fn(&str, &str) -> f64> LabelSimilarity for F {
    fn similarity(&self, a: &str, b: &str) -> f64 {
        self(a, b)
    }
}

impl Tree {
    /// A leaf holding `papers`.
    pub fn leaf(name: impl Into<String>, papers: Vec<String>) -> Tree {
        Tree { name: name.into(), children: Vec::new(), papers }
    }

    /// A node with `children`.
    pub fn node(name: impl Into<String>, children: Vec<Tree>) -> Tree {
        Tree { name: name.into(), children, papers: Vec::new() }
    }

    /// TaxoBench's JSON shape: `{"name", "subtopics"?, "papers"?}` (empty lists left out).
    pub fn to_json(&self) -> serde_json::Value {
        let mut node = serde_json::Map::new();
        node.insert("name".into(), serde_json::Value::String(self.name.clone()));
        if !self.children.is_empty() {
            node.insert("subtopics".into(), self.children.iter().map(Tree::to_json).collect());
        }
        if !self.papers.is_empty() {
            node.insert("papers".into(), self.papers.iter().cloned().map(serde_json::Value::String).collect());
        }
        serde_json::Value::Object(node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip() {
        let tree = Tree::node("root", vec![Tree::leaf("a", vec!["P1".into()]), Tree::node("b", vec![])]);
        assert_eq!(Tree::from_json(&tree.to_json()), Ok(tree));
    }
}
