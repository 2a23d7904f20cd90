//! Title normalization, the key litnav deduplicates papers by, and the ids derived from titles.
//!
//! Both functions fold a title the same way first: Unicode NFKD, combining marks removed,
//! lowercase. They differ in what happens to every character that is neither alphanumeric nor
//! white space (punctuation, and symbols such as `$`, `^`, `+` that LaTeX-laden titles are full of):
//! - [`title_key`], litnav's matching key (DESIGN.md), replaces it by a space, then collapses
//!   white space. "CvT:Introducing" and "CvT: Introducing" get the same key.
//! - [`title_id`] deletes it, then collapses white space, and hashes the result. This reproduces
//!   the ids of the litbench corpus ("p" + the first 12 hex digits of SHA-1; 3,962 of its 3,967 ids
//!   follow this rule, the rest were derived from title variants), so a paper ingested from
//!   TaxoBench or BibTeX gets the id litbench already uses for it.
//!
//! "Alphanumeric" is Rust's `char::is_alphanumeric` (Unicode Alphabetic or Numeric), the same class
//! as Python's `\w` less the underscore, which litnav treats as punctuation in keys.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

fn fold(title: &str, other: Option<char>) -> String {
    let mut folded = String::with_capacity(title.len());
    for c in title.nfkd() {
        if is_combining_mark(c) {
            continue;
        }
        if c.is_alphanumeric() || c.is_whitespace() {
            folded.extend(c.to_lowercase());
        } else if c == '_' && other.is_none() {
            folded.push('_');
        } else if let Some(replacement) = other {
            folded.push(replacement);
        }
    }
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// litnav's title matching key. `title_key("CvT: Introducing Convolutions")` is
/// `"cvt introducing convolutions"`.
pub fn title_key(title: &str) -> String {
    fold(title, Some(' '))
}

/// The id litbench derives from a title: `"p"` + the first 12 hex digits of SHA-1 of the folded
/// title with every non-word character deleted (Python: `re.sub(r"[^\w\s]", "", t)`).
pub fn title_id(title: &str) -> String {
    hashed_id(&fold(title, None))
}

/// `"p"` + the first 12 hex digits of SHA-1 of `text`.
pub(crate) fn hashed_id(text: &str) -> String {
    let digest = sha1_smol::Sha1::from(text).digest().to_string();
    format!("p{}", &digest[..12])
}

/// `https://doi.org/10.7717/PeerJ.4375` → `10.7717/peerj.4375` (DOIs are case-insensitive).
pub fn clean_doi(doi: &str) -> String {
    let doi = doi.trim();
    let lower = doi.to_ascii_lowercase();
    let start = ["https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:"]
        .iter()
        .find_map(|prefix| lower.starts_with(prefix).then_some(prefix.len()))
        .unwrap_or(0);
    lower[start..].trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doi_cleanup() {
        assert_eq!(clean_doi("https://doi.org/10.7717/PeerJ.4375"), "10.7717/peerj.4375");
        assert_eq!(clean_doi("doi:10.1/X"), "10.1/x");
    }

    #[test]
    fn key_folds_case_accents_punctuation_and_symbols() {
        assert_eq!(title_key("  Café-Au-Lait:   A  STUDY. "), "cafe au lait a study");
        assert_eq!(title_key("CvT:Introducing"), title_key("CvT: Introducing"));
        assert_eq!(title_key("LLM+P: $\\mathbb{Z}_N$"), "llm p mathbb z n");
        assert_eq!(title_key("ﬁne-tuning"), "fine tuning");
        assert_eq!(title_key("!!!"), "");
    }

    #[test]
    fn title_id_deletes_rather_than_spaces() {
        assert_eq!(title_id("Attention: is all, you need!"), hashed_id("attention is all you need"));
        assert_eq!(title_id("LLM+P"), hashed_id("llmp"));
        assert_eq!(title_id("Z_2 symmetry"), hashed_id("z_2 symmetry"));
    }

    #[test]
    fn title_id_reproduces_a_litbench_id() {
        // From litbench/corpus.jsonl.
        assert_eq!(
            title_id(
                "The rate of metabolism in marine animals: environmental constraints, ecological demands and energetic opportunities"
            ),
            "p002addd960ec"
        );
    }
}
