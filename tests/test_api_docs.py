"""The public API at its anchors' standard: every name in a core package's ``__all__`` is documented.

What is checked, per package (POT's and scikit-learn's habits, parsed with numpydoc's own parser):
- the package has ``__all__`` and a module docstring of more than one line;
- a function has a summary; a Parameters section naming exactly its signature's parameters, in order;
  a Returns (or Yields) section unless it returns None; an Examples section, which runs (doctest);
- a function's return annotation is present and is not a bare dict, tuple or list of dicts (results are
  dataclasses, ``core/common/results.py`` exports them);
- a class has a summary; a result dataclass lists every field under Attributes (or Parameters); a
  ``Config`` documents every field, by ``param(doc=...)``/``choice(doc=...)`` or in its docstring.
Constants (``CLAIMS``, tuples of names) carry no docstring of their own and are not checked.
"""

from __future__ import annotations

import dataclasses
import doctest
import importlib
import inspect
import re
from pathlib import Path

import numpy as np
import pytest
from numpydoc.docscrape import ClassDoc, FunctionDoc

from core.common import Config

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = sorted(p.parent.name for p in (ROOT / "core").glob("*/__init__.py"))
# A return annotation that hands back loose containers instead of a result type.
LOOSE = re.compile(r"^(Optional\[)?(dict|Dict|tuple|Tuple|typing\.Dict|typing\.Tuple|list\[dict|List\[Dict)\b")


def public(key: str) -> tuple[object, list[tuple[str, object]]]:
    module = importlib.import_module(f"core.{key}")
    names = getattr(module, "__all__", None)
    assert names is not None, f"core.{key} has no __all__"
    return module, [(name, getattr(module, name)) for name in names]


def signature_names(fn) -> list[str]:
    names = []
    for p in inspect.signature(fn).parameters.values():
        if p.name in ("self", "cls"):
            continue
        prefix = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}.get(p.kind, "")
        names.append(prefix + p.name)
    return names


def documented_names(section) -> list[str]:
    """Names of a numpydoc Parameters/Attributes section; ``x, y : float`` documents two."""
    return [name.strip() for entry in section for name in entry.name.split(",") if name.strip()]


def return_annotation(fn) -> str:
    ann = inspect.signature(fn).return_annotation
    if ann is inspect.Signature.empty:
        return ""
    return ann if isinstance(ann, str) else getattr(ann, "__name__", repr(ann))


def function_problems(name: str, fn) -> list[str]:
    problems = []
    doc = inspect.getdoc(fn)
    if not doc:
        return [f"{name}: no docstring"]
    parsed = FunctionDoc(fn)
    if not " ".join(parsed["Summary"]).strip():
        problems.append(f"{name}: no summary line")
    wanted = [n.lstrip("*") for n in signature_names(fn)]
    given = [n.lstrip("*") for n in documented_names(parsed["Parameters"])]
    if wanted != given:
        problems.append(f"{name}: Parameters document {given}, the signature has {wanted}")
    ann = return_annotation(fn)
    if not ann:
        problems.append(f"{name}: no return annotation")
    elif LOOSE.match(ann):
        problems.append(f"{name}: returns {ann}; return a result dataclass")
    if ann not in ("None", "") and not (parsed["Returns"] or parsed["Yields"]):
        problems.append(f"{name}: no Returns section")
    if not parsed["Examples"]:
        problems.append(f"{name}: no Examples section")
    return problems


def class_problems(name: str, cls) -> list[str]:
    doc = inspect.getdoc(cls)
    if not doc or doc == inspect.getdoc(cls.__mro__[1]):
        return [f"{name}: no docstring of its own"]
    problems = []
    parsed = ClassDoc(cls)
    if not " ".join(parsed["Summary"]).strip():
        problems.append(f"{name}: no summary line")
    if dataclasses.is_dataclass(cls):
        listed = set(documented_names(parsed["Attributes"])) | set(documented_names(parsed["Parameters"]))
        fields = [f.name for f in dataclasses.fields(cls) if not f.name.startswith("_")]
        if issubclass(cls, Config):
            missing = [f for f in fields if not cls.field_docs().get(f) and f not in listed]
        else:
            missing = [f for f in fields if f not in listed]
        if missing:
            problems.append(f"{name}: fields without a description: {missing}")
    return problems


@pytest.mark.parametrize("key", PACKAGES)
def test_every_public_name_has_a_numpydoc_docstring(key):
    module, names = public(key)
    problems = []
    if len((module.__doc__ or "").strip().splitlines()) < 2:
        problems.append(f"core.{key}: the package docstring is a one-liner")
    for name, obj in names:
        if inspect.isfunction(obj):
            problems += function_problems(name, obj)
        elif inspect.isclass(obj):
            problems += class_problems(name, obj)
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("key", PACKAGES)
def test_every_public_example_runs(key):
    module, names = public(key)
    finder, runner = doctest.DocTestFinder(recurse=False), doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    seen = 0
    with np.printoptions(precision=4, suppress=True, legacy="1.25"):
        for name, obj in names:
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            home = inspect.getmodule(obj) or module  # names of the defining module, then the package's
            for test in finder.find(obj, name, module=home, globs={**vars(home), **vars(module), "np": np}):
                seen += len(test.examples)
                runner.run(test)
    failed = runner.summarize(verbose=False).failed
    assert failed == 0, f"{failed} example(s) of core.{key} failed; run python -m doctest on them to see which"
    assert seen > 0


def test_the_checks_catch_what_they_are_for():
    def undocumented(x, y=1) -> dict:
        return {}

    def documented(x, *, y: int = 1) -> float:
        """Add.

        Parameters
        ----------
        x : float
            A number.
        y : int
            Another.

        Returns
        -------
        float

        Examples
        --------
        >>> documented(1.0)
        2.0
        """
        return x + y

    assert function_problems("undocumented", undocumented) == ["undocumented: no docstring"]
    assert function_problems("documented", documented) == []
    documented.__doc__ = documented.__doc__.replace("y : int", "z : int")
    assert any("Parameters document ['x', 'z']" in p for p in function_problems("documented", documented))
    assert LOOSE.match("dict[str, float]") and LOOSE.match("tuple[np.ndarray, float]")
    assert not LOOSE.match("TradeoffCurve") and not LOOSE.match("np.ndarray")
