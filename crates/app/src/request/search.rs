//! A search, as either face receives it.

use super::Defaults;
use super::names::{FusionName, ModeName, ScanName};
use crate::{Error, Result, SearchRequest};
use litnav_search::hybrid::{DEFAULT_ALPHA, DEFAULT_RRF_K, Fusion};
use litnav_search::{Expansion, Filter, Mode};
use serde::{Deserialize, Serialize};

/// The largest `k` a search answers.
pub const MAX_SEARCH_K: usize = 1000;

/// A search with every option optional: `litnav search`'s flags and `GET /api/search`'s query
/// parameters are this one type. [`SearchParams::filled`] is the one place its defaults are
/// decided; [`SearchParams::resolve`] validates and gives the library's request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(deny_unknown_fields)]
pub struct SearchParams {
    /// What to look for, in plain words (no query syntax); this or `like`.
    #[serde(rename = "q", default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(long = "query", short = 'q', required_unless_present = "like"))]
    pub query: Option<String>,
    /// Instead of words, a paper's id: the papers nearest its vector, itself left out (the mode is
    /// not used; the filters and k are).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(long, value_name = "ID", conflicts_with = "query"))]
    pub like: Option<String>,
    /// How many results.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, short))]
    pub k: Option<usize>,
    /// Retrieval mode.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    pub mode: Option<ModeName>,
    /// How the hybrid mode fuses.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    pub fusion: Option<FusionName>,
    /// The k of reciprocal rank fusion (hybrid mode).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long))]
    pub rrf_k: Option<f32>,
    /// Weight of BM25 in weighted fusion (hybrid mode).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long))]
    pub alpha: Option<f32>,
    /// Best hits the expanded mode searches again.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long))]
    pub seeds: Option<usize>,
    /// Weight of title matches (BM25).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long))]
    pub title_boost: Option<f32>,
    /// Weight of abstract matches (BM25).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long))]
    pub abstract_boost: Option<f32>,
    /// How the dense side scans the vectors (default: as the corpus was opened — auto).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    pub scan: Option<ScanName>,
    /// Only papers published strictly before this year (papers of unknown year are excluded):
    /// ResearchArena's leakage filter, for a survey of that year.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "YEAR"))]
    pub before: Option<i32>,
    /// Leave out surveys and reviews.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL"))]
    pub exclude_surveys: Option<bool>,
}

impl SearchParams {
    /// A search for `query` with every other option at its default.
    pub fn new(query: impl Into<String>) -> SearchParams {
        SearchParams { query: Some(query.into()), ..SearchParams::default() }
    }

    /// These options with every one not given at its default. The expanded search is the
    /// default of both faces: it finds 56% of an expert survey's references in its top 100 on the
    /// litbench surveys against 45% for hybrid (BENCHMARKS.md, discovery).
    /// Every default is the library's (`SearchRequest::new`, `Expansion::default`, `DEFAULT_RRF_K`,
    /// `DEFAULT_ALPHA`).
    pub fn filled(&self) -> SearchParams {
        let library = SearchRequest::new(String::new());
        SearchParams {
            query: self.query.clone(),
            like: self.like.clone(),
            k: self.k.or(Some(library.k)),
            mode: Some(self.mode.unwrap_or_default()),
            fusion: Some(self.fusion.unwrap_or_default()),
            rrf_k: self.rrf_k.or(Some(DEFAULT_RRF_K)),
            alpha: self.alpha.or(Some(DEFAULT_ALPHA)),
            seeds: self.seeds.or(Some(Expansion::default().seeds)),
            title_boost: self.title_boost.or(Some(library.title_boost)),
            abstract_boost: self.abstract_boost.or(Some(library.abstract_boost)),
            scan: self.scan,
            before: self.before.or(library.filter.before),
            exclude_surveys: self.exclude_surveys.or(Some(library.filter.exclude_surveys)),
        }
    }

    /// The library's request, or an input error naming the option that is out of range.
    pub fn resolve(&self) -> Result<SearchRequest> {
        let filled = self.filled();
        let query = filled.query.unwrap_or_default();
        let like = filled.like.map(|id| id.trim().to_string());
        match (&like, query.trim().is_empty()) {
            (None, true) => return Err(Error::input("q: give the words to search for (or like: a paper's id)")),
            (Some(_), false) => return Err(Error::input("q and like: give words or a paper's id, not both")),
            (Some(id), true) if id.is_empty() => return Err(Error::input("like: give a paper's id")),
            _ => {}
        }
        let k = filled.k.unwrap_or_default();
        if k == 0 || k > MAX_SEARCH_K {
            return Err(Error::input(format!("k: must be between 1 and {MAX_SEARCH_K}, not {k}")));
        }
        let number = |name: &str, value: Option<f32>| -> Result<f32> {
            let value = value.unwrap_or_default();
            if value.is_finite() && value >= 0.0 {
                Ok(value)
            } else {
                Err(Error::input(format!("{name}: must be a number of at least 0, not {value}")))
            }
        };
        let alpha = number("alpha", filled.alpha)?;
        if alpha > 1.0 {
            return Err(Error::input(format!("alpha: is a weight between 0 and 1, not {alpha}")));
        }
        let fusion = match filled.fusion.unwrap_or_default() {
            FusionName::Rrf => Fusion::Rrf(number("rrf_k", filled.rrf_k)?),
            FusionName::Weighted => Fusion::Weighted(alpha),
        };
        let seeds = filled.seeds.unwrap_or_default();
        let mode = match filled.mode.unwrap_or_default() {
            ModeName::Bm25 => Mode::Bm25,
            ModeName::Dense => Mode::Dense,
            ModeName::Hybrid => Mode::Hybrid(fusion),
            ModeName::Expanded => Mode::Expanded(Expansion { seeds, ..Expansion::default() }),
        };
        Ok(SearchRequest {
            query,
            k,
            mode,
            filter: Filter { before: filled.before, exclude_surveys: filled.exclude_surveys.unwrap_or(false) },
            title_boost: number("title_boost", filled.title_boost)?,
            abstract_boost: number("abstract_boost", filled.abstract_boost)?,
            scan: filled.scan.map(ScanName::scan),
            like,
        })
    }
}

impl Defaults for SearchParams {
    const REQUIRED: &'static [&'static str] = &[];
    const ONE_OF: &'static [&'static str] = &["q", "like"];

    fn defaults() -> serde_json::Map<String, serde_json::Value> {
        super::to_map(&SearchParams::default().filled())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_expanded_search_of_ten() {
        let request = SearchParams::new("graph neural networks").resolve().unwrap();
        assert_eq!(request.k, 10);
        assert!(matches!(request.mode, Mode::Expanded(e) if e == Expansion::default()));
        assert_eq!(request, SearchRequest::new("graph neural networks"));
    }

    #[test]
    fn out_of_range_options_are_named() {
        let bad = |params: SearchParams| params.resolve().unwrap_err().to_string();
        assert_eq!(bad(SearchParams::default()), "q: give the words to search for (or like: a paper's id)");
        let both = SearchParams { like: Some("p1".into()), ..SearchParams::new("x") };
        assert_eq!(bad(both), "q and like: give words or a paper's id, not both");
        let like = SearchParams { like: Some(" p1 ".into()), ..SearchParams::default() }.resolve().unwrap();
        assert_eq!(like, SearchRequest { like: Some("p1".into()), ..SearchRequest::new("") });
        assert_eq!(bad(SearchParams { k: Some(0), ..SearchParams::new("x") }), "k: must be between 1 and 1000, not 0");
        assert!(bad(SearchParams { alpha: Some(2.0), ..SearchParams::new("x") }).starts_with("alpha:"));
        assert!(bad(SearchParams { rrf_k: Some(f32::NAN), ..SearchParams::new("x") }).starts_with("rrf_k:"));
    }

    #[test]
    fn hybrid_takes_its_fusion() {
        let params = SearchParams {
            mode: Some(ModeName::Hybrid),
            fusion: Some(FusionName::Weighted),
            alpha: Some(0.3),
            ..SearchParams::new("x")
        };
        assert_eq!(params.resolve().unwrap().mode, Mode::Hybrid(Fusion::Weighted(0.3)));
    }
}
