//! The graph as a corpus artifact: `gen-NNNNNN/graph/graph.bin`, written at ingest, read in
//! milliseconds, plus `contexts.jsonl` when citation contexts were ingested.
//!
//! `graph.bin` (little-endian): the magic `LITNAVG` + format byte 2; node, edge and venue counts
//! (u64 each); every venue name (u32 length + UTF-8); per node in id order its id (u32 length +
//! UTF-8), year and date (i32 each, the date in days since 1970-01-01, `i32::MIN` = unknown),
//! venue number (u32, `u32::MAX` = none) and number of external references (u32); then the
//! "cites" rows (n + 1 u64 offsets, u32 targets) and the "cited by" rows in the same layout.
//! Format 1 (no dates) still loads. Every invariant is checked on load; a damaged file is an
//! error naming it, never a panic.

use crate::contexts::CitationContext;
use crate::{Csr, Error, Graph, Node, Parts, Result};
use litnav_core::bytes::ByteReader;
use std::collections::HashMap;
use std::path::Path;

/// The artifact's directory name inside a corpus generation.
pub const ARTIFACT: &str = "graph";
const GRAPH_FILE: &str = "graph.bin";
const CONTEXTS_FILE: &str = "contexts.jsonl";
const MAGIC: &[u8; 8] = b"LITNAVG\x02";
/// Format 1: the same without dates.
const MAGIC_V1: &[u8; 8] = b"LITNAVG\x01";

/// Write `graph` (and `contexts`, when any) into `dir`, creating it.
pub fn save(dir: &Path, graph: &Graph, contexts: &[CitationContext]) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let bytes = encode(graph);
    let path = dir.join(GRAPH_FILE);
    std::fs::write(&path, bytes).map_err(io(&path))?;
    if !contexts.is_empty() {
        let mut text = String::new();
        for context in contexts {
            text.push_str(&serde_json::to_string(context).map_err(|e| Error::Input(e.to_string()))?);
            text.push('\n');
        }
        let path = dir.join(CONTEXTS_FILE);
        std::fs::write(&path, text).map_err(io(&path))?;
    }
    Ok(())
}

/// Read the graph saved in `dir`.
pub fn load(dir: &Path) -> Result<Graph> {
    let path = dir.join(GRAPH_FILE);
    let bytes = std::fs::read(&path).map_err(io(&path))?;
    decode(&bytes).map_err(|message| Error::Damaged { path, message })
}

/// Read the citation contexts saved in `dir` (none when the file is absent).
pub fn load_contexts(dir: &Path) -> Result<Vec<CitationContext>> {
    let path = dir.join(CONTEXTS_FILE);
    if !path.is_file() {
        return Ok(Vec::new());
    }
    // A bad record in a stored file is damage to the corpus, not bad input: say so, once.
    crate::contexts::read_jsonl(&path).map_err(|error| match error {
        Error::Input(message) => {
            let prefix = format!("{}:", path.display());
            let message = message.strip_prefix(&prefix).map_or(message.clone(), |rest| format!("line {rest}"));
            Error::Damaged { path, message }
        }
        other => other,
    })
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io { path: path.to_path_buf(), source }
}

fn encode(graph: &Graph) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + graph.len() * 32 + graph.edge_count() * 8);
    out.extend_from_slice(MAGIC);
    for count in [graph.len(), graph.edge_count(), graph.venue_names.len()] {
        out.extend_from_slice(&(count as u64).to_le_bytes());
    }
    let put_str = |out: &mut Vec<u8>, s: &str| {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    };
    for name in &graph.venue_names {
        put_str(&mut out, name);
    }
    for node in graph.nodes() {
        put_str(&mut out, graph.id(node));
        out.extend_from_slice(&graph.year(node).unwrap_or(i32::MIN).to_le_bytes());
        out.extend_from_slice(&graph.date(node).unwrap_or(i32::MIN).to_le_bytes());
        out.extend_from_slice(&graph.venue_index(node).unwrap_or(u32::MAX).to_le_bytes());
        out.extend_from_slice(&graph.external_references(node).to_le_bytes());
    }
    for csr in [&graph.cites, &graph.cited_by] {
        csr.offsets.iter().for_each(|o| out.extend_from_slice(&o.to_le_bytes()));
        csr.targets.iter().for_each(|t| out.extend_from_slice(&t.to_le_bytes()));
    }
    out
}

/// A count of items each of which takes at least 4 bytes: a larger count is damage, not a huge
/// graph.
fn count(cursor: &mut ByteReader<'_>) -> std::result::Result<usize, String> {
    let value = cursor.u64()?;
    if value > (cursor.len() / 4) as u64 { Err("a count exceeds the file size".into()) } else { Ok(value as usize) }
}

fn string(cursor: &mut ByteReader<'_>) -> std::result::Result<String, String> {
    let len = cursor.u32()? as usize;
    String::from_utf8(cursor.take(len)?.to_vec()).map_err(|_| "a name is not UTF-8".to_string())
}

fn csr(cursor: &mut ByteReader<'_>, nodes: usize, edges: usize) -> std::result::Result<Csr, String> {
    let offsets =
        cursor.take((nodes + 1) * 8)?.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8"))).collect();
    let targets =
        cursor.take(edges * 4)?.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().expect("4"))).collect();
    Csr::from_parts(offsets, targets)
}

fn decode(bytes: &[u8]) -> std::result::Result<Graph, String> {
    let mut cursor = ByteReader::new(bytes);
    let magic = cursor.take(8)?;
    let with_dates = magic == MAGIC;
    if !with_dates && magic != MAGIC_V1 {
        return Err("not a litnav graph file (or one of another format version)".into());
    }
    let (nodes, edges, venue_count) = (count(&mut cursor)?, count(&mut cursor)?, count(&mut cursor)?);
    let venue_names = (0..venue_count).map(|_| string(&mut cursor)).collect::<std::result::Result<Vec<_>, _>>()?;
    let (mut ids, mut years, mut dates, mut venues, mut external) = (vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..nodes {
        ids.push(string(&mut cursor)?);
        years.push(Some(cursor.u32()? as i32).filter(|&y| y != i32::MIN));
        dates.push(if with_dates { Some(cursor.u32()? as i32).filter(|&d| d != i32::MIN) } else { None });
        let venue = cursor.u32()?;
        if venue != u32::MAX && venue as usize >= venue_count {
            return Err("a node names a venue that does not exist".into());
        }
        venues.push((venue != u32::MAX).then_some(venue));
        external.push(cursor.u32()?);
    }
    if ids.windows(2).any(|w| w[0] >= w[1]) {
        return Err("node ids are not strictly ascending".into());
    }
    let cites = csr(&mut cursor, nodes, edges)?;
    let cited_by = csr(&mut cursor, nodes, edges)?;
    if !cursor.at_end() {
        return Err("unexpected bytes after the edge lists".into());
    }
    let index: HashMap<String, Node> = ids.iter().enumerate().map(|(i, id)| (id.clone(), i as Node)).collect();
    Ok(Graph::assemble(Parts { ids, index, years, dates, venues, venue_names, external, cites, cited_by }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_damage() {
        let g = crate::synthetic::preferential_attachment(300, 5, 4);
        let dir = tempfile::tempdir().unwrap();
        save(dir.path(), &g, &[]).unwrap();
        assert_eq!(load(dir.path()).unwrap(), g);
        assert!(load_contexts(dir.path()).unwrap().is_empty());
        let bytes = std::fs::read(dir.path().join(GRAPH_FILE)).unwrap();
        for cut in [0, 7, 30, bytes.len() / 2, bytes.len() - 1] {
            std::fs::write(dir.path().join(GRAPH_FILE), &bytes[..cut]).unwrap();
            let message = load(dir.path()).unwrap_err().to_string();
            assert!(message.contains("graph.bin"), "{message}");
        }
        let mut flipped = bytes.clone();
        let last = flipped.len() - 2;
        flipped[last] = 0xFF;
        std::fs::write(dir.path().join(GRAPH_FILE), &flipped).unwrap();
        assert!(load(dir.path()).is_err());
    }
}
