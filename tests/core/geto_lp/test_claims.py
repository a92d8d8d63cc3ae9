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
