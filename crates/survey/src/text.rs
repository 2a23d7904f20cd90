//! Text as Bloom-Eval's scripts read it: invisible characters normalized, Markdown headings found
//! (ATX `#` and setext underlines), the references section split off, sentences split.

use regex::Regex;
use std::sync::LazyLock;

fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| unreachable!("a fixed pattern compiles: {e}"))
}

static ATX: LazyLock<Regex> = LazyLock::new(|| regex(r"^[ \t]*(#{1,6})[ \t]*(.+?)\s*$"));
static ANY_ATX: LazyLock<Regex> = LazyLock::new(|| regex(r"(?m)^[ \t]*#{1,6}[ \t]*(.*)"));
static SETEXT: LazyLock<Regex> = LazyLock::new(|| regex(r"^[ \t]*(=+|-+)[ \t]*$"));
static TRAILING_COLON: LazyLock<Regex> = LazyLock::new(|| regex(r"[：:]\s*$"));
static SPACES: LazyLock<Regex> = LazyLock::new(|| regex(r"\s+"));

/// Headings that open a survey's references section.
pub const REFERENCE_HEADINGS: [&str; 6] =
    ["references", "reference", "bibliography", "works cited", "citations", "sources"];

/// Newlines unified, no-break and thin spaces made spaces, zero-width characters and byte-order
/// marks removed, trailing blanks of each line cut.
pub fn normalize_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pieces = text.split('\n').peekable();
    let mut first = true;
    while let Some(piece) = pieces.next() {
        // A `\r` before a `\n` is part of that line end; any other `\r` ends a line of its own.
        let piece = if pieces.peek().is_some() { piece.strip_suffix('\r').unwrap_or(piece) } else { piece };
        for line in piece.split('\r') {
            if !first {
                out.push('\n');
            }
            first = false;
            push_normalized_line(&mut out, line);
        }
    }
    out
}

/// One line of [`normalize_whitespace`]: copied in runs between the characters it replaces or
/// drops, then its trailing blanks cut.
fn push_normalized_line(out: &mut String, line: &str) {
    let start = out.len();
    let special = |c: char| {
        matches!(
            c,
            '\u{00A0}'
                | '\u{202F}'
                | '\u{2009}'
                | '\u{200A}'
                | '\u{200B}'
                | '\u{200C}'
                | '\u{200D}'
                | '\u{2060}'
                | '\u{FEFF}'
        )
    };
    let mut copied = 0;
    if !line.is_ascii() {
        for (at, c) in line.match_indices(special) {
            out.push_str(&line[copied..at]);
            if matches!(c, "\u{00A0}" | "\u{202F}" | "\u{2009}" | "\u{200A}") {
                out.push(' ');
            }
            copied = at + c.len();
        }
    }
    out.push_str(&line[copied..]);
    let kept = out[start..].trim_end_matches([' ', '\t']).len();
    out.truncate(start + kept);
}

/// A heading's comparable form: trimmed, a trailing colon removed, spaces collapsed, lowercase.
pub fn normalize_heading(text: &str) -> String {
    let text = TRAILING_COLON.replace(text.trim(), "");
    SPACES.replace_all(&text, " ").to_lowercase()
}

/// The text of every ATX heading line (`# …` to `###### …`), as Bloom-Eval's DSI collects them.
pub fn atx_headings(text: &str) -> Vec<String> {
    ANY_ATX.captures_iter(text).map(|c| c[1].to_string()).collect()
}

/// An ATX heading line: its level (number of `#`) and text.
pub fn atx(line: &str) -> Option<(usize, String)> {
    if !starts_with_hash(line) {
        return None; // most lines: no need to run the regex
    }
    ATX.captures(line).map(|c| (c[1].len(), c[2].to_string()))
}

/// Whether a line underlines the one above it as a setext heading (`===` level 1, `---` level 2).
pub fn setext_level(line: &str) -> Option<usize> {
    if !line.trim_start_matches([' ', '\t']).starts_with(['=', '-']) {
        return None;
    }
    SETEXT.captures(line).map(|c| if c[1].starts_with('=') { 1 } else { 2 })
}

/// Whether a line starts, after spaces and tabs, with `#` (`^[ \t]*#`).
fn starts_with_hash(line: &str) -> bool {
    line.trim_start_matches([' ', '\t']).starts_with('#')
}

fn is_plain_title(line: &str) -> bool {
    !line.trim().is_empty() && !starts_with_hash(line)
}

/// Whether a heading could read as one of [`REFERENCE_HEADINGS`] once normalized: normalizing
/// removes at most one character that is not white space (a trailing colon) and lowercasing never
/// shortens a text, so a heading with more such characters than the longest name plus one cannot.
fn may_name_references(title: &str) -> bool {
    let longest = REFERENCE_HEADINGS.iter().map(|name| name.chars().filter(|c| !c.is_whitespace()).count()).max();
    title.chars().filter(|c| !c.is_whitespace()).nth(longest.unwrap_or(0) + 1).is_none()
}

/// The text split into (body without the references section, the references section); the
/// section starts at the first heading — ATX, setext or a plain line — reading as one of
/// [`REFERENCE_HEADINGS`], and ends at the next heading.
pub fn split_references(text: &str) -> (String, Option<String>) {
    let lines: Vec<&str> = text.split('\n').collect();
    let is_target =
        |title: &str| may_name_references(title) && REFERENCE_HEADINGS.contains(&normalize_heading(title).as_str());
    let mut found = None;
    for (i, line) in lines.iter().enumerate() {
        if let Some((_, title)) = atx(line) {
            if is_target(&title) {
                found = Some((i, i + 1));
                break;
            }
            continue;
        }
        if is_plain_title(line) && is_target(line) {
            let underlined = lines.get(i + 1).is_some_and(|next| setext_level(next).is_some());
            found = Some((i, if underlined { i + 2 } else { i + 1 }));
            break;
        }
    }
    let Some((start, content)) = found else { return (text.to_string(), None) };
    let mut end = lines.len();
    for j in content..lines.len() {
        let underlined = !lines[j].trim().is_empty() && lines.get(j + 1).is_some_and(|n| setext_level(n).is_some());
        if atx(lines[j]).is_some() || underlined {
            end = j;
            break;
        }
    }
    let section = lines[content.min(end)..end].join("\n").trim_start_matches('\n').to_string();
    let body: Vec<&str> = lines[..start].iter().chain(&lines[end..]).copied().collect();
    (body.join("\n").trim_matches('\n').to_string(), Some(section))
}

/// Abbreviations whose period does not end a sentence.
const ABBREVIATIONS: [&str; 16] =
    ["al", "e.g", "i.e", "fig", "figs", "eq", "eqs", "vs", "cf", "no", "vol", "pp", "sec", "ref", "refs", "approx"];

/// Sentences of a paragraph: a break after `.`, `!`, `?` (or their CJK forms), optionally followed
/// by a closing quote or bracket, then white space, when the next character is not a lowercase
/// letter and the period does not end a common abbreviation ("et al.", "e.g.", "Fig.").
pub fn sentences(paragraph: &str) -> Vec<String> {
    let text = paragraph;
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while let Some(found) = text[i..].find(['.', '!', '?', '。', '！', '？']) {
        i += found;
        let mark = text[i..].chars().next().unwrap_or_else(|| unreachable!("a mark was found at i"));
        let after = i + mark.len_utf8();
        let end = after
            + text[after..].find(|c| !matches!(c, '"' | '\'' | '”' | '’' | ')' | ']')).unwrap_or(text.len() - after);
        let next = end + text[end..].find(|c: char| !c.is_whitespace()).unwrap_or(text.len() - end);
        let abbreviation = mark == '.' && is_abbreviation(word_before(&text[start..i]));
        if next > end && !abbreviation && !text[next..].chars().next().is_some_and(char::is_lowercase) {
            let sentence = text[start..end].trim();
            if !sentence.is_empty() {
                out.push(sentence.to_string());
            }
            start = next;
            i = next;
        } else {
            i = after;
        }
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(rest.to_string());
    }
    out
}

/// The word a sentence mark follows: the text after the last white space or `(`.
fn word_before(text: &str) -> &str {
    match text.char_indices().rev().find(|&(_, c)| c.is_whitespace() || c == '(') {
        Some((at, c)) => &text[at + c.len_utf8()..],
        None => text,
    }
}

/// Whether a word, lowercased, is one of [`ABBREVIATIONS`].
fn is_abbreviation(word: &str) -> bool {
    if word.is_ascii() {
        return ABBREVIATIONS.iter().any(|a| a.eq_ignore_ascii_case(word));
    }
    // Outside ASCII a character may lowercase to an ASCII one (the Kelvin sign to `k`).
    ABBREVIATIONS.contains(&word.to_lowercase().as_str())
}

/// Every string of a JSON value, depth first, keys in file order; an object with a `context`
/// object yields only that object's strings (Bloom-Eval's article files).
pub fn json_strings(value: &serde_json::Value) -> Vec<&str> {
    let mut out = Vec::new();
    fn walk<'a>(value: &'a serde_json::Value, out: &mut Vec<&'a str>) {
        match value {
            serde_json::Value::String(s) => out.push(s),
            serde_json::Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            serde_json::Value::Object(map) => match map.get("context") {
                Some(context @ serde_json::Value::Object(_)) => walk(context, out),
                _ => map.values().for_each(|v| walk(v, out)),
            },
            _ => {}
        }
    }
    walk(value, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_headings_and_numbering() {
        assert_eq!(normalize_whitespace("a\u{00A0}b\u{200B}c  \r\nd\t"), "a bc\nd");
        assert_eq!(normalize_heading("  References:  "), "references");
        assert_eq!(atx("### 1.1 Origins  "), Some((3, "1.1 Origins".into())));
        assert_eq!(setext_level("----"), Some(2));
        assert_eq!((setext_level(" \t==="), setext_level("=-"), setext_level("a---")), (Some(1), None, None));
        assert_eq!((atx(" \t# A"), atx("A # B"), atx("#")), (Some((1, "A".into())), None, None));
        for name in REFERENCE_HEADINGS {
            assert!(may_name_references(name) && may_name_references(&format!(" {} ： ", name.to_uppercase())));
        }
        assert!(may_name_references("a b c d e f g h i j k l m") && !may_name_references("abcdefghijklmn"));
    }

    #[test]
    fn the_references_section_is_split_off() {
        let text = "# T\n\nBody [1].\n\n## References\n\n[1] A paper\n\n## Appendix\n\nMore.";
        let (body, refs) = split_references(text);
        assert_eq!(refs.as_deref(), Some("[1] A paper\n"));
        assert!(body.contains("Body [1].") && body.contains("## Appendix") && !body.contains("A paper"));
        let setext = "Body\n\nBibliography\n============\n[1] X";
        assert_eq!(split_references(setext).1.as_deref(), Some("[1] X"));
        assert_eq!(split_references("no refs").1, None);
    }

    /// `normalize_whitespace` as first written: whole-text replacements, then the lines trimmed.
    fn normalize_whitespace_by_passes(text: &str) -> String {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        let text: String = text
            .chars()
            .filter_map(|c| match c {
                '\u{00A0}' | '\u{202F}' | '\u{2009}' | '\u{200A}' => Some(' '),
                '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}' => None,
                other => Some(other),
            })
            .collect();
        text.split('\n').map(|line| line.trim_end_matches([' ', '\t'])).collect::<Vec<_>>().join("\n")
    }

    /// `sentences` as first written, over a vector of characters.
    fn sentences_by_chars(paragraph: &str) -> Vec<String> {
        let chars: Vec<char> = paragraph.chars().collect();
        let (mut out, mut start, mut i) = (Vec::new(), 0, 0);
        while i < chars.len() {
            if matches!(chars[i], '.' | '!' | '?' | '。' | '！' | '？') {
                let mut end = i + 1;
                while end < chars.len() && matches!(chars[end], '"' | '\'' | '”' | '’' | ')' | ']') {
                    end += 1;
                }
                let mut next = end;
                while next < chars.len() && chars[next].is_whitespace() {
                    next += 1;
                }
                let word: Vec<char> =
                    chars[start..i].iter().rev().take_while(|c| !c.is_whitespace() && **c != '(').copied().collect();
                let word = word.into_iter().rev().collect::<String>().to_lowercase();
                let abbreviation = chars[i] == '.' && ABBREVIATIONS.contains(&word.as_str());
                if next > end && !abbreviation && (next == chars.len() || !chars[next].is_lowercase()) {
                    let sentence: String = chars[start..end].iter().collect();
                    if !sentence.trim().is_empty() {
                        out.push(sentence.trim().to_string());
                    }
                    (start, i) = (next, next);
                    continue;
                }
            }
            i += 1;
        }
        let rest: String = chars[start..].iter().collect();
        if !rest.trim().is_empty() {
            out.push(rest.trim().to_string());
        }
        out
    }

    /// Texts built from the pieces the two functions treat specially, every order up to a length.
    fn tricky_texts() -> Vec<String> {
        let pieces = [
            "a",
            "B",
            ".",
            "!",
            "？",
            "。",
            " ",
            "\t",
            "\n",
            "\r",
            "\r\n",
            "\u{00A0}",
            "\u{200B}",
            "\u{FEFF}",
            "(",
            ")",
            "\"",
            "’",
            "]",
            "e.g",
            "Fig",
            "\u{212A}",
            "ü",
            "\u{3000}",
            "Vaswani et al",
            "i.e",
        ];
        crate::concatenations(&pieces, 3)
    }

    #[test]
    fn the_one_pass_readings_equal_the_first_ones() {
        for text in tricky_texts() {
            assert_eq!(normalize_whitespace(&text), normalize_whitespace_by_passes(&text), "{text:?}");
            assert_eq!(sentences(&text), sentences_by_chars(&text), "{text:?}");
        }
        let prose = "See Fig. 2 (e.g. [3]).  Then\u{00A0}\u{200B}it ends!\u{FEFF} \r\nNext\rline.\t \n\u{212A}. Done";
        assert_eq!(normalize_whitespace(prose), normalize_whitespace_by_passes(prose));
        assert_eq!(sentences(prose), sentences_by_chars(prose));
    }

    #[test]
    fn sentences_and_headings() {
        let s = sentences("ViT works [1]. It scales, e.g. to JFT. Vaswani et al. (2017) agree! Done");
        assert_eq!(s, ["ViT works [1].", "It scales, e.g. to JFT.", "Vaswani et al. (2017) agree!", "Done"]);
        assert_eq!(atx_headings("# Abstract\ntext\n  ## 1 Introduction"), ["Abstract", "1 Introduction"]);
    }
}
