"""The kernel_conformal page through AppTest: the shipped first view and its numbers."""

import numpy as np

from core.kernel_conformal.ship import shipped_comparison, shipped_view
from tests.pages import apptest


def open_page(**params):
    return apptest.open_page("kernel_conformal", timeout=60, **params)


def test_default_view_draws_the_shipped_regions_and_numbers():
    at = open_page()
    assert not at.exception
    assert at.title[0].value == "Multivariate kernel conformal score"
    view, comp = shipped_view(), shipped_comparison()
    fig = apptest.charts(at)["chart-regions"]
    cal = next(t for t in fig["data"] if t.get("name") == "calibration residuals")
    np.testing.assert_allclose(apptest.values(cal, "x"), view.cal_residuals[:, 0])
    mks = next(t for t in fig["data"] if t.get("name") == "MKS region")
    assert abs(mks["contours"]["start"] - view.mks_threshold) < 1e-12
    ratio = next(float(m.value) for m in at.metric if m.label.startswith("Volume ratio"))
    assert abs(ratio - comp["ratio_mks_ellipsoid"]) < 6e-4 and ratio < 1.0


def test_a_changed_control_offers_a_live_run_instead_of_the_shipped_view():
    at = open_page(law="Gaussian (elliptical control)")
    assert not at.exception
    assert any(b.label == "Compute these regions" for b in at.button)
    assert "shipped view" in " ".join(c.value for c in at.caption)   # until the visitor runs it
