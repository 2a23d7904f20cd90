//! Known-item search: a query that names one paper — its id, DOI, OpenAlex or arXiv id, or its
//! title as a person types or pastes it — puts that paper first, then the rest of the ranking.
//!
//! A ranking tuned for a survey's recall (the expanded mode fuses dense and lexical neighbours)
//! does not put an exact title first; BM25 nearly always does. So a title is recognised from the
//! lexical side alone: the best [`CANDIDATES`] BM25 hits of the query among the titles alone (a
//! long abstract that repeats the words outranks the paper with those words as its title when
//! abstracts count) are compared with it by their titles' matching keys
//! ([`litnav_corpus::title_key`]): equal keys name the paper; else the closest title at a difflib
//! ratio of at least [`NEAR_TITLE`] does (a typo, a word left out or added). A query of fewer than
//! [`TITLE_WORDS`] words names no paper by its title: short topic queries ("vision transformers")
//! stay topic searches. The named paper comes first only if it
//! passes the search's filters (a year before, no surveys).

use crate::error::Result;
use crate::session::{CorpusSession, SearchRequest};
use litnav_corpus::normalize::{identifier, title_key};
use litnav_search::{Hit, Mode};

/// BM25 hits a title query is compared with.
pub const CANDIDATES: usize = 10;
/// The difflib ratio from which a title differing from the query still names its paper.
pub const NEAR_TITLE: f64 = 0.9;
/// The fewest words a query needs to name a paper by its title.
pub const TITLE_WORDS: usize = 3;

/// How a query named a paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KnownBy {
    /// Its corpus id.
    Id,
    /// An external identifier (`doi`, `openalex`, `arxiv`).
    Identifier(&'static str),
    /// Its title, up to case, accents and punctuation.
    Title,
    /// A title close to it (ratio ≥ [`NEAR_TITLE`]).
    NearTitle,
}

impl KnownBy {
    /// The name a hit carries (`Hit::known`).
    pub fn name(self) -> &'static str {
        match self {
            KnownBy::Id => "id",
            KnownBy::Identifier(kind) => kind,
            KnownBy::Title => "title",
            KnownBy::NearTitle => "near title",
        }
    }
}

impl CorpusSession {
    /// The position of the paper `query` names, and how it named it; `None` for a topic query.
    pub fn known_item(&self, query: &str) -> Result<Option<(usize, KnownBy)>> {
        let text = query.trim();
        if text.is_empty() {
            return Ok(None);
        }
        if let Some(position) = self.corpus().position(text)? {
            return Ok(Some((position, KnownBy::Id)));
        }
        if let Some((kind, _)) = identifier(text) {
            return Ok(self
                .corpus()
                .position_of_identifier(text)?
                .map(|position| (position, KnownBy::Identifier(kind))));
        }
        let key = title_key(text);
        if key.split(' ').count() < TITLE_WORDS {
            return Ok(None);
        }
        let candidates =
            SearchRequest { k: CANDIDATES, mode: Mode::Bm25, abstract_boost: 0.0, ..SearchRequest::new(text) };
        let Ok(hits) = self.search_lexical(&candidates) else { return Ok(None) };
        let mut closest: Option<(f64, &Hit)> = None;
        for hit in &hits {
            let title = title_key(&hit.title);
            if title == key {
                return Ok(self.corpus().position(&hit.id)?.map(|position| (position, KnownBy::Title)));
            }
            let ratio = litnav_eval::difflib::ratio(&title, &key);
            if ratio >= NEAR_TITLE && closest.is_none_or(|(best, _)| ratio > best) {
                closest = Some((ratio, hit));
            }
        }
        match closest {
            Some((_, hit)) => Ok(self.corpus().position(&hit.id)?.map(|position| (position, KnownBy::NearTitle))),
            None => Ok(None),
        }
    }

    /// `hits` with the paper `request`'s words name first (moved up, or added when the ranking
    /// missed it), marked with how it was named, still at most `k`.
    pub(crate) fn known_first(&self, request: &SearchRequest, mut hits: Vec<Hit>) -> Result<Vec<Hit>> {
        let Some((position, by)) = self.known_item(&request.query)? else { return Ok(hits) };
        let paper = self.corpus().paper_at(position)?;
        if !request.filter.admits(paper.year, paper.is_survey) {
            return Ok(hits);
        }
        let mut known = match hits.iter().position(|hit| hit.id == paper.id) {
            Some(rank) => hits.remove(rank),
            None => Hit {
                id: paper.id.clone(),
                title: paper.title.clone(),
                year: paper.year,
                score: hits.first().map_or(0.0, |hit| hit.score),
                known: None,
            },
        };
        known.known = Some(by.name().to_string());
        hits.insert(0, known);
        hits.truncate(request.k.max(1));
        Ok(hits)
    }
}
