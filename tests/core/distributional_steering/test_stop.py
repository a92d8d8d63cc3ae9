"""A stop ends the baselines' comparison and the protein run at once, and says what was skipped."""

import numpy as np

from core.common.progress import ProgressLog
from core.distributional_steering import unguided
from core.distributional_steering.scenarios import STEPS, ScenarioConfig, base_of, compare, steer_foldedness


def test_compare_stops_inside_the_second_method_and_keeps_the_first():
    config = ScenarioConfig(n_particles=100)
    log = ProgressLog(stop_after=STEPS + 3)              # the mean-field run, then 3 steps of the unguided one
    rows = compare(config, seed=0, progress=log).rows
    assert [r["method"] for r in rows] == ["mean-field particles"]      # no exact-target row, no later method
    assert len(log.steps) == STEPS + 3 and log.steps[-1] == STEPS + 3 and set(log.totals) == {3 * STEPS}
    full = compare(config, seed=0).rows
    assert rows[0]["W1 to target"] == full[0]["W1 to target"]          # what finished is what a full run gives
    assert [r["method"] for r in full][-1] == "exact target"


def test_the_protein_run_stopped_early_skips_the_unguided_comparison():
    log = ProgressLog(stop_after=2)
    out = steer_foldedness(0.6, n_particles=50, seed=0, progress=log)
    assert out.stopped and out.base is None and len(log.steps) == 2
    done = steer_foldedness(0.6, n_particles=50, seed=0)
    assert not done.stopped and done.base.shape == (50,)


def test_a_stopped_baseline_returns_its_current_particles():
    base = base_of(ScenarioConfig())
    log = ProgressLog(stop_after=5)
    result = unguided(base, 80, seed=1, progress=log)
    assert len(log.steps) == 5 and result.positions.shape == (80, 2)
    # five steps in, t is near 1: Tweedie predictions sit close to the base mean, far tighter than samples
    assert result.positions.std(0).max() < 0.5 * unguided(base, 80, seed=1).positions.std(0).min()


def test_the_batch_level_comparison_stops_inside_particle_guidance():
    from core.distributional_steering.scenarios import batch_level

    log = ProgressLog(stop_after=3)
    out = batch_level(ScenarioConfig(reward="repulsion", strength=4.0), seed=0, n_particles=50, progress=log)
    assert out.stopped and out.rows == [] and np.isnan(out.max_gap) and len(log.steps) == 3
    assert set(log.totals) == {4 * STEPS}
