//! What kind of work a record is, in the words of the sources that type their works (OpenAlex's
//! `type`).

/// Work types that are not research a map should organize: a journal issue's front matter,
/// indexes and covers (`paratext`), a correction notice (`erratum`) and a retraction notice
/// (`retraction`). Maps leave them out unless asked to include them; a fetch counts them.
pub const NOT_RESEARCH: [&str; 3] = ["paratext", "erratum", "retraction"];

/// A work's title as its source gives it in `title` and `display_name` (OpenAlex's work object),
/// decided once for the fetch and every reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Title {
    /// The first of the fields that holds text once markup is removed; `cleaned` when removing
    /// it changed the text.
    Text {
        /// The title as text.
        text: String,
        /// Markup or entities were removed.
        cleaned: bool,
    },
    /// A field held something, but only markup: no title.
    OnlyMarkup,
    /// Neither field holds anything.
    Missing,
}

/// The title of a work whose `title` and `display_name` fields are these ([`Title`]).
pub fn title(title: Option<&str>, display_name: Option<&str>) -> Title {
    let mut only_markup = false;
    for raw in [title, display_name].into_iter().flatten().map(str::trim).filter(|raw| !raw.is_empty()) {
        let text = crate::markup::plain_text(raw);
        if !text.is_empty() {
            let cleaned = text != raw;
            return Title::Text { text: text.into_owned(), cleaned };
        }
        only_markup = true;
    }
    if only_markup { Title::OnlyMarkup } else { Title::Missing }
}

/// The type litnav keeps for a work: `paratext` when the source flags it so (OpenAlex's
/// `is_paratext`), else its `type` in lowercase.
pub fn work_type(source_type: Option<&str>, is_paratext: bool) -> Option<String> {
    if is_paratext {
        return Some("paratext".to_string());
    }
    source_type.map(str::trim).filter(|t| !t.is_empty()).map(str::to_ascii_lowercase)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_is_the_first_field_with_text_and_says_whether_it_was_cleaned() {
        let text = |text: &str, cleaned| Title::Text { text: text.to_string(), cleaned };
        assert_eq!(title(Some("Plain"), Some("Other")), text("Plain", false));
        assert_eq!(title(Some("<i>Drosophila</i> eyes"), None), text("Drosophila eyes", true));
        assert_eq!(title(Some("<sup></sup>"), Some("Shown name")), text("Shown name", false));
        assert_eq!(title(None, Some("  ")), Title::Missing);
        assert_eq!(title(Some("<br/>"), None), Title::OnlyMarkup);
        assert_eq!(work_type(Some("Article"), false).as_deref(), Some("article"));
        assert_eq!(work_type(Some("article"), true).as_deref(), Some("paratext"));
        assert_eq!(work_type(Some(" "), false), None);
    }
}
