"""Green-list watermarking of a code sequence, and its detection statistics (numpy only).

LVQMark's scheme, as its public code does it: one keyed partition of the codebook into a green half
(gamma = 1/2) shared by every context, inverted on odd positions (the alternating partition: a code
that is over-used by the prior lands green as often as red), and no bias on the first
m = min(4, N // 3) positions (the unbiased warm-up). The generator adds delta to the green logits.

Detection scores positions m..N-1 of each re-encoded window:

- the analytic z of Kirchenbauer et al., z = (G - gamma L) / sqrt(L gamma (1 - gamma)), on G green of L
  scored tokens (what transformers' private ``WatermarkDetector._compute_z_score`` computes);
- the empirical z of TimeWak/LVQMark: mu_0 and sigma_0 are the mean and std of per-window green
  fractions g of non-watermarked generated windows, and a set of n windows scores
  z = (mean g - mu_0) / (sigma_0 / sqrt(n)).

What we measured about the scheme itself: a wrong key gives z = 0 only on average over keys. One green
half serves every context, so watermarked codes crowd into the right half, and a wrong key's green
fraction follows its overlap with that half (K = 32: 8 of 16 codes on average, often 6 or 10), on even
and odd positions alike (the alternation does not cancel it). tests/core/lvqmark/test_claims.py
checks this over 40 wrong keys.

Our two changes: the empirical z is computed on disjoint chunks of ``chunk`` windows (not on 100
overlapping draws of 1000), so that the chunks' detections are independent and a rate gets a
binomial (Wilson) interval; and its standard error counts μ₀'s own error, σ₀ √(1/chunk + 1/n) for a null
measured on n windows (a two-sample z). TimeWak's σ₀ / √chunk ignores it, so its null spread is
√(1 + chunk / n): at the bench's sizes (n = 10,000, chunk 1,000) it fired 1.1 to 2.2 times as often as
α = 1e-3 on clean series, where the two-sample z holds its level (``bench/lvqmark_calibration.py``);
``count_null_error=False`` gives TimeWak's z.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import check_range
from core.common.seeding import check_seed, make_rng

GAMMA = 0.5
THRESHOLD = 3.090232306167813   # Phi^-1(1 - 1e-3): the one-sided threshold at FPR 1e-3


def warmup_length(n_tokens: int) -> int:
    """Number of unbiased warm-up positions, m = min(4, N // 3).

    Parameters
    ----------
    n_tokens : int
        Tokens per window, N.

    Returns
    -------
    int
        m.

    Examples
    --------
    >>> warmup_length(11)
    3
    """
    return min(4, check_range("n_tokens", n_tokens, 1, integer=True) // 3)


def green_table(codebook_size: int, n_tokens: int, key: int) -> np.ndarray:
    """Which code is green at which position: the keyed half, inverted on odd positions.

    Parameters
    ----------
    codebook_size : int
        K, even.
    n_tokens : int
        Positions N.
    key : int
        The watermark key (seeds the partition).

    Returns
    -------
    numpy.ndarray
        ``(N, K)`` booleans; each row has K/2 green codes, odd rows the complement of even rows.

    Examples
    --------
    >>> t = green_table(8, 3, key=1)
    >>> t.sum(1).tolist(), bool((t[0] == ~t[1]).all()), bool((t[0] == t[2]).all())
    ([4, 4, 4], True, True)
    """
    K = check_range("codebook_size", codebook_size, 2, integer=True)
    if K % 2:
        raise ValueError(f"codebook_size: {K} is odd; allowed even sizes")
    N = check_range("n_tokens", n_tokens, 1, integer=True)
    green = np.zeros(K, bool)
    green[make_rng(check_seed(key, "key")).permutation(K)[:K // 2]] = True
    return np.stack([green if i % 2 == 0 else ~green for i in range(N)])


def logit_bias(codebook_size: int, n_tokens: int, key: int, delta: float) -> np.ndarray:
    """The additive bias on the prior's logits: delta on green codes after the warm-up, 0 elsewhere.

    Parameters
    ----------
    codebook_size : int
        K.
    n_tokens : int
        Positions N.
    key : int
        The watermark key.
    delta : float
        The bias, >= 0 (0 generates without a watermark).

    Returns
    -------
    numpy.ndarray
        ``(N, K)`` float32 biases.

    Examples
    --------
    >>> b = logit_bias(8, 6, key=1, delta=2.0)
    >>> b[:2].sum().item(), b[2:].sum(1).tolist()
    (0.0, [8.0, 8.0, 8.0, 8.0])
    """
    delta = check_range("delta", delta, 0.0, 50.0)
    bias = green_table(codebook_size, n_tokens, key).astype(np.float32) * delta
    bias[:warmup_length(n_tokens)] = 0.0
    return bias


@dataclass
class GreenCounts:
    """Green tokens among the scored positions of each window.

    Attributes
    ----------
    green : numpy.ndarray
        Green count per window, G.
    scored : numpy.ndarray
        Scored tokens per window, L (positions after the warm-up).
    fraction : numpy.ndarray
        g = G / L per window.
    """

    green: np.ndarray
    scored: np.ndarray
    fraction: np.ndarray


def green_counts(tokens: np.ndarray, codebook_size: int, key: int) -> GreenCounts:
    """Count green tokens per window over positions m..N-1.

    Parameters
    ----------
    tokens : numpy.ndarray
        ``(n, N)`` integer codes.
    codebook_size : int
        K.
    key : int
        The key to detect with.

    Returns
    -------
    GreenCounts
        G, L and g per window.

    Examples
    --------
    >>> c = green_counts(np.zeros((2, 6), dtype=int), 8, key=1)
    >>> c.scored.tolist(), c.green.tolist()
    ([4, 4], [2, 2])
    """
    tokens = np.asarray(tokens)
    if tokens.ndim != 2 or not np.issubdtype(tokens.dtype, np.integer):
        raise ValueError(f"tokens: {tokens.dtype} array of shape {tokens.shape}; allowed (n, N) integers")
    n, N = tokens.shape
    if tokens.size and (tokens.min() < 0 or tokens.max() >= codebook_size):
        raise ValueError(f"tokens: codes outside 0..{codebook_size - 1}; allowed codes of the codebook")
    m = warmup_length(N)
    table = green_table(codebook_size, N, key)
    hits = table[np.arange(N)[None, m:], tokens[:, m:]]
    green = hits.sum(1)
    scored = np.full(n, N - m)
    return GreenCounts(green, scored, green / scored)


def analytic_z(green: np.ndarray, total: np.ndarray, gamma: float = GAMMA) -> np.ndarray:
    """Kirchenbauer's one-proportion z, (G - gamma T) / sqrt(T gamma (1 - gamma)).

    Parameters
    ----------
    green : numpy.ndarray
        Green counts G.
    total : numpy.ndarray
        Scored tokens T.
    gamma : float
        The green share, in (0, 1).

    Returns
    -------
    numpy.ndarray
        z per entry.

    Examples
    --------
    >>> analytic_z(np.array([50, 70]), np.array([100, 100])).tolist()
    [0.0, 4.0]
    """
    gamma = check_range("gamma", gamma, 0.0, 1.0, low_open=True, high_open=True)
    green, total = np.asarray(green, float), np.asarray(total, float)
    return (green - gamma * total) / np.sqrt(total * gamma * (1 - gamma))


@dataclass
class EmpiricalNull:
    """The null of the per-window green fraction, from non-watermarked generated windows.

    Attributes
    ----------
    mu : float
        Mean green fraction mu_0.
    sigma : float
        Its standard deviation sigma_0.
    n : int
        Windows it was measured on.
    """

    mu: float
    sigma: float
    n: int


def empirical_null(fractions: np.ndarray) -> EmpiricalNull:
    """mu_0 and sigma_0 from the green fractions of non-watermarked windows.

    Parameters
    ----------
    fractions : numpy.ndarray
        Per-window green fractions g of non-watermarked windows (at least 2).

    Returns
    -------
    EmpiricalNull
        Their mean and standard deviation.

    Examples
    --------
    >>> empirical_null(np.array([0.25, 0.75])).mu
    0.5
    """
    g = np.asarray(fractions, float)
    if g.ndim != 1 or len(g) < 2:
        raise ValueError(f"fractions: {g.shape} values; allowed a 1-d array of at least 2")
    return EmpiricalNull(float(g.mean()), float(max(g.std(ddof=1), 1e-9)), len(g))


def chunk_z(fractions: np.ndarray, null: EmpiricalNull, chunk: int, count_null_error: bool = True) -> np.ndarray:
    """The empirical z of each disjoint chunk of ``chunk`` windows, (mean g - mu_0) / (sigma_0 sqrt(1/chunk + 1/n)).

    Parameters
    ----------
    fractions : numpy.ndarray
        Per-window green fractions of the windows to score.
    null : EmpiricalNull
        The clean null (from n other windows than these).
    chunk : int
        Windows per detection; a remainder is dropped.
    count_null_error : bool
        Count mu_0's own error (the 1/n term, a two-sample z; default); False gives TimeWak's
        sigma_0 / sqrt(chunk), which is liberal when chunk is not small against n.

    Returns
    -------
    numpy.ndarray
        One z per chunk.

    Examples
    --------
    >>> null = EmpiricalNull(0.5, 0.25, 100)
    >>> chunk_z(np.full(8, 0.75), null, chunk=4, count_null_error=False).tolist()
    [2.0, 2.0]
    >>> chunk_z(np.full(8, 0.75), null, chunk=4).round(3).tolist()
    [1.961, 1.961]
    """
    chunk = check_range("chunk", chunk, 1, integer=True)
    g = np.asarray(fractions, float)
    k = len(g) // chunk
    if k == 0:
        raise ValueError(f"chunk: {chunk} windows but only {len(g)} to score; allowed at most {len(g)}")
    means = g[:k * chunk].reshape(k, chunk).mean(1)
    return (means - null.mu) / (null.sigma * np.sqrt(1 / chunk + (1 / null.n if count_null_error else 0.0)))


def wilson_interval(hits: int, n: int, z: float = 1.959963984540054) -> np.ndarray:
    """Wilson score interval of a binomial proportion.

    Parameters
    ----------
    hits : int
        Successes.
    n : int
        Trials, >= 1.
    z : float
        The normal quantile (1.96 for 95%).

    Returns
    -------
    numpy.ndarray
        ``[low, high]``.

    Examples
    --------
    >>> wilson_interval(10, 10).round(3).tolist()
    [0.722, 1.0]
    """
    n = check_range("n", n, 1, integer=True)
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return np.array([max(0.0, centre - half), min(1.0, centre + half)])


def paired_interval(differences: np.ndarray, z: float = 1.959963984540054) -> tuple[float, float, float]:
    """The mean of paired differences (one per window) with its normal interval, mean ± z sd / sqrt(n).

    Parameters
    ----------
    differences : numpy.ndarray
        Per-window differences (at least 2), e.g. g(attacked) - g(clean) of the same windows.
    z : float
        The normal quantile (1.96 for 95%).

    Returns
    -------
    tuple of float
        ``(mean, low, high)``.

    Examples
    --------
    >>> [round(v, 3) for v in paired_interval(np.array([0.0, 0.1, 0.2, 0.1]))]
    [0.1, 0.02, 0.18]
    """
    d = np.asarray(differences, float)
    if d.ndim != 1 or len(d) < 2:
        raise ValueError(f"differences: {d.shape} values; allowed a 1-d array of at least 2")
    half = z * d.std(ddof=1) / np.sqrt(len(d))
    return float(d.mean()), float(d.mean() - half), float(d.mean() + half)
