//! litnav's organizer: a set of papers with their vectors becomes a map — themes, subtopics with
//! names, descriptions and relevance, and the papers of each — in TaxoBench's tree shape.
//!
//! The offline pipeline:
//! 1. **Clustering space**: the papers' unit vectors with the set's mean removed, renormalized
//!    ([`cluster::centered`]): the topic every paper shares no longer dominates their cosines.
//! 2. **Subtopics**: average-linkage agglomerative clustering on cosine distance (the default),
//!    Ward's, seeded spherical k-means, or Knowledge Navigator's UMAP +
//!    Gaussian mixture ([`Method`]), k chosen by the silhouette score (cosine distance) over
//!    `n/5..=n/4` (at least 2, at most 24). Silhouette alone over `2..` picks two or three
//!    clusters on MiniLM vectors, far coarser than experts' taxonomies (TaxoBench ARI 0.051 with
//!    `2..=n/4`; `litnav bench organize`).
//! 3. **Themes**: when there are six subtopics or more, their centroids in the clustering space
//!    are clustered by k-means (k over `s/5..=s/3` for s subtopics, at least 2); every subtopic
//!    belongs to exactly one theme, and a theme of a single subtopic is replaced by it.
//! 4. **Names and descriptions**: class-based TF-IDF key phrases re-ranked with the encoder
//!    ([`label`]); the best multi-word phrase names the node (else, for a group of three papers
//!    or fewer, a phrase of its most representative paper's title; else the two best words), the
//!    description lists the key phrases and the most central papers. No two nodes of a map share
//!    a name, nor is one made only of another's words. Themes choose first, so a broad theme
//!    keeps its broad name and its subtopics take more specific ones; larger groups choose before
//!    smaller ones.
//! 5. **Relevance**: cosine between the topic's vector and the centroid of the node's own paper
//!    vectors. Themes, and subtopics within a theme, are listed most relevant first (then the
//!    largest): a reader starts at the top.
//!
//! Every step is seeded, and ties break on stable keys: the same input gives the same map, byte
//! for byte. The LLM stage ([`llm`]) renames, filters and regroups the offline map.

pub mod bottom_up;
pub mod cluster;
pub mod gmm;
pub mod label;
pub mod llm;
mod map;
mod naming;
pub mod render;
pub mod typology;
pub mod umap;

pub use map::{Doc, MapNode, SecondaryMember};

/// The mixture weight for a second subtopic at which a paper is listed there too (as a
/// secondary member, [`MapNode::also`]). Knowledge Navigator's mixture gives every paper a
/// probability per subtopic; a paper whose second-best subtopic takes a tenth of its mass sits
/// between two subtopics a reader would want to find it under. Measured: in UMAP's space the
/// mixture is nearly hard — on four litbench topics' maps (800 papers) the lowest first-choice
/// weights were 0.81, 0.97, 0.98 and 0.98, so about one paper in a few hundred is listed twice.
pub const SECONDARY_MEMBERSHIP: f64 = 0.1;
use map::{assign_ids, fill_leaf, size, sort_by_relevance};
use naming::{Namer, distinct_names};

/// How papers are grouped into subtopics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    /// Knowledge Navigator's pipeline: seeded UMAP to 5 dimensions, then a Gaussian mixture with
    /// k chosen by silhouette; soft assignments are kept (`paper_weights`).
    Navigator,
    /// Seeded spherical k-means.
    KMeans,
    /// Ward agglomerative clustering cut at the silhouette's k (ResearchArena's baseline keeps the
    /// whole dendrogram instead: [`typology::ward_typology`]).
    Ward,
    /// Average-linkage (UPGMA) agglomerative clustering on cosine distance: the default, the most
    /// even across both organizer benchmarks (`litnav bench organize --bloom`: ARI 0.162 on
    /// TaxoBench and 0.165 on Bloom-Eval; Ward 0.170 and 0.145).
    #[default]
    Average,
}

/// Organizer settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Seed of every stochastic step.
    pub seed: u64,
    /// Subtopic clustering.
    pub method: Method,
    /// Most subtopics considered.
    pub max_subtopics: usize,
    /// Group subtopics into themes (when there are at least six).
    pub themes: bool,
    /// Subtopics whose centroid's cosine to the topic is below this are moved, with the reason,
    /// under a final `filtered` node (0 keeps everything: the default, right for a paper set the
    /// user chose; `litnav map` uses 0.35 when it retrieves from a corpus).
    pub min_relevance: f64,
    /// Subtopics with more papers than this are organized again into sub-subtopics, the same
    /// way, down to three levels below the themes (`None`: no recursion).
    pub recurse_above: Option<usize>,
    /// Mixture weight at which a paper is also listed in its second subtopic
    /// ([`SECONDARY_MEMBERSHIP`]; above 1 lists none). Gaussian-mixture methods only.
    pub secondary_above: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            seed: litnav_core::DEFAULT_SEED,
            method: Method::default(),
            max_subtopics: 24,
            themes: true,
            min_relevance: 0.0,
            recurse_above: None,
            secondary_above: SECONDARY_MEMBERSHIP,
        }
    }
}

/// Organize `docs` for `topic` into a map. `embed` encodes short texts (key phrases) into unit
/// vectors; `topic_vector` is the topic's unit vector. The order of `docs` does not matter: the
/// same papers in any order give the same map, byte for byte.
pub fn organize(
    topic: &str,
    topic_vector: &[f32],
    docs: &[Doc],
    embed: &dyn Fn(&[String]) -> Vec<Vec<f32>>,
    options: Options,
) -> MapNode {
    // The input's order carries no meaning, and must not leak into the map: TaxoBench's files,
    // for one, list each instance's papers in the order of the expert taxonomy.
    let mut docs = docs.to_vec();
    docs.sort_by(|a, b| a.id.cmp(&b.id).then_with(|| a.title.cmp(&b.title)));
    let mut used = std::collections::HashSet::from([topic.to_lowercase()]);
    let mut root = organize_naming(topic, topic_vector, &docs, embed, options, &mut used);
    distinct_names(&mut root, &|_| None);
    root
}

/// [`organize`], with names chosen outside those in `used` (lowercased), to which every name
/// chosen here is added: deeper levels of a recursive map do not repeat the upper levels' names.
fn organize_naming(
    topic: &str,
    topic_vector: &[f32],
    docs: &[Doc],
    embed: &dyn Fn(&[String]) -> Vec<Vec<f32>>,
    options: Options,
    used: &mut std::collections::HashSet<String>,
) -> MapNode {
    let mut root = MapNode::new(topic.to_string(), format!("{} papers on {topic}", docs.len()), 1.0);
    root.id = "root".into();
    if docs.len() < 4 {
        fill_leaf(&mut root, docs, &(0..docs.len()).collect::<Vec<_>>());
        return root;
    }
    let vectors: Vec<Vec<f32>> = docs.iter().map(|d| d.vector.clone()).collect();
    let space = cluster::centered(&vectors);
    let max_k = (docs.len() / 4).clamp(2, options.max_subtopics.max(2));
    let min_k = (docs.len() / 5).clamp(2, max_k);
    let mut soft: Option<Vec<f64>> = None;
    let mut second: Vec<Option<(usize, f64)>> = Vec::new();
    let labels = match options.method {
        Method::KMeans => cluster::best_by_silhouette(&space, min_k..=max_k, options.seed).0.labels,
        Method::Ward => cluster::agglomerative_by_silhouette(&space, min_k..=max_k, cluster::Linkage::Ward).0,
        Method::Average => cluster::agglomerative_by_silhouette(&space, min_k..=max_k, cluster::Linkage::Average).0,
        Method::Navigator => {
            let reduced = umap::umap(&space, &umap::UmapOptions { seed: options.seed, ..Default::default() });
            let (mixture, _) = gmm::best_by_silhouette(&reduced, min_k..=max_k, options.seed);
            soft = Some(mixture.labels.iter().zip(&mixture.responsibilities).map(|(&l, r)| r[l]).collect());
            let labels = gmm::compact(&mixture.labels);
            second = second_subtopics(&mixture, &labels, options.secondary_above);
            labels
        }
    };
    // Names and relevance use centroids of the papers' own vectors; themes group subtopics in the
    // clustering space.
    let subtopic_count = labels.iter().max().map_or(0, |m| m + 1);
    let subtopics =
        cluster::Clustering { centroids: cluster::unit_centroids(&vectors, &labels, subtopic_count), labels };
    let members = groups(&subtopics.labels, subtopics.centroids.len());
    let texts: Vec<String> = docs
        .iter()
        .map(|d| format!("{}. {}. {}", d.title, d.title, d.abstract_text.as_deref().unwrap_or("")))
        .collect();
    let namer = Namer { topic, docs, texts: &texts, topic_vector, embed };
    // No two nodes of a map share a name, and none is the topic's: themes (largest first) pick
    // first, the subtopics then take phrases the themes did not.
    let theme_clustering = if options.themes && members.len() >= 6 {
        let count = members.len();
        let subtopic_space = cluster::unit_centroids(&space, &subtopics.labels, subtopic_count);
        let (themes, _) =
            cluster::best_by_silhouette(&subtopic_space, (count / 5).max(2)..=(count / 3).max(2), options.seed);
        Some(themes)
    } else {
        None
    };
    root.subtopics = match theme_clustering {
        None => {
            let subtopic_nodes = namer.name_groups(&members, &subtopics.centroids, used);
            let mut nodes: Vec<MapNode> = subtopic_nodes.into_iter().flatten().collect();
            sort_by_relevance(&mut nodes);
            nodes
        }
        Some(themes) => {
            let theme_members = groups(&themes.labels, themes.centroids.len());
            // A theme's papers are its subtopics' papers; a theme of one subtopic is not named
            // (the subtopic will stand alone).
            let theme_docs: Vec<Vec<usize>> = theme_members
                .iter()
                .map(|subs| match subs.len() {
                    1 => Vec::new(),
                    _ => subs.iter().flat_map(|&s| members[s].iter().copied()).collect(),
                })
                .collect();
            let paper_themes: Vec<usize> = subtopics.labels.iter().map(|&s| themes.labels[s]).collect();
            let theme_centroids = cluster::unit_centroids(&vectors, &paper_themes, themes.centroids.len());
            let theme_nodes = namer.name_groups(&theme_docs, &theme_centroids, used);
            let mut subtopic_nodes = namer.name_groups(&members, &subtopics.centroids, used);
            let mut theme_nodes: Vec<MapNode> = theme_nodes
                .into_iter()
                .zip(&theme_members)
                .filter_map(|(theme, subs)| {
                    // A theme of one subtopic would only repeat it: the subtopic stands alone.
                    if let [only] = subs.as_slice() {
                        return subtopic_nodes[*only].take();
                    }
                    let mut theme = theme?;
                    theme.papers.clear();
                    theme.paper_ids.clear();
                    theme.years.clear();
                    theme.abstracts.clear();
                    theme.subtopics = subs.iter().filter_map(|&s| subtopic_nodes[s].take()).collect();
                    sort_by_relevance(&mut theme.subtopics);
                    Some(theme)
                })
                .collect();
            sort_by_relevance(&mut theme_nodes);
            theme_nodes
        }
    };
    if let Some(weights) = soft {
        let by_id: std::collections::HashMap<&str, f64> =
            docs.iter().zip(weights).map(|(d, w)| (d.id.as_str(), w)).collect();
        set_weights(&mut root, &by_id);
        if second.iter().any(Option::is_some) {
            list_secondary_members(&mut root, docs, &subtopics.labels, &second);
        }
    }
    // After the weights: deeper leaves keep the memberships of their own mixture.
    if let Some(threshold) = options.recurse_above {
        recurse(&mut root.subtopics, topic, topic_vector, docs, embed, options, threshold.max(4), 1, used);
    }
    filter_unrelated(&mut root, options.min_relevance);
    assign_ids(&mut root.subtopics, "");
    root
}

/// Organize every leaf with more than `threshold` papers into its own subtopics (depth ≤ 3).
#[allow(clippy::too_many_arguments)]
fn recurse(
    nodes: &mut [MapNode],
    topic: &str,
    topic_vector: &[f32],
    docs: &[Doc],
    embed: &dyn Fn(&[String]) -> Vec<Vec<f32>>,
    options: Options,
    threshold: usize,
    depth: usize,
    used: &mut std::collections::HashSet<String>,
) {
    for node in nodes {
        if !node.subtopics.is_empty() {
            recurse(&mut node.subtopics, topic, topic_vector, docs, embed, options, threshold, depth, used);
            continue;
        }
        if node.paper_ids.len() <= threshold || depth > 3 {
            continue;
        }
        let members: std::collections::HashSet<&str> = node.paper_ids.iter().map(String::as_str).collect();
        let inner: Vec<Doc> = docs.iter().filter(|d| members.contains(d.id.as_str())).cloned().collect();
        let deeper = Options { themes: false, min_relevance: 0.0, recurse_above: None, ..options };
        let sub = organize_naming(topic, topic_vector, &inner, embed, deeper, used);
        if sub.subtopics.len() < 2 {
            continue;
        }
        node.subtopics = sub.subtopics;
        node.papers.clear();
        node.paper_ids.clear();
        node.years.clear();
        node.abstracts.clear();
        recurse(&mut node.subtopics, topic, topic_vector, docs, embed, options, threshold, depth + 1, used);
    }
}

/// For each paper, its second subtopic (as a compacted label) and weight, when the weight reaches
/// `threshold` and the subtopic holds papers of its own.
fn second_subtopics(mixture: &gmm::Mixture, labels: &[usize], threshold: f64) -> Vec<Option<(usize, f64)>> {
    let compacted: std::collections::HashMap<usize, usize> =
        mixture.labels.iter().copied().zip(labels.iter().copied()).collect();
    mixture
        .labels
        .iter()
        .zip(&mixture.responsibilities)
        .map(|(&primary, r)| {
            let (component, &weight) = r
                .iter()
                .enumerate()
                .filter(|&(c, _)| c != primary)
                .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))?;
            let label = *compacted.get(&component)?;
            (weight >= threshold).then_some((label, weight))
        })
        .collect()
}

/// List every paper with a second subtopic in that subtopic's node, as a secondary member. A
/// leaf's subtopic is its papers' label (each leaf holds exactly one subtopic's papers here).
fn list_secondary_members(node: &mut MapNode, docs: &[Doc], labels: &[usize], second: &[Option<(usize, f64)>]) {
    for child in &mut node.subtopics {
        list_secondary_members(child, docs, labels, second);
    }
    let Some(first) = node.paper_ids.first() else { return };
    let Some(leaf_label) = docs.iter().position(|d| &d.id == first).map(|i| labels[i]) else { return };
    let mut also: Vec<SecondaryMember> = docs
        .iter()
        .zip(second)
        .filter_map(|(doc, s)| match s {
            Some((label, weight)) if *label == leaf_label => {
                Some(SecondaryMember { id: doc.id.clone(), title: doc.title.clone(), weight: *weight })
            }
            _ => None,
        })
        .collect();
    also.sort_by(|a, b| b.weight.total_cmp(&a.weight).then_with(|| a.id.cmp(&b.id)));
    node.also = also;
}

/// Fill `paper_weights` of every leaf from the papers' membership probabilities.
fn set_weights(node: &mut MapNode, weights: &std::collections::HashMap<&str, f64>) {
    node.paper_weights = node.paper_ids.iter().map(|id| weights.get(id.as_str()).copied().unwrap_or(1.0)).collect();
    for child in &mut node.subtopics {
        set_weights(child, weights);
    }
}

/// Move subtopics (leaves, at any depth) below `threshold` relevance under a final `filtered`
/// node; a theme left with nothing is dropped.
pub(crate) fn filter_unrelated(root: &mut MapNode, threshold: f64) {
    if threshold <= 0.0 {
        return;
    }
    /// Take the low leaves among `nodes`, then among their children (preorder), dropping inner
    /// nodes emptied on the way.
    fn take(nodes: &mut Vec<MapNode>, threshold: f64, filtered: &mut Vec<MapNode>) {
        let (kept, removed): (Vec<MapNode>, Vec<MapNode>) =
            std::mem::take(nodes).into_iter().partition(|n| !n.subtopics.is_empty() || n.relevance >= threshold);
        *nodes = kept;
        for mut node in removed {
            node.filtered = true;
            node.description =
                format!("{} Filtered: relevance {:.2} < {threshold:.2}.", node.description, node.relevance);
            filtered.push(node);
        }
        for node in nodes.iter_mut() {
            take(&mut node.subtopics, threshold, filtered);
        }
        nodes.retain(|node| !node.subtopics.is_empty() || !node.paper_ids.is_empty());
    }
    let mut filtered = Vec::new();
    take(&mut root.subtopics, threshold, &mut filtered);
    if filtered.is_empty() {
        return;
    }
    let count: usize = filtered.iter().map(size).sum();
    let mut bucket = MapNode::new(
        "Filtered: unrelated to the topic".into(),
        format!(
            "{count} paper(s) in subtopics whose centroid's cosine to the topic is below {threshold:.2}; kept for inspection."
        ),
        0.0,
    );
    bucket.subtopics = filtered;
    bucket.filtered = true;
    root.subtopics.push(bucket);
}

fn groups(labels: &[usize], k: usize) -> Vec<Vec<usize>> {
    let mut groups = vec![Vec::new(); k];
    for (i, &l) in labels.iter().enumerate() {
        groups[l].push(i);
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naming::pick_name;

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    /// A deterministic stand-in for the encoder (phrases only need some unit vector here).
    fn fake_embed(texts: &[String]) -> Vec<Vec<f32>> {
        texts.iter().map(|t| unit(&[1.0, t.len() as f32 / 100.0, 0.1])).collect()
    }

    /// No two nodes of `map` share a name, ignoring case.
    fn assert_distinct_names(map: &MapNode) {
        fn names(node: &MapNode, out: &mut Vec<String>) {
            out.push(node.name.to_lowercase());
            node.subtopics.iter().for_each(|c| names(c, out));
        }
        let mut all = Vec::new();
        names(map, &mut all);
        let count = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), count, "no two nodes share a name: {all:?}");
    }

    fn docs() -> Vec<Doc> {
        let mut docs = Vec::new();
        for i in 0..6 {
            let wobble = i as f32 * 0.01;
            docs.push(Doc {
                id: format!("a{i}"),
                title: format!("Graph neural networks for molecules {i}"),
                year: Some(2020),
                abstract_text: Some("Graph neural networks predict molecular properties.".into()),
                vector: unit(&[1.0, wobble, 0.0]),
            });
            docs.push(Doc {
                id: format!("b{i}"),
                title: format!("Deep eutectic solvents chemistry {i}"),
                year: Some(2019),
                abstract_text: Some("Deep eutectic solvents dissolve cellulose.".into()),
                vector: unit(&[0.0, wobble, 1.0]),
            });
        }
        docs
    }

    /// A retrieval of many copies of a few papers (a corpus that holds each paper many times, as
    /// replicated benchmark corpora do): clusters can come out empty, and a theme can hold only
    /// empty subtopics. Every paper is still placed once and no name is taken twice.
    #[test]
    fn copies_of_a_few_papers_are_organized_without_a_gap_in_the_groups() {
        let embed = |texts: &[String]| -> Vec<Vec<f32>> {
            texts.iter().map(|t| unit(&[1.0, t.len() as f32 / 100.0, 0.1, 0.0, 0.0, 0.0, 0.0, 0.0])).collect()
        };
        for (papers, distinct) in [(65, 3), (65, 5), (65, 7), (40, 4), (120, 6)] {
            let vectors: Vec<Vec<f32>> = (0..distinct)
                .map(|i| {
                    let mut v = vec![0.0f32; 8];
                    v[i] = 1.0;
                    v[(i + 1) % 8] = 0.2;
                    unit(&v)
                })
                .collect();
            let docs: Vec<Doc> = (0..papers)
                .map(|i| Doc {
                    id: format!("c{i:03}"),
                    title: format!("Copy {} of paper {}", i / distinct, i % distinct),
                    year: Some(2020),
                    abstract_text: Some(format!("Words of paper {} and more words", i % distinct)),
                    vector: vectors[i % distinct].clone(),
                })
                .collect();
            let topic = unit(&[1.0; 8]);
            for method in [Method::KMeans, Method::Ward] {
                let map = organize("copies", &topic, &docs, &embed, Options { method, ..Options::default() });
                let mut ids = map.all_paper_ids();
                ids.sort();
                let count = ids.len();
                ids.dedup();
                assert_eq!((ids.len(), count), (papers, papers), "{method:?}, {papers} copies of {distinct}");
                assert_distinct_names(&map);
            }
        }
    }

    #[test]
    fn the_navigator_pipeline_is_seeded_places_every_paper_once_and_keeps_soft_assignments() {
        let topic = unit(&[1.0, 0.0, 0.0]);
        let options = Options { method: Method::Navigator, themes: false, ..Options::default() };
        let a = organize("graph neural networks", &topic, &docs(), &fake_embed, options);
        assert_eq!(a, organize("graph neural networks", &topic, &docs(), &fake_embed, options));
        let mut ids = a.all_paper_ids();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 12);
        for leaf in &a.subtopics {
            assert_eq!(leaf.paper_weights.len(), leaf.paper_ids.len());
            assert!(leaf.paper_weights.iter().all(|w| (0.0..=1.0 + 1e-9).contains(w)));
        }
        let json = serde_json::to_string(&a).unwrap();
        assert!(json.contains("paper_weights"));
    }

    #[test]
    fn the_input_order_does_not_change_the_map() {
        // Eight families of five papers, enough for themes; the words differ per family.
        let words = ["graph", "solvent", "protein", "galaxy", "vaccine", "market", "poetry", "robot"];
        let docs: Vec<Doc> = (0..40)
            .map(|i| {
                let family = i % 8;
                let mut v = vec![0.05; 8];
                v[family] = 1.0;
                v[(family + 1) % 8] = 0.3 * (family / 2) as f32 + 0.01 * (i / 8) as f32;
                Doc {
                    id: format!("p{i:02}"),
                    title: format!("{} study {i}", words[family]),
                    year: None,
                    abstract_text: Some(format!("New {} methods and {} data.", words[family], words[family])),
                    vector: unit(&v),
                }
            })
            .collect();
        let mut shuffled = docs.clone();
        shuffled.reverse();
        shuffled.rotate_left(13);
        let topic = unit(&[1.0; 8]);
        for method in [Method::Average, Method::Ward, Method::KMeans, Method::Navigator] {
            let options = Options { method, ..Options::default() };
            let a = serde_json::to_string(&organize("science", &topic, &docs, &fake_embed, options)).unwrap();
            let b = serde_json::to_string(&organize("science", &topic, &shuffled, &fake_embed, options)).unwrap();
            assert_eq!(a, b, "{method:?}: the same papers in another order give the same map");
        }
    }

    #[test]
    fn large_subtopics_are_organized_again_when_asked() {
        let topic = unit(&[1.0, 0.0, 0.0]);
        let flat = organize("gnn", &topic, &docs(), &fake_embed, Options { themes: false, ..Options::default() });
        let largest = flat.subtopics.iter().map(|s| s.paper_ids.len()).max().unwrap();
        assert!(largest > 4, "the fixture's flat map has a subtopic above the threshold ({largest} papers)");
        let options = Options { themes: false, recurse_above: Some(4), ..Options::default() };
        let deep = organize("gnn", &topic, &docs(), &fake_embed, options);
        let mut ids = deep.all_paper_ids();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 12, "every paper still placed once");
        assert!(deep.subtopics.iter().any(|s| !s.subtopics.is_empty()), "a large subtopic was split");
        assert!(
            deep.subtopics
                .iter()
                .flat_map(|s| &s.subtopics)
                .all(|c| c.id.starts_with(&format!("{}.", c.id.split('.').next().unwrap())))
        );
        assert_distinct_names(&deep);
    }

    #[test]
    fn every_paper_once_and_unrelated_subtopics_filtered_with_a_reason() {
        let topic = unit(&[1.0, 0.0, 0.0]);
        let options = Options { min_relevance: 0.5, themes: false, ..Options::default() };
        let map = organize("graph neural networks", &topic, &docs(), &fake_embed, options);
        let mut ids = map.all_paper_ids();
        ids.sort();
        assert_eq!(ids.len(), 12, "every paper placed once, filtered ones included");
        ids.dedup();
        assert_eq!(ids.len(), 12);
        let filtered = map.subtopics.last().expect("a filtered node");
        assert!(filtered.filtered && filtered.name.starts_with("Filtered"));
        assert!(filtered.all_paper_ids().iter().all(|id| id.starts_with('b')), "only the chemistry papers");
        assert!(filtered.subtopics.iter().all(|s| s.filtered && s.description.contains("Filtered: relevance")));
        assert!(map.subtopics[..map.subtopics.len() - 1].iter().all(|s| !s.filtered && s.relevance >= 0.5));
        // Without a threshold nothing is filtered, and the map is deterministic.
        let keep = Options { themes: false, ..Options::default() };
        let a = organize("graph neural networks", &topic, &docs(), &fake_embed, keep);
        let b = organize("graph neural networks", &topic, &docs(), &fake_embed, keep);
        assert_eq!(a, b);
        assert!(!a.subtopics.iter().any(|s| s.filtered));
    }

    #[test]
    fn names_skip_those_already_taken() {
        let phrases: Vec<String> =
            ["Graph Neural Networks", "molecules", "Message Passing", "GNN"].iter().map(|p| p.to_string()).collect();
        let mut used = std::collections::HashSet::new();
        assert_eq!(pick_name(&phrases, &[], &used).as_deref(), Some("Graph Neural Networks"));
        used.insert("graph neural networks".to_string());
        assert_eq!(pick_name(&phrases, &[], &used).as_deref(), Some("Message Passing"));
        used.insert("message passing".to_string());
        assert_eq!(pick_name(&phrases, &[], &used).as_deref(), Some("molecules and GNN"));
        used.insert("molecules and gnn".to_string());
        // "molecules" and "GNN" alone are words of a taken name.
        assert_eq!(pick_name(&phrases, &[], &used), None);
        // A name whose words all belong to a taken one is taken too.
        let used = std::collections::HashSet::from(["natural language inference".to_string()]);
        let phrases = vec!["Language Inference".to_string(), "Entailment Benchmarks".to_string()];
        assert_eq!(pick_name(&phrases, &[], &used).as_deref(), Some("Entailment Benchmarks"));
    }

    #[test]
    fn no_two_nodes_share_a_name() {
        let topic = unit(&[1.0, 0.0, 0.0]);
        let mut docs = docs();
        // Twelve more papers that all use the same words: their subtopics compete for one name.
        for i in 0..12 {
            docs.push(Doc {
                id: format!("c{i}"),
                title: format!("Graph neural networks for proteins {i}"),
                year: None,
                abstract_text: Some("Graph neural networks fold proteins.".into()),
                vector: unit(&[0.5, 1.0 + (i % 3) as f32, (i % 2) as f32]),
            });
        }
        let map = organize("molecules", &topic, &docs, &fake_embed, Options::default());
        assert_distinct_names(&map);
    }

    #[test]
    fn a_paper_with_a_heavy_second_subtopic_is_listed_there_too() {
        // Components 0 and 2 hold papers (compacted to labels 0 and 1); component 1 holds none.
        let mixture = gmm::Mixture {
            labels: vec![0, 0, 2, 2],
            responsibilities: vec![
                vec![0.9, 0.05, 0.05],
                vec![0.6, 0.1, 0.3],
                vec![0.1, 0.3, 0.6],
                vec![0.01, 0.01, 0.98],
            ],
            weights: vec![0.5, 0.0, 0.5],
            means: Vec::new(),
            log_likelihood: 0.0,
        };
        let labels = gmm::compact(&mixture.labels);
        let second = second_subtopics(&mixture, &labels, SECONDARY_MEMBERSHIP);
        // Paper 1 leans to the other subtopic (0.3); paper 2's runner-up is the empty component.
        assert_eq!(second, vec![None, Some((1, 0.3)), None, None]);
        assert!(second_subtopics(&mixture, &labels, 0.35).iter().all(Option::is_none));

        let docs: Vec<Doc> = docs().into_iter().take(4).collect();
        let mut root = MapNode::new("topic".into(), String::new(), 1.0);
        for members in [[0, 1], [2, 3]] {
            let mut leaf = MapNode::new("leaf".into(), String::new(), 0.5);
            fill_leaf(&mut leaf, &docs, &members);
            root.subtopics.push(leaf);
        }
        list_secondary_members(&mut root, &docs, &labels, &second);
        assert!(root.subtopics[0].also.is_empty());
        let also = &root.subtopics[1].also;
        assert_eq!((also.len(), also[0].id.as_str(), also[0].weight), (1, docs[1].id.as_str(), 0.3));
        // Above 1, nobody is listed twice.
        assert!(second_subtopics(&mixture, &labels, 1.01).iter().all(Option::is_none));
    }
}
