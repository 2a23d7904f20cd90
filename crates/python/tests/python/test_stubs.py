"""The package's type stub (``litnav/__init__.pyi``) is generated from the package itself: every
exported function's and class's signature as Python sees it, defaults included — and the defaults
are the native module's (``_litnav.DEFAULTS``), so the stub carries the application's values and
nothing is written twice. This test renders the stub and compares it with the file; run it with
``LITNAV_UPDATE_SNAPSHOTS=1`` to write the file after changing the package."""

import inspect
import os
import pathlib

import litnav

STUB = pathlib.Path(litnav.__file__).with_name("__init__.pyi")
SOURCE_STUB = pathlib.Path(__file__).resolve().parents[2] / "python" / "litnav" / "__init__.pyi"

HEADER = '''# Generated from the package by crates/python/tests/python/test_stubs.py; do not edit by hand
# (LITNAV_UPDATE_SNAPSHOTS=1 with the python test tier writes it again).
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy
import numpy.typing

Lines = Union[str, os.PathLike[str], Iterable[Mapping[str, Any]]]
PathLike = Union[str, os.PathLike[str]]
'''

WIDTH = 120


def annotation(value) -> str:
    if value is inspect.Parameter.empty:
        return "Any"
    text = value if isinstance(value, str) else getattr(value, "__name__", repr(value))
    return text.replace('"os.PathLike[str]"', "os.PathLike[str]").replace("'os.PathLike[str]'", "os.PathLike[str]")


def default(value) -> str:
    if isinstance(value, str):
        return '"' + value + '"'
    if isinstance(value, (list, tuple)):
        inner = ", ".join(default(v) for v in value)
        return "(" + inner + ("," if len(value) == 1 else "") + ")"
    return repr(value)


def parameters(function, method: bool) -> list:
    parts, keyword_only_marked = [], False
    for index, parameter in enumerate(inspect.signature(function).parameters.values()):
        if method and index == 0:
            parts.append(parameter.name)
            continue
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and not keyword_only_marked:
            parts.append("*")
            keyword_only_marked = True
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            parts.append(f"**{parameter.name}: {annotation(parameter.annotation)}")
            continue
        text = f"{parameter.name}: {annotation(parameter.annotation)}"
        if parameter.default is not inspect.Parameter.empty:
            text += f" = {default(parameter.default)}"
        parts.append(text)
    return parts


def definition(name: str, function, indent: str = "", method: bool = False) -> str:
    returns = annotation(inspect.signature(function).return_annotation)
    parts = parameters(function, method)
    one_line = f"{indent}def {name}({', '.join(parts)}) -> {returns}: ..."
    if len(one_line) <= WIDTH:
        return one_line + "\n"
    inner = "".join(f"{indent}    {part},\n" for part in parts)
    return f"{indent}def {name}(\n{inner}{indent}) -> {returns}: ...\n"


def exception(cls) -> str:
    bases = ", ".join(base.__name__ for base in cls.__bases__)
    if cls is litnav.LitnavError:
        return f"class {cls.__name__}({bases}):\n    kind: str\n    code: str\n"
    return f"class {cls.__name__}({bases}): ...\n"


def klass(cls) -> str:
    lines = [f"class {cls.__name__}:\n"]
    for name, member in cls.__dict__.items():
        if isinstance(member, property):
            returns = annotation(inspect.signature(member.fget).return_annotation)
            lines.append(f"    @property\n    def {name}(self) -> {returns}: ...\n")
        elif inspect.isfunction(member) and (not name.startswith("_") or name in ("__init__", "__len__")):
            lines.append(definition(name, member, "    ", method=True))
    return "".join(lines)


def render() -> str:
    names = list(litnav.__all__)
    exported = [getattr(litnav, name) for name in names]
    exceptions = [e for e in exported if inspect.isclass(e) and issubclass(e, BaseException)]
    classes = [c for c in exported if inspect.isclass(c) and c not in exceptions]
    functions = [f for f in exported if inspect.isfunction(f)]
    out = [HEADER, "\n"]
    out += [exception(e) for e in exceptions]
    out.append("\n")
    out += [definition(f.__name__, f) for f in sorted(functions, key=lambda f: f.__name__)]
    for cls in sorted(classes, key=lambda c: c.__name__):
        out += ["\n", klass(cls)]
    return "".join(out)


def test_the_stub_is_the_package_as_python_sees_it():
    rendered = render()
    if os.environ.get("LITNAV_UPDATE_SNAPSHOTS"):
        SOURCE_STUB.write_text(rendered)
        STUB.write_text(rendered)
    assert STUB.read_text() == rendered, (
        "litnav/__init__.pyi is out of date: run the python tier with LITNAV_UPDATE_SNAPSHOTS=1 and commit it"
    )


def test_the_stubs_defaults_are_the_native_modules():
    # A default the package takes from the native module reaches the stub as its value.
    rendered = render()
    assert f"k: int = {litnav._litnav.DEFAULTS['k']}" in rendered
    assert f"k: Sequence[int] = {default(litnav._litnav.DEFAULTS['cutoffs'])}" in rendered
    assert f"window: Optional[int] = {default(litnav._litnav.DEFAULTS['window'])}" in rendered
