"""The applications section of geto_lp's bench: cohorts, exact scoring against POT's LP, the Euclidean-average
null, the palette transfer, and the rule that judges them."""

import numpy as np
import pytest

from bench.geto_lp_applications import cohort_problem, run_cell
from core.common.claims import NOT_REPRODUCED, NOT_TESTED, PARTLY, REPRODUCED
from core.geto_lp.claims import RULES


@pytest.mark.parametrize("application, n", [("volumes", 6), ("palettes", 4)])
def test_a_cohort_is_three_seeded_inputs_of_mass_one_on_a_3d_grid(application, n):
    problem, scenes, seed = cohort_problem(application, n, 1)
    again, _, _ = cohort_problem(application, n, 1)
    other, _, _ = cohort_problem(application, n, 2)
    assert problem.histograms.shape == (3, n, n, n)
    np.testing.assert_allclose(problem.histograms.reshape(3, -1).sum(axis=1), 1.0)
    np.testing.assert_array_equal(problem.histograms, again.histograms)
    assert not np.allclose(problem.histograms, other.histograms)
    if application == "palettes":
        assert len(set(scenes)) == 3 and problem.spacing == pytest.approx(1 / n)
    else:
        assert scenes is None and problem.spacing == 1.0


def test_an_unknown_application_is_refused_by_name():
    with pytest.raises(ValueError, match="^application: 'scans'"):
        cohort_problem("scans", 6, 0)


@pytest.fixture(scope="module")
def cells():
    return [run_cell("volumes", 6, 0), run_cell("palettes", 4, 0)]


def test_the_tight_classical_lp_is_the_optimum_pots_lp_and_geto_reach():
    import ot

    from bench.geto_lp_applications import classical_lp_barycenter
    from core.geto_lp import exact_objective
    from core.geto_lp.grid import cost_matrix

    rng = np.random.default_rng(4)
    hist = rng.random((3, 3, 3, 2)) ** 3
    hist /= hist.reshape(3, -1).sum(axis=1)[:, None, None, None]
    C = cost_matrix(hist.shape[1:], "sqeuclidean", 1.0)
    b, objective, _ = classical_lp_barycenter(hist, C)
    assert b.shape == (18,) and b.sum() == pytest.approx(1.0, abs=1e-9)
    pot = ot.lp.barycenter(hist.reshape(3, -1).T, C)
    assert exact_objective(hist, b, C=C) == pytest.approx(objective, rel=1e-8)
    assert exact_objective(hist, b, C=C) <= exact_objective(hist, pot, C=C) * (1 + 1e-9)
    assert exact_objective(hist, pot, C=C) == pytest.approx(objective, rel=1e-6)


def test_geto_matches_the_optimum_and_the_euclidean_average_does_not(cells):
    for c in cells:
        assert c["pot_status"] == "ok"
        assert c["geto_optimum_gap"] <= 1e-6 and abs(c["pot_gap"]) <= 1e-4
        assert c["euclidean_objective"] > c["pot_objective"] * (1 + 1e-3)   # a real gap, not round-off
        assert c["sinkhorn_gap"] > 1e-6                                      # entropic: biased
        assert c["geto_variables"] < c["pot_variables"]


def test_the_transfer_moves_the_palette_towards_the_barycenter(cells):
    palettes = cells[1]
    assert palettes["transfer_w2_after"] < 0.5 * palettes["transfer_w2_before"]


def _result(cells):
    return {"applications": {"cells": cells}}


def _cell(application, geto_gap=1e-9, euclidean_gap=0.2, after=0.1):
    c = {"application": application, "geto_optimum_gap": geto_gap, "euclidean_gap": euclidean_gap,
         "sinkhorn_gap": 0.05, "pot_gap": 1e-6}
    if application == "palettes":
        c.update(transfer_w2_before=1.0, transfer_w2_after=after)
    return c


def test_the_rule_needs_both_applications_exact_the_transfer_and_the_null_failing(cells):
    rule = RULES["applications"]
    good = [_cell("volumes"), _cell("palettes")]
    assert rule.evaluate(_result(cells)).status == REPRODUCED
    assert rule.evaluate(_result(good)).status == REPRODUCED
    assert rule.evaluate(_result([_cell("volumes"), _cell("palettes", after=1.2)])).status == PARTLY
    null_passes = rule.evaluate(_result([_cell("volumes", euclidean_gap=1e-9), _cell("palettes")]))
    assert null_passes.status == PARTLY
    assert rule.evaluate(_result([_cell("volumes", geto_gap=1e-3), _cell("palettes")])).status == NOT_REPRODUCED
    assert rule.evaluate(_result([_cell("volumes")])).status == NOT_TESTED        # palettes not measured
    assert rule.evaluate({}).status == NOT_TESTED
