"""Shapley values of a cooperative game: exact enumeration over coalitions, or permutation sampling.

A game here maps a batch of coalitions, a boolean matrix ``masks`` of shape (k, d) (row = which
players are in), to values of shape (k, ...) : any trailing shape, so that several games that share
their expensive part (the predictive of each coalition) are attributed in one pass. Shapley values
are linear in the game, so the value of a sum of games is the sum of their values; the module uses
that to split the joint game into its chain-rule terms.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Callable

import numpy as np

from core.common.config import check_range
from core.common.progress import report
from core.common.seeding import make_rng

MAX_EXACT_PLAYERS = 12


def all_coalitions(d: int) -> np.ndarray:
    """Every coalition of ``d`` players as a boolean matrix, in bit-mask order.

    Parameters
    ----------
    d : int
        The number of players, 0 to 24 (2^d rows are built).

    Returns
    -------
    ndarray of bool, shape (2^d, d)
        Row ``s`` holds player i iff bit i of ``s`` is set: row 0 is the empty coalition, the
        last row the grand coalition (the order :func:`shapley_from_table` expects).

    Examples
    --------
    >>> all_coalitions(2)
    array([[False, False],
           [ True, False],
           [False,  True],
           [ True,  True]])
    """
    d = check_range("d", d, 0, 24, integer=True)
    s = np.arange(2**d)[:, None]
    return ((s >> np.arange(d)[None, :]) & 1).astype(bool)


def mask_index(masks) -> np.ndarray:
    """The row of :func:`all_coalitions` for each coalition in ``masks``."""
    masks = np.asarray(masks, dtype=bool)
    return (masks.astype(np.int64) << np.arange(masks.shape[-1])).sum(-1)


def shapley_weights(d: int) -> np.ndarray:
    r""":math:`w(s) = s!(d-s-1)!/d! = 1/(d\binom{d-1}{s})` for coalition sizes :math:`s = 0..d-1`."""
    return np.array([1.0 / (d * comb(d - 1, s)) for s in range(d)])


@dataclass
class ShapleyValues:
    """Shapley values of a (vector-valued) game and how they were computed.

    Efficiency holds for both methods: ``values.sum(0) == full - empty``.

    Attributes
    ----------
    values : ndarray, shape (d, ...)
        ``values[i]`` is player i's Shapley value (the game's trailing shape).
    se : ndarray, shape (d, ...)
        Its standard error: zero when exact, over antithetic pairs when sampled.
    empty : ndarray
        The game at the empty coalition, v(∅).
    full : ndarray
        The game at the grand coalition, v(N).
    method : str
        ``"exact"`` or ``"permutation"``.
    n_evaluations : int
        Distinct coalitions the game was evaluated on.
    n_permutations : int
        Orderings used (0 when exact).
    pairs : ndarray, shape (n_pairs, d, ...)
        Permutation sampling's per-pair contributions, so that the s.e. of any linear function of
        the values can be taken from them; shape (0, d, ...) when exact.
    """

    values: np.ndarray
    se: np.ndarray
    empty: np.ndarray
    full: np.ndarray
    method: str
    n_evaluations: int
    n_permutations: int
    pairs: np.ndarray


def shapley_from_table(table) -> np.ndarray:
    r"""Exact Shapley values from the game evaluated on every coalition.

    .. math:: \phi_i = \sum_{S \subseteq N\setminus\{i\}} \frac{|S|!\,(d-|S|-1)!}{d!}\,\bigl(v(S\cup\{i\}) - v(S)\bigr)

    Parameters
    ----------
    table : array_like, shape (2^d, ...)
        ``table[s]`` is the value of the coalition whose bit mask is ``s`` (see :func:`all_coalitions`).

    Returns
    -------
    ndarray, shape (d, ...)
        Player i's Shapley value in row i.

    References
    ----------
    .. [1] L. S. Shapley, "A value for n-person games", Contributions to the Theory of Games II, 1953.

    Examples
    --------
    An additive game v(S) = Σ_{i∈S} w_i gives each player its own weight:

    >>> w = np.array([1.0, 2.0, 3.0])
    >>> shapley_from_table(all_coalitions(3) @ w)
    array([1., 2., 3.])
    """
    table = np.asarray(table, dtype=float)
    d = int(round(np.log2(table.shape[0])))
    if 2**d != table.shape[0]:
        raise ValueError(f"table: {table.shape[0]} rows is not a power of two; allowed 2^d rows")
    masks = all_coalitions(d)
    sizes = masks.sum(1)
    w = np.append(shapley_weights(d), 0.0) if d else np.zeros(1)
    out = np.empty((d,) + table.shape[1:])
    idx = np.arange(2**d)
    for i in range(d):
        without = idx[~masks[:, i]]
        delta = table[without | (1 << i)] - table[without]
        out[i] = np.tensordot(w[sizes[without]], delta, axes=(0, 0))
    return out


def exact_shapley(game: Callable, d: int, progress=None) -> ShapleyValues:
    """Shapley values of ``game`` over ``d <= 12`` players by evaluating all 2^d coalitions.

    Parameters
    ----------
    game : callable
        ``game(masks)`` with ``masks`` a (k, d) boolean array, returning values of shape (k, ...).
    d : int
        The number of players, 1 to :data:`MAX_EXACT_PLAYERS`.
    progress : callable, optional
        ``progress(step, total, metrics)``, once per batch of coalitions; False stops the run and
        returns None (a partial table has no Shapley values).

    Returns
    -------
    ShapleyValues or None
        The exact values (``se`` zero), or None when ``progress`` stopped the run.

    Examples
    --------
    The glove game: player 0 holds a left glove, players 1 and 2 a right one; a pair is worth 1.

    >>> def gloves(masks):
    ...     return (masks[:, 0] & (masks[:, 1] | masks[:, 2])).astype(float)
    >>> sv = exact_shapley(gloves, 3)
    >>> np.round(sv.values * 6, 3), sv.n_evaluations
    (array([4., 1., 1.]), 8)
    """
    d = check_range("d", d, integer=True)
    if not 1 <= d <= MAX_EXACT_PLAYERS:
        raise ValueError(f"d: {d} players is too many for enumeration; allowed 1 to {MAX_EXACT_PLAYERS} "
                         "(use permutation_shapley)")
    masks = all_coalitions(d)
    batches = np.array_split(np.arange(len(masks)), min(len(masks), 16))
    parts = []
    for b, rows in enumerate(batches, 1):
        parts.append(np.asarray(game(masks[rows]), dtype=float))
        if not report(progress, b, len(batches), {"coalitions": float(rows[-1] + 1)}):
            return None
    table = np.concatenate(parts)
    values = shapley_from_table(table)
    return ShapleyValues(values, np.zeros_like(values), table[0], table[-1], "exact", len(masks), 0,
                         np.zeros((0,) + values.shape))


def permutation_shapley(game: Callable, d: int, n_permutations: int = 200, seed: int = 0,
                        progress=None) -> ShapleyValues:
    r"""Monte Carlo Shapley values from random player orderings, with standard errors.

    For each ordering :math:`\pi`, player i's marginal contribution is
    :math:`v(\mathrm{pre}_\pi(i)\cup\{i\}) - v(\mathrm{pre}_\pi(i))`; its mean over orderings is
    unbiased for :math:`\phi_i`, and each ordering's contributions sum to :math:`v(N) - v(\emptyset)`
    exactly, so the estimate is efficient for any number of orderings. Orderings come in antithetic
    pairs (an ordering and its reverse); the standard error is over pairs. Coalition values are cached.

    Parameters
    ----------
    game : callable
        As in :func:`exact_shapley`.
    d : int
        The number of players (any).
    n_permutations : int
        Orderings drawn (rounded up to an even number), at least 2.
    seed : int
        Seeds the orderings.
    progress : callable, optional
        Called after each pair; False stops and returns the estimate from the pairs done so far.

    Returns
    -------
    ShapleyValues
        The mean contributions, their standard errors and the per-pair contributions.

    Examples
    --------
    Every ordering's contributions sum to v(N) − v(∅), so the estimate is efficient:

    >>> def gloves(masks):
    ...     return (masks[:, 0] & (masks[:, 1] | masks[:, 2])).astype(float)
    >>> sv = permutation_shapley(gloves, 3, n_permutations=20, seed=0)
    >>> round(float(sv.values.sum()), 6), sv.n_permutations, sv.se.shape
    (1.0, 20, (3,))
    """
    d = check_range("d", d, 1, integer=True)
    n_permutations = check_range("n_permutations", n_permutations, integer=True)
    if n_permutations < 2:
        raise ValueError(f"n_permutations: {n_permutations} is too few; allowed integers >= 2")
    rng = make_rng(seed)
    pairs = (n_permutations + 1) // 2
    cache: dict[bytes, np.ndarray] = {}

    def values_of(masks: np.ndarray) -> np.ndarray:
        keys = [m.tobytes() for m in masks]
        todo = [i for i, key in enumerate(keys) if key not in cache]
        if todo:
            fresh = np.asarray(game(masks[todo]), dtype=float)
            for i, v in zip(todo, fresh):
                cache[keys[i]] = v
        return np.stack([cache[key] for key in keys])

    contributions = []
    for p in range(pairs):
        order = rng.permutation(d)
        pair = []
        for perm in (order, order[::-1]):
            masks = np.zeros((d + 1, d), dtype=bool)
            for step, player in enumerate(perm):
                masks[step + 1:, player] = True
            v = values_of(masks)
            phi = np.empty((d,) + v.shape[1:])
            phi[perm] = v[1:] - v[:-1]
            pair.append(phi)
        contributions.append(0.5 * (pair[0] + pair[1]))
        if not report(progress, p + 1, pairs, {"evaluations": float(len(cache))}):
            break
    c = np.stack(contributions)
    se = c.std(0, ddof=1) / np.sqrt(len(c)) if len(c) > 1 else np.full(c.shape[1:], np.nan)
    empty = values_of(np.zeros((1, d), dtype=bool))[0]
    full = values_of(np.ones((1, d), dtype=bool))[0]
    return ShapleyValues(c.mean(0), se, empty, full, "permutation", len(cache), 2 * len(c), c)
