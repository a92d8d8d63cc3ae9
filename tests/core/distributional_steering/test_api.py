"""The public API's contract: result types in place of tuples, every entry point refuses bad input before
doing anything (the field named), and the asset builder's command lives in ship.py."""

import numpy as np
import pytest

from core.common.results import result_to_dict
from core.distributional_steering import (GaussianMixtureBase, GridTilt, KernelRepulsion, MeanTilt, MomentConstraint,
                                          Protein, exponential_tilt, fk_steering, gradient_guidance, grid_sample,
                                          histogram_distance, linear_tilt_grid, load_protein, mean_calibration_tilt,
                                          monte_carlo_floor, particle_guidance, plugin_guidance, repulsion_grid,
                                          resample, steer, tempered_grid, train_denoiser, unguided)

BASE = GaussianMixtureBase([0.3, 0.7], [[-1.0], [1.0]], [[0.4], [0.6]])
X = np.linspace(-4, 4, 401)


def test_tilts_are_result_types_that_agree_with_each_other():
    exact = mean_calibration_tilt(BASE, [0.2])
    assert isinstance(exact, MeanTilt) and exact.tilted.mean() == pytest.approx([0.2], abs=1e-8)
    assert np.allclose(exponential_tilt(BASE, exact.a).mean(), exact.tilted.mean())
    grid = linear_tilt_grid(BASE, [X], lambda z: z, [0.2])
    assert isinstance(grid, GridTilt) and grid.a == pytest.approx(exact.a, abs=1e-4)    # quadrature vs closed form
    assert (grid.density * X).sum() == pytest.approx(0.2, abs=1e-6)
    assert set(result_to_dict(grid)) == {"a", "density"}
    # Control: another target gives another tilt.
    assert abs(linear_tilt_grid(BASE, [X], lambda z: z, [0.5]).a[0] - exact.a[0]) > 0.1


def test_load_protein_returns_a_result_type():
    protein = load_protein()
    assert isinstance(protein, Protein) and protein.base.dim == 36 and protein.reference.shape == (4000, 36)
    assert protein.base.metadata["made_by"] == "python -m core.distributional_steering.ship protein"


def test_bad_input_is_refused_before_anything_runs(tmp_path):
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(ValueError, match="^scheme: 'fancy' is not an option"):
        resample(np.zeros(4), rng, "fancy")
    assert rng.bit_generator.state == before
    with pytest.raises(ValueError, match="^n_particles: 1 is out of range"):
        unguided(BASE, n_particles=1)
    with pytest.raises(ValueError, match="^n_steps: 5 is out of range"):
        particle_guidance(BASE, 1.0, n_steps=5)
    with pytest.raises(ValueError, match="^gamma: -1 is out of range"):
        particle_guidance(BASE, -1.0)
    with pytest.raises(ValueError, match="^bandwidth: 0 is out of range"):
        particle_guidance(BASE, 1.0, bandwidth=0.0)
    with pytest.raises(ValueError, match="^every: 0 is out of range"):
        gradient_guidance(BASE, MomentConstraint([0.2]), every=0)
    with pytest.raises(ValueError, match="^scale: -1 is out of range"):
        plugin_guidance(BASE, KernelRepulsion(1.0), scale=-1.0)
    with pytest.raises(ValueError, match="^lam: 10000 is out of range"):
        fk_steering(BASE, lambda z: z[:, 0], lam=1e4)
    with pytest.raises(ValueError, match="^guidance_scale: -1 is out of range"):
        steer(BASE, MomentConstraint([0.2]), guidance_scale=-1.0)
    with pytest.raises(ValueError, match="^n_snapshots: 0 is out of range"):
        steer(BASE, MomentConstraint([0.2]), n_snapshots=0)
    with pytest.raises(ValueError, match="^kappa: -1 is out of range"):
        mean_calibration_tilt(BASE, [0.2], kappa=-1.0)
    with pytest.raises(ValueError, match="^gamma: -1 is out of range"):
        tempered_grid(BASE, -1.0, [X])
    with pytest.raises(ValueError, match="^bandwidth: 0 is out of range"):
        repulsion_grid(BASE, 1.0, 0.0, [X])
    density = tempered_grid(BASE, 0.0, [X])
    with pytest.raises(ValueError, match="^n: 0 is out of range"):
        grid_sample(density, [X], 0, seed=0)
    with pytest.raises(ValueError, match="^bins: 0 is out of range"):
        histogram_distance(np.zeros((3, 1)), np.full(3, 1 / 3), density, [X], bins=0)
    with pytest.raises(ValueError, match="^repeats: 0 is out of range"):
        monte_carlo_floor(density, [X], 10, repeats=0)
    with pytest.raises(ValueError, match="^steps: 0; allowed integers >= 1"):
        train_denoiser(rng.standard_normal((10, 2)), steps=0, seed=0)
    with pytest.raises(ValueError, match="^widht: not a DenoiserConfig field; allowed width"):
        train_denoiser(rng.standard_normal((10, 2)), steps=5, seed=0, widht=64)
    with pytest.raises(ValueError, match="^directory: .* holds no protein_reference.npy"):
        load_protein(tmp_path)
    from core.distributional_steering.rewards import EntropyReward, score_log_density

    with pytest.raises(ValueError, match="^base: has no score"):
        EntropyReward(1.0, base=object())
    with pytest.raises(ValueError, match="^nodes: 1 is out of range"):
        score_log_density(lambda y: -y, np.zeros((2, 1)), [0.0], nodes=1)


def test_the_builder_command_is_ship_protein(monkeypatch):
    from core.distributional_steering import protein, ship

    calls = []
    monkeypatch.setattr(protein, "ship", lambda **kw: calls.append(sorted(kw)) or {"seed": 0})
    ship.main(["protein"])
    ship.main([])
    assert calls == [["sample_progress", "train_progress"]] * 2
    with pytest.raises(SystemExit):
        ship.main(["reference"])
