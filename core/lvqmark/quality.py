"""Generation quality: discriminative, predictive and correlational scores (ours, with scikit-learn).

The TimeGAN scores use a 2-layer GRU in TensorFlow; ours are their scikit-learn counterparts, sized
for a laptop: the discriminative score is |accuracy - 1/2| of an MLP classifier (real vs generated,
flattened windows, 70/30 split); the predictive score is train-on-synthetic, test-on-real: a ridge
regression from the first T-1 steps to the last step, its mean absolute error on real windows; the
correlational score (Diffusion-TS) is the mean absolute difference between the real and generated
cross-variable correlation matrices (off-diagonal entries).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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
