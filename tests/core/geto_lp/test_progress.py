"""Progress through build, solve and recovery; a stop at each stage returns what was done."""

import math

import numpy as np
import pytest

from core.common.progress import ProgressLog
from core.geto_lp import barycenter, digit_image


@pytest.fixture(scope="module")
def digits():
    return np.stack([digit_image(d, 16) for d in (0, 3, 8)])


def test_a_full_run_reports_every_stage_in_order(digits):
    log = ProgressLog()
    result = barycenter(digits, return_plans=True, progress=log)
    assert result.status == "optimal"
    assert log.metrics[0] == {"variables": result.n_variables}
    solver_steps = [m for m in log.metrics if "iteration" in m]
    assert len(solver_steps) >= 5  # one per interior-point iteration at least
    objectives = [m["primal_objective"] for m in solver_steps if "primal_objective" in m]
    gaps = [m["gap"] for m in solver_steps if "gap" in m]
    assert gaps[-1] < 1e-6 < gaps[0]  # the logged duality gap closes
    assert len(objectives) >= 5
    assert [m["plan"] for m in log.metrics if "plan" in m] == [1, 2, 3]
    assert log.metrics[-1]["objective"] == pytest.approx(result.objective)
    assert log.steps == list(range(1, len(log.steps))) + [log.totals[-1]]
    assert all(s <= t for s, t in zip(log.steps, log.totals))


def test_stop_after_the_build_skips_the_solve(digits):
    log = ProgressLog(stop_after=1)
    result = barycenter(digits, progress=log)
    assert len(log.steps) == 1                      # no call after the stop: HiGHS never started
    assert result.status == "stopped" and result.solve_seconds == 0.0
    assert np.isnan(result.barycenter).all() and math.isnan(result.objective) and result.plans is None


def test_stop_mid_solve_interrupts_highs(digits):
    full = ProgressLog()
    barycenter(digits, progress=full)
    log = ProgressLog(stop_after=4)
    result = barycenter(digits, progress=log)
    assert result.status == "stopped" and np.isnan(result.barycenter).all()
    assert len(log.steps) < len(full.steps) - 3  # it did stop early, not at the end


def test_stop_while_recovering_plans_keeps_the_barycenter(digits):
    done = barycenter(digits, return_plans=True)
    # Stop at the first recovered plan (counting steps would not do: heartbeats depend on the clock).
    result = barycenter(digits, return_plans=True, progress=lambda step, total, metrics: "plan" not in metrics)
    assert result.status == "stopped" and len(result.plans) == 1
    assert result.objective == pytest.approx(done.objective, rel=1e-9)
    assert np.allclose(result.barycenter, done.barycenter)
