"""Metric code on constructed dynamics with known answers."""

import numpy as np
import pytest
import torch

from core.looped_lm.metrics import (attention_change, attention_entropy, convergence_rate, fixed_point_residuals,
                                    fixed_point_separation, linear_cka, matrix_entropy, spectral_radius)


def linear_block(rate=0.7, d=16, loops=40, block=2, seed=0):
    """h -> W_l h + U_l e with W_l = sqrt(rate) * orthogonal: the full cycle contracts by exactly `rate`."""
    g = torch.Generator().manual_seed(seed)
    Ws = [np.sqrt(rate) * torch.linalg.qr(torch.randn(d, d, generator=g, dtype=torch.float64))[0] for _ in range(block)]
    Us = [torch.randn(d, d, generator=g, dtype=torch.float64) for _ in range(block)]
    e = torch.randn(5, 7, d, generator=g, dtype=torch.float64)
    s = torch.randn(5, 7, d, generator=g, dtype=torch.float64) * 3
    hiddens = []
    for _ in range(loops):
        layer_states = []
        for W, U in zip(Ws, Us):
            s = s @ W.T + e @ U.T
            layer_states.append(s)
        hiddens.append(torch.stack(layer_states))
    return torch.stack(hiddens), Ws, Us, e


@pytest.mark.parametrize("rate", [0.5, 0.7, 0.9])
def test_delta_decays_at_the_known_rate(rate):
    hiddens, *_ = linear_block(rate=rate, loops=60)
    deltas = fixed_point_residuals(hiddens)
    assert deltas.shape == (59, 2)
    measured = convergence_rate(deltas, start=5, stop=40)
    np.testing.assert_allclose(measured, rate, rtol=0.05)


def test_spectral_radius_of_the_cycle_map():
    _, Ws, Us, e = linear_block(rate=0.64)

    def cycle(s):
        for W, U in zip(Ws, Us):
            s = s @ W.T + e @ U.T
        return s

    assert spectral_radius(cycle, torch.zeros_like(e)) == pytest.approx(0.64, rel=0.02)


def test_separation_sees_distinct_fixed_points_and_not_one_attractor():
    hiddens, *_ = linear_block()
    assert fixed_point_separation(hiddens) > 0.05
    same = hiddens[:, :1].repeat(1, 2, 1, 1, 1)
    assert fixed_point_separation(same) == pytest.approx(0.0, abs=1e-12)


def test_attention_change_and_entropy():
    uniform = torch.full((3, 1, 2, 4, 5, 5), 0.2)
    onehot = torch.zeros(3, 1, 2, 4, 5, 5)
    onehot[..., 0] = 1.0
    attn = torch.cat([uniform[:2], onehot[:1]])
    tv = attention_change(attn)
    assert tv.shape == (2, 1, 4)
    np.testing.assert_allclose(tv[0], 0.0)
    np.testing.assert_allclose(tv[1], 0.8)  # TV(uniform over 5, point mass) = 1 - 1/5
    ent = attention_entropy(attn)
    np.testing.assert_allclose(ent[0], np.log(5), rtol=1e-6)
    np.testing.assert_allclose(ent[2], 0.0, atol=1e-6)


def test_matrix_entropy_and_cka_reference_values():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(64, 16, generator=g, dtype=torch.float64)
    assert 0.5 < matrix_entropy(x) <= 1.0
    rank_one = torch.randn(64, 1, generator=g, dtype=torch.float64) @ torch.randn(1, 16, generator=g, dtype=torch.float64)
    assert matrix_entropy(rank_one) == pytest.approx(0.0, abs=1e-9)
    q = torch.linalg.qr(torch.randn(16, 16, generator=g, dtype=torch.float64))[0]
    assert linear_cka(x, 3 * x @ q) == pytest.approx(1.0)  # invariant to rotation and scale
    assert linear_cka(x, torch.randn(64, 16, generator=g, dtype=torch.float64)) < 0.5


def complex_pair_map(d=12, seed=0):
    """A = V diag(R(0.8, 1.1), 0.75, 0.6, ...) V^-1 with V far from orthogonal: a non-normal map whose
    dominant eigenvalues are the complex pair 0.8 exp(+-1.1 i), plus a quadratic term with zero Jacobian
    at 0, so rho(J(0)) = 0.8 exactly while ||A|| is several times larger."""
    g = torch.Generator().manual_seed(seed)
    block = torch.zeros(d, d, dtype=torch.float64)
    block[:2, :2] = 0.8 * torch.tensor([[np.cos(1.1), -np.sin(1.1)], [np.sin(1.1), np.cos(1.1)]])
    block[2:, 2:] = torch.diag(torch.linspace(0.75, 0.1, d - 2, dtype=torch.float64))
    V = torch.eye(d, dtype=torch.float64) + 2.0 * torch.randn(d, d, generator=g, dtype=torch.float64).triu(1)
    A = V @ block @ torch.linalg.inv(V)
    return A, (lambda s: s @ A.T + 0.3 * s**2)


def test_spectral_radius_finds_a_complex_dominant_pair_of_a_non_normal_map():
    A, step = complex_pair_map()
    assert torch.linalg.matrix_norm(A, 2) > 2.0                          # far from normal: ||A|| >> rho
    assert spectral_radius(step, torch.zeros(12, dtype=torch.float64)) == pytest.approx(0.8, rel=0.02)
    # Away from 0 the Jacobian is A + 0.6 diag(s): checked against NumPy on the matrix formed in full.
    s = 0.3 * torch.randn(12, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    exact = np.abs(np.linalg.eigvals((A + 0.6 * torch.diag(s)).numpy())).max()
    assert spectral_radius(step, s, seed=3) == pytest.approx(exact, rel=0.02)
    # The old estimate (the last ||J v|| of a power iteration) misses it: the control this test must fail.
    v = torch.randn(12, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    for _ in range(120):
        jv = A @ v
        v = jv / jv.norm()
    assert abs(float((A @ v).norm()) - 0.8) > 0.016


def test_spectral_radius_of_the_trained_pointer_block_matches_its_full_jacobian():
    """The issue's case: the pointer model's cycle Jacobian, whose dominant eigenvalues are a complex pair."""
    from core.looped_lm import load_pretrained, run_with_cache

    shipped = load_pretrained("pointer")

    model, task = shipped.model, shipped.task
    ids, _ = task.sample(1, seed=5)
    cache = run_with_cache(model, ids, 40)
    state = cache.states[-1].double()
    model.double()
    step = lambda s: model.step(s, cache.prelude.double())   # noqa: E731
    jac = torch.func.jacfwd(step)(state).reshape(state.numel(), state.numel())
    eig = np.linalg.eigvals(jac.detach().numpy())
    top = eig[np.argmax(np.abs(eig))]
    assert abs(top.imag) > 1e-3                                 # a complex dominant pair
    assert spectral_radius(step, state) == pytest.approx(np.abs(eig).max(), rel=0.02)
    assert spectral_radius(step, state, seed=1) == pytest.approx(np.abs(eig).max(), rel=0.02)


def test_spectral_radius_of_a_trained_stable_block_is_below_one():
    from core.looped_lm import load_pretrained, run_with_cache

    shipped = load_pretrained("stable")

    model, task = shipped.model, shipped.task
    ids, _ = task.sample(2, seed=5)
    cache = run_with_cache(model, ids, 40)
    rho = spectral_radius(lambda s: model.step(s, cache.prelude), cache.states[-1])
    assert rho < 1.0  # the cycle attracts
