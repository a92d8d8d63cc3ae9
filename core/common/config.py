"""Validated configs: frozen dataclasses that refuse bad values on construction.

Declare bounds next to the default and :class:`Config` checks them in ``__post_init__``::

    @dataclass(frozen=True)
    class TrainConfig(Config):
        steps: int = param(200, low=1, high=10_000, integer=True)
        lr: float = param(1e-2, low=0.0, high=1.0, low_open=True)
        optimizer: str = choice("adam", ("adam", "sgd"))

A bad value raises ``ValueError("<field>: <what is wrong>; allowed <range>")``, the single error
format every page shows verbatim with ``st.error``. Cross-field rules go in ``validate()``.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from dataclasses import dataclass, fields
from typing import Any, Mapping, Sequence

_KEY = "paperlab"


@dataclass(frozen=True)
class _Spec:
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    integer: bool = False
    options: tuple | None = None

    def check(self, name: str, value: Any) -> Any:
        if self.options is not None:
            return check_choice(name, value, self.options)
        return check_range(name, value, self.low, self.high, low_open=self.low_open,
                           high_open=self.high_open, integer=self.integer)


def param(default: Any, *, low: float | None = None, high: float | None = None, low_open: bool = False,
          high_open: bool = False, integer: bool = False, doc: str = "") -> dataclasses.Field:
    """A numeric config field with its allowed range (closed unless ``*_open``).

    Parameters
    ----------
    default : int or float
        The first view's value; checked against the range at once.
    low, high : float or None
        The bounds; None leaves that side open-ended.
    low_open, high_open : bool
        Exclude the bound itself (``(0, 1]`` is ``low=0, high=1, low_open=True``).
    integer : bool
        Only integers are allowed (and stored as int).
    doc : str
        What the field means, shown in docs and on pages.

    Returns
    -------
    dataclasses.Field
        A field whose metadata :class:`Config` checks on construction.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Demo(Config):
    ...     lr: float = param(0.1, low=0.0, high=1.0, low_open=True, doc="step size")
    >>> Demo(lr=0.5).lr
    0.5
    >>> Demo(lr=0.0)
    Traceback (most recent call last):
    ...
    ValueError: lr: 0 is out of range; allowed in (0, 1]
    """
    spec = _Spec(low, high, low_open, high_open, integer)
    spec.check("default", default)
    return dataclasses.field(default=default, metadata={_KEY: spec, "doc": doc})


def choice(default: Any, options: Sequence, *, doc: str = "") -> dataclasses.Field:
    """A config field restricted to ``options``.

    Parameters
    ----------
    default : Any
        The first view's value; must be one of ``options``.
    options : Sequence
        The allowed values, in the order errors list them.
    doc : str
        What the field means.

    Returns
    -------
    dataclasses.Field
        A field whose metadata :class:`Config` checks on construction.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Demo(Config):
    ...     solver: str = choice("highs", ("highs", "simplex"), doc="LP solver")
    >>> Demo(solver="lbfgs")
    Traceback (most recent call last):
    ...
    ValueError: solver: 'lbfgs' is not an option; allowed 'highs', 'simplex'
    """
    spec = _Spec(options=tuple(options))
    spec.check("default", default)
    return dataclasses.field(default=default, metadata={_KEY: spec, "doc": doc})


def describe_range(low=None, high=None, *, low_open=False, high_open=False, integer=False) -> str:
    kind = "integers " if integer else ""
    if low is not None and high is not None:
        return f"{kind}in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    if low is not None:
        return f"{kind}{'>' if low_open else '>='} {low:g}"
    if high is not None:
        return f"{kind}{'<' if high_open else '<='} {high:g}"
    return "any integer" if integer else "any finite number"


def check_range(name: str, value: Any, low: float | None = None, high: float | None = None, *,
                low_open: bool = False, high_open: bool = False, integer: bool = False) -> int | float:
    """Return ``value`` (as int or float) if it lies in the range, else raise a ``ValueError``.

    For arguments that bypass a :class:`Config`: the same check and the same message.

    Parameters
    ----------
    name : str
        The field the message names.
    value : Any
        The value to check; booleans and non-numbers are refused, and non-finite floats.
    low, high : float or None
        The bounds; None leaves that side open-ended.
    low_open, high_open : bool
        Exclude the bound itself.
    integer : bool
        Require an integer (returned as int); otherwise the value is returned as float.

    Returns
    -------
    int or float
        ``value``, converted.

    Raises
    ------
    ValueError
        ``"<name>: <what is wrong>; allowed <range>"``.

    Examples
    --------
    >>> check_range("steps", 5, low=1, integer=True)
    5
    >>> check_range("steps", -5, low=1, integer=True)
    Traceback (most recent call last):
    ...
    ValueError: steps: -5 is out of range; allowed integers >= 1
    """
    allowed = describe_range(low, high, low_open=low_open, high_open=high_open, integer=integer)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name}: expected a number, got {value!r}; allowed {allowed}")
    if integer:
        if not isinstance(value, numbers.Integral):
            raise ValueError(f"{name}: expected an integer, got {value!r}; allowed {allowed}")
        value = int(value)
    else:
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"{name}: {value} is not finite; allowed {allowed}")
    too_low = low is not None and (value <= low if low_open else value < low)
    too_high = high is not None and (value >= high if high_open else value > high)
    if too_low or too_high:
        raise ValueError(f"{name}: {value:g} is out of range; allowed {allowed}")
    return value


def check_choice(name: str, value: Any, options: Sequence) -> Any:
    """Return ``value`` if it is one of ``options``, else raise a ``ValueError`` listing them.

    Parameters
    ----------
    name : str
        The field the message names.
    value : Any
        The value to check.
    options : Sequence
        The allowed values.

    Returns
    -------
    Any
        ``value`` unchanged.

    Raises
    ------
    ValueError
        ``"<name>: <value> is not an option; allowed <options>"``.

    Examples
    --------
    >>> check_choice("cost", "sqeuclidean", ("sqeuclidean", "euclidean"))
    'sqeuclidean'
    """
    if value not in tuple(options):
        listed = ", ".join(repr(o) for o in options)
        raise ValueError(f"{name}: {value!r} is not an option; allowed {listed}")
    return value


@dataclass(frozen=True)
class Config:
    """Base of every system's config: validated on construction, JSON-friendly, immutable.

    Subclasses are frozen dataclasses whose fields come from :func:`param` and :func:`choice`;
    ``validate()`` holds cross-field rules. ``to_dict``/``from_dict`` round-trip through JSON, and
    ``replace(**changes)`` returns a re-validated copy.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Demo(Config):
    ...     steps: int = param(10, low=1, high=100, integer=True, doc="training steps")
    >>> Demo.from_dict(Demo().replace(steps=20).to_dict())
    Demo(steps=20)
    """

    def __post_init__(self) -> None:
        for f in fields(self):
            spec = f.metadata.get(_KEY)
            if spec is not None:
                object.__setattr__(self, f.name, spec.check(f.name, getattr(self, f.name)))
        self.validate()

    def validate(self) -> None:
        """Cross-field checks; raise ``ValueError`` in the same format as the field checks."""

    def to_dict(self) -> dict:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]):
        names = [f.name for f in fields(cls)]
        unknown = sorted(set(data) - set(names))
        if unknown:
            raise ValueError(f"{unknown[0]}: not a field of {cls.__name__}; allowed {', '.join(names)}")
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})

    def replace(self, **changes):
        return dataclasses.replace(self, **changes)

    @classmethod
    def field_docs(cls) -> dict[str, str]:
        return {f.name: f.metadata.get("doc", "") for f in fields(cls)}


def _plain(value):
    return list(value) if isinstance(value, tuple) else value
