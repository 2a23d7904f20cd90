//! What kind of work a record is, in the words of the sources that type their works (OpenAlex's
//! `type`).

/// Work types that are not research a map should organize: a journal issue's front matter,
/// indexes and covers (`paratext`), a correction notice (`erratum`) and a retraction notice
/// (`retraction`). Maps leave them out unless asked to include them; a fetch counts them.
pub const NOT_RESEARCH: [&str; 3] = ["paratext", "erratum", "retraction"];
