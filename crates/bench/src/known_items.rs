//! Known-item search measured (`litnav bench search --known-items N`): titles of papers sampled
//! from the built-in corpus (litbench) and from AAN, searched as a person types them — exactly,
//! with a typo, with a word left out — by the default search. A query succeeds when its paper
//! (or a record with the same title key: a duplicate) comes first. Each query is also ranked
//! without the known-item step, so the report shows what recognising the paper adds.

use crate::Result;
use litnav_app::{CorpusSession, IngestRequest, Quiet, SearchRequest, Workspace};
use litnav_corpus::title_key;
use serde::Serialize;
use std::path::PathBuf;

/// Hits per query (only the first is judged).
const K: usize = 10;

/// How a person's query differs from the title.
#[derive(Debug, Clone, Copy)]
enum Variant {
    Exact,
    Typo,
    MissingWord,
}

impl Variant {
    const ALL: [Variant; 3] = [Variant::Exact, Variant::Typo, Variant::MissingWord];

    fn name(self) -> &'static str {
        match self {
            Variant::Exact => "exact title",
            Variant::Typo => "a typo",
            Variant::MissingWord => "a word left out",
        }
    }

    /// The query for `title`; `None` when the title is too short to change this way.
    fn query(self, title: &str) -> Option<String> {
        let words: Vec<&str> = title.split_whitespace().collect();
        let longest = (0..words.len()).max_by_key(|&i| (words[i].chars().count(), usize::MAX - i))?;
        match self {
            Variant::Exact => Some(title.to_string()),
            // Two neighbouring letters of the longest word swapped (the first differing pair after
            // its first letter), as fast typing does.
            Variant::Typo => {
                let mut letters: Vec<char> = words[longest].chars().collect();
                if letters.len() < 5 {
                    return None;
                }
                let at = (1..letters.len() - 1).find(|&i| letters[i] != letters[i + 1])?;
                letters.swap(at, at + 1);
                let typed: String = letters.into_iter().collect();
                Some(
                    words
                        .iter()
                        .enumerate()
                        .map(|(i, w)| if i == longest { typed.as_str() } else { w })
                        .collect::<Vec<_>>()
                        .join(" "),
                )
            }
            // A short word after the first left out ("Attention is all need").
            Variant::MissingWord => {
                if words.len() < 5 {
                    return None;
                }
                let shortest = (1..words.len()).min_by_key(|&i| (words[i].chars().count(), i))?;
                Some(
                    words
                        .iter()
                        .enumerate()
                        .filter(|&(i, _)| i != shortest)
                        .map(|(_, w)| *w)
                        .collect::<Vec<_>>()
                        .join(" "),
                )
            }
        }
    }
}

/// One variant's numbers on one corpus.
#[derive(Debug, Clone, Serialize)]
pub struct VariantRow {
    /// The variant.
    pub variant: &'static str,
    /// Queries asked (titles too short for the variant are skipped).
    pub queries: usize,
    /// Share with the paper first in the default search.
    pub first: f64,
    /// Share with the paper first in the ranking alone (without the known-item step).
    pub first_without: f64,
    /// Share the known-item step recognised (named some paper, right or wrong).
    pub recognised: f64,
}

/// One corpus's rows.
#[derive(Debug, Clone, Serialize)]
pub struct CorpusRow {
    /// The corpus.
    pub corpus: String,
    /// Its papers.
    pub papers: usize,
    /// Per variant.
    pub variants: Vec<VariantRow>,
}

/// The report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Titles sampled per corpus.
    pub sample: usize,
    /// Per corpus.
    pub corpora: Vec<CorpusRow>,
}

/// Measure on the built-in corpus and on AAN (built under litnav's home on the first run), with
/// `sample` titles from each.
pub fn run(workspace: &Workspace, sample: usize, progress: &dyn litnav_app::Progress) -> Result<Report> {
    let datasets = workspace.settings().datasets()?.to_path_buf();
    let aan = datasets.join("citations/aan");
    let request =
        IngestRequest { files: vec![aan.join("papers.jsonl"), aan.join("citations.csv")], ..IngestRequest::default() };
    let corpora: Vec<(String, PathBuf)> = vec![
        ("litbench".into(), workspace.corpus_dir(None, progress)?),
        ("aan".into(), workspace.dataset_corpus("aan", &request, progress)?),
    ];
    let mut rows = Vec::new();
    for (name, dir) in corpora {
        progress.stage(&format!("known-item queries on {name}"));
        let session = CorpusSession::open(&dir)?;
        rows.push(measure(workspace, &session, &name, sample)?);
    }
    Ok(Report { sample, corpora: rows })
}

fn measure(workspace: &Workspace, session: &CorpusSession, name: &str, sample: usize) -> Result<CorpusRow> {
    let ids: Vec<String> = session.papers()?.iter().map(|p| p.id.clone()).collect();
    let sampled: Vec<String> = crate::seeded_order(ids, workspace.settings().seed).into_iter().take(sample).collect();
    let mut variants = Vec::new();
    for variant in Variant::ALL {
        let (mut queries, mut first, mut first_without, mut recognised) = (0, 0, 0, 0);
        for id in &sampled {
            let paper = session.require(id)?;
            let Some(query) = variant.query(&paper.title) else { continue };
            let request = SearchRequest { k: K, ..SearchRequest::new(query) };
            let is_it = |hits: &[litnav_search::Hit]| {
                hits.first().is_some_and(|hit| hit.id == paper.id || title_key(&hit.title) == title_key(&paper.title))
            };
            let answered = session.answer(&request, workspace, &Quiet)?;
            let ranked = session.search(&request, workspace.encoder(&Quiet)?, &Quiet)?;
            queries += 1;
            first += usize::from(is_it(&answered));
            first_without += usize::from(is_it(&ranked));
            recognised += usize::from(answered.first().is_some_and(|hit| hit.known.is_some()));
        }
        let share = |count: usize| if queries == 0 { 0.0 } else { count as f64 / queries as f64 };
        variants.push(VariantRow {
            variant: variant.name(),
            queries,
            first: share(first),
            first_without: share(first_without),
            recognised: share(recognised),
        });
    }
    Ok(CorpusRow { corpus: name.to_string(), papers: session.len(), variants })
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "known-item search: {} titles sampled per corpus, the default search, first hit judged",
            self.sample
        )?;
        writeln!(
            f,
            "{:<10} {:<17} {:>7} {:>8} {:>15} {:>11}",
            "corpus", "query", "queries", "first", "ranking alone", "recognised"
        )?;
        for corpus in &self.corpora {
            for row in &corpus.variants {
                writeln!(
                    f,
                    "{:<10} {:<17} {:>7} {:>8.3} {:>15.3} {:>11.3}",
                    corpus.corpus, row.variant, row.queries, row.first, row.first_without, row.recognised
                )?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_change_titles_as_people_mistype_them() {
        let title = "Attention is all you need";
        assert_eq!(Variant::Exact.query(title).as_deref(), Some(title));
        assert_eq!(Variant::Typo.query(title).as_deref(), Some("Atetntion is all you need"));
        assert_eq!(Variant::MissingWord.query(title).as_deref(), Some("Attention all you need"));
        assert_eq!(Variant::MissingWord.query("Deep residual learning").as_deref(), None, "too short");
        assert_eq!(Variant::Typo.query("A b c").as_deref(), None, "no word long enough");
    }
}
