"""The shipped first view equals a recomputation of its first steps and of its saddle probe."""

import numpy as np
import pytest

from core.mcr2 import AscentConfig, ascend, saddle_probe
from core.mcr2.ship import SEED, shipped_view


def test_the_shipped_ascent_starts_as_a_rerun_and_ends_at_the_predicted_root():
    view = shipped_view()
    assert view is not None and view.config == AscentConfig()
    rerun = ascend(view.config.replace(steps=30), seed=SEED)
    for name in ("objective", "grad_norm", "distance", "overlap"):
        assert np.allclose(view.arrays[name][:31], getattr(rerun, name), rtol=1e-12, atol=1e-14), name
    top = view.arrays["spectra"][-1, 0, : view.ranks[0]]
    assert top == pytest.approx(np.full(top.size, view.predicted_s[0]), rel=1e-5)
    assert view.predicted_s[0] == pytest.approx(45.40088, abs=1e-5)


def test_the_shipped_saddle_probe_is_recomputed():
    view = shipped_view()
    probe = saddle_probe(view.config, seed=SEED)
    assert np.allclose(view.saddle["ratio"], probe.ratio, rtol=1e-9)
    assert view.digits["mcr2"]["geometry"]["rate_reduction"] > view.digits["cross_entropy"]["geometry"]["rate_reduction"]
