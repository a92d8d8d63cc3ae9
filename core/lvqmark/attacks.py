"""Post-editing attacks on batches of windows ``(n, T, D)``, after LVQMark's attack set.

Each takes a strength ``f`` in [0, 1]; ``none`` returns a copy. Per-variable statistics (min, max,
std) are taken over the whole batch, as the reference code does.

- ``offset``: x + f * mean_t(x), per window and variable;
- ``crop``: keep a random contiguous block of ceil((1-f)T) steps and ceil((1-f)D) variables, fill the
  rest with the per-variable midpoint (min + max) / 2;
- ``insert``: replace floor(fT) random steps per variable with U(min, max);
- ``gaussian``: add N(0, (f * std_d)^2);
- ``smoothing``: centred moving average of width 2 * max(1, round(fT / 2)) + 1 with edge padding
  (our width rule: the reference's is not stated).
"""

from __future__ import annotations

import math

import numpy as np

from core.common.config import check_choice, check_range
from core.common.seeding import check_seed, derive_rng

ATTACKS = ("none", "offset", "crop", "insert", "gaussian", "smoothing")
ATTACK_LABELS = {"none": "no attack", "offset": "offset", "crop": "crop", "insert": "insert",
                 "gaussian": "Gaussian noise", "smoothing": "smoothing"}


def attack(x: np.ndarray, name: str, strength: float, seed: int = 0) -> np.ndarray:
    """Apply one post-editing attack to every window of ``x``.

    Parameters
    ----------
    x : numpy.ndarray
        ``(n, T, D)`` windows.
    name : str
        One of ``ATTACKS``.
    strength : float
        The attack's factor f in [0, 1].
    seed : int
        Seed of the attack's randomness.

    Returns
    -------
    numpy.ndarray
        The attacked windows, same shape and dtype; ``x`` is not changed.

    Examples
    --------
    >>> x = np.zeros((2, 24, 3), dtype=np.float32); x[:, 5] = 1.0
    >>> y = attack(x, "crop", 0.3, seed=0)
    >>> y.shape, bool(np.isin(y, [0.0, 0.5, 1.0]).all())
    ((2, 24, 3), True)
    """
    check_choice("attack", name, ATTACKS)
    f = check_range("strength", strength, 0.0, 1.0)
    seed = check_seed(seed)
    x = np.asarray(x)
    if x.ndim != 3:
        raise ValueError(f"x: shape {x.shape} is not (n, T, D); allowed 3-d arrays")
    out = x.astype(np.float64, copy=True)
    n, T, D = x.shape
    rng = derive_rng(seed, "attack", name)
    lo, hi = x.min((0, 1)), x.max((0, 1))
    if name == "offset":
        out += f * out.mean(1, keepdims=True)
    elif name == "crop":
        keep_t, keep_d = max(1, math.ceil((1 - f) * T)), max(1, math.ceil((1 - f) * D))
        filled = np.broadcast_to((lo + hi) / 2, out.shape).copy()
        for i in range(n):
            t0, d0 = rng.integers(0, T - keep_t + 1), rng.integers(0, D - keep_d + 1)
            filled[i, t0:t0 + keep_t, d0:d0 + keep_d] = out[i, t0:t0 + keep_t, d0:d0 + keep_d]
        out = filled
    elif name == "insert":
        k = int(math.floor(f * T))
        if k:
            steps = np.argsort(rng.random((n, T, D)), axis=1)[:, :k]          # k distinct steps per variable
            values = rng.uniform(lo, hi, size=(n, k, D))
            np.put_along_axis(out, steps, values, axis=1)
    elif name == "gaussian":
        out += rng.standard_normal(out.shape) * (f * x.std((0, 1)))
    elif name == "smoothing" and f > 0:
        half = max(1, round(f * T / 2))
        padded = np.pad(out, ((0, 0), (half, half), (0, 0)), mode="edge")
        c = np.cumsum(np.pad(padded, ((0, 0), (1, 0), (0, 0))), axis=1)
        out = (c[:, 2 * half + 1:] - c[:, :-2 * half - 1]) / (2 * half + 1)
    return out.astype(x.dtype)
