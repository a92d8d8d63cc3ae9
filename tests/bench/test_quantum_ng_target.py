"""bench/quantum_ng_target.py: the comparators of section qfim_target, each against its closed form, and one point."""

import numpy as np
import pytest

from bench.quantum_ng_target import best_scale_error, block_diagonal, identity_error, shuffled, target_point
from core.quantum_ng.ansatz import Ansatz
from core.quantum_ng.metric import relative_error


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
