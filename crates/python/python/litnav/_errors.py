"""litnav's exceptions (one class per error kind) and the call that raises them."""

from __future__ import annotations

import json
from typing import Any

from . import _litnav


class LitnavError(Exception):
    """A failure reported by litnav; ``kind`` is its stable kind name and ``code`` its stable
    code (the kind's, or a specific failure's such as ``corpus_missing``; the server's JSON errors
    carry the same codes)."""

    kind = "internal"
    code = "internal"


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
    kind, code, message = failure.args
    error = _BY_KIND.get(kind, LitnavError)(message)
    error.code = code
    raise error from None


def _call(function, *args):
    try:
        return function(*args)
    except _litnav.Failure as failure:
        _raise(failure)


def number(name: str, value: Any) -> float:
    """``value`` as a float, refusing booleans, NaN and what is not a number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise InputError(f"{name}: expected a number, not {value!r}")
    return float(value)


def whole(name: str, value: Any, *, least: int = 0, optional: bool = False) -> Any:
    """``value`` as a whole number of at least ``least`` (``None`` passes when ``optional``)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        kind = "a non-negative whole number" if least == 0 else f"a whole number of at least {least}"
        raise InputError(f"{name}: expected {kind}{' or None' if optional else ''}, not {value!r}")
    return value


def text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise InputError(f"{name}: expected a string, not {type(value).__name__}")
    return value


def json_text(name: str, value: Any) -> str:
    """``value`` as JSON text for the module, refusing what JSON cannot carry (NaN among it)."""
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise InputError(f"{name}: not JSON-serializable: {error}") from None


def options_json(what: str, request: dict[str, Any]) -> str:
    """A request's options as the JSON object the binding reads; options left at ``None`` are
    left out, so their defaults apply."""
    return json_text(f"{what} options", {name: value for name, value in request.items() if value is not None})


def citation_path(inner: Any, source: str, target: str, max_hops: int, shortest_limit: int) -> Any:
    """``relations path --json`` of ``inner`` (a native ``CitationGraph`` or ``Corpus``), after
    checking the two counts: what both classes' ``citation_path`` answer."""
    whole("max_hops", max_hops, least=1)
    whole("shortest_limit", shortest_limit)
    return json.loads(_call(_litnav.citation_path, inner, source, target, max_hops, shortest_limit))

