"""bench/quantum_ng_target.py: the comparators of section qfim_target, each against its closed form, and one point."""

import copy
import json

import numpy as np
import pytest

from bench.quantum_ng import TARGET_SHOTS, target_k
from bench.quantum_ng_target import (MORE_SHOTS, TARGET_SEEDS, best_scale_error, block_diagonal, identity_error,
                                     shots_trend, shuffled, target_point)
from bench.report import interval_text
from core.common.claims import NOT_REPRODUCED, PARTLY, REPRODUCED, results_path
from core.quantum_ng.ansatz import Ansatz
from core.quantum_ng.claims import RULES
from core.quantum_ng.metric import relative_error

STORED = json.loads(results_path("quantum_ng").read_text())


def _target(result):
    return RULES["targets_qfim"].evaluate(result)


def _spd(p: int, seed: int) -> np.ndarray:
    a = np.random.default_rng(seed).normal(size=(p, p))
    return a @ a.T / p


def test_the_identity_multiple_is_the_best_one_and_matches_its_closed_form():
    g = _spd(6, 0)
    lam = np.linalg.eigvalsh(g)
    closed = np.sqrt(np.sum(g ** 2) - np.trace(g) ** 2 / 6) / np.linalg.norm(g)
    assert identity_error(g) == pytest.approx(closed, rel=1e-12)
    assert identity_error(np.diag(lam)) == pytest.approx(np.std(lam) * np.sqrt(6) / np.linalg.norm(lam), rel=1e-12)
    for c in np.linspace(0.0, 3 * lam.max(), 41):
        assert identity_error(g) <= relative_error(c * np.eye(6), g) + 1e-12


def test_the_best_scale_is_the_sine_of_the_angle_and_never_worse_than_the_raw_error():
    g, s = _spd(5, 1), _spd(5, 2)
    cos = np.sum(g * s) / (np.linalg.norm(g) * np.linalg.norm(s))
    assert best_scale_error(s, g) == pytest.approx(np.sqrt(1 - cos ** 2), rel=1e-10)
    assert best_scale_error(s, g) <= relative_error(s, g)
    assert best_scale_error(3.7 * g, g) == pytest.approx(0.0, abs=1e-12)


def test_shuffling_keeps_the_entries_and_spectrum_and_moves_the_labels():
    s = _spd(8, 3)
    out = shuffled(s, 7)
    np.testing.assert_allclose(np.linalg.eigvalsh(out), np.linalg.eigvalsh(s), atol=1e-12)
    assert not np.allclose(out, s)
    np.testing.assert_array_equal(out, shuffled(s, 7))


def test_the_block_diagonal_part_keeps_each_rotation_sub_layer_and_nothing_else():
    ansatz = Ansatz(3, 2, ("RY", "RZ"), "brickwork")
    g = _spd(ansatz.n_params, 4)
    b = block_diagonal(g, ansatz.param_layer())
    layer = ansatz.param_layer()
    same = layer[:, None] == layer[None, :]
    np.testing.assert_array_equal(b[same], g[same])
    assert np.all(b[~same] == 0) and (~same).any()


def test_one_point_at_full_weight_with_many_shots_closes_in_on_the_masked_target():
    ansatz = Ansatz(4, 2, ("RY", "RZ"), "brickwork")
    p = target_point(ansatz, seed=5, k=4, snapshots=200)
    assert p["by_k"]["4"] == p["surrogate"] and set(p["by_k"]) == {"1", "2", "3", "4"}
    assert p["surrogate_best_scale"] <= p["surrogate"]
    # the 4x shadow is nearer the masked, truncated target (its exact-expectation error) than the 1x one
    assert abs(p["surrogate_more_shots"] - p["exact_expectations"]) < abs(p["surrogate"] - p["exact_expectations"])
    assert p["shuffled"] > p["surrogate"]


def test_the_registered_points_are_fresh_and_k_comes_from_the_tradeoff_point():
    for n, t in STORED["qfim_target"].items():
        assert t["seeds"] == list(TARGET_SEEDS) and not {0, 1, 2} & set(t["seeds"])
        assert t["k"] == STORED["tradeoff"][n]["best_k_empirical"] == target_k(STORED, int(n)) < int(n)
        assert t["more_snapshots"] == MORE_SHOTS * t["snapshots"] and len(t["points"]) == len(TARGET_SEEDS)


def test_the_target_verdict_is_paired_by_point_against_the_identity_and_its_shuffled_null():
    (shipped,) = [v for v in STORED["verdicts"] if v["claim_id"] == "targets_qfim"]
    assert shipped["status"] == _target(STORED).status
    for n, t in STORED["qfim_target"].items():   # the figure quotes each size's interval as the rule computes it
        assert f"{n}q {interval_text([np.log10(p['identity'] / p['surrogate']) for p in t['points']])}" in shipped["figure"]
    doctored = copy.deepcopy(STORED)
    for t in doctored["qfim_target"].values():
        for i, p in enumerate(t["points"]):
            p["surrogate"] = p["identity"] * (0.6 + 0.01 * i)
            p["surrogate_more_shots"] = p["surrogate"] * (0.9 - 0.005 * i)
            p["shuffled"] = p["identity"] * (1.3 + 0.01 * i)
    assert _target(doctored).status == REPRODUCED
    leak = copy.deepcopy(doctored)     # the labels do not matter: the test cannot tell targeting from scale
    for t in leak["qfim_target"].values():
        for p in t["points"]:
            p["shuffled"] = p["surrogate"]
    assert _target(leak).status == PARTLY
    stalled = copy.deepcopy(doctored)  # more shots do not bring it closer
    for t in stalled["qfim_target"].values():
        for i, p in enumerate(t["points"]):
            p["surrogate_more_shots"] = p["surrogate"] * (1 + 0.01 * (i % 3 - 1))
    assert _target(stalled).status == PARTLY
    one_size = copy.deepcopy(doctored)  # the identity as close at one size: every size must beat it
    for p in next(iter(one_size["qfim_target"].values()))["points"]:
        p["surrogate"] = p["identity"]
    assert _target(one_size).status == NOT_REPRODUCED


def test_the_shots_trend_repeats_the_section_at_its_two_shot_counts_and_summarises_by_size():
    trend = STORED["target_trend"]
    rows = trend["runs"]
    assert {r["snapshots"] for r in rows} == set(TARGET_SHOTS) and len(rows) == 3 * len(TARGET_SHOTS) * len(TARGET_SEEDS)
    for n, t in STORED["qfim_target"].items():
        for p in t["points"]:
            at = {r["snapshots"]: r for r in rows if r["n_qubits"] == int(n) and r["seed"] == p["seed"]}
            assert at[t["snapshots"]]["surrogate"] == p["surrogate"]
            assert at[t["more_snapshots"]]["surrogate"] == p["surrogate_more_shots"]
            assert at[t["snapshots"]]["identity"] == p["identity"]
    np.testing.assert_allclose(shots_trend(rows)["trend"], trend["trend"], rtol=1e-12)   # same sums, any order
    assert len({(r[0]) for r in trend["trend"]}) == 3 and len(trend["trend"]) == 3 * len(TARGET_SHOTS)
