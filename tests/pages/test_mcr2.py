"""The mcr2 page: the shipped first view holds the core's numbers, a live run replaces it, bad input is an error."""

import numpy as np
import pytest

from core.mcr2 import AscentConfig, saddle_probe
from core.mcr2.ship import shipped_run
from tests.pages import apptest


def metric(at, label_start):
    return next(m.value for m in at.metric if m.label.startswith(label_start))


def test_default_view_draws_the_shipped_run_and_the_saddle_control():
    at = apptest.open_page("mcr2")
    run = shipped_run()
    charts = apptest.charts(at)
    assert {"chart-gap", "chart-bound", "chart-pl", "chart-spectra", "chart-angles", "chart-digits"} <= set(charts)
    gap = charts["chart-gap"]["data"]
    assert np.allclose(apptest.values(gap[0], "y"), run.gap[run.gap > 0])
    assert "slope" in gap[1]["name"] and f"{run.fit.slope:.5f}" in gap[1]["name"]
    bound = {t["name"]: t for t in charts["chart-bound"]["data"]}
    assert np.allclose(apptest.values(bound["tail"], "y"), run.distance[run.tail])
    probe = saddle_probe(AscentConfig(), seed=0)
    control = bound["control: near a saddle"]
    assert np.allclose(apptest.values(control, "y") / apptest.values(control, "x"), probe.ratio)
    assert metric(at, "Log-gap slope") == f"{run.fit.slope:.5f}"
    assert metric(at, "PL ratio") == f"{run.fit.pl_min:.4f}"
    assert metric(at, "Predicted σ²") == "45.40088"
    spectra = charts["chart-spectra"]["data"]
    assert np.allclose(apptest.values(spectra[0], "y")[-1], run.predicted_s[0], rtol=1e-5)
    assert not [b for b in at.button if b.key and b.key.startswith("liverun:")]   # nothing to run at the defaults


def test_a_lambda_above_the_critical_value_is_a_clear_error():
    at = apptest.open_page("mcr2", lam="0.2")
    assert [e.value for e in at.error] and at.error[0].value.startswith("lam: 0.2 exceeds the critical")
    assert not apptest.charts(at)


def test_a_live_run_replaces_the_shipped_view_with_its_own_numbers():
    at = apptest.open_page("mcr2", seed="1", dim="4", per_class="6", lr="1.0", steps="600")
    start = next(b.key for b in at.button if b.key and b.key.startswith("liverun:mcr2:ascent") and b.key.endswith(":start"))
    assert "the shipped run" in " ".join(c.value for c in at.caption)
    at.button(key=start).click().run()
    run = at.session_state[start.removesuffix(":start")]
    assert run.wait(300) and run.state == "done", (run.state, run.error)
    at.run()
    result = run.result
    assert result.config.dim == 4 and result.seed == 1
    gap = apptest.charts(at)["chart-gap"]["data"][0]
    assert np.allclose(apptest.values(gap, "y"), result.gap[result.gap > 0])
    assert any("your run (seed 1)" in c.value for c in at.caption)
    assert result.spectra[-1, 0, 0] == pytest.approx(result.predicted_s[0], rel=1e-4)


def test_details_and_export():
    assert not apptest.open_page("mcr2").get("download_button")   # closed on the first view: nothing inside sent
    at = apptest.open_page("mcr2", details=True)
    labels = [b.label for b in at.get("download_button")]
    assert labels == ["JSON", "CSV"]
    from core.common.results import result_to_frame
    from core.mcr2 import trace_of

    table = result_to_frame(trace_of(shipped_run()))       # what the CSV button holds: one row per step
    assert len(table) == shipped_run().objective.size and np.allclose(table["gap"], shipped_run().gap)
