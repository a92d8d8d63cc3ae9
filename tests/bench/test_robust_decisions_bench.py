"""The paired comparison with RIC-h (claim beats_ric_h) and the untested comparison with Medina & Vassilvitskii's
bound, on cells whose log ratios and slopes are known in closed form."""

from types import SimpleNamespace

import numpy as np
import pytest

from bench.robust_decisions import VERSUS, versus_ric_h
from core.common.claims import NOT_REPRODUCED, NOT_TESTED, PARTLY, REPRODUCED
from core.robust_decisions.claims import RULES

LAWS = ("gaussian", "student_t", "three_point", "worst_case")


def _cell(rng, exponents, levels=10, replicates=5, jitter=0.05):
    """A pricing case whose policies' losses are c · eta^exponent with multiplicative noise."""
    eta = np.geomspace(0.001, 0.3, levels)[:, None] * np.exp(rng.normal(0, 0.01, (levels, replicates)))
    losses = {p: np.exp(np.log(eta) * e + rng.normal(0, jitter, eta.shape)) for p, e in exponents.items()}
    return SimpleNamespace(eta=eta, losses=losses)


def _bundle(exponents, seed=0, **kw):
    rng = np.random.default_rng(seed)
    return {f"posted_pricing/{law}": _cell(rng, exponents, **kw) for law in LAWS} | {
        "house_flipping/gaussian": SimpleNamespace()}    # other problems are skipped, never read


PAPER = {"robust_theory": 2 / 3, "ric_h": 0.2, "follow": 0.0, "robust": 0.0}   # the shipped run's shape


def _result(bundle):
    return {"versus_ric_h": versus_ric_h(bundle),
            "bounds": {f"posted_pricing/{law}": {"abstract": [0.06], "ric_clusters": [0.4]} for law in LAWS}}


def test_the_paired_ratios_and_slopes_follow_the_losses_exponents():
    bundle = _bundle(PAPER, jitter=0.0)
    versus = versus_ric_h(bundle)
    assert sorted(versus) == sorted(LAWS)
    for law, v in versus.items():
        eta = bundle[f"posted_pricing/{law}"].eta
        assert v["replicates"] == 5 and v["eta"] == pytest.approx(eta[0].mean())
        for policy in VERSUS:
            gap = PAPER[policy] - PAPER["ric_h"]
            np.testing.assert_allclose(v[policy]["smallest"], gap * np.log(eta[0]), rtol=1e-12)
            np.testing.assert_allclose(v[policy]["slopes"], [gap] * 5, rtol=1e-9)


def test_a_zero_loss_cell_is_left_out_not_logged():
    bundle = _bundle(PAPER)
    bundle["posted_pricing/gaussian"].losses["robust_theory"][0, 2] = 0.0
    v = versus_ric_h(bundle)["gaussian"]["robust_theory"]
    assert len(v["smallest"]) == 4 and np.all(np.isfinite(v["smallest"])) and len(v["slopes"]) == 5


def test_the_verdict_needs_a_lower_loss_a_faster_rate_and_both_nulls_failing():
    rule = RULES["beats_ric_h"]
    assert rule.evaluate(_result(_bundle(PAPER))).status == REPRODUCED
    # RIC-h as fast as the robust policy: lower loss only by a constant, no faster rate -> partly.
    same_rate = {**PAPER, "robust_theory": 0.2}
    cells = _bundle(same_rate)
    for case in cells.values():
        if hasattr(case, "losses"):
            case.losses["robust_theory"] = case.losses["robust_theory"] * 0.2
    assert rule.evaluate(_result(cells)).status == PARTLY
    # The robust policy loses to RIC-h: not reproduced.
    assert rule.evaluate(_result(_bundle({**PAPER, "robust_theory": 0.0}))).status == NOT_REPRODUCED
    # A null that also wins (following the prediction as good as the robust policy): reproduced is withheld.
    judged = rule.evaluate(_result(_bundle({**PAPER, "follow": 2 / 3})))
    assert judged.status == PARTLY
    assert {c["name"]: c["holds"] for c in judged.controls}["no_ball"] is False
    # Nothing stored: not tested.
    assert rule.evaluate({"bounds": {}}).status == NOT_TESTED


def test_the_comparison_with_their_bound_is_not_tested_because_it_is_unavailable():
    judged = RULES["improves_on_medina_vassilvitskii"].evaluate(_result(_bundle(PAPER)))
    assert judged.status == NOT_TESTED and judged.diagnosis["cause"] == "unavailable"
    assert "beats_ric_h" in judged.diagnosis["evidence"]


def test_the_closed_forms_match_the_grid_minimax_and_the_half_radius_ball_does_not():
    from bench.robust_decisions import closed_forms

    found = closed_forms(instances=8, grid=301, seed=3)
    assert sorted(found) == sorted(["posted_pricing", "ski_rental:earliest_buy", "ski_rental:never_buy",
                                    "house_flipping"])
    for case, v in found.items():
        assert v["max_difference_over_grid_tolerance"] <= 1.0, case
        assert v["half_radius_max_difference_over_grid_tolerance"] > 1.0, case
    judged = RULES["closed_form_policies"].evaluate({"closed_forms": found})
    assert judged.status == REPRODUCED
    assert {c["name"]: c["holds"] for c in judged.controls}["half_radius"] is True
