"""litnav in Python: the scorers the field uses, the citation measures of any edge list, and
corpora to ingest, search, map and relate — each a call into litnav's Rust library with the
interpreter released, exact to the ``litnav`` command's ``--json`` output.

The answers are plain dicts and lists (tables as lists of rows, which ``pandas.DataFrame``
takes as they are); vectors are NumPy arrays. Errors are :class:`LitnavError` subclasses chosen
by the error's kind; long calls stop at Ctrl-C with ``KeyboardInterrupt``. The package also
carries the ``litnav`` command itself (``python -m litnav``).
"""

from ._corpus import Corpus, encode, ingest
from ._errors import (
    CancelledError,
    ConflictError,
    InputError,
    InternalError,
    LitnavError,
    NotFoundError,
    UnavailableError,
)
from ._graph import CitationGraph, cd_index
from ._scoring import check_tree, score_clusters, score_retrieval, score_survey, score_taxobench, score_tree

__all__ = [
    "CitationGraph",
    "Corpus",
    "LitnavError",
    "InputError",
    "NotFoundError",
    "ConflictError",
    "UnavailableError",
    "InternalError",
    "CancelledError",
    "cd_index",
    "check_tree",
    "encode",
    "ingest",
    "score_clusters",
    "score_retrieval",
    "score_survey",
    "score_taxobench",
    "score_tree",
]
