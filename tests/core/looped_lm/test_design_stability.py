"""design_shapes_stability's test: a one-sided Fisher exact test per design against Huginn's, over seeds.

Checked against the hypergeometric law (scipy.stats.hypergeom, written independently of fisher_exact), its
size under the null computed exactly and by simulation (core.common.calibration), and the rule's four statuses
on doctored results: a design that loses the cycle on every learned seed reproduces the claim, a replicate of
Huginn's design that loses it too makes the claim only partly shown, no design that differs fails it.
"""

import copy
import math

import pytest
from scipy import stats

from bench.looped_lm import BASE, DESIGNS, REPLICATE_SEEDS, SEEDS, SEED_GRIDS, _with_seed_zero, sweep
from core.common.calibration import false_positive_rate
from core.common.claims import NOT_REPRODUCED, NOT_TESTED, PARTLY, REPRODUCED
from core.looped_lm.claims import RULES, STABILITY_ALPHA, stability_p, stability_test_size, stable_counts


def _record(stable, learned=None):
    learned = [True] * len(stable) if learned is None else learned
    return {"learned": learned, "stable_cycle": [bool(s) and ok for s, ok in zip(stable, learned)]}


def test_the_p_value_is_the_hypergeometric_tail_of_huginns_stable_seeds():
    for (a, n), (c, m) in [((5, 5), (0, 5)), ((5, 5), (1, 5)), ((4, 5), (0, 3)), ((3, 4), (2, 5))]:
        base, design = _record([i < a for i in range(n)]), _record([i < c for i in range(m)])
        # Given a + c stable seeds among n + m learned ones, Huginn holds at least a of them.
        tail = stats.hypergeom(n + m, a + c, n).sf(a - 1)
        assert stability_p(base, design) == pytest.approx(tail, rel=1e-12)
    assert stability_p(_record([1] * 5), _record([0] * 5)) == pytest.approx(1 / math.comb(10, 5))


def test_seeds_that_did_not_learn_are_left_out_and_a_design_that_never_learned_gives_no_reading():
    design = _record([0, 0, 0, 0, 0], learned=[True, True, True, False, False])
    assert stable_counts(design) == (0, 3)
    assert stability_p(_record([1] * 5), design) == pytest.approx(1 / math.comb(8, 3))
    assert stability_p(_record([1] * 5), _record([0] * 5, learned=[False] * 5)) == 1.0


def test_the_test_is_conservative_and_says_by_how_much():
    """Under a common stable rate only the all-or-nothing split of 5 against 5 rejects at the Bonferroni level:
    its size is max_p p^5 (1-p)^5 = 1/1024, about a sixth of alpha, and a simulation agrees with it."""
    assert stability_p(_record([1] * 5), _record([0] * 5)) <= STABILITY_ALPHA < stability_p(_record([1] * 5),
                                                                                            _record([1, 0, 0, 0, 0]))
    assert stability_test_size(5, 5) == pytest.approx(0.5 ** 10)
    assert stability_test_size(5, 4) == 0.0          # 5 against 0 of 4 gives p = 1/126 > alpha: nothing rejects
    fpr = false_positive_rate(lambda x: stability_p(_record(x[0]), _record(x[1])),
                              lambda rng: (rng.random(5) < 0.5, rng.random(5) < 0.5),
                              alpha=STABILITY_ALPHA, n_draws=20_000, seed=3)
    assert fpr.verdict == "conservative"
    assert fpr.interval[0] <= 0.5 ** 10 <= fpr.interval[1]


def _result(designs=None, replicate=None):
    seeds = {name: _record([1] * 5) for name in DESIGNS}
    seeds.update(designs or {})
    return {"design_seeds": {"designs": seeds, "replicate": replicate or _record([1] * 5)}}


def test_the_rule_reaches_each_status_on_doctored_seeds():
    rule = RULES["design_shapes_stability"]
    loses = {"B2 additive pre": _record([0] * 5)}
    assert rule.evaluate(_result(loses)).status == REPRODUCED
    assert rule.evaluate(_result(loses, replicate=_record([0] * 5))).status == PARTLY   # Huginn differs from itself
    assert rule.evaluate(_result()).status == NOT_REPRODUCED
    assert rule.evaluate(_result({"B2 additive pre": _record([0, 0, 0, 0, 1])})).status == NOT_REPRODUCED
    assert rule.evaluate({"designs": {}}).status == NOT_TESTED


def test_the_bonferroni_family_is_the_bench_designs_and_the_grids_cover_every_design_and_seed_once():
    assert STABILITY_ALPHA == pytest.approx(0.05 / (len(DESIGNS) - 1))
    cells = [(c.params["design"], c.seed) for grid in SEED_GRIDS for c in sweep(grid)]
    expected = [(n, s) for n in DESIGNS for s in SEEDS[1:]] + [(BASE, s) for s in REPLICATE_SEEDS]
    assert sorted(cells) == sorted(expected) and len(set(cells)) == len(cells)
    assert sorted((c.params["design"], c.seed) for c in sweep("full")) == sorted(
        expected + [(n, 0) for n in DESIGNS])


def test_a_retrained_seed_zero_replaces_only_the_first_entry():
    kept = {"designs": {BASE: {"seeds": [0, 1], "learned": [True, True], "stable_cycle": [True, False],
                               "converges": [True, False], "accuracy_loop32": [1.0, 0.95], "delta_loop32": [1e-7, 0.1]}},
            "replicate": {"learned": []}}
    study = {BASE: {"learned": False, "stable_cycle": False, "converges": True, "accuracy_by_loops": {"32": 0.2},
                    "delta_loop32": [1e-8, 3e-8]}}
    out = _with_seed_zero(copy.deepcopy(kept), study)
    assert out["designs"][BASE] == {"seeds": [0, 1], "learned": [False, True], "stable_cycle": [False, False],
                                    "converges": [True, False], "accuracy_loop32": [0.2, 0.95],
                                    "delta_loop32": [3e-8, 0.1]}
    assert out["replicate"] == kept["replicate"]
