"""Public entry points outside a Config validate their numbers, naming the field, before any work."""

import numpy as np
import pytest

from core.robust_decisions import (PostedPricing, RateConfig, best_reserve, fit_slope, grid_minimax, rate_cell,
                                   state_curves, three_point_law)


def test_grids_and_windows_refuse_bad_sizes():
    problem = PostedPricing()
    with pytest.raises(ValueError, match=r"^n_actions: .*allowed"):
        grid_minimax(problem, 5.0, 1.0, n_actions=1)
    with pytest.raises(ValueError, match=r"^n_states: .*allowed"):
        grid_minimax(problem, 5.0, 1.0, n_states=2.5)
    with pytest.raises(ValueError, match=r"^n: .*allowed"):
        state_curves(problem, 5.0, 0.5, n=0)
    with pytest.raises(ValueError, match=r"^width: .*allowed"):
        state_curves(problem, 5.0, 0.5, width=-1.0)
    with pytest.raises(ValueError, match=r"^eps: .*allowed"):
        state_curves(problem, 5.0, -0.5)
    # the control: valid sizes are accepted
    assert grid_minimax(problem, 5.0, 1.0, n_actions=11, n_states=11).worst >= 0


def test_laws_reserves_and_slopes_refuse_bad_input():
    with pytest.raises(ValueError, match=r"^delta: .*allowed"):
        three_point_law(0.5, 0.1)          # delta < eta: no law of that RMSE
    with pytest.raises(ValueError, match=r"^eta: .*allowed"):
        three_point_law(-0.1, 0.5)
    with pytest.raises(ValueError, match=r"^values: empty"):
        best_reserve([])
    with pytest.raises(ValueError, match=r"^loss: shape"):
        fit_slope(np.ones(4), np.ones(5))


def test_a_cell_outside_the_sweep_is_refused():
    cfg = RateConfig(n_points=3, replicates=2)
    with pytest.raises(ValueError, match=r"^i: .*allowed"):
        rate_cell(cfg, 0, 3, 0)
    with pytest.raises(ValueError, match=r"^r: .*allowed"):
        rate_cell(cfg, 0, 0, -1)
