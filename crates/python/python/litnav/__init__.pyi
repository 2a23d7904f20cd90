import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import numpy
import numpy.typing

Lines = Union[str, os.PathLike[str], Iterable[Mapping[str, Any]]]

class LitnavError(Exception):
    kind: str
    code: str

class InputError(LitnavError, ValueError): ...
class NotFoundError(LitnavError, LookupError): ...
class ConflictError(LitnavError): ...
class UnavailableError(LitnavError, OSError): ...
class InternalError(LitnavError, RuntimeError): ...
class CancelledError(LitnavError): ...

def score_taxobench(
    predictions: Lines,
    data: Lines,
    similarity: str = "embedding",
    *,
    threshold: float = ...,
    lambda_: float = ...,
) -> Dict[str, Any]: ...
def score_tree(
    reference: Any,
    prediction: Any,
    similarity: str = "embedding",
    *,
    threshold: float = ...,
    lambda_: float = ...,
    tsd_threshold: float = ...,
) -> Dict[str, Any]: ...
def check_tree(tree: Any) -> Dict[str, Any]: ...
def score_clusters(
    gold: Any,
    predicted: Any,
    *,
    coverage: float = ...,
    random_runs: int = ...,
    seed: Optional[int] = None,
) -> Dict[str, Any]: ...
def score_survey(
    expert: Union[str, os.PathLike[str]],
    generated: Union[str, os.PathLike[str]],
    metrics: Optional[Sequence[str]] = None,
    *,
    compat: str = "seed",
    topic: Optional[str] = None,
    corpus: Union[str, os.PathLike[str], None] = None,
    extras: bool = ...,
) -> Dict[str, Any]: ...
def score_retrieval(
    qrels: Union[str, os.PathLike[str], Mapping[str, Mapping[str, float]]],
    run: Union[str, os.PathLike[str], Mapping[str, Mapping[str, float]]],
    k: Sequence[int] = (10, 100),
    per_query: bool = False,
) -> Dict[str, Any]: ...
def cd_index(
    edges: Any, times: Any, window: Optional[int] = 5, reading: str = "subsequent"
) -> Dict[Any, Optional[float]]: ...
def encode(texts: Sequence[str]) -> numpy.typing.NDArray[numpy.float32]: ...
def ingest(
    corpus: Union[str, os.PathLike[str]],
    files: Union[str, os.PathLike[str], Sequence[Union[str, os.PathLike[str]]]],
    *,
    format: Optional[str] = None,
    skip_bad: bool = False,
    contexts: Sequence[Union[str, os.PathLike[str]]] = (),
    surveys: Sequence[Union[str, os.PathLike[str]]] = (),
) -> Dict[str, Any]: ...

class CitationGraph:
    def __init__(self, edges: Any, times: Any, venues: Optional[Mapping[Any, Optional[str]]] = None) -> None: ...
    def __len__(self) -> int: ...
    @property
    def edge_count(self) -> int: ...
    def cd_index(self, window: Optional[int] = 5, reading: str = "subsequent") -> Dict[Any, Optional[float]]: ...
    def disruption(self, window: Optional[int] = 5, reading: str = "subsequent") -> Dict[Any, Dict[str, Any]]: ...
    def novelty(self, units: str = "venues", nulls: int = ..., seed: Optional[int] = None) -> Dict[Any, Dict[str, Any]]: ...
    def citation_path(self, source: Any, target: Any, max_hops: int = ..., shortest_limit: int = ...) -> Dict[str, Any]: ...

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
    def map(
        self,
        topic: str,
        k: int = ...,
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
        nulls: int = ...,
        seed: Optional[int] = None,
    ) -> Dict[str, Any]: ...
    def rank(
        self,
        measure: str = "disruption",
        *,
        topic: Optional[str] = None,
        k: int = ...,
        pool: int = ...,
        scinet_form: bool = False,
        window: Optional[int] = None,
        reading: str = "subsequent",
        units: str = "venues",
        nulls: int = ...,
        seed: Optional[int] = None,
    ) -> Dict[str, Any]: ...
    def citation_path(self, source: str, target: str, *, max_hops: int = ..., shortest_limit: int = ...) -> Dict[str, Any]: ...
    def neighbours(self, id: str, which: str = "co-cited", *, k: int = ...) -> Dict[str, Any]: ...
    def pair(self, a: str, b: str) -> Dict[str, Any]: ...
    def citers(self, id: str) -> Dict[str, Any]: ...
    def expand(
        self,
        map: Mapping[str, Any],
        subtopic: str,
        k: int = ...,
        *,
        seed: Optional[int] = None,
        min_relevance: float = ...,
    ) -> Dict[str, Any]: ...
