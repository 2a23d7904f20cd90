//! Text as a reader sees it, from the markup sources put in titles and abstracts: OpenAlex (and
//! the publishers behind it) write `<i>Drosophila</i>`, `CO<sub>2</sub>`, `<scp>…</scp>`, MathML
//! (`<mml:math>…</mml:math>`), JATS paragraphs (`<jats:p>`) and HTML entities (`&amp;`,
//! `&#x2013;`). [`plain_text`] is the one place every reader cleans them.

use std::borrow::Cow;

/// Elements that sit inside a word or a formula (`CO<sub>2</sub>` is "CO2"): removed without a
/// space. Every other element (a paragraph, a line break, a title) separates words.
const INLINE: &[&str] = &[
    "a",
    "abbr",
    "b",
    "big",
    "em",
    "font",
    "i",
    "inline-formula",
    "italic",
    "bold",
    "sc",
    "scp",
    "small",
    "span",
    "strong",
    "sub",
    "sup",
    "tt",
    "u",
    "underline",
    "monospace",
    "named-content",
    "styled-content",
];

/// `text` without markup: elements removed (an inline one without a trace, any other as a space),
/// character references and the common named entities decoded, white space collapsed to single
/// spaces and trimmed. A `<` that does not open an element ("p < 0.05") stays. Borrowed when
/// there was nothing to clean.
pub fn plain_text(text: &str) -> Cow<'_, str> {
    let needs_cleaning = text.contains(['<', '&'])
        || text.contains("  ")
        || text.contains(['\n', '\t', '\r', '\u{a0}'])
        || text.trim().len() != text.len();
    if !needs_cleaning {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(['<', '&']) {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        if rest.starts_with('<') {
            match element(rest) {
                Some((length, inline)) => {
                    if !inline {
                        out.push(' ');
                    }
                    rest = &rest[length..];
                }
                None => {
                    out.push('<');
                    rest = &rest[1..];
                }
            }
        } else {
            match entity(rest) {
                Some((length, decoded)) => {
                    out.push(decoded);
                    rest = &rest[length..];
                }
                None => {
                    out.push('&');
                    rest = &rest[1..];
                }
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// The length of the element tag `text` opens with (`<i>`, `</mml:mi>`, `<br/>`, `<sup
/// xmlns="…">`) and whether it is an inline one; `None` when `<` opens no tag.
fn element(text: &str) -> Option<(usize, bool)> {
    let bytes = text.as_bytes();
    let mut at = 1;
    if bytes.get(at) == Some(&b'/') {
        at += 1;
    }
    let name_start = at;
    if !bytes.get(at).is_some_and(u8::is_ascii_alphabetic) {
        return None;
    }
    while bytes.get(at).is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b':' | b'-' | b'_' | b'.')) {
        at += 1;
    }
    let name = &text[name_start..at];
    match bytes.get(at) {
        Some(b'>') => {}
        Some(b'/') if bytes.get(at + 1) == Some(&b'>') => at += 1,
        Some(b) if b.is_ascii_whitespace() => {
            // Attributes: up to the closing `>`, quoted values may hold `>`; no `<` inside.
            let mut quote: Option<u8> = None;
            loop {
                at += 1;
                match (bytes.get(at), quote) {
                    (None, _) => return None,
                    (Some(&q), Some(open)) if q == open => quote = None,
                    (Some(_), Some(_)) => {}
                    (Some(&q @ (b'"' | b'\'')), None) => quote = Some(q),
                    (Some(b'>'), None) => break,
                    (Some(b'<'), None) => return None,
                    (Some(_), None) => {}
                }
            }
        }
        _ => return None,
    }
    let local = name.rsplit(':').next().unwrap_or(name).to_ascii_lowercase();
    let inline = INLINE.contains(&local.as_str()) || name.to_ascii_lowercase().starts_with("mml:");
    Some((at + 1, inline))
}

/// The length of the character reference `text` opens with and the character it stands for.
fn entity(text: &str) -> Option<(usize, char)> {
    let end = text[1..].find(';').map(|i| i + 1).filter(|&end| end <= 12)?;
    let name = &text[1..end];
    let decoded = if let Some(number) = name.strip_prefix('#') {
        let code = match number.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => number.parse().ok()?,
        };
        char::from_u32(code)?
    } else {
        match name {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            "nbsp" => ' ',
            "ndash" => '–',
            "mdash" => '—',
            "hellip" => '…',
            "lsquo" => '‘',
            "rsquo" => '’',
            "ldquo" => '“',
            "rdquo" => '”',
            "times" => '×',
            "deg" => '°',
            "plusmn" => '±',
            "micro" => 'µ',
            "alpha" => 'α',
            "beta" => 'β',
            "gamma" => 'γ',
            "delta" => 'δ',
            "kappa" => 'κ',
            "lambda" => 'λ',
            "mu" => 'μ',
            "pi" => 'π',
            "sigma" => 'σ',
            "tau" => 'τ',
            "omega" => 'ω',
            _ => return None,
        }
    };
    Some((end + 1, decoded))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_from_openalex_titles_becomes_text() {
        assert_eq!(plain_text("Wing growth in <i>Drosophila</i>"), "Wing growth in Drosophila");
        assert_eq!(plain_text("CO<sub>2</sub> uptake &amp; release"), "CO2 uptake & release");
        assert_eq!(plain_text("<scp>Covid</scp>‐19 outcomes"), "Covid‐19 outcomes");
        assert_eq!(plain_text("<jats:p>First.</jats:p><jats:p>Second.</jats:p>"), "First. Second.");
        assert_eq!(plain_text("x<br/>y"), "x y");
        assert_eq!(plain_text(r#"<sup xmlns="http://x">3</sup>He"#), "3He");
        assert_eq!(
            plain_text(
                r#"a <mml:math><mml:mi>x</mml:mi><mml:mo stretchy="false">&gt;</mml:mo><mml:mn>1</mml:mn></mml:math> b"#
            ),
            "a x>1 b"
        );
        assert_eq!(plain_text("1990&#x2013;2000 &#8212; &ndash;"), "1990–2000 — –");
        assert_eq!(plain_text("  two\n lines\t"), "two lines");
    }

    #[test]
    fn text_that_only_looks_like_markup_stays() {
        assert_eq!(plain_text("p < 0.05 and q<1"), "p < 0.05 and q<1");
        assert_eq!(plain_text("AT&T & friends; R&D"), "AT&T & friends; R&D");
        assert_eq!(plain_text("a <b unclosed"), "a <b unclosed");
        assert_eq!(plain_text("&#xZZ; &unknown;"), "&#xZZ; &unknown;");
        assert!(matches!(plain_text("Attention Is All You Need"), Cow::Borrowed(_)));
    }
}
