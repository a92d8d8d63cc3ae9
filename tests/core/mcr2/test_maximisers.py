"""Closed-form maximisers: the roots, their nature, the distance to the maximiser set, the saddle."""

import numpy as np
import pytest

from core.mcr2 import (critical_lambda, direction_value, distance_to_maximisers, maximiser_value, rank_pattern,
                       rate_reduction, rate_reduction_grad, saddle_point, singular_value_roots, subspace_cosines)

D, SIZES, EPS, LAM = 10, np.array([30, 30]), np.sqrt(0.5), 0.01


def test_the_larger_root_is_45_40088_for_the_reference_instance():
    roots = singular_value_roots(D, SIZES, EPS, LAM)
    assert roots.maximiser == pytest.approx([45.40088, 45.40088], abs=1e-5)
    assert roots.saddle == pytest.approx([0.09912, 0.09912], abs=1e-5)


@pytest.mark.parametrize("sizes, lam", [((30, 30), 0.01), ((10, 25, 40), 0.003), ((5, 50), 0.004)])
def test_roots_solve_the_equation_and_have_the_stated_nature(sizes, lam):
    sizes = np.array(sizes)
    m, a = sizes.sum(), D / (sizes.sum() * EPS**2)
    roots = singular_value_roots(D, sizes, EPS, lam)
    for k, ak in enumerate(D / (sizes * EPS**2)):
        for s in (roots.saddle[k], roots.maximiser[k]):
            assert lam * (1 + a * s) * (1 + ak * s) == pytest.approx(a * (ak - a) * s, rel=1e-10)
        h = 1e-4
        f = lambda s: direction_value([s], D, sizes, EPS, lam)[k, 0]  # noqa: E731
        curv = lambda s: (f(s * (1 + h)) - 2 * f(s) + f(s * (1 - h))) / (s * h) ** 2  # noqa: E731
        assert curv(roots.maximiser[k]) < 0 < curv(roots.saddle[k])   # a maximum and a minimum along s
    assert np.all(roots.critical_lam > lam) and m == sizes.sum()


def test_the_roots_merge_at_the_critical_lambda_and_vanish_above_it():
    lam_c = critical_lambda(D, SIZES, EPS)
    at = singular_value_roots(D, SIZES, EPS, float(lam_c[0]))
    assert at.saddle == pytest.approx(at.maximiser, rel=1e-6)
    assert np.all(np.isnan(singular_value_roots(D, SIZES, EPS, float(lam_c[0]) * 1.01).maximiser))


def maximiser(rng, ranks=(5, 4)):
    roots = singular_value_roots(D, SIZES, EPS, LAM)
    labels = np.repeat([0, 1], SIZES)
    Q = np.linalg.qr(rng.normal(size=(D, D)))[0]
    Z = np.zeros((D, SIZES.sum()))
    start = 0
    for c, r in enumerate(ranks):
        V = np.linalg.qr(rng.normal(size=(SIZES[c], r)))[0]
        Z[:, labels == c] = np.sqrt(roots.maximiser[c]) * Q[:, start:start + r] @ V.T
        start += r
    return Z, labels, np.array(ranks)


def test_a_closed_form_maximiser_is_critical_with_the_predicted_value_and_zero_distance():
    Z, labels, ranks = maximiser(np.random.default_rng(0))
    assert np.linalg.norm(rate_reduction_grad(Z, labels, EPS, LAM)) < 1e-12
    assert rate_reduction(Z, labels, EPS, LAM) == pytest.approx(maximiser_value(ranks, D, SIZES, EPS, LAM), rel=1e-12)
    assert list(rank_pattern(Z, labels, EPS, LAM)) == [5, 4]
    assert distance_to_maximisers(Z, labels, EPS, LAM).distance < 1e-6
    assert subspace_cosines(Z, labels, ranks).max() < 1e-12


def test_the_distance_sees_through_rotations_and_is_at_most_the_perturbation():
    rng = np.random.default_rng(1)
    Z, labels, ranks = maximiser(rng)
    Q = np.linalg.qr(rng.normal(size=(D, D)))[0]
    W = np.linalg.qr(rng.normal(size=(30, 30)))[0]
    moved = Q @ Z
    moved[:, labels == 0] = moved[:, labels == 0] @ W         # O(d) on the left, O(m_k) within a class
    assert distance_to_maximisers(moved, labels, EPS, LAM, ranks=ranks).distance < 1e-6
    E = rng.normal(size=Z.shape)
    E *= 0.01 / np.linalg.norm(E)
    d = distance_to_maximisers(moved + E, labels, EPS, LAM, ranks=ranks).distance
    assert 0.1 * 0.01 < d <= 0.01 * (1 + 1e-9)
    # the control: the naive distance to the unrotated maximiser is large
    assert np.linalg.norm(moved + E - Z) > 10


def test_the_saddle_is_critical_but_far_from_the_maximisers():
    point = saddle_point(D, SIZES, EPS, LAM, [5, 4])
    Z, labels, ranks = point.features, point.labels, point.ranks
    assert np.linalg.norm(rate_reduction_grad(Z, labels, EPS, LAM)) < 1e-12
    roots = singular_value_roots(D, SIZES, EPS, LAM)
    assert distance_to_maximisers(Z, labels, EPS, LAM, ranks=ranks).distance == pytest.approx(
        np.sqrt(roots.saddle[0]), rel=1e-6)
    # pushing the saddle direction up or down increases F: a strict saddle, not a maximiser
    u = np.linalg.svd(Z[:, labels == 0], full_matrices=False)
    base = rate_reduction(Z, labels, EPS, LAM)
    for t in (0.9, 1.1):
        S = u[1].copy()
        S[5] *= t
        Zt = Z.copy()
        Zt[:, labels == 0] = u[0] @ np.diag(S) @ u[2]
        assert rate_reduction(Zt, labels, EPS, LAM) > base


def test_bad_ranks_name_the_field():
    Z, labels, _ = maximiser(np.random.default_rng(2))
    with pytest.raises(ValueError, match="^ranks: "):
        distance_to_maximisers(Z, labels, EPS, LAM, ranks=[8, 8])
