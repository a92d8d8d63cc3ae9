"""Entry points that take numbers outside a Config validate them, naming the field, before any work."""

import numpy as np
import pytest

from core.quantum_ng import (Ansatz, SurrogateQNG, bias_variance_curve, hybrid_step, natural_step,
                             truncation_curve)


def test_steps_refuse_bad_step_sizes_and_leave_the_parameters_alone():
    params = np.array([1.0, 2.0])
    before = params.copy()
    with pytest.raises(ValueError, match=r"^stepsize: .*allowed"):
        hybrid_step(params, [0.1, 0.1], np.eye(2), [True, False], stepsize=-0.1, lam=0.0)
    with pytest.raises(ValueError, match=r"^lam: .*allowed"):
        hybrid_step(params, [0.1, 0.1], np.eye(2), [True, False], stepsize=0.1, lam=-1.0)
    with pytest.raises(ValueError, match=r"^gd_stepsize: .*allowed"):
        hybrid_step(params, [0.1, 0.1], np.eye(2), [True, False], stepsize=0.1, lam=0.0, gd_stepsize=-2.0)
    with pytest.raises(ValueError, match=r"^stepsize: .*allowed"):
        natural_step(params, [0.1, 0.1], np.eye(2), stepsize=0.0, lam=0.0)
    np.testing.assert_array_equal(params, before)
    # the control: valid values do move them
    assert not np.allclose(hybrid_step(params, [0.1, 0.1], np.eye(2), [True, False], 0.1, 0.0), before)


def test_surrogate_optimiser_refuses_a_bad_weight():
    with pytest.raises(ValueError, match=r"^k: .*allowed"):
        SurrogateQNG(0.05, k=0)
    assert SurrogateQNG(0.05, k=3).k == 3


def test_curves_refuse_bad_weights_and_shots():
    ansatz = Ansatz(3, 1)
    params = ansatz.random_params(0)
    with pytest.raises(ValueError, match=r"^ks: .*allowed"):
        truncation_curve(ansatz, params, [1, 4])
    with pytest.raises(ValueError, match=r"^ks: .*allowed"):
        bias_variance_curve(ansatz, params, [0], snapshots=10)
    with pytest.raises(ValueError, match=r"^snapshots: .*allowed"):
        bias_variance_curve(ansatz, params, [1], snapshots=1)
    with pytest.raises(ValueError, match=r"^delta: .*allowed"):
        bias_variance_curve(ansatz, params, [1], snapshots=10, delta=1.5)


def test_metrics_refuse_parameters_of_the_wrong_length():
    from core.quantum_ng import acquire_shadow, exact_metric

    ansatz = Ansatz(3, 1)
    with pytest.raises(ValueError, match=r"^params: shape \(5,\); allowed \(6,\)"):
        exact_metric(ansatz, np.zeros(5))
    with pytest.raises(ValueError, match=r"^params: "):
        acquire_shadow(ansatz, np.full(6, np.nan), 10)
    assert exact_metric(ansatz, np.zeros(6)).shape == (6, 6)
