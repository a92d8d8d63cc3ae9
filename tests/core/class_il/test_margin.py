"""γ_min against closed forms and scipy, the bound's Gaussian inequality, and bad input."""

import numpy as np
import pytest
from scipy.spatial.distance import mahalanobis
from scipy.stats import norm

from core.class_il import class_margin, gaussian_tasks, task_margins, tc_bound
from core.class_il.margin import gamma_for_gap


def test_gamma_matches_scipy_mahalanobis_with_the_pooled_covariance():
    d = gaussian_tasks(9.0, n_tasks=3, dim=12, n_train=150, seed=1)
    m = task_margins(d.X_train, d.y_train, d.task_train, shrinkage="none", estimator="plugin")
    X, t = d.X_train, d.task_train
    centred = np.vstack([X[t == k] - X[t == k].mean(0) for k in range(3)])
    P = np.linalg.inv(centred.T @ centred / len(X))
    for s in range(3):
        for u in range(3):
            assert m.gamma[s, u] == pytest.approx(mahalanobis(m.centroids[s], m.centroids[u], P) ** 2, rel=1e-9)


@pytest.mark.parametrize("layout", ["line", "simplex"])
def test_estimated_gamma_min_recovers_the_population_margin(layout):
    d = gaussian_tasks(16.0, n_tasks=4, dim=12, n_train=1500, layout=layout, seed=2)
    m = task_margins(d.X_train, d.y_train, d.task_train)
    assert abs(m.gamma_min - 16.0) < 1.2
    # the Euclidean margin of the same centroids is the misspecified one (task axes have variance 0.3)
    eu = min(np.sum((m.centroids[a] - m.centroids[b]) ** 2) for a in range(4) for b in range(4) if a != b)
    assert abs(eu - 0.3 * 16.0) < 0.6


def test_crossfitting_removes_the_plugin_noise_term():
    """Pure noise (γ = 0 in d = 40): the plug-in γ̂ is about d(1/n_s + 1/n_t) = 0.8; cross-fitted ≈ 0."""
    rng = np.random.default_rng(4)
    X, tasks = rng.standard_normal((200, 40)), np.repeat([0, 1], 100)
    plug = task_margins(X, tasks, tasks, shrinkage="none", estimator="plugin").gamma_min
    cross = task_margins(X, tasks, tasks, shrinkage="none").gamma_min
    assert plug > 0.5 and abs(cross) < 0.3


def test_class_margin_sees_two_close_classes_in_far_tasks():
    rng = np.random.default_rng(5)
    means = np.array([[0, 0], [30, 0], [100, 0], [31.5, 0.0]])   # class 1 (task 0) next to class 3 (task 1)
    y = np.repeat(np.arange(4), 400)
    X = means[y] + rng.standard_normal((len(y), 2))
    tasks = y // 2
    assert class_margin(X, y, tasks, shrinkage="none") == pytest.approx(1.5 ** 2, abs=0.3)
    same_task = np.array([0, 1, 0, 1])[y]      # now classes 1 and 3 share a task: their pair no longer counts
    assert class_margin(X, y, same_task, shrinkage="none") > 25 ** 2


def test_the_bound_is_the_bhattacharyya_bound_of_two_gaussians():
    gamma = np.array([1.0, 4.0, 9.0, 16.0, 25.0, 60.0])
    assert np.all(2 * norm.cdf(-np.sqrt(gamma) / 2) <= tc_bound(gamma))     # two neighbours, each Φ(−Δ/2)
    assert tc_bound(-3.0) == 1.0
    assert tc_bound(gamma_for_gap(0.01)) == pytest.approx(0.01)


def test_bad_input_names_the_field():
    d = gaussian_tasks(4.0, n_tasks=2, dim=12, n_train=20, seed=0)
    with pytest.raises(ValueError, match=r"^tasks: 1 task\(s\); allowed at least 2"):
        task_margins(d.X_train, d.y_train, np.zeros(len(d.y_train)))
    with pytest.raises(ValueError, match=r"^estimator: 'exact' is not an option"):
        task_margins(d.X_train, d.y_train, d.task_train, estimator="exact")
    with pytest.raises(ValueError, match=r"^pooled: 'all' is not an option"):
        task_margins(d.X_train, d.y_train, d.task_train, pooled="all")
    with pytest.raises(ValueError, match=r"^epsilon: 1.5 is out of range"):
        gamma_for_gap(1.5)
    with pytest.raises(ValueError, match=r"^layout: 'ring' is not an option"):
        gaussian_tasks(4.0, layout="ring")
    with pytest.raises(ValueError, match=r"^gamma: -1(\.0)? is out of range"):
        gaussian_tasks(-1.0)
