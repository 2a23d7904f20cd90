//! TREC files and their scoring: qrels (`query iteration document grade`) and runs (`query Q0
//! document rank score tag`), ranked as trec_eval ranks them, scored with Recall, Precision and
//! nDCG at cut-offs and MRR.

use litnav_core::bytes::{BlockMasks, BlockWindow};
/// A query's graded ranking, as `grade_scored` makes it and `ScoreTable::of` reads it.
pub use litnav_eval::retrieval::GradedRanking;
use litnav_session::error::{Error, Result};
use litnav_session::parallel;
use serde::Serialize;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::convert::Infallible;
use std::path::Path;

/// The cut-offs Recall, Precision and nDCG are reported at unless told otherwise (every face's).
pub const DEFAULT_CUTOFFS: &[usize] = &[10, 100];

/// Judgments: query → document → grade.
pub type Qrels = BTreeMap<String, HashMap<String, f64>>;

/// Ranked documents per query.
pub type Run = HashMap<String, Vec<String>>;

/// A TREC file's text.
fn read_text(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| Error::io(path, &e))
}

/// A TREC file's bytes, for a reader that checks they are text piece by piece.
fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::io(path, &e))
}

/// What is wrong with one line of a text: the line's 1-based number in that text and the problem.
type LineError = (usize, String);

/// Each non-blank line of a file's text as its fields (separated by ASCII white space, as
/// trec_eval separates them); a problem `visit` finds is returned with the line's number. Lines
/// end at `\n` (a `\r` before it is white space).
fn for_each_line<'a>(
    text: &'a str,
    mut visit: impl FnMut(&[&'a str]) -> std::result::Result<(), String>,
) -> std::result::Result<(), LineError> {
    let mut fields = Vec::new();
    let mut blocks = BlockWindow::new(text.as_bytes());
    let (mut start, mut number) = (0, 0);
    while start < text.len() {
        number += 1;
        let end = line_fields(text, start, blocks.at(start), &mut fields);
        if !fields.is_empty() {
            visit(&fields).map_err(|problem| (number, problem))?;
        }
        start = end + 1;
    }
    Ok(())
}

/// The fields of the line of `text` that starts at byte `start`, into `fields` (cleared first),
/// and the byte the line ends at (its `\n`, or the text's end); `masks` are those of the 64 bytes
/// from `start` ([`BlockWindow`]). A line shorter than 64 bytes (every TREC line in practice) is
/// read from them: its end is the first line feed, its fields' starts and ends are read off with
/// bit operations, in half the time of finding the line with `memchr` and building its mask byte
/// by byte. Longer lines are split by `split_ascii_whitespace`.
fn line_fields<'a>(text: &'a str, start: usize, masks: BlockMasks, fields: &mut Vec<&'a str>) -> usize {
    fields.clear();
    if masks.newlines == 0 {
        let end = memchr::memchr(b'\n', &text.as_bytes()[start..]).map_or(text.len(), |at| start + at);
        fields.extend(text[start..end].split_ascii_whitespace());
        return end;
    }
    let length = masks.newlines.trailing_zeros();
    let word = masks.not_space & ((1 << length) - 1);
    // A field starts at a non-space byte after a space (or the line's start) and ends before a
    // space after a non-space byte (or at the line's end: the bits past it are 0).
    let (mut starts, mut ends) = (word & !(word << 1), (word << 1) & !word);
    while starts != 0 {
        let (from, to) = (start + starts.trailing_zeros() as usize, start + ends.trailing_zeros() as usize);
        // Both ends are at ASCII bytes (or the line's end): character boundaries.
        fields.push(&text[from..to]);
        starts &= starts - 1;
        ends &= ends - 1;
    }
    start + length as usize
}

/// A problem of the file `path` at a line, as an input error naming both.
fn at_line(path: &Path, (line, problem): LineError) -> Error {
    Error::input(format!("{}:{line}: {problem}", path.display()))
}

/// A field's number, as `str::parse` reads it, except NaN, which is refused: trec_eval's sort
/// compares scores with `<` and `>`, so it would rank a NaN score anywhere, and no rank drawn from
/// it could be right.
fn number(text: &str, field: &str) -> std::result::Result<f64, String> {
    short_decimal(text)
        .or_else(|| text.parse().ok().filter(|value: &f64| !value.is_nan()))
        .ok_or_else(|| format!("field `{field}`: `{text}` is not a number"))
}

/// A plain decimal (an optional `-`, digits with at most one `.`, at most 19 characters after
/// the sign) whose digits make an integer below 2^53, read as that integer divided by a power of
/// ten: both are exact doubles, so the one rounding of the division gives the correctly rounded
/// value, as `str::parse` does (Clinger's fast path). A run's scores almost always are such
/// decimals, and this reads them in half the time; anything else is `None`.
fn short_decimal(text: &str) -> Option<f64> {
    const POWERS_OF_TEN: [f64; 19] =
        [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18];
    let (negative, digits) = match text.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        all => (false, all),
    };
    if digits.len() > 19 {
        return None;
    }
    let (mut integer, mut point) = (0u64, None);
    for (at, &b) in digits.iter().enumerate() {
        match b {
            b'0'..=b'9' => integer = integer * 10 + u64::from(b - b'0'),
            b'.' if point.is_none() => point = Some(at),
            _ => return None,
        }
    }
    let has_digit = digits.len() > usize::from(point.is_some());
    if !has_digit || integer > 1 << 53 {
        return None;
    }
    let value = integer as f64 / POWERS_OF_TEN[point.map_or(0, |at| digits.len() - at - 1)];
    Some(if negative { -value } else { value })
}

/// A map keyed by ids borrowed from a file's text, hashed by foldhash rather than SipHash: a
/// run hashes a document id for each of its lines, and SipHash was a quarter of reading one.
type IdMap<'a, V> = HashMap<&'a str, V, foldhash::fast::RandomState>;

/// Judgments borrowed from a qrels file's text, per query.
type Judged<'a> = BTreeMap<&'a str, IdMap<'a, f64>>;

/// Judgments borrowed from a qrels file's text (a judgment given twice: the last one counts).
/// They are gathered as listed ([`last_group`]) and each query's map is built once at its size,
/// rather than found and grown line by line.
fn parse_qrels(text: &str) -> std::result::Result<Judged<'_>, LineError> {
    let mut groups: Vec<(&str, Vec<(&str, f64)>)> = Vec::new();
    for_each_line(text, |fields| {
        let [query, _, document, grade] = fields else {
            return Err(format!("a qrels line has 4 fields (query iteration document grade), found {}", fields.len()));
        };
        let grade = number(grade, "grade")?;
        last_group(&mut groups, query, Vec::new).push((document, grade));
        Ok(())
    })?;
    let mut qrels: Judged<'_> = BTreeMap::new();
    for (query, judgments) in groups {
        let judged = qrels.entry(query).or_default();
        judged.reserve(judgments.len());
        judged.extend(judgments);
    }
    Ok(qrels)
}

/// The group of `key` when it is the last of `groups`, or a new one made by `start`: a TREC
/// file lists a query's lines together, so a line joins the previous line's group without a
/// lookup (a query listed again further on starts another group).
fn last_group<K: PartialEq, G>(groups: &mut Vec<(K, G)>, key: K, start: impl FnOnce() -> G) -> &mut G {
    if groups.last().is_none_or(|(last, _)| *last != key) {
        groups.push((key, start()));
    }
    let last = groups.len() - 1;
    &mut groups[last].1
}

/// One query's scored documents borrowed from a run file's text, as listed (a document may be
/// listed more than once).
type ScoredText<'a> = Vec<(f64, &'a str)>;

/// The query, the document and the score of a run line.
fn run_line<'a>(fields: &[&'a str]) -> std::result::Result<(&'a str, &'a str, f64), String> {
    let [query, _, document, _, score, ..] = fields else {
        return Err(format!("a run line has 6 fields (query Q0 document rank score tag), found {}", fields.len()));
    };
    Ok((query, document, number(score, "score")?))
}

/// A run's text as its queries' documents, in the order listed.
fn scored_lines(text: &str) -> std::result::Result<Vec<(&str, ScoredText<'_>)>, LineError> {
    let mut groups: Vec<(&str, ScoredText<'_>)> = Vec::new();
    for_each_line(text, |fields| {
        let (query, document, score) = run_line(fields)?;
        last_group(&mut groups, query, Vec::new).push((score, document));
        Ok(())
    })?;
    Ok(groups)
}

/// One query's lines that follow each other in a run file: the text they span, and the first
/// `depth` of them in trec_eval's order, gathered as they were read ([`Leading`]). That is all
/// a query's grading needs, unless its first documents repeat one or none is relevant; then its
/// lines are read again ([`grade_query`]).
#[derive(Debug)]
struct QueryLines<'a> {
    /// The text the lines are in, and where in it they are.
    text: &'a str,
    span: std::ops::Range<usize>,
    leading: Leading<&'a str>,
}

/// One piece of a run file as the lines of its queries ([`QueryLines`]), in the order listed.
fn parse_run_piece(piece: &str, depth: usize) -> std::result::Result<Vec<(&str, QueryLines<'_>)>, LineError> {
    let mut groups: Vec<(&str, QueryLines<'_>)> = Vec::new();
    let offset = |field: &str| field.as_ptr() as usize - piece.as_ptr() as usize;
    for_each_line(piece, |fields| {
        let (query, document, score) = run_line(fields)?;
        let start = || QueryLines { text: piece, span: offset(query)..0, leading: Leading::new(depth) };
        let lines = last_group(&mut groups, query, start);
        let last = fields[fields.len() - 1];
        lines.span.end = offset(last) + last.len();
        lines.leading.offer(score, document);
        Ok(())
    })?;
    Ok(groups)
}

/// A file's bytes cut at line ends into about `count` pieces of at least [`PIECE_BYTES`] each,
/// with each piece's byte offset.
fn pieces(bytes: &[u8], count: usize) -> Vec<(usize, &[u8])> {
    let count = count.clamp(1, bytes.len() / PIECE_BYTES + 1);
    let mut cuts = vec![0];
    for i in 1..count {
        let from = (bytes.len() * i / count).max(cuts[cuts.len() - 1]);
        let cut = memchr::memchr(b'\n', &bytes[from..]).map_or(bytes.len(), |at| from + at + 1);
        cuts.push(cut);
    }
    cuts.push(bytes.len());
    cuts.dedup();
    cuts.windows(2).map(|cut| (cut[0], &bytes[cut[0]..cut[1]])).collect()
}

/// A piece of a file as text, or the line (1-based, within the piece) where it stops being
/// UTF-8.
fn piece_text(piece: &[u8]) -> std::result::Result<&str, LineError> {
    std::str::from_utf8(piece).map_err(|e| {
        let line = memchr::memchr_iter(b'\n', &piece[..e.valid_up_to()]).count() + 1;
        (line, "the line is not UTF-8 text".to_string())
    })
}

/// The smallest piece of a run file worth reading on its own.
const PIECE_BYTES: usize = 32 << 10;

/// How many pieces a run file is cut into for each thread: enough that threads that start late
/// or run slow still end about together ([`parallel::shared`]).
const PIECES_PER_THREAD: usize = 8;

/// The parts of reading TREC files that are done side by side: the qrels, and the pieces of the
/// run (with each piece's byte offset).
enum Reading<'a> {
    Qrels(&'a str),
    RunPiece(usize, &'a [u8]),
}

/// A [`Reading`] done.
enum Read<'a> {
    Qrels(std::result::Result<Judged<'a>, LineError>),
    RunPiece(usize, std::result::Result<Vec<(&'a str, QueryLines<'a>)>, LineError>),
}

/// A qrels file's text and a run file's bytes parsed side by side on the calling thread and
/// helpers ([`parallel::shared`]), the run in pieces checked to be text one by one and read to
/// the cut-off `depth`: the judgments, and each query's lines in the order listed. Problems are
/// reported at the first line that has one, the qrels' first.
fn read_trec<'a>(
    qrels: (&'a str, &Path),
    run: (&'a [u8], &Path),
    depth: usize,
) -> Result<(Judged<'a>, IdMap<'a, Vec<QueryLines<'a>>>)> {
    let ((qrels_text, qrels_path), (run_bytes, run_path)) = (qrels, run);
    let count = PIECES_PER_THREAD * rayon::current_num_threads();
    let run_pieces = pieces(run_bytes, count).into_iter().map(|(offset, piece)| Reading::RunPiece(offset, piece));
    let readings = std::iter::once(Reading::Qrels(qrels_text)).chain(run_pieces).collect();
    let mut judged = Judged::new();
    let mut queries: IdMap<'_, Vec<QueryLines<'_>>> = IdMap::default();
    for read in parallel::shared(readings, |reading| match reading {
        Reading::Qrels(text) => Read::Qrels(parse_qrels(text)),
        Reading::RunPiece(offset, piece) => {
            Read::RunPiece(offset, piece_text(piece).and_then(|text| parse_run_piece(text, depth)))
        }
    }) {
        match read {
            Read::Qrels(parsed) => judged = parsed.map_err(|e| at_line(qrels_path, e))?,
            Read::RunPiece(offset, groups) => {
                let lines_before = || memchr::memchr_iter(b'\n', &run_bytes[..offset]).count();
                let groups = groups.map_err(|(line, problem)| at_line(run_path, (lines_before() + line, problem)))?;
                for (query, lines) in groups {
                    queries.entry(query).or_default().push(lines);
                }
            }
        }
    }
    Ok((judged, queries))
}

/// Read qrels.
pub fn read_qrels(path: &Path) -> Result<Qrels> {
    let text = read_text(path)?;
    let judged = parse_qrels(&text).map_err(|e| at_line(path, e))?;
    let owned = |(d, g): (&str, f64)| (d.to_string(), g);
    Ok(judged.into_iter().map(|(query, docs)| (query.to_string(), docs.into_iter().map(owned).collect())).collect())
}

/// Read a run, ranked as trec_eval ranks it: by score, decreasing, ties by document id in
/// decreasing order (the file's rank column is ignored, as trec_eval ignores it).
pub fn read_run(path: &Path) -> Result<Run> {
    let bytes = read_bytes(path)?;
    let text = piece_text(&bytes).map_err(|e| at_line(path, e))?;
    let mut scored: HashMap<String, Vec<(f64, String)>> = HashMap::new();
    for (query, docs) in scored_lines(text).map_err(|e| at_line(path, e))? {
        scored.entry(query.to_string()).or_default().extend(docs.into_iter().map(|(s, d)| (s, d.to_string())));
    }
    Ok(rank(scored))
}

/// The order trec_eval ranks scored documents in: by score, decreasing, ties by document id in
/// decreasing order.
fn trec_order<D: Ord>(a: (f64, &D), b: (f64, &D)) -> Ordering {
    b.0.total_cmp(&a.0).then_with(|| b.1.cmp(a.1))
}

/// Scored documents per query ranked as trec_eval ranks them: by score, decreasing, ties by
/// document id in decreasing order; a document listed more than once stays where it ranks first.
pub fn rank(scored: HashMap<String, Vec<(f64, String)>>) -> Run {
    scored
        .into_iter()
        .map(|(query, mut docs)| {
            docs.sort_by(|a, b| trec_order((a.0, &a.1), (b.0, &b.1)));
            let mut seen = HashSet::with_capacity(docs.len());
            let first: Vec<bool> = docs.iter().map(|(_, d)| seen.insert(d.as_str())).collect();
            (query, docs.into_iter().zip(first).filter_map(|((_, d), first)| first.then_some(d)).collect())
        })
        .collect()
}

/// Two scored documents in the order trec_eval ranks them: by score, decreasing, ties by
/// document id in decreasing order.
pub fn by_trec_order<D: Ord>(a: &(f64, D), b: &(f64, D)) -> Ordering {
    trec_order((a.0, &a.1), (b.0, &b.1))
}

/// Put the first `depth` of `docs` in trec_eval's order at the front of `docs` (in no particular
/// order), by a selection rather than a sort; returns how many that is (`depth`, or all of them
/// when fewer).
fn select_first<D: Ord>(docs: &mut [(f64, D)], depth: usize) -> usize {
    let reach = depth.min(docs.len());
    if reach > 0 && reach < docs.len() {
        docs.select_nth_unstable_by(reach - 1, by_trec_order);
    }
    reach
}

/// The first `depth` documents of a query in trec_eval's order, gathered while its scored
/// documents are read one by one: whenever twice `depth` are held, the best `depth` are kept,
/// and from then on a document scoring below the worst of them is refused by one comparison. A
/// run of n documents thus costs n comparisons and a few selections among 2·`depth`, instead of
/// holding all n and selecting among them.
#[derive(Debug)]
pub struct Leading<D> {
    depth: usize,
    held: Vec<(f64, D)>,
    /// The score of the worst document kept at the last cut: `depth` documents rank ahead of
    /// anything scoring less, whatever its id.
    floor: f64,
}

impl<D: Ord> Leading<D> {
    /// Gather the first `depth` documents.
    pub fn new(depth: usize) -> Leading<D> {
        // Held documents grow as offered: a run of many short queries holds few per query.
        Leading { depth, held: Vec::new(), floor: f64::NEG_INFINITY }
    }

    /// Offer one document and its score (never NaN: the readers refuse it, see `number`).
    #[inline]
    pub fn offer(&mut self, score: f64, doc: D) {
        if self.depth == 0 || score < self.floor {
            return;
        }
        self.held.push((score, doc));
        if self.held.len() >= 2 * self.depth {
            self.cut();
        }
    }

    /// Keep the best `depth` held and raise the floor to the worst of them. They are chosen by
    /// score alone, a plain comparison; documents tied with the worst kept score stay too (ids
    /// settle them at the end), unless they are many, when ids settle them now.
    fn cut(&mut self) {
        let depth = self.depth;
        self.held.select_nth_unstable_by(depth - 1, |a, b| b.0.total_cmp(&a.0));
        self.floor = self.held[depth - 1].0;
        let mut kept = depth;
        for i in depth..self.held.len() {
            if self.held[i].0.total_cmp(&self.floor).is_eq() {
                self.held.swap(kept, i);
                kept += 1;
            }
        }
        if kept > depth + depth / 2 {
            self.held[..kept].select_nth_unstable_by(depth - 1, by_trec_order);
            kept = depth;
        }
        self.held.truncate(kept);
    }

    /// The documents held: among them the first `depth` offered (all of them when fewer), in no
    /// particular order.
    pub fn held(&self) -> &[(f64, D)] {
        &self.held
    }

    /// The first `depth` documents offered (all of them when fewer), in no particular order.
    pub fn first(mut self) -> Vec<(f64, D)> {
        let reach = select_first(&mut self.held, self.depth);
        self.held.truncate(reach);
        self.held
    }
}

/// One query's distinct scored documents graded in trec_eval's order to `depth` (the deepest
/// cut-off), against the query's judged grades; `grade` gives a document's grade (0 when
/// unjudged). Only the first `depth` documents are selected and graded; the others are graded
/// only when none of those is relevant, to find the first relevant one by counting. A long run
/// thus costs a selection and `depth` grades, not a sort and a grade per document.
pub fn grade_scored<D: Ord, E>(
    docs: &mut [(f64, D)],
    depth: usize,
    judged: impl IntoIterator<Item = f64>,
    grade: impl Fn(&D) -> std::result::Result<f64, E>,
) -> std::result::Result<GradedRanking, E> {
    let depth = select_first(docs, depth);
    let (first, rest) = docs.split_at_mut(depth);
    grade_leading(first, judged, &grade, || {
        let mut best: Option<&(f64, D)> = None;
        for doc in rest.iter() {
            if grade(&doc.1)? > 0.0 && best.is_none_or(|b| by_trec_order(doc, b).is_lt()) {
                best = Some(doc);
            }
        }
        Ok(best.map(|best| depth + rest.iter().filter(|d| by_trec_order(d, best).is_lt()).count()))
    })
}

/// One query's graded ranking from its first documents in trec_eval's order (`leading`, in any
/// order; see [`Leading`]) and its judged grades; `grade` gives a document's grade (0 when
/// unjudged). `beyond` gives the rank (from 0) of the first relevant document after `leading`, or
/// `None` when the run holds none; it is asked only when no leading document is relevant.
pub fn grade_leading<D: Ord, E>(
    leading: &[(f64, D)],
    judged: impl IntoIterator<Item = f64>,
    grade: impl Fn(&D) -> std::result::Result<f64, E>,
    beyond: impl FnOnce() -> std::result::Result<Option<usize>, E>,
) -> std::result::Result<GradedRanking, E> {
    let grades = leading.iter().map(|d| grade(&d.1)).collect::<std::result::Result<Vec<f64>, E>>()?;
    graded_leading(leading, &grades, judged, beyond)
}

/// [`grade_leading`] with the leading documents' grades already looked up (`grades`, in the
/// order of `leading`).
fn graded_leading<D: Ord, E>(
    leading: &[(f64, D)],
    grades: &[f64],
    judged: impl IntoIterator<Item = f64>,
    beyond: impl FnOnce() -> std::result::Result<Option<usize>, E>,
) -> std::result::Result<GradedRanking, E> {
    let top = in_rank_order(leading, grades);
    let first_relevant = match top.iter().position(|g| *g > 0.0) {
        Some(rank) => Some(rank),
        None => beyond()?,
    };
    Ok(GradedRanking::new(top, first_relevant, judged))
}

/// The `grades` of `leading` (the first documents in trec_eval's order, in any order) in rank
/// order. Ungraded documents need no rank, as their grade is 0 wherever they stand, so when few
/// are graded each is ranked by counting the documents ahead of it (a relevant handful among a
/// hundred costs a few hundred comparisons); otherwise the documents are sorted.
fn in_rank_order<D: Ord>(leading: &[(f64, D)], grades: &[f64]) -> Vec<f64> {
    let graded: Vec<usize> = (0..leading.len()).filter(|&i| grades[i] != 0.0).collect();
    let mut top = vec![0.0; leading.len()];
    if graded.len() <= leading.len().max(1).ilog2() as usize {
        for i in graded {
            let rank = leading.iter().filter(|d| by_trec_order(d, &leading[i]).is_lt()).count();
            top[rank] = grades[i];
        }
    } else {
        let mut order: Vec<usize> = (0..leading.len()).collect();
        // The order is total up to identical entries (a document's ids differ, or its line
        // repeats score and id), so an unstable sort gives the stable one's result.
        order.sort_unstable_by(|&a, &b| by_trec_order(&leading[a], &leading[b]));
        for (rank, i) in order.into_iter().enumerate() {
            top[rank] = grades[i];
        }
    }
    top
}

/// One query's documents as a run file lists them, graded as [`grade_scored`] grades distinct
/// ones: a document listed more than once counts once, with its highest score. When the first
/// `depth` lines in trec_eval's order name distinct documents, they are the first `depth`
/// distinct ones (a repeat ranks below its document's best line), and the others matter only
/// when none of those is relevant, to find the first relevant one ([`first_relevant_after`]).
/// Otherwise the whole list is made distinct first.
fn grade_listed<'a>(docs: &mut ScoredText<'a>, depth: usize, judged: &IdMap<'a, f64>) -> GradedRanking {
    let reach = select_first(docs, depth);
    let (first, rest) = docs.split_at(reach);
    if let Some(grades) = distinct_grades(first, judged) {
        let beyond = || Ok::<_, Infallible>(first_relevant_after(first, rest, judged));
        let Ok(graded) = graded_leading(first, &grades, judged.values().copied(), beyond);
        return graded;
    }
    let mut best: IdMap<'_, f64> = IdMap::with_capacity_and_hasher(docs.len(), Default::default());
    for &(score, doc) in docs.iter() {
        best.entry(doc).and_modify(|kept| *kept = kept.max(score)).or_insert(score);
    }
    let mut distinct: ScoredText<'_> = best.into_iter().map(|(doc, score)| (score, doc)).collect();
    let Ok(graded) =
        grade_scored(&mut distinct, depth, judged.values().copied(), |doc| Ok::<_, Infallible>(grade_in(judged, doc)));
    graded
}

/// The grades of `first` (0 when unjudged), when its documents are distinct.
fn distinct_grades<'a>(first: &[(f64, &'a str)], judged: &IdMap<'a, f64>) -> Option<Vec<f64>> {
    let mut seen: HashSet<&str, foldhash::fast::RandomState> =
        HashSet::with_capacity_and_hasher(first.len(), Default::default());
    first.iter().all(|(_, doc)| seen.insert(doc)).then(|| first.iter().map(|(_, doc)| grade_in(judged, doc)).collect())
}

/// The grade `judged` gives `doc` (0 when unjudged).
fn grade_in(judged: &IdMap<'_, f64>, doc: &str) -> f64 {
    judged.get(doc).copied().unwrap_or(0.0)
}

/// The rank (from 0) of the first relevant document among the distinct documents of a query's
/// lines, when its first lines in trec_eval's order (`first`) name distinct documents, none of
/// them relevant, and `rest` holds its other lines (or all of them); `None` when no line is
/// relevant. The documents ranked ahead of the best relevant line are counted once each, without
/// making the whole list distinct: a document ranks ahead of the first relevant one exactly when
/// one of its lines does.
fn first_relevant_after(first: &[(f64, &str)], rest: &[(f64, &str)], judged: &IdMap<'_, f64>) -> Option<usize> {
    // Only a line ahead of the best relevant one so far can be the best: the others need no
    // lookup (a run listed best first looks up its lines until the first relevant one).
    let mut best: Option<&(f64, &str)> = None;
    for line in rest {
        if best.is_none_or(|best| by_trec_order(line, best).is_lt()) && grade_in(judged, line.1) > 0.0 {
            best = Some(line);
        }
    }
    let best = best?;
    let mut ahead: HashSet<&str, foldhash::fast::RandomState> =
        first.iter().map(|(_, doc)| *doc).collect::<HashSet<_, _>>();
    ahead.extend(rest.iter().filter(|line| by_trec_order(line, best).is_lt()).map(|(_, doc)| *doc));
    Some(ahead.len())
}

/// One query's graded ranking to `depth` from its lines in a run file, in the order listed. Its
/// first `depth` lines in trec_eval's order were gathered as they were read; when they name
/// distinct documents they are its first distinct documents, and when one of them is relevant
/// they are all it needs: the common run costs a check for repeats among its first documents,
/// not a hash of every line. Otherwise its lines are read again: to find the first relevant
/// document after them ([`first_relevant_after`]), or, when they repeat a document, to be made
/// distinct ([`grade_listed`]).
fn grade_query<'a>(lines: &[QueryLines<'a>], depth: usize, judged: &IdMap<'a, f64>) -> Result<GradedRanking> {
    let mut texts = Vec::with_capacity(lines.len());
    let mut first = ScoredText::new();
    for QueryLines { text, span, leading } in lines {
        texts.push(&text[span.clone()]);
        first.extend_from_slice(leading.held());
    }
    let reach = select_first(&mut first, depth);
    let first = &first[..reach];
    // The spans hold this query's lines only, so they are listed without grouping.
    let listed = || -> Result<ScoredText<'a>> {
        let mut listed = ScoredText::with_capacity(texts.iter().map(|text| text.len()).sum::<usize>() / 32);
        for text in &texts {
            for_each_line(text, |fields| {
                let (_, document, score) = run_line(fields)?;
                listed.push((score, document));
                Ok(())
            })
            .map_err(|_| Error::internal("a run's lines read differently the second time"))?;
        }
        Ok(listed)
    };
    let Some(grades) = distinct_grades(first, judged) else {
        return Ok(grade_listed(&mut listed()?, depth, judged));
    };
    graded_leading(first, &grades, judged.values().copied(), || Ok(first_relevant_after(first, &listed()?, judged)))
}

/// The scores of one query (or their means): `recall@k`, `precision@k`, `ndcg@k` per cut-off,
/// then `mrr`.
pub type Scores = serde_json::Map<String, serde_json::Value>;

/// A run's scores against qrels.
#[derive(Debug, Clone, Serialize)]
pub struct RetrievalReport {
    /// Queries with at least one relevant document (the others are not scored).
    pub queries: usize,
    /// Means over those queries.
    pub mean: Scores,
    /// Per query, when asked for.
    pub per_query: Option<Vec<QueryScores>>,
}

impl std::fmt::Display for RetrievalReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{} queries with relevant documents (queries missing from the run score 0)", self.queries)?;
        write!(f, "{}", super::numbers(&self.mean))?;
        for row in self.per_query.iter().flatten() {
            writeln!(f, "query {}", row.query)?;
            write!(f, "{}", super::numbers(&row.scores))?;
        }
        Ok(())
    }
}

/// One query's scores.
#[derive(Debug, Clone, Serialize)]
pub struct QueryScores {
    /// The query id.
    pub query: String,
    /// Its scores.
    pub scores: Scores,
}

/// The deepest of the cut-offs `k`: how far each query's run is graded.
pub fn deepest(k: &[usize]) -> usize {
    k.iter().copied().max().unwrap_or(0)
}

/// Score `run` against `qrels` at the cut-offs `k`. Queries missing from the run score 0.
pub fn score(qrels: &Qrels, run: &Run, k: &[usize], per_query: bool) -> Result<RetrievalReport> {
    let depth = deepest(k);
    let graded = qrels.iter().map(|(query, judged)| {
        let grades: HashMap<&str, f64> = judged.iter().map(|(d, g)| (d.as_str(), *g)).collect();
        let ranking: Vec<&str> = run.get(query).map(|r| r.iter().map(String::as_str).collect()).unwrap_or_default();
        (query.clone(), GradedRanking::of(&ranking, &grades, depth))
    });
    Ok(ScoreTable::of(graded, k)?.report(per_query))
}

/// Retrieval scores as a table: one column per metric, named once (`recall@k`, `precision@k`,
/// `ndcg@k` per cut-off, then `mrr`), one row per query with a relevant document, and the
/// column means. [`RetrievalReport`] is its JSON shape; a caller that builds its own objects
/// (the Python module) reads it directly instead of a map per query.
#[derive(Debug, Clone)]
pub struct ScoreTable {
    /// The metrics' names, in column order.
    pub metrics: Vec<String>,
    /// Each scored query and its values, in `metrics`' order.
    pub rows: Vec<(String, Vec<f64>)>,
    /// The mean of each column over the rows.
    pub mean: Vec<f64>,
}

impl ScoreTable {
    /// Score queries already graded to the deepest of the cut-offs `k` (in the order given: qrels
    /// order, by query id, is what [`score`] gives). Queries without a relevant document are left
    /// out; an error when no query has one.
    pub fn of(queries: impl IntoIterator<Item = (String, GradedRanking)>, k: &[usize]) -> Result<Self> {
        let mut metrics = Vec::with_capacity(3 * k.len() + 1);
        for k in k {
            metrics.extend([format!("recall@{k}"), format!("precision@{k}"), format!("ndcg@{k}")]);
        }
        metrics.push("mrr".into());
        let values = |graded: &GradedRanking| {
            let mut row = Vec::with_capacity(metrics.len());
            for &k in k {
                row.extend([graded.recall_at(k), graded.precision_at(k), graded.ndcg_at(k)]);
            }
            row.push(graded.reciprocal_rank());
            row
        };
        let rows: Vec<(String, Vec<f64>)> = queries
            .into_iter()
            .filter(|(_, graded)| graded.relevant() > 0)
            .map(|(query, graded)| (query, values(&graded)))
            .collect();
        if rows.is_empty() {
            return Err(Error::input("no query has a relevant document"));
        }
        let mean = (0..metrics.len())
            .map(|column| rows.iter().map(|(_, row)| row[column]).sum::<f64>() / rows.len() as f64)
            .collect();
        Ok(Self { metrics, rows, mean })
    }

    /// Read a run file and a qrels file and score them. Ids stay borrowed from the files' text,
    /// and of each query's lines only the first to the deepest cut-off are kept as they are read
    /// ([`Leading`]); the others are read again only for a query that needs them. The qrels and
    /// the run's pieces are read side by side, and then the queries graded, by the calling thread
    /// and helpers ([`parallel::shared`]).
    pub fn of_files(qrels: &Path, run: &Path, k: &[usize]) -> Result<Self> {
        parallel::wake_helpers();
        let (judged_text, run_bytes) = (read_text(qrels)?, read_bytes(run)?);
        let depth = deepest(k);
        let (judged, scored) = read_trec((&judged_text, qrels), (&run_bytes, run), depth)?;
        // Each query's lines are borrowed, not moved, into its grading: what the threads allocated
        // while reading is freed by the caller once they are done, not by whichever thread grades
        // the query while another still allocates (glibc's allocator makes such a thread wait for
        // the heap the block came from).
        let queries: Vec<_> = judged
            .iter()
            .map(|(query, grades)| (*query, grades, scored.get(query).map_or(&[][..], Vec::as_slice)))
            .collect();
        let graded = parallel::shared(queries, |(query, grades, lines)| {
            grade_query(lines, depth, grades).map(|graded| (query.to_string(), graded))
        });
        let graded = graded.into_iter().collect::<Result<Vec<_>>>()?;
        Self::of(graded, k).map_err(|e| e.context(format!("scoring {}", qrels.display())))
    }

    /// The table as `eval retrieval --json` reports it (rows only when `per_query`).
    pub fn report(self, per_query: bool) -> RetrievalReport {
        let Self { metrics, rows, mean } = self;
        let named = |values: Vec<f64>| -> Scores {
            metrics.iter().cloned().zip(values.into_iter().map(serde_json::Value::from)).collect()
        };
        let queries = rows.len();
        let mean = named(mean);
        let per_query =
            per_query.then(|| rows.into_iter().map(|(query, row)| QueryScores { query, scores: named(row) }).collect());
        RetrievalReport { queries, mean, per_query }
    }
}

/// Read and score a run file against a qrels file ([`ScoreTable::of_files`]).
pub fn score_files(qrels: &Path, run: &Path, k: &[usize], per_query: bool) -> Result<RetrievalReport> {
    Ok(ScoreTable::of_files(qrels, run, k)?.report(per_query))
}

/// How topics are written for other retrieval systems.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum TopicFormat {
    /// `id<TAB>query` per line (Anserini/Pyserini's topic files).
    Tsv,
    /// TREC's `<top>` blocks (`<num>`, `<title>`).
    Trec,
}

/// The corpus topics a retrieval system can be scored on: those with resolved references.
fn scorable(topics: &[litnav_corpus::Topic]) -> Result<Vec<&litnav_corpus::Topic>> {
    let kept: Vec<&litnav_corpus::Topic> = topics.iter().filter(|t| !t.reference_ids.is_empty()).collect();
    if kept.is_empty() {
        return Err(Error::not_found("the corpus has no topics with resolved references to judge by"));
    }
    for topic in &kept {
        check_token(&topic.id, "topic id")?;
    }
    Ok(kept)
}

/// A TREC field must be one whitespace-free token.
fn check_token(text: &str, what: &str) -> Result<()> {
    if text.is_empty() || text.chars().any(char::is_whitespace) {
        return Err(Error::input(format!(
            "{what} {text:?} cannot be written in TREC files (it is empty or holds white space)"
        )));
    }
    Ok(())
}

/// Every scorable topic: its id and its survey's title as the query (one line, white space
/// collapsed).
pub fn export_topics(topics: &[litnav_corpus::Topic], format: TopicFormat) -> Result<String> {
    let mut out = String::new();
    for topic in scorable(topics)? {
        let query = topic.title.split_whitespace().collect::<Vec<_>>().join(" ");
        match format {
            TopicFormat::Tsv => out.push_str(&format!("{}\t{query}\n", topic.id)),
            TopicFormat::Trec => out.push_str(&format!(
                "<top>\n<num> Number: {}\n<title> {}\n</top>\n\n",
                topic.id,
                escape_markup(&query)
            )),
        }
    }
    Ok(out)
}

fn escape_markup(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Relevance judgments: every resolved reference of every scorable topic, grade 1
/// (`topic 0 paper 1`), topics in corpus order, references in the survey's order.
pub fn export_qrels(topics: &[litnav_corpus::Topic]) -> Result<String> {
    let mut out = String::new();
    for topic in scorable(topics)? {
        let mut seen = HashSet::new();
        for paper in topic.reference_ids.iter().filter(|id| seen.insert(id.as_str())) {
            check_token(paper, "paper id")?;
            out.push_str(&format!("{} 0 {paper} 1\n", topic.id));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scored documents with their grades.
    type Graded = Vec<(f64, String, f64)>;

    /// A run with many tied scores, some judged documents missing from it and grades 0 to 2.
    fn case(seed: u64, documents: usize) -> (Graded, HashMap<String, f64>) {
        let mut state = seed;
        let mut next = |modulus: u64| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) % modulus
        };
        let mut judged = HashMap::new();
        let docs = (0..documents)
            .map(|i| {
                let id = format!("d{i}");
                let grade = match next(10) {
                    0 => 2.0,
                    1 | 2 => 1.0,
                    3 => 0.0,
                    _ => f64::NAN,
                };
                if !grade.is_nan() {
                    judged.insert(id.clone(), grade);
                }
                (next(20) as f64, id, grade.max(0.0))
            })
            .collect();
        judged.insert("absent".into(), 1.0);
        (docs, judged)
    }

    #[test]
    fn grading_scored_documents_equals_ranking_them_all() {
        for seed in 0..40 {
            let (docs, judged) = case(seed, 1 + seed as usize * 7);
            let grades: HashMap<&str, f64> = judged.iter().map(|(d, g)| (d.as_str(), *g)).collect();
            let ranked =
                rank(HashMap::from([("q".to_string(), docs.iter().map(|(s, d, _)| (*s, d.clone())).collect())]));
            let ranking: Vec<&str> = ranked["q"].iter().map(String::as_str).collect();
            for depth in [0, 1, 5, 10, 100, 1000] {
                let mut scored: Vec<(f64, String)> = docs.iter().map(|(s, d, _)| (*s, d.clone())).collect();
                let grade = |d: &String| Ok::<f64, ()>(grades.get(d.as_str()).copied().unwrap_or(0.0));
                let graded = grade_scored(&mut scored, depth, judged.values().copied(), grade).unwrap();
                assert_eq!(graded, GradedRanking::of(&ranking, &grades, depth), "seed {seed}, depth {depth}");
            }
        }
    }

    #[test]
    fn leading_documents_gathered_one_by_one_are_the_first_of_the_whole_ranking() {
        for seed in 0..40 {
            let (docs, _) = case(seed, 1 + seed as usize * 7);
            let mut all: Vec<(f64, String)> = docs.iter().map(|(s, d, _)| (*s, d.clone())).collect();
            all.sort_by(by_trec_order);
            for depth in [0, 1, 2, 5, 10, 100, 1000] {
                for reversed in [false, true] {
                    let mut leading = Leading::new(depth);
                    let offered: Vec<&(f64, String, f64)> =
                        if reversed { docs.iter().rev().collect() } else { docs.iter().collect() };
                    for (score, doc, _) in offered {
                        leading.offer(*score, doc.clone());
                    }
                    let expected = &all[..depth.min(all.len())];
                    let mut first = leading.first();
                    first.sort_by(by_trec_order);
                    assert_eq!(first, expected, "seed {seed}, depth {depth}, reversed {reversed}");
                }
            }
        }
    }

    #[test]
    fn grading_listed_documents_with_repeats_equals_ranking_them_all() {
        for seed in 0..60 {
            // Ids drawn from a pool smaller than the list: many documents are listed twice or more.
            let (docs, judged) = case(seed, 1 + seed as usize * 5);
            let pool = 1 + docs.len() / 3;
            let listed: Vec<(f64, String)> = docs
                .iter()
                .enumerate()
                .map(|(i, (s, _, _))| (*s, format!("d{}", (i * 7 + seed as usize) % pool)))
                .collect();
            let grades: HashMap<&str, f64> = judged.iter().map(|(d, g)| (d.as_str(), *g)).collect();
            let ranked = rank(HashMap::from([("q".to_string(), listed.clone())]));
            let ranking: Vec<&str> = ranked["q"].iter().map(String::as_str).collect();
            let by_id: IdMap<'_, f64> = grades.iter().map(|(d, g)| (*d, *g)).collect();
            for depth in [0, 1, 3, 10, 100] {
                let mut scored: ScoredText<'_> = listed.iter().map(|(s, d)| (*s, d.as_str())).collect();
                let graded = grade_listed(&mut scored, depth, &by_id);
                assert_eq!(graded, GradedRanking::of(&ranking, &grades, depth), "seed {seed}, depth {depth}");
            }
        }
    }

    #[test]
    fn a_relevant_document_only_beyond_the_depth_is_ranked_by_counting() {
        let mut docs = vec![(3.0, "a"), (1.0, "b"), (2.0, "c"), (1.0, "d"), (1.0, "e")];
        // Ranked: a, c, e, d, b (ties by id, decreasing): b is fifth.
        let grade = |d: &&str| Ok::<f64, ()>(if *d == "b" { 1.0 } else { 0.0 });
        let graded = grade_scored(&mut docs, 2, [1.0], grade).unwrap();
        assert_eq!(graded.reciprocal_rank(), 1.0 / 5.0);
        assert_eq!(graded.recall_at(2), 0.0);
    }

    #[test]
    fn a_document_listed_twice_in_a_run_file_counts_once_where_it_ranks_first() {
        let dir = tempfile::tempdir().unwrap();
        let (qrels, run) = (dir.path().join("qrels"), dir.path().join("run"));
        std::fs::write(&qrels, "q 0 a 1\nq 0 b 2\n").unwrap();
        std::fs::write(&run, "q Q0 x 1 5 t\nq Q0 a 2 1 t\nq Q0 a 3 9 t\n\nq Q0 b 4 3 t\n").unwrap();
        let report = score_files(&qrels, &run, &[2, 3], true).unwrap();
        // Ranked: a (9), x (5), b (3); the a at 1 is the same document, not a fourth.
        assert_eq!(report.mean["recall@2"], 0.5);
        assert_eq!(report.mean["precision@3"], 2.0 / 3.0);
        assert_eq!(report.mean["mrr"], 1.0);
        assert_eq!(read_run(&run).unwrap()["q"], ["a", "x", "b"]);
        std::fs::write(&run, "q Q0 a 1\n").unwrap();
        let error = score_files(&qrels, &run, &[2], false).unwrap_err().to_string();
        assert!(error.contains(":1: a run line has 6 fields"), "{error}");
    }

    #[test]
    fn lines_and_fields_are_those_of_str_lines_and_split_ascii_whitespace() {
        // Fields ending at the block's end (64 bytes), and lines too long for the block.
        let (a, b, q) = ("a".repeat(64), "b".repeat(10), "q".repeat(63));
        let long = format!("{} {b} c\n{a} b\n{q} {}\n{}x\n", &a[..60], "d".repeat(70), " ".repeat(127));
        let texts =
            ["", "\n", "a", "a\n", "a\n\nb", " q  Q0\td 1 2.5 x \r\n\r\n\x0cz\n", "é b\u{a0}c\n  \n last", &long];
        // And texts whose line feeds and fields fall anywhere in and around the 64-byte blocks:
        // every length up to 300 bytes, made of white space, a vertical tab (not white space)
        // and letters of one and two bytes.
        let mut seed = 11u64;
        let pieces = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "a", "é", "bb", "  "];
        let generated: Vec<String> = (0..300)
            .map(|length| {
                let mut text = String::new();
                while text.len() < length {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                    // Mostly letters, so that lines are often longer than a block.
                    let index = if (seed >> 60) < 3 { (seed >> 33) as usize % pieces.len() } else { 6 };
                    text.push_str(pieces[index]);
                }
                text
            })
            .collect();
        for text in texts.into_iter().chain(generated.iter().map(String::as_str)) {
            let mut seen = Vec::new();
            for_each_line(text, |fields| {
                seen.push(fields.join("|"));
                Ok(())
            })
            .unwrap();
            let expected: Vec<String> = text
                .lines()
                .map(|line| line.split_ascii_whitespace().collect::<Vec<_>>().join("|"))
                .filter(|line| !line.is_empty())
                .collect();
            assert_eq!(seen, expected, "{text:?}");
        }
        let failed = for_each_line("a\n\n b\nc", |fields| if fields == ["c"] { Err("c".into()) } else { Ok(()) });
        assert_eq!(failed, Err((4, "c".to_string())));
    }

    #[test]
    fn short_decimals_are_read_as_str_parse_reads_them() {
        let mut seed = 5u64;
        let mut texts: Vec<String> = [
            "0",
            "-0",
            "1.",
            ".5",
            "-.5",
            "007.250",
            "9007199254740992",
            "9007199254740993",
            "0.1",
            "0.30000000000000004",
            "1234567890.123456789",
            "12345678901234567890",
            "123.456e7",
            "+1",
            ".",
            "-",
            "",
            "1.2.3",
            "inf",
            "NaN",
            "1_0",
        ]
        .map(String::from)
        .into();
        for _ in 0..20_000 {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let digits = format!("{}", seed >> (seed % 64));
            let point = (seed >> 40) as usize % (digits.len() + 1);
            let sign = if seed & 1 == 1 { "-" } else { "" };
            texts.push(format!("{sign}{}.{}", &digits[..point], &digits[point..]));
        }
        for text in &texts {
            let parsed = text.parse::<f64>().ok();
            if let Some(value) = short_decimal(text) {
                assert_eq!(Some(value.to_bits()), parsed.map(f64::to_bits), "{text}");
            }
            let parsed = parsed.filter(|value| !value.is_nan());
            assert_eq!(number(text, "x").ok().map(f64::to_bits), parsed.map(f64::to_bits), "{text}");
        }
        assert!(short_decimal("-7.2384").is_some() && short_decimal("0.3000000000000001").is_some());
        for fast in ["996.0", "1.", ".5", "0", "1234567.12345678", "9007199254740992", "-000000000000001"] {
            assert_eq!(short_decimal(fast).map(f64::to_bits), fast.parse::<f64>().ok().map(f64::to_bits), "{fast}");
        }
        for other in [".", "-.", "1.2.3", "12a4", "9007199254740993", "1e5", "1.5 ", "--1"] {
            assert_eq!(short_decimal(other), None, "{other}");
        }
        assert!(short_decimal("0.30000000000000004").is_none() && short_decimal("123.456e7").is_none());
        for nan in ["NaN", "nan", "-nan", "NAN"] {
            assert_eq!(number(nan, "score"), Err(format!("field `score`: `{nan}` is not a number")));
        }
        assert_eq!(number("inf", "score"), Ok(f64::INFINITY), "trec_eval ranks an infinite score first");
    }

    #[test]
    fn a_long_run_read_in_pieces_scores_and_fails_as_read_whole() {
        // Three queries' lines interleaved (a query is split across every cut), with repeats and
        // ties, long enough for four pieces.
        let mut run = String::new();
        for line in 0..12_000 {
            let (query, doc) = (["q1", "q2", "q3", "q4"][(line / 700) % 4], (line * 7919) % 5000);
            let doc = if query == "q4" { format!("e{line}") } else { format!("d{doc}") };
            run.push_str(&format!("{query} Q0 {doc} {line} {} t\n", (line * 31) % 997));
        }
        let mut qrels: String = (0..300).map(|i| format!("q{} 0 d{} {}\n", i % 3 + 1, i * 13, i % 3)).collect();
        qrels.extend((0..12_000).step_by(7).map(|line| format!("q4 0 e{line} 1\n")));
        let text_pieces = pieces(run.as_bytes(), 4);
        assert_eq!(text_pieces.len(), 4);
        assert_eq!(
            text_pieces.iter().flat_map(|(_, piece)| piece.iter().copied()).collect::<Vec<u8>>(),
            run.as_bytes()
        );
        let judged = parse_qrels(&qrels).unwrap();
        let whole: Vec<(&str, ScoredText<'_>)> = scored_lines(&run).unwrap();
        fn read<'a>(qrels: &'a str, run: &'a [u8], depth: usize) -> Result<HashMap<String, Vec<QueryLines<'a>>>> {
            let (_, scored) = read_trec((qrels, Path::new("qrels")), (run, Path::new("run")), depth)?;
            Ok(scored.into_iter().map(|(query, lines)| (query.to_string(), lines)).collect())
        }
        for depth in [0, 1, 10, 100, 1000, 5000] {
            let mut in_pieces = read(&qrels, run.as_bytes(), depth).unwrap();
            assert_eq!(in_pieces.len(), 4);
            for (query, grades) in &judged {
                let mut listed: ScoredText<'_> =
                    whole.iter().filter(|(q, _)| q == query).flat_map(|(_, docs)| docs.clone()).collect();
                let lines = in_pieces.remove(*query).unwrap();
                assert!(lines.len() > 1, "{query}'s lines are in several groups");
                let graded = grade_query(&lines, depth, grades).unwrap();
                // The plain definition: every line ranked by a sort, repeats dropped after their first.
                let owned = listed.iter().map(|(score, doc)| (*score, doc.to_string())).collect();
                let ranked = rank(HashMap::from([(query.to_string(), owned)])).remove(*query).unwrap();
                let ranking: Vec<&str> = ranked.iter().map(String::as_str).collect();
                let grade_map: HashMap<&str, f64> = grades.iter().map(|(doc, grade)| (*doc, *grade)).collect();
                assert_eq!(graded, GradedRanking::of(&ranking, &grade_map, depth), "{query} to {depth}");
                assert_eq!(graded, grade_listed(&mut listed, depth, grades), "{query} to {depth}");
            }
        }
        // q1's documents are all judged 0 and q3's first hundred are not enough (a repeat, or no
        // relevant one): they are read again. q2's and q4's first hundred are distinct and hold a
        // relevant one: graded from them alone.
        let first = |query: &str| {
            let lines = read(&qrels, run.as_bytes(), 100).unwrap().remove(query).unwrap();
            let mut first: ScoredText<'_> = lines.into_iter().flat_map(|l| l.leading.first()).collect();
            first.select_nth_unstable_by(99, by_trec_order);
            distinct_grades(&first[..100], &judged[query]).is_some_and(|grades| grades.iter().any(|g| *g > 0.0))
        };
        assert_eq!([first("q1"), first("q2"), first("q3"), first("q4")], [false, true, false, true]);
        // Two bad lines in the last pieces: the first one is named, by its line in the file.
        let mut lines: Vec<&str> = run.lines().collect();
        lines[9_999] = "q1 Q0 d1 1 many t";
        lines[10_400] = "q1 Q0 d1 1 nan t";
        lines[11_500] = "q1 Q0 d1 1";
        let bad = lines.join("\n");
        let error = read(&qrels, bad.as_bytes(), 100).unwrap_err().to_string();
        let line = 10_000;
        assert!(error.contains(&format!("run:{line}: field `score`: `many` is not a number")), "{error}");
        lines[9_999] = "q1 Q0 d1 1 0.5 t";
        let error = read(&qrels, lines.join("\n").as_bytes(), 100).unwrap_err().to_string();
        assert!(error.contains("run:10401: field `score`: `nan` is not a number"), "{error}");
        // Bytes that are not UTF-8 in a late piece: named by their line too.
        let mut bytes = run.into_bytes();
        let at = memchr::memchr_iter(b'\n', &bytes).nth(10_499).unwrap() + 6;
        bytes[at] = 0xff;
        let error = read(&qrels, &bytes, 100).unwrap_err().to_string();
        assert!(error.contains("run:10501: the line is not UTF-8 text"), "{error}");
    }
}
