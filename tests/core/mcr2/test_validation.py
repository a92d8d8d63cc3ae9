"""Every public entry point refuses bad input with the field named, before doing anything."""

import numpy as np
import pytest

import core.mcr2 as mcr2

Z = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]])
LABELS = np.array([0, 0, 1, 1])
SMALL = mcr2.AscentConfig(dim=4, per_class=3, steps=3)


@pytest.mark.parametrize("call, field", [
    (lambda: mcr2.coding_rate(np.ones(3), 0.5), "Z"),
    (lambda: mcr2.coding_rate(Z, 0.0), "eps"),
    (lambda: mcr2.class_coding_rate(Z, LABELS, -1.0), "eps"),
    (lambda: mcr2.reference_code_loss(Z, LABELS, 0.0), "eps"),
    (lambda: mcr2.critical_lambda(0, [2, 2], 0.5), "dim"),
    (lambda: mcr2.critical_lambda(2, [2, 0], 0.5), "class_sizes"),
    (lambda: mcr2.singular_value_roots(2, [2, 2], 0.5, -0.1), "lam"),
    (lambda: mcr2.direction_value([-1.0], 2, [2, 2], 0.5, 0.01), "s"),
    (lambda: mcr2.maximiser_value([1, -1], 2, [2, 2], 0.5, 0.01), "ranks"),
    (lambda: mcr2.rank_pattern(Z, LABELS, 0.5, float("nan")), "lam"),
    (lambda: mcr2.distance_to_maximisers(Z, LABELS, 0.5, 0.01, max_iter=0), "max_iter"),
    (lambda: mcr2.subspace_cosines(Z, LABELS, [3, 1]), "ranks"),
    (lambda: mcr2.saddle_point(4, [3, 3], 0.5, 0.01, [1, 1], saddle_class=2), "saddle_class"),
    (lambda: mcr2.saddle_point(4, [3, 3], 0.5, 0.0, [1, 1]), "lam"),
    (lambda: mcr2.ascend({"steps": 5}), "config"),
    (lambda: mcr2.ascend(SMALL, start=(np.ones((4, 6)), np.zeros(5, dtype=int))), "labels"),
    (lambda: mcr2.initial_features(None, 0), "config"),
    (lambda: mcr2.trace_of(None), "result"),
    (lambda: mcr2.fit_tail("run"), "result"),
    (lambda: mcr2.geometry(np.ones(4), LABELS), "features"),
    (lambda: mcr2.geometry(Z.T, LABELS, energy=1.5), "energy"),
    (lambda: mcr2.geometry(Z.T, np.zeros(4, dtype=int)), "labels"),
    (lambda: mcr2.train_digits({"epochs": 1}), "config"),
    (lambda: mcr2.saddle_probe(SMALL, deltas=(1e-2, 0.0)), "deltas"),
])
def test_bad_input_names_the_field(call, field):
    with pytest.raises(ValueError, match=f"^{field}: .*; allowed "):
        call()


def test_a_refused_start_is_left_alone():
    start = mcr2.initial_features(SMALL, 0)
    before = start.features.copy()
    with pytest.raises(ValueError, match="^labels: "):
        mcr2.ascend(SMALL, start=(start.features, start.labels[:-1]))
    np.testing.assert_array_equal(start.features, before)
    # the accepted start gives the seeded run (the Features form and the tuple form agree)
    a, b = mcr2.ascend(SMALL, seed=0), mcr2.ascend(SMALL, start=start)
    np.testing.assert_array_equal(a.objective, b.objective)
