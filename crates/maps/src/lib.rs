//! Maps a person browses: a topic's papers organized into themes and subtopics, and everything done
//! with a map once it exists.
//!
//! - [`build`]: maps from retrieval or paper files, the LLM stage, expansion.
//! - [`coverage`]: whether the corpus covers the topic at all.
//! - [`edits`] and [`suggest`]: corrections by hand, and those the map's checks suggest.
//! - [`browse`]: a map's papers, citation graph, timeline and grafted expansions.
//! - [`export`]: papers and maps as BibTeX, RIS, CSV, JSON, Markdown and HTML.

pub mod browse;
pub mod build;
pub mod coverage;
pub mod edits;
pub mod export;
pub mod suggest;
