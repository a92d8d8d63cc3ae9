"""The weighted particle scheme against closed forms on mixtures with exact scores (4000 particles).

Bases are chosen so that the Monte Carlo error of a 4000-particle estimate (ESS ~ 2500) is well inside
the issue's tolerances: standard error of the mean ~ 0.02 for a spread of ~1.
"""

import numpy as np
import pytest
from scipy.special import softmax
from scipy.stats import wasserstein_distance

from core.common.progress import ProgressLog
from core.distributional_steering.base import GaussianMixtureBase
from core.distributional_steering.baselines import fk_steering, gradient_guidance, unguided
from core.distributional_steering.closed_forms import exponential_tilt, mean_calibration_tilt, tempered_grid
from core.distributional_steering.resampling import resample
from core.distributional_steering.rewards import (EntropyReward, KernelRepulsion, MeanCalibration, MMDToTarget,
                                                  MomentConstraint, PointwiseReward, damped_fixed_point,
                                                  solve_linear_tilt)
from core.distributional_steering.steer import steer

N = 4000
BASE1 = GaussianMixtureBase([0.7, 0.3], [-1.0, 1.0], [0.35, 0.35])
BASE2 = GaussianMixtureBase([0.5, 0.3, 0.2], [[-1.0, 0.0], [1.0, 0.5], [0.0, -1.0]], [0.3, 0.3, 0.4])
linear = lambda z: z[:, 0]  # noqa: E731


def exact_samples(base, n=200_000, seed=99):
    return base.sample(n, seed)


def assert_matches(result, exact, coordinate=0, threshold=0.0):
    """mean within 0.03, mass beyond ``threshold`` within 0.02, W1 of the marginal below 0.05."""
    x, w = result.positions[:, coordinate], result.weights
    y = exact[:, coordinate]
    assert abs(w @ x - y.mean()) < 0.03
    assert abs(w @ (x > threshold) - (y > threshold).mean()) < 0.02
    assert wasserstein_distance(x, y, u_weights=w) < 0.05


def test_mixture_score_is_the_gradient_of_its_log_density():
    x = BASE2.sample(50, 1) * 1.5
    for t in (0.05, 0.3, 0.9):
        eps = 1e-5
        numeric = np.stack([(BASE2.log_prob(x + eps * e, t) - BASE2.log_prob(x - eps * e, t)) / (2 * eps)
                            for e in np.eye(2)], 1)
        assert np.allclose(BASE2.score(x, t), numeric, atol=1e-6)


def test_unguided_sampling_reproduces_the_base():
    assert_matches(unguided(BASE1, N, seed=0), exact_samples(BASE1))


def test_pointwise_tilt_matches_the_exponential_tilt():
    result = steer(BASE1, PointwiseReward(linear, lam=1.5), N, seed=0)
    assert_matches(result, exact_samples(exponential_tilt(BASE1, [1.5])))


def test_pointwise_tilt_in_two_dimensions():
    reward = PointwiseReward(lambda z: z @ np.array([1.0, -0.5]), lam=1.0)
    result = steer(BASE2, reward, N, seed=0)
    exact = exact_samples(exponential_tilt(BASE2, [1.0, -0.5]))
    for k in range(2):
        assert_matches(result, exact, coordinate=k)


def test_mean_calibration_finds_the_self_consistent_tilt():
    exact = mean_calibration_tilt(BASE1, [0.6], kappa=4.0)
    a_star, tilted = exact.a, exact.tilted
    result = steer(BASE1, MeanCalibration(0.6, kappa=4.0), N, seed=0)
    # a = -kappa (E[x] - target): an error in a is kappa times an error in the mean, so compare a / kappa
    assert abs(result.params["a"][0] - a_star[0]) / 4.0 < 0.03
    assert_matches(result, exact_samples(tilted))


def test_moment_constraint_hits_the_target_and_the_max_entropy_law():
    tilted = mean_calibration_tilt(BASE2, [0.3, 0.1]).tilted
    result = steer(BASE2, MomentConstraint([0.3, 0.1]), N, seed=0)
    assert np.allclose(result.mean(), [0.3, 0.1], atol=1e-6)          # exact in the weighted sense
    for k in range(2):
        assert_matches(result, exact_samples(tilted), coordinate=k)


def test_entropy_reward_tempers_the_base():
    grid = np.linspace(-4, 4, 4001)
    q = tempered_grid(BASE1, 1.0, [grid])
    result = steer(BASE1, EntropyReward(1.0, base=BASE1), N, seed=0, every=10)
    x, w = result.positions[:, 0], result.weights
    ess = 1.0 / (w @ w)
    mean, mode = grid @ q, q[grid > 0].sum()
    sd = np.sqrt(q @ (grid - mean) ** 2)
    # Monte Carlo tolerances (3 standard errors at the run's ESS): measured on seeds 0-3 within 1.6 SE
    assert abs(w @ x - mean) < 3 * sd / np.sqrt(ess)
    mode_se = np.sqrt(mode * (1 - mode) / ess)
    assert abs(w @ (x > 0) - mode) < 3 * mode_se
    assert wasserstein_distance(x, grid, u_weights=w, v_weights=q) < 0.05        # measured 0.038
    assert mode > 0.35                                                         # tempering moved mass to the small mode
    control = unguided(BASE1, N, seed=0)                                       # the base itself: fails the mode check
    assert abs((control.positions[:, 0] > 0).mean() - mode) > 3 * mode_se


def test_naive_fixed_point_diverges_where_the_dual_solve_does_not():
    z = BASE1.sample(2000, 3)
    s, b, kappa, target = z, np.zeros(len(z)), 8.0, np.array([0.4])
    assert kappa * z.var() > 1
    a, steps = np.zeros(1), []
    for _ in range(30):   # the plug-in map a <- -kappa (E_a[s] - target)
        new = -kappa * (softmax(b + s @ a) @ s - target)
        steps.append(abs(new - a)[0])
        a = new
    assert steps[-1] > 0.1                                         # still jumping after 30 steps
    a = solve_linear_tilt(s, b, target, kappa)
    assert abs(a[0] + kappa * (softmax(s @ a) @ s - target)[0]) < 1e-8
    naive = steer(BASE1, MeanCalibration(0.4, kappa, naive=True), N, seed=0)
    principled = steer(BASE1, MeanCalibration(0.4, kappa), N, seed=0)
    exact = mean_calibration_tilt(BASE1, [0.4], kappa).tilted.mean()[0]
    assert abs(naive.mean()[0] - exact) > 5 * max(abs(principled.mean()[0] - exact), 0.01)


def test_a_linear_reward_is_fk_steering_under_the_same_seed():
    for threshold, scheme in ((0.5, "systematic"), (0.9, "multinomial")):
        ours = steer(BASE1, PointwiseReward(linear, lam=2.0), 1000, seed=4, ess_threshold=threshold, resampling=scheme)
        fk = fk_steering(BASE1, linear, 2.0, 1000, seed=4, ess_threshold=threshold, resampling=scheme)
        assert len(ours.resample_times) > 0 and np.array_equal(ours.resample_times, fk.resample_times)
        assert np.allclose(ours.positions, fk.positions, atol=1e-12)
        assert np.allclose(ours.weights, fk.weights, atol=1e-10)
        assert np.allclose(ours.ess, fk.ess, rtol=1e-9)


def test_log_weights_accumulate_without_resampling():
    """ESS threshold 0: never resample, so the weights are exactly the importance weights exp(lam r(x0))."""
    result = steer(BASE1, PointwiseReward(linear, lam=1.0), 500, seed=2, ess_threshold=0.0)
    assert len(result.resample_times) == 0
    assert np.allclose(result.weights, softmax(result.positions[:, 0]), atol=1e-12)


def test_gradient_guidance_alone_is_biased_and_the_weights_remove_it():
    base = GaussianMixtureBase([0.8, 0.2], [-1.0, 1.0], [0.35, 0.35])
    exact = exact_samples(exponential_tilt(base, [1.0]))
    truth = (exact[:, 0] > 0).mean()
    biased = gradient_guidance(base, PointwiseReward(linear, lam=1.0), N, seed=0)
    guided = steer(base, PointwiseReward(linear, lam=1.0), N, seed=0, guidance=True)
    bias = abs((biased.positions[:, 0] > 0).mean() - truth)      # 4000 samples: standard error ~0.008
    assert bias > 0.03 and bias > 3 * abs(guided.weights @ (guided.positions[:, 0] > 0) - truth)
    assert_matches(guided, exact)


@pytest.mark.slow(reason="kernel rewards solve a damped fixed point over the particle Gram matrix at every step (36 s on 2 cores)")
def test_kernel_rewards_are_self_consistent_and_move_the_right_way():
    z = BASE2.sample(800, 5)
    b = np.zeros(len(z))
    for reward in (KernelRepulsion(2.0, bandwidth=0.5), MMDToTarget(z[:200] + 1.0, kappa=5.0, bandwidth=0.5)):
        potential = reward.solve(z, b)
        assert np.allclose(potential.at(z), potential.values, atol=1e-5)   # frozen state reproduces phi
    spread = steer(BASE2, KernelRepulsion(10.0, bandwidth=0.5), 2000, seed=0)
    base = unguided(BASE2, 2000, seed=0)
    var = lambda r: np.trace(np.cov(r.positions.T, aweights=r.weights))  # noqa: E731
    assert var(spread) > 1.1 * var(base)
    target = BASE2.sample(500, 6) + np.array([0.8, 0.0])
    pulled = steer(BASE2, MMDToTarget(target, kappa=20.0, bandwidth=0.5), 2000, seed=0)
    assert pulled.mean()[0] > base.mean()[0] + 0.2


def test_damped_fixed_point_converges_where_plain_iteration_oscillates():
    rng = np.random.default_rng(0)
    b = rng.normal(size=50)
    update = lambda w: -30.0 * w * 50    # slope 30: the plain iteration phi <- update(...) oscillates  # noqa: E731
    phi = damped_fixed_point(b, update, slope=30.0)
    residual = update(softmax(b + phi)) - phi
    assert np.ptp(residual) < 1e-5


def test_resampling_schemes_are_unbiased():
    w = np.array([0.5, 0.25, 0.15, 0.1])
    for scheme in ("systematic", "stratified", "multinomial"):
        rng = np.random.default_rng(1)
        counts = np.mean([np.bincount(resample(np.log(w), rng, scheme), minlength=4) for _ in range(4000)], 0)
        assert np.allclose(counts / 4, w, atol=0.01)


def test_seeded_stoppable_and_validated():
    a = steer(BASE1, PointwiseReward(linear), 300, seed=7)
    b = steer(BASE1, PointwiseReward(linear), 300, seed=7)
    assert np.array_equal(a.positions, b.positions) and np.array_equal(a.weights, b.weights)
    log = ProgressLog(stop_after=10)
    stopped = steer(BASE1, PointwiseReward(linear), 300, seed=7, progress=log)
    assert stopped.steps_done == 10 and log.steps == list(range(1, 11))
    with pytest.raises(ValueError, match=r"^window: \(0.5, 0.2\); allowed 0 <= start < end <= 1"):
        steer(BASE1, PointwiseReward(linear), 100, window=(0.5, 0.2))
    with pytest.raises(ValueError, match="^ess_threshold: .*allowed"):
        steer(BASE1, PointwiseReward(linear), 100, ess_threshold=1.5)
    with pytest.raises(ValueError, match="^resampling: 'residual' is not an option"):
        steer(BASE1, PointwiseReward(linear), 100, resampling="residual")
    with pytest.raises(ValueError, match="^weights: .*allowed nonnegative weights that sum to 1"):
        GaussianMixtureBase([0.5, 0.6], [0, 1], [1, 1])
    with pytest.raises(ValueError, match="^target: 2 values for a statistic of dimension 1"):
        steer(BASE1, MeanCalibration([0.1, 0.2], 1.0), 100)
