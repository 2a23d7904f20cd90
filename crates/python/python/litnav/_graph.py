"""Citation measures of an edge list: the CD index, novelty and citation paths, computed by the
same code as a corpus's own graph. Edges and papers come as Python sequences, NumPy arrays, pandas
frames or Arrow tables; whole-number ids in NumPy or Arrow columns cross into litnav as one block
each, without a Python object per edge."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from . import _litnav
from ._errors import InputError, citation_path, LitnavError, _call, options_json, text, whole

_DEFAULTS = _litnav.DEFAULTS
_UNKNOWN_YEAR = -(2**63)


def _numpy():
    import numpy

    return numpy


def _two_columns(name: str, table: Any, wanted: Tuple[str, str]) -> Optional[Tuple[Any, Any]]:
    """The two columns of a pandas DataFrame or an Arrow table (``wanted`` by name, else the first
    two), as NumPy arrays; ``None`` when ``table`` is neither."""
    if hasattr(table, "column_names") and hasattr(table, "column"):  # pyarrow.Table
        # Integer columns without nulls come out of Arrow without a copy.
        names, column, kind = list(table.column_names), lambda c: table.column(c).to_numpy(), "table"
    elif hasattr(table, "columns") and hasattr(table, "iloc"):  # pandas.DataFrame
        names, column, kind = list(table.columns), lambda c: table[c].to_numpy(), "frame"
    else:
        return None
    first, second = wanted if set(wanted) <= set(names) else (names + [None, None])[:2]
    if second is None:
        raise InputError(f"{name}: expected a {kind} with two columns ({', '.join(wanted)}), not {names!r}")
    return column(first), column(second)


def _unzip(name: str, items: Any, what: str) -> Tuple[List[Any], List[Any]]:
    """Two lists of a sequence of pairs; a position that is not a pair is refused, naming it."""
    firsts: List[Any] = []
    seconds: List[Any] = []
    for position, item in enumerate(items):
        try:
            first, second = item
        except (TypeError, ValueError):
            raise InputError(f"{name}[{position}]: expected {what} pair, not {item!r}") from None
        firsts.append(first)
        seconds.append(second)
    return firsts, seconds


def _edge_columns(edges: Any) -> Tuple[Any, Any]:
    columns = _two_columns("edges", edges, ("citing", "cited"))
    if columns is not None:
        return columns
    if hasattr(edges, "ndim") and hasattr(edges, "shape"):  # a NumPy array
        if edges.ndim != 2 or edges.shape[1] != 2:
            raise InputError(f"edges: expected an array of shape (n, 2), not {tuple(edges.shape)}")
        return edges[:, 0], edges[:, 1]
    return _unzip("edges", edges, "a (citing, cited)")


def _paper_columns(times: Any) -> Tuple[Any, Any]:
    """Paper ids and years of a mapping, a pandas Series, a two-column table or ``(id, year)``
    pairs."""
    columns = _two_columns("times", times, ("id", "year"))
    if columns is not None:
        return columns
    if hasattr(times, "index") and hasattr(times, "to_numpy"):  # pandas.Series
        return times.index.to_numpy(), times.to_numpy()
    if isinstance(times, Mapping):
        return list(times.keys()), list(times.values())
    return _unzip("times", times, "an (id, year)")


def _years(ids: Sequence[Any], values: Any):
    """The years as a float64 array, NaN where unknown; refuses what is not a whole number, naming
    its position."""
    numpy = _numpy()
    try:
        years = numpy.array(values, dtype="float64")
    except (TypeError, ValueError):
        years = None
    if years is None or years.ndim != 1:
        for position, year in enumerate(values):
            if year is not None and (isinstance(year, (bool, str)) or not isinstance(year, (int, float))):
                raise InputError(f"times[{position}]: the year of {ids[position]!r} is not a number: {year!r}")
        raise InputError("times: expected one year per paper")
    known = ~numpy.isnan(years)
    fractional = numpy.flatnonzero(known & (years != numpy.floor(numpy.where(known, years, 0))))
    if fractional.size:
        position = int(fractional[0])
        raise InputError(f"times[{position}]: the year of {ids[position]!r} is not a whole number: {values[position]!r}")
    return years


def _integers(column: Any):
    """The column itself when it is a NumPy array of whole numbers, else None."""
    kind = getattr(getattr(column, "dtype", None), "kind", None)
    return column if kind in ("i", "u") else None


def _as_list(column: Any) -> List[Any]:
    return column.tolist() if hasattr(column, "tolist") else list(column)


class CitationGraph:
    """A citation graph built once from an edge list, answering per paper in the order the papers
    were given (``times``' order).

    ``edges``: ``(citing, cited)`` pairs, a two-column NumPy array, or a pandas DataFrame / Arrow
    table with ``citing`` and ``cited`` columns (its first two otherwise). ``times``: each paper's
    publication year — a mapping, a pandas Series, ``(id, year)`` pairs, or a table with ``id`` and
    ``year`` columns; ``None``/NaN where unknown. ``venues`` (optional): a mapping of paper to
    venue, novelty's units. Every paper an edge names must have a time; self-citations and repeated
    edges are dropped. Ids are compared as given when every id is a whole number in a NumPy or
    Arrow column (then they cross as one block), else as text.
    """

    def __init__(self, edges: Any, times: Any, venues: Optional[Mapping[Any, Optional[str]]] = None) -> None:
        numpy = _numpy()
        citing, cited = _edge_columns(edges)
        ids, year_values = _paper_columns(times)
        if len(citing) != len(cited):
            raise InputError(f"edges: {len(citing)} citing ids but {len(cited)} cited ids (a ragged edge list)")
        years = _years(ids, year_values)
        if len(years) != len(ids):
            raise InputError("times: expected one year per paper")
        venue_list = None
        if venues is not None:
            if not isinstance(venues, Mapping) and not hasattr(venues, "get"):
                raise InputError(f"venues: expected a mapping of paper to venue, not {type(venues).__name__}")
            venue_list = []
            for paper in _as_list(ids):
                venue = venues.get(paper)
                if venue is not None and not isinstance(venue, str):
                    raise InputError(f"venues[{paper!r}]: expected a string or None, not {venue!r}")
                venue_list.append(venue)
        numbered = [_integers(column) for column in (ids, citing, cited)]
        if all(c is not None for c in numbered):
            block = lambda column: numpy.ascontiguousarray(column, dtype="<i8").tobytes()  # noqa: E731
            known_years = numpy.where(numpy.isnan(years), _UNKNOWN_YEAR, numpy.nan_to_num(years)).astype("<i8")
            self._ids = _as_list(numbered[0])
            self._inner = _call(
                _litnav.CitationGraph.of_numbers,
                block(numbered[0]),
                known_years.tobytes(),
                venue_list,
                block(numbered[1]),
                block(numbered[2]),
            )
        else:
            self._ids = _as_list(ids)
            year_list = [None if y != y else int(y) for y in years.tolist()]
            as_text = lambda column: [str(v) for v in _as_list(column)]  # noqa: E731
            self._inner = _call(
                _litnav.CitationGraph.of_text, as_text(self._ids), year_list, venue_list, as_text(citing), as_text(cited)
            )

    def __len__(self) -> int:
        return self._inner.size()[0]

    @property
    def edge_count(self) -> int:
        """Citation edges kept (self-citations and repeats dropped)."""
        return self._inner.size()[1]

    def cd_index(self, window: Optional[int] = _DEFAULTS["window"], reading: str = _DEFAULTS["reading"]) -> Dict[Any, Optional[float]]:
        """The CD index of every paper (Funk & Owen-Smith; equal to the ``cdindex`` package):
        ``{paper: value}``, ``None`` where undefined. ``window`` counts years after each paper
        (``None``: unbounded); ``reading`` is ``"subsequent"`` (later citing papers only, the
        index's definition) or ``"all-time"`` (every citing paper)."""
        whole("window", window, optional=True)
        block = _call(self._inner.cd_index, window, reading, False)
        values = _numpy().frombuffer(block, dtype="<f8").tolist()
        return {paper: (None if value != value else value) for paper, value in zip(self._ids, values)}

    def disruption(self, window: Optional[int] = _DEFAULTS["window"], reading: str = _DEFAULTS["reading"]) -> Dict[Any, Dict[str, Any]]:
        """Every paper's CD counts and values (``n_i``, ``n_j``, ``n_k``, ``references``, ``cd``,
        ``cd_nok``, ``i_index``, ``mcd``, and ``undefined`` — why — where CD is undefined)."""
        whole("window", window, optional=True)
        rows = json.loads(_call(self._inner.cd_index, window, reading, True))
        return dict(zip(self._ids, rows))

    def novelty(
        self, units: str = _DEFAULTS["units"], nulls: int = _DEFAULTS["nulls"], seed: Optional[int] = None
    ) -> Dict[Any, Dict[str, Any]]:
        """Uzzi et al.'s novelty of every paper's reference pairs against ``nulls`` randomized
        citation graphs (seeded by ``seed``, default the settings' seed): ``pairs``, ``p10`` (the
        10th percentile z-score, lower = more novel), ``median`` and ``undefined`` where there is
        no pair. ``units`` are ``"venues"`` (a reference's venue plays Uzzi's journal) or
        ``"references"``; equal to ``litnav relations paper`` on a corpus of the same graph."""
        whole("nulls", nulls, least=1)
        whole("seed", seed, optional=True)
        rows = json.loads(_call(self._inner.novelty, options_json("novelty", dict(units=units, nulls=nulls, seed=seed))))
        return dict(zip(self._ids, rows))

    def citation_path(
        self,
        source: Any,
        target: Any,
        max_hops: int = _DEFAULTS["max_hops"],
        shortest_limit: int = _DEFAULTS["shortest_paths"],
    ) -> Dict[str, Any]:
        """How ``source`` reaches ``target`` through what it cites: the maximum-citation path
        within ``max_hops``, the shortest citation paths (at most ``shortest_limit``) and both
        distances, as ``litnav relations path --json``."""
        return citation_path(self._inner, str(source), str(target), max_hops, shortest_limit)

    def __repr__(self) -> str:
        return f"litnav.CitationGraph({len(self)} papers, {self.edge_count} edges)"


def cd_index(
    edges: Any, times: Any, window: Optional[int] = _DEFAULTS["window"], reading: str = _DEFAULTS["reading"]
) -> Dict[Any, Optional[float]]:
    """The CD index of every paper (Funk & Owen-Smith; equal to the ``cdindex`` package).

    ``edges`` is a sequence of ``(citing, cited)`` pairs, a two-column NumPy array, or a pandas
    DataFrame or Arrow table with ``citing`` and ``cited`` columns (its first two otherwise).
    ``times`` maps each paper to its publication year (a dict, a pandas Series, ``(id, year)``
    pairs, or a table with ``id`` and ``year``). ``window`` counts years after each paper
    (``None``: unbounded; 5 as ``cdindex``'s examples). ``reading`` is ``"subsequent"`` (later
    papers only: the index's definition, ``cdindex``'s) or ``"all-time"`` (every citing paper,
    whatever its year). Returns ``{paper_id: value}``, ``None`` where the index is undefined.
    """
    whole("window", window, optional=True)
    if isinstance(edges, list) and isinstance(times, dict):
        # Fast path: the module reads lists of string pairs and a dict of whole-number years
        # directly; anything else it refuses goes through the graph below, where errors name
        # their position.
        try:
            return dict(_call(_litnav.cd_index, list(times.items()), edges, window, reading))
        except LitnavError:
            raise
        except (TypeError, ValueError, OverflowError):
            pass
    return CitationGraph(edges, times).cd_index(window, reading)
