"""Corpora: ingest files into one, open it, search it, map a topic and expand a subtopic, and ask
how its papers relate through their citations; and sentence vectors of any text."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from . import _litnav
from ._errors import InputError, citation_path, _call, json_text, number, options_json, text, whole

_DEFAULTS = _litnav.DEFAULTS
PathLike = Union[str, "os.PathLike[str]"]


def _paths(name: str, values: Any) -> List[str]:
    if isinstance(values, (str, os.PathLike)):
        return [os.fspath(values)]
    paths = list(values)
    for position, path in enumerate(paths):
        if not isinstance(path, (str, os.PathLike)):
            raise InputError(f"{name}[{position}]: expected a path, not {type(path).__name__}")
    return [os.fspath(path) for path in paths]


def ingest(
    corpus: PathLike,
    files: Union[PathLike, Sequence[PathLike]],
    *,
    format: Optional[str] = None,
    skip_bad: bool = False,
    contexts: Sequence[PathLike] = (),
    surveys: Sequence[PathLike] = (),
    vectors: Optional[PathLike] = None,
    vectors_model: Optional[str] = None,
) -> Dict[str, Any]:
    """Ingest ``files`` — papers (litnav/litbench JSON lines, OpenAlex works, BibTeX, TaxoBench
    lines), topics, and citation edge lists (CSV ``citing_id,cited_id``) — into the corpus at
    ``corpus`` (created if needed), as ``litnav ingest``: the lexical index and the citation graph
    are built for the new generation under the corpus's lock; on any failure the corpus stays as it
    was. ``format`` reads every file as one format instead of detecting it; ``skip_bad`` skips
    malformed records instead of stopping at the first; ``contexts`` (citation-context JSON lines)
    and ``surveys`` (whose citation contexts are kept) go with the graph. ``vectors`` (a ``.npy``
    of float32, one row per paper record of the papers file) with ``vectors_model`` (the model
    that computed them) supplies paper vectors, as ``litnav ingest --vectors``. Returns the report
    (manifest, merge counts, per-file counts and skipped-record reasons) as a dict."""
    if not isinstance(corpus, (str, os.PathLike)):
        raise InputError(f"corpus: expected a directory path, not {type(corpus).__name__}")
    if format is not None:
        text("format", format)
    answer = _call(
        _litnav.ingest,
        os.fspath(corpus),
        _paths("files", files),
        format,
        bool(skip_bad),
        _paths("contexts", contexts),
        _paths("surveys", surveys),
        None if vectors is None else _paths("vectors", vectors)[0],
        None if vectors_model is None else text("vectors_model", vectors_model),
    )
    return json.loads(answer)


def encode(texts: Sequence[str]) -> numpy.typing.NDArray[numpy.float32]:
    """Sentence vectors (all-MiniLM-L6-v2, normalized) of ``texts`` as a NumPy ``float32`` array
    of shape ``(len(texts), 384)``, equal to ``litnav embed``."""
    import numpy

    if isinstance(texts, str):
        raise InputError("texts: expected a sequence of strings, not one string")
    texts = list(texts)
    for position, item in enumerate(texts):
        if not isinstance(item, str):
            raise InputError(f"texts[{position}]: expected a string, not {type(item).__name__}")
    data, rows, dim = _call(_litnav.encode, texts)
    return numpy.frombuffer(data, dtype="<f4").reshape(rows, dim)


class Corpus:
    """A litnav corpus, opened once (``Corpus()`` is the built-in litbench corpus)."""

    def __init__(
        self,
        path: Union[str, "os.PathLike[str]", None] = None,
        *,
        model: Union[str, "os.PathLike[str]", None] = None,
        threads: Optional[int] = None,
        query_precision: Optional[str] = None,
    ) -> None:
        """Open the corpus in ``path``. ``model`` (the encoder's directory), ``threads`` and
        ``query_precision`` (``"f32"``, the default, or ``"f16"``: queries encoded with the
        weights in half precision) are the CLI's ``--model``, ``--threads`` and
        ``--query-precision``."""
        options = {
            "model": None if model is None else os.fspath(model),
            "threads": whole("threads", threads, least=1, optional=True),
            "query_precision": None if query_precision is None else text("query_precision", query_precision),
        }
        self._inner = _call(_litnav.Corpus, None if path is None else os.fspath(path), options_json("model", options))

    @property
    def path(self) -> str:
        """The corpus's directory."""
        return os.fspath(self._inner.path)

    def __len__(self) -> int:
        return len(self._inner)

    def search(self, query: str, k: int = _DEFAULTS["k"], **options: Any) -> List[Dict[str, Any]]:
        """The ``k`` best papers for ``query``: dicts with ``id``, ``title``, ``year`` and
        ``score``, as ``litnav search --json``. ``options`` are the search's other options under
        their server names (``mode``, ``fusion``, ``rrf_k``, ``alpha``, ``seeds``, ``title_boost``,
        ``abstract_boost``, ``scan``, ``before``, ``exclude_surveys``), with the same defaults."""
        text("query", query)
        return json.loads(_call(self._inner.search, options_json("search", dict(options, q=query, k=k))))

    def like(self, paper_id: str, k: int = _DEFAULTS["k"], **options: Any) -> List[Dict[str, Any]]:
        """The ``k`` papers nearest paper ``paper_id``'s vector, itself left out, as ``litnav
        search --like``. ``options`` are the search's filters and scan (``before``,
        ``exclude_surveys``, ``scan``), with the same defaults."""
        text("paper_id", paper_id)
        return json.loads(_call(self._inner.search, options_json("search", dict(options, like=paper_id, k=k))))

    def map(
        self,
        topic: str,
        k: int = _DEFAULTS["map_papers"],
        *,
        seed: Optional[int] = None,
        html: Union[str, "os.PathLike[str]", None] = None,
        edits: Union[str, "os.PathLike[str]", Sequence[Mapping[str, Any]], None] = None,
        **options: Any,
    ) -> Dict[str, Any]:
        """A map of ``topic``: the corpus's ``k`` papers nearest to it (those near its core kept),
        organized offline into themes and named subtopics — nested dicts as ``litnav map --json``
        prints them (``name``, ``description``, ``subtopics`` down to ``papers``, ``coverage``:
        whether the corpus covers the topic, with the evidence, and ``checks``: its problems
        without a reference). ``html`` also writes the map's page there. ``edits`` is an edit log
        applied to the map before anything is returned or written (as ``litnav map --edits``): a
        JSON-lines file, or a list of entries such as ``{"op": "rename", "node": "t1", "name":
        "…"}``; a log that does not fit the map raises ``InputError`` naming the entry. ``options``
        are the map's other options under their server names (``method``, ``min_score``,
        ``min_papers``, ``min_relevance``, ``recurse_above``, ``before``, ``exclude_surveys``), with
        the same defaults."""
        if not isinstance(topic, str) or not topic.strip():
            raise InputError(f"topic: expected a non-empty string, not {topic!r}")
        whole("k", k, least=1)
        whole("seed", seed, optional=True)
        page = None if html is None else os.fspath(html)
        edits_path, edits_lines = _edit_log(edits)
        request = options_json("map", dict(options, topic=topic, k=k, seed=seed))
        return json.loads(_call(self._inner.map, request, page, edits_path, edits_lines))

    def paper(
        self,
        id: str,
        *,
        window: Optional[int] = None,
        reading: str = _DEFAULTS["reading"],
        units: str = _DEFAULTS["units"],
        nulls: int = _DEFAULTS["nulls"],
        seed: Optional[int] = None,
    ) -> Dict[str, Any]:
        """One paper's citation profile, as ``litnav relations paper --json``: in- and
        out-degree, its CD counts and index (within ``window`` years, under ``reading``), novelty
        (``units``, ``nulls`` randomized graphs, ``seed``), corpus-wide percentiles, and the papers
        most co-cited and most coupled with it."""
        self._metric_checks(window, nulls, seed)
        options = dict(window=window, reading=reading, units=units, nulls=nulls, seed=seed)
        return json.loads(_call(self._inner.paper, text("id", id), options_json("paper", options)))

    def rank(
        self,
        measure: str = "disruption",
        *,
        topic: Optional[str] = None,
        k: int = _DEFAULTS["ranked"],
        pool: int = _DEFAULTS["topic_pool"],
        scinet_form: bool = False,
        window: Optional[int] = None,
        reading: str = _DEFAULTS["reading"],
        units: str = _DEFAULTS["units"],
        nulls: int = _DEFAULTS["nulls"],
        seed: Optional[int] = None,
    ) -> Dict[str, Any]:
        """The ``k`` papers ranked highest by ``measure`` (``"disruption"``, ``"novelty"`` or
        ``"citations"``) with their percentiles and the counts behind each value, as ``litnav
        relations disruption|novelty|citations --json``: the whole corpus, or a ``topic``'s papers
        (a stored topic's id or title, else free text whose ``pool`` best BM25 matches are
        ranked). ``scinet_form`` ranks disruption by SciNet's (n_i − n_j)/(n_i + n_j)."""
        whole("k", k, least=1)
        whole("pool", pool, least=1)
        self._metric_checks(window, nulls, seed)
        if topic is not None:
            text("topic", topic)
        options = dict(
            topic=topic, pool=pool, k=k, scinet_form=bool(scinet_form), window=window, reading=reading, units=units,
            nulls=nulls, seed=seed,
        )
        answer = _call(self._inner.rank, text("measure", measure), options_json("rank", options))
        return json.loads(answer)

    def citation_path(
        self,
        source: str,
        target: str,
        *,
        max_hops: int = _DEFAULTS["max_hops"],
        shortest_limit: int = _DEFAULTS["shortest_paths"],
    ) -> Dict[str, Any]:
        """How ``source`` reaches ``target`` through what it cites: the maximum-citation path
        within ``max_hops``, the shortest citation paths and both distances, as ``litnav relations
        path --json``."""
        return citation_path(self._inner, text("source", source), text("target", target), max_hops, shortest_limit)

    def neighbours(self, id: str, which: str = "co-cited", *, k: int = _DEFAULTS["neighbours"]) -> Dict[str, Any]:
        """The ``k`` papers most often cited together with ``id`` (``which="co-cited"``) or
        sharing the most references with it (``"coupled"``), with counts and Salton's cosine."""
        whole("k", k, least=1)
        return json.loads(_call(self._inner.neighbours, text("id", id), text("which", which), k))

    def pair(self, a: str, b: str) -> Dict[str, Any]:
        """How two papers relate: citation either way, co-citation and coupling."""
        return json.loads(_call(self._inner.pair, text("a", a), text("b", b)))

    def citers(self, id: str) -> Dict[str, Any]:
        """The papers citing ``id`` and how their ingested citation contexts speak of it
        (sentiment, mentions, the first mention's text), offline."""
        return json.loads(_call(self._inner.citers, text("id", id)))

    def expand(
        self,
        map: Mapping[str, Any],
        subtopic: str,
        k: int = _DEFAULTS["expansion_papers"],
        *,
        seed: Optional[int] = None,
        min_relevance: float = _DEFAULTS["expansion_relevance_floor"],
    ) -> Dict[str, Any]:
        """Grow ``subtopic`` (a node id such as ``"t2.s1"``) of ``map`` (what :meth:`map`
        returned) with ``k`` new papers into its own map, as ``litnav expand``: a query from the
        subtopic's name and the phrases that set its papers apart retrieves them, and they and the
        subtopic's own papers are organized offline. Returns ``query``, ``query_by``, ``inside``,
        ``retrieved`` and the sub-map as ``map``."""
        if not isinstance(map, Mapping):
            raise InputError(f"map: expected a map (a dict, as Corpus.map returns), not {type(map).__name__}")
        whole("k", k, least=1)
        whole("seed", seed, optional=True)
        document = json_text("map", map)
        request = options_json("expand", {"k": k, "seed": seed, "min_relevance": number("min_relevance", min_relevance)})
        return json.loads(_call(self._inner.expand, document, text("subtopic", subtopic), request))

    @staticmethod
    def _metric_checks(window: Any, nulls: Any, seed: Any) -> None:
        whole("window", window, optional=True)
        whole("nulls", nulls, least=1)
        whole("seed", seed, optional=True)

    def __repr__(self) -> str:
        return f"litnav.Corpus({self.path!r}, {len(self)} papers)"


def _edit_log(edits: Any) -> "tuple[Optional[str], Optional[str]]":
    """An edit log as the native module takes it: a path, or the entries as JSON lines."""
    if edits is None:
        return None, None
    if isinstance(edits, (str, os.PathLike)):
        return os.fspath(edits), None
    if isinstance(edits, Sequence) and not isinstance(edits, (bytes, bytearray)):
        lines = []
        for i, entry in enumerate(edits):
            if not isinstance(entry, Mapping):
                raise InputError(f"edits[{i}]: expected a dict such as {{'op': 'rename', ...}}, not {entry!r}")
            lines.append(json.dumps(dict(entry)))
        return None, "\n".join(lines)
    raise InputError(f"edits: expected a path or a list of dicts, not {type(edits).__name__}")
