//! `litnav expand`: grow one subtopic of a map with new papers and organize it into its own map.

use super::embed::ModelArgs;
use super::map::CorpusDocs;
use anyhow::{Context, Result, anyhow};
use litnav_llm::navigator;
use litnav_llm::prompts::PaperText;
use litnav_organize::{MapNode, Options, label, organize, render};
use std::collections::HashSet;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The map (JSON written by `litnav map --out`).
    #[arg(long, value_name = "FILE")]
    map: PathBuf,
    /// Id of the subtopic or theme to expand (e.g. `t2.s1`).
    #[arg(long, value_name = "ID")]
    subtopic: String,
    /// Corpus to retrieve new papers from (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// Papers to retrieve for the expansion query.
    #[arg(long, short, default_value_t = 100)]
    k: usize,
    /// Write the sub-map as JSON.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Write the sub-map as a self-contained HTML page.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Seed of every stochastic step.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Move sub-map subtopics whose cosine to the subtopic is below this under a final
    /// "Filtered" node, as `litnav map` does when it retrieves (0 keeps all).
    #[arg(long, value_name = "COSINE", default_value_t = 0.35)]
    min_relevance: f64,
    #[command(flatten)]
    model: ModelArgs,
    /// With --llm, Knowledge Navigator's Subtopic Expander writes the query (terms from the
    /// subtopic's papers); the offline phrases are the fallback when its answer is unusable.
    #[command(flatten)]
    llm: super::llm::LlmArgs,
    /// Print the sub-map as JSON.
    #[arg(long)]
    json: bool,
}

/// Offline expansion: the query is the subtopic's name plus the phrases that distinguish its
/// papers from the rest of the map (c-TF-IDF, re-ranked with the encoder); hybrid retrieval adds
/// new papers; the subtopic's papers and the new ones are organized into a sub-map.
pub fn run(args: Args) -> Result<()> {
    let text = std::fs::read_to_string(&args.map).with_context(|| format!("cannot read {}", args.map.display()))?;
    let map: MapNode =
        serde_json::from_str(&text).with_context(|| format!("{} is not a litnav map", args.map.display()))?;
    let node = map.find(&args.subtopic).ok_or_else(|| anyhow!("the map has no node with id {:?}", args.subtopic))?;
    let dir = crate::defaults::corpus(args.corpus.as_deref())?;
    let encoder = args.model.load()?;
    let corpus = CorpusDocs::open(&dir, &encoder)?;
    let inside: Vec<String> = node.all_paper_ids();
    let inside_set: HashSet<&str> = inside.iter().map(String::as_str).collect();
    let outside: Vec<String> = map.all_paper_ids().into_iter().filter(|id| !inside_set.contains(id.as_str())).collect();
    let texts =
        |ids: &[String]| -> Vec<String> { ids.iter().filter_map(|id| corpus.paper(id)).map(|p| p.text()).collect() };
    let (inside_texts, outside_texts) = (texts(&inside), texts(&outside));
    if inside_texts.is_empty() {
        return Err(anyhow!("none of {}'s papers are in the corpus at {}", args.subtopic, dir.display()));
    }
    let classes: Vec<Vec<(usize, &str)>> = vec![
        inside_texts.iter().enumerate().map(|(i, t)| (i, t.as_str())).collect(),
        outside_texts.iter().enumerate().map(|(i, t)| (inside_texts.len() + i, t.as_str())).collect(),
    ];
    // The subtopic's papers with their cached vectors: they start the sub-map, and their centroid
    // ranks the key phrases.
    let inside_docs = corpus.for_ids(&inside);
    let centroid = mean_vector(&inside_docs.iter().map(|d| d.vector.clone()).collect::<Vec<_>>());
    let embed = |texts: &[String]| encoder.embed(texts);
    let phrases = label::key_phrases(&classes, &[centroid.clone(), centroid], &embed, 4, &map.name).swap_remove(0);
    let offline_query = query_of(&node.name, &phrases);
    let query = match args.llm.client()? {
        None => offline_query,
        Some(client) => {
            let papers: Vec<PaperText<'_>> = inside
                .iter()
                .filter_map(|id| corpus.paper(id))
                .take(args.llm.llm_papers.max(1))
                .map(|p| PaperText { title: &p.title, abstract_text: p.abstract_text.as_deref() })
                .collect();
            match navigator::expand_subtopic(&client, &map.name, &node.name, &node.description, &papers) {
                Ok(answer) => query_of(&node.name, &answer.value.terms),
                Err(e @ litnav_llm::Error::Invalid { .. }) => {
                    eprintln!("the Subtopic Expander's answer was unusable ({e}); using the offline query");
                    offline_query
                }
                Err(e) => return Err(e.into()),
            }
        }
    };
    eprintln!("expansion query: {query}");
    let retrieved: Vec<String> =
        corpus.search(&query, args.k)?.into_iter().filter(|id| !inside_set.contains(id.as_str())).collect();
    let mut docs = inside_docs;
    docs.extend(corpus.for_ids(&retrieved));
    let topic_vector = encoder.embed(&[node.name.as_str()]).pop().unwrap_or_default();
    let options = Options { seed: args.seed, min_relevance: args.min_relevance, ..Options::default() };
    let mut sub_map = organize(&node.name, &topic_vector, &docs, &embed, options);
    sub_map.description = format!(
        "{} papers: the {} of {} in the map plus {} retrieved for “{query}”",
        docs.len(),
        inside.len(),
        args.subtopic,
        docs.len().saturating_sub(inside.len())
    );
    if let Some(path) = &args.out {
        litnav_corpus::store::write_atomically(path, serde_json::to_string_pretty(&sub_map)?.as_bytes())?;
    }
    if let Some(path) = &args.html {
        litnav_corpus::store::write_atomically(path, render::html(&sub_map).as_bytes())?;
    }
    if args.json {
        return super::print_json(&sub_map);
    }
    super::map::print_outline(&sub_map);
    Ok(())
}

/// The expansion query: the subtopic's name, then each term that adds a word the query lacks
/// (a term repeating the name's words would only weigh them twice).
fn query_of(name: &str, terms: &[String]) -> String {
    let mut words: HashSet<String> = name.split_whitespace().map(str::to_lowercase).collect();
    let mut query = vec![name.trim().to_string()];
    for term in terms {
        let new_words: Vec<String> =
            term.split_whitespace().map(str::to_lowercase).filter(|w| !words.contains(w)).collect();
        if !new_words.is_empty() {
            query.push(term.trim().to_string());
            words.extend(new_words);
        }
    }
    query.join(" ")
}

fn mean_vector(vectors: &[Vec<f32>]) -> Vec<f32> {
    let dim = vectors.first().map_or(0, Vec::len);
    let mut mean = vec![0.0f32; dim];
    for v in vectors {
        for (m, x) in mean.iter_mut().zip(v) {
            *m += x;
        }
    }
    let norm = mean.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
    mean.iter_mut().for_each(|v| *v /= norm);
    mean
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_does_not_repeat_the_names_words() {
        let terms: Vec<String> =
            ["Incremental Learning", "Classes", "Incremental", "Catastrophic Forgetting", "forgetting"]
                .map(String::from)
                .to_vec();
        assert_eq!(query_of("Incremental Learning", &terms), "Incremental Learning Classes Catastrophic Forgetting");
        assert_eq!(query_of("Replay", &[]), "Replay");
    }
}
