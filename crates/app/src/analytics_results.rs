//! Relations from results computed beyond one machine: the files `litnav analytics cd | novelty |
//! counts | cocitation | coupling` wrote (Parquet, from the corpus's `export parquet`) used in a
//! session instead of computing the values here. Behind the `analytics` feature (DataFusion).

use crate::relations::{Measure, MetricOptions, Neighbourhood, RankRequest};
use crate::{CorpusSession, Error, Result};
use litnav_graph::novelty::Units;
use std::path::Path;

/// The error of a build without the `analytics` feature.
pub fn missing_feature() -> Error {
    Error::input(
        "this litnav was built without the `analytics` feature (DataFusion and Ballista): rebuild with \
         `cargo build --release --features analytics`",
    )
}

/// Load the results file of `request`'s measure (`litnav analytics cd`, `novelty` or `counts`)
/// into the session, and set the request's window or units to the file's (a window or units
/// `request` was given must agree with the file's; `units` is the novelty units asked for, if any).
pub fn use_results(
    session: &CorpusSession,
    request: &mut RankRequest,
    units: Option<Units>,
    path: &Path,
) -> Result<()> {
    match request.measure {
        Measure::Disruption => request.metric.window = use_disruption(session, &request.metric, path)?,
        Measure::Novelty => request.metric.units = use_novelty(session, &request.metric, units, path)?,
        Measure::Citations => use_counts(session, path)?,
    }
    Ok(())
}

/// Load `litnav analytics cd` results into the session; returns their window, which must agree
/// with `metric`'s when it has one.
pub fn use_disruption(session: &CorpusSession, metric: &MetricOptions, path: &Path) -> Result<Option<u32>> {
    #[cfg(feature = "analytics")]
    {
        if metric.reading != litnav_graph::disruption::Reading::Subsequent {
            return Err(Error::input(
                "results hold the index's definition (subsequent papers); the all-time reading is computed here",
            ));
        }
        let results = litnav_analytics::cd::read(path).map_err(|e| Error::input(e.to_string()))?;
        if let Some(window) = metric.window
            && Some(window) != results.window
        {
            let theirs = results.window.map_or("no window".to_string(), |w| format!("a {w}-year window"));
            return Err(Error::input(format!("window: {window} disagrees with the results, computed with {theirs}")));
        }
        let metric = MetricOptions { window: results.window, ..*metric };
        session.use_disruption(&metric, results.rows)?;
        Ok(results.window)
    }
    #[cfg(not(feature = "analytics"))]
    {
        let _ = (session, metric, path);
        Err(missing_feature())
    }
}

/// Load `litnav analytics novelty` results (expected null) into the session; returns their
/// units, which must agree with `units` when given.
pub fn use_novelty(
    session: &CorpusSession,
    metric: &MetricOptions,
    units: Option<Units>,
    path: &Path,
) -> Result<Units> {
    #[cfg(feature = "analytics")]
    {
        let results = litnav_analytics::novelty::read(path).map_err(|e| Error::input(e.to_string()))?;
        if let Some(units) = units.filter(|units| *units != results.units) {
            return Err(Error::input(format!(
                "units: {units:?} disagrees with the results, computed with units {:?}",
                results.units
            )));
        }
        let metric = MetricOptions { units: results.units, ..*metric };
        session.use_novelty(&metric, results.rows)?;
        Ok(results.units)
    }
    #[cfg(not(feature = "analytics"))]
    {
        let _ = (session, metric, units, path);
        Err(missing_feature())
    }
}

/// Load `litnav analytics counts` results into the session.
pub fn use_counts(session: &CorpusSession, path: &Path) -> Result<()> {
    #[cfg(feature = "analytics")]
    {
        let rows = litnav_analytics::counts::read(path).map_err(|e| Error::input(e.to_string()))?;
        let count =
            |n: i64| u64::try_from(n).map_err(|_| Error::input(format!("{}: a negative count ({n})", path.display())));
        let rows = rows
            .into_iter()
            .map(|(id, c)| {
                let counts = crate::relations::CitationCounts {
                    citations: count(c.citations)?,
                    references: count(c.references)?,
                };
                Ok((id, counts))
            })
            .collect::<Result<Vec<_>>>()?;
        session.use_citations(rows)?;
        Ok(())
    }
    #[cfg(not(feature = "analytics"))]
    {
        let _ = (session, path);
        Err(missing_feature())
    }
}

/// A paper's neighbour as a results file lists it: its id, the count (co-citations or shared
/// references) and the cosine.
pub type Listed = (String, usize, f64);

/// One paper's neighbours from a `litnav analytics cocitation|coupling` file, at most `k`, and
/// how many each paper's list keeps (the file holds each paper's top lists only).
pub fn listed_neighbours(path: &Path, which: Neighbourhood, id: &str, k: usize) -> Result<(Vec<Listed>, usize)> {
    #[cfg(feature = "analytics")]
    {
        use litnav_analytics::related::Relation;
        let results = litnav_analytics::related::read(path).map_err(|e| Error::input(e.to_string()))?;
        let wanted = match which {
            Neighbourhood::CoCited => Relation::CoCitation,
            Neighbourhood::Coupled => Relation::Coupling,
        };
        if results.relation != wanted {
            return Err(Error::input(format!(
                "{} holds {} lists, not {}",
                path.display(),
                results.relation.name(),
                wanted.name()
            )));
        }
        let list = results.lists.get(id).map(Vec::as_slice).unwrap_or_default();
        let listed = list.iter().take(k).map(|r| (r.other.clone(), r.count as usize, r.similarity)).collect();
        Ok((listed, results.top as usize))
    }
    #[cfg(not(feature = "analytics"))]
    {
        let _ = (path, which, id, k);
        Err(missing_feature())
    }
}
