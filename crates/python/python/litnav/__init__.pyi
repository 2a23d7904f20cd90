# Generated from the package by crates/python/tests/python/test_stubs.py; do not edit by hand
# (LITNAV_UPDATE_SNAPSHOTS=1 with the python test tier writes it again).
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy
import numpy.typing

Lines = Union[str, os.PathLike[str], Iterable[Mapping[str, Any]]]
PathLike = Union[str, os.PathLike[str]]

class LitnavError(Exception):
    kind: str
    code: str
class InputError(LitnavError, ValueError): ...
class NotFoundError(LitnavError, LookupError): ...
class ConflictError(LitnavError): ...
class UnavailableError(LitnavError, OSError): ...
class InternalError(LitnavError, RuntimeError): ...
class CancelledError(LitnavError): ...

def cd_index(
    edges: Any,
    times: Any,
    window: Optional[int] = None,
    reading: str = "subsequent",
) -> Dict[Any, Optional[float]]: ...
def check_tree(tree: Any) -> Dict[str, Any]: ...
def encode(texts: Sequence[str]) -> numpy.typing.NDArray[numpy.float32]: ...
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
) -> Dict[str, Any]: ...
def score_clusters(
    gold: Any,
    predicted: Any,
    *,
    coverage: float = 80.0,
    random_runs: int = 10,
    seed: Optional[int] = None,
) -> Dict[str, Any]: ...
def score_retrieval(
    qrels: Union[str, os.PathLike[str], Mapping[str, Mapping[str, float]]],
    run: Union[str, os.PathLike[str], Mapping[str, Mapping[str, float]]],
    k: Sequence[int] = (10, 100),
    per_query: bool = False,
) -> Dict[str, Any]: ...
def score_survey(
    expert: Union[str, os.PathLike[str]],
    generated: Union[str, os.PathLike[str]],
    metrics: Optional[Sequence[str]] = None,
    *,
    compat: str = "seed",
    topic: Optional[str] = None,
    corpus: Union[str, os.PathLike[str], None] = None,
    extras: bool = True,
) -> Dict[str, Any]: ...
def score_taxobench(
    predictions: Lines,
    data: Lines,
    similarity: str = "embedding",
    *,
    threshold: float = 0.92,
    lambda_: float = 1.0,
) -> Dict[str, Any]: ...
def score_tree(
    reference: Any,
    prediction: Any,
    similarity: str = "embedding",
    *,
    threshold: float = 0.92,
    lambda_: float = 1.0,
    tsd_threshold: float = 0.8,
) -> Dict[str, Any]: ...

class CitationGraph:
    def __init__(self, edges: Any, times: Any, venues: Optional[Mapping[Any, Optional[str]]] = None) -> None: ...
    def __len__(self) -> int: ...
    @property
    def edge_count(self) -> int: ...
    def cd_index(self, window: Optional[int] = None, reading: str = "subsequent") -> Dict[Any, Optional[float]]: ...
    def disruption(self, window: Optional[int] = None, reading: str = "subsequent") -> Dict[Any, Dict[str, Any]]: ...
    def novelty(
        self,
        units: str = "venues",
        nulls: int = 10,
        seed: Optional[int] = None,
    ) -> Dict[Any, Dict[str, Any]]: ...
    def citation_path(
        self,
        source: Any,
        target: Any,
        max_hops: int = 4,
        shortest_limit: int = 20,
    ) -> Dict[str, Any]: ...

class Corpus:
    def __init__(
        self,
        path: Union[str, os.PathLike[str], None] = None,
        *,
        model: Union[str, os.PathLike[str], None] = None,
        threads: Optional[int] = None,
        query_precision: Optional[str] = None,
    ) -> None: ...
    @property
    def path(self) -> str: ...
    def __len__(self) -> int: ...
    def search(self, query: str, k: int = 10, **options: Any) -> List[Dict[str, Any]]: ...
    def like(self, paper_id: str, k: int = 10, **options: Any) -> List[Dict[str, Any]]: ...
    def map(
        self,
        topic: str,
        k: int = 200,
        *,
        seed: Optional[int] = None,
        html: Union[str, os.PathLike[str], None] = None,
        edits: Union[str, os.PathLike[str], Sequence[Mapping[str, Any]], None] = None,
        **options: Any,
    ) -> Dict[str, Any]: ...
    def paper(
        self,
        id: str,
        *,
        window: Optional[int] = None,
        reading: str = "subsequent",
        units: str = "venues",
        nulls: int = 10,
        seed: Optional[int] = None,
    ) -> Dict[str, Any]: ...
    def rank(
        self,
        measure: str = "disruption",
        *,
        topic: Optional[str] = None,
        k: int = 50,
        pool: int = 300,
        scinet_form: bool = False,
        window: Optional[int] = None,
        reading: str = "subsequent",
        units: str = "venues",
        nulls: int = 10,
        seed: Optional[int] = None,
    ) -> Dict[str, Any]: ...
    def citation_path(
        self,
        source: str,
        target: str,
        *,
        max_hops: int = 4,
        shortest_limit: int = 20,
    ) -> Dict[str, Any]: ...
    def neighbours(self, id: str, which: str = "co-cited", *, k: int = 20) -> Dict[str, Any]: ...
    def pair(self, a: str, b: str) -> Dict[str, Any]: ...
    def citers(self, id: str) -> Dict[str, Any]: ...
    def expand(
        self,
        map: Mapping[str, Any],
        subtopic: str,
        k: int = 100,
        *,
        seed: Optional[int] = None,
        min_relevance: float = 0.0,
    ) -> Dict[str, Any]: ...
