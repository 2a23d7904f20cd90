//! Citation markers in survey text and the identifiers a bibliography defines, read the way
//! Bloom-Eval's public scripts read them (`run_FMI.py`, `run_CF.py`), so that Formatting
//! Integrity and Citation Faithfulness see the same citations as the field's own implementation:
//!
//! - numeric groups in brackets or parentheses: `[3]`, `[3, 5–7]`, `(12; 14)` (ranges of at most
//!   100 numbers);
//! - author–year groups in brackets or parentheses, `;`-separated: `(Smith et al., 2020; Lee 2019)`;
//! - narrative citations: `Smith et al. (2020)`, `Smith and Lee (2019)`.
//!
//! An author–year identifier is the first author's family name (accents folded, letters and digits
//! only, lowercase; initials after a name are skipped) and a year 1900–2099 (OCR-style `O`/`I`/`l`
//! read as digits). A bibliography defines a number (`[3] …`, `3. …`) and an author–year key
//! (the text before its first year).

use regex::Regex;
use regex_syntax::is_word_character;
use std::collections::BTreeSet;
use std::sync::LazyLock;

/// A citation identifier.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(untagged)]
pub enum CitationId {
    /// A numbered reference, `[n]`.
    Number(u32),
    /// A first-author family name and a year.
    AuthorYear(String, String),
}

impl CitationId {
    fn kind(&self) -> u8 {
        match self {
            CitationId::Number(_) => 0,
            CitationId::AuthorYear(..) => 1,
        }
    }
}

impl std::fmt::Display for CitationId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CitationId::Number(n) => write!(f, "[{n}]"),
            CitationId::AuthorYear(author, year) => write!(f, "{author} {year}"),
        }
    }
}

const YEAR: &str = r"(?:19|20|2[O0])[0-9OIl]{2}[a-z]?";

fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| unreachable!("a fixed pattern compiles: {e}"))
}

static NUMERIC_GROUP: LazyLock<Regex> = LazyLock::new(|| regex(r"^[\d,\s;,\-–—]+$"));
static RANGE: LazyLock<Regex> = LazyLock::new(|| regex(r"^(\d+)\s*[-–—]\s*(\d+)$"));
static GROUP_SEPARATOR: LazyLock<Regex> = LazyLock::new(|| regex(r"[,;]\s*"));
static AUTHOR_YEAR: LazyLock<Regex> = LazyLock::new(|| regex(&format!(r"(?P<author>.+?)\s*,?\s*(?P<year>{YEAR})")));
/// A narrative citation, `Smith et al. (2020)`, without the word boundary its author must start at
/// (checked by [`narrative_citations`]: a Unicode `\b` keeps the regex off its fast engines).
static NARRATIVE: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"(?P<author>[A-Z][A-Za-zÀ-ÖØ-öø-ÿ@.'-]+(?:\s+(?:et\s+al\.?|&|and)\s*[A-Z]?[A-Za-zÀ-ÖØ-öø-ÿ@.'-]*)?)\s*\(\s*(?P<year>{YEAR})\s*\)"
    ))
});
static ET_AL: LazyLock<Regex> = LazyLock::new(|| regex(r"(?i)\bet\s*al\.?"));
static OTHERS: LazyLock<Regex> = LazyLock::new(|| regex(r"(?i)\bothers\b"));
static PLAIN_YEAR: LazyLock<Regex> = LazyLock::new(|| regex(r"(?:19|20)\d{2}"));
static BRACKET_NUMBER: LazyLock<Regex> = LazyLock::new(|| regex(r"^\s*\[(\d+)\]"));
static DOTTED_NUMBER: LazyLock<Regex> = LazyLock::new(|| regex(r"^\s*(\d+)\s*[.)]"));
static BRACKET_LABEL: LazyLock<Regex> = LazyLock::new(|| regex(r"^\s*\[([^\]]*(?:19|20|2[O0])[0-9OIl]{2}[^\]]*)\]"));
static ANY_YEAR: LazyLock<Regex> = LazyLock::new(|| regex(YEAR));
static LEADING_NUMBER: LazyLock<Regex> = LazyLock::new(|| regex(r"^\s*(?:\[\d+\]|\d+\s*[.)])\s*"));
static SECTION_ENTRY: LazyLock<Regex> = LazyLock::new(|| regex(r"(?m)^[ \t]*(?:[-*+]|(?:\d+\.))?[ \t]*\[(\d+)\]"));

/// Letters and digits of a text, accents folded, lowercase (Bloom-Eval's lookup key).
pub fn lookup_key(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    use unicode_normalization::char::canonical_combining_class;
    if text.is_ascii() {
        // ASCII is its own NFKD and has no combining marks: only the lowercasing and the filter.
        let kept =
            text.bytes().map(|b| b.to_ascii_lowercase()).filter(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
        return kept.map(char::from).collect();
    }
    text.nfkd()
        .filter(|&c| canonical_combining_class(c) == 0)
        .flat_map(char::to_lowercase)
        .filter(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        .collect()
}

/// The four-digit year in a text (OCR's `O`, `o`, `I`, `l` read as digits), or empty.
pub fn normalize_year(text: &str) -> String {
    if text.is_ascii() {
        // `\d` matches only ASCII digits here: the year is the first window `PLAIN_YEAR` matches.
        let cleaned: Vec<u8> = text.bytes().map(ocr_digit).collect();
        let year =
            cleaned.windows(4).find(|w| matches!(&w[..2], b"19" | b"20") && w[2..].iter().all(u8::is_ascii_digit));
        return year.map(|w| w.iter().copied().map(char::from).collect()).unwrap_or_default();
    }
    let cleaned: String = text
        .chars()
        .map(|c| match c {
            'O' | 'o' => '0',
            'I' | 'l' => '1',
            other => other,
        })
        .collect();
    PLAIN_YEAR.find(&cleaned).map(|m| m.as_str().to_string()).unwrap_or_default()
}

/// A character OCR may have put for a digit, read as that digit.
fn ocr_digit(b: u8) -> u8 {
    match b {
        b'O' | b'o' => b'0',
        b'I' | b'l' => b'1',
        other => other,
    }
}

/// Whether [`YEAR`] matches somewhere in a text: every author–year marker holds one, and most
/// citation groups and sentences hold none, so their regexes need not run.
fn holds_year(text: &str) -> bool {
    let year_digit = |b: &u8| b.is_ascii_digit() || matches!(b, b'O' | b'I' | b'l');
    text.as_bytes().windows(4).any(|w| matches!(&w[..2], b"19" | b"20" | b"2O") && w[2..].iter().all(year_digit))
}

/// The first author's family-name key of an author text.
pub fn first_author_key(author_text: &str) -> String {
    // Neither regex can match without these letters (no character outside ASCII case-folds to
    // them), and most author texts hold neither.
    let holds = |letters: &[u8]| author_text.as_bytes().windows(letters.len()).any(|w| w.eq_ignore_ascii_case(letters));
    let text = if holds(b"al") { ET_AL.replace_all(author_text, "") } else { author_text.into() };
    let text = if holds(b"other") { OTHERS.replace_all(&text, "") } else { text };
    family_name_key(first_author(text.trim()).split(|c| !is_name_character(c)))
}

/// The key of the family name among the name tokens of one author: the last token, unless it
/// looks like initials (`Smith J`), then the first; connectives and empty tokens skipped.
fn family_name_key<'a>(tokens: impl Iterator<Item = &'a str>) -> String {
    let tokens: Vec<&str> = tokens
        .filter(|t| {
            let key = lookup_key(t);
            !key.is_empty() && key != "and" && key != "others"
        })
        .collect();
    match tokens.as_slice() {
        [] => String::new(),
        [only] => lookup_key(only),
        [first, .., last] => {
            let last_plain = last.replace('-', "");
            let initials = last_plain.chars().count() <= 5
                && last_plain.to_uppercase() == last_plain
                && last_plain.chars().any(|c| c.is_ascii_uppercase());
            lookup_key(if initials { first } else { last })
        }
    }
}

/// An author text up to its first separator (`,`, `;`, `&` or ` and `), where the regex
/// `\s*(?:,|;|&| and )\s*` would first split it (up to blanks, which no name holds).
fn first_author(text: &str) -> &str {
    let separator = text.find([',', ';', '&']).unwrap_or(text.len());
    let and = text[..separator].find(" and ").unwrap_or(separator);
    &text[..and]
}

/// A character of a name token, `[A-Za-zÀ-ÖØ-öø-ÿ@'-]`.
fn is_name_character(c: char) -> bool {
    c.is_ascii_alphabetic() || matches!(c, 'À'..='Ö' | 'Ø'..='ö' | 'ø'..='ÿ' | '@' | '\'' | '-')
}

/// The author–year identifier of an author text and a year text, when both yield one.
pub fn author_year(author_text: &str, year_text: &str) -> Option<CitationId> {
    let (author, year) = (first_author_key(author_text), normalize_year(year_text));
    (!author.is_empty() && !year.is_empty()).then_some(CitationId::AuthorYear(author, year))
}

/// The numbers of a numeric citation group (`3, 5–7`), sorted; empty when the group holds anything
/// but digits and separators.
pub fn expand_numeric_group(group: &str) -> Vec<u32> {
    if !NUMERIC_GROUP.is_match(group.trim()) {
        return Vec::new();
    }
    let mut numbers = BTreeSet::new();
    for part in GROUP_SEPARATOR.split(group) {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        if let Some(range) = RANGE.captures(part) {
            if let (Ok(start), Ok(end)) = (range[1].parse::<u32>(), range[2].parse::<u32>())
                && start <= end
                && end - start <= 100
            {
                numbers.extend(start..=end);
            }
            continue;
        }
        if part.chars().all(|c| c.is_ascii_digit())
            && let Ok(n) = part.parse()
        {
            numbers.insert(n);
        }
    }
    numbers.into_iter().collect()
}

fn author_year_in_group(group: &str, out: &mut BTreeSet<CitationId>) {
    for part in group.split(';').filter(|part| holds_year(part)) {
        if let Some(m) = AUTHOR_YEAR.captures(part.trim())
            && let Some(id) = author_year(&m["author"], &m["year"])
        {
            out.insert(id);
        }
    }
}

/// Every citation identifier cited in a text.
pub fn cited_ids(text: &str) -> BTreeSet<CitationId> {
    let mut cited = BTreeSet::new();
    // Every marker form needs a bracket or a parenthesis.
    if !text.contains(['[', '(']) {
        return cited;
    }
    let years = holds_year(text);
    for group in enclosed(text, '[', ']') {
        cited.extend(expand_numeric_group(group).into_iter().map(CitationId::Number));
        if years {
            author_year_in_group(group, &mut cited);
        }
    }
    for group in enclosed(text, '(', ')') {
        if NUMERIC_GROUP.is_match(group.trim()) {
            cited.extend(expand_numeric_group(group).into_iter().map(CitationId::Number));
        }
        if years {
            author_year_in_group(group, &mut cited);
        }
    }
    if !years {
        return cited;
    }
    for m in narrative_citations(text) {
        if let Some(id) = author_year(&m["author"], &m["year"]) {
            cited.insert(id);
        }
    }
    cited
}

/// The text between each `open` and the first `close` after it, at least one character, left to
/// right without overlap: what `\[([^\]]+)\]` captures (for brackets), found without a regex.
fn enclosed(text: &str, open: char, close: char) -> impl Iterator<Item = &str> {
    let mut from = 0;
    std::iter::from_fn(move || {
        loop {
            let start = from + text[from..].find(open)? + open.len_utf8();
            let length = text[start..].find(close)?;
            if length > 0 {
                from = start + length + close.len_utf8();
                return Some(&text[start..start + length]);
            }
            from = start; // `[]`: the search goes on from the closing character
        }
    })
}

/// [`NARRATIVE`]'s matches whose author starts a word (`\b` before it): a match starting inside a
/// word is passed over and the search resumes at the next character, which finds exactly the
/// matches of the pattern with `\b`.
fn narrative_citations(text: &str) -> impl Iterator<Item = regex::Captures<'_>> {
    let mut from = 0;
    std::iter::from_fn(move || {
        while from <= text.len() {
            let found = NARRATIVE.captures_at(text, from)?;
            let whole = found.get(0).unwrap_or_else(|| unreachable!("group 0 is the match"));
            let starts_word = text[..whole.start()].chars().next_back().is_none_or(|c| !is_word_character(c));
            if starts_word {
                from = whole.end();
                return Some(found);
            }
            from = whole.start() + text[whole.start()..].chars().next().map_or(1, char::len_utf8);
        }
        None
    })
}

/// The identifiers a list of reference entries defines: each entry's number, its bracketed
/// author–year label, and the author–year key of the text before its first year.
pub fn defined_ids(references: &[String]) -> BTreeSet<CitationId> {
    let mut defined = BTreeSet::new();
    for reference in references {
        let text = reference.trim();
        if let Some(n) = BRACKET_NUMBER.captures(text).or_else(|| DOTTED_NUMBER.captures(text))
            && let Ok(n) = n[1].parse()
        {
            defined.insert(CitationId::Number(n));
        }
        if let Some(label) = BRACKET_LABEL.captures(text) {
            author_year_in_group(&label[1], &mut defined);
        }
        if let Some(year) = ANY_YEAR.find(text) {
            let prefix = LEADING_NUMBER.replace(&text[..year.start()], "");
            if let Some(id) = author_year(&prefix, year.as_str()) {
                defined.insert(id);
            }
        }
    }
    defined
}

/// The numbers a references section defines: lines starting (after an optional list marker) with
/// `[n]`.
pub fn numbers_defined_in_section(section: &str) -> BTreeSet<CitationId> {
    SECTION_ENTRY.captures_iter(section).filter_map(|c| c[1].parse().ok()).map(CitationId::Number).collect()
}

/// The defined identifiers comparable with the cited ones: of the kinds (numbers, author–year) the
/// text cites; all of them when it cites none.
pub fn comparable(defined: &BTreeSet<CitationId>, cited: &BTreeSet<CitationId>) -> BTreeSet<CitationId> {
    let kinds: BTreeSet<u8> = cited.iter().map(CitationId::kind).collect();
    if kinds.is_empty() {
        return defined.clone();
    }
    defined.iter().filter(|id| kinds.contains(&id.kind())).cloned().collect()
}

/// Bloom-Eval's Formatting Integrity: Jaccard of the cited identifiers and the comparable defined
/// ones (1 when both are empty), with the identifiers cited but not defined and defined but not
/// cited.
pub fn formatting_integrity(cited: &BTreeSet<CitationId>, defined: &BTreeSet<CitationId>) -> FormattingIntegrity {
    let defined = comparable(defined, cited);
    let union = cited.union(&defined).count();
    let shared = cited.intersection(&defined).count();
    FormattingIntegrity {
        score: if union == 0 { 1.0 } else { shared as f64 / union as f64 },
        cited: cited.len(),
        defined: defined.len(),
        undefined: cited.difference(&defined).map(ToString::to_string).collect(),
        uncited: defined.difference(cited).map(ToString::to_string).collect(),
    }
}

/// Formatting Integrity with its evidence.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FormattingIntegrity {
    /// The Jaccard score.
    pub score: f64,
    /// Distinct identifiers cited.
    pub cited: usize,
    /// Comparable identifiers defined.
    pub defined: usize,
    /// Cited but not defined (dangling markers).
    pub undefined: Vec<String>,
    /// Defined but never cited.
    pub uncited: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(list: &[CitationId]) -> BTreeSet<CitationId> {
        list.iter().cloned().collect()
    }

    #[test]
    fn an_ascii_key_is_the_normalized_one() {
        use unicode_normalization::UnicodeNormalization;
        let general = |text: &str| -> String {
            text.nfkd()
                .filter(|&c| unicode_normalization::char::canonical_combining_class(c) == 0)
                .flat_map(char::to_lowercase)
                .filter(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
                .collect()
        };
        let every_ascii: String = (0u8..128).map(char::from).collect();
        for text in ["Vaswani", "O'Neil-Smith, J.", "van der Maaten", "ABC 1999a", "", every_ascii.as_str()] {
            assert!(text.is_ascii());
            assert_eq!(lookup_key(text), general(text), "{text:?}");
        }
        assert_eq!(lookup_key("Müller"), "muller");
    }

    /// `first_author_key` as first written: the separators, the name tokens found by regexes.
    fn first_author_key_by_regex(author_text: &str) -> String {
        static SEPARATOR: LazyLock<Regex> = LazyLock::new(|| regex(r"\s*(?:,|;|&| and )\s*"));
        static NAME_TOKEN: LazyLock<Regex> = LazyLock::new(|| regex(r"[A-Za-zÀ-ÖØ-öø-ÿ@'-]+"));
        let text = ET_AL.replace_all(author_text, "");
        let text = OTHERS.replace_all(&text, "");
        let first = SEPARATOR.split(text.trim()).next().unwrap_or("").to_string();
        family_name_key(NAME_TOKEN.find_iter(&first).map(|m| m.as_str()))
    }

    #[test]
    fn first_author_keys_equal_the_regex_reading() {
        let pieces = [
            "Smith",
            "van der Maaten",
            "J.",
            "Lee",
            " et al.",
            " ET AL",
            "etal",
            " and ",
            "  and ",
            "\u{3000}and ",
            ",",
            ";",
            " & ",
            "others",
            "Others",
            "otherſ",
            "O'Neil",
            "Müller",
            "Ünal",
            "×",
            "AB",
            "-",
            "@x",
            " ",
            "2020",
            "Ævar",
        ];
        for text in crate::concatenations(&pieces, 3) {
            assert_eq!(first_author_key(&text), first_author_key_by_regex(&text), "{text:?}");
        }
    }

    /// `cited_ids` as first written, every marker form a regex (the narrative one with `\b`).
    fn cited_ids_by_regex(text: &str) -> BTreeSet<CitationId> {
        let brackets = regex(r"\[([^\]]+)\]");
        let parentheses = regex(r"\(([^)]+)\)");
        let narrative = regex(&format!(r"\b{}", NARRATIVE.as_str()));
        let author_year_in_group = |group: &str, out: &mut BTreeSet<CitationId>| {
            for part in group.split(';') {
                if let Some(m) = AUTHOR_YEAR.captures(part.trim())
                    && let Some(id) = author_year(&m["author"], &m["year"])
                {
                    out.insert(id);
                }
            }
        };
        let mut cited = BTreeSet::new();
        for group in brackets.captures_iter(text) {
            cited.extend(expand_numeric_group(&group[1]).into_iter().map(CitationId::Number));
            author_year_in_group(&group[1], &mut cited);
        }
        for group in parentheses.captures_iter(text) {
            if NUMERIC_GROUP.is_match(group[1].trim()) {
                cited.extend(expand_numeric_group(&group[1]).into_iter().map(CitationId::Number));
            }
            author_year_in_group(&group[1], &mut cited);
        }
        for m in narrative.captures_iter(text) {
            if let Some(id) = author_year(&m["author"], &m["year"]) {
                cited.insert(id);
            }
        }
        cited
    }

    #[test]
    fn markers_found_without_regexes_equal_the_regexes() {
        let texts = [
            "ViT [1], [2, 4-6] and [] or [[3]] (7; 9) () ((Smith, 2020)) [Lee et al., 2019; Kim 2018]",
            "Dosovitskiy et al. (2021) and Vaswani & Shazeer (2017) beat McDonald (2019); xSmith (2020) \
             is inside a word, éSmith (2020) too, (Zoë (2018)) and «Müller (2016)» start words.",
            "Brown and Lee(2020) Ng  (  2O19  ) unclosed [4, (5 and Tan (2021",
            "",
            "[",
            "(",
            "]",
            ")",
            "[x",
            "(()",
            "[]]",
            "Smith (2020)",
            "(Smith, 2O2l; Lee 19I9a) [Kim, 2l0l] Ng (2Ol9) Tan (1899) [Wu 20] (Li, 192) Zhou (2O)",
            "no year here (only words; and [brackets, 3])",
        ];
        for text in texts {
            assert_eq!(cited_ids(text), cited_ids_by_regex(text), "{text}");
        }
        let groups: Vec<&str> = enclosed("[a][]b[[c]x[d", '[', ']').collect();
        assert_eq!(groups, ["a", "[c"]);
    }

    fn ay(a: &str, y: &str) -> CitationId {
        CitationId::AuthorYear(a.into(), y.into())
    }

    #[test]
    fn numeric_groups_and_ranges() {
        assert_eq!(expand_numeric_group("3, 5–7"), vec![3, 5, 6, 7]);
        assert_eq!(expand_numeric_group("12; 14"), vec![12, 14]);
        assert_eq!(expand_numeric_group("1-500"), Vec::<u32>::new(), "ranges over 100 are not expanded");
        assert!(expand_numeric_group("see 3").is_empty());
        // As Bloom-Eval's scripts read them: "(see (4" is not a numeric group, so 4 is not cited.
        let text = "Transformers [9], [10], [11] and ViT [15, 17–18] (see (4)).";
        let cited = cited_ids(text);
        let numbers: Vec<u32> =
            cited.iter().filter_map(|c| if let CitationId::Number(n) = c { Some(*n) } else { None }).collect();
        assert_eq!(numbers, [9, 10, 11, 15, 17, 18]);
    }

    #[test]
    fn author_year_citations() {
        assert_eq!(first_author_key("Smith et al."), "smith");
        assert_eq!(first_author_key("Müller and Lee"), "muller");
        assert_eq!(first_author_key("Smith J"), "smith", "initials after a name are skipped");
        assert_eq!(first_author_key("John Smith"), "smith");
        assert_eq!(normalize_year("2O21"), "2021");
        for (text, year) in [("c. l998", "1998"), ("1899 or 2O0", ""), ("x2019y", "2019"), ("٢٠١٩ 2020", "2020")] {
            assert_eq!(normalize_year(text), year, "{text}");
        }
        let cited = cited_ids("As (Smith et al., 2020; Lee 2019) and Vaswani et al. (2017) showed.");
        // A parenthesized year is also a numeric group to Bloom-Eval's scripts.
        let expected = [CitationId::Number(2017), ay("lee", "2019"), ay("smith", "2020"), ay("vaswani", "2017")];
        assert_eq!(cited, ids(&expected));
    }

    #[test]
    fn definitions_and_formatting_integrity() {
        let references: Vec<String> =
            ["[1] A. Smith, Title, 2020.", "[2] B. Lee, Other, 2019.", "3. C. Kim, Third, 2018."]
                .map(String::from)
                .to_vec();
        let defined = defined_ids(&references);
        assert!(defined.contains(&CitationId::Number(3)) && defined.contains(&ay("smith", "2020")));
        let cited = ids(&[CitationId::Number(1), CitationId::Number(2), CitationId::Number(9)]);
        let fmi = formatting_integrity(&cited, &defined);
        // Numbers only are comparable: {1,2,3} vs {1,2,9} → 2 / 4.
        assert_eq!(
            (fmi.score, fmi.undefined.as_slice(), fmi.uncited.as_slice()),
            (0.5, &["[9]".to_string()][..], &["[3]".to_string()][..])
        );
        assert_eq!(formatting_integrity(&BTreeSet::new(), &BTreeSet::new()).score, 1.0);
        let section = "[1] Alpha\n\n- [2] Beta\n3. [4] Gamma\nnot [5]";
        assert_eq!(numbers_defined_in_section(section), ids(&[1, 2, 4].map(CitationId::Number)));
    }
}
