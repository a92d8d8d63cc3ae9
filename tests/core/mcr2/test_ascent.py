"""Gradient ascent: the limit is the closed form; the error bound, PL and the linear rate, with their controls."""

import numpy as np
import pytest

from core.common.progress import ProgressLog
from core.mcr2 import AscentConfig, ascend, critical_lambda, saddle_probe

pytestmark = pytest.mark.claim

# The reference instance (d = 10, K = 2, m_k = 30, ε² = 0.5, λ = 0.01) at a larger step, to keep the tests short.
FAST = AscentConfig(lr=1.0, steps=650)


@pytest.fixture(scope="module")
def runs():
    return [ascend(FAST, seed=s) for s in (0, 1, 2)]


@pytest.fixture(scope="module")
def degenerate():
    """The control: λ at its critical value, where the maximiser's two roots merge."""
    lam_c = float(critical_lambda(FAST.dim, FAST.class_sizes, FAST.eps)[0])
    return ascend(FAST.replace(lam=lam_c, steps=900), seed=0)


def test_at_convergence_subspaces_are_orthogonal_and_singular_values_at_the_predicted_root(runs):
    for r in runs:
        assert r.ranks.sum() == FAST.dim
        top = [r.spectra[-1, c, : r.ranks[c]] for c in range(FAST.n_classes)]
        for c, s in enumerate(top):
            assert s == pytest.approx(np.full(s.size, r.predicted_s[c]), rel=1e-4)
            assert r.spectra[-1, c, r.ranks[c]:].max() < 1e-12 if r.ranks[c] < r.spectra.shape[2] else True
        assert r.overlap[-1] < 1e-8 and r.overlap[0] > 0.5       # overlapping at the start, orthogonal at the end
        assert r.gap[-1] < 1e-9 and r.distance[-1] < 1e-4


def test_claim_linear_rate_slope_negative_and_constant_over_the_tail_and_not_at_critical_lambda(runs, degenerate):
    for r in runs:
        fit = r.fit
        assert fit.steps > 200
        assert fit.slope < -0.01
        assert np.all(fit.third_slopes < 0) and fit.slope_spread < 0.05
        assert 0 < fit.contraction_min <= fit.contraction_max < 1 and fit.contraction_max - fit.contraction_min < 0.01
    control = degenerate.fit
    assert control.slope_spread > 0.5                             # the slope flattens: sublinear
    assert abs(control.third_slopes[-1]) < 0.5 * abs(control.third_slopes[0])


def test_claim_pl_ratio_bounded_below_over_the_tail_and_not_at_critical_lambda(runs, degenerate):
    for r in runs:
        assert r.fit.pl_min > 0.02 and r.fit.pl_min > 0.8 * r.fit.pl_max
        # PL with step η gives contraction at most 1 − η μ, μ = pl_min / 2 ... up to second order
        assert r.fit.contraction_max <= 1 - FAST.lr * r.fit.pl_min / 2 + 0.01
    assert degenerate.fit.pl_min < 0.25 * runs[0].fit.pl_min


def test_claim_error_bound_holds_in_the_tail_and_fails_near_a_saddle(runs):
    for r in runs:
        assert np.isfinite(r.fit.kappa) and r.fit.kappa < 1.2 * r.fit.kappa_min
    kappa = max(r.fit.kappa for r in runs)
    probe = saddle_probe(FAST, seed=0)
    assert probe.saddle_grad_norm < 1e-12 and probe.saddle_distance > 0.1
    assert probe.ratio[2] > 10 * kappa                         # δ = 1e-3 from the saddle
    assert np.all(np.diff(probe.ratio) > 0)                    # and it grows without bound as δ → 0


def test_the_same_seed_gives_the_same_run_and_stop_returns_what_was_done():
    cfg = AscentConfig(steps=40)
    a, b = ascend(cfg, seed=7), ascend(cfg, seed=7)
    assert np.array_equal(a.objective, b.objective)
    assert not np.array_equal(a.objective, ascend(cfg, seed=8).objective)
    log = ProgressLog(stop_after=5)
    stopped = ascend(cfg, seed=7, progress=log)
    assert log.steps == [1, 2, 3, 4, 5] and log.totals == [40] * 5
    assert stopped.steps_done == 5 and stopped.objective.size == 6
    assert np.array_equal(stopped.objective, a.objective[:6])
    assert np.all(np.diff(a.objective) > 0)                     # ascent


@pytest.mark.parametrize("changes, message", [
    (dict(lam=0.5), "^lam: 0.5 exceeds the critical"), (dict(lr=0.0), "^lr: 0 is out of range"),
    (dict(dim=1), "^dim: 1 is out of range"), (dict(steps=2.5), "^steps: expected an integer"),
])
def test_config_validates(changes, message):
    with pytest.raises(ValueError, match=message):
        AscentConfig(**changes)
