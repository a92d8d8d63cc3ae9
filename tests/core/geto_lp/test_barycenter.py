"""GETO-LP against POT's classical LP, ot.emd2 and closed forms."""

import math

import numpy as np
import ot
import pytest

from core.geto_lp import barycenter, cost_matrix, count_variables, flow_paths, parse_cost, plan_cost

CASES = [  # (grid, M, cost, spacing)
    ((5, 5), 3, "sqeuclidean", 1.0),
    ((6, 4), 3, "l1", 0.5),
    ((7, 6), 2, "sqeuclidean", 0.25),
    ((4, 4, 3), 2, "sqeuclidean", 1.0),
    ((3, 4, 3), 3, "l1", 2.0),
    ((4, 3, 3), 3, "sqeuclidean", (1.0, 0.5, 2.0)),
    ((5, 6), 2, "lp:1.5", 1.0),
    ((9,), 4, "sqeuclidean", 1.0),
]


def instance(shape, m, seed):
    rng = np.random.default_rng(seed)
    # Sparse-ish supports make the barycenter non-trivial (no input dominates the others).
    hist = rng.random((m, *shape)) * (rng.random((m, *shape)) < 0.6)
    weights = rng.dirichlet(np.ones(m) * 3)
    return hist, weights


def pot_reference(hist, weights, cost, spacing):
    shape = hist.shape[1:]
    flat = hist.reshape(hist.shape[0], -1)
    A = np.ascontiguousarray((flat / flat.sum(axis=1, keepdims=True)).T)
    C = cost_matrix(shape, cost, spacing)
    _, log = ot.lp.barycenter(A, C, weights, log=True)
    return float(log.fun), A, C


@pytest.mark.parametrize("shape, m, cost, spacing", CASES)
def test_objective_equals_pot_and_plans_are_optimal(shape, m, cost, spacing):
    hist, weights = instance(shape, m, seed=sum(shape) + m)
    result = barycenter(hist, weights, cost=cost, spacing=spacing, return_plans=True)
    reference, A, C = pot_reference(hist, weights, cost, spacing)
    assert result.status == "optimal"
    assert result.objective == pytest.approx(reference, rel=1e-6)

    n = math.prod(shape)
    assert result.n_variables == m * n * sum(shape) + n
    assert result.n_constraints == m * (len(shape) + 1) * n - (m - 1)
    b = result.barycenter.reshape(-1)
    assert result.barycenter.shape == shape and b.min() >= 0 and b.sum() == pytest.approx(1.0, abs=1e-12)

    costs = []
    for k, plan in enumerate(result.plans):
        assert plan.shape == (n, n)
        assert np.asarray(plan.sum(axis=1)).ravel() == pytest.approx(A[:, k], abs=1e-9)
        assert np.asarray(plan.sum(axis=0)).ravel() == pytest.approx(b, abs=1e-9)
        dense_cost = float((plan.toarray() * C).sum())
        assert plan_cost(plan, shape, parse_cost(cost), np.broadcast_to(spacing, len(shape))) == pytest.approx(
            dense_cost, rel=1e-12, abs=1e-15)
        assert dense_cost == pytest.approx(ot.emd2(np.ascontiguousarray(A[:, k]), b, C), rel=1e-6, abs=1e-12)
        costs.append(dense_cost)
    assert float(np.dot(weights, costs)) == pytest.approx(result.objective, rel=1e-7)


@pytest.mark.parametrize("cost, seed", [("sqeuclidean", 16), ("lp:0.5", 17)])
def test_dense_random_16x16_equals_pot_classical_lp(cost, seed):
    """Three dense random images at 16 x 16 (POT's LP has 196,864 variables): same optimum to 1e-6.

    ``lp:0.5`` is a concave ground cost, where transport splits mass rather than shifting it: the
    layered LP is exact for any separable cost, convex or not.
    """
    rng = np.random.default_rng(seed)
    hist = rng.random((3, 16, 16)) + 1e-3
    weights = np.array([0.5, 0.3, 0.2])
    result = barycenter(hist, weights, cost=cost)
    reference, _, _ = pot_reference(hist, weights, cost, 1.0)
    assert result.status == "optimal"
    assert result.objective == pytest.approx(reference, rel=1e-6)
    plain = barycenter(hist, weights, cost="l1" if cost == "lp:0.5" else "lp:1.5")   # control: another cost
    assert abs(plain.objective - reference) > 1e-3 * reference


@pytest.mark.parametrize("solver", ["highs-ds", "highs"])
def test_every_solver_reaches_the_same_optimum(solver):
    hist, weights = instance((6, 5), 3, seed=11)
    ipm = barycenter(hist, weights)
    other = barycenter(hist, weights, solver=solver)
    assert other.objective == pytest.approx(ipm.objective, rel=1e-7)
    assert other.solver == solver and other.iterations > 0


def test_translated_block_meets_the_mean_bound_and_lands_halfway():
    # W2^2(a, b) >= |mean(a) - mean(b)|^2, so for two copies of a block 4 cells apart the barycenter
    # objective is at least 1/4 * 4^2 = 4; the block moved 2 cells attains it.
    a = np.zeros((12, 10))
    a[2:5, 1:4] = 1.0
    b = np.roll(a, 4, axis=0)
    result = barycenter(np.stack([a, b]), return_plans=True)
    assert result.objective == pytest.approx(4.0, rel=1e-9)
    rows = np.arange(12)[:, None]
    mean_row = float((result.barycenter * rows).sum())
    assert mean_row == pytest.approx(3.0 + 2.0, abs=1e-9)  # block centre at row 3, moved halfway
    assert np.allclose(result.barycenter, np.roll(a, 2, axis=0) / a.sum(), atol=1e-8)


def test_weights_at_a_vertex_return_that_input():
    hist, _ = instance((5, 4), 3, seed=3)
    result = barycenter(hist, [0.0, 1.0, 0.0], cost="l1")
    assert result.objective == pytest.approx(0.0, abs=1e-10)
    assert result.barycenter == pytest.approx(hist[1] / hist[1].sum(), abs=1e-9)


def test_spacing_scales_the_objective_by_its_power():
    hist, weights = instance((5, 5), 2, seed=5)
    unit = barycenter(hist, weights).objective
    assert barycenter(hist, weights, spacing=0.1).objective == pytest.approx(unit * 0.01, rel=1e-7)
    unit_l1 = barycenter(hist, weights, cost="l1").objective
    assert barycenter(hist, weights, cost="l1", spacing=3.0).objective == pytest.approx(unit_l1 * 3, rel=1e-7)


def test_same_input_gives_the_same_result():
    hist, weights = instance((6, 6), 3, seed=8)
    first, second = barycenter(hist, weights), barycenter(hist, weights)
    assert np.array_equal(first.barycenter, second.barycenter) and first.objective == second.objective


def test_far_fewer_variables_than_the_classical_lp():
    for n in (16, 32, 64):
        m, big_n = 3, n * n
        geto = count_variables(m, (n, n))
        assert geto == m * 2 * big_n ** 1.5 + big_n
        assert (m * big_n**2 + big_n) / geto > n / 2.2  # O(N^2) against O(d N^{3/2})


def test_flow_paths_change_one_axis_per_stage_and_cost_what_the_plan_says():
    hist, weights = instance((5, 4, 3), 2, seed=2)
    result = barycenter(hist, weights, return_plans=True)
    plan = result.plans[0]
    found = flow_paths(plan, (5, 4, 3), top=plan.nnz)
    paths, masses = found.paths, found.masses
    assert masses.sum() == pytest.approx(1.0, abs=1e-9) and np.all(np.diff(masses) <= 0)
    steps = np.diff(paths, axis=1)  # (flows, d, d): stage k moves along axis k only
    off_axis = steps * (1 - np.eye(3))[None]
    assert not off_axis.any()
    length = (np.abs(steps).sum(axis=2) ** 2).sum(axis=1)  # per-axis squared moves: the sqeuclidean cost
    assert float(masses @ length) == pytest.approx(plan_cost(plan, (5, 4, 3), parse_cost("sqeuclidean"), (1.0,) * 3))


def test_results_export_to_json_and_a_table():
    import dataclasses
    import json

    from core.common.results import result_to_json

    hist, weights = instance((4, 5), 2, seed=9)
    result = barycenter(hist, weights, return_plans=True)
    data = json.loads(result_to_json(dataclasses.replace(result, plans=None)))
    assert np.allclose(data["barycenter"], result.barycenter) and data["n_variables"] == result.n_variables
    frame = result.to_frame()
    assert list(frame.columns) == ["i1", "i2", "mass"] and len(frame) == 20
    assert frame["mass"].sum() == pytest.approx(1.0)
    assert frame.loc[(frame.i1 == 2) & (frame.i2 == 3), "mass"].item() == result.barycenter[2, 3]
