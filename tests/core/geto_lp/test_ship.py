"""The shipped first views against a fresh solve, the GETO-LP-only path without POT, and Stop in the baselines."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.common.progress import ProgressLog
from core.geto_lp import (
    KINDS,
    barycenter,
    compare_solvers,
    digit_image,
    problem_inputs,
    run_baselines,
)
from core.geto_lp.grid import parse_cost
from core.geto_lp.plans import plan_cost
from core.geto_lp.ship import DENSE_LIMIT, POT_LP_LIMIT, default_settings, load_view

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("kind", KINDS)
def test_a_shipped_view_is_what_a_fresh_solve_gives(kind):
    view = load_view(kind)
    s = default_settings(kind)
    problem = problem_inputs(kind, s["items"], s["size"], s["seed"])
    np.testing.assert_allclose(view.problem.histograms, problem.histograms, atol=1e-12)
    assert view.problem.labels == problem.labels and view.problem.spacing == problem.spacing
    fresh = barycenter(problem.histograms, s["weights"], s["cost"], problem.spacing, s["solver"], return_plans=True)
    shipped = view.comparison.result
    assert shipped.status == "optimal" and shipped.n_variables == fresh.n_variables
    assert shipped.objective == pytest.approx(fresh.objective, rel=1e-9)
    np.testing.assert_allclose(shipped.barycenter.sum(), 1.0, atol=1e-12)
    costs = [plan_cost(p, shipped.barycenter.shape, parse_cost(s["cost"]), shipped.spacing) for p in shipped.plans]
    assert float(np.dot(shipped.weights, costs)) == pytest.approx(shipped.objective, rel=1e-6)
    assert [r.method for r in view.comparison.runs] == ["geto_lp", "pot_lp", "sinkhorn", "convolutional"]
    assert view.matches(kind, s["items"], s["size"], s["seed"], s["weights"], s["cost"], s["solver"], s["reg"])


def test_the_shipped_baselines_are_what_pot_gives_now():
    view = load_view("digits")
    s = default_settings("digits")
    hist = view.problem.histograms
    redo = run_baselines(hist, view.comparison.runs[0].objective, s["weights"], s["cost"], view.problem.spacing,
                         s["reg"], solver=s["solver"], pot_max_variables=POT_LP_LIMIT, dense_max_points=DENSE_LIMIT)
    shipped = view.comparison.by_method
    for run in redo.runs:
        assert run.status == shipped[run.method].status == "ok"
        assert run.objective == pytest.approx(shipped[run.method].objective, rel=1e-6)
        assert run.gap_to_exact == pytest.approx(shipped[run.method].gap_to_exact, abs=1e-6)
    np.testing.assert_allclose(redo.runs[1].barycenter, shipped["sinkhorn"].barycenter, atol=1e-8)


def test_matching_counts_the_seed_only_where_the_inputs_use_it():
    digits, palettes = load_view("digits"), load_view("palettes")
    d, p = default_settings("digits"), default_settings("palettes")
    assert digits.matches(**{**d, "seed": 7})
    assert not palettes.matches(**{**p, "seed": 7})
    assert not digits.matches(**{**d, "weights": np.array([0.6, 0.4])})
    assert not digits.matches(**{**d, "size": 14}) and not digits.matches(**{**d, "items": (0, 4)})
    assert load_view("digits", ROOT / "no-such-folder") is None


def loaded_after(code: str) -> list:
    probe = (f"import sys; {code}; import json; "
             "print(json.dumps(sorted(m for m in ('ot', 'torch', 'highspy', 'pyvista', 'sklearn') if m in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_first_view_and_a_geto_only_solve_never_load_pot():
    assert loaded_after("from core.geto_lp.ship import load_view; load_view('digits')") == []
    solved = loaded_after("import numpy as np; from core.geto_lp import compare_solvers, shape_image; "
                          "c = compare_solvers(np.stack([shape_image('disk', 8), shape_image('ring', 8)]), "
                          "methods=('geto_lp',), rescore_exact=False); assert c.result.status == 'optimal'")
    assert "ot" not in solved and "torch" not in solved and "highspy" in solved


@pytest.fixture(scope="module")
def small():
    hist = np.stack([digit_image(d, 8) for d in (0, 3)])
    return hist, barycenter(hist).objective


def test_the_baselines_stop_between_methods_and_say_so(small):
    hist, optimum = small
    log = ProgressLog(stop_after=1)                # right after importing POT: nothing runs
    out = run_baselines(hist, optimum, progress=log)
    assert out.stopped and out.runs == [] and log.steps == [1]
    log = ProgressLog(stop_after=2)                # after the first method
    out = run_baselines(hist, optimum, progress=log)
    assert out.stopped and [r.method for r in out.runs] == ["pot_lp"] and log.steps == [1, 2]
    log = ProgressLog()
    full = run_baselines(hist, optimum, progress=log, step=5, total=3)
    assert not full.stopped and [r.method for r in full.runs] == ["pot_lp", "sinkhorn", "convolutional"]
    assert log.steps == [6, 7, 8, 9] and log.totals == [9] * 4
    assert abs(full.runs[0].gap_to_exact) < 1e-6 < min(r.gap_to_exact for r in full.runs[1:])


def test_a_stop_on_geto_lps_last_step_runs_no_baseline(small):
    hist, _ = small
    calls = []

    def stop_at_the_end(step, total, metrics):
        calls.append(metrics)
        return "objective" not in metrics          # GETO-LP's last step: everything after it is skipped

    comparison = compare_solvers(hist, progress=stop_at_the_end)
    assert [r.method for r in comparison.runs] == ["geto_lp"] and "objective" in calls[-1]


def test_highs_makes_no_progress_call_after_a_stop(monkeypatch):
    from core.geto_lp import solve

    monkeypatch.setattr(solve, "HEARTBEAT_S", 0.0)     # every interrupt callback would send a heartbeat
    hist = np.stack([digit_image(d, 16) for d in (0, 3, 8)])
    calls = []

    def stop_on_the_first_iteration_line(step, total, metrics):
        calls.append(metrics)
        return "gap" not in metrics

    result = barycenter(hist, solver="highs-ipm", progress=stop_on_the_first_iteration_line)
    assert result.status == "stopped" and "gap" in calls[-1]   # nothing after the call that said stop


def test_only_large_interior_point_solves_skip_the_uninterruptible_presolve():
    from core.geto_lp.grid import count_variables
    from core.geto_lp.solve import PRESOLVE_MAX_COLUMNS, _options

    largest = count_variables(4, (48, 48))                  # the page's largest grid
    assert _options("highs-ipm", largest)["presolve"] == "off"
    assert _options("highs-ipm", count_variables(3, (24, 24)))["presolve"] == "choose"
    assert count_variables(3, (24, 24)) < PRESOLVE_MAX_COLUMNS < count_variables(3, (40, 40))
    assert "presolve" not in _options("highs-ds", largest)
