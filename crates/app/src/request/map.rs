//! A map to build and a subtopic to expand, as either face receives them.

use super::names::{InputName, MethodName};
use super::{Defaults, FetchParams};
use crate::maps::{
    self, BottomUpSettings, DEFAULT_EXPANSION_PAPERS, DEFAULT_LLM_PAPERS, DEFAULT_MAP_PAPERS,
    EXPANSION_RELEVANCE_FLOOR, ExpandRequest, MAP_FLOOR, MapPapers, MapRequest, PaperSource,
};
use crate::{Error, Result};
use litnav_organize::Options;
use litnav_search::{Filter, ScoreFloor};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The most papers a map or an expansion retrieves.
pub const MAX_MAP_PAPERS: usize = 2000;

/// A map with every option optional: `litnav map`'s flags and `POST /api/maps`'s body are this
/// one type. [`MapParams::filled`] decides its defaults; [`MapParams::resolve`] validates and
/// gives the library's request. The seed's default is the settings' (so it is not filled here).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(deny_unknown_fields)]
pub struct MapParams {
    /// The topic, in plain words (also the map's title).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(long, short, required = true))]
    pub topic: Option<String>,
    /// How many papers to retrieve for the topic at most (the expanded search).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, short))]
    pub k: Option<usize>,
    /// Keep the retrieved papers whose neighbourhood relevance (their search scores smoothed over
    /// their 8 nearest hits) is at least this share of the best; 0 keeps all k.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "SHARE"))]
    pub min_score: Option<f64>,
    /// Papers a map keeps whatever their relevance (the best ones).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "PAPERS"))]
    pub min_papers: Option<usize>,
    /// Only papers published strictly before this year (papers of unknown year are excluded):
    /// ResearchArena's leakage filter, for a survey of that year.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "YEAR"))]
    pub before: Option<i32>,
    /// Leave out surveys and reviews.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL"))]
    pub exclude_surveys: Option<bool>,
    /// The work types a map keeps, by their source's names (OpenAlex's `article`, `preprint`,
    /// `paratext`, …); papers whose source gives no type are always kept. Default: every type
    /// but paratext (front matter, indexes), errata and retraction notices.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_delimiter = ',', value_name = "TYPES"))]
    pub include: Option<Vec<String>>,
    /// Subtopic clustering, or the LLM Bottom-Up organizer.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    pub method: Option<MethodName>,
    /// With method llm: what the model is shown of each paper besides the title and the start
    /// of its abstract (TaxoBench's input settings).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    pub input: Option<InputName>,
    /// With method llm: most papers in one request (a larger set is cut into batches of
    /// neighbouring papers whose categories are then grouped).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "PAPERS"))]
    pub llm_batch: Option<usize>,
    /// Organize subtopics with more papers than this again, into deeper levels (up to three).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "PAPERS"))]
    pub recurse_above: Option<usize>,
    /// Move subtopics whose cosine to the topic is below this under a final "Filtered" node
    /// (default 0 — keep all — with a paper file or a score floor; 0.35 with min_score 0).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "COSINE"))]
    pub min_relevance: Option<f64>,
    /// Seed of every stochastic step (default: the settings' seed).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long))]
    pub seed: Option<u64>,
    /// Name and group the subtopics with the LLM (Knowledge Navigator's Cluster Reader and
    /// Thematic Organizer). The CLI takes it as `--llm` among its LLM flags.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(skip))]
    pub llm: Option<bool>,
    /// Papers the LLM stage shows the model per subtopic (the most central first).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(skip))]
    pub llm_papers: Option<usize>,
    /// Fetch the topic's field from a scholarly source into the corpus first. The CLI takes it as
    /// `--fetch openalex` and the fetch flags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(skip))]
    pub fetch: Option<FetchParams>,
}

impl MapParams {
    /// A map of `topic` with every other option at its default.
    pub fn new(topic: impl Into<String>) -> MapParams {
        MapParams { topic: Some(topic.into()), ..MapParams::default() }
    }

    /// These options with every one not given at its default (the seed and the relevance floor
    /// stay unset: the settings decide the one, the paper source the other).
    pub fn filled(&self) -> MapParams {
        let bottom_up = BottomUpSettings::default();
        MapParams {
            topic: self.topic.as_ref().map(|t| t.trim().to_string()),
            k: self.k.or(Some(DEFAULT_MAP_PAPERS)),
            min_score: self.min_score.or(Some(decimal(MAP_FLOOR.share))),
            min_papers: self.min_papers.or(Some(MAP_FLOOR.at_least)),
            before: self.before,
            exclude_surveys: self.exclude_surveys.or(Some(false)),
            include: self.include.clone(),
            method: Some(self.method.unwrap_or_default()),
            input: Some(self.input.unwrap_or_default()),
            llm_batch: self.llm_batch.or(Some(bottom_up.batch)),
            recurse_above: self.recurse_above,
            min_relevance: self.min_relevance,
            seed: self.seed,
            llm: self.llm.or(Some(false)),
            llm_papers: self.llm_papers.or(Some(DEFAULT_LLM_PAPERS)),
            fetch: self.fetch.clone(),
        }
    }

    /// The topic, trimmed, or an input error.
    pub fn topic(&self) -> Result<String> {
        let topic = self.topic.as_deref().unwrap_or_default().trim();
        if topic.is_empty() {
            return Err(Error::input("topic: give the map's topic in plain words"));
        }
        Ok(topic.to_string())
    }

    /// Whether the map needs an LLM: the LLM organizer, or the LLM stage asked for.
    pub fn needs_llm(&self) -> bool {
        self.method == Some(MethodName::Llm) || self.llm == Some(true)
    }

    /// The library's request for a map of papers retrieved from a corpus, or an input error
    /// naming the option that is out of range.
    pub fn resolve(&self, default_seed: u64) -> Result<MapRequest> {
        let filled = self.filled();
        let k = filled.k.unwrap_or_default();
        if !(2..=MAX_MAP_PAPERS).contains(&k) {
            return Err(Error::input(format!("k: must be between 2 and {MAX_MAP_PAPERS} papers, not {k}")));
        }
        let share = filled.min_score.unwrap_or_default() as f32;
        let share = maps::floor_share(share).map_err(|e| named("min_score", e))?;
        let source = PaperSource::Retrieve(MapPapers {
            k,
            filter: Filter { before: filled.before, exclude_surveys: filled.exclude_surveys.unwrap_or(false) },
            floor: ScoreFloor { share, at_least: filled.min_papers.unwrap_or_default(), ..MAP_FLOOR },
            include: include_types(filled.include.clone())?,
        });
        self.request(&filled, default_seed, source)
    }

    /// The library's request for a map of the papers of a file (any format litnav ingests, or
    /// one topic or TaxoBench `instance` of it), organized whole: retrieval's options are refused.
    pub fn resolve_file(&self, default_seed: u64, path: PathBuf, instance: Option<String>) -> Result<MapRequest> {
        if self.before.is_some() || self.exclude_surveys == Some(true) || self.include.is_some() {
            return Err(Error::input(
                "before, exclude_surveys and include filter retrieval from a corpus; a paper file is organized whole",
            ));
        }
        self.request(&self.filled(), default_seed, PaperSource::File { path, instance })
    }

    /// The request of these options (`filled`: them filled) for papers from `source`. The LLM
    /// organizer's options are refused with another method when they were given, not filled.
    fn request(&self, filled: &MapParams, default_seed: u64, source: PaperSource) -> Result<MapRequest> {
        let method = filled.method.unwrap_or_default();
        let bottom_up = match method {
            MethodName::Llm => Some(bottom_up(filled)?),
            _ if self.input.is_some_and(|input| input != InputName::TitleAbstract) || self.llm_batch.is_some() => {
                return Err(Error::input("input and llm_batch set the LLM Bottom-Up organizer: they need method llm"));
            }
            _ => None,
        };
        let min_relevance =
            filled.min_relevance.map(maps::relevance_floor).transpose().map_err(|e| named("min_relevance", e))?;
        Ok(MapRequest {
            topic: self.topic()?,
            source,
            options: Options {
                seed: filled.seed.unwrap_or(default_seed),
                method: method.method(),
                recurse_above: filled.recurse_above,
                ..Options::default()
            },
            min_relevance,
            llm_papers: papers_shown(filled.llm_papers)?,
            bottom_up,
        })
    }
}

/// The LLM organizer's settings of `filled` options.
fn bottom_up(filled: &MapParams) -> Result<BottomUpSettings> {
    let batch = filled.llm_batch.unwrap_or_default();
    if batch < 2 {
        return Err(Error::input(format!("llm_batch: must be at least 2 papers, not {batch}")));
    }
    let input = filled.input.unwrap_or_default().input();
    Ok(BottomUpSettings { batch, input, ..BottomUpSettings::default() })
}

/// `value` as the decimal it was written as (0.32, not 0.3199999928474426), for the documents
/// that show defaults in JSON's doubles.
fn decimal(value: f32) -> f64 {
    value.to_string().parse().unwrap_or(f64::from(value))
}

/// `error`, an input error, with the option it concerns named first.
fn named(option: &str, error: Error) -> Error {
    Error::input(format!("{option}: {error}"))
}

/// Papers the LLM is shown per subtopic, checked.
fn papers_shown(papers: Option<usize>) -> Result<usize> {
    match papers.unwrap_or(DEFAULT_LLM_PAPERS) {
        0 => Err(Error::input("llm_papers: show the model at least one paper")),
        papers => Ok(papers),
    }
}

impl Defaults for MapParams {
    const REQUIRED: &'static [&'static str] = &["topic"];

    fn defaults() -> serde_json::Map<String, serde_json::Value> {
        let mut defaults = super::to_map(&MapParams::default().filled());
        defaults.remove("fetch");
        defaults
    }
}

impl MapParams {
    /// The id of the map these options make on the corpus at `corpus` (give the topic filled
    /// in): what the server's permalinks and the MCP tools name it by, so that the same request
    /// through either is the same map.
    pub fn map_id(&self, corpus: &std::path::Path) -> Result<String> {
        let canonical = serde_json::to_string(self).map_err(|e| Error::internal(e.to_string()))?;
        Ok(super::digest(&[&corpus.display().to_string(), "map", &canonical]))
    }
}

impl ExpandParams {
    /// The id of the expansion of `node` of the map `parent` with these options (as
    /// [`MapParams::map_id`]).
    pub fn expansion_id(&self, parent: &str, node: &str) -> Result<String> {
        let canonical = serde_json::to_string(self).map_err(|e| Error::internal(e.to_string()))?;
        Ok(super::digest(&[parent, "expand", node, &canonical]))
    }
}

/// A subtopic of a map built earlier, expanded (the MCP tool `expand`): the map by its id, the
/// node, and the expansion's options. (Unknown names are refused by the face: serde cannot refuse
/// them beside a flattened field.)
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExpandNodeParams {
    /// The map's id, as the map tool answered it.
    pub map: String,
    /// The id of the subtopic or theme to expand (`t2.s1`).
    pub node: String,
    /// How it is expanded.
    #[serde(flatten)]
    pub expansion: ExpandParams,
}

/// An expansion of one subtopic: `litnav expand`'s flags and `POST
/// /api/maps/{id}/nodes/{node}/expand`'s body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(deny_unknown_fields)]
pub struct ExpandParams {
    /// Papers to retrieve for the expansion query.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, short))]
    pub k: Option<usize>,
    /// Move sub-map subtopics whose cosine to the subtopic's name is below this under a final
    /// "Filtered" node.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "COSINE"))]
    pub min_relevance: Option<f64>,
    /// Seed of every stochastic step (default: the settings' seed).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long))]
    pub seed: Option<u64>,
    /// Let the LLM write the expansion query (Knowledge Navigator's Subtopic Expander) and name
    /// and group the sub-map. The CLI takes it as `--llm` among its LLM flags.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(skip))]
    pub llm: Option<bool>,
    /// Papers the LLM sees per subtopic.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(skip))]
    pub llm_papers: Option<usize>,
}

impl ExpandParams {
    /// These options with every one not given at its default (the seed stays unset).
    pub fn filled(&self) -> ExpandParams {
        ExpandParams {
            k: self.k.or(Some(DEFAULT_EXPANSION_PAPERS)),
            min_relevance: self.min_relevance.or(Some(EXPANSION_RELEVANCE_FLOOR)),
            seed: self.seed,
            llm: self.llm.or(Some(false)),
            llm_papers: self.llm_papers.or(Some(DEFAULT_LLM_PAPERS)),
        }
    }

    /// The library's request to expand `subtopic`, or an input error naming the option.
    pub fn resolve(&self, subtopic: &str, default_seed: u64) -> Result<ExpandRequest> {
        let filled = self.filled();
        let k = filled.k.unwrap_or_default();
        if !(1..=MAX_MAP_PAPERS).contains(&k) {
            return Err(Error::input(format!("k: must be between 1 and {MAX_MAP_PAPERS} papers, not {k}")));
        }
        let min_relevance =
            maps::relevance_floor(filled.min_relevance.unwrap_or_default()).map_err(|e| named("min_relevance", e))?;
        Ok(ExpandRequest {
            subtopic: subtopic.to_string(),
            k,
            options: Options { seed: filled.seed.unwrap_or(default_seed), min_relevance, ..Options::default() },
            llm_papers: papers_shown(filled.llm_papers)?,
        })
    }
}

impl Defaults for ExpandParams {
    const REQUIRED: &'static [&'static str] = &[];

    fn defaults() -> serde_json::Map<String, serde_json::Value> {
        super::to_map(&ExpandParams::default().filled())
    }
}

/// The kept work types as given (trimmed, lower case), or an input error for an empty list.
fn include_types(include: Option<Vec<String>>) -> Result<Option<Vec<String>>> {
    let Some(types) = include else { return Ok(None) };
    let types: Vec<String> = types.iter().map(|t| t.trim().to_ascii_lowercase()).filter(|t| !t.is_empty()).collect();
    if types.is_empty() {
        return Err(Error::input("include: name at least one work type to keep (article, preprint, paratext, …)"));
    }
    Ok(Some(types))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_of_a_topic_takes_the_shipped_defaults() {
        let request = MapParams::new("  graph neural networks ").resolve(42).unwrap();
        assert_eq!(request.topic, "graph neural networks");
        let source = MapPapers { k: 200, filter: Filter::default(), floor: MAP_FLOOR, include: None };
        assert_eq!(request.source, PaperSource::Retrieve(source));
        assert_eq!((request.options.seed, request.llm_papers, request.min_relevance), (42, 12, None));
        assert!(request.bottom_up.is_none());
    }

    #[test]
    fn out_of_range_options_are_named() {
        let bad = |params: MapParams| params.resolve(1).unwrap_err().to_string();
        assert!(bad(MapParams::default()).starts_with("topic:"));
        assert!(bad(MapParams { k: Some(1), ..MapParams::new("x") }).starts_with("k:"));
        assert!(bad(MapParams { min_score: Some(1.5), ..MapParams::new("x") }).starts_with("min_score:"));
        assert!(bad(MapParams { min_relevance: Some(-2.0), ..MapParams::new("x") }).starts_with("min_relevance:"));
        assert!(
            bad(MapParams { input: Some(InputName::Summary), ..MapParams::new("x") })
                .starts_with("input and llm_batch")
        );
        let llm = MapParams { method: Some(MethodName::Llm), llm_batch: Some(1), ..MapParams::new("x") };
        assert!(bad(llm).starts_with("llm_batch:"));
        let file = MapParams { before: Some(2020), ..MapParams::new("x") };
        assert!(file.resolve_file(1, "p.jsonl".into(), None).is_err());
    }

    #[test]
    fn the_llm_organizer_takes_its_settings() {
        let params = MapParams {
            method: Some(MethodName::Llm),
            input: Some(InputName::CoreTask),
            llm_batch: Some(30),
            ..MapParams::new("x")
        };
        assert!(params.needs_llm());
        let settings = params.resolve(1).unwrap().bottom_up.unwrap();
        assert_eq!((settings.batch, settings.input), (30, litnav_llm::extract::Input::CoreTask));
    }

    #[test]
    fn an_expansion_defaults_to_a_hundred_papers_and_no_floor() {
        let request = ExpandParams::default().resolve("t1.s2", 7).unwrap();
        assert_eq!((request.k, request.options.seed, request.options.min_relevance), (100, 7, 0.0));
        assert!(ExpandParams { k: Some(0), ..ExpandParams::default() }.resolve("t1", 7).is_err());
    }
}
