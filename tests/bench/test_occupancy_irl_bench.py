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
