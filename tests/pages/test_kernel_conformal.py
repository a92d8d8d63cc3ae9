"""The kernel_conformal page through AppTest: the shipped first view and its numbers, the live comparison."""

import numpy as np
import pytest

from core.kernel_conformal import CompareConfig, compare_scores, sweep
from core.kernel_conformal.ship import shipped_comparison, shipped_view
from tests.pages import apptest


def open_page(**params):
    return apptest.open_page("kernel_conformal", timeout=60, **params)


def test_default_view_draws_the_shipped_regions_mapie_included_and_numbers():
    at = open_page()
    assert not at.exception
    assert at.title[0].value == "Multivariate kernel conformal score"
    view, comp = shipped_view(), shipped_comparison()
    fig = apptest.charts(at)["chart-regions"]
    cal = next(t for t in fig["data"] if t.get("name") == "calibration residuals")
    np.testing.assert_allclose(apptest.values(cal, "x"), view.cal_residuals[:, 0])
    mks = next(t for t in fig["data"] if t.get("name") == "MKS region")
    assert abs(mks["contours"]["start"] - view.mks_threshold) < 1e-12
    mapie = next(t for t in fig["data"] if t.get("name") == "MAPIE region at the first test x")
    np.testing.assert_allclose(apptest.values(mapie, "y"), view.mapie_ellipse[:, 1])
    ratio = next(float(m.value) for m in at.metric if m.label.startswith("Volume ratio"))
    assert abs(ratio - comp["ratio_mks_ellipsoid"]) < 6e-4 and ratio < 1.0
    rank = next(float(m.value) for m in at.metric if m.label.startswith("Effective rank"))
    assert rank == pytest.approx(comp["effective_rank"], abs=6e-3)
    table = at.table[0].value
    assert "mapie" in comp["scores"] and len(table) == len(comp["scores"]) == 5
    np.testing.assert_allclose(table["coverage"].to_numpy(float), comp["coverage"])
    assert not [b for b in at.button if b.label in ("Compute these regions", "Compare the scores at d = 2")]


def test_a_changed_control_offers_a_live_run_instead_of_the_shipped_view():
    at = open_page(law="Gaussian (elliptical control)")
    assert not at.exception
    assert any(b.label == "Compute these regions" for b in at.button)
    assert "shipped view" in " ".join(c.value for c in at.caption)   # until the visitor runs it


def test_a_higher_dimension_keeps_the_2d_regions_and_compares_the_scores_live_at_that_dimension():
    at = open_page(dim="3")
    captions = " ".join(c.value for c in at.caption)
    assert "drawn at d = 2" in captions and "shipped view" in captions
    start = next(b for b in at.button if b.label == "Compare the scores at d = 3")
    start.click().run()
    slot = start.key.removesuffix(":start")
    run = at.session_state[slot]
    assert run.wait(600) and run.state == "done", (run.state, run.error)
    at.run()
    expected = compare_scores(CompareConfig(dim=3), seed=0)
    table = at.table[0].value
    np.testing.assert_allclose(table["coverage"].to_numpy(float), expected.coverage)
    np.testing.assert_allclose(table["volume"].to_numpy(float), expected.volume, rtol=1e-9)
    assert any("your run (d = 3, seed 0)" in m.value for m in at.markdown)


def test_the_sweep_figure_draws_the_ratio_and_both_coverages_against_one_minus_alpha():
    from pages.kernel_conformal import sweep_figure

    s = sweep(CompareConfig(n_fit=40, n_cal=40, n_test=60, mc_samples=1000), "alpha", (0.1, 0.2), n_seeds=2)
    traces = {t.name: t for t in sweep_figure(s).data}
    np.testing.assert_allclose(traces["volume MKS / ellipsoid"].y, s.ratio)
    np.testing.assert_allclose(traces["coverage mks"].y, np.nanmean(s.coverage[:, :, 0], axis=1))
    np.testing.assert_allclose(traces["coverage ellipsoid"].y, np.nanmean(s.coverage[:, :, 1], axis=1))
    np.testing.assert_allclose(traces["1 − α"].y, [0.9, 0.8])


def test_a_stopped_sweep_draws_what_it_reached_without_a_warning():
    import dataclasses
    import warnings

    from pages.kernel_conformal import sweep_figure

    s = sweep(CompareConfig(n_fit=40, n_cal=40, n_test=60, mc_samples=1000), "alpha", (0.1, 0.2), n_seeds=2)
    coverage = s.coverage.copy()
    coverage[1] = np.nan                            # stopped before the second value's first seed
    stopped = dataclasses.replace(s, coverage=coverage)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        traces = {t.name: t for t in sweep_figure(stopped).data}
    y = np.asarray(traces["coverage mks"].y, dtype=float)
    assert y[0] == pytest.approx(np.mean(s.coverage[0, :, 0])) and np.isnan(y[1])
