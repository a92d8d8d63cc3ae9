"""The malora page through AppTest: the shipped merge table, landscape and λ sweep, and its controls."""

import numpy as np

from core.malora.ship import shipped_merge, shipped_sweep
from tests.pages import apptest


def open_page(**params):
    return apptest.open_page("malora", timeout=60, **params)


def test_default_view_draws_the_shipped_merge_landscape_and_sweep():
    at = open_page()
    assert at.title[0].value == "Margin-based LoRA merging"
    shipped, sweep = shipped_merge(), shipped_sweep()
    charts = apptest.charts(at)
    assert {"chart-merge", "chart-landscape", "chart-sweep"} <= set(charts)
    bars = next(t for t in charts["chart-merge"]["data"] if t["type"] == "bar")
    res = shipped["result"]
    expected = [m if m is not None else np.nan for m, name in zip(res["union_margin"], res["methods"]) if name != "base"]
    np.testing.assert_allclose(apptest.values(bars, "y"), expected)
    malora = res["methods"].index("malora")
    assert res["union_margin"][malora] > res["union_margin"][res["methods"].index("task_arithmetic")]
    star = next(t for t in charts["chart-landscape"]["data"] if t.get("name", "").startswith("MaLoRA"))
    np.testing.assert_allclose([star["x"][0], star["y"][0]], shipped["landscape"]["alpha_star"])
    pre = next(t for t in charts["chart-sweep"]["data"] if t.get("name") == "pretraining margin")
    np.testing.assert_allclose(apptest.values(pre, "y"), sweep["result"]["pre_margin"])
    table = at.dataframe[0].value
    assert list(table["method"])[1].startswith("MaLoRA")
    assert "shipped run" in " ".join(c.value for c in at.caption)


def test_alpha_sliders_move_the_point_and_read_the_landscape():
    at = open_page(a1="0.5", a2="0.5")
    land = shipped_merge()["landscape"]
    v, z = np.asarray(land["values"]), np.asarray(land["margin"], dtype=float)
    i = int(np.abs(v - 0.5).argmin())
    metric = next(m for m in at.metric if m.label.startswith("Union margin at your"))
    assert float(metric.value) == round(float(z[i, i]), 4)
    mine = next(t for t in apptest.charts(at)["chart-landscape"]["data"] if t.get("name") == "your α")
    assert mine["x"] == [0.5] and mine["y"] == [0.5]


def test_a_changed_control_offers_a_live_run_and_the_shipped_view_stays():
    at = open_page(tasks="Text (MiniLM embeddings of generated sentences)")
    assert any(b.label == "Train adapters and merge" for b in at.button)
    assert "shipped run" in " ".join(c.value for c in at.caption)


def test_a_live_merge_run_replaces_the_table():
    at = open_page(overlap="0.3")
    start = next(b for b in at.button if b.label == "Train adapters and merge")
    start.click().run()
    run = at.session_state[start.key.removesuffix(":start")]
    assert run.wait(90) and run.state == "done"
    at.run()
    assert not at.exception
    assert "your run" in " ".join(c.value for c in at.caption)
    table = at.dataframe[0].value
    assert np.isfinite(table["union margin"].iloc[1])
