//! OpenAlex's REST API as a [`Source`]: the topic through one full-text search (cursor paging,
//! `per_page` at most 100), every other work through the list endpoint's filters — ids by the OR
//! filter in batches of 50 (`openalex:W1|W2|…`), a work's citers by `cites:W…` most cited first —
//! and a merged work through its singleton, which is free and answers 301 with the work's new id.
//! Costs (developers.openalex.org, 2026): a search call ten times a list call, singletons free;
//! 100 requests a second at most; an API key required since February 2026, sent as `api_key`.

use crate::error::{Error, Result};
use crate::http::{Answer, ApiKey, CallKind, Calls, Http, HttpConfig};
use crate::{Note, Observer, Source, Work};
use litnav_core::work::Title;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};

/// OpenAlex's public API.
pub const PUBLIC_API: &str = "https://api.openalex.org";

/// The work fields litnav's OpenAlex reader reads; nothing else is asked for.
pub const FIELDS: &str = "id,doi,title,display_name,publication_year,publication_date,abstract_inverted_index,authorships,primary_location,cited_by_count,referenced_works,type,is_paratext,is_retracted,language,ids";

/// Ids per OR filter (OpenAlex's guides combine about 50 values into one call).
pub const IDS_PER_CALL: usize = 50;

/// The largest page OpenAlex serves.
const PAGE: usize = 100;

/// OpenAlex, at `base` (its public API or a stand-in).
pub struct OpenAlex {
    base: String,
    http: Http,
}

impl OpenAlex {
    /// A client of the API at `base` with `key`, under `config`.
    pub fn new(base: &str, key: Option<ApiKey>, config: HttpConfig) -> Result<OpenAlex> {
        let base = base.trim().trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://")) || base.len() <= "https://".len() {
            return Err(Error::Input(format!("the API URL must start with http:// or https://, not {base:?}")));
        }
        if let Some(key) = &key
            && key.value.trim().is_empty()
        {
            return Err(Error::Input(format!("the OpenAlex API key {} is empty", key.origin)));
        }
        Ok(OpenAlex { base: base.to_string(), http: Http::new("OpenAlex", config, key) })
    }

    fn list(
        &self,
        params: &[(&str, String)],
        kind: CallKind,
        observer: &dyn Observer,
    ) -> Result<(Vec<Work>, Option<String>)> {
        let query: Vec<String> = params.iter().map(|(k, v)| format!("{k}={}", encode(v))).collect();
        let url = format!("{}/works?{}&select={}", self.base, query.join("&"), encode(FIELDS));
        let check = |body: &str| page(body).map(|_| ()).map_err(|m| protocol(&url, m));
        let answer = self.http.get(&url, kind, &check, observer)?;
        let Answer::Body { body } = answer else {
            return Err(protocol(&url, "a list answered with a redirect or 404".into()));
        };
        let (results, next) = page(&body).map_err(|m| protocol(&url, m))?;
        let works =
            results.into_iter().map(|record| work(record).map_err(|m| protocol(&url, m))).collect::<Result<_>>()?;
        Ok((works, next))
    }

    /// A work by its id, following merges; `None` when OpenAlex does not know it.
    fn singleton(&self, id: &str, observer: &dyn Observer) -> Result<Option<Work>> {
        let mut id = id.to_string();
        for _ in 0..3 {
            let url = format!("{}/works/{id}?select={}", self.base, encode(FIELDS));
            let check = |body: &str| {
                serde_json::from_str::<Value>(body).map(|_| ()).map_err(|e| protocol(&url, format!("not JSON ({e})")))
            };
            match self.http.get(&url, CallKind::Singleton, &check, observer)? {
                Answer::Body { body } => {
                    let record = serde_json::from_str(&body).map_err(|e| protocol(&url, format!("not JSON ({e})")))?;
                    return work(record).map(Some).map_err(|m| protocol(&url, m));
                }
                Answer::Moved { location } => match short_id(location.split('?').next().unwrap_or_default()) {
                    Some(moved) if moved != id => id = moved,
                    _ => return Err(protocol(&url, format!("a redirect to {location:?}, which names no other work"))),
                },
                Answer::Missing => return Ok(None),
            }
        }
        Ok(None)
    }
}

impl Source for OpenAlex {
    fn name(&self) -> &'static str {
        "OpenAlex"
    }

    fn format(&self) -> &'static str {
        "openalex"
    }

    fn search(&self, topic: &str, limit: usize, observer: &dyn Observer) -> Result<Vec<Work>> {
        // Pages may list a work again: `limit` counts distinct works, and the repeats are kept
        // for the fetch to count.
        let mut works = Vec::new();
        let mut distinct = HashSet::new();
        let mut cursor = "*".to_string();
        while distinct.len() < limit {
            observer.check("searching the topic")?;
            let per_page = (limit - distinct.len()).min(PAGE).to_string();
            let params = [("search", topic.to_string()), ("per_page", per_page), ("cursor", cursor.clone())];
            let (page, next) = self.list(&params, CallKind::Search, observer)?;
            let empty = page.is_empty();
            for work in page {
                if distinct.len() < limit || distinct.contains(&work.id) {
                    distinct.insert(work.id.clone());
                    works.push(work);
                }
            }
            observer.advance(distinct.len().min(limit), limit);
            match next {
                Some(next) if !empty && next != cursor => cursor = next,
                _ => break,
            }
        }
        Ok(works)
    }

    fn by_ids(&self, ids: &[String], observer: &dyn Observer) -> Result<Vec<Work>> {
        let ids: Vec<&String> = ids.iter().filter(|id| is_work_id(id)).collect();
        let mut found: BTreeMap<String, Work> = BTreeMap::new();
        let mut missing = Vec::new();
        for (done, batch) in ids.chunks(IDS_PER_CALL).enumerate() {
            observer.check("fetching works by id")?;
            let filter = format!("openalex:{}", batch.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("|"));
            let (works, _) =
                self.list(&[("filter", filter), ("per_page", IDS_PER_CALL.to_string())], CallKind::List, observer)?;
            let answered: HashSet<String> = works.iter().map(|w| w.id.clone()).collect();
            missing.extend(batch.iter().filter(|id| !answered.contains(id.as_str())).map(|s| s.to_string()));
            for work in works {
                found.entry(work.id.clone()).or_insert(work);
            }
            observer.advance((done + 1) * IDS_PER_CALL, ids.len());
        }
        // Works the filter did not answer: merged ones answer their singleton with a redirect.
        for id in missing {
            observer.check("following merged works")?;
            if let Some(work) = self.singleton(&id, observer)? {
                let entry = found.entry(work.id.clone()).or_insert(work);
                if entry.id != id && !entry.aliases.contains(&id) {
                    entry.aliases.push(id);
                }
            }
        }
        Ok(found.into_values().collect())
    }

    fn citing(&self, id: &str, limit: usize, observer: &dyn Observer) -> Result<Vec<Work>> {
        observer.check("fetching citing works")?;
        if !is_work_id(id) || limit == 0 {
            return Ok(Vec::new());
        }
        let params = [
            ("filter", format!("cites:{id}")),
            ("sort", "cited_by_count:desc".to_string()),
            ("per_page", limit.min(PAGE).to_string()),
        ];
        Ok(self.list(&params, CallKind::List, observer)?.0)
    }

    fn calls(&self) -> Calls {
        self.http.calls()
    }

    fn record(&self, work: &Work) -> Value {
        let mut record = work.record.clone();
        if let Value::Object(fields) = &mut record {
            let references = work.references.iter().map(|r| Value::String(format!("https://openalex.org/{r}")));
            fields.insert("referenced_works".into(), Value::Array(references.collect()));
        }
        record
    }
}

fn protocol(url: &str, message: String) -> Error {
    Error::Protocol { url: url.to_string(), message: format!("did not answer as OpenAlex does: {message}") }
}

/// A list answer's works and next cursor, or what is wrong with it (for the fuzzer and tests: a
/// fetch reads every answer this way).
pub fn parse_page(body: &str) -> std::result::Result<(Vec<Work>, Option<String>), String> {
    let (results, next) = page(body)?;
    Ok((results.into_iter().map(work).collect::<std::result::Result<_, _>>()?, next))
}

/// A list page's results and next cursor, or what is wrong with it.
fn page(body: &str) -> std::result::Result<(Vec<Value>, Option<String>), String> {
    let value: Value = serde_json::from_str(body).map_err(|e| {
        let start: String = body.chars().take(60).collect();
        format!("the answer is not JSON ({e}; it begins {start:?})")
    })?;
    let Some(results) = value.get("results").and_then(Value::as_array) else {
        return Err("the answer has no `results` list".into());
    };
    let next = value.get("meta").and_then(|m| m.get("next_cursor")).and_then(Value::as_str).map(str::to_string);
    Ok((results.clone(), next))
}

/// A work record as a [`Work`], or what is wrong with it.
fn work(record: Value) -> std::result::Result<Work, String> {
    let id = record.get("id").and_then(Value::as_str).and_then(short_id).ok_or("a work without an OpenAlex `id`")?;
    let references = match record.get("referenced_works") {
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).filter_map(short_id).collect(),
        _ => Vec::new(),
    };
    let cited_by = record.get("cited_by_count").and_then(Value::as_u64).unwrap_or(0);
    let text = |field: &str| record.get(field).and_then(Value::as_str).map(str::trim).filter(|t| !t.is_empty());
    let mut notes = Vec::new();
    let title = match litnav_core::work::title(text("title"), text("display_name")) {
        Title::Text { text, cleaned } => {
            if cleaned {
                notes.push(Note::Repaired("markup removed from the title"));
            }
            Some(text)
        }
        Title::OnlyMarkup => {
            notes.push(Note::Skipped("a title that is only markup"));
            None
        }
        Title::Missing => {
            notes.push(Note::Skipped("no title"));
            None
        }
    };
    let flag = |field: &str| record.get(field).and_then(Value::as_bool).unwrap_or(false);
    let work_type = litnav_core::work::work_type(text("type"), flag("is_paratext"));
    if let Some(work_type) = work_type.filter(|t| litnav_core::work::NOT_RESEARCH.contains(&t.as_str())) {
        notes.push(Note::Flagged(format!("{work_type} (left out of maps)")));
    }
    if flag("is_retracted") {
        notes.push(Note::Flagged("retracted".to_string()));
    }
    Ok(Work { id, title, references, cited_by, aliases: Vec::new(), notes, record })
}

/// `W123` from `https://openalex.org/W123`, `W123` or `/works/W123`.
pub fn short_id(text: &str) -> Option<String> {
    let id = text.trim().rsplit('/').next()?.to_string();
    let id = id.to_uppercase();
    is_work_id(&id).then_some(id)
}

fn is_work_id(id: &str) -> bool {
    id.len() > 1 && id.starts_with('W') && id[1..].bytes().all(|b| b.is_ascii_digit())
}

/// Percent-encoding of a query value (RFC 3986: everything but unreserved characters).
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_encoding() {
        assert_eq!(short_id("https://openalex.org/W2741809807").as_deref(), Some("W2741809807"));
        assert_eq!(short_id("/works/w12").as_deref(), Some("W12"));
        assert_eq!(short_id("https://openalex.org/A12"), None);
        assert_eq!(encode("graph neural networks|x:y"), "graph%20neural%20networks%7Cx%3Ay");
    }

    #[test]
    fn a_page_that_is_not_openalex_is_named() {
        assert!(page("<html>").unwrap_err().starts_with("the answer is not JSON"));
        assert_eq!(page("{\"data\": []}").unwrap_err(), "the answer has no `results` list");
        let (results, next) = page(r#"{"meta": {"next_cursor": "abc"}, "results": [{"id": "W1"}]}"#).unwrap();
        assert_eq!((results.len(), next.as_deref()), (1, Some("abc")));
    }

    #[test]
    fn an_empty_key_or_a_strange_url_is_refused_before_any_call() {
        let key = ApiKey { value: " ".into(), origin: "from the settings file".into() };
        let error = OpenAlex::new(PUBLIC_API, Some(key), HttpConfig::default()).err().unwrap().to_string();
        assert_eq!(error, "the OpenAlex API key from the settings file is empty");
        assert!(OpenAlex::new("ftp://example.org", None, HttpConfig::default()).is_err());
    }
}
