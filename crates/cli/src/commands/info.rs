//! `litnav info`.

use anyhow::Result;
use litnav_corpus::Corpus;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Corpus directory (default: the built-in litbench corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// Share of papers that have a field.
#[derive(Debug, Serialize)]
struct Coverage {
    field: &'static str,
    papers: usize,
    percent: f64,
}

#[derive(Debug, Serialize)]
struct TopicSummary {
    id: String,
    title: String,
    year: Option<i32>,
    references: usize,
    unresolved: usize,
    has_taxonomy: bool,
    has_outline: bool,
}

#[derive(Debug, Serialize)]
struct Report {
    corpus: PathBuf,
    format_version: u32,
    generation: u64,
    written_by: String,
    artifacts: Vec<String>,
    papers: usize,
    surveys: usize,
    topics: usize,
    edges: usize,
    external_references: usize,
    year_min: Option<i32>,
    year_max: Option<i32>,
    coverage: Vec<Coverage>,
    topic_list: Vec<TopicSummary>,
}

pub fn run(args: Args) -> Result<()> {
    let dir = crate::defaults::corpus(args.corpus.as_deref())?;
    let corpus = Corpus::open(&dir)?;
    let report = report(&corpus);
    if args.json {
        return super::print_json(&report);
    }
    print_human(&report);
    Ok(())
}

fn report(corpus: &Corpus) -> Report {
    let papers = corpus.papers();
    let n = papers.len();
    let count = |has: &dyn Fn(&litnav_corpus::Paper) -> bool| papers.iter().filter(|p| has(p)).count();
    let coverage_of = |field: &'static str, has: &dyn Fn(&litnav_corpus::Paper) -> bool| {
        let with = count(has);
        Coverage { field, papers: with, percent: if n == 0 { 0.0 } else { 100.0 * with as f64 / n as f64 } }
    };
    let coverage = vec![
        coverage_of("abstract", &|p| p.abstract_text.is_some()),
        coverage_of("year", &|p| p.year.is_some()),
        coverage_of("venue", &|p| p.venue.is_some()),
        coverage_of("authors", &|p| !p.authors.is_empty()),
        coverage_of("citation_count", &|p| p.citation_count.is_some()),
        coverage_of("doi", &|p| p.ids.contains_key("doi")),
        coverage_of("arxiv", &|p| p.ids.contains_key("arxiv")),
        coverage_of("openalex", &|p| p.ids.contains_key("openalex")),
        coverage_of("references (in corpus)", &|p| !p.references.is_empty()),
        coverage_of("cited in corpus", &{
            let cited: std::collections::HashSet<&str> =
                papers.iter().flat_map(|p| p.references.iter().map(String::as_str)).collect();
            move |p: &litnav_corpus::Paper| cited.contains(p.id.as_str())
        }),
    ];
    let manifest = corpus.manifest();
    Report {
        corpus: corpus.dir().to_path_buf(),
        format_version: manifest.version,
        generation: manifest.generation,
        written_by: manifest.written_by.clone(),
        artifacts: manifest.artifacts.clone(),
        papers: n,
        surveys: count(&|p| p.is_survey),
        topics: corpus.topics().len(),
        edges: papers.iter().map(|p| p.references.len()).sum(),
        external_references: papers.iter().map(|p| p.external_references.len()).sum(),
        year_min: papers.iter().filter_map(|p| p.year).min(),
        year_max: papers.iter().filter_map(|p| p.year).max(),
        coverage,
        topic_list: corpus
            .topics()
            .iter()
            .map(|t| TopicSummary {
                id: t.id.clone(),
                title: t.title.clone(),
                year: t.year,
                references: t.reference_ids.len(),
                unresolved: t.unresolved_references.len(),
                has_taxonomy: t.taxonomy.is_some(),
                has_outline: t.outline.is_some(),
            })
            .collect(),
    }
}

fn print_human(r: &Report) {
    println!(
        "corpus {} (format v{}, generation {}, {})",
        r.corpus.display(),
        r.format_version,
        r.generation,
        r.written_by
    );
    println!("  papers     {:>9}   surveys {}", r.papers, r.surveys);
    println!("  topics     {:>9}", r.topics);
    println!("  edges      {:>9}   in-corpus citations", r.edges);
    println!("  external   {:>9}   references to works outside the corpus", r.external_references);
    if let (Some(min), Some(max)) = (r.year_min, r.year_max) {
        println!("  years      {min}–{max}");
    }
    println!("  artifacts  {}", if r.artifacts.is_empty() { "none".to_string() } else { r.artifacts.join(", ") });
    println!("field coverage:");
    for c in &r.coverage {
        println!("  {:<24} {:>9}  {:>5.1}%", c.field, c.papers, c.percent);
    }
    if !r.topic_list.is_empty() {
        println!("topics:");
        for t in &r.topic_list {
            let year = t.year.map_or_else(|| "    ".to_string(), |y| y.to_string());
            let unresolved = if t.unresolved > 0 { format!(" ({} unresolved)", t.unresolved) } else { String::new() };
            println!("  {:<14} {year}  {:>4} refs{unresolved}  {}", t.id, t.references, truncate(&t.title, 70));
        }
    }
}

fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let cut: String = text.chars().take(width - 1).collect();
    format!("{cut}…")
}
