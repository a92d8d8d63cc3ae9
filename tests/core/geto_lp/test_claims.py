"""geto_lp's rules on its stored results: each null fails there, and a doctored result where the null passes
withholds 'reproduced'."""

import copy
import json

import pytest

from core.common.claims import results_path
from core.common.claims import PARTLY, REPRODUCED
from core.geto_lp.claims import RULES


@pytest.fixture(scope="module")
def stored():
    return json.loads(results_path("geto_lp").read_text())


def _holds(judged, name):
    return {c["name"]: c["holds"] for c in judged.controls}[name]


def _entropic_runs(result):
    return [run for row in result["grids"].values() for key, run in row.items()
            if key.startswith(("convolutional", "sinkhorn")) and run.get("status") == "ok"]


def test_an_entropic_barycenter_as_exact_as_the_lp_would_fail_the_exact_claims_null(stored):
    assert RULES["exact"].evaluate(stored).status == REPRODUCED and _holds(RULES["exact"].evaluate(stored), "entropic")
    doctored = copy.deepcopy(stored)
    _entropic_runs(doctored)[0]["gap_to_exact"] = 1e-9
    judged = RULES["exact"].evaluate(doctored)
    assert judged.status == PARTLY and _holds(judged, "entropic") is False


def test_a_classical_count_growing_like_getos_fails_the_variable_counts_null(stored):
    doctored = copy.deepcopy(stored)
    for row in doctored["grids"].values():
        row["classical_variables"] = row["geto_lp"]["n_variables"]
    judged = RULES["variable_count"].evaluate(doctored)
    assert judged.status == PARTLY and _holds(judged, "classical") is False


def test_a_biased_exact_solver_fails_the_entropic_claims_null(stored):
    assert _holds(RULES["beats_entropic"].evaluate(stored), "exact_solver")
    doctored = copy.deepcopy(stored)
    for row in doctored["grids"].values():
        row["geto_lp"]["emd2_objective"] = row["geto_lp"]["objective"] * (1 + 1e-4)
    for row in doctored.get("dense", {}).values():
        row["rescoring_gap"] = 1e-4
    judged = RULES["beats_entropic"].evaluate(doctored)
    assert judged.status == PARTLY and _holds(judged, "exact_solver") is False


def test_on_a_line_geto_has_the_classical_variable_count_and_the_same_optimum():
    from bench.geto_lp import run_case

    geto = run_case({"method": "geto_lp", "n": 4, "score": True, "inputs": "line"})
    pot = run_case({"method": "pot_lp", "n": 4, "inputs": "line"})
    assert geto["n_variables"] == pot["n_variables"] == 3 * 16 * 16 + 16
    assert geto["emd2_objective"] == pytest.approx(pot["objective"], rel=1e-6)


def test_a_memory_saving_on_a_line_too_would_fail_the_memory_claims_null(stored):
    judged = RULES["memory_and_speed"].evaluate(stored | {"line_null": {"256": {
        "geto_lp": {"rss_rise_mb": 100.0}, "pot_lp": {"rss_rise_mb": 120.0}}}})
    assert _holds(judged, "one_dimensional") is True
    judged = RULES["memory_and_speed"].evaluate(stored | {"line_null": {"256": {
        "geto_lp": {"rss_rise_mb": 20.0}, "pot_lp": {"rss_rise_mb": 180.0}}}})
    assert _holds(judged, "one_dimensional") is False and judged.status == PARTLY
