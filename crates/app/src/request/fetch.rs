//! A fetch of a topic's works from a scholarly source, as either face receives it.

use super::Defaults;
use super::names::SnowballName;
use crate::{Error, Result};
use litnav_fetch::{HttpConfig, Plan, Snowball};
use serde::{Deserialize, Serialize};

/// How to fetch a field (the topic and the corpus are the command's own): `litnav fetch openalex`
/// and `litnav map --fetch openalex` take these flags, the server's fetch jobs this body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// The source's API (OpenAlex's public one, or a mirror). The owner's choice only: the CLI
    /// takes it, a server takes it when started (`serve --api-url`) and refuses it in a request.
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "URL"))]
    pub api_url: Option<String>,
    /// Requests per second at most (OpenAlex allows 100).
    #[serde(default)]
    #[cfg_attr(feature = "clap", arg(long, value_name = "PER_SECOND"))]
    pub rate: Option<f64>,
}

/// A field fetched into the corpus a server serves (the MCP tool `fetch_openalex`, offered only by
/// a server its owner started with `--allow-network`): the topic and how to fetch it. (Unknown
/// names are refused by the face: serde cannot refuse them beside a flattened field.)
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FetchTopicParams {
    /// The field, in plain words (what the topic search looks for).
    pub topic: String,
    /// How to fetch it.
    #[serde(flatten)]
    pub fetch: FetchParams,
}

impl FetchTopicParams {
    /// The fetch's options as a server may take them from a request
    /// ([`FetchParams::as_requested`]).
    pub fn checked(&self) -> Result<FetchParams> {
        self.fetch.as_requested(&self.topic, "api_url")?;
        Ok(self.fetch.clone())
    }
}

/// The most works one fetch may ask for (topic hits and snowball each).
pub const MAX_FETCH: usize = 100_000;

impl FetchParams {
    /// These options with every one not given at its default — the fetch crate's own: the plan's
    /// (`Plan::new`), OpenAlex's public API, and the HTTP client's rate (`HttpConfig::default`).
    pub fn filled(&self) -> FetchParams {
        let plan = Plan::new(String::new());
        FetchParams {
            max: self.max.or(Some(plan.max)),
            snowball: Some(self.snowball.unwrap_or_else(|| SnowballName::of(plan.snowball))),
            snowball_max: self.snowball_max.or(Some(plan.snowball_max)),
            citing_per_work: self.citing_per_work.or(Some(plan.citing_per_work)),
            api_url: self.api_url.clone().or_else(|| Some(litnav_fetch::openalex::PUBLIC_API.to_string())),
            rate: self.rate.or(Some(HttpConfig::default().rate)),
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
        let snowball = filled.snowball.map_or(Snowball::default(), SnowballName::snowball);
        Ok(Plan {
            topic: topic.trim().to_string(),
            max: bounded("max", filled.max, 1)?,
            snowball,
            snowball_max: bounded("snowball_max", filled.snowball_max, 0)?,
            citing_per_work: bounded("citing_per_work", filled.citing_per_work, 0)?.min(100),
        })
    }

    /// These options as a request to a server gives them, checked: the plan for `topic` and the
    /// rate within their bounds, and no API named — a server fetches only from the API its owner
    /// started it with (`option` is how the request names `api_url`).
    pub fn as_requested(&self, topic: &str, option: &str) -> Result<()> {
        if self.api_url.is_some() {
            return Err(Error::input(format!(
                "{option}: this server fetches only from the API its owner started it with (--api-url); a request \
                 cannot name one"
            )));
        }
        self.plan(topic)?;
        self.rate()?;
        Ok(())
    }

    /// Requests per second, checked.
    pub fn rate(&self) -> Result<f64> {
        let rate = self.filled().rate.unwrap_or_default();
        if rate.is_finite() && rate > 0.0 && rate <= 100.0 {
            Ok(rate)
        } else {
            Err(Error::input(format!("rate: requests per second must be above 0 and at most 100, not {rate}")))
        }
    }
}

impl Defaults for FetchParams {
    const REQUIRED: &'static [&'static str] = &[];

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
