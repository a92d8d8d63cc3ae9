"""The paper's claims at small scale, each with the control that must fail it."""

import numpy as np
import pytest
from scipy.stats import levy_stable

from core.class_il import (DriftConfig, ExperimentConfig, HeavyTailConfig, SyntheticConfig, configuration_sweep,
                           drift_experiment, ecf_curve, evaluate_configuration, synthetic_sweep, tail_index)
from core.common.progress import ProgressLog

pytestmark = pytest.mark.claim

SMALL = dict(n_gammas=6, n_train=150, n_test=2500)


@pytest.mark.parametrize("layout", ["line", "simplex"])
def test_bound_holds_on_every_synthetic_configuration(layout):
    s = synthetic_sweep(SyntheticConfig(layout=layout, learner="slda", **SMALL), seed=0)
    assert s.bound_holds and np.all(s.tc_gap <= s.bound) and np.all(s.tc_gap > 0)
    assert np.all(np.diff(s.tc_gap) < 0)                    # the gap falls as the margin grows


def test_control_a_learner_blind_to_the_covariance_breaks_the_bound():
    """Cosine NCM on the same anisotropic tasks: its gap is not governed by the Mahalanobis γ_min.

    (So the bound is not met by any classifier; the bench finds RanPAC and FeCAM break it here too.)
    """
    s = synthetic_sweep(SyntheticConfig(layout="line", learner="ncm", **SMALL), seed=0)
    assert not s.bound_holds and np.sum(s.tc_gap > s.bound) >= 3


def test_zero_margin_control_gives_the_maximal_gap():
    """Identical task centroids: class-IL guesses among T copies, gap = (1 − 1/T)·Acc_TIL, the largest."""
    s = synthetic_sweep(SyntheticConfig(**SMALL), seed=1)
    assert s.zero_margin_gap == pytest.approx(s.zero_margin_maximum, abs=0.02)
    assert s.zero_margin_gap > 0.7 and s.zero_margin_gap > 3 * s.tc_gap.max()


def test_slope_on_synthetic_tasks_is_near_minus_one_eighth_and_euclidean_control_fails():
    s = synthetic_sweep(SyntheticConfig(**SMALL), seed=2)
    # −1/8 plus the Gaussian tail correction −1/(2γ) (calibrated before filing: −0.154 to −0.167)
    assert -0.2 <= s.slope.slope <= -0.1
    assert s.slope.slope < -0.125                         # steeper than −1/8, as the tail correction says
    assert not -0.2 <= s.slope_euclidean.slope <= -0.1    # the misspecified margin: slope off by 1/0.3


def test_pretrained_backbone_has_a_larger_margin_and_smaller_gap_than_random():
    pre = evaluate_configuration("digits/mlp64-half", "slda", n_splits=1, seed=0)
    rand = evaluate_configuration("digits/random16", "slda", n_splits=1, seed=0)
    assert pre.gamma_min > 3 * rand.gamma_min and pre.tc_gap < rand.tc_gap / 3
    for r in (pre, rand):
        assert 0 <= r.tc_gap <= np.exp(-r.gamma_min / 8)
        np.testing.assert_allclose(r.confusion.sum(axis=1), 1.0)


def test_tail_index_estimator_recovers_alpha():
    for alpha in (1.3, 1.6, 1.9):
        x = levy_stable.rvs(alpha, 0.0, size=40000, random_state=np.random.default_rng(7))
        assert abs(tail_index(x) - alpha) < 0.1


def test_ecf_slope_matches_minus_alpha_minus_one_over_alpha_and_misses_the_gaussian_rate():
    for alpha in (1.3, 1.5):
        c = ecf_curve(HeavyTailConfig(alpha=alpha, n_repeats=200, k_max=2048), seed=0)
        assert abs(c.slope - c.theory_slope) < 0.05, (alpha, c.slope)
        assert abs(c.slope - (-0.5)) > 0.1                   # control: the finite-variance rate does not fit
        assert c.slope_clipped < c.slope - 0.1               # clipping steepens the rate
        assert abs(c.alpha_hat - alpha) < 0.1


def test_drift_is_linear_at_small_learning_rate_and_not_at_large():
    r = drift_experiment(DriftConfig(n_lrs=6), seed=0)
    assert r.small.r2 > 0.95 and r.small.r > 0.99 and abs(r.small.loglog_slope - 1) < 0.1
    assert r.control.r2 < 0.95                                # control: the large-η range is not linear


def test_long_runs_stop_cleanly():
    log = ProgressLog(stop_after=2)
    s = configuration_sweep(ExperimentConfig(n_splits=1, include_minilm=False, bootstrap=100), seed=0, progress=log)
    assert log.steps == [1, 2] and len(s.keys) == 2 and len(s.gamma_min) == 2
    log = ProgressLog(stop_after=3)
    s = synthetic_sweep(SyntheticConfig(**SMALL), seed=0, progress=log)
    assert len(s.tc_gap) == 2                                # the zero-margin control, then two γ
    log = ProgressLog(stop_after=1)
    c = ecf_curve(HeavyTailConfig(n_repeats=20, k_max=2048), seed=0, progress=log)
    assert len(log.steps) == 1 and c.K.max() <= 256
    log = ProgressLog(stop_after=2)
    assert len(drift_experiment(DriftConfig(), seed=0, progress=log).drift) == 2


def test_configs_refuse_bad_values():
    with pytest.raises(ValueError, match=r"^learner: 'lda' is not an option"):
        ExperimentConfig(learner="lda")
    with pytest.raises(ValueError, match=r"^gamma_high: 4 must exceed gamma_low"):
        SyntheticConfig(gamma_low=5.0, gamma_high=4.0)
    with pytest.raises(ValueError, match=r"^alpha: 2.5 is out of range; allowed in \[1.1, 2\]"):
        HeavyTailConfig(alpha=2.5)
    with pytest.raises(ValueError, match=r"^lr_high: need lr_low < lr_high < lr_large"):
        DriftConfig(lr_low=0.1, lr_high=0.01)
    with pytest.raises(ValueError, match=r"^key: 'digits/vit' is not a configuration"):
        evaluate_configuration("digits/vit")
