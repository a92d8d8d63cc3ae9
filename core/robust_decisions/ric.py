"""RIC-h, Medina & Vassilvitskii (NIPS 2017): reserve prices from clusters of a bid predictor.

Their algorithm sorts the sample by the predictor's output h(x), partitions it into k clusters
and posts, in each cluster, the reserve that maximises the empirical revenue of that cluster. We
could not read their paper's exact clustering objective, so this is our reading of it: clusters
are 1-D k-means on h (scikit-learn's KMeans, which on a line gives contiguous intervals), the
reserve is the best of the cluster's observed values, and k is chosen from {1, 2, 4, ..., 64} on
a validation split. A test point takes the reserve of the cluster whose centre is nearest.

KMeans runs on one OpenMP thread: on a few thousand 1-D points its threads only contend (on a
loaded 2-core machine a fit took 25x longer with them), and the clusters do not change.
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
