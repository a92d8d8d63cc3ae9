"""Generation quality: discriminative, predictive and correlational scores (ours, with scikit-learn).

The TimeGAN scores use a 2-layer GRU in TensorFlow; ours are their scikit-learn counterparts, sized
for a laptop: the discriminative score is |accuracy - 1/2| of an MLP classifier (real vs generated,
flattened windows, 70/30 split); the predictive score is train-on-synthetic, test-on-real: a ridge
regression from the first T-1 steps to the last step, its mean absolute error on real windows; the
correlational score (Diffusion-TS) is the mean absolute difference between the real and generated
cross-variable correlation matrices (off-diagonal entries).

The discriminative score saturates at 1/2 when every generation is told from real windows, so it cannot
show a loss of quality there. :func:`mmd_ratio` does not saturate: the squared maximum mean discrepancy
(Gretton et al.'s unbiased estimate, RBF kernel with the median-distance bandwidth of the real windows) of
each of two sets of
generated windows to real ones, and their ratio with a percentile bootstrap interval
(``scipy.stats.bootstrap``, the three samples resampled independently).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import check_range
from core.common.seeding import check_seed, derive_seed


@dataclass
class Quality:
    """Quality scores of generated windows against real ones (lower is better for all three).

    Attributes
    ----------
    discriminative : float
        |accuracy - 0.5| of a real-vs-generated classifier on held-out windows.
    predictive : float
        Mean absolute error on real windows of a next-step model trained on generated ones.
    correlational : float
        Mean |corr_real - corr_generated| over variable pairs.
    """

    discriminative: float
    predictive: float
    correlational: float


def quality_scores(real: np.ndarray, generated: np.ndarray, seed: int = 0) -> Quality:
    """Score ``generated`` windows against ``real`` ones.

    Parameters
    ----------
    real : numpy.ndarray
        ``(n, T, D)`` real windows.
    generated : numpy.ndarray
        ``(m, T, D)`` generated windows.
    seed : int
        Seeds the classifier and its split.

    Returns
    -------
    Quality
        The three scores.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> q = quality_scores(rng.normal(size=(200, 24, 2)), rng.normal(size=(200, 24, 2)) + 3)
    >>> q.discriminative > 0.4
    True
    """
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import train_test_split
    from sklearn.neural_network import MLPClassifier

    seed = check_seed(seed)
    real, gen = np.asarray(real, float), np.asarray(generated, float)
    if real.ndim != 3 or gen.shape[1:] != real.shape[1:]:
        raise ValueError(f"generated: shape {gen.shape} does not match real {real.shape}; allowed the same (T, D)")
    n = min(len(real), len(gen))
    X = np.concatenate([real[:n], gen[:n]]).reshape(2 * n, -1)
    y = np.r_[np.zeros(n), np.ones(n)]
    split = derive_seed(seed, "split") % 2**31
    Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.3, random_state=split, stratify=y)
    clf = MLPClassifier((32,), max_iter=300, random_state=derive_seed(seed, "mlp") % 2**31).fit(Xa, ya)
    disc = abs(clf.score(Xb, yb) - 0.5)
    reg = Ridge(alpha=1.0).fit(gen[:, :-1].reshape(len(gen), -1), gen[:, -1])
    pred = float(np.abs(reg.predict(real[:, :-1].reshape(len(real), -1)) - real[:, -1]).mean())
    D = real.shape[2]
    if D < 2:
        corr = 0.0
    else:
        cr = np.corrcoef(real.reshape(-1, D).T)
        cg = np.corrcoef(gen.reshape(-1, D).T)
        off = ~np.eye(D, dtype=bool)
        corr = float(np.nanmean(np.abs(cr - cg)[off]))
    return Quality(float(disc), pred, corr)


@dataclass
class MMDRatio:
    """How far two sets of generated windows are from real ones, and their ratio.

    Attributes
    ----------
    mmd_a, mmd_b : float
        Squared MMD (unbiased estimate) of sets a and b to the real windows.
    ratio : float
        mmd_a / mmd_b.
    low, high : float
        Its percentile bootstrap interval.
    bandwidth : float
        The RBF kernel's length scale (median distance between real windows).
    """

    mmd_a: float
    mmd_b: float
    ratio: float
    low: float
    high: float
    bandwidth: float


def mmd_ratio(real: np.ndarray, a: np.ndarray, b: np.ndarray, seed: int = 0, resamples: int = 200,
              alpha: float = 0.05, bandwidth: float | None = None) -> MMDRatio:
    """MMD²(a, real) / MMD²(b, real) with a bootstrap interval (e.g. a = watermarked, b = clean generations).

    Parameters
    ----------
    real, a, b : numpy.ndarray
        ``(n, T, D)`` windows (each at least 2; the same ``(T, D)``).
    seed : int
        Seeds the bootstrap.
    resamples : int
        Bootstrap resamples, 20 to 10,000.
    alpha : float
        1 - the interval's confidence, in (0, 1).
    bandwidth : float or None
        The RBF length scale; None: the median distance between real windows.

    Returns
    -------
    MMDRatio
        Both squared MMDs, the ratio and its interval.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> real = rng.normal(size=(150, 6, 1))
    >>> r = mmd_ratio(real, rng.normal(size=(150, 6, 1)) + 1, rng.normal(size=(150, 6, 1)) + 0.5, resamples=50)
    >>> round(r.ratio, 2), r.low > 1
    (4.16, True)
    """
    from scipy import stats
    from sklearn.metrics.pairwise import euclidean_distances, rbf_kernel

    seed = check_seed(seed)
    resamples = check_range("resamples", resamples, 20, 10000, integer=True)
    alpha = check_range("alpha", alpha, 0.0, 1.0, low_open=True, high_open=True)
    sets = [np.asarray(x, float) for x in (real, a, b)]
    for name, x in zip(("real", "a", "b"), sets):
        if x.ndim != 3 or x.shape[1:] != sets[0].shape[1:] or len(x) < 2:
            raise ValueError(f"{name}: shape {x.shape}; allowed (n >= 2, T, D) with the real windows' (T, D) "
                             f"{sets[0].shape[1:]}")
    flat = [x.reshape(len(x), -1) for x in sets]
    if bandwidth is None:
        d = euclidean_distances(flat[0])
        bandwidth = float(np.median(d[np.triu_indices_from(d, 1)]))
    bandwidth = check_range("bandwidth", bandwidth, 0.0, 1e12, low_open=True)
    X = np.concatenate(flat)
    K = rbf_kernel(X, gamma=1.0 / (2.0 * bandwidth ** 2))
    sizes = [len(x) for x in flat]
    start = np.cumsum([0] + sizes[:-1])

    def weights(idx, which):
        w = np.zeros(len(X))
        np.add.at(w, start[which] + np.asarray(idx, int), 1.0 / len(idx))
        return w

    def within(w):   # the mean kernel over pairs of distinct draws (k(x, x) = 1 left out)
        s2 = w @ w
        return (w @ K @ w - s2) / (1.0 - s2)

    def both(ir, ia, ib):   # MMD² of a and of b to the real windows, the real windows' own term computed once
        wr, wa, wb = weights(ir, 0), weights(ia, 1), weights(ib, 2)
        Kr, real_term = K @ wr, within(wr)
        return real_term + within(wa) - 2.0 * (wa @ Kr), real_term + within(wb) - 2.0 * (wb @ Kr)

    def ratio(ir, ia, ib):
        ma, mb = both(ir, ia, ib)
        return ma / mb

    full = [np.arange(n) for n in sizes]
    ma, mb = both(*full)
    boot = stats.bootstrap(full, ratio, n_resamples=resamples, confidence_level=1 - alpha, method="percentile",
                           vectorized=False, paired=False, rng=np.random.default_rng(derive_seed(seed, "bootstrap")))
    ci = boot.confidence_interval
    return MMDRatio(float(ma), float(mb), float(ma / mb), float(ci.low), float(ci.high), bandwidth)
