"""litnav in Python: TaxoBench scoring, the CD index, sentence vectors and corpus search.

Every function calls litnav's Rust library (the module ``litnav._litnav``) with the interpreter
released; the answers are plain dicts and lists, equal to what the ``litnav`` command prints with
``--json``. Errors are :class:`LitnavError` subclasses chosen by the error's kind.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _litnav

__all__ = [
    "Corpus",
    "LitnavError",
    "InputError",
    "NotFoundError",
    "ConflictError",
    "UnavailableError",
    "InternalError",
    "CancelledError",
    "cd_index",
    "encode",
    "score_clusters",
    "score_retrieval",
    "score_survey",
    "score_taxobench",
    "score_tree",
]


class LitnavError(Exception):
    """A failure reported by litnav; ``kind`` is its stable kind name."""

    kind = "internal"


class InputError(LitnavError, ValueError):
    """The request or an input is wrong: fix it and call again."""

    kind = "input"


class NotFoundError(LitnavError, LookupError):
    """Something named does not exist (a corpus, a file, a model)."""

    kind = "not_found"


class ConflictError(LitnavError):
    """Another process holds what is needed (a corpus being written)."""

    kind = "conflict"


class UnavailableError(LitnavError, OSError):
    """A resource outside litnav failed (a full disk, an unreachable service)."""

    kind = "unavailable"


class InternalError(LitnavError, RuntimeError):
    """A bug in litnav."""

    kind = "internal"


class CancelledError(LitnavError):
    """The operation was stopped before it finished."""

    kind = "cancelled"


_BY_KIND = {cls.kind: cls for cls in (InputError, NotFoundError, ConflictError, UnavailableError, InternalError, CancelledError)}


def _raise(failure: BaseException) -> None:
    kind, message = failure.args
    raise _BY_KIND.get(kind, LitnavError)(message) from None


def _call(function, *args):
    try:
        return function(*args)
    except _litnav.Failure as failure:
        _raise(failure)


Lines = Union[str, "os.PathLike[str]", Iterable[Mapping[str, Any]]]


def _lines(name: str, lines: Lines) -> Tuple[str, bool]:
    if isinstance(lines, (str, os.PathLike)):
        return os.fspath(lines), True
    if isinstance(lines, Mapping):
        raise InputError(f"{name}: expected a path or a sequence of parsed JSON lines, not one mapping")
    rows = list(lines)
    for position, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise InputError(f"{name}[{position}]: expected a mapping (one parsed JSON line), not {type(row).__name__}")
    try:
        return json.dumps(rows, allow_nan=False), False
    except (TypeError, ValueError) as error:
        raise InputError(f"{name}: not JSON-serializable: {error}") from None


def score_taxobench(
    predictions: Lines,
    data: Lines,
    similarity: str = "embedding",
    *,
    threshold: float = 0.92,
    lambda_: float = 1.0,
) -> Dict[str, Any]:
    """Score TaxoBench predictions against the expert trees of ``data``.

    ``predictions`` and ``data`` are JSON-lines paths or sequences of parsed lines (dicts with
    ``id`` and ``hierarchy_tree`` / ``gt``). ``similarity`` is ``"embedding"`` (TaxoBench's
    definition), ``"string"`` or ``"public"`` (the public ``taxobench`` scorer's readings, equal to
    it to the last digit). Returns ``{"summary": …, "per_instance": […], "problems": […]}``: the
    summary is what ``litnav eval taxobench --json`` prints, ``per_instance`` one row per instance
    (``pandas.DataFrame(result["per_instance"])``), ``problems`` the lines that were skipped.
    """
    data_text, data_is_path = _lines("data", data)
    predictions_text, predictions_is_path = _lines("predictions", predictions)
    for name, value in (("threshold", threshold), ("lambda_", lambda_)):
        if not isinstance(value, (int, float)) or value != value:
            raise InputError(f"{name}: expected a number, not {value!r}")
    answer = _call(
        _litnav.score_taxobench,
        (data_text, data_is_path),
        (predictions_text, predictions_is_path),
        similarity,
        float(threshold),
        float(lambda_),
    )
    return json.loads(answer)


def _tree(name: str, tree: Any) -> Tuple[str, bool]:
    if isinstance(tree, (str, os.PathLike)):
        return os.fspath(tree), True
    if not isinstance(tree, Mapping):
        raise InputError(f"{name}: expected a path or a tree (a mapping), not {type(tree).__name__}")
    try:
        return json.dumps(tree, allow_nan=False), False
    except (TypeError, ValueError) as error:
        raise InputError(f"{name}: not JSON-serializable: {error}") from None


def score_tree(
    reference: Any,
    prediction: Any,
    similarity: str = "embedding",
    *,
    threshold: float = 0.92,
    lambda_: float = 1.0,
    tsd_threshold: float = 0.8,
) -> Dict[str, Any]:
    """Every tree metric of ``prediction`` against ``reference`` (US-TED/US-NTED, NSR/NSP/Soft-F1,
    Bloom-Eval's STS and Shape Consistency, ordered TED, ResearchArena's Heading Entity Recall and
    Tree Semantic Distance, and the paper metrics when both trees hold papers), as ``litnav eval
    tree --json``. Each tree is a JSON file's path or a parsed tree: TaxoBench's shape, a litnav
    map, an outline with ``children``, or a TaxoBench line holding one."""
    for name, value in (("threshold", threshold), ("lambda_", lambda_), ("tsd_threshold", tsd_threshold)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            raise InputError(f"{name}: expected a number, not {value!r}")
    answer = _call(
        _litnav.score_tree,
        _tree("reference", reference),
        _tree("prediction", prediction),
        similarity,
        float(threshold),
        float(lambda_),
        float(tsd_threshold),
    )
    return json.loads(answer)


def _memberships(name: str, clustering: Any) -> List[Tuple[str, str]]:
    """(document, cluster) pairs of a mapping (a cluster or a list of them per document) or of a
    sequence of pairs; numbers become their text."""
    items = clustering.items() if isinstance(clustering, Mapping) else clustering
    pairs: List[Tuple[str, str]] = []
    for position, item in enumerate(items):
        try:
            document, clusters = item
        except (TypeError, ValueError):
            raise InputError(f"{name}[{position}]: expected a (document, cluster) pair, not {item!r}") from None
        for cluster in clusters if isinstance(clusters, (list, tuple)) else [clusters]:
            if isinstance(cluster, bool) or not isinstance(cluster, (str, int)):
                raise InputError(f"{name}[{position}]: a cluster is a string or a whole number, not {cluster!r}")
            pairs.append((str(document), str(cluster)))
    return pairs


def score_clusters(
    gold: Any,
    predicted: Any,
    *,
    coverage: float = 80.0,
    random_runs: int = 10,
    seed: Optional[int] = None,
) -> Dict[str, Any]:
    """Knowledge Navigator's clustering scores of ``predicted`` against ``gold``: ARI, NMI
    (arithmetic), Rc@p and Rv@p at ``coverage`` percent, and the mean of ``random_runs`` random
    assignments of the same sizes (seeded by ``seed``, default the settings' seed), as ``litnav eval
    clusters --json``. Each clustering is a mapping of document to cluster (or to a list of
    clusters, the first primary), a sequence of (document, cluster) pairs, or a file path (JSON
    lines with ``id`` and ``cluster``, or a litnav map): both paths, or neither."""
    if isinstance(coverage, bool) or not isinstance(coverage, (int, float)) or not 0 < coverage <= 100:
        raise InputError(f"coverage: a percentage in (0, 100], not {coverage!r}")
    if isinstance(random_runs, bool) or not isinstance(random_runs, int) or random_runs < 0:
        raise InputError(f"random_runs: expected a whole number, not {random_runs!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise InputError(f"seed: expected a non-negative whole number, not {seed!r}")
    are_paths = [isinstance(c, (str, os.PathLike)) for c in (gold, predicted)]
    if all(are_paths):
        paths = (os.fspath(gold), os.fspath(predicted))
        answer = _call(_litnav.score_clusters, [], [], float(coverage), random_runs, seed, paths)
    elif any(are_paths):
        raise InputError("gold and predicted: give two paths or two clusterings, not one of each")
    else:
        pairs = (_memberships("gold", gold), _memberships("predicted", predicted))
        answer = _call(_litnav.score_clusters, *pairs, float(coverage), random_runs, seed, None)
    return json.loads(answer)


def score_survey(
    expert: Union[str, "os.PathLike[str]"],
    generated: Union[str, "os.PathLike[str]"],
    metrics: Optional[Sequence[str]] = None,
    *,
    compat: str = "seed",
    topic: Optional[str] = None,
    corpus: Union[str, "os.PathLike[str]", None] = None,
) -> Dict[str, Any]:
    """Bloom-Eval's metrics of the ``generated`` survey against the ``expert`` one (directories in
    Bloom-Eval's layout, or Markdown files), as ``litnav eval survey --json``: the deterministic
    ones (HIRC, TBal, FMI, DSI, STS, SCons, with the extras) run offline; those that need an LLM
    report why they did not run. ``metrics`` are abbreviations (default: all 16); ``compat`` is
    ``"seed"`` or ``"bloom-eval"`` (the scripts' readings); ``corpus`` resolves both bibliographies
    to its papers."""
    for name, path in (("expert", expert), ("generated", generated)):
        if not isinstance(path, (str, os.PathLike)):
            raise InputError(f"{name}: expected a path, not {type(path).__name__}")
    keys = [] if metrics is None else list(metrics)
    if isinstance(metrics, str) or any(not isinstance(key, str) for key in keys):
        raise InputError(f"metrics: expected a list of abbreviations, not {metrics!r}")
    answer = _call(
        _litnav.score_survey,
        os.fspath(expert),
        os.fspath(generated),
        keys,
        compat,
        topic,
        None if corpus is None else os.fspath(corpus),
    )
    return json.loads(answer)


def score_retrieval(
    qrels: Mapping[str, Mapping[str, float]],
    run: Mapping[str, Mapping[str, float]],
    k: Sequence[int] = (10, 100),
    per_query: bool = False,
) -> Dict[str, Any]:
    """Recall, precision and nDCG at each cut-off in ``k`` and MRR of ``run`` against ``qrels``,
    in ``pytrec_eval``'s shapes: ``qrels`` maps query → document → grade, ``run`` query → document
    → score (ranked as trec_eval ranks: by score, ties by document id, decreasing). Returns
    ``{"queries": n, "mean": {…}, "per_query": […] or None}`` as ``litnav eval retrieval --json``."""
    def nested(name: str, table: Any) -> Dict[str, Dict[str, float]]:
        if not isinstance(table, Mapping):
            raise InputError(f"{name}: expected a mapping of query to documents, not {type(table).__name__}")
        out: Dict[str, Dict[str, float]] = {}
        for query, docs in table.items():
            if not isinstance(docs, Mapping):
                raise InputError(f"{name}[{query!r}]: expected a mapping of document to number")
            row = {}
            for doc, value in docs.items():
                if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
                    raise InputError(f"{name}[{query!r}][{doc!r}]: expected a number, not {value!r}")
                row[str(doc)] = float(value)
            out[str(query)] = row
        return out

    cutoffs = [int(c) for c in k]
    if any(c < 1 for c in cutoffs):
        raise InputError(f"k: cut-offs are at least 1, not {list(k)!r}")
    if isinstance(qrels, dict) and isinstance(run, dict):
        # Fast path: the module reads dicts of dicts of numbers directly (NaN is checked there too);
        # what it refuses is checked below, where errors name the query and document.
        try:
            return json.loads(_call(_litnav.score_retrieval, qrels, run, cutoffs, bool(per_query)))
        except LitnavError:
            raise
        except (TypeError, ValueError, OverflowError):
            pass
    answer = _call(_litnav.score_retrieval, nested("qrels", qrels), nested("run", run), cutoffs, bool(per_query))
    return json.loads(answer)


def _column(name: str, values: Any) -> List[Any]:
    if hasattr(values, "tolist"):
        values = values.tolist()
    return list(values)


def cd_index(
    edges: Any, times: Any, window: Optional[int] = 5, reading: str = "subsequent"
) -> Dict[str, Optional[float]]:
    """The CD index of every paper (Funk & Owen-Smith; equal to the ``cdindex`` package).

    ``edges`` is a sequence of ``(citing, cited)`` pairs, a two-column NumPy array or a pandas
    DataFrame with ``citing`` and ``cited`` columns (its first two columns otherwise). ``times``
    maps each paper to its publication year (a dict, a pandas Series, or ``(id, year)`` pairs).
    ``window`` counts years after each paper (``None``: unbounded). ``reading`` is
    ``"subsequent"`` (later papers only: the index's definition, ``cdindex``'s) or ``"all-time"``
    (every citing paper, whatever its year). Returns
    ``{paper_id: value}``, ``None`` where the index is undefined. Ids are compared as text.
    """
    if window is not None and (isinstance(window, bool) or not isinstance(window, int) or window < 0):
        raise InputError(f"window: expected a whole number of years or None, not {window!r}")
    if isinstance(edges, list) and isinstance(times, dict):
        # Fast path: the module reads lists of string pairs and a dict of years directly; anything
        # else it refuses is converted and checked below, where errors name their position.
        try:
            return dict(_call(_litnav.cd_index, list(times.items()), edges, window, reading))
        except LitnavError:
            raise
        except (TypeError, ValueError, OverflowError):
            pass
    if hasattr(edges, "columns"):
        columns = list(edges.columns)
        citing, cited = ("citing", "cited") if {"citing", "cited"} <= set(columns) else columns[:2]
        edges = zip(_column("citing", edges[citing]), _column("cited", edges[cited]))
    elif hasattr(edges, "tolist"):
        edges = edges.tolist()
    pairs = []
    for position, edge in enumerate(edges):
        try:
            citing, cited = edge
        except (TypeError, ValueError):
            raise InputError(f"edges[{position}]: expected a (citing, cited) pair, not {edge!r}") from None
        pairs.append((str(citing), str(cited)))
    if hasattr(times, "items"):
        items = list(times.items())
    else:
        items = list(times)
    dated = []
    for position, item in enumerate(items):
        try:
            paper, year = item
        except (TypeError, ValueError):
            raise InputError(f"times[{position}]: expected an (id, year) pair, not {item!r}") from None
        if year is not None:
            if isinstance(year, float) and year != year:
                year = None
            elif isinstance(year, bool) or not float(year).is_integer():
                raise InputError(f"times[{position}]: the year of {paper!r} is not a whole number: {year!r}")
            else:
                year = int(year)
        dated.append((str(paper), year))
    values = _call(_litnav.cd_index, dated, pairs, window, reading)
    return dict(values)


def encode(texts: Sequence[str]):
    """Sentence vectors (all-MiniLM-L6-v2, normalized) of ``texts`` as a NumPy ``float32`` array
    of shape ``(len(texts), 384)``, equal to ``litnav embed``."""
    import numpy

    if isinstance(texts, str):
        raise InputError("texts: expected a sequence of strings, not one string")
    texts = list(texts)
    for position, text in enumerate(texts):
        if not isinstance(text, str):
            raise InputError(f"texts[{position}]: expected a string, not {type(text).__name__}")
    data, rows, dim = _call(_litnav.encode, texts)
    return numpy.frombuffer(data, dtype="<f4").reshape(rows, dim)


class Corpus:
    """A litnav corpus, opened once (``Corpus()`` is the built-in litbench corpus)."""

    def __init__(self, path: Union[str, "os.PathLike[str]", None] = None) -> None:
        self._inner = _call(_litnav.Corpus, None if path is None else os.fspath(path))

    @property
    def path(self) -> str:
        """The corpus's directory."""
        return os.fspath(self._inner.path)

    def __len__(self) -> int:
        return len(self._inner)

    def search(self, query: str, k: int = 10, **options: Any) -> List[Dict[str, Any]]:
        """The ``k`` best papers for ``query``: dicts with ``id``, ``title``, ``year`` and
        ``score``, as ``litnav search --json``. ``options`` are the search's other options under
        their server names (``mode``, ``fusion``, ``rrf_k``, ``alpha``, ``seeds``, ``title_boost``,
        ``abstract_boost``, ``scan``, ``before``, ``exclude_surveys``), with the same defaults."""
        if not isinstance(query, str):
            raise InputError(f"query: expected a string, not {type(query).__name__}")
        request = dict(options, q=query, k=k)
        try:
            text = json.dumps(request, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise InputError(f"search: an option is not JSON-serializable: {error}") from None
        return json.loads(_call(self._inner.search, text))

    def map(
        self,
        topic: str,
        k: int = 200,
        *,
        seed: Optional[int] = None,
        html: Union[str, "os.PathLike[str]", None] = None,
    ) -> Dict[str, Any]:
        """A map of ``topic``: the corpus's ``k`` papers nearest to it (those near its core kept),
        organized offline into themes and named subtopics — nested dicts as ``litnav map --json``
        prints them (``name``, ``description``, ``subtopics`` down to ``papers``, and
        ``coverage``: whether the corpus covers the topic, with the evidence). ``html`` also
        writes the map's page there."""
        if not isinstance(topic, str) or not topic.strip():
            raise InputError(f"topic: expected a non-empty string, not {topic!r}")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InputError(f"k: expected a positive whole number, not {k!r}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise InputError(f"seed: expected a non-negative whole number, not {seed!r}")
        page = None if html is None else os.fspath(html)
        return json.loads(_call(self._inner.map, topic, k, seed, page))

    def __repr__(self) -> str:
        return f"litnav.Corpus({self.path!r}, {len(self)} papers)"
