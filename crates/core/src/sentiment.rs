//! Citation sentiment: how a citing text speaks of the work it cites (SciNet's Cite-Sentiment).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// How a citation speaks of the cited work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sentiment {
    /// Builds on it, praises it, confirms it.
    Positive,
    /// Mentions it.
    Neutral,
    /// Criticizes it or reports a failure of it.
    Negative,
}

impl Sentiment {
    /// Every value, in the order prompts and help texts list them.
    pub const ALL: [Sentiment; 3] = [Sentiment::Positive, Sentiment::Neutral, Sentiment::Negative];

    /// The lowercase name used in files and answers.
    pub fn name(self) -> &'static str {
        match self {
            Sentiment::Positive => "positive",
            Sentiment::Neutral => "neutral",
            Sentiment::Negative => "negative",
        }
    }
}

impl fmt::Display for Sentiment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Sentiment {
    type Err = String;

    /// Case-insensitive, surrounding spaces ignored.
    fn from_str(text: &str) -> Result<Sentiment, String> {
        let wanted = text.trim().to_lowercase();
        Sentiment::ALL
            .into_iter()
            .find(|s| s.name() == wanted)
            .ok_or_else(|| format!("`{text}` is not a sentiment: expected positive, neutral or negative"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in Sentiment::ALL {
            assert_eq!(s.name().parse::<Sentiment>(), Ok(s));
            assert_eq!(format!(" {} ", s.name().to_uppercase()).parse::<Sentiment>(), Ok(s));
        }
        assert!("glad".parse::<Sentiment>().is_err());
    }
}
