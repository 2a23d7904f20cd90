//! Line-oriented reading of plain or gzipped UTF-8 text, with exact line numbers and encoding
//! errors that say where the bad bytes are.

use crate::error::{Error, Result, io_at};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Open a file for reading, transparently decompressing `.gz` (multi-member, as OpenAlex ships).
pub(crate) fn open(path: &Path) -> Result<Box<dyn BufRead>> {
    let file = File::open(path).map_err(io_at(path))?;
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz")) {
        Ok(Box::new(BufReader::with_capacity(1 << 16, flate2::read::MultiGzDecoder::new(file))))
    } else {
        Ok(Box::new(BufReader::with_capacity(1 << 16, file)))
    }
}

/// Call `each(line_number, text)` for every non-blank line. An invalid-UTF-8 line is passed as an
/// error (so a `--skip-bad` caller can skip it); a UTF-16 file or an unreadable file fails whole.
pub(crate) fn for_each_line(path: &Path, mut each: impl FnMut(usize, Result<&str>) -> Result<()>) -> Result<()> {
    let mut reader = open(path)?;
    let mut buffer = Vec::new();
    let mut number = 0;
    loop {
        buffer.clear();
        let read = reader.read_until(b'\n', &mut buffer).map_err(io_at(path))?;
        if read == 0 {
            return Ok(());
        }
        number += 1;
        if number == 1 {
            reject_utf16(path, &buffer)?;
            if buffer.starts_with(b"\xEF\xBB\xBF") {
                buffer.drain(..3);
            }
        }
        match std::str::from_utf8(&buffer) {
            Ok(text) if text.trim().is_empty() => {}
            Ok(text) => each(number, Ok(text.trim_end_matches(['\n', '\r'])))?,
            Err(e) => each(number, Err(not_utf8(path, number, e.valid_up_to())))?,
        }
    }
}

/// The whole file as UTF-8 text (BibTeX and pretty-printed JSON are not line-oriented).
pub(crate) fn read_to_string(path: &Path) -> Result<String> {
    let mut bytes = Vec::new();
    open(path)?.read_to_end(&mut bytes).map_err(io_at(path))?;
    reject_utf16(path, &bytes)?;
    let start = if bytes.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
    match String::from_utf8(bytes[start..].to_vec()) {
        Ok(text) => Ok(text),
        Err(e) => {
            let offset = start + e.utf8_error().valid_up_to();
            let line = 1 + bytes[..offset].iter().filter(|&&b| b == b'\n').count();
            let line_start = bytes[..offset].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
            Err(not_utf8(path, line, offset - line_start))
        }
    }
}

/// The first non-blank line of a file (for format detection).
pub(crate) fn first_content(path: &Path) -> Result<String> {
    let mut first = None;
    let outcome = for_each_line(path, |_, line| {
        first = Some(line?.to_string());
        // Stop reading: signal with a sentinel error that is swallowed below.
        Err(Error::BadFile { file: path.to_path_buf(), message: String::new() })
    });
    match (first, outcome) {
        (Some(line), _) => Ok(line),
        (None, Err(e)) => Err(e),
        (None, Ok(())) => Err(Error::BadFile { file: path.to_path_buf(), message: "is empty".into() }),
    }
}

/// The whole file parsed as one JSON document.
pub(crate) fn whole_json(path: &Path) -> Result<serde_json::Value> {
    let text = read_to_string(path)?;
    serde_json::from_str(&text).map_err(|e| Error::BadRecord {
        at: super::at(path, e.line(), None),
        message: format!("is neither JSON lines nor one JSON document: {e}"),
    })
}

fn reject_utf16(path: &Path, bytes: &[u8]) -> Result<()> {
    if bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF") {
        return Err(Error::BadFile {
            file: path.to_path_buf(),
            message: "is UTF-16 encoded; litnav reads UTF-8 (convert it, e.g. `iconv -f UTF-16 -t UTF-8`)".into(),
        });
    }
    Ok(())
}

fn not_utf8(path: &Path, line: usize, column: usize) -> Error {
    Error::BadRecord {
        at: super::at(path, line, None),
        message: format!(
            "is not valid UTF-8 (bad byte at column {}); litnav reads UTF-8 text (convert it, e.g. `iconv -f LATIN1 -t UTF-8`)",
            column + 1
        ),
    }
}
