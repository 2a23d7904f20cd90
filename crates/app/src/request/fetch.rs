//! A fetch of a topic's works from a scholarly source, as either face receives it.

use super::names::SnowballName;
use super::{Defaults, OptionDoc};
use crate::{Error, Result};
use litnav_fetch::{Plan, Snowball};
use serde::{Deserialize, Serialize};

/// How to fetch a field (the topic and the corpus are the command's own): `litnav fetch openalex`
/// and `litnav map --fetch openalex` take these flags, the server's fetch jobs this body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(deny_unknown_fields)]
pub struct FetchParams {
    /// The most works the topic search gives (one search call per 100).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub max: Option<usize>,
    /// Which citations of the hits are followed to fetch more works.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_enum))]
    pub snowball: Option<SnowballName>,
    /// The most works snowballing adds, those linked to most hits first.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub snowball_max: Option<usize>,
    /// The most citing works asked for per hit (most cited first; a classic has 100,000).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub citing_per_work: Option<usize>,
    /// The source's API (OpenAlex's public one, or a mirror).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "URL"))]
    pub api_url: Option<String>,
    /// Requests per second at most (OpenAlex allows 100).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "PER_SECOND"))]
    pub rate: Option<f64>,
}

/// The most works one fetch may ask for (topic hits and snowball each).
pub const MAX_FETCH: usize = 100_000;

/// Requests a second unless told otherwise: a tenth of what OpenAlex allows.
const DEFAULT_RATE: f64 = 10.0;

impl FetchParams {
    /// These options with every one not given at its default: 200 hits (Knowledge Navigator
    /// starts from up to 1,000), both directions of snowballing, at most 800 more works (a
    /// 1,000-work field), 25 citers per hit, OpenAlex's public API at 10 requests a second.
    pub fn filled(&self) -> FetchParams {
        FetchParams {
            max: self.max.or(Some(200)),
            snowball: Some(self.snowball.unwrap_or_default()),
            snowball_max: self.snowball_max.or(Some(800)),
            citing_per_work: self.citing_per_work.or(Some(25)),
            api_url: self.api_url.clone().or_else(|| Some(litnav_fetch::openalex::PUBLIC_API.to_string())),
            rate: self.rate.or(Some(DEFAULT_RATE)),
        }
    }

    /// The fetch plan for `topic`, or an input error naming the option that is out of range.
    pub fn plan(&self, topic: &str) -> Result<Plan> {
        let filled = self.filled();
        let bounded = |name: &str, value: Option<usize>, least: usize| -> Result<usize> {
            let value = value.unwrap_or_default();
            if (least..=MAX_FETCH).contains(&value) {
                Ok(value)
            } else {
                Err(Error::input(format!("{name}: must be between {least} and {MAX_FETCH}, not {value}")))
            }
        };
        let snowball = match filled.snowball.unwrap_or_default() {
            SnowballName::None => Snowball::default(),
            SnowballName::References => Snowball { references: true, citations: false },
            SnowballName::Citations => Snowball { references: false, citations: true },
            SnowballName::Both => Snowball { references: true, citations: true },
        };
        Ok(Plan {
            topic: topic.trim().to_string(),
            max: bounded("max", filled.max, 1)?,
            snowball,
            snowball_max: bounded("snowball_max", filled.snowball_max, 0)?,
            citing_per_work: bounded("citing_per_work", filled.citing_per_work, 0)?.min(100),
        })
    }

    /// Requests per second, checked.
    pub fn rate(&self) -> Result<f64> {
        let rate = self.rate.unwrap_or(DEFAULT_RATE);
        if rate.is_finite() && rate > 0.0 && rate <= 100.0 {
            Ok(rate)
        } else {
            Err(Error::input(format!("rate: requests per second must be above 0 and at most 100, not {rate}")))
        }
    }
}

impl Defaults for FetchParams {
    const REQUIRED: &'static [&'static str] = &[];

    fn docs() -> Vec<OptionDoc> {
        vec![
            OptionDoc::new("max", "integer", "the most works the topic search gives"),
            OptionDoc::choice("snowball", SnowballName::names(), "which citations of the hits are followed"),
            OptionDoc::new("snowball_max", "integer", "the most works snowballing adds, most connected first"),
            OptionDoc::new("citing_per_work", "integer", "the most citing works asked for per hit (at most 100)"),
            OptionDoc::new("api_url", "string", "the source's API"),
            OptionDoc::new("rate", "number", "requests per second at most"),
        ]
    }

    fn defaults() -> serde_json::Map<String, serde_json::Value> {
        super::to_map(&FetchParams::default().filled())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_with_the_defaults_and_with_bad_options() {
        let plan = FetchParams::default().plan(" graph neural networks ").unwrap();
        assert_eq!((plan.topic.as_str(), plan.max, plan.snowball_max), ("graph neural networks", 200, 800));
        assert!(plan.snowball.references && plan.snowball.citations);
        let error = FetchParams { max: Some(0), ..FetchParams::default() }.plan("x").unwrap_err().to_string();
        assert_eq!(error, "max: must be between 1 and 100000, not 0");
        assert!(FetchParams { rate: Some(0.0), ..FetchParams::default() }.rate().is_err());
    }
}
