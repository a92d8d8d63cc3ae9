"""The objective and its gradient: finite differences, the mcr2 package (float32) and the original code's convention."""

import numpy as np
import pytest

from core.mcr2 import class_coding_rate, coding_rate, rate_reduction, rate_reduction_grad, reference_code_loss


def problem(seed, d=8, sizes=(12, 9, 15)):
    rng = np.random.default_rng(seed)
    labels = np.concatenate([np.full(n, k) for k, n in enumerate(sizes)])
    return rng.normal(size=(d, labels.size)), rng.permutation(labels)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gradient_equals_central_finite_differences(seed):
    Z, labels = problem(seed)
    g = rate_reduction_grad(Z, labels, eps=0.6, lam=0.05)
    rng = np.random.default_rng(seed + 10)
    for _ in range(3):
        E = rng.normal(size=Z.shape)
        h = 1e-5
        fd = (rate_reduction(Z + h * E, labels, 0.6, 0.05) - rate_reduction(Z - h * E, labels, 0.6, 0.05)) / (2 * h)
        assert np.sum(g * E) == pytest.approx(fd, rel=1e-6, abs=1e-9)


def torch_inputs(Z, labels):
    import torch
    return (torch.tensor(Z.T, dtype=torch.float32),
            torch.nn.functional.one_hot(torch.tensor(labels)).to(torch.float32))


@pytest.mark.parametrize("seed", [0, 1])
def test_values_equal_the_mcr2_package_on_float32_inputs(seed):
    from mcr2.primitives.coding_rate import DeltaR, R, Rc

    Z, labels = problem(seed)
    Z = Z.astype(np.float32).astype(float)      # the same numbers the package sees
    Zt, Y = torch_inputs(Z, labels)
    eps = 0.5
    assert R(Zt, eps).item() == pytest.approx(coding_rate(Z, eps), rel=1e-5)
    assert Rc(Zt, Y, eps).item() == pytest.approx(class_coding_rate(Z, labels, eps), rel=1e-5)
    assert DeltaR(Zt, Y, eps).item() == pytest.approx(rate_reduction(Z, labels, eps, 0.0), rel=1e-4)


@pytest.mark.parametrize("seed", [3, 4])
def test_gradient_equals_autograd_of_the_mcr2_package_at_random_points(seed):
    from mcr2.primitives.coding_rate import DeltaR

    Z, labels = problem(seed)
    Z = Z.astype(np.float32).astype(float)
    Zt, Y = torch_inputs(Z, labels)
    Zt.requires_grad_(True)
    DeltaR(Zt, Y, 0.5).backward()
    ours = rate_reduction_grad(Z, labels, eps=0.5, lam=0.0)
    assert np.allclose(Zt.grad.numpy().T, ours, rtol=1e-3, atol=1e-5)
    # the regulariser only adds -lam Z
    assert np.allclose(rate_reduction_grad(Z, labels, 0.5, 0.2), ours - 0.2 * Z)


def test_the_original_codes_loss_is_minus_twice_delta_r_with_eps_squared():
    Z, labels = problem(5)
    eps = 0.7
    assert reference_code_loss(Z, labels, eps**2) == pytest.approx(-2 * rate_reduction(Z, labels, eps), rel=1e-12)
    # the control: reading the code's eps as the paper's ε gives another number
    assert abs(reference_code_loss(Z, labels, eps) + 2 * rate_reduction(Z, labels, eps)) > 0.1


def test_rate_reduction_is_rotation_invariant_and_the_regulariser_is_its_norm():
    Z, labels = problem(6)
    Q = np.linalg.qr(np.random.default_rng(0).normal(size=(Z.shape[0],) * 2))[0]
    assert rate_reduction(Q @ Z, labels, 0.5, 0.1) == pytest.approx(rate_reduction(Z, labels, 0.5, 0.1), rel=1e-12)
    assert rate_reduction(Z, labels, 0.5, 0.0) - rate_reduction(Z, labels, 0.5, 0.1) == pytest.approx(
        0.05 * np.sum(Z**2), rel=1e-12)


@pytest.mark.parametrize("kwargs, message", [
    (dict(Z=np.zeros((3,))), "^Z: shape"),
    (dict(Z=np.full((3, 4), np.nan)), "^Z: contains NaN"),
    (dict(labels=np.array([0, 0, 2, 2])), "^labels: classes must be 0..K-1"),
    (dict(labels=np.array([0, 1, 1])), "^labels: expected 4 integer labels"),
    (dict(eps=0.0), "^eps: 0.0 is not positive"),
    (dict(lam=-1.0), "^lam: -1.0 is negative"),
])
def test_bad_input_names_the_field(kwargs, message):
    args = dict(Z=np.ones((3, 4)), labels=np.array([0, 0, 1, 1]), eps=0.5, lam=0.0) | kwargs
    with pytest.raises(ValueError, match=message):
        rate_reduction(**args)
