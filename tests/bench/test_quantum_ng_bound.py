"""bench/quantum_ng_bound.py and the concentration_bound rule: failures counted against delta with a binomial
interval, at every setting, and a null (the misspecified exact target) that fails where its bias exceeds the radius."""

import copy
import json

import numpy as np
import pytest

from bench.quantum_ng_bound import BOUND_KS, BOUND_SHOTS, bound_setting
from core.common.claims import NOT_REPRODUCED, PARTLY, REPRODUCED, results_path
from core.common.decisions import Binomial
from core.quantum_ng.ansatz import Ansatz
from core.quantum_ng.claims import BOUND_DELTA, RULES
from core.quantum_ng.metric import exact_metric

STORED = json.loads(results_path("quantum_ng").read_text())


def _bound(result):
    return RULES["concentration_bound"].evaluate(result)


def test_the_bound_holds_at_its_confidence_on_a_small_circuit_and_fails_against_a_far_target():
    ansatz = Ansatz(3, 1, ("RY", "RZ"), "brickwork")
    params = ansatz.random_params(3)
    exact = exact_metric(ansatz, params)
    x = bound_setting(ansatz, params, exact, k=1, snapshots=40, seeds=range(120), delta=0.1)
    assert Binomial(0.1, "below").decide((x["failures"], x["seeds"])).passed
    assert x["share_within"] == 1 - x["failures"] / 120 and x["looseness"] > 1
    far = bound_setting(ansatz, params, exact + 10 * x["radius"] * np.eye(len(exact)) / np.sqrt(len(exact)), k=1,
                        snapshots=40, seeds=range(20), delta=0.1)
    assert far["failures_against_exact"] == 20 and far["bias"] > far["radius"]
    assert far["radius"] == x["radius"]   # the radius depends on the generators, T and delta, not on the target


def test_the_grid_covers_every_setting_and_its_bias_is_the_tradeoffs():
    grid = STORED["bound_grid"]
    assert sorted(grid) == sorted(f"k{k} T{t}" for k in BOUND_KS for t in BOUND_SHOTS)
    norm2 = grid["k1 T500"]["metric_norm"] ** 2
    for x in grid.values():
        assert x["delta"] == BOUND_DELTA and x["seeds"] == STORED["bound"]["seeds"]
        # the same point, ansatz and mask as the tradeoff section: its bias² (relative) is ours squared
        assert x["bias"] ** 2 / norm2 == pytest.approx(STORED["tradeoff"]["8"]["bias2"][x["k"] - 1], rel=1e-9)
    for k in BOUND_KS:   # the radius falls as the shadow grows
        radii = [grid[f"k{k} T{t}"]["radius"] for t in BOUND_SHOTS]
        assert radii == sorted(radii, reverse=True)


def test_the_verdict_reads_failures_with_binomial_intervals_and_its_null():
    (shipped,) = [v for v in STORED["verdicts"] if v["claim_id"] == "concentration_bound"]
    assert shipped["status"] == _bound(STORED).status
    doctored = copy.deepcopy(STORED)
    settings = [doctored["bound"], *doctored["bound_grid"].values()]
    for x in settings:
        x["failures"] = 1
        x["radius"], x["bias"] = 1.0, 2.0 if x is not doctored["bound"] else 0.5
        x["failures_against_exact"] = x["seeds"] if x["bias"] > x["radius"] else 0
    assert _bound(doctored).status == REPRODUCED
    blind = copy.deepcopy(doctored)    # the test cannot fail: even the far target "holds"
    for x in blind["bound_grid"].values():
        x["failures_against_exact"] = 0
    assert _bound(blind).status == PARTLY
    near = copy.deepcopy(doctored)     # no setting puts the exact metric beyond the radius: the null is not measured
    for x in near["bound_grid"].values():
        x["bias"] = 0.5
    assert _bound(near).status == PARTLY
    one = copy.deepcopy(doctored)      # one setting fails more often than delta allows
    next(iter(one["bound_grid"].values()))["failures"] = 40
    assert _bound(one).status == PARTLY
    broken = copy.deepcopy(doctored)   # the registered setting itself fails: not reproduced
    broken["bound"]["failures"] = 30
    assert _bound(broken).status == NOT_REPRODUCED
    few = copy.deepcopy(doctored)      # 0 failures of 20 cannot show a rate under 0.05: the rule does not pass it
    few["bound"].update(failures=0, seeds=20)
    assert _bound(few).status == NOT_REPRODUCED
