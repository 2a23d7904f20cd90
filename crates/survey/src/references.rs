//! Bloom-Eval's `reference.json`, read without building a JSON tree: each entry's fields are
//! taken as the parser meets them (strings borrowed from the file's text when they hold no
//! escapes), and what litnav does not read is skipped unparsed. A tree of ordered maps (one per
//! entry) cost half of reading a survey's references.
//!
//! Two schemas: `reference_N` entries at the top level, or the older `reference_num` count with
//! each entry at `paper_N_info.reference_N`. JSON's rule that a repeated key's last value counts
//! holds in both.

use crate::markers;
use crate::{Reference, Result};
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::Path;

/// `reference.json`: bibliography entries in the order of their numbers.
pub fn read(path: &Path) -> Result<Vec<Reference>> {
    let text = crate::read_text(path)?;
    let Kept(listing) = serde_json::from_str(&text).map_err(|e| crate::json_error(path, &e))?;
    let Some(Listing { count, listed, papers }) = listing else {
        return Err(crate::field_error(path, "(root)", "an object of reference_N entries"));
    };
    let entries: Vec<(u32, String, Fields<'_>)> = match count {
        Some(count) => {
            // `paper_N_info` for N from 1 to the count (its last value, when repeated).
            let numbered: BTreeMap<u32, &Value> = papers
                .iter()
                .filter_map(|(key, info)| {
                    let number: u32 = key.strip_prefix("paper_")?.strip_suffix("_info")?.parse().ok()?;
                    (*key == format!("paper_{number}_info") && (1..=count).contains(&u64::from(number)))
                        .then_some((number, info))
                })
                .collect();
            numbered
                .into_iter()
                .filter_map(|(i, info)| {
                    let Kept(fields) = Kept::<Fields<'_>>::deserialize(info.get(format!("reference_{i}"))?).ok()?;
                    Some((i, format!("reference_{i}"), fields?))
                })
                .collect()
        }
        None => {
            let mut entries = Vec::with_capacity(listed.len());
            for (number, key, entry) in listed {
                let Some(fields) = entry else { return Err(crate::field_error(path, &key, "an object")) };
                entries.push((number, key.into_owned(), fields));
            }
            entries.sort_by_key(|(n, _, _)| *n);
            entries
        }
    };
    Ok(entries.into_iter().filter_map(|(number, key, fields)| fields.reference(number, key)).collect())
}

/// The top level of the file: the older schema's count and `paper_N_info` objects, and the
/// `reference_N` entries (`None` for an entry that is not an object), in file order with a
/// repeated key's last value at its first place.
#[derive(Default)]
struct Listing<'a> {
    count: Option<u64>,
    listed: Vec<(u32, Cow<'a, str>, Option<Fields<'a>>)>,
    papers: Vec<(String, Value)>,
}

impl<'de> FromMap<'de> for Listing<'de> {
    fn from_map<M: MapAccess<'de>>(mut map: M) -> std::result::Result<Self, M::Error> {
        let mut listing = Listing::default();
        // Where each `reference_N` key was first listed.
        let mut places: HashMap<Cow<'de, str>, usize> = HashMap::new();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "reference_num" {
                listing.count = map.next_value::<Value>()?.as_u64();
            } else if let Some(number) = key.strip_prefix("reference_").and_then(|n| n.parse::<u32>().ok()) {
                let Kept(fields) = map.next_value()?;
                match places.get(&key) {
                    Some(&place) => listing.listed[place].2 = fields,
                    None => {
                        places.insert(key.clone(), listing.listed.len());
                        listing.listed.push((number, key, fields));
                    }
                }
            } else if key.starts_with("paper_") && key.ends_with("_info") {
                listing.papers.push((key.into_owned(), map.next_value()?));
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(listing)
    }
}

/// The fields of an entry litnav reads (a repeated key's last value counts).
#[derive(Default)]
struct Fields<'a> {
    title: Option<Cow<'a, str>>,
    searched_title: Option<Cow<'a, str>>,
    date: Option<Cow<'a, str>>,
    publication: Option<Cow<'a, str>>,
    abstract_text: Option<Cow<'a, str>>,
    authors: Option<Value>,
    citation_count: Option<Value>,
}

impl<'de> FromMap<'de> for Fields<'de> {
    fn from_map<M: MapAccess<'de>>(mut map: M) -> std::result::Result<Self, M::Error> {
        let mut fields = Fields::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let text = match key.as_ref() {
                "title" => &mut fields.title,
                "searched_title" => &mut fields.searched_title,
                "date" => &mut fields.date,
                "publication" => &mut fields.publication,
                "abs" => &mut fields.abstract_text,
                "authors" => {
                    fields.authors = Some(map.next_value()?);
                    continue;
                }
                "citation_count" => {
                    fields.citation_count = Some(map.next_value()?);
                    continue;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            *text = map.next_value::<Text<'de>>()?.0;
        }
        Ok(fields)
    }
}

impl<'a> Fields<'a> {
    /// The bibliography entry, or `None` without a title.
    fn reference(self, number: u32, key: String) -> Option<Reference> {
        let text = |field: Option<Cow<'a, str>>| field.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
        let title = text(self.title).or_else(|| text(self.searched_title))?;
        let authors: Vec<String> = match self.authors {
            Some(Value::Array(list)) => list.iter().map(crate::value_text).collect(),
            Some(Value::String(s)) if !s.trim().is_empty() => vec![s],
            _ => Vec::new(),
        };
        let year = text(self.date).map(|date| markers::normalize_year(&date)).filter(|y| !y.is_empty());
        let citation_count = match self.citation_count {
            Some(Value::Number(n)) => n.as_u64(),
            Some(Value::String(s)) if !s.is_empty() && s.chars().all(|c| c.is_ascii_digit()) => s.parse().ok(),
            _ => None,
        };
        let author_year = match (authors.first(), &year) {
            (Some(author), Some(year)) => markers::author_year(author, year),
            _ => None,
        };
        Some(Reference {
            key,
            number: Some(number),
            author_year,
            title,
            authors,
            year,
            venue: text(self.publication),
            citation_count,
            abstract_text: text(self.abstract_text).filter(|a| !a.eq_ignore_ascii_case("n/a")),
            raw: None,
            paper_id: None,
        })
    }
}

/// Something read from a JSON object.
trait FromMap<'de>: Sized {
    fn from_map<M: MapAccess<'de>>(map: M) -> std::result::Result<Self, M::Error>;
}

/// A value read from an object, or `None` for any other kind of JSON value (skipped).
struct Kept<T>(Option<T>);

/// A text: a string (borrowed when it holds no escapes), or `None` for any other kind of JSON
/// value (skipped), as `Value::as_str` would say.
struct Text<'a>(Option<Cow<'a, str>>);

/// A visitor's answers to scalars and lists: `none`, the list skipped.
macro_rules! others_are_none {
    ($none:expr) => {
        fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> std::result::Result<Self::Value, S::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok($none)
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> std::result::Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> std::result::Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> std::result::Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> std::result::Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_unit<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
            Ok($none)
        }
    };
}

impl<'de, T: FromMap<'de>> Deserialize<'de> for Kept<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct KeptVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: FromMap<'de>> Visitor<'de> for KeptVisitor<T> {
            type Value = Kept<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<M: MapAccess<'de>>(self, map: M) -> std::result::Result<Kept<T>, M::Error> {
                Ok(Kept(Some(T::from_map(map)?)))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> std::result::Result<Kept<T>, E> {
                Ok(Kept(None))
            }
            others_are_none!(Kept(None));
        }
        deserializer.deserialize_any(KeptVisitor(std::marker::PhantomData))
    }
}

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> std::result::Result<Text<'de>, E> {
                Ok(Text(Some(Cow::Borrowed(text))))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> std::result::Result<Text<'de>, E> {
                Ok(Text(Some(Cow::Owned(text.to_string()))))
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> std::result::Result<Text<'de>, M::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Text(None))
            }
            others_are_none!(Text(None));
        }
        deserializer.deserialize_any(TextVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same file's entries and fields found in its JSON tree: the reading the streaming one
    /// replaced (the fields then make a `Reference` as the streaming reader's do).
    fn read_as_tree(text: &str) -> Option<Vec<Reference>> {
        let value: Value = serde_json::from_str(text).ok()?;
        let object = value.as_object()?;
        let mut entries: Vec<(u32, String, &Value)> = Vec::new();
        if let Some(count) = object.get("reference_num").and_then(Value::as_u64) {
            for i in 1..=count as u32 {
                let entry = &value[format!("paper_{i}_info")][format!("reference_{i}")];
                if entry.is_object() {
                    entries.push((i, format!("reference_{i}"), entry));
                }
            }
        } else {
            for (key, entry) in object {
                let Some(number) = key.strip_prefix("reference_").and_then(|n| n.parse::<u32>().ok()) else { continue };
                entry.is_object().then_some(())?;
                entries.push((number, key.clone(), entry));
            }
            entries.sort_by_key(|(n, _, _)| *n);
        }
        let fields = |entry: &'_ Value| {
            let text = |field: &str| entry.get(field).and_then(Value::as_str).map(|s| Cow::Owned(s.to_string()));
            Fields {
                title: text("title"),
                searched_title: text("searched_title"),
                date: text("date"),
                publication: text("publication"),
                abstract_text: text("abs"),
                authors: entry.get("authors").cloned(),
                citation_count: entry.get("citation_count").cloned(),
            }
        };
        Some(entries.into_iter().filter_map(|(number, key, entry)| fields(entry).reference(number, key)).collect())
    }

    fn read_text(text: &str) -> Result<Vec<Reference>> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("reference.json");
        std::fs::write(&path, text).unwrap();
        read(&path)
    }

    #[test]
    fn entries_read_as_the_json_tree_reads_them() {
        let texts = [
            // Both schemas; repeated keys (the last value counts, at its first place); fields of
            // other kinds than strings; escapes; entries without a title; numbers out of order.
            r#"{"reference_2": {"title": "Two", "authors": ["Ann Lee", 7], "date": "2019-05", "citation_count": "12"},
                "reference_10": {"searched_title": " Ten\u00e9 ", "title": 5, "abs": "N/A", "authors": "Bo Chen"},
                "note": [1, {"x": 2}], "reference_1": {"title": "One", "title": "Uno \"quoted\"", "date": null,
                "publication": {"x": 1}, "citation_count": 3.5, "extra": [[1], {"y": [2]}]},
                "reference_x": 5, "reference_3": {"date": "2020"}, "reference_2": {"title": "Two again", "citation_count": 7}}"#,
            r#"{"reference_num": 3, "paper_1_info": {"reference_1": {"title": "Old one", "authors": ["Zed Q"], "date": "2001"}},
                "paper_3_info": {"reference_3": {"title": "Old three"}}, "paper_03_info": {"reference_3": {"title": "no"}},
                "paper_2_info": {"reference_2": "not an object"}, "reference_5": 1, "paper_4_info": {"reference_4": {"title": "beyond"}}}"#,
            r#"{"reference_num": "3", "reference_1": {"title": "count is not a number"}}"#,
            r#"{}"#,
        ];
        for text in texts {
            assert_eq!(read_text(text).ok(), read_as_tree(text), "{text}");
        }
    }

    #[test]
    #[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets (tier `datasets`)")]
    fn every_bloom_eval_reference_file_reads_as_the_json_tree_reads_it() {
        let mut files = 0;
        for topic in std::fs::read_dir(litnav_testkit::datasets().join("bloom-eval")).unwrap() {
            for side in ["human", "llm"] {
                let path = topic.as_ref().unwrap().path().join(side).join("reference.json");
                if let Ok(text) = std::fs::read_to_string(&path) {
                    assert_eq!(read(&path).ok(), read_as_tree(&text), "{}", path.display());
                    files += 1;
                }
            }
        }
        assert!(files >= 15, "{files} files");
    }

    #[test]
    fn a_file_that_is_not_an_object_of_entries_is_an_error_naming_it() {
        for (text, expected) in [
            ("[1, 2]", "field `(root)`: expected an object of reference_N entries"),
            (r#"{"reference_1": [1]}"#, "field `reference_1`: expected an object"),
            (r#"{"reference_1": {"title": "a"}"#, "reference.json:1:30: not valid JSON"),
        ] {
            let error = read_text(text).unwrap_err().to_string();
            assert!(error.contains(expected), "{text}: {error}");
        }
    }
}
