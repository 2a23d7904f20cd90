"""The scorers: TaxoBench, tree metrics (ResearchArena's organization metrics among them),
Knowledge Navigator's clustering scores, Bloom-Eval's survey metrics and trec_eval's retrieval
metrics, each one call into litnav's library."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterable, Mapping, Optional, Sequence, Tuple, Union

from . import _litnav
from ._errors import InputError, LitnavError, _call, json_text, number, whole

_DEFAULTS = _litnav.DEFAULTS


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
    return json_text(name, rows), False


def score_taxobench(
    predictions: Lines,
    data: Lines,
    similarity: str = "embedding",
    *,
    threshold: float = _DEFAULTS["threshold"],
    lambda_: float = _DEFAULTS["lambda"],
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
    answer = _call(
        _litnav.score_taxobench,
        (data_text, data_is_path),
        (predictions_text, predictions_is_path),
        similarity,
        number("threshold", threshold),
        number("lambda_", lambda_),
    )
    return json.loads(answer)


def _tree(name: str, tree: Any) -> Tuple[str, bool]:
    if isinstance(tree, (str, os.PathLike)):
        return os.fspath(tree), True
    if not isinstance(tree, Mapping):
        raise InputError(f"{name}: expected a path or a tree (a mapping), not {type(tree).__name__}")
    return json_text(name, tree), False


def score_tree(
    reference: Any,
    prediction: Any,
    similarity: str = "embedding",
    *,
    threshold: float = _DEFAULTS["threshold"],
    lambda_: float = _DEFAULTS["lambda"],
    tsd_threshold: float = _DEFAULTS["tsd_threshold"],
) -> Dict[str, Any]:
    """Every tree metric of ``prediction`` against ``reference`` (US-TED/US-NTED, NSR/NSP/Soft-F1,
    Bloom-Eval's STS and Shape Consistency, ordered TED, ResearchArena's organization metrics —
    Heading Soft Recall, Heading Entity Recall and Tree Semantic Distance — and the paper metrics
    when both trees hold papers) and, under the embedding similarity, the prediction's
    reference-free ``checks`` (see :func:`check_tree`), as ``litnav eval tree --json``. Each tree is a JSON file's path or a
    parsed tree: TaxoBench's shape, a litnav map, an outline with ``children``, or a TaxoBench
    line holding one."""
    answer = _call(
        _litnav.score_tree,
        _tree("reference", reference),
        _tree("prediction", prediction),
        similarity,
        number("threshold", threshold),
        number("lambda_", lambda_),
        number("tsd_threshold", tsd_threshold),
    )
    return json.loads(answer)


def check_tree(tree: Any) -> Dict[str, Any]:
    """The checks of ``tree`` that need no reference, as ``litnav eval tree --prediction FILE
    --json`` prints them under ``checks``: sibling overlap (labels naming the same thing, papers
    fitting a sibling better), gaps, balance, label problems (restating the parent or the topic,
    duplicate and generic names), the semantic–taxonomic correlation and parent–child entailment
    (``entailment_by`` says how it was judged), with every problem per node and its reason
    (``pandas.DataFrame(result["problems"])``). ``tree`` is a path or a parsed tree."""
    answer = _call(
        _litnav.score_tree,
        None,
        _tree("tree", tree),
        "embedding",
        float(_DEFAULTS["threshold"]),
        float(_DEFAULTS["lambda"]),
        float(_DEFAULTS["tsd_threshold"]),
    )
    return json.loads(answer)["checks"]  # always present without a reference


def score_clusters(
    gold: Any,
    predicted: Any,
    *,
    coverage: float = _DEFAULTS["coverage_percent"],
    random_runs: int = _DEFAULTS["random_runs"],
    seed: Optional[int] = None,
) -> Dict[str, Any]:
    """Knowledge Navigator's clustering scores of ``predicted`` against ``gold``: ARI, NMI
    (arithmetic), Rc@p and Rv@p at ``coverage`` percent, and the mean of ``random_runs`` random
    assignments of the same sizes (seeded by ``seed``, default the settings' seed), as ``litnav eval
    clusters --json``. Each clustering is a mapping of document to cluster (or to a list of
    clusters, the first primary), a sequence of (document, cluster) pairs, or a file path (JSON
    lines with ``id`` and ``cluster``, or a litnav map): both paths, or neither. Documents are
    strings; clusters strings or whole numbers (NumPy's too), ordered by value when all are
    numbers, as scikit-learn orders labels. ``random_runs=0`` skips the baseline (``random`` is
    then ``None``)."""
    if not 0 < number("coverage", coverage) <= 100:
        raise InputError(f"coverage: a percentage in (0, 100], not {coverage!r}")
    whole("random_runs", random_runs)
    whole("seed", seed, optional=True)
    are_paths = [isinstance(c, (str, os.PathLike)) for c in (gold, predicted)]
    if all(are_paths):
        paths = (os.fspath(gold), os.fspath(predicted))
        answer = _call(_litnav.score_clusters, None, None, float(coverage), random_runs, seed, paths)
    elif any(are_paths):
        raise InputError("gold and predicted: give two paths or two clusterings, not one of each")
    else:
        answer = _call(_litnav.score_clusters, gold, predicted, float(coverage), random_runs, seed, None)
    return json.loads(answer)


def score_survey(
    expert: Union[str, "os.PathLike[str]"],
    generated: Union[str, "os.PathLike[str]"],
    metrics: Optional[Sequence[str]] = None,
    *,
    compat: str = "seed",
    topic: Optional[str] = None,
    corpus: Union[str, "os.PathLike[str]", None] = None,
    extras: bool = _DEFAULTS["survey_extras"],
) -> Dict[str, Any]:
    """Bloom-Eval's metrics of the ``generated`` survey against the ``expert`` one (directories in
    Bloom-Eval's layout, or Markdown files), as ``litnav eval survey --json``: the deterministic
    ones (HIRC, TBal, FMI, DSI, STS, SCons) run offline; those that need an LLM report why they
    did not run. ``metrics`` are abbreviations (default: all 16); ``compat`` is ``"seed"`` or
    ``"bloom-eval"`` (the scripts' readings); ``corpus`` resolves both bibliographies to its
    papers; ``extras=False`` leaves out readability similarity, 10-gram overlap and output tokens
    (``extras`` is then ``None``), as ``--no-extras`` does."""
    if not isinstance(extras, bool):
        raise InputError(f"extras: expected True or False, not {extras!r}")
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
        extras,
    )
    return json.loads(answer)


def score_retrieval(
    qrels: Union[str, "os.PathLike[str]", Mapping[str, Mapping[str, float]]],
    run: Union[str, "os.PathLike[str]", Mapping[str, Mapping[str, float]]],
    k: Sequence[int] = _DEFAULTS["cutoffs"],
    per_query: bool = False,
) -> Dict[str, Any]:
    """Recall, precision and nDCG at each cut-off in ``k`` and MRR of ``run`` against ``qrels``,
    in ``pytrec_eval``'s shapes — ``qrels`` maps query → document → grade, ``run`` query →
    document → score (ranked as trec_eval ranks: by score, ties by document id, decreasing) — or
    as two TREC files (qrels ``query 0 doc grade``, run ``query Q0 doc rank score tag``), read
    natively. Returns ``{"queries": n, "mean": {…}, "per_query": […] or None}`` as ``litnav eval
    retrieval --json``."""
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
                try:
                    row[str(doc)] = float(value)
                except OverflowError:
                    raise InputError(f"{name}[{query!r}][{doc!r}]: an int too large for a float") from None
            out[str(query)] = row
        return out

    cutoffs = [int(c) for c in k]
    if any(c < 1 for c in cutoffs):
        raise InputError(f"k: cut-offs are at least 1, not {list(k)!r}")
    are_paths = [isinstance(table, (str, os.PathLike)) for table in (qrels, run)]
    if all(are_paths):
        return _call(_litnav.score_retrieval_files, os.fspath(qrels), os.fspath(run), cutoffs, bool(per_query))
    if any(are_paths):
        raise InputError("qrels and run: give two files or two mappings, not one of each")
    if isinstance(qrels, dict) and isinstance(run, dict):
        # Fast path: the module reads dicts of dicts of numbers directly (NaN is checked there too);
        # what it refuses is checked below, where errors name the query and document.
        try:
            return _call(_litnav.score_retrieval, qrels, run, cutoffs, bool(per_query))
        except LitnavError:
            raise
        except (TypeError, ValueError, OverflowError):
            pass
    return _call(_litnav.score_retrieval, nested("qrels", qrels), nested("run", run), cutoffs, bool(per_query))
