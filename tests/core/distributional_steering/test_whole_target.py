"""The whole tilted target, not only the statistic a reward constrains (issue 20).

Each reward family runs on a 2-D mixture drawn from a seed, and the weighted particles are compared
with the exact target on a grid (:mod:`core.distributional_steering.closed_forms`) on what the reward
does not touch: the free coordinate's mean and spread, within 3 Monte Carlo standard errors
(sd / sqrt(ESS)), and the binned W1 of the whole 2-D sample (``ot.emd2``), within 1.5 times the same
distance for ESS exact samples of the target (measured ratios 0.6 to 0.9). The controls that must fail:
the unguided sampler (the base itself) is over 2 floors away on every family; for the hard
constraint, the pre-issue scheme (the tilt solved on the Tweedie predictions themselves) ends on a
final tilt a several times off the exact one; for the entropy, the pre-issue KDE estimate of log p
leaves the tempered spread too narrow.
"""

import numpy as np
import pytest
from scipy.special import softmax

from core.distributional_steering.base import GaussianMixtureBase
from core.distributional_steering.baselines import particle_guidance, plugin_guidance, unguided
from core.distributional_steering.closed_forms import grid_points, linear_tilt_grid, repulsion_grid, tempered_grid
from core.distributional_steering.oracles import histogram_distance, monte_carlo_floor
from core.distributional_steering.rewards import (EntropyReward, KernelRepulsion, MeanCalibration, MomentConstraint,
                                                  PointwiseReward)
from core.common.seeding import derive_rng
from core.distributional_steering.steer import steer

pytestmark = pytest.mark.claim

AXES = [np.linspace(-4, 4, 161)] * 2
MESH = grid_points(AXES)


def random_mixture(seed: int) -> GaussianMixtureBase:
    rng = derive_rng(seed, "mixture")
    k = int(rng.integers(3, 5))
    return GaussianMixtureBase(rng.dirichlet(np.full(k, 3.0)), rng.uniform(-1.3, 1.3, (k, 2)),
                               rng.uniform(0.3, 0.5, (k, 2)))


def x1(z):
    return z[:, :1]


def x1_squared(z):
    return z[:, :1] ** 2


def tilt_density(base, a1):
    logq = base.log_prob(MESH) + a1 * MESH[:, 0]
    q = np.exp(logq - logq.max())
    return (q / q.sum()).reshape(len(AXES[0]), -1)


def moments(points, weights):
    mean = weights @ points
    return mean, np.sqrt(weights @ (points - mean) ** 2)


def family(name, base):
    """(reward, exact density on the grid, the coordinates the reward leaves free, steer kwargs)."""
    q0 = np.exp(base.log_prob(MESH))
    q0 /= q0.sum()
    m1 = q0 @ MESH[:, 0]
    if name == "soft calibration":
        return (MeanCalibration([m1 + 0.6], kappa=4.0, statistic=x1),
                linear_tilt_grid(base, AXES, x1, [m1 + 0.6], 4.0).density, [1], {})
    if name == "hard constraint":
        return MomentConstraint([m1 + 0.6], statistic=x1), linear_tilt_grid(base, AXES, x1, [m1 + 0.6]).density, [1], {}
    if name == "second moment":
        target = 0.5 * (q0 @ MESH[:, 0] ** 2)
        return (MomentConstraint([target], statistic=x1_squared),
                linear_tilt_grid(base, AXES, x1_squared, [target]).density, [1], {})
    if name == "pointwise tilt":
        return PointwiseReward(lambda z: z[:, 0], 1.0), tilt_density(base, 1.0), [1], {}
    if name == "entropy":
        return EntropyReward(1.0, base=base), tempered_grid(base, 1.0, AXES), [0, 1], {"every": 10}
    return (KernelRepulsion(4.0, bandwidth=0.5), repulsion_grid(base, 4.0, 0.5, AXES), [0, 1],
            {"every": 10, "n_particles": 1000})


FAMILIES = ["soft calibration", "hard constraint", "second moment", "pointwise tilt", "entropy", "repulsion"]


@pytest.mark.parametrize("name", FAMILIES)
def test_unconstrained_statistics_and_the_whole_measure_match_the_exact_target(name):
    base = random_mixture(FAMILIES.index(name))
    reward, density, free, kw = family(name, base)
    n = kw.pop("n_particles", 2000)
    result = steer(base, reward, n, seed=1, **kw)
    q = density.ravel()
    w, x = result.weights, result.positions
    ess = 1.0 / (w @ w)
    exact_mean, exact_sd = moments(MESH, q)
    mean, sd = moments(x, w)
    se = exact_sd / np.sqrt(ess)
    for k in free:
        assert abs(mean[k] - exact_mean[k]) < 3 * se[k], (k, mean, exact_mean, se)
        assert abs(sd[k] - exact_sd[k]) < 3 * se[k] / np.sqrt(2) + 0.01, (k, sd, exact_sd)
    floor = monte_carlo_floor(density, AXES, ess, seed=2)
    assert histogram_distance(x, w, density, AXES) < 1.5 * floor
    control = unguided(base, n, seed=1)                       # the base: must be far from every tilt here
    assert histogram_distance(control.positions, control.weights, density, AXES) > 2 * floor


def test_hard_constraint_recovers_the_exact_tilt_where_the_old_scheme_collapsed():
    base = GaussianMixtureBase([0.4, 0.3, 0.2, 0.1], [[-1, 0], [1, 0.5], [0, -1], [1.5, -1]], [0.3, 0.35, 0.4, 0.3])
    a_exact = linear_tilt_grid(base, AXES, x1, [1.1]).a[0]                 # 1.276
    reward = MomentConstraint([1.1], statistic=x1)
    fixed = steer(base, reward, 1000, seed=0)
    # measured 1.27 (8 seeds: 1.24-1.30), and the tilt solved at t = 1 is already near it
    assert abs(fixed.params["a"][0] - a_exact) < 0.1 * a_exact
    assert np.abs(fixed.tilts).max() < 2 * a_exact             # no extreme tilt at high noise (measured 1.3x)
    old = MomentConstraint([1.1], statistic=x1)
    old.lookahead = False                                     # the tilt solved on the Tweedie predictions
    collapsed = steer(base, old, 1000, seed=0)
    # measured: early tilts ~5e4, 16 resamplings, a final tilt of about 0.1
    assert collapsed.tilts[0, 0] > 100 * a_exact and abs(collapsed.params["a"][0] - a_exact) > 0.5 * a_exact


def test_ess_right_after_a_resample_is_the_particle_count():
    base = random_mixture(7)
    result = steer(base, PointwiseReward(lambda z: z[:, 0], 3.0), 500, seed=3, n_snapshots=200)
    assert len(result.resample_times) >= 1
    for t in result.resample_times:
        (i,) = np.flatnonzero(np.isclose(result.snapshot_times, t))
        weights = result.snapshots[i][1]
        assert 1.0 / (weights @ weights) == pytest.approx(500, rel=1e-9)


def test_particle_guidance_is_the_framework_proposal_for_kernel_repulsion():
    """Corso et al.'s drift gamma / h^2 mean_j k_ij (z_i - z_j) / alpha_t is the gradient of the repulsion
    reward's first variation at the unweighted batch, carried to x by 1/alpha_t: the two samplers agree
    step for step; the same proposal through the Tweedie Jacobian (the framework's guidance) does not."""
    base = random_mixture(3)
    pg = particle_guidance(base, 4.0, 0.5, 200, seed=5)
    framework = plugin_guidance(base, KernelRepulsion(4.0, bandwidth=0.5), 200, seed=5)
    assert np.abs(pg.positions - framework.positions).max() < 1e-5        # measured 5e-7
    through_score = plugin_guidance(base, KernelRepulsion(4.0, bandwidth=0.5), 200, seed=5, jacobian="tweedie")
    assert np.abs(pg.positions - through_score.positions).max() > 1e-2
    other = plugin_guidance(base, KernelRepulsion(8.0, bandwidth=0.5), 200, seed=5)   # control: another gamma
    assert np.abs(pg.positions - other.positions).max() > 1e-2
    with pytest.raises(ValueError, match="^jacobian: 'exact' is not an option"):
        plugin_guidance(base, KernelRepulsion(4.0), 10, jacobian="exact")


def test_lookahead_solve_matches_its_closed_form_on_a_gaussian():
    """With z_i = x_i and a common posterior variance c, the solved a satisfies
    mean_w(z) + c a = target with w proportional to exp(a z): checked against the residual directly."""
    from core.distributional_steering.rewards import solve_linear_tilt

    z = derive_rng(0, "z").normal(size=(3000, 1))
    cov = np.full((3000, 1, 1), 0.5)
    a = solve_linear_tilt(z, np.zeros(3000), np.array([1.0]), np.inf, cov)
    w = softmax(z[:, 0] * a[0])
    assert w @ z[:, 0] + 0.5 * a[0] == pytest.approx(1.0, abs=1e-8)
    assert a[0] < solve_linear_tilt(z, np.zeros(3000), np.array([1.0]), np.inf)[0]   # smaller than without C


def test_entropy_with_a_kde_for_log_p_is_too_narrow():
    """The control for the entropy family: the same tempering with log p from a weighted KDE of the particles
    (the pre-issue estimator) fails the spread check the score-based potential passes above."""
    base = random_mixture(FAMILIES.index("entropy"))
    density = tempered_grid(base, 1.0, AXES)
    exact_sd = moments(MESH, density.ravel())[1]
    kde = steer(base, EntropyReward(1.0), 2000, seed=1, every=10)
    sd = moments(kde.positions, kde.weights)[1]
    se = exact_sd / np.sqrt(1.0 / (kde.weights @ kde.weights))
    # measured over 8 seeds: sd 0.753 / 0.693 against the exact 0.806 / 0.759
    assert (sd < exact_sd).all() and (exact_sd - sd > 3 * se / np.sqrt(2) + 0.01).any(), (sd, exact_sd, se)


def test_score_line_integral_is_the_mixture_log_density():
    """The entropy's log p: the line integral of the exact mixture score equals the closed-form log density
    (up to the origin's constant); control: a score that is not the mixture's (twice it) does not."""
    from core.distributional_steering.rewards import score_log_density
    from core.distributional_steering.sde import T_MIN

    base = random_mixture(FAMILIES.index("entropy"))
    x = derive_rng(0, "points").uniform(-3.5, 3.5, (500, 2))
    origin = x.mean(0)
    exact = base.log_prob(x, T_MIN) - base.log_prob(origin[None], T_MIN)[0]
    assert np.abs(score_log_density(lambda y: base.score(y, T_MIN), x, origin) - exact).max() < 1e-4   # measured 4e-6 on values to -60
    assert np.abs(score_log_density(lambda y: 2 * base.score(y, T_MIN), x, origin) - exact).max() > 1.0


def test_repulsion_weights_follow_the_exact_mean_field_potential():
    """The paired check (issue 20): the repulsion family's log-weights against the exact potential
    phi* = -gamma int k(., y) dmu*(y) read at the same particles. Their slope is 1 when the particles'
    self-consistent potential estimates phi* (kernel, bandwidth and strength as the exact target's;
    measured 0.99 to 1.02 over seeds 1-3, 10 % off in gamma or h moves it by 0.03 to 0.09; the controls
    below measured 0.87 and 1.15).
    Controls: the sampler's reward with another bandwidth or strength must leave the slope off 1."""
    from core.distributional_steering.closed_forms import repulsion_potential

    base = random_mixture(FAMILIES.index("repulsion"))
    _, density, _, kw = family("repulsion", base)
    n = kw.pop("n_particles")

    def slope(reward):
        r = steer(base, reward, n, seed=1, **kw)
        star = r.base_logw + repulsion_potential(density, AXES, 4.0, 0.5, r.positions)
        own = np.log(r.weights)
        return np.polyfit(star - star.mean(), own - own.mean(), 1)[0]

    assert abs(slope(KernelRepulsion(4.0, bandwidth=0.5)) - 1) < 0.04          # measured 0.986
    assert slope(KernelRepulsion(4.0, bandwidth=0.4)) < 0.94                      # control: narrower kernel
    assert slope(KernelRepulsion(5.0, bandwidth=0.5)) > 1.06                      # control: stronger repulsion


def test_base_logw_reweights_the_same_particles():
    """softmax(base_logw + the run's own potential) is the run's weights, with and without resampling."""
    base = random_mixture(7)
    for reward in (PointwiseReward(lambda z: z[:, 0], 3.0), KernelRepulsion(4.0, bandwidth=0.5)):
        r = steer(base, reward, 300, seed=3)
        phi = np.log(r.weights) - r.base_logw
        own = reward.solve(r.positions, r.base_logw).values
        assert np.allclose(softmax(r.base_logw + own), r.weights, atol=1e-6)
        assert np.ptp(phi - own) < 1e-4
    assert len(steer(base, PointwiseReward(lambda z: z[:, 0], 3.0), 300, seed=3).resample_times) >= 1
