//! How citation measures are computed, as the faces receive it: `litnav relations`' flags, the
//! Python package's keyword arguments.

use super::Defaults;
use super::names::{ReadingName, RelationName, UnitsName};
use crate::relations::{
    DEFAULT_MAX_HOPS, DEFAULT_RANKED, DEFAULT_SHORTEST_PATHS, DEFAULT_TOPIC_POOL, Measure, MetricOptions, RankRequest,
};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// Disruption's and novelty's options, every one optional; [`MetricParams::filled`] decides the
/// defaults (the seed's is the settings').
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(deny_unknown_fields)]
pub struct MetricParams {
    /// Count only citing papers published within this many years after the focal paper (CD_t).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "YEARS"))]
    pub window: Option<u32>,
    /// Which citing papers CD counts: `subsequent` (papers published after the focal one, as the
    /// index's authors' package computes it) or `all-time` (every citer whatever its year, and no
    /// value for a paper without references: litnav's reading before 2026-11).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long = "cd-reading", value_enum))]
    pub reading: Option<ReadingName>,
    /// What plays the role of Uzzi's journals in novelty.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    pub units: Option<UnitsName>,
    /// Randomized citation graphs drawn for novelty's null model.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long))]
    pub nulls: Option<usize>,
    /// Seed of the randomization (default: the settings' seed).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long))]
    pub seed: Option<u64>,
}

impl MetricParams {
    /// These options with every one not given at its default (the seed stays unset).
    pub fn filled(&self) -> MetricParams {
        let defaults = MetricOptions::default();
        MetricParams {
            window: self.window,
            reading: Some(self.reading.unwrap_or_default()),
            units: Some(self.units.unwrap_or_default()),
            nulls: self.nulls.or(Some(defaults.nulls)),
            seed: self.seed,
        }
    }

    /// The library's options, or an input error naming the option.
    pub fn resolve(&self, default_seed: u64) -> Result<MetricOptions> {
        let filled = self.filled();
        let nulls = filled.nulls.unwrap_or_default();
        if nulls == 0 {
            return Err(Error::input("nulls: draw at least one randomized graph"));
        }
        Ok(MetricOptions {
            window: filled.window,
            reading: filled.reading.unwrap_or_default().reading(),
            units: filled.units.unwrap_or_default().units(),
            nulls,
            seed: filled.seed.unwrap_or(default_seed),
        })
    }
}

impl Defaults for MetricParams {
    const REQUIRED: &'static [&'static str] = &[];

    fn defaults() -> serde_json::Map<String, serde_json::Value> {
        super::to_map(&MetricParams::default().filled())
    }
}

/// What a ranking of papers by a measure lists, every option optional; the measure itself is
/// the CLI's subcommand and the API's path.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct RankParams {
    /// Rank only this topic's papers: a stored topic's id or title (its expert survey's
    /// references), otherwise free text whose best BM25 matches (see pool) are ranked.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long))]
    pub topic: Option<String>,
    /// How many BM25 matches a free-text topic takes.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long))]
    pub pool: Option<usize>,
    /// How many papers to list.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, short))]
    pub k: Option<usize>,
    /// Rank by SciNet's printed form (n_i − n_j)/(n_i + n_j) instead of the CD index.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL"))]
    pub scinet_form: Option<bool>,
    /// How the measures are computed.
    #[serde(flatten)]
    #[cfg_attr(feature = "clap", command(flatten))]
    pub metric: MetricParams,
}

impl RankParams {
    /// These options with every one not given at its default (the topic and seed stay unset).
    pub fn filled(&self) -> RankParams {
        RankParams {
            topic: self.topic.clone(),
            pool: self.pool.or(Some(DEFAULT_TOPIC_POOL)),
            k: self.k.or(Some(DEFAULT_RANKED)),
            scinet_form: self.scinet_form.or(Some(false)),
            metric: self.metric.filled(),
        }
    }

    /// The library's request for `measure`, or an input error naming the option.
    pub fn resolve(&self, measure: Measure, default_seed: u64) -> Result<RankRequest> {
        let filled = self.filled();
        if filled.k == Some(0) {
            return Err(Error::input("k: list at least one paper"));
        }
        Ok(RankRequest {
            measure,
            topic: filled.topic.filter(|t| !t.trim().is_empty()),
            pool: filled.pool.unwrap_or(DEFAULT_TOPIC_POOL),
            k: filled.k.unwrap_or(DEFAULT_RANKED),
            scinet_form: filled.scinet_form == Some(true),
            metric: self.metric.resolve(default_seed)?,
        })
    }
}

impl Defaults for RankParams {
    const REQUIRED: &'static [&'static str] = &[];

    fn defaults() -> serde_json::Map<String, serde_json::Value> {
        super::to_map(&RankParams::default().filled())
    }
}

/// The longest citation path a request may ask for: the search grows with every hop.
pub const MAX_HOPS_ALLOWED: usize = 10;

/// The citation paths between two papers, every option optional.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(deny_unknown_fields)]
pub struct PathParams {
    /// The citing end (the path goes from it, through what it cites, to the cited end).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(required = true, value_name = "FROM"))]
    pub from: Option<String>,
    /// The cited end.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(required = true, value_name = "TO"))]
    pub to: Option<String>,
    /// Longest path considered, in hops (at most 10).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long))]
    pub max_hops: Option<usize>,
    /// At most this many shortest paths are listed.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long))]
    pub shortest_limit: Option<usize>,
}

/// A path request resolved: both ends, the hops and the shortest paths listed.
#[derive(Debug, Clone, PartialEq)]
pub struct PathRequest {
    /// The citing end.
    pub from: String,
    /// The cited end.
    pub to: String,
    /// Longest path considered, in hops.
    pub max_hops: usize,
    /// Shortest paths listed at most.
    pub shortest_limit: usize,
}

impl PathRequest {
    /// The paths from `from` to `to` with the library's defaults ([`DEFAULT_MAX_HOPS`],
    /// [`DEFAULT_SHORTEST_PATHS`]).
    pub fn new(from: impl Into<String>, to: impl Into<String>) -> PathRequest {
        PathRequest {
            from: from.into(),
            to: to.into(),
            max_hops: DEFAULT_MAX_HOPS,
            shortest_limit: DEFAULT_SHORTEST_PATHS,
        }
    }
}

impl PathParams {
    /// These options with every one not given at its default (the ends stay as given).
    pub fn filled(&self) -> PathParams {
        PathParams {
            from: self.from.clone(),
            to: self.to.clone(),
            max_hops: self.max_hops.or(Some(DEFAULT_MAX_HOPS)),
            shortest_limit: self.shortest_limit.or(Some(DEFAULT_SHORTEST_PATHS)),
        }
    }

    /// The path request, or an input error naming the option.
    pub fn resolve(&self) -> Result<PathRequest> {
        let filled = self.filled();
        let end = |value: Option<String>| value.filter(|s| !s.trim().is_empty());
        let (Some(from), Some(to)) = (end(filled.from), end(filled.to)) else {
            return Err(Error::input("give both ends of the path: from (the citing paper) and to (the cited one)"));
        };
        let max_hops = filled.max_hops.unwrap_or(DEFAULT_MAX_HOPS);
        if max_hops == 0 || max_hops > MAX_HOPS_ALLOWED {
            return Err(Error::input(format!("max_hops: between 1 and {MAX_HOPS_ALLOWED}, not {max_hops}")));
        }
        Ok(PathRequest { from, to, max_hops, shortest_limit: filled.shortest_limit.unwrap_or(DEFAULT_SHORTEST_PATHS) })
    }
}

impl Defaults for PathParams {
    const REQUIRED: &'static [&'static str] = &["from", "to"];

    fn defaults() -> serde_json::Map<String, serde_json::Value> {
        let mut defaults = super::to_map(&PathParams::default().filled());
        defaults.retain(|name, _| !Self::REQUIRED.contains(&name.as_str()));
        defaults
    }
}

/// One paper and its citation profile, as an agent asks for it (the MCP tool `paper`).
/// (Unknown names are refused by the face: serde cannot refuse them beside a flattened field.)
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PaperParams {
    /// The paper's corpus id (search results give it).
    pub id: String,
    /// How disruption and novelty are computed.
    #[serde(flatten)]
    pub metric: MetricParams,
}

/// The papers a paper cites and the papers citing it, with the sentences that cite it where the
/// corpus holds them (the MCP tool `citations`; the server's paper answer lists the same).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CitationsParams {
    /// The paper's corpus id.
    pub id: String,
    /// At most this many citers are listed (the answer counts them all).
    #[serde(default)]
    pub citers: Option<usize>,
}

/// The most citers a paper's answer lists, unless asked for fewer.
pub const DEFAULT_CITERS_SHOWN: usize = 200;

impl CitationsParams {
    /// How many citers to list, or an input error.
    pub fn citers_shown(&self) -> Result<usize> {
        match self.citers.unwrap_or(DEFAULT_CITERS_SHOWN) {
            0 => Err(Error::input("citers: list at least one citer")),
            shown => Ok(shown),
        }
    }
}

/// Papers related to one paper (the MCP tool `related`): through citations (co-cited,
/// coupled), mentions in one paragraph (co-mentioned) or their vectors (similar, as `litnav
/// search --like`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RelatedParams {
    /// The paper's corpus id.
    pub id: String,
    /// How the papers relate to it.
    pub relation: RelationName,
    /// How many papers to list.
    #[serde(default)]
    pub k: Option<usize>,
}

impl RelatedParams {
    /// How many papers to list, or an input error naming `k`.
    pub fn k(&self) -> Result<usize> {
        match self.k.unwrap_or(crate::relations::DEFAULT_NEIGHBOURS) {
            k if k == 0 || k > super::search::MAX_SEARCH_K => {
                Err(Error::input(format!("k: must be between 1 and {}, not {k}", super::search::MAX_SEARCH_K)))
            }
            k => Ok(k),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_libraries() {
        let options = MetricParams::default().resolve(litnav_core::DEFAULT_SEED).unwrap();
        assert_eq!(options, MetricOptions::default());
        assert!(MetricParams { nulls: Some(0), ..MetricParams::default() }.resolve(1).is_err());
        let rank = RankParams::default().resolve(Measure::Disruption, litnav_core::DEFAULT_SEED).unwrap();
        assert_eq!((rank.pool, rank.k, rank.scinet_form), (DEFAULT_TOPIC_POOL, DEFAULT_RANKED, false));
        let path = PathParams { from: Some("a".into()), to: Some("b".into()), ..PathParams::default() };
        assert_eq!(path.resolve().unwrap().max_hops, DEFAULT_MAX_HOPS);
        assert!(PathParams { max_hops: Some(11), ..path.clone() }.resolve().is_err());
        assert!(PathParams { to: None, ..path }.resolve().is_err());
    }
}
