"""solve_lp scales the LP before HiGHS: tiny masses and large costs still give the exact optimum."""

import numpy as np
import ot
import pytest
import scipy.sparse as sp

from core.geto_lp import solve_lp


def transport_lp(a, b, C):
    """The classical transport LP in equality form (the last column constraint is redundant)."""
    n, m = C.shape
    rows = sp.vstack([sp.kron(sp.eye(n), np.ones((1, m))), sp.csr_matrix(sp.kron(np.ones((1, n)), sp.eye(m)))[:-1]])
    return C.ravel(), sp.csc_matrix(rows), np.concatenate([a, b[:-1]])


@pytest.mark.parametrize("mass, cost", [(1.0, 1.0), (1e-8, 1.0), (1.0, 1e5), (1e-8, 1e5)])
def test_tiny_masses_and_large_costs_keep_the_optimum(mass, cost):
    rng = np.random.default_rng(3)
    a, b = rng.dirichlet(np.ones(30)), rng.dirichlet(np.ones(25))
    C = rng.random((30, 25)) ** 2
    reference = ot.emd2(a, b, C)
    c, A, rhs = transport_lp(a, b, C)
    sol = solve_lp(cost * c, A, mass * rhs, solver="highs-ipm")
    assert sol.status == "optimal"
    assert float(cost * c @ sol.x) == pytest.approx(mass * cost * reference, rel=1e-9)
    assert np.abs(A @ sol.x - mass * rhs).max() <= 1e-9 * mass            # feasible in the caller's units


def test_progress_reports_objectives_in_the_callers_units():
    rng = np.random.default_rng(4)
    a, b = rng.dirichlet(np.ones(40)), rng.dirichlet(np.ones(40))
    C = 100 * rng.random((40, 40))
    c, A, rhs = transport_lp(a, b, C)
    seen = []
    sol = solve_lp(c, A, 1e-3 * rhs, solver="highs-ipm",
                   progress=lambda step, total, metrics: seen.append(metrics) or True)
    objective = float(c @ sol.x)
    last = [m["primal_objective"] for m in seen if "primal_objective" in m][-1]
    assert last == pytest.approx(objective, rel=1e-4)        # the last interior-point iterate, before crossover
