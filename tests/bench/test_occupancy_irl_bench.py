"""bench/occupancy_irl.py's mirror part and the relative, paired rule that judges approximate_mirror_descent."""

import copy
import json
import math

import numpy as np

import bench.occupancy_irl as bench
from core.common.claims import NOT_REPRODUCED, PARTLY, REPRODUCED, results_path
from core.occupancy_irl.claims import RULES

STORED = json.loads(results_path("occupancy_irl").read_text())


def _mirror(result):
    return RULES["approximate_mirror_descent"].evaluate(result)


def test_the_registered_mdps_are_fresh_and_every_row_keeps_its_per_mdp_values():
    assert not set(bench.MIRROR_MDPS) & set(bench.MIRROR_CONFIRM_MDPS) and len(bench.MIRROR_CONFIRM_MDPS) >= 20
    for section, mdps in (("mirror", bench.MIRROR_MDPS), ("mirror_confirm", bench.MIRROR_CONFIRM_MDPS)):
        m = STORED[section]
        assert m["mdps"] == list(mdps) and m["n_mdps"] == len(mdps)
        for field in ("interp_first", "interp_median_ratio", "dual_ratio", "random_target_ratio"):
            values = m[field]["values"]
            assert len(values) == len(mdps) and all(v > 0 for v in values)
            assert m[field]["median"] == np.median(values)            # the summary is of the stored values


def test_the_verdict_is_paired_by_mdp_against_the_control_and_its_random_target_null():
    assert {v["claim_id"]: v["status"] for v in STORED["verdicts"]}["approximate_mirror_descent"] == _mirror(STORED).status
    doctored = copy.deepcopy(STORED)
    m = doctored["mirror_confirm"]
    ten = [0.1 * d * (1 + 0.05 * (k % 3)) for k, d in enumerate(m["dual_ratio"]["values"])]   # only 10x closer
    m["interp_median_ratio"]["values"] = ten
    assert _mirror(doctored).status != REPRODUCED                 # the interval straddles -1: not an order closer
    m["interp_median_ratio"]["values"] = [(0.5 + 0.1 * (k % 4)) * d                      # as close as the control
                                          for k, d in enumerate(m["dual_ratio"]["values"])]
    assert _mirror(doctored).status == NOT_REPRODUCED
    leak = copy.deepcopy(STORED)                                   # a null that passes caps it at partly
    leak["mirror_confirm"]["random_target_ratio"]["values"] = [
        1e-3 * d * (1 + 0.1 * (k % 2)) for k, d in enumerate(leak["mirror_confirm"]["dual_ratio"]["values"])]
    assert _mirror(leak).status == PARTLY
    older = {k: v for k, v in copy.deepcopy(STORED).items() if k != "mirror_confirm"}
    assert _mirror(older).status == "not tested"                 # the registered MDPs decide; without them nothing


def test_the_detail_quotes_the_paired_interval_as_stored():
    from bench.report import interval_text

    m = STORED["mirror_confirm"]
    quoted = interval_text([math.log10(a / b) for a, b in zip(m["interp_median_ratio"]["values"],
                                                              m["dual_ratio"]["values"])])
    (v,) = [v for v in STORED["verdicts"] if v["claim_id"] == "approximate_mirror_descent"]
    assert quoted in v["figure"] and quoted in v["detail"]


def _faster(result):
    return RULES["faster_convergence"].evaluate(result)


def test_the_linear_class_section_holds_the_registered_cases_and_log_pi_e_is_outside_the_class():
    assert set(STORED["features"]) == set(bench.FEATURE_CASES)
    for name, kw in bench.FEATURE_CASES.items():
        c = STORED["features"][name]
        assert len(c["rows"]) == kw["n_mdps"] and c["d"] == kw["d"] and c["d"] + c["n_states"] < c["n_states"] * c["n_actions"]
        assert all(x["residual"] > 0.05 for x in c["rows"])


def test_the_faster_verdict_counts_wins_with_an_exact_interval_and_reads_its_null():
    (shipped,) = [v for v in STORED["verdicts"] if v["claim_id"] == "faster_convergence"]
    assert shipped["status"] == _faster(STORED).status
    good = copy.deepcopy(STORED)
    for c in good["features"].values():
        for i, x in enumerate(c["rows"]):
            x["iters_natural"]["0.5"], x["iters_gradient_best"], x["control_iters"] = 20.0, 60.0 + i, math.inf
            for eta in ("0.3", "0.5", "0.8"):
                x["rate_natural"][eta] = 1 - float(eta) + 0.001 * (i % 5 - 2)
    assert _faster(good).status == REPRODUCED
    leak = copy.deepcopy(good)        # the control reaches this expert too: the test cannot tell targets apart
    for x in leak["features"]["features S=8 A=3"]["rows"]:
        x["control_iters"] = 10.0
    assert _faster(leak).status == PARTLY
    slow_rate = copy.deepcopy(good)   # converges, wins, but not at 1 - eta
    for x in slow_rate["features"]["features S=8 A=3"]["rows"]:
        x["rate_natural"]["0.8"] = 0.5
    assert _faster(slow_rate).status == PARTLY
    close = copy.deepcopy(good)       # 27 of 50 wins: the interval reaches below one half
    for i, x in enumerate(close["features"]["features S=8 A=3"]["rows"]):
        x["iters_natural"]["0.5"] = 20.0 if i < 27 else 1000.0
    assert _faster(close).status == NOT_REPRODUCED
