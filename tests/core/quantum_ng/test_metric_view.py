"""The page's metric view: the shipped one is what the code computes, and a Stop skips what follows."""

import numpy as np
import pytest

import core.quantum_ng.view as mv
import core.quantum_ng.shadows as shadows
from core.common.progress import ProgressLog
from core.quantum_ng import (Ansatz, MetricViewConfig, acquire_shadow, exact_metric, metric_from_generators,
                             metric_view, propagate_generators, truncation_curve)
from core.quantum_ng.metric import apply_terms
from core.quantum_ng.simulate import final_state, generator_states
from core.quantum_ng.steps import Steps

SMALL = MetricViewConfig(n_qubits=4, layers=1, k=2, snapshots=200)


@pytest.fixture(scope="module")
def small_view():
    log = ProgressLog()
    return metric_view(SMALL, seed=5, progress=log), log


def test_shipped_view_is_what_the_code_computes():
    from core.quantum_ng.ship import SEED, SHIPPED, SHIPPED_VIEW, shipped_run, shipped_view

    shipped = shipped_view()
    assert shipped.config == SHIPPED_VIEW == MetricViewConfig.from_vqe(SHIPPED) and shipped.seed == SEED
    assert not shipped.stopped and shipped.shadow_skipped is None
    # it describes the shipped run's starting point
    np.testing.assert_array_equal(shipped.params, shipped_run().initial_params)
    fresh = metric_view(SHIPPED_VIEW, seed=SEED)
    for name in ("params", "retained", "surrogate", "shadow", "exact"):
        np.testing.assert_allclose(getattr(shipped, name), getattr(fresh, name), rtol=1e-9, atol=1e-12, err_msg=name)
    np.testing.assert_array_equal(shipped.nonzero, fresh.nonzero)
    assert shipped.strings == fresh.strings
    for key, values in fresh.curve.items():
        np.testing.assert_allclose(shipped.curve[key], values, rtol=1e-9, atol=1e-12, err_msg=key)
    assert list(shipped.curve["k"]) == list(range(1, 7))
    for key, values in fresh.tradeoff.items():
        np.testing.assert_allclose(shipped.tradeoff[key], values, rtol=1e-9, atol=1e-12, err_msg=key)
    assert shipped.best_k == fresh.best_k and list(shipped.tradeoff["k"]) == list(range(1, 7))
    # the trade-off is the curve's squared error plus the one-shadow variance, and it has an interior best k
    np.testing.assert_allclose(shipped.tradeoff["bias2"], shipped.curve["error_masked"] ** 2)
    np.testing.assert_allclose(shipped.tradeoff["mse"], shipped.tradeoff["bias2"] + shipped.tradeoff["variance"])
    assert 1 < shipped.best_k < 6 and shipped.config.entangler == "brickwork"


def test_view_matches_the_functions_it_chains(small_view):
    view, log = small_view
    ansatz = SMALL.ansatz()
    np.testing.assert_array_equal(view.params, ansatz.random_params(5))
    np.testing.assert_allclose(view.exact, exact_metric(ansatz, view.params), atol=1e-12)
    gens = propagate_generators(ansatz, view.params, SMALL.k)
    np.testing.assert_allclose(view.surrogate, metric_from_generators(gens, final_state(ansatz, view.params)),
                               atol=1e-12)
    for threshold in (0.0, 0.25, 0.5, 0.75):
        np.testing.assert_array_equal(view.active_set(threshold), gens.active(threshold))
    curve = truncation_curve(ansatz, view.params, range(1, 5), view.exact)
    np.testing.assert_allclose(view.curve["error_masked"], curve.error_masked, atol=1e-12)
    assert curve.error_unmasked[-1] == pytest.approx(0.0, abs=1e-9)   # k = n is exact
    # one count over every piece: consecutive steps, the plan met exactly at the end
    assert log.steps == list(range(1, len(log.steps) + 1)) and log.totals[-1] == log.steps[-1]
    assert log.totals[0] == mv.planned_steps(SMALL) and not view.stopped
    reported = [m["relative error (masked)"] for m in log.metrics if "relative error (masked)" in m]
    np.testing.assert_allclose(reported, view.curve["error_masked"])   # each point's step carries its error


GATES = len(SMALL.ansatz().gates)   # then one chunk of strings, one batch of snapshots, the estimate, 8 states


@pytest.mark.parametrize("stop_after, reached", [(1, ()), (GATES, ()), (GATES + 1, ("retained",)),
                                                 (GATES + 2, ("retained", "surrogate")),
                                                 (GATES + 3, ("retained", "surrogate", "shadow")),
                                                 (GATES + 11, ("retained", "surrogate", "shadow")),
                                                 (GATES + 12, ("retained", "surrogate", "shadow", "exact")),
                                                 (40, ("retained", "surrogate", "shadow", "exact"))])
def test_a_stop_skips_everything_after_it(small_view, stop_after, reached):
    full, _ = small_view
    log = ProgressLog(stop_after=stop_after)
    view = metric_view(SMALL, seed=5, progress=log)
    assert view.stopped and len(log.steps) == stop_after      # not one call after the stop
    for name in ("retained", "surrogate", "shadow", "exact"):
        assert (getattr(view, name) is not None) == (name in reached), name
    for name in reached:
        np.testing.assert_allclose(getattr(view, name), getattr(full, name), atol=1e-12)
    assert len(view.curve["k"]) < len(full.curve["k"])


def test_the_shadow_estimate_is_skipped_past_the_pair_limit(monkeypatch, small_view):
    full, _ = small_view
    ansatz = SMALL.ansatz()
    gens = propagate_generators(ansatz, full.params, SMALL.k)
    # the count the guard uses, against the pairs product_expansion actually forms (commuting or not)
    seg, overlap = gens.segments(), gens.overlap_mask()
    pairs = sum((seg[i + 1] - seg[i]) * (seg[j + 1] - seg[j]) for i in range(gens.n_params)
                for j in range(i, gens.n_params) if overlap[i, j])
    assert mv.product_pairs(gens, mask=True) == pairs > 0
    monkeypatch.setattr(mv, "MAX_PRODUCT_PAIRS", pairs - 1)
    log = ProgressLog()
    view = metric_view(SMALL, seed=5, progress=log)
    assert view.shadow is None and f"{pairs:,} pairs" in view.shadow_skipped and not view.stopped
    np.testing.assert_allclose(view.exact, full.exact, atol=1e-12)
    assert len(view.curve["k"]) == 4
    assert log.steps == list(range(1, len(log.steps) + 1)) and log.totals[-1] == log.steps[-1]


def test_inner_long_calls_stop_and_return_what_they_did(monkeypatch):
    ansatz = Ansatz(4, 2)
    params = ansatz.random_params(1)
    log = ProgressLog(stop_after=3)
    assert propagate_generators(ansatz, params, 2, progress=log) is None and log.steps == [1, 2, 3]
    assert log.metrics[0] == {"Pauli strings": 1}
    full = generator_states(ansatz, params)
    part = generator_states(ansatz, params, progress=ProgressLog(stop_after=5))
    assert part.shape == (5, 16)
    np.testing.assert_allclose(part, full[:5])
    gens = propagate_generators(ansatz, params, 2)
    assert apply_terms(gens.terms, final_state(ansatz, params), gens.n_params, ProgressLog(stop_after=1)) is None
    monkeypatch.setattr(shadows, "SNAPSHOT_ELEMENTS", 1 << 6)   # 4 snapshots a batch at 4 qubits
    assert shadows.shadow_chunks(4, 30) == 8
    log = ProgressLog(stop_after=2)
    shadow = acquire_shadow(ansatz, params, 30, seed=3, progress=log)
    assert shadow.snapshots == 8 and log.steps == [1, 2] and log.totals == [8, 8]
    curve = truncation_curve(ansatz, params, [1, 2, 3], progress=ProgressLog(stop_after=len(ansatz.gates) + 2))
    whole = truncation_curve(ansatz, params, [1, 2, 3])
    assert list(curve.k) == [1]
    assert curve.error_masked[0] == whole.error_masked[0]


def test_steps_share_one_count_and_grow():
    log = ProgressLog(stop_after=3)
    steps = Steps(log, 2)
    assert Steps.within(steps, 99) is steps and Steps.within(log, 5).total == 5
    assert steps(7, 10, {"a": 1.0}) and steps()          # inner step numbers are ignored
    steps.grow(3)
    assert not steps() and steps.stopped
    assert log.steps == [1, 2, 3] and log.totals == [2, 2, 5] and log.metrics[0] == {"a": 1.0}


def test_config_validates_and_follows_a_run():
    with pytest.raises(ValueError, match=r"^k: 5 exceeds the 4 qubits; allowed integers in \[1, 4\]"):
        MetricViewConfig(n_qubits=4, k=5)
    from core.quantum_ng import VQEConfig

    assert MetricViewConfig.from_vqe(VQEConfig(n_qubits=12, k=3)).curve_ks == list(range(1, 9))
    assert MetricViewConfig.from_vqe(VQEConfig(n_qubits=14, k=3)).curve_ks == [1, 2, 3, 4]
