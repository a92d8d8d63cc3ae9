"""Nulls for distributional_steering's two identities, each the same identity test where it must fail.

- Pointwise special case: on the pointwise tilt the mean-field scheme equals FK steering (the
  ``baselines`` section, seed 0). On mean calibration (the page's scenario, kappa 4) the reward's first
  variation, ``a . x`` with ``a = -kappa (E_mu[x] - target)``, moves with the measure; FK steering with it
  frozen at the base measure is a pointwise tilt, and it must not equal the mean-field scheme, which
  re-evaluates it. Stored: the largest difference of the two runs' means and W1 to the exact target.
- Batch-level foundation: particle guidance equals the framework's unweighted repulsion proposal (the
  ``batch_level`` section). The unguided sampler (the same proposal without the reward's first
  variation, same seed and particles) must not: stored, its largest particle difference from particle
  guidance.

    python bench/distributional_steering.py --sections identity_nulls   # seconds
"""

from __future__ import annotations

import numpy as np


def pointwise_null(seed: int = 0, n_particles: int = 1000) -> dict:
    """Mean calibration: the mean-field scheme against FK steering with the first variation frozen at the base."""
    from core.distributional_steering.baselines import fk_steering
    from core.distributional_steering.scenarios import ScenarioConfig, base_of, distance, exact_target, run, target_point

    config = ScenarioConfig(reward="calibration", strength=4.0, n_particles=n_particles)
    base, target = base_of(config), target_point(config)
    a = -(np.asarray(base.mean()) - target)          # the first variation's direction at the base, per unit kappa
    frozen = fk_steering(base, lambda z: z @ a, config.strength, n_particles, seed, config.ess_threshold,
                         (config.window_start, config.window_end), config.resampling)
    scheme = run(config, seed)
    exact = exact_target(config)
    rows = {}
    for name, result in (("mean-field particles", scheme), ("FK steering, frozen first variation", frozen)):
        w = result.weights
        rows[name] = {**{f"mean x{k + 1}": float(v) for k, v in enumerate(w @ result.positions)},
                      "W1 to target": distance(result.positions, w, exact)}
    one, two = rows.values()
    return {"reward": "calibration", "kappa": config.strength, "seed": seed, "rows": rows,
            "max_gap": max(abs(one[k] - two[k]) for k in one)}


def batch_null(seed: int = 0) -> dict:
    """Repulsion: particle guidance against the unguided sampler, the same seed and particles."""
    from core.distributional_steering.baselines import particle_guidance, unguided
    from core.distributional_steering.scenarios import BATCH_PARTICLES, REPULSION_BANDWIDTH, ScenarioConfig, base_of

    config = ScenarioConfig(reward="repulsion", strength=10.0)
    base = base_of(config)
    guided = particle_guidance(base, config.strength, REPULSION_BANDWIDTH, BATCH_PARTICLES, seed)
    plain = unguided(base, BATCH_PARTICLES, seed)
    return {"gamma": config.strength, "seed": seed, "n_particles": BATCH_PARTICLES,
            "max_gap": float(np.abs(guided.positions - plain.positions).max())}


def identity_nulls() -> dict:
    """Both nulls (the ``identity_nulls`` section)."""
    return {"pointwise": pointwise_null(), "batch": batch_null()}
