//! BibTeX, as reference managers export it. Entries of every type are read; `@string` macros
//! (and the month abbreviations) are expanded, `#` concatenates, `@comment` and `@preamble` are
//! skipped, and text outside entries is ignored as BibTeX itself ignores it.
//!
//! Fields used: `title` (required), `abstract`, `year`, `author`, `journal` / `booktitle` (venue),
//! `doi`, `eprint` with `archiveprefix = arXiv`, `url` on arxiv.org; the citation key is kept as
//! the external id `bibtex`. LaTeX accents and the common escapes are turned into Unicode, braces
//! are dropped, and white space is collapsed.

use super::{Item, PaperRecord, Sink, at};
use crate::error::{Error, Result};
use crate::paper::{IdOrigin, Paper};
use std::collections::HashMap;
use std::path::Path;
use unicode_normalization::UnicodeNormalization;

pub(crate) fn read(path: &Path, sink: &mut Sink<'_>) -> Result<()> {
    let text = super::lines::read_to_string(path)?;
    let mut parser = Parser { chars: text.chars().collect(), pos: 0, line: 1, path, macros: month_macros() };
    while parser.skip_to_entry() {
        let start_line = parser.line;
        match parser.entry() {
            Ok(Some(entry)) => sink.take(to_record(path, entry).map(|r| vec![Item::Paper(Box::new(r))]))?,
            Ok(None) => {}
            Err(error) => {
                // A syntax error loses the rest of this entry; resume at the next `@`.
                sink.take(Err(error))?;
                if parser.line == start_line && parser.pos < parser.chars.len() {
                    parser.bump();
                }
            }
        }
    }
    Ok(())
}

struct Entry {
    key: String,
    line: usize,
    fields: Vec<(String, String, usize)>,
}

struct Parser<'a> {
    chars: Vec<char>,
    pos: usize,
    line: usize,
    path: &'a Path,
    macros: HashMap<String, String>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn error(&self, field: Option<&str>, message: impl Into<String>) -> Error {
        Error::BadRecord { at: at(self.path, self.line, field), message: message.into() }
    }

    /// Move to the next `@`; false at the end of input.
    fn skip_to_entry(&mut self) -> bool {
        while let Some(c) = self.peek() {
            if c == '@' {
                return true;
            }
            self.bump();
        }
        false
    }

    fn identifier(&mut self) -> String {
        let mut out = String::new();
        while let Some(c) = self.peek() {
            if c.is_alphanumeric() || "_-:.+/'".contains(c) {
                out.push(c);
                self.bump();
            } else {
                break;
            }
        }
        out
    }

    /// One `@type{...}` block. `None` for blocks that are not entries (`@string`, `@comment`, …).
    fn entry(&mut self) -> Result<Option<Entry>> {
        let line = self.line;
        self.bump(); // '@'
        let kind = self.identifier().to_ascii_lowercase();
        self.skip_space();
        let close = match self.bump() {
            Some('{') => '}',
            Some('(') => ')',
            _ => return Err(self.error(None, format!("`@{kind}` must be followed by `{{` or `(`"))),
        };
        match kind.as_str() {
            "comment" | "preamble" => {
                self.delimited(close, line)?;
                Ok(None)
            }
            "string" => {
                self.skip_space();
                let name = self.identifier().to_ascii_lowercase();
                self.skip_space();
                if self.bump() != Some('=') {
                    return Err(self.error(None, format!("`@string` starting at line {line} needs `name = value`")));
                }
                let value = self.value(&name)?;
                self.skip_space();
                self.bump();
                self.macros.insert(name, value);
                Ok(None)
            }
            "" => Err(self.error(None, "`@` must be followed by an entry type")),
            _ => {
                self.skip_space();
                let mut key = String::new();
                while let Some(c) = self.peek() {
                    if c == ',' || c == close || c.is_whitespace() {
                        break;
                    }
                    key.push(c);
                    self.bump();
                }
                let fields = self.fields(close, line)?;
                Ok(Some(Entry { key, line, fields }))
            }
        }
    }

    fn fields(&mut self, close: char, entry_line: usize) -> Result<Vec<(String, String, usize)>> {
        let mut fields = Vec::new();
        loop {
            self.skip_space();
            match self.peek() {
                None => return Err(self.error(None, format!("the entry starting at line {entry_line} is not closed"))),
                Some(',') => {
                    self.bump();
                }
                Some(c) if c == close => {
                    self.bump();
                    return Ok(fields);
                }
                Some('@') => {
                    return Err(self.error(None, format!("the entry starting at line {entry_line} is not closed")));
                }
                Some(_) => {
                    let line = self.line;
                    let name = self.identifier().to_ascii_lowercase();
                    if name.is_empty() {
                        let c = self.peek().unwrap_or(' ');
                        return Err(
                            self.error(None, format!("unexpected `{c}` in the entry starting at line {entry_line}"))
                        );
                    }
                    self.skip_space();
                    if self.bump() != Some('=') {
                        return Err(self.error(Some(&name), "needs `=` and a value"));
                    }
                    let value = self.value(&name)?;
                    fields.push((name, value, line));
                }
            }
        }
    }

    /// A field value: pieces joined by `#`, each `{…}`, `"…"`, a number or a macro name.
    fn value(&mut self, field: &str) -> Result<String> {
        let mut out = String::new();
        loop {
            self.skip_space();
            match self.peek() {
                Some('{') => {
                    let line = self.line;
                    self.bump();
                    out.push_str(&self.delimited('}', line)?);
                }
                Some('"') => {
                    let line = self.line;
                    self.bump();
                    out.push_str(&self.delimited('"', line)?);
                }
                Some(c) if c.is_alphanumeric() => {
                    let word = self.identifier();
                    if word.chars().all(|c| c.is_ascii_digit()) {
                        out.push_str(&word);
                    } else {
                        match self.macros.get(&word.to_ascii_lowercase()) {
                            Some(expansion) => out.push_str(expansion),
                            None => {
                                return Err(
                                    self.error(Some(field), format!("uses the undefined @string macro `{word}`"))
                                );
                            }
                        }
                    }
                }
                _ => return Err(self.error(Some(field), "has no value (expected `{`, `\"`, a number or a macro)")),
            }
            self.skip_space();
            if self.peek() == Some('#') {
                self.bump();
            } else {
                return Ok(out);
            }
        }
    }

    /// Text up to the `close` (`}`, `)` or `"`) that ends the already-consumed opener, outside any
    /// inner braces, which are kept; a backslash escapes the next character.
    fn delimited(&mut self, close: char, start_line: usize) -> Result<String> {
        let mut depth = 0usize;
        let mut out = String::new();
        while let Some(c) = self.bump() {
            match c {
                '\\' => {
                    out.push(c);
                    if let Some(next) = self.bump() {
                        out.push(next);
                    }
                    continue;
                }
                c if c == close && depth == 0 => return Ok(out),
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
            out.push(c);
        }
        let opener = if close == '"' { "quote" } else { "brace" };
        Err(self.error(None, format!("the {opener} opened at line {start_line} is never closed")))
    }
}

fn month_macros() -> HashMap<String, String> {
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ]
    .iter()
    .map(|m| (m[..3].to_string(), m[..1].to_uppercase() + &m[1..]))
    .collect()
}

fn to_record(path: &Path, entry: Entry) -> Result<PaperRecord> {
    let get =
        |name: &str| entry.fields.iter().find(|(n, _, _)| n == name).map(|(_, v, line)| (latex_to_text(v), *line));
    let title = match get("title") {
        Some((title, _)) if !title.is_empty() => title,
        _ => {
            return Err(Error::BadRecord {
                at: at(path, entry.line, Some("title")),
                message: format!("entry `{}` has no title; a paper needs one", entry.key),
            });
        }
    };
    let year = match get("year") {
        None => None,
        Some((raw, line)) => Some(parse_year(&raw).ok_or_else(|| Error::BadRecord {
            at: at(path, line, Some("year")),
            message: format!("expected a four-digit year, found `{raw}`"),
        })?),
    };
    let mut paper = Paper {
        id_origin: IdOrigin::Title,
        title,
        abstract_text: get("abstract").map(|(a, _)| a).filter(|a| !a.is_empty()),
        year,
        venue: get("journal").or_else(|| get("booktitle")).map(|(v, _)| v).filter(|v| !v.is_empty()),
        authors: get("author").map(|(a, _)| split_authors(&a)).unwrap_or_default(),
        ..Paper::default()
    };
    if !entry.key.is_empty() {
        paper.ids.insert("bibtex".into(), entry.key.clone());
    }
    if let Some((doi, _)) = get("doi") {
        paper.ids.insert("doi".into(), crate::normalize::clean_doi(&doi));
    }
    let arxiv_prefix = get("archiveprefix").is_some_and(|(p, _)| p.eq_ignore_ascii_case("arxiv"));
    if let (true, Some((eprint, _))) = (arxiv_prefix, get("eprint")) {
        paper.ids.insert("arxiv".into(), eprint);
    } else if let Some((url, _)) = get("url")
        && let Some(rest) = url.split("arxiv.org/abs/").nth(1)
    {
        paper.ids.insert("arxiv".into(), rest.trim_end_matches(".pdf").to_string());
    }
    Ok(PaperRecord { paper, survey_explicit: false, references: Vec::new(), at: at(path, entry.line, None) })
}

/// The first run of four digits (`"2019a"`, `"{2019}"`, `"to appear 2021"`).
fn parse_year(raw: &str) -> Option<i32> {
    let digits: Vec<char> = raw.chars().collect();
    digits
        .windows(4)
        .find(|w| w.iter().all(char::is_ascii_digit))
        .and_then(|w| w.iter().collect::<String>().parse().ok())
}

/// `"Doe, Jane and John Smith and others"` → `["Jane Doe", "John Smith"]`; `and` inside braces
/// (a corporate author) does not split.
fn split_authors(field: &str) -> Vec<String> {
    let words: Vec<&str> = field.split_whitespace().collect();
    let mut names = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut depth = 0i32;
    for word in words {
        if depth == 0 && word.eq_ignore_ascii_case("and") {
            names.push(current.join(" "));
            current.clear();
            continue;
        }
        depth += word.matches('{').count() as i32 - word.matches('}').count() as i32;
        current.push(word);
    }
    names.push(current.join(" "));
    names
        .into_iter()
        .filter(|n| !n.is_empty() && !n.eq_ignore_ascii_case("others"))
        .map(|name| {
            let name = latex_to_text(&name);
            let parts: Vec<&str> = name.split(',').map(str::trim).collect();
            match parts.as_slice() {
                [last, first] => format!("{first} {last}"),
                [last, suffix, first] => format!("{first} {last} {suffix}"),
                _ => name.clone(),
            }
        })
        .collect()
}

/// Turn BibTeX/LaTeX text into plain Unicode: accent commands (`\"{o}`, `{\'e}`, `\c c`), named
/// letters (`\ss`, `\o`, `\ae`), escapes (`\&`, `\%`, `\$`, `\_`, `\#`), `~` and dashes; braces are
/// removed and white space collapsed.
pub(crate) fn latex_to_text(raw: &str) -> String {
    let chars: Vec<char> = raw.chars().collect();
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '{' | '}' => i += 1,
            '~' => {
                out.push(' ');
                i += 1;
            }
            '-' if chars.get(i + 1) == Some(&'-') => {
                let triple = chars.get(i + 2) == Some(&'-');
                out.push(if triple { '—' } else { '–' });
                i += if triple { 3 } else { 2 };
            }
            '\\' => i = latex_command(&chars, i + 1, &mut out),
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out.nfc().collect::<String>().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Handle the command after a backslash at `i`; returns the index after it.
fn latex_command(chars: &[char], mut i: usize, out: &mut String) -> usize {
    let Some(&c) = chars.get(i) else { return i };
    let combining = match c {
        '\'' => Some('\u{301}'),
        '`' => Some('\u{300}'),
        '^' => Some('\u{302}'),
        '"' => Some('\u{308}'),
        '~' => Some('\u{303}'),
        '=' => Some('\u{304}'),
        '.' => Some('\u{307}'),
        _ => None,
    };
    if let Some(mark) = combining {
        return accent(chars, i + 1, mark, out);
    }
    if matches!(c, '&' | '%' | '$' | '_' | '#' | '{' | '}' | ' ') {
        out.push(c);
        return i + 1;
    }
    if c == '\\' {
        out.push(' ');
        return i + 1;
    }
    let start = i;
    while chars.get(i).is_some_and(|c| c.is_ascii_alphabetic()) {
        i += 1;
    }
    let name: String = chars[start..i].iter().collect();
    let letter_accent = match name.as_str() {
        "u" => Some('\u{306}'),
        "v" => Some('\u{30C}'),
        "H" => Some('\u{30B}'),
        "c" => Some('\u{327}'),
        "k" => Some('\u{328}'),
        _ => None,
    };
    if let Some(mark) = letter_accent {
        while chars.get(i) == Some(&' ') {
            i += 1;
        }
        return accent(chars, i, mark, out);
    }
    let named = match name.as_str() {
        "ss" => "ß",
        "o" => "ø",
        "O" => "Ø",
        "ae" => "æ",
        "AE" => "Æ",
        "oe" => "œ",
        "OE" => "Œ",
        "aa" => "å",
        "AA" => "Å",
        "l" => "ł",
        "L" => "Ł",
        "i" => "ı",
        "j" => "ȷ",
        "textendash" => "–",
        "textemdash" => "—",
        "&" => "&",
        // Unknown commands (`\emph`, `\textit`, `\mathrm`) vanish; their braced argument stays.
        _ => "",
    };
    out.push_str(named);
    // A control word eats the single space after it (`\ss ber` = `ßber`).
    if !name.is_empty() && chars.get(i) == Some(&' ') && !named.is_empty() {
        i += 1;
    }
    i
}

/// Put `mark` on the next letter, which may be braced (`{o}`) or a dotless `\i`.
fn accent(chars: &[char], mut i: usize, mark: char, out: &mut String) -> usize {
    let braced = chars.get(i) == Some(&'{');
    if braced {
        i += 1;
    }
    let base = match chars.get(i) {
        Some('\\') if chars.get(i + 1) == Some(&'i') => {
            i += 2;
            'i'
        }
        Some(&c) => {
            i += 1;
            c
        }
        None => return i,
    };
    out.push(base);
    out.push(mark);
    if braced && chars.get(i) == Some(&'}') {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latex_accents_and_escapes() {
        assert_eq!(latex_to_text(r#"Sch{\"o}lkopf and G\"{o}del"#), "Schölkopf and Gödel");
        assert_eq!(latex_to_text(r"{\'E}cole \c{c}a \v{s}ar \ss"), "École ça šar ß");
        assert_eq!(latex_to_text(r"{BERT}: Pre-training -- fast \& {\em deep}"), "BERT: Pre-training – fast & deep");
        assert_eq!(latex_to_text(r#"Na\"{\i}ve"#), "Naïve");
    }

    #[test]
    fn authors_split_and_reordered() {
        assert_eq!(
            split_authors("Doe, Jane and John Smith and {Barnes and Noble} and others"),
            vec!["Jane Doe", "John Smith", "Barnes and Noble"]
        );
        assert_eq!(split_authors("King, Jr, Martin"), vec!["Martin King Jr"]);
    }

    #[test]
    fn years() {
        assert_eq!(parse_year("2019a"), Some(2019));
        assert_eq!(parse_year("to appear"), None);
    }
}
