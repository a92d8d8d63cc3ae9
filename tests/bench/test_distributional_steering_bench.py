"""The whole-target decision rule of bench/distributional_steering.py (issue 20, section 2c).

The family-wise bound must keep an exact sampler's chance of passing a block at 0.95 or more,
also when a family's statistics correlate; the per-statistic 2 SE rule (the control) does not.
The verdict reads the decision block by that bound, and its own control, the pre-issue scheme,
must fail it for the block to decide.
"""

import numpy as np
import pytest
from scipy.stats import norm

import bench.distributional_steering as bench

FAMILIES = {"soft calibration": ["x2"], "hard constraint": ["x2"], "second moment": ["x2"], "pointwise tilt": ["x2"],
            "entropy": ["x1", "x2"], "repulsion": ["x1", "x2"]}   # 16 free statistics, as in the bench
PRE = "hard constraint, pre-issue scheme"


def block(z: dict | None = None, ratio: float = 0.9, pre_z: float = -6.0, pre_ratio: float = 1.6) -> dict:
    """A block's families with every z 0 but those in ``z`` ({(family, "mean" or "sd", index): z})."""
    z = z or {}
    out = {name: {"free": free, "ratio_median": ratio,
                  **{s: {"z": [z.get((name, s, i), 0.0) for i in range(len(free))]} for s in ("mean", "sd")}}
           for name, free in FAMILIES.items()}
    out[PRE] = {"free": ["x2"], "ratio_median": pre_ratio, "mean": {"z": [pre_z]}, "sd": {"z": [0.5]}}
    return out


def results(decision: dict | None, first: dict | None = None) -> dict:
    r = {"whole_seeds": 16, "whole_target": first or block(), "whole_target_replication":
         {"seeds": [16, 47], "families": block({("hard constraint", "sd", 0): 2.4})}}
    if decision is not None:
        r["whole_target_decision"] = {"seeds": [48, 175], "alpha": 0.05, "families": decision}
    return r


def test_bound_is_bonferroni_over_the_statistics():
    assert bench.familywise_bound(16) == pytest.approx(norm.isf(0.05 / 32))
    assert 2.95 < bench.familywise_bound(16) < 2.96
    assert bench.familywise_bound(1) == pytest.approx(1.95996, abs=1e-4)
    assert bench.familywise_bound(16, alpha=0.01) > bench.familywise_bound(16)


@pytest.mark.parametrize("rho", [0.0, 0.9])
def test_an_exact_sampler_passes_the_bound_at_least_95_percent(rho):
    rng = np.random.default_rng(20)
    shared = rng.standard_normal((40_000, 8, 1))   # pairs of statistics that correlate by rho
    z = np.sqrt(rho) * shared + np.sqrt(1 - rho) * rng.standard_normal((40_000, 8, 2))
    best = np.abs(z.reshape(40_000, 16)).max(1)
    passed = (best < bench.familywise_bound(16)).mean()
    assert 0.945 <= passed <= 0.975
    assert (best < 2.0).mean() < 0.62   # control: the per-statistic 2 SE rule fails a correct sampler often


@pytest.mark.parametrize("field, value", [("n_stats", 0), ("n_stats", 2.5), ("alpha", 0.0), ("alpha", 1.0)])
def test_bound_rejects_bad_input_by_name(field, value):
    kwargs = {"n_stats": 16, "alpha": 0.05, field: value}
    with pytest.raises(ValueError, match=field):
        bench.familywise_bound(**kwargs)


def test_one_statistic_past_2_se_but_under_the_bound_passes_and_is_reported():
    ok, summary, detail = bench.whole_target_reading(results(block({("repulsion", "mean", 1): 2.5})))
    assert ok
    assert summary.startswith("16 of 16 free statistics within the family-wise bound 2.96 SE over 128 fresh seeds")
    assert "15 within 2 SE" in summary
    assert "repulsion mean of x2 (+2.5 SE)" in detail and "the rule rejects it" in detail
    assert "hard constraint sd of x2 (+2.4 SE)" in detail   # the earlier block, still reported


def test_a_statistic_past_the_bound_fails():
    ok, summary, _ = bench.whole_target_reading(results(block({("entropy", "sd", 0): -3.1})))
    assert not ok and summary.startswith("15 of 16")


def test_a_family_far_in_w1_fails():
    ok, summary, _ = bench.whole_target_reading(results(block(ratio=1.6)))
    assert not ok and "W1 within 1.5 floors on 0 of 6 families" in summary


def test_the_block_cannot_decide_when_its_control_passes():
    ok, _, detail = bench.whole_target_reading(results(block(pre_z=-1.0, pre_ratio=1.0)))
    assert not ok and "does not reject it" in detail
    assert bench.whole_target_reading(results(block(pre_z=-1.0, pre_ratio=1.7)))[0]   # W1 alone rejects it


def test_without_a_decision_block_the_last_block_is_read_by_2_se():
    ok, summary, _ = bench.whole_target_reading(results(None))
    assert not ok
    assert summary.startswith("15 of 16 free statistics within 2 SE over 32 fresh seeds (16-47)")
