"""The grace page through AppTest: the composed scene's concepts, the map, the tables, the live refit."""

import json

import numpy as np

from core.grace.shipped import load_shipped
from tests.pages import apptest


def open_page():
    return apptest.open_page("grace")


def chart(at, index):
    return json.loads(at.get("plotly_chart")[index].proto.spec)


def grace_bars(at):
    return set(chart(at, 0)["data"][0]["y"])   # the words of the GRACE panel of the concept bars


def test_the_composed_scene_is_read_as_its_attributes():
    at = open_page()
    assert at.title[0].value == "GRACE concept decompositions" and len(at.get("plotly_chart")) == 5
    assert {"red", "circle", "left"} <= grace_bars(at)
    at.selectbox(key="colour").set_value("blue").run()
    at.selectbox(key="shape").set_value("triangle").run()
    words = grace_bars(at)
    assert {"blue", "triangle"} <= words and "red" not in words
    values = {m.label: m.value for m in at.metric}
    assert float(values["GRACE: reconstruction cosine"]) > 0.8


def test_metrics_table_and_claim_line_show_the_controls():
    at = open_page()
    table = at.dataframe[0].value.set_index("method")
    assert list(table.index) == ["raw embeddings", "GRACE", "SpLiCE", "TextSpan", "SAE", "no fitting",
                                 "shuffled labels"]
    rows = {r["method"]: r for r in load_shipped()[1]["tables"]["image"]}
    for method in ("GRACE", "no fitting", "shuffled labels"):
        assert table.loc[method, "attribute agreement"] == round(rows[method]["concept-attribute agreement"], 3)
        assert table.loc[method, "retrieval P@50"] == round(rows[method]["retrieval P@50"], 3)
    # The shuffled-label control has GRACE's codes: identical on the name-free measure, not on the named ones.
    assert table.loc["shuffled labels", "trustworthiness"] == table.loc["GRACE", "trustworthiness"]
    assert table.loc["shuffled labels", "attribute agreement"] < table.loc["GRACE", "attribute agreement"]
    assert any("At matched sparsity" in c.value and "shuffled labels" in c.value for c in at.caption)


def test_the_controls_figure_holds_the_shipped_numbers():
    at = open_page()
    figure = apptest.charts(at)["chart-controls"]
    rows = {r["method"]: r for r in load_shipped()[1]["tables"]["image"]}
    names = [t["name"] for t in figure["data"]]
    assert names == ["GRACE", "SpLiCE", "no fitting", "shuffled labels"]
    for trace in figure["data"]:
        expected = [rows[trace["name"]][k] for k in ("concept-attribute agreement", "object recall (main)",
                                                     "retrieval P@50", "trustworthiness", "texture neighbours")]
        assert np.allclose(apptest.values(trace, "y"), expected)


def test_clip_concepts_follow_the_motion():
    at = open_page()
    at.selectbox(key="v_motion").set_value("upward").run()
    bars = chart(at, 3)["data"][0]
    assert "upward" in bars["y"] and not at.exception


def test_live_refit_wiring():
    at = open_page()
    next(b for b in at.button if b.label.startswith("Refit")).click().run()
    run = at.session_state["liverun:grace:2.0:light (3 fits)"]
    assert run.wait(300) and run.state == "done", run.error
    assert len(run.result.l0) == 3 and not run.result.stopped
    assert all(0 < t <= 1 for t in run.result.trustworthiness)
    at.run()
    tradeoff = next(c for c in map(json.loads, (e.proto.spec for e in at.get("plotly_chart")))
                    if "Trustworthiness" in json.dumps(c["layout"]))
    names = {t["name"] for t in tradeoff["data"]}
    assert "GRACE, γ = 2 (live)" in names and "SpLiCE" in names


def test_a_scene_off_the_shipped_grid_waits_for_a_click_then_embeds_live():
    at = open_page()
    at.number_input(key="seed").set_value(7).run()
    assert len(at.get("plotly_chart")) == 4 and not at.metric            # no bars until the visitor asks
    assert any("is not" in i.value for i in at.info)
    at.button(key="probe").click().run()
    assert not at.exception and len(at.get("plotly_chart")) == 5
    assert {"red", "circle", "left"} <= grace_bars(at)
    assert any("Embedded live" in c.value for c in at.caption)
    at.selectbox(key="colour").set_value("green").run()                   # from now on, at once
    assert "green" in grace_bars(at) and [b for b in at.button if b.key == "probe"] == []


def test_the_colour_map_paints_each_named_colour_in_that_colour():
    from pages.grace import value_colours

    colours = value_colours("colour")
    rgb = {name: tuple(int(x) for x in value[4:-1].split(",")) for name, value in colours.items()}
    assert max(rgb["red"]) == rgb["red"][0] and max(rgb["blue"]) == rgb["blue"][2]
    assert max(rgb["green"]) == rgb["green"][1] and min(rgb["yellow"][:2]) > 3 * rgb["yellow"][2]
    assert len(set(value_colours("shape").values())) == 6
