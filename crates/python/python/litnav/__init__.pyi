import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import numpy
import numpy.typing

Lines = Union[str, os.PathLike[str], Iterable[Mapping[str, Any]]]

class LitnavError(Exception):
    kind: str

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
def score_clusters(
    gold: Any,
    predicted: Any,
    *,
    coverage: float = 80.0,
    random_runs: int = 10,
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
) -> Dict[str, Any]: ...
def score_retrieval(
    qrels: Mapping[str, Mapping[str, float]],
    run: Mapping[str, Mapping[str, float]],
    k: Sequence[int] = (10, 100),
    per_query: bool = False,
) -> Dict[str, Any]: ...
def cd_index(
    edges: Any, times: Any, window: Optional[int] = 5, reading: str = "subsequent"
) -> Dict[str, Optional[float]]: ...
def encode(texts: Sequence[str]) -> numpy.typing.NDArray[numpy.float32]: ...

class Corpus:
    def __init__(self, path: Union[str, os.PathLike[str], None] = None) -> None: ...
    @property
    def path(self) -> str: ...
    def __len__(self) -> int: ...
    def search(self, query: str, k: int = 10, **options: Any) -> List[Dict[str, Any]]: ...
    def map(
        self,
        topic: str,
        k: int = 200,
        *,
        seed: Optional[int] = None,
        html: Union[str, os.PathLike[str], None] = None,
    ) -> Dict[str, Any]: ...
