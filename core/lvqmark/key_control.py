"""The wrong-key control for LVQMark's one fixed green half: a null only on average over keys.

The scheme (as its public code does it) keys one partition of the codebook, shared by every context. A
wrong key's green half then overlaps the right one in a hypergeometric number of codes (K/4 on average),
and the watermarked codes, crowded into the right half, score green under the wrong key in proportion to
that overlap: one wrong key gives z far from 0 in either direction (tests/core/lvqmark/test_claims.py).

Over uniformly random keys the control is a null exactly: a partition and its complement are equally
likely, the complement maps every green fraction g to 1 - g (on even and odd positions alike), so it maps
the chunk's z to -z, and the z of a random wrong key is symmetric about 0. :func:`wrong_keys` scores the same
watermarked windows with many wrong keys, each against its own clean null; :func:`mean_t_interval` tests the
mean z over keys with a t interval (a null that fires would have it wholly above 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import check_range
from core.common.seeding import check_seed, derive_seed, make_rng
from core.lvqmark.watermark import THRESHOLD, chunk_z, empirical_null, green_counts, green_table


@dataclass
class WrongKeys:
    """Detection of one set of watermarked windows with many wrong keys.

    Attributes
    ----------
    keys : numpy.ndarray
        The wrong keys (none equal to the watermark key).
    z : numpy.ndarray
        ``(keys, chunks)`` empirical z of each chunk under each wrong key, against that key's clean null.
    mean_z : numpy.ndarray
        Mean z over chunks, per key.
    fires : numpy.ndarray
        Share of chunks above the threshold Φ⁻¹(1 - 1e-3), per key.
    overlap : numpy.ndarray
        Codes green under both the wrong key and the right one (even positions), per key; K/4 on average.
    """

    keys: np.ndarray
    z: np.ndarray
    mean_z: np.ndarray
    fires: np.ndarray
    overlap: np.ndarray


def random_keys(n_keys: int, key: int, seed: int) -> np.ndarray:
    """``n_keys`` distinct keys drawn uniformly from 0..2³²-1, none equal to ``key``.

    Parameters
    ----------
    n_keys : int
        How many, 2 to 10,000.
    key : int
        The watermark key to avoid.
    seed : int
        Seeds the draw.

    Returns
    -------
    numpy.ndarray
        The keys.

    Examples
    --------
    >>> k = random_keys(5, key=12345, seed=0)
    >>> len(set(k.tolist())), bool((k != 12345).all())
    (5, True)
    """
    n_keys = check_range("n_keys", n_keys, 2, 10000, integer=True)
    rng = make_rng(check_seed(seed))
    keys = np.unique(rng.integers(0, 2**32, 2 * n_keys + 2, dtype=np.uint64))
    keys = rng.permutation(keys[keys != key])[:n_keys]
    return keys.astype(np.int64)


def score_keys(wm_tokens: np.ndarray, clean_tokens: np.ndarray, codebook_size: int, keys, chunk: int,
               key: int) -> WrongKeys:
    """Score watermarked codes with each of ``keys``, each against its own null from clean codes.

    Parameters
    ----------
    wm_tokens : numpy.ndarray
        ``(n, N)`` re-encoded codes of watermarked windows.
    clean_tokens : numpy.ndarray
        ``(m, N)`` re-encoded codes of non-watermarked windows (the null's calibration set).
    codebook_size : int
        K.
    keys : sequence of int
        The wrong keys.
    chunk : int
        Windows per detection.
    key : int
        The watermark key (for the overlap).

    Returns
    -------
    WrongKeys
        Per key: chunk z, mean z, share firing and overlap.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> clean = rng.integers(0, 8, (400, 9))
    >>> w = score_keys(clean[:200], clean[200:], 8, [1, 2, 3], chunk=50, key=7)
    >>> w.z.shape, bool(np.abs(w.mean_z).max() < 4)
    ((3, 4), True)
    """
    keys = np.asarray(keys, dtype=np.int64)
    if keys.ndim != 1 or len(keys) < 1:
        raise ValueError(f"keys: shape {keys.shape}; allowed a 1-d list of at least one key")
    if (keys == key).any():
        raise ValueError(f"keys: {key} is the watermark key; allowed any other key")
    right = green_table(codebook_size, 1, key)[0]
    z, overlap = [], []
    for k in keys.tolist():
        null = empirical_null(green_counts(clean_tokens, codebook_size, k).fraction)
        z.append(chunk_z(green_counts(wm_tokens, codebook_size, k).fraction, null, chunk))
        overlap.append(int((green_table(codebook_size, 1, k)[0] & right).sum()))
    z = np.array(z)
    return WrongKeys(keys, z, z.mean(1), (z > THRESHOLD).mean(1), np.array(overlap))


def wrong_keys(system, n_keys: int = 40, n_windows: int = 4000, chunk: int = 1000, delta: float = 4.0,
               key: int = 12345, seed: int = 0) -> WrongKeys:
    """Generate watermarked and clean windows once, re-encode them, and score them with ``n_keys`` random wrong keys.

    Parameters
    ----------
    system : Watermarker
        The trained system.
    n_keys : int
        Wrong keys drawn uniformly (:func:`random_keys`).
    n_windows : int
        Windows per set (watermarked, clean calibration).
    chunk : int
        Windows per detection.
    delta : float
        The watermark's logit bias.
    key : int
        The watermark key.
    seed : int
        Seeds the keys and the generation.

    Returns
    -------
    WrongKeys
        Per key: chunk z, mean z, share firing and overlap.

    Examples
    --------
    >>> import core.lvqmark as lvq
    >>> w = wrong_keys(lvq.load_watermarker("finance"), n_keys=3, n_windows=200, chunk=100)
    >>> w.z.shape
    (3, 2)
    """
    seed = check_seed(seed)
    n_windows = check_range("n_windows", n_windows, 2, 200000, integer=True)
    wm = system.generate(n_windows, delta, key, derive_seed(seed, "wm"))
    clean = system.generate(n_windows, 0.0, key, derive_seed(seed, "calibration"))
    keys = random_keys(n_keys, key, derive_seed(seed, "keys"))
    return score_keys(system.robust.predict(wm.series), system.robust.predict(clean.series), system.codebook_size,
                      keys, chunk, key)


def mean_t_interval(values, alpha: float = 0.05) -> tuple[float, float, float]:
    """The mean of ``values`` with its two-sided 1 - alpha t interval (e.g. the per-key mean z over wrong keys).

    Parameters
    ----------
    values : sequence of float
        At least 2 values (e.g. one mean z per wrong key).
    alpha : float
        1 - confidence, in (0, 1).

    Returns
    -------
    tuple of float
        ``(mean, low, high)``.

    Examples
    --------
    >>> [round(v, 3) for v in mean_t_interval([-1.0, 1.0, 0.0])]
    [0.0, -2.484, 2.484]
    """
    from scipy import stats

    alpha = check_range("alpha", alpha, 0.0, 1.0, low_open=True, high_open=True)
    x = np.asarray(values, float)
    if x.ndim != 1 or len(x) < 2:
        raise ValueError(f"values: {x.shape} values; allowed a 1-d array of at least 2")
    low, high = stats.ttest_1samp(x, 0.0).confidence_interval(1 - alpha)
    return float(x.mean()), float(low), float(high)
