"""Export of result dataclasses to plain dicts, JSON and tables (CSV).

JSON carries everything: arrays become nested lists, NaN and infinities become ``null`` so the
file is strict JSON. A table cannot hold arrays of different lengths side by side, so
:func:`result_to_frame` keeps the arrays that share the most common leading length (a training
history, per-sample scores) as columns, splits 2-D ones into ``name[j]`` columns, repeats scalars
down the rows, and leaves the rest to the JSON. A result that knows better defines ``to_frame()``.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd


def result_to_dict(result: Any) -> Any:
    """A JSON-ready copy of ``result`` (dataclasses, mappings, arrays, tensors, scalars).

    Parameters
    ----------
    result : Any
        A result dataclass, or anything made of dataclasses, mappings, sequences, NumPy arrays,
        torch tensors, enums, paths and scalars.

    Returns
    -------
    Any
        Plain dicts, lists, numbers, strings and None; NaN and infinities become None.

    Raises
    ------
    TypeError
        For an object that is none of the above (named in the message).

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Fit:
    ...     weights: np.ndarray
    ...     loss: float
    >>> result_to_dict(Fit(np.array([1.0, 2.0]), float("nan")))
    {'weights': [1.0, 2.0], 'loss': None}
    """
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return {f.name: result_to_dict(getattr(result, f.name)) for f in dataclasses.fields(result)}
    if isinstance(result, dict):
        return {str(k): result_to_dict(v) for k, v in result.items()}
    if isinstance(result, (list, tuple)):
        return [result_to_dict(v) for v in result]
    if _is_tensor(result):
        result = result.detach().cpu().numpy()
    if isinstance(result, np.ndarray):
        return result_to_dict(result.tolist())
    if isinstance(result, np.generic):
        return result_to_dict(result.item())
    if isinstance(result, float) and not math.isfinite(result):
        return None
    if isinstance(result, enum.Enum):
        return result_to_dict(result.value)
    if isinstance(result, Path):
        return str(result)
    if result is None or isinstance(result, (bool, int, float, str)):
        return result
    raise TypeError(f"result: cannot export a {type(result).__name__}; allowed dataclasses, dicts, lists, arrays, tensors, numbers, strings")


def result_to_json(result: Any, indent: int = 2) -> str:
    """Strict JSON of :func:`result_to_dict` ``(result)`` (no NaN tokens).

    Parameters
    ----------
    result : Any
        What :func:`result_to_dict` accepts.
    indent : int
        Spaces per level, as in :func:`json.dumps`.

    Returns
    -------
    str
        The JSON text.

    Examples
    --------
    >>> result_to_json({"a": np.float64(0.5), "b": float("inf")}, indent=None)
    '{"a": 0.5, "b": null}'
    """
    return json.dumps(result_to_dict(result), indent=indent, allow_nan=False)


def result_to_frame(result: Any) -> pd.DataFrame:
    """A pandas DataFrame of ``result`` (see the module docstring for what goes in).

    Parameters
    ----------
    result : Any
        A result dataclass (or what :func:`result_to_dict` accepts); one with a ``to_frame()`` method
        makes its own table.

    Returns
    -------
    pandas.DataFrame
        One row per entry of the most common array length, scalars repeated down the rows; a single
        row of scalars when the result holds no arrays.

    Examples
    --------
    >>> frame = result_to_frame({"loss": np.array([3.0, 2.0, 1.0]), "seed": 0})
    >>> frame.shape, list(frame.columns)
    ((3, 2), ['loss', 'seed'])
    """
    import pandas as pd

    if hasattr(result, "to_frame"):
        return result.to_frame()
    flat = _flatten(result)
    arrays = {k: np.asarray(v) for k, v in flat.items() if _is_arraylike(v)}
    arrays = {k: a for k, a in arrays.items() if a.ndim in (1, 2) and a.shape[0] > 0}
    scalars = {k: v for k, v in flat.items() if k not in arrays and _is_scalar(v)}
    if not arrays:
        return pd.DataFrame([{k: _scalar(v) for k, v in scalars.items()}])
    lengths = Counter(a.shape[0] for a in arrays.values())
    n = max(lengths, key=lambda length: (lengths[length], length))
    columns: dict[str, Any] = {}
    for name, array in arrays.items():
        if array.shape[0] != n:
            continue
        if array.ndim == 1:
            columns[name] = array
        else:
            for j in range(array.shape[1]):
                columns[f"{name}[{j}]"] = array[:, j]
    for name, value in scalars.items():
        columns[name] = [_scalar(value)] * n
    return pd.DataFrame(columns)


def _flatten(obj: Any, prefix: str = "") -> dict:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        obj = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        out: dict = {}
        for key, value in obj.items():
            out.update(_flatten(value, f"{prefix}{key}."))
        return out
    return {prefix[:-1]: obj}


def _is_tensor(value: Any) -> bool:
    return type(value).__module__.startswith("torch") and hasattr(value, "detach")


def _is_arraylike(value: Any) -> bool:
    if _is_tensor(value):
        return True
    if isinstance(value, np.ndarray):
        return True
    return isinstance(value, (list, tuple)) and len(value) > 0 and all(_is_scalar(v) for v in value)


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str, np.generic))


def _scalar(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value
