"""The shipped first view equals a recomputation (MAPIE's network aside, which the page does not retrain)."""

import numpy as np
import pytest

from core.kernel_conformal import CompareConfig, compare_scores, region_view
from core.kernel_conformal.ship import SEED, shipped_comparison, shipped_view


def test_the_shipped_regions_and_comparison_are_recomputed():
    view, comp = shipped_view(), shipped_comparison()
    assert view is not None and comp is not None
    again = region_view(CompareConfig(), SEED)          # the same data and scores, without MAPIE's network
    for name in ("mks_grid", "ellipsoid_grid", "cal_residuals", "test_residuals", "mks_inside"):
        np.testing.assert_allclose(getattr(view, name), getattr(again, name), rtol=1e-9, atol=1e-12, err_msg=name)
    # a quantile of float sums: equal to the last bits only on the CPU that shipped it (9e-16 apart on another)
    assert view.mks_threshold == pytest.approx(again.mks_threshold, rel=1e-9) and view.alpha == 0.1
    assert view.mapie_ellipse.shape == (121, 2) and again.mapie_ellipse.shape == (0, 2)   # MAPIE was shipped
    c = compare_scores(CompareConfig(), SEED)
    k = len(c.scores)
    assert comp["scores"][:k] == c.scores and comp["scores"][k:] == ["mapie"]
    np.testing.assert_allclose(comp["coverage"][:k], c.coverage)
    np.testing.assert_allclose(comp["volume"][:k], c.volume, rtol=1e-9)
    # a ratio of volumes: equal to the last bits only on the CPU that shipped it (5e-16 apart on another)
    assert comp["ratio_mks_ellipsoid"] == pytest.approx(c.ratio_mks_ellipsoid, rel=1e-9)
