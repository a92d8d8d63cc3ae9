"""RIC-h, Medina & Vassilvitskii (NIPS 2017): reserve prices from clusters of a bid predictor.

Their algorithm sorts the sample by the predictor's output h(x), partitions it into k clusters
and posts, in each cluster, the reserve that maximises the empirical revenue of that cluster. We
could not read their paper's exact clustering objective, so this is our reading of it: clusters
are 1-D k-means on h (scikit-learn's KMeans, which on a line gives contiguous intervals), the
reserve is the best of the cluster's observed values, and k is chosen from {1, 2, 4, ..., 64} on
a validation split. A test point takes the reserve of the cluster whose centre is nearest.

KMeans runs on one OpenMP thread: on a few thousand 1-D points its threads only contend (on a
loaded 2-core machine a fit takes 25x longer with them), and the clusters do not change.

The bound we draw for RIC-h (:func:`cluster_bound`) is ours, not Medina & Vassilvitskii's: their
paper's theorem (its exponent and constants) was not available to us. It is the bound their kind of
argument rests on, stated exactly: within a cluster C of mean value mu and variance sigma², Cantelli's
inequality P(v <= mu - t) <= sigma²/(sigma² + t²) gives, for the reserve r = mu - t,

    mu - r P(v >= r)  <=  g(t) = (mu sigma² + t³) / (sigma² + t²),

minimised where t³ + 3 sigma² t = 2 mu sigma² (one real root, Cardano). So the best reserve of the
cluster loses at most min(mu, g(t*)) <= (3/2^(2/3)) mu^(1/3) sigma^(2/3), and clustered reserves lose
at most the cluster-weighted mean of that. With clusters on h, sigma² is the noise (about eta²) plus
the spread of the values the cluster's predictions stand for, so the bound falls like eta^(2/3)
only while eta is larger than the clusters' width, and then stays at the width's floor. It bounds
the best reserves of RIC-h's clusters on the very points it is evaluated on; RIC-h's own reserves,
fitted on another split, can lose more (estimation error), which the bench reports.
"""

from __future__ import annotations

import numpy as np


def best_reserve(values: np.ndarray) -> float:
    """argmax_r r * #{v >= r} over the observed values (the empirical revenue maximiser).

    Parameters
    ----------
    values : array_like
        Observed buyer values (non-empty).

    Returns
    -------
    float
        The reserve price with the largest empirical revenue (ties: the highest such value).

    References
    ----------
    .. [1] A. M. Medina and S. Vassilvitskii, "Revenue optimization with approximate bid predictions",
       NIPS 2017.

    Examples
    --------
    >>> best_reserve([1.0, 2.0, 10.0])
    10.0
    """
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        raise ValueError("values: empty; allowed a non-empty array of buyer values")
    v = np.sort(np.asarray(values, dtype=float))[::-1]
    revenue = v * np.arange(1, v.size + 1)
    return float(v[int(np.argmax(revenue))])


CANTELLI_CONSTANT = 3.0 / 2.0 ** (2.0 / 3.0)  # the looser form: gap <= 1.89 mu^(1/3) sigma^(2/3)


def cantelli_gap(mean, var) -> np.ndarray:
    """The best reserve's worst revenue loss for values of given mean and variance (Cantelli).

    .. math:: \\min\\Big(\\mu,\\ \\min_{0 \\le t \\le \\mu} \\frac{\\mu\\sigma^2 + t^3}{\\sigma^2 + t^2}\\Big),
              \\quad t^{*3} + 3\\sigma^2 t^* = 2\\mu\\sigma^2

    Parameters
    ----------
    mean : array_like
        The mean value mu of each group, >= 0.
    var : array_like
        Its variance sigma², >= 0 (the same shape).

    Returns
    -------
    ndarray
        mu - max_r r P(v >= r) is at most this for every law of that mean and variance on [0, inf).

    Examples
    --------
    >>> float(cantelli_gap(5.0, 0.0)), round(float(cantelli_gap(5.0, 0.01)), 3)   # sigma = 0.1
    (0.0, 0.664)
    """
    mean, var = np.asarray(mean, dtype=float), np.asarray(var, dtype=float)
    for name, x in (("mean", mean), ("var", var)):
        if not np.isfinite(x).all() or (x < 0).any():
            raise ValueError(f"{name}: {x[~np.isfinite(x) | (x < 0)].flat[0]:g} is out of range; allowed finite numbers >= 0")
    q = mean * var
    root = np.sqrt(q**2 + var**3)
    t = np.minimum(np.cbrt(q + root) + np.cbrt(q - root), mean)  # the real root of t³ + 3 var t - 2 q = 0
    denom = var + t**2
    g = np.divide(q + t**3, denom, out=np.zeros_like(denom), where=denom > 0)
    return np.minimum(mean, g)


def cluster_bound(values, labels) -> float:
    """Our bound on the revenue loss of the best reserve per cluster: the cluster-weighted Cantelli gap.

    Parameters
    ----------
    values : array_like
        The buyers' values v (>= 0), one per point.
    labels : array_like of int
        Each point's cluster (the same length).

    Returns
    -------
    float
        (1/n) sum_j n_j min(mu_j, g_j(t*)), with mu_j and sigma_j² the mean and (population) variance of
        the values in cluster j: at least mean(v - r_j 1[v >= r_j]) for the best reserve r_j of each cluster.

    References
    ----------
    .. [1] A. M. Medina and S. Vassilvitskii, "Revenue optimization with approximate bid predictions",
       NIPS 2017 (the clustering; the bound here is our Cantelli version, not theirs).

    Examples
    --------
    >>> v = np.array([4.0, 5.0, 6.0, 9.0, 10.0, 11.0])
    >>> round(cluster_bound(v, [0, 0, 0, 1, 1, 1]), 3) < round(cluster_bound(v, [0] * 6), 3)
    True
    """
    values, labels = np.asarray(values, dtype=float), np.asarray(labels)
    if values.shape != labels.shape or values.size == 0:
        raise ValueError(f"labels: shape {labels.shape} must equal values' {values.shape} (non-empty); "
                         "allowed one label per value")
    _, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    mean = np.bincount(inverse, weights=values) / counts
    var = np.maximum(np.bincount(inverse, weights=values**2) / counts - mean**2, 0.0)
    return float(np.dot(counts, cantelli_gap(mean, var)) / values.size)


class RicH:
    """RIC-h (our reading of Medina & Vassilvitskii 2017): clustered reserve prices from a bid predictor.

    Parameters
    ----------
    ks : sequence of int
        The cluster counts tried; the one with the best validation revenue is kept (``k_``).
    seed : int
        Seeds KMeans.

    Examples
    --------
    >>> h = np.linspace(1, 9, 200)
    >>> ric = RicH(ks=(1, 4)).fit(h, h, h, h)    # a perfect predictor
    >>> ric.k_, ric.reserves_.size
    (4, 4)
    """

    def __init__(self, ks=(1, 2, 4, 8, 16, 32, 64), seed: int = 0):
        self.ks, self.seed = tuple(ks), seed

    def _fit_k(self, h: np.ndarray, v: np.ndarray, k: int):
        from sklearn.cluster import KMeans
        from threadpoolctl import threadpool_limits

        k = min(k, np.unique(h).size)
        with threadpool_limits(limits=1, user_api="openmp"):
            km = KMeans(n_clusters=k, n_init=3, random_state=self.seed).fit(h[:, None])
        centres = km.cluster_centers_[:, 0]
        reserves = np.array([best_reserve(v[km.labels_ == j]) for j in range(k)])
        order = np.argsort(centres)
        return centres[order], reserves[order]

    def fit(self, h_train, v_train, h_val, v_val) -> "RicH":
        """Cluster the training predictions for each k, keep the k with the best validation revenue."""
        h_train, v_train = np.asarray(h_train, float), np.asarray(v_train, float)
        best = None
        for k in self.ks:
            centres, reserves = self._fit_k(h_train, v_train, k)
            prices = self._lookup(centres, reserves, np.asarray(h_val, float))
            revenue = np.mean(np.where(v_val >= prices, prices, 0.0))
            if best is None or revenue > best[0]:
                best = (revenue, k, centres, reserves)
        _, self.k_, self.centres_, self.reserves_ = best
        return self

    @staticmethod
    def _lookup(centres, reserves, h):
        return reserves[np.abs(h[:, None] - centres[None, :]).argmin(axis=1)]

    def predict(self, h) -> np.ndarray:
        """The reserve of the cluster whose centre is nearest to each prediction."""
        return self._lookup(self.centres_, self.reserves_, np.asarray(h, float))

    def labels(self, h) -> np.ndarray:
        """The index of the cluster whose centre is nearest to each prediction (the one ``predict`` uses)."""
        return np.abs(np.asarray(h, float)[:, None] - self.centres_[None, :]).argmin(axis=1)

    def bound(self, h, v) -> float:
        """:func:`cluster_bound` of the values ``v`` in this model's clusters of the predictions ``h``."""
        return cluster_bound(v, self.labels(h))
