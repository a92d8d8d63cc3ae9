"""The flow sampler against a Gaussian's closed-form velocity field, and the simulator against its own physics."""

import numpy as np
import pytest

from core.latent_world_action import (SimConfig, euler_sample, expert_chunk, gaussian_velocity, make_dataset,
                                      render_frames, rollout, start_states)
from core.latent_world_action.sim import bounce

MEAN = np.array([1.5, -0.5, 0.25])
A = np.array([[1.0, 0.0, 0.0], [0.8, 0.6, 0.0], [-0.3, 0.2, 0.5]])
COV = A @ A.T


def moments(x):
    return x.mean(0), np.cov(x.T)


def test_the_sampler_with_the_exact_velocity_field_reproduces_the_gaussian():
    noise = np.random.default_rng(0).standard_normal((40000, 3))
    m, c = moments(euler_sample(gaussian_velocity(MEAN, COV), noise, steps=200))
    np.testing.assert_allclose(m, MEAN, atol=0.03)
    np.testing.assert_allclose(c, COV, atol=0.05)


def test_a_misspecified_field_fails_the_same_check():
    """Controls: the isotropic field (right mean, wrong covariance) and too few Euler steps near τ = 1."""
    noise = np.random.default_rng(0).standard_normal((40000, 3))
    _, c = moments(euler_sample(gaussian_velocity(MEAN, np.eye(3)), noise, steps=200))
    assert np.abs(c - COV).max() > 0.3
    _, c1 = moments(euler_sample(gaussian_velocity(MEAN, COV), noise, steps=1))
    assert np.abs(c1 - COV).max() > 0.3


def test_the_sampler_runs_on_torch_tensors_alike():
    import torch
    noise = np.random.default_rng(1).standard_normal((500, 3))
    v = gaussian_velocity(MEAN, COV)
    out = euler_sample(lambda x, t: torch.as_tensor(v(x.numpy(), t)), torch.as_tensor(noise), steps=20)
    np.testing.assert_allclose(out.numpy(), euler_sample(v, noise, steps=20), atol=1e-12)


def test_bounce_stays_inside_and_matches_stepwise_reflection():
    rng = np.random.default_rng(0)
    pos, vel = rng.uniform(0.1, 0.9, (200, 2)), rng.normal(scale=0.05, size=(200, 2))
    p, v = pos.copy(), vel.copy()
    for _ in range(40):
        p, v = bounce(p, v, 1)
    q, w = bounce(pos, vel, 40)
    np.testing.assert_allclose(p, q, atol=1e-9)
    np.testing.assert_allclose(v, w)
    assert (q >= 0.05 - 1e-12).all() and (q <= 0.95 + 1e-12).all()


def test_frames_put_each_blob_where_its_object_is():
    pts = np.random.default_rng(0).uniform(0.1, 0.9, (50, 2))
    f = render_frames(pts, pts[::-1]).astype(float)
    grid = (np.arange(32) + 0.5) / 32
    cx = (f[:, 0].sum(1) * grid).sum(1) / f[:, 0].sum((1, 2))
    assert np.abs(cx - pts[:, 0]).max() < 0.01


def test_the_dataset_labels_the_future_it_will_meet():
    cfg = SimConfig(steps=12, dart_noise=0.0)
    d = make_dataset(3, cfg, seed=4)
    s = start_states(3, cfg, seed=__import__("core.common", fromlist=["derive_seed"]).derive_seed(4, "starts"))
    # the first sample of episode 0 is t = 0: its label is the target H steps later
    np.testing.assert_allclose(d.future_target[0], bounce(s.target[:1], s.velocity[:1], cfg.horizon)[0][0])
    np.testing.assert_allclose(d.actions[0], expert_chunk(s.agent[:1], s.target[:1], s.velocity[:1], cfg)[0]
                               / cfg.agent_speed)
    again = make_dataset(3, cfg, seed=4)
    assert np.array_equal(d.context, again.context) and not np.array_equal(d.context, make_dataset(3, cfg, 5).context)


def test_the_expert_intercepts_and_the_chaser_that_ignores_the_future_does_not():
    expert, chaser = rollout("expert", 200, seed=3), rollout("chaser", 200, seed=3)
    assert expert.success_rate > 0.97
    assert chaser.success_rate < expert.success_rate - 0.25


@pytest.mark.parametrize("call, field", [
    (lambda: SimConfig(horizon=3), "horizon"),
    (lambda: SimConfig(n_future=3), "n_future"),
    (lambda: SimConfig(target_speed_low=0.1, target_speed_high=0.05), "target_speed_high"),
    (lambda: make_dataset(0), "n_episodes"),
    (lambda: rollout("expert", 4, replan=0), "replan"),
    (lambda: euler_sample(lambda x, t: x, np.zeros(2), steps=0), "steps"),
    (lambda: gaussian_velocity(np.zeros(2), np.eye(3)), "cov"),
    (lambda: render_frames(np.zeros((2, 2)), np.zeros((3, 2))), "target"),
])
def test_bad_input_names_the_field(call, field):
    with pytest.raises(ValueError, match=f"^{field}: .*; allowed"):
        call()
