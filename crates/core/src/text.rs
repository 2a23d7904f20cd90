//! A paper as text, and the word runs phrases are made of.

use std::collections::HashSet;

/// A paper as text: what prompts show, what the encoder reads, what organizers name from. Every
/// paper type of litnav (a corpus record, a document to organize, a survey's bibliography entry)
/// lends itself as this view instead of being copied field by field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PaperText<'a> {
    /// Title.
    pub title: &'a str,
    /// Abstract, when known.
    pub abstract_text: Option<&'a str>,
}

impl<'a> PaperText<'a> {
    /// A view of a title and an optional abstract.
    pub fn new(title: &'a str, abstract_text: Option<&'a str>) -> PaperText<'a> {
        PaperText { title, abstract_text }
    }

    /// The passage a paper's vector encodes: the title, then the abstract (when there is one)
    /// after a full stop, unless the title already ends in punctuation.
    pub fn passage(&self) -> String {
        match self.abstract_text {
            Some(abstract_text) if !abstract_text.is_empty() => {
                let separator = if self.title.ends_with(['.', '?', '!', ':']) { " " } else { ". " };
                format!("{}{separator}{abstract_text}", self.title)
            }
            _ => self.title.to_string(),
        }
    }
}

/// English function words and the filler words of paper abstracts ("approach", "based",
/// "demonstrate", …): never part of a phrase that names a theme or an entity.
pub const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "across",
    "after",
    "again",
    "against",
    "all",
    "almost",
    "along",
    "also",
    "although",
    "among",
    "an",
    "and",
    "another",
    "any",
    "approach",
    "approaches",
    "are",
    "as",
    "at",
    "based",
    "be",
    "been",
    "before",
    "being",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "demonstrate",
    "demonstrates",
    "did",
    "do",
    "does",
    "done",
    "due",
    "during",
    "each",
    "either",
    "et",
    "etc",
    "even",
    "every",
    "existing",
    "experiments",
    "first",
    "for",
    "from",
    "further",
    "furthermore",
    "given",
    "had",
    "has",
    "have",
    "having",
    "here",
    "hereby",
    "how",
    "however",
    "i",
    "if",
    "in",
    "including",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "large",
    "less",
    "may",
    "method",
    "methods",
    "might",
    "more",
    "moreover",
    "most",
    "much",
    "must",
    "new",
    "no",
    "nor",
    "not",
    "novel",
    "of",
    "often",
    "on",
    "one",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "out",
    "over",
    "paper",
    "papers",
    "per",
    "perform",
    "performance",
    "present",
    "presents",
    "propose",
    "proposed",
    "proposes",
    "provide",
    "provides",
    "rather",
    "recent",
    "recently",
    "result",
    "results",
    "same",
    "several",
    "show",
    "shows",
    "significant",
    "significantly",
    "since",
    "so",
    "some",
    "state",
    "studies",
    "study",
    "such",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "three",
    "through",
    "thus",
    "to",
    "two",
    "under",
    "up",
    "upon",
    "us",
    "use",
    "used",
    "uses",
    "using",
    "various",
    "very",
    "via",
    "was",
    "we",
    "well",
    "were",
    "what",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "whose",
    "why",
    "will",
    "with",
    "within",
    "without",
    "work",
    "works",
    "would",
    "yet",
    "art",
    "toward",
    "towards",
    // Words that say where a thing stands in an argument, not what it is ("Previous Tasks").
    "previous",
    "previously",
    "prior",
    "earlier",
    "old",
    "seen",
    "many",
    "different",
    // Markup and bibliographic debris that scraped abstracts carry.
    "xmlns",
    "w3",
    "www",
    "http",
    "https",
    "org",
    "com",
    "html",
    "xml",
    "mml",
    "math",
    "doi",
    "arxiv",
    "preprint",
    "al",
    "fig",
    "figure",
    "table",
    "abstract",
    "introduction",
    "thereby",
    "whereas",
    "second",
    "third",
];

/// The runs of consecutive words of a text that contain no stop word, number or one-letter word
/// and cross no punctuation: where key phrases and heading entities come from.
pub fn content_runs(text: &str) -> Vec<Vec<&str>> {
    // Built once: every heading and every paper of a map passes through here.
    static STOP: std::sync::LazyLock<HashSet<&str>> = std::sync::LazyLock::new(|| STOP_WORDS.iter().copied().collect());
    let stop = &*STOP;
    let mut runs = Vec::new();
    for segment in text.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == ' ' || c == '\'')) {
        let mut run: Vec<&str> = Vec::new();
        for word in segment.split_whitespace() {
            let word = word.trim_matches(|c: char| c == '-' || c == '\'');
            let lower = word.to_lowercase();
            let useless = word.is_empty()
                || stop.contains(lower.as_str())
                || word.chars().all(|c| c.is_ascii_digit())
                || word.chars().count() < 2;
            if useless {
                runs.push(std::mem::take(&mut run));
            } else {
                run.push(word);
            }
        }
        runs.push(run);
    }
    runs.retain(|run| !run.is_empty());
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passage_joins_title_and_abstract() {
        assert_eq!(PaperText::new("T", None).passage(), "T");
        assert_eq!(PaperText::new("T", Some("")).passage(), "T");
        assert_eq!(PaperText::new("T", Some("A")).passage(), "T. A");
        assert_eq!(PaperText::new("Why?", Some("A")).passage(), "Why? A");
    }
}
