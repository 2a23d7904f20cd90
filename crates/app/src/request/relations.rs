//! How citation measures are computed, as the faces receive it: `litnav relations`' flags, the
//! Python package's keyword arguments.

use super::names::{ReadingName, UnitsName};
use super::{Defaults, OptionDoc};
use crate::relations::MetricOptions;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// Disruption's and novelty's options, every one optional; [`MetricParams::filled`] decides the
/// defaults (the seed's is the settings').
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
            reading: self.reading.or(Some(ReadingName::Subsequent)),
            units: self.units.or(Some(UnitsName::Venues)),
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
            reading: filled.reading.unwrap_or(ReadingName::Subsequent).reading(),
            units: filled.units.unwrap_or(UnitsName::Venues).units(),
            nulls,
            seed: filled.seed.unwrap_or(default_seed),
        })
    }
}

impl Defaults for MetricParams {
    const REQUIRED: &'static [&'static str] = &[];

    fn docs() -> Vec<OptionDoc> {
        vec![
            OptionDoc::new("window", "integer", "count only citers within this many years"),
            OptionDoc::choice("reading", ReadingName::names(), "which citing papers CD counts"),
            OptionDoc::choice("units", UnitsName::names(), "what plays the role of journals in novelty"),
            OptionDoc::new("nulls", "integer", "randomized graphs of novelty's null model"),
            OptionDoc::new("seed", "integer", "seed of the randomization (default: the settings' seed)"),
        ]
    }

    fn defaults() -> serde_json::Map<String, serde_json::Value> {
        super::to_map(&MetricParams::default().filled())
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
    }
}
