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

/// A paper's identifier as a person pastes it or a reference names it: `(kind, value)` with the
/// kind one of the external ids litnav matches (`doi`, `openalex`, `arxiv`) and the value as
/// the corpus stores it. A DOI with or without its resolver (`https://doi.org/…`, `doi:`); an
/// OpenAlex id (`W2741809807`, its URL); an arXiv id with its prefix (`arXiv:1706.03762v5`), its
/// URL (`arxiv.org/abs/…`, `/pdf/…`) or bare in the new scheme (`1706.03762`). The arXiv value
/// keeps a version when one is given; lookups try it without.
pub fn identifier(text: &str) -> Option<(&'static str, String)> {
    let text = text.trim();
    let doi = clean_doi(text);
    if doi.starts_with("10.") && doi.contains('/') && !doi.contains(char::is_whitespace) {
        return Some(("doi", doi));
    }
    let lower = text.to_ascii_lowercase();
    let is_openalex =
        |id: &str| id.len() > 1 && id.starts_with(['W', 'w']) && id[1..].bytes().all(|b| b.is_ascii_digit());
    let last = text.rsplit('/').next().unwrap_or(text);
    if (lower.contains("openalex.org/") || !text.contains('/')) && is_openalex(last) {
        return Some(("openalex", last.to_ascii_uppercase()));
    }
    let arxiv =
        ["arxiv:", "https://arxiv.org/abs/", "http://arxiv.org/abs/", "arxiv.org/abs/", "https://arxiv.org/pdf/"]
            .iter()
            .find_map(|prefix| lower.strip_prefix(prefix));
    match arxiv {
        Some(id) => Some(("arxiv", id.trim_end_matches(".pdf").to_string())),
        None => new_style_arxiv(&lower).then(|| ("arxiv", lower.clone())),
    }
}

/// `1706.03762`, `2301.00001v2`: four digits, a dot, four or five digits, an optional version.
fn new_style_arxiv(text: &str) -> bool {
    let (number, version) = text.split_once('v').unwrap_or((text, "1"));
    let Some((month, serial)) = number.split_once('.') else { return false };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    month.len() == 4 && digits(month) && (4..=5).contains(&serial.len()) && digits(serial) && digits(version)
}

/// An arXiv id without its version: `1706.03762v5` → `1706.03762`.
pub fn arxiv_without_version(id: &str) -> &str {
    match id.rfind('v') {
        Some(at) if at > 0 && id[at + 1..].bytes().all(|b| b.is_ascii_digit()) && at + 1 < id.len() => &id[..at],
        _ => id,
    }
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
    fn identifiers_are_recognised_as_people_paste_them() {
        let cases = [
            ("https://doi.org/10.7717/PeerJ.4375", Some(("doi", "10.7717/peerj.4375"))),
            ("doi:10.1/X", Some(("doi", "10.1/x"))),
            ("W2741809807", Some(("openalex", "W2741809807"))),
            ("https://openalex.org/w2741809807", Some(("openalex", "W2741809807"))),
            ("arXiv:1706.03762v5", Some(("arxiv", "1706.03762v5"))),
            ("https://arxiv.org/abs/1706.03762", Some(("arxiv", "1706.03762"))),
            ("https://arxiv.org/pdf/2301.00001v2.pdf", Some(("arxiv", "2301.00001v2"))),
            ("1706.03762", Some(("arxiv", "1706.03762"))),
            ("Attention is all you need", None),
            ("10.5 percent", None),
            ("Word2vec", None),
            ("2017.1", None),
        ];
        for (text, expected) in cases {
            let found = identifier(text);
            assert_eq!(found.as_ref().map(|(k, v)| (*k, v.as_str())), expected, "{text}");
        }
        assert_eq!(arxiv_without_version("1706.03762v5"), "1706.03762");
        assert_eq!(arxiv_without_version("1706.03762"), "1706.03762");
        assert_eq!(arxiv_without_version("hep-th/9901001"), "hep-th/9901001");
    }

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
