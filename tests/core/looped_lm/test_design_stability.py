"""design_shapes_stability's test: a one-sided Fisher exact test per design against Huginn's, over seeds, in two
looks (seeds 0-4, registered first; seeds 0-9 at the level the first look left).

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
from core.looped_lm.claims import (FIRST_LOOK, RULES, SECOND_LOOK_ALPHA, STABILITY_ALPHA, stability_p, stability_power,
                                   stability_test_size, stable_counts)


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


def test_the_second_look_spends_what_the_first_left_and_has_the_power_the_first_lacked():
    """The first look (5 seeds) can reject only 5 stable of 5 against 0 of 5, whatever the learned counts: its size is
    1/1024, and the second look's level is the Bonferroni share less that. Power, closed form: with every seed of the
    other design learned and never stable, the first look rejects only when Huginn's design learns on all 5 seeds."""
    first_size = max(stability_test_size(n, m) for n in range(1, FIRST_LOOK + 1) for m in range(1, FIRST_LOOK + 1))
    assert first_size == pytest.approx(0.5 ** 10) and SECOND_LOOK_ALPHA + first_size == pytest.approx(STABILITY_ALPHA)
    assert stability_power(FIRST_LOOK, 0.8, 1.0, alpha=STABILITY_ALPHA) == pytest.approx(0.8 ** 5)
    assert stability_power(10, 0.8, 1.0) > 0.999 and stability_power(10, 0.8, 1.0, stable_design=1.0) == 0.0
    assert stability_test_size(10, 10, SECOND_LOOK_ALPHA) <= SECOND_LOOK_ALPHA


def _result(designs=None, replicate=None):
    seeds = {name: _record([1] * 10) for name in DESIGNS}
    seeds.update(designs or {})
    return {"design_seeds": {"designs": seeds, "replicate": replicate or _record([1] * 10)}}


def test_the_rule_reaches_each_status_on_doctored_seeds():
    rule = RULES["design_shapes_stability"]
    loses = {"B2 additive pre": _record([0] * 10)}
    assert rule.evaluate(_result(loses)).status == REPRODUCED
    assert rule.evaluate(_result(loses, replicate=_record([0] * 10))).status == PARTLY   # Huginn differs from itself
    assert rule.evaluate(_result()).status == NOT_REPRODUCED
    assert rule.evaluate(_result({"B2 additive pre": _record([0] * 5 + [1] * 5)})).status == NOT_REPRODUCED
    assert rule.evaluate({"designs": {}}).status == NOT_TESTED
    # Huginn's design learning on 4 of its first 5 seeds: the first look cannot reject, the second look does.
    base = {"B2 concat sandwich": _record([1] * 10, learned=[True] * 4 + [False] + [True] * 5), **loses}
    judged = rule.evaluate(_result(base))
    passed = {c["name"]: c["passed"] for c in judged.decision["checks"] + judged.controls}
    assert passed["first_look"] is False and passed["some_design_decides"] is True and judged.status == REPRODUCED


def test_the_bonferroni_family_is_the_bench_designs_and_the_grids_cover_every_design_and_seed_once():
    assert STABILITY_ALPHA == pytest.approx(0.05 / (len(DESIGNS) - 1))
    assert all(len(sweep(grid)) <= 10 for grid in SEED_GRIDS)        # a grid runs in under 20 minutes here
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
