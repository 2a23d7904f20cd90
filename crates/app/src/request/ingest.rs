//! `litnav ingest`'s request: files into a corpus, or an OpenAlex snapshot into Parquet.

use crate::IngestRequest;
use litnav_corpus::Format;
use litnav_session::supplied::VectorsInput;
use std::path::PathBuf;

/// What to ingest, and how.
#[derive(Debug, Clone, Default)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct IngestParams {
    /// Corpus directory (created if it does not exist).
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIR", required_unless_present = "openalex_snapshot"))]
    pub corpus: Option<PathBuf>,
    /// Input files; formats are detected from the name and first record. Paper files are merged
    /// before edge lists and topics, whatever the order given.
    #[cfg_attr(feature = "clap", arg(required_unless_present_any = ["surveys", "openalex_snapshot"], value_name = "FILE"))]
    pub files: Vec<PathBuf>,
    /// An OpenAlex snapshot (its `data/works/updated_date=…/part_*.gz`) to read into a columnar
    /// corpus (--parquet) for `litnav analytics`, in parallel and in bounded memory. Needs the
    /// `analytics` build feature.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIR", requires = "parquet", conflicts_with_all = ["corpus", "files"]))]
    pub openalex_snapshot: Option<PathBuf>,
    /// Where the snapshot's Parquet tables go (a new directory).
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIR", requires = "openalex_snapshot"))]
    pub parquet: Option<PathBuf>,
    /// Read every file as this format instead of detecting it.
    #[cfg_attr(feature = "clap", arg(long, value_parser = clap::builder::PossibleValuesParser::new(Format::ALL.map(|(_, name)| name))))]
    pub format: Option<String>,
    /// Citation contexts (JSONL: citing_id, cited_id, paragraph, text, optional sentiment) to keep
    /// with the citation graph; contexts ingested earlier are kept too.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub contexts: Vec<PathBuf>,
    /// Surveys (Bloom-Eval directories or Markdown files) whose citation contexts to keep: each
    /// sentence citing a reference that resolves to a corpus paper, with its paragraph and section.
    #[cfg_attr(feature = "clap", arg(long, value_name = "PATH", num_args = 1..))]
    pub surveys: Vec<PathBuf>,
    /// Paper vectors computed elsewhere (a GPU machine, a provider): a `.npy` file of float32, one
    /// row per paper record of the papers file, in its order, or (builds with the `analytics`
    /// feature) a Parquet table of `id` and `vector`. Checked whole (count, dimension, finite
    /// values, ids) before anything is written; dense search, `search --like` and maps use them.
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "FILE", requires = "vectors_model", conflicts_with = "openalex_snapshot")
    )]
    pub vectors: Option<PathBuf>,
    /// The model that computed --vectors (`all-MiniLM-L6-v2` is litnav's own, and query texts are
    /// then encoded as usual; for any other model text searches run lexically).
    #[cfg_attr(feature = "clap", arg(long, value_name = "NAME", requires = "vectors"))]
    pub vectors_model: Option<String>,
    /// Skip malformed records (reporting how many and why) instead of stopping at the first.
    #[cfg_attr(feature = "clap", arg(long))]
    pub skip_bad: bool,
    /// Print the result as JSON.
    #[cfg_attr(feature = "clap", arg(long))]
    pub json: bool,
}

impl IngestParams {
    /// The ingest of files into a corpus these options ask for.
    pub fn request(&self) -> IngestRequest {
        IngestRequest {
            files: self.files.clone(),
            format: self.format.as_deref().and_then(Format::from_name),
            skip_bad: self.skip_bad,
            contexts: self.contexts.clone(),
            surveys: self.surveys.clone(),
            vectors: self
                .vectors
                .clone()
                .map(|file| VectorsInput { file, model: self.vectors_model.clone().unwrap_or_default() }),
        }
    }
}
