//! A paper as text.

/// A paper as text: what prompts show, what the encoder reads, what organizers name from. Every
/// paper type of litnav (a corpus record, a document to organize, a survey's bibliography entry)
/// lends itself as this view instead of being copied field by field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PaperText<'a> {
    /// Title.
    pub title: &'a str,
    /// Abstract, when known.
    pub abstract_text: Option<&'a str>,
}

impl<'a> PaperText<'a> {
    /// A view of a title and an optional abstract.
    pub fn new(title: &'a str, abstract_text: Option<&'a str>) -> PaperText<'a> {
        PaperText { title, abstract_text }
    }

    /// The passage a paper's vector encodes: the title, then the abstract (when there is one)
    /// after a full stop, unless the title already ends in punctuation.
    pub fn passage(&self) -> String {
        match self.abstract_text {
            Some(abstract_text) if !abstract_text.is_empty() => {
                let separator = if self.title.ends_with(['.', '?', '!', ':']) { " " } else { ". " };
                format!("{}{separator}{abstract_text}", self.title)
            }
            _ => self.title.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passage_joins_title_and_abstract() {
        assert_eq!(PaperText::new("T", None).passage(), "T");
        assert_eq!(PaperText::new("T", Some("")).passage(), "T");
        assert_eq!(PaperText::new("T", Some("A")).passage(), "T. A");
        assert_eq!(PaperText::new("Why?", Some("A")).passage(), "Why? A");
    }
}
