"""The bound we draw for RIC-h: Cantelli per cluster, against a numeric minimum, the best reserves and RIC-h."""

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from core.robust_decisions import (PROBLEMS, SettingConfig, best_reserve, cantelli_gap, cluster_bound, fit_ric,
                                   make_setting)
from core.robust_decisions.ric import CANTELLI_CONSTANT


def best_reserve_loss(values: np.ndarray) -> float:
    """mean(v) - max_r r P(v >= r) on the points themselves (the empirical law's best reserve)."""
    r = best_reserve(values)
    return float(values.mean() - r * np.mean(values >= r))


@pytest.mark.parametrize("mean, var", [(5.0, 1e-4), (5.0, 0.09), (5.0, 1.0), (1.0, 4.0), (2.0, 100.0), (3.0, 0.0)])
def test_cantelli_gap_is_the_numeric_minimum_and_below_its_looser_closed_form(mean, var):
    objective = lambda t: (mean * var + t**3) / (var + t**2) if var + t**2 > 0 else 0.0  # noqa: E731
    numeric = min(mean, minimize_scalar(objective, bounds=(0.0, mean), method="bounded", options={"xatol": 1e-12}).fun)
    assert float(cantelli_gap(mean, var)) == pytest.approx(numeric, rel=1e-7, abs=1e-12)
    assert float(cantelli_gap(mean, var)) <= CANTELLI_CONSTANT * mean ** (1 / 3) * var ** (1 / 3) + 1e-12


@pytest.mark.parametrize("law", ["gaussian", "exponential", "two_point", "uniform"])
def test_cluster_bound_holds_for_the_best_reserve_of_every_cluster(law):
    """On the points it is evaluated on (an empirical law, to which Cantelli applies as well)."""
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 12, 6000)
    centre = rng.uniform(1.0, 9.0, 12)[labels]
    spread = rng.uniform(0.01, 2.0, 12)[labels]
    noise = {"gaussian": rng.standard_normal(labels.size), "exponential": rng.exponential(1.0, labels.size) - 1.0,
             "two_point": np.where(rng.random(labels.size) < 0.2, -2.0, 0.5),
             "uniform": rng.uniform(-1.7, 1.7, labels.size)}[law]
    values = np.clip(centre + spread * noise, 0.0, None)
    best = sum(best_reserve_loss(values[labels == j]) * np.sum(labels == j) for j in range(12)) / values.size
    bound = cluster_bound(values, labels)
    assert best <= bound
    assert bound < values.mean()  # and it says something: less than losing every sale


def test_control_half_the_bound_fails_on_a_two_point_law():
    """The bound is not loose by 2x: a two-point law (Cantelli's extremal kind) loses over half of it."""
    values = np.where(np.arange(10_000) < 1600, 4.2, 5.0)  # P(4.2) = 0.16
    loss, bound = best_reserve_loss(values), cluster_bound(values, np.zeros(values.size, int))
    assert 0.5 * bound < loss <= bound


def test_clusters_help_and_one_cluster_is_the_global_bound():
    v = np.concatenate([np.full(500, 2.0), np.full(500, 8.0)])
    assert cluster_bound(v, np.repeat([0, 1], 500)) == 0.0          # each cluster is a point mass
    assert cluster_bound(v, np.zeros(1000, int)) == pytest.approx(float(cantelli_gap(5.0, 9.0)))
    with pytest.raises(ValueError, match="^labels: shape"):
        cluster_bound(v, np.zeros(999, int))
    with pytest.raises(ValueError, match="^var: -1 is out of range"):
        cantelli_gap(1.0, -1.0)


@pytest.mark.claim
def test_ric_h_stays_under_its_cluster_bound_which_floors_at_the_clusters_width():
    """The comparison the page draws: RIC-h's loss <= its cluster bound; as eta falls 10x (0.03 -> 0.003)
    the abstract's bound falls 4.6x, the cluster bound much less (RIC-h's clusters keep a width)."""
    problem, bounds, abstract = PROBLEMS["posted_pricing"], [], []
    for noise in (0.03, 0.003):
        setting = make_setting(SettingConfig(noise=noise, n_train=2000, n_val=2000, n_test=8000), seed=0)
        ric = fit_ric(setting)
        loss = float(problem.excess_loss(ric.predict(setting.pred_test), setting.s_test).mean())
        bounds.append(ric.bound(setting.pred_test, setting.s_test))
        abstract.append(float(problem.bound_value(setting.eta_test, setting.bound)))
        assert loss <= bounds[-1]
    assert abstract[0] / abstract[1] > 4.0 and bounds[0] / bounds[1] < 2.0
    assert abstract[1] < bounds[1]  # at the small eta the abstract's bound is the lower one
    with pytest.raises(ValueError, match="^setting: RIC-h is for posted pricing only"):
        fit_ric(make_setting(SettingConfig(problem="ski_rental", n_train=100, n_val=100, n_test=200), seed=0))
