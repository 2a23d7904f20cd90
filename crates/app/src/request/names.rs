//! Options chosen by name. Each enum here has exactly one table of names, from which its
//! `FromStr`, `Display`, serde form (a plain string) and — with the `clap` feature — its clap
//! `ValueEnum` are made, so the CLI, the server's query strings and bodies, the OpenAPI document
//! and the error messages spell every value the same way.

use crate::Error;

/// Defines an enum chosen by name: `what` names the option in messages, each variant has its name
/// and its help (the variant's doc comment). An option's default is marked here, once
/// (`#[derive(Default)]` on the enum, `#[default]` on the variant), and every request's `filled`
/// and every consumer reads it from there.
macro_rules! named {
    (
        $(#[$meta:meta])*
        pub enum $name:ident ($what:literal) {
            $( #[doc = $help:literal] $(#[$attribute:meta])* $variant:ident = $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( #[doc = $help] $(#[$attribute])* $variant, )+
        }

        impl $name {
            /// Every value, in the order the help lists them.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The value's name, as every face spells it.
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            /// One line on what the value means.
            pub fn help(self) -> &'static str {
                match self { $($name::$variant => $help.trim()),+ }
            }

            /// Every name, comma-separated (for messages and documentation).
            pub fn names() -> String {
                Self::ALL.iter().map(|v| v.name()).collect::<Vec<_>>().join(", ")
            }
        }

        impl std::str::FromStr for $name {
            type Err = Error;

            fn from_str(text: &str) -> Result<Self, Error> {
                Self::ALL.iter().copied().find(|v| v.name() == text).ok_or_else(|| {
                    Error::input(format!("unknown {} {:?} (one of {})", $what, text, Self::names()))
                })
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.name())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }

        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            /// A string among the names (what serde reads and writes).
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({ "type": "string", "enum": [$($text),+] })
            }
        }

        #[cfg(feature = "clap")]
        impl clap::ValueEnum for $name {
            fn value_variants<'a>() -> &'a [Self] {
                Self::ALL
            }

            fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
                Some(clap::builder::PossibleValue::new(self.name()).help(self.help()))
            }
        }
    };
}

named! {
    /// How a search ranks papers.
    #[derive(Default)]
    pub enum ModeName ("mode") {
        /// BM25 over title and abstract.
        Bm25 = "bm25",
        /// Cosine similarity of all-MiniLM-L6-v2 vectors (exact).
        Dense = "dense",
        /// BM25 and dense fused (reciprocal rank fusion by default).
        Hybrid = "hybrid",
        /// Hybrid with feedback, widened by the neighbours of its best hits (the best measured on the litbench surveys).
        #[default]
        Expanded = "expanded",
    }
}

named! {
    /// How a hybrid search fuses its two rankings.
    #[derive(Default)]
    pub enum FusionName ("fusion") {
        /// Reciprocal rank fusion: the sum of 1/(k + rank).
        #[default]
        Rrf = "rrf",
        /// alpha times BM25 plus (1 - alpha) times cosine, each min-max normalized over its candidates.
        Weighted = "weighted",
    }
}

named! {
    /// How dense retrieval scans the paper vectors.
    pub enum ScanName ("scan") {
        /// Exact below 250,000 papers, the approximate (IVF) index from there on.
        Auto = "auto",
        /// Every vector (exact top k), whatever the corpus's size.
        Exact = "exact",
        /// The IVF index (built on first use and saved beside the vector cache), whatever the size.
        Approximate = "approximate",
    }
}

named! {
    /// The precision of the weights the encoder reads for search queries (documents always f32).
    pub enum PrecisionName ("query precision") {
        /// The model's own weights: query vectors as sentence-transformers computes them.
        F32 = "f32",
        /// Weights rounded to half precision: half the bytes to read per query, vectors within about 1e-4.
        F16 = "f16",
    }
}

impl PrecisionName {
    /// The library's setting.
    pub fn precision(self) -> litnav_embed::Precision {
        match self {
            PrecisionName::F32 => litnav_embed::Precision::Single,
            PrecisionName::F16 => litnav_embed::Precision::Half,
        }
    }

    /// The name of the library's setting.
    pub fn of(precision: litnav_embed::Precision) -> PrecisionName {
        match precision {
            litnav_embed::Precision::Single => PrecisionName::F32,
            litnav_embed::Precision::Half => PrecisionName::F16,
        }
    }
}

named! {
    /// Which citations of a fetched topic's works are followed to fetch more works (the default
    /// is the fetch plan's, `litnav_fetch::Plan::new`).
    pub enum SnowballName ("snowball") {
        /// Only the works the topic search returns.
        None = "none",
        /// Also the works they cite.
        References = "references",
        /// Also the works citing them (most cited first, a bounded number per work).
        Citations = "citations",
        /// Both the works they cite and the works citing them.
        Both = "both",
    }
}

impl SnowballName {
    /// The name of the library's setting.
    pub fn of(snowball: litnav_fetch::Snowball) -> SnowballName {
        match (snowball.references, snowball.citations) {
            (false, false) => SnowballName::None,
            (true, false) => SnowballName::References,
            (false, true) => SnowballName::Citations,
            (true, true) => SnowballName::Both,
        }
    }

    /// The library's setting.
    pub fn snowball(self) -> litnav_fetch::Snowball {
        let (references, citations) = match self {
            SnowballName::None => (false, false),
            SnowballName::References => (true, false),
            SnowballName::Citations => (false, true),
            SnowballName::Both => (true, true),
        };
        litnav_fetch::Snowball { references, citations }
    }
}

named! {
    /// Where works are fetched from.
    pub enum SourceName ("source") {
        /// OpenAlex's API (an API key is free; search once for the topic, lists by id for the rest).
        Openalex = "openalex",
    }
}

named! {
    /// Which citing papers the CD index counts.
    #[derive(Default)]
    pub enum ReadingName ("reading") {
        /// Later papers only (t_f < t ≤ t_f + window): the index's definition, what `cdindex` computes.
        #[default]
        Subsequent = "subsequent",
        /// Every citing paper, whatever its year (the older reading).
        AllTime = "all-time",
    }
}

impl ReadingName {
    /// The library's setting.
    pub fn reading(self) -> litnav_graph::disruption::Reading {
        match self {
            ReadingName::Subsequent => litnav_graph::disruption::Reading::Subsequent,
            ReadingName::AllTime => litnav_graph::disruption::Reading::AllTime,
        }
    }
}

named! {
    /// The label similarity of the hierarchy metrics.
    #[derive(Default)]
    pub enum SimilarityName ("similarity") {
        /// max(0, cosine) of all-MiniLM-L6-v2 embeddings — TaxoBench's definition.
        #[default]
        Embedding = "embedding",
        /// difflib ratio of normalized labels: no model needed, NOT comparable to published numbers.
        String = "string",
        /// The public `taxobench` package's reading of every key it reports (its title similarity for labels, its paper keys, Sem-Path 0 without aligned papers) — its numbers to the last digit.
        Public = "public",
    }
}

impl SimilarityName {
    /// What scores under this similarity compare with, for a report's heading.
    pub fn caption(self) -> &'static str {
        match self {
            SimilarityName::Embedding => "label similarity: all-MiniLM-L6-v2 clipped cosine (TaxoBench's)",
            SimilarityName::String => "label similarity: STRING RATIO — not comparable to published TaxoBench numbers",
            SimilarityName::Public => "the public taxobench scorer's readings (its string label similarity)",
        }
    }

    /// The library's setting.
    pub fn kind(self) -> crate::score::similarity::Kind {
        use crate::score::similarity::Kind;
        match self {
            SimilarityName::Embedding => Kind::Embedding,
            SimilarityName::String => Kind::String,
            SimilarityName::Public => Kind::Public,
        }
    }
}

named! {
    /// Whose readings of Bloom-Eval's metrics a survey evaluation follows where they differ.
    #[derive(Default)]
    pub enum CompatName ("compat") {
        /// The seed paper's definitions.
        #[default]
        Seed = "seed",
        /// Bloom-Eval's public scripts (to compare with numbers they produced).
        BloomEval = "bloom-eval",
    }
}

impl CompatName {
    /// The library's setting.
    pub fn compat(self) -> litnav_eval::bloom::Compat {
        match self {
            CompatName::Seed => litnav_eval::bloom::Compat::Seed,
            CompatName::BloomEval => litnav_eval::bloom::Compat::BloomEval,
        }
    }
}

impl ScanName {
    /// The library's setting.
    pub fn scan(self) -> litnav_search::DenseScan {
        match self {
            ScanName::Auto => litnav_search::DenseScan::Auto,
            ScanName::Exact => litnav_search::DenseScan::Exact,
            ScanName::Approximate => litnav_search::DenseScan::Approximate,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back_and_an_unknown_one_lists_the_choices() {
        for mode in ModeName::ALL {
            assert_eq!(mode.name().parse::<ModeName>().unwrap(), *mode);
            assert_eq!(serde_json::to_value(mode).unwrap(), mode.name());
        }
        let error = "fast".parse::<ModeName>().unwrap_err().to_string();
        assert_eq!(error, "unknown mode \"fast\" (one of bm25, dense, hybrid, expanded)");
        let error = serde_json::from_str::<ScanName>("\"quick\"").unwrap_err().to_string();
        assert!(error.contains("one of auto, exact, approximate"), "{error}");
        assert_eq!(SnowballName::Both.help(), "Both the works they cite and the works citing them.");
    }
}

named! {
    /// What plays the role of Uzzi's journals in novelty.
    #[derive(Default)]
    pub enum UnitsName ("novelty units") {
        /// A reference's venue (its own unit when it has none).
        #[default]
        Venues = "venues",
        /// Every reference is its own unit.
        References = "references",
    }
}

impl UnitsName {
    /// The library's setting.
    pub fn units(self) -> litnav_graph::novelty::Units {
        match self {
            UnitsName::Venues => litnav_graph::novelty::Units::Venues,
            UnitsName::References => litnav_graph::novelty::Units::References,
        }
    }
}

named! {
    /// A property papers are ranked by.
    pub enum MeasureName ("measure") {
        /// The CD disruption index (most disruptive first).
        Disruption = "disruption",
        /// Uzzi novelty (most novel first).
        Novelty = "novelty",
        /// In-corpus citations (most cited first).
        Citations = "citations",
    }
}

impl MeasureName {
    /// The library's measure.
    pub fn measure(self) -> crate::relations::Measure {
        match self {
            MeasureName::Disruption => crate::relations::Measure::Disruption,
            MeasureName::Novelty => crate::relations::Measure::Novelty,
            MeasureName::Citations => crate::relations::Measure::Citations,
        }
    }
}

named! {
    /// Which papers related to a paper are listed.
    pub enum NeighbourhoodName ("neighbourhood") {
        /// Papers most often cited together with it.
        CoCited = "co-cited",
        /// Papers sharing the most references with it.
        Coupled = "coupled",
    }
}

impl NeighbourhoodName {
    /// The library's neighbourhood.
    pub fn neighbourhood(self) -> crate::relations::Neighbourhood {
        match self {
            NeighbourhoodName::CoCited => crate::relations::Neighbourhood::CoCited,
            NeighbourhoodName::Coupled => crate::relations::Neighbourhood::Coupled,
        }
    }
}

named! {
    /// How papers relate to a paper (the MCP tool `related`).
    pub enum RelationName ("relation") {
        /// Papers most often cited together with it.
        CoCited = "co-cited",
        /// Papers sharing the most references with it (bibliographic coupling).
        Coupled = "coupled",
        /// Papers mentioned in the same paragraph as it (needs ingested citation contexts).
        CoMentioned = "co-mentioned",
        /// The papers nearest its vector (as `search` with `like`).
        Similar = "similar",
    }
}

impl RelationName {
    /// The library's citation neighbourhood, for the relations that are one.
    pub fn neighbourhood(self) -> Option<crate::relations::Neighbourhood> {
        match self {
            RelationName::CoCited => Some(NeighbourhoodName::CoCited.neighbourhood()),
            RelationName::Coupled => Some(NeighbourhoodName::Coupled.neighbourhood()),
            RelationName::CoMentioned | RelationName::Similar => None,
        }
    }
}

named! {
    /// How a map's papers are organized into subtopics.
    #[derive(Default)]
    pub enum MethodName ("method") {
        /// Average-linkage (UPGMA) agglomerative clustering on cosine distance (the most even on litnav's organizer benchmarks).
        #[default]
        Average = "average",
        /// Ward agglomerative clustering cut at the silhouette's k.
        Ward = "ward",
        /// Knowledge Navigator's pipeline: UMAP (seeded) and a Gaussian mixture, soft assignments kept.
        Navigator = "navigator",
        /// Seeded spherical k-means.
        Kmeans = "kmeans",
        /// TaxoBench's LLM Bottom-Up organizer: the model reads the papers in batches and writes the taxonomy (needs an LLM).
        Llm = "llm",
    }
}

impl MethodName {
    /// The clustering method (the LLM organizer's offline fallback clusters by the default).
    pub fn method(self) -> litnav_organize::Method {
        use litnav_organize::Method;
        match self {
            MethodName::Average | MethodName::Llm => Method::Average,
            MethodName::Ward => Method::Ward,
            MethodName::Navigator => Method::Navigator,
            MethodName::Kmeans => Method::KMeans,
        }
    }
}

named! {
    /// What the LLM Bottom-Up organizer is shown of each paper (TaxoBench's input settings).
    #[derive(Default)]
    pub enum InputName ("input") {
        /// Title and abstract.
        #[default]
        TitleAbstract = "title-abstract",
        /// Plus a summary the LLM extracts from each paper (problem, motivation, methods, conclusions, contributions; cached).
        Summary = "summary",
        /// Plus the paper's core task and claimed contributions, extracted by the LLM (cached).
        CoreTask = "core-task",
    }
}

impl InputName {
    /// The organizer's input setting.
    pub fn input(self) -> litnav_llm::extract::Input {
        use litnav_llm::extract::Input;
        match self {
            InputName::TitleAbstract => Input::TitleAbstract,
            InputName::Summary => Input::Summary,
            InputName::CoreTask => Input::CoreTask,
        }
    }
}

named! {
    /// Where an analytics plan runs.
    #[derive(Default)]
    pub enum EngineName ("engine") {
        /// litnav's in-memory CSR graph (fastest while the graph fits in memory).
        Memory = "memory",
        /// Apache DataFusion in this process (spills to disk under memory_limit).
        #[default]
        Local = "local",
        /// An Apache DataFusion Ballista cluster (`litnav cluster`), at the scheduler.
        Ballista = "ballista",
    }
}
