//! The deterministic metrics: HIRC, TBal, FMI, DSI, STS, SCons, and the extras (readability,
//! 10-gram overlap, output tokens).

use super::{Metric, MetricScore, SurveyOptions};
use litnav_eval::bloom::{self, Compat};
use litnav_organize::{Doc, MapNode, Options};
use litnav_session::error::Result;
use litnav_session::progress::Progress;
use litnav_session::workspace::Workspace;
use litnav_survey::markers::formatting_integrity;
use litnav_survey::{Survey, text};
use serde_json::json;

/// Run one deterministic metric.
pub fn run(
    metric: Metric,
    workspace: &Workspace,
    expert: &Survey,
    generated: &Survey,
    options: &SurveyOptions,
    progress: &dyn Progress,
) -> Result<MetricScore> {
    Ok(match metric {
        Metric::Hirc => hirc(expert, generated, options.compat),
        Metric::TBal => {
            let (e, g) = (themes(workspace, expert, progress)?, themes(workspace, generated, progress)?);
            let sizes = |themes: &[Theme]| themes.iter().map(|t| t.size as f64).collect::<Vec<_>>();
            let (be, bg) = (bloom::thematic_balance(&sizes(&e)), bloom::thematic_balance(&sizes(&g)));
            MetricScore::per_survey(metric, be, bg).with_evidence(json!({
                "expert_themes": e.len(),
                "generated_themes": g.len(),
                "breadth_gap": bg - be,
            }))
        }
        Metric::Fmi => {
            let (e, g) = (
                formatting_integrity(&expert.cited, &expert.defined),
                formatting_integrity(&generated.cited, &generated.defined),
            );
            let show = |list: &[String]| list.iter().take(50).cloned().collect::<Vec<_>>();
            MetricScore::per_survey(metric, e.score, g.score).with_evidence(json!({
                "generated": {"cited": g.cited, "defined": g.defined, "defined_from": generated.defined_from,
                              "cited_not_defined": show(&g.undefined), "defined_not_cited": show(&g.uncited)},
                "expert": {"cited": e.cited, "defined": e.defined, "defined_from": expert.defined_from,
                           "cited_not_defined": show(&e.undefined), "defined_not_cited": show(&e.uncited)},
            }))
        }
        Metric::Dsi => {
            let dsi = |s: &Survey| {
                let headings = text::atx_headings(&s.content);
                bloom::document_structure_integrity(&headings.iter().map(String::as_str).collect::<Vec<_>>())
            };
            let ((e, ef), (g, gf)) = (dsi(expert), dsi(generated));
            let found = |f: [bool; 4]| {
                bloom::REQUIRED_SECTIONS.iter().zip(f).filter(|(_, found)| *found).map(|(s, _)| *s).collect::<Vec<_>>()
            };
            MetricScore::per_survey(metric, e, g)
                .with_evidence(json!({"expert_found": found(ef), "generated_found": found(gf)}))
        }
        Metric::SCons => {
            let shape = bloom::outline_shape(&outline_tree(expert), &outline_tree(generated));
            MetricScore { score: Some(shape.shape_consistency), ..MetricScore::new(metric) }.with_evidence(json!(shape))
        }
        Metric::Sts => {
            let (e, g) = (outline_tree(expert), outline_tree(generated));
            let mut labels: Vec<String> = Vec::new();
            collect_labels(&e, &mut labels);
            collect_labels(&g, &mut labels);
            labels.sort();
            labels.dedup();
            let encoder = workspace.encoder(progress)?;
            let vectors = litnav_embed::embed_cached(encoder, &labels, &workspace.settings().vector_cache("labels"));
            let index: std::collections::HashMap<&str, usize> =
                labels.iter().enumerate().map(|(i, l)| (l.as_str(), i)).collect();
            // Every pair's cosine once: the edit distance asks for the same pairs many times.
            let n = labels.len();
            let mut cosines = vec![0.0f64; n * n];
            for i in 0..n {
                for j in i..n {
                    let c = f64::from(litnav_core::vector::cosine(&vectors[i], &vectors[j]));
                    cosines[i * n + j] = c;
                    cosines[j * n + i] = c;
                }
            }
            let cosine = |a: &str, b: &str| match (index.get(a), index.get(b)) {
                (Some(&i), Some(&j)) => cosines[i * n + j],
                _ => 0.0,
            };
            let sts = bloom::outline_similarity(&e, &g, &cosine);
            MetricScore { score: Some(sts.score), ..MetricScore::new(metric) }.with_evidence(json!(sts))
        }
        other => unreachable!("{} is not deterministic", other.key()),
    })
}

/// HIRC of the generated bibliography against the expert's high-impact references.
fn hirc(expert: &Survey, generated: &Survey, compat: Compat) -> MetricScore {
    if expert.bibliography.iter().all(|r| r.citation_count.is_none()) {
        return MetricScore::not_run(
            Metric::Hirc,
            "the expert bibliography has no citation counts (a reference.json with citation_count, or a corpus to look them up)",
        );
    }
    let counts = generated.citation_counts();
    let titles: Vec<&str> = generated
        .bibliography
        .iter()
        .zip(&counts)
        .filter(|(_, cited)| compat == Compat::BloomEval || **cited > 0)
        .map(|(r, _)| r.title.as_str())
        .collect();
    let expert_refs: Vec<(&str, u64)> =
        expert.bibliography.iter().map(|r| (r.title.as_str(), r.citation_count.unwrap_or(0))).collect();
    let result = bloom::high_impact_reference_coverage(&titles, &expert_refs);
    let matched: Vec<serde_json::Value> = result
        .matches
        .iter()
        .map(
            |&(g, e, similarity)| json!({"generated": titles[g], "expert": expert_refs[e].0, "similarity": similarity}),
        )
        .collect();
    MetricScore::prf(Metric::Hirc, (result.precision, result.recall, result.f1), None).with_evidence(json!({
        "generated_references": result.generated,
        "expert_high_impact": result.high_impact,
        "generated_counted": if compat == Compat::BloomEval { "every listed reference" } else { "cited references" },
        "matches": matched,
    }))
}

/// A survey's outline as Bloom-Eval builds its tree.
fn outline_tree(survey: &Survey) -> litnav_eval::tree::Tree {
    let outline: Vec<(usize, &str)> = survey.outline.iter().map(|h| (h.level, h.text.as_str())).collect();
    bloom::outline_tree(&outline)
}

fn collect_labels(tree: &litnav_eval::tree::Tree, out: &mut Vec<String>) {
    out.push(tree.name.clone());
    tree.children.iter().for_each(|c| collect_labels(c, out));
}

/// A theme of a bibliography: a subtopic of litnav's map of its references.
#[derive(Debug, Clone)]
pub struct Theme {
    /// The subtopic's name.
    pub name: String,
    /// References in it.
    pub size: usize,
}

/// The themes of a survey's bibliography: its references with a title ("title. abstract") organized
/// by litnav's offline organizer (default method, no theme level, nothing filtered, seeded); each
/// subtopic is a theme. Fewer than five references have no themes (as Bloom-Eval's scripts).
pub fn themes(workspace: &Workspace, survey: &Survey, progress: &dyn Progress) -> Result<Vec<Theme>> {
    let refs: Vec<&litnav_survey::Reference> =
        survey.bibliography.iter().filter(|r| !r.title.trim().is_empty()).collect();
    if refs.len() < 5 {
        return Ok(Vec::new());
    }
    let encoder = workspace.encoder(progress)?;
    let texts: Vec<String> =
        refs.iter().map(|r| litnav_core::PaperText::new(&r.title, r.abstract_text.as_deref()).passage()).collect();
    let vectors = litnav_embed::embed_cached(encoder, &texts, &workspace.settings().vector_cache("papers"));
    let docs: Vec<Doc> = refs
        .iter()
        .zip(vectors)
        .enumerate()
        .map(|(i, (r, vector))| Doc {
            id: format!("{:06}", i),
            title: r.title.clone(),
            year: None,
            abstract_text: r.abstract_text.clone(),
            vector,
        })
        .collect();
    let topic_vector = encoder.embed(&[survey.title.as_str()]).pop().unwrap_or_default();
    let embed = |texts: &[String]| encoder.embed(texts);
    let options = Options { seed: workspace.settings().seed, themes: false, min_relevance: 0.0, ..Options::default() };
    let map = litnav_organize::organize(&survey.title, &topic_vector, &docs, &embed, options);
    let mut out = Vec::new();
    fn leaves(node: &MapNode, out: &mut Vec<Theme>) {
        if node.subtopics.is_empty() {
            if !node.paper_ids.is_empty() {
                out.push(Theme { name: node.name.clone(), size: node.paper_ids.len() });
            }
        } else {
            node.subtopics.iter().for_each(|c| leaves(c, out));
        }
    }
    map.subtopics.iter().for_each(|c| leaves(c, &mut out));
    Ok(out)
}

/// Readability similarity, exact 10-gram overlap and output tokens.
pub fn extras(expert: &Survey, generated: &Survey) -> super::Extras {
    let (expert_text, generated_text) = (expert.body_text(), generated.body_text());
    let (er, gr) = (bloom::readability(&expert_text), bloom::readability(&generated_text));
    super::Extras {
        readability_similarity: er.zip(gr).map(|(e, g)| bloom::readability_similarity(&e, &g)),
        expert_readability: er,
        generated_readability: gr,
        exact_10gram_overlap: bloom::ngram_overlap(&expert_text, &generated_text, 10),
        output_tokens: token_count(&generated.content),
    }
}

/// Words and punctuation marks (`\w+|[^\w\s]`), Bloom-Eval's token estimate without tiktoken.
pub fn token_count(text: &str) -> usize {
    let mut count = 0;
    let mut in_word = false;
    for c in text.chars() {
        let word = c.is_alphanumeric() || c == '_';
        if word {
            if !in_word {
                count += 1;
            }
        } else if !c.is_whitespace() {
            count += 1;
        }
        in_word = word;
    }
    count
}

#[cfg(test)]
mod tests {
    #[test]
    fn tokens_are_words_and_marks() {
        // ViT, works, [, 1, ], ",", well, "."
        assert_eq!(super::token_count("ViT works [1], well."), 8);
        assert_eq!(super::token_count(""), 0);
    }
}
