//! BERT uncased WordPiece tokenization, exactly as the `tokenizer.json` of all-MiniLM-L6-v2
//! specifies it (HuggingFace `BertNormalizer` + `BertPreTokenizer` + `WordPiece`):
//!
//! 1. **Clean**: drop NUL, U+FFFD and control characters (Unicode category C*, except tab, line
//!    feed and carriage return); turn every white-space character into a space.
//! 2. **CJK**: surround each CJK ideograph with spaces.
//! 3. **Strip accents** (implied by `lowercase: true`): NFD, then drop non-spacing marks (Mn).
//! 4. **Lowercase** (Unicode lowercase mapping).
//! 5. **Pre-tokenize**: split on white space, and make every punctuation character (ASCII
//!    punctuation, or Unicode category P*) a word of its own.
//! 6. **WordPiece**: greedy longest match from the left, continuation pieces prefixed `##`; a word
//!    longer than 100 characters, or one that cannot be covered by vocabulary pieces, becomes
//!    `[UNK]`.
//! 7. `[CLS]` … `[SEP]` around the pieces, truncated so the whole fits `max_tokens`.

use crate::{Error, Result};
use std::collections::HashMap;
use std::path::Path;
use unicode_categories::UnicodeCategories;
use unicode_normalization::UnicodeNormalization;

const MAX_CHARS_PER_WORD: usize = 100;

/// A WordPiece vocabulary with the special tokens BERT needs.
#[derive(Debug, Clone)]
pub struct Tokenizer {
    vocab: HashMap<String, u32>,
    cls: u32,
    sep: u32,
    unk: u32,
}

impl Tokenizer {
    /// Load `vocab.txt` (one token per line, id = line number from 0).
    pub fn from_vocab_file(path: &Path) -> Result<Tokenizer> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::model(path, format!("cannot read the vocabulary: {e}")))?;
        Self::from_vocab(text.lines().map(str::to_string), path)
    }

    fn from_vocab(tokens: impl Iterator<Item = String>, path: &Path) -> Result<Tokenizer> {
        let vocab: HashMap<String, u32> = tokens.enumerate().map(|(i, t)| (t, i as u32)).collect();
        let special = |name: &str| {
            vocab.get(name).copied().ok_or_else(|| Error::model(path, format!("the vocabulary has no {name} token")))
        };
        Ok(Tokenizer { cls: special("[CLS]")?, sep: special("[SEP]")?, unk: special("[UNK]")?, vocab })
    }

    /// Number of tokens in the vocabulary.
    pub fn vocab_size(&self) -> usize {
        self.vocab.len()
    }

    /// Token ids of `text`: `[CLS]`, at most `max_tokens - 2` pieces, `[SEP]`.
    pub fn encode(&self, text: &str, max_tokens: usize) -> Vec<u32> {
        let budget = max_tokens.saturating_sub(2);
        let mut ids = Vec::with_capacity(budget.min(64) + 2);
        ids.push(self.cls);
        'words: for word in pre_tokenize(&normalize(text)) {
            for id in self.word_pieces(&word) {
                if ids.len() > budget {
                    break 'words;
                }
                ids.push(id);
            }
        }
        ids.push(self.sep);
        ids
    }

    /// WordPiece ids of one pre-tokenized word.
    fn word_pieces(&self, word: &str) -> Vec<u32> {
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        if chars.len() > MAX_CHARS_PER_WORD {
            return vec![self.unk];
        }
        let mut pieces = Vec::new();
        let mut start = 0; // index into `chars`
        let mut candidate = String::with_capacity(word.len() + 2);
        while start < chars.len() {
            let mut end = chars.len();
            let mut found = None;
            while start < end {
                let from = chars[start].0;
                let to = chars.get(end).map_or(word.len(), |(byte, _)| *byte);
                candidate.clear();
                if start > 0 {
                    candidate.push_str("##");
                }
                candidate.push_str(&word[from..to]);
                if let Some(&id) = self.vocab.get(&candidate) {
                    found = Some(id);
                    break;
                }
                end -= 1;
            }
            match found {
                Some(id) => pieces.push(id),
                None => return vec![self.unk],
            }
            start = end;
        }
        pieces
    }
}

/// Steps 1–4: clean, space out CJK, strip accents, lowercase.
pub fn normalize(text: &str) -> String {
    let mut cleaned = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\0' || c == '\u{FFFD}' || is_control(c) {
            continue;
        }
        if is_whitespace(c) {
            cleaned.push(' ');
        } else if is_cjk(c) {
            cleaned.push(' ');
            cleaned.push(c);
            cleaned.push(' ');
        } else {
            cleaned.push(c);
        }
    }
    // Character by character, as HuggingFace does: `str::to_lowercase` would turn a word-final
    // capital sigma into ς where BERT's normalizer gives σ.
    cleaned.nfd().filter(|c| !c.is_mark_nonspacing()).flat_map(char::to_lowercase).collect()
}

/// Step 5: words and single punctuation characters.
pub fn pre_tokenize(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        if c.is_whitespace() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
        } else if is_punctuation(c) {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            words.push(c.to_string());
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

fn is_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

fn is_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && c.is_other()
}

fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || c.is_punctuation()
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Tokenizer {
        let vocab =
            ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "run", "##ning", ",", "cafe", "$", "5", "中"];
        Tokenizer::from_vocab(vocab.iter().map(|s| s.to_string()), Path::new("test")).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn normalization_follows_bert() {
        assert_eq!(normalize("Café\tRUNNING\u{0}\u{200B}x y"), "cafe runningx y", "NUL and format characters vanish");
        assert_eq!(normalize("中文"), " 中  文 ");
        assert_eq!(pre_tokenize("a,b $5 (x)"), vec!["a", ",", "b", "$", "5", "(", "x", ")"]);
        assert_eq!(pre_tokenize("well–known"), vec!["well", "–", "known"]);
    }

    #[test]
    fn wordpiece_is_greedy_longest_first() {
        let t = tiny();
        assert_eq!(t.encode("unaffable, running", 256), vec![2, 4, 5, 6, 9, 7, 8, 3]);
        assert_eq!(t.encode("Café $5", 256), vec![2, 10, 11, 12, 3]);
        assert_eq!(t.encode("unknownword", 256), vec![2, 1, 3]);
        assert_eq!(t.encode("", 256), vec![2, 3]);
        assert_eq!(t.encode("running running running", 5), vec![2, 7, 8, 7, 3]);
    }
}
