//! What a remote caller may read of the machine: nothing. The library's messages name files
//! because the CLI's user owns them (`no paper with id … in /home/ana/corpora/nlp`); the server
//! says the same things with every place on its machine replaced — the places it knows by what
//! they are ("the corpus", "the map store", "the API"), any other absolute path by `[path]` — so
//! an answer never shows a directory, a user name, or where the key was read from.
//!
//! The places are registered once per server (several servers in one process, as in tests, add
//! theirs; replacing more is never wrong), and every [`crate::error::ApiError`] is built through
//! [`scrub`], job failures included.

use std::sync::RwLock;

/// Known places and what an answer calls them, longest first.
static PLACES: RwLock<Vec<(String, &'static str)>> = RwLock::new(Vec::new());

/// From now on, answers call `place` (a directory, a file, a URL) `name`. Its canonical form,
/// when it differs, is registered too.
pub fn register(place: &str, name: &'static str) {
    let mut forms = vec![place.trim_end_matches('/').to_string()];
    if let Ok(canonical) = std::fs::canonicalize(place) {
        forms.push(canonical.display().to_string());
    }
    let Ok(mut places) = PLACES.write() else { return };
    for form in forms.into_iter().filter(|f| f.len() > 1) {
        if !places.iter().any(|(known, _)| *known == form) {
            places.push((form, name));
        }
    }
    places.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
}

/// `message` as a remote caller may read it.
pub fn scrub(message: &str) -> String {
    let mut text = message.to_string();
    if let Ok(places) = PLACES.read() {
        for (place, name) in places.iter() {
            text = text.replace(place.as_str(), name);
        }
    }
    hide_absolute_paths(&text)
}

/// Characters that end a path in a message (quotes and brackets around it, separators after it).
fn ends_path(c: char) -> bool {
    c.is_whitespace() || matches!(c, '`' | '\'' | '"' | ')' | ']' | ',' | ';' | '>')
}

/// Characters after which a `/` starts a path (not a URL's `//` or a ratio's `/`).
fn starts_path_after(c: Option<char>) -> bool {
    c.is_none_or(|c| c.is_whitespace() || matches!(c, '`' | '\'' | '"' | '(' | '[' | '=' | '<'))
}

/// Every absolute path of two or more components in `text` replaced by `[path]` (the server's own
/// routes, `/api/…`, are not places on the machine and stay).
fn hide_absolute_paths(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut previous = None;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '/' && starts_path_after(previous) {
            let end = rest.find(ends_path).unwrap_or(rest.len());
            let (run, after) = rest.split_at(end);
            let trimmed = run.trim_end_matches(['.', ':']);
            let components = trimmed.split('/').filter(|part| !part.is_empty()).count();
            if components >= 2 && !trimmed.starts_with("/api/") {
                out.push_str("[path]");
                out.push_str(&run[trimmed.len()..]);
                previous = run.chars().last();
                rest = after;
                continue;
            }
        }
        out.push(c);
        previous = Some(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_places_are_named_and_other_paths_hidden() {
        register("/srv/litnav-test-redact/corpora/nlp/", "the corpus");
        register("/srv/litnav-test-redact", "litnav's home");
        let said = scrub("no paper with id `p9` in /srv/litnav-test-redact/corpora/nlp");
        assert_eq!(said, "no paper with id `p9` in the corpus");
        assert_eq!(
            scrub("reading /srv/litnav-test-redact/maps/x.json: denied"),
            "reading litnav's home/maps/x.json: denied"
        );
        assert_eq!(
            scrub("the key from the file /home/ana/.config/litnav/settings.toml was refused"),
            "the key from the file [path] was refused"
        );
        assert_eq!(scrub("cannot open '/tmp/a/b.jsonl': gone."), "cannot open '[path]': gone.");
        assert_eq!(scrub("see /etc/passwd."), "see [path].");
        for kept in [
            "POST /api/maps needs a topic",
            "http://127.0.0.1:9/works?search=x: 503",
            "a ratio 3/4 and a lone /",
            "k: must be between 2 and 1000 papers",
        ] {
            assert_eq!(scrub(kept), kept);
        }
    }
}
