"""The looped_lm page through AppTest: both shipped designs, the loop controls, live training."""

import numpy as np

from tests.pages import apptest


def open_page():
    return apptest.open_page("looped_lm")


def metrics(at):
    return {m.label: m.value for m in at.metric}


def test_stable_and_unstable_designs_contrast():
    at = open_page()
    assert at.title[0].value == "Looped reasoning LMs" and len(at.get("plotly_chart")) == 8
    stable = metrics(at)
    assert float(stable["Worst layer δ at loop 32"]) <= 1e-2 and float(stable["Fixed-point separation"]) > 0.05
    assert 0 < float(stable["Cycle spectral radius ρ(J)"]) < 1                  # the trained cycle attracts
    at.segmented_control(key="model").set_value("unstable").run()
    unstable = metrics(at)
    assert float(unstable["Worst layer δ at loop 32"]) > 1e-2 and float(unstable["Fixed-point separation"]) < 0.05
    table = at.dataframe[0].value
    assert table.set_index("design")["stable cycle"].to_dict() == {"stable": True, "unstable": False}
    assert (table["accuracy, 32 loops"] >= 0.95).all()           # both shipped designs learned the task


def test_the_design_study_and_its_guidance_come_from_the_bench():
    from core.common.claims import results_path
    import json

    result = json.loads(results_path("looped_lm").read_text())
    at = open_page()
    study = at.dataframe[1].value.set_index("design")
    assert set(result["designs"]) <= set(study.index) and "control: untrained" in study.index
    for name, d in result["designs"].items():
        assert study.loc[name, "ρ(J)"] == d["spectral_radius"] and study.loc[name, "learned"] == d["learned"]
    assert not study.loc[[n for n in study.index if n.startswith("control")], "stable cycle"].any()
    text = " ".join(m.value for m in at.markdown)
    assert "Design guidance" in text and all(g["text"] in text for g in result["guidance"])


def test_the_pointer_stages_are_drawn_from_the_shipped_arrays():
    import json

    from core.looped_lm.view import load_hop_stages

    at = open_page()
    charts = {c.key: json.loads(c.proto.spec) for c in at.get("plotly_chart")}
    hops = load_hop_stages("pointer")
    lines = {t["name"]: t["y"] for t in charts["chart-hop-stages"]["data"] if t.get("type") == "scatter"}
    assert lines["looped, by loop"] == hops.hops_done.tolist()
    assert lines["untrained block, by loop"] == load_hop_stages("untrained").hops_done.tolist()
    entropy = [t for t in charts["chart-hop-detail"]["data"] if t.get("name") == "looped, by loop"][0]["y"]
    assert entropy == hops.matrix_entropy[:, -1].tolist()


def test_loop_controls():
    at = open_page()
    at.slider(key="loops").set_value(12).run()
    assert not at.exception and "loop 11" in " ".join(metrics(at))
    at.slider(key="upto").set_value(3).run()
    assert not at.exception
    from core.looped_lm.view import load_view

    trajectory = apptest.charts(at)["chart-trajectory"]["data"]
    layers = [t for t in trajectory if t["name"].startswith("layer ")]
    expected = load_view("stable").upto(12).trajectory(3)            # the shipped view at 12 loops, first 3
    assert len(layers) == expected.shape[1]
    for layer, trace in enumerate(layers):                            # three points per layer: loops 1 to 3
        np.testing.assert_allclose(apptest.values(trace, "x"), expected[:, layer, 0], rtol=1e-6, atol=1e-9)


def test_live_mode_trains_a_chosen_design():
    at = open_page()
    at.segmented_control(key="model").set_value("live").run()
    assert "Press Train" in at.info[0].value
    at.selectbox(key="block").set_value(1).run()
    next(b for b in at.button if b.label.startswith("Train")).click().run()
    run = at.session_state["liverun:looped_lm:modular_chain:1:concat:sandwich"]
    run.stop()  # the full run is covered by tests/core/looped_lm; here only the wiring
    assert run.wait(10) and run.state == "stopped"
    at.run()
    assert run.result.train.stopped and run.result.loops is None          # Stop skipped the evaluation
    assert at.info[0].value.startswith("Stopped after") and not at.exception


def test_a_shared_link_opens_the_live_panel():
    from pages.looped_lm import LIVE

    at = apptest.open_page("looped_lm", **LIVE)
    assert at.segmented_control(key="model").value == "live"
    assert [b.label for b in at.button if b.key.endswith(":start")] == ["Train (about 35 s)"]


def test_live_pointer_chasing_uses_the_one_minute_preset():
    from core.looped_lm import LIVE_POINTER

    at = open_page()
    at.segmented_control(key="model").set_value("live").run()
    at.selectbox(key="task").set_value("pointer_chasing").run()
    assert at.selectbox(key="block").value == 1              # the preset's one-layer block
    train = next(b for b in at.button if b.label.startswith("Train"))
    assert train.label == "Train (about a minute)"
    train.click().run()
    run = at.session_state["liverun:looped_lm:pointer_chasing:1:concat:sandwich"]
    run.stop()
    assert run.wait(10) and run.state == "stopped"
    config = run.kwargs["config"]
    assert {k: getattr(config, k) for k in LIVE_POINTER} == LIVE_POINTER


def run_own_model(at, directory):
    """Type ``directory``, press Analyse and wait for its live run; the run."""
    at.text_input(key="hf-dir").set_value(str(directory)).run()
    start = next(b for b in at.button if b.key.startswith("liverun:looped_lm-hf:") and b.key.endswith(":start"))
    start.click().run()
    run = at.session_state[start.key.removesuffix(":start")]
    assert run.wait(120), "the model did not load"
    at.run()
    return run


def test_own_causal_lm_stages_from_a_local_directory(tmp_path):
    from tests.core.looped_lm.test_hf_stages import save_tiny

    at = open_page()
    assert not [b for b in at.button if b.key.startswith("liverun:looped_lm-hf:")]   # no directory, nothing to run
    run = run_own_model(at, tmp_path / "missing")
    assert run.state == "failed"
    assert at.error[0].value.startswith(f"model_dir: '{tmp_path / 'missing'}' holds no config.json")
    at.text_area(key="hf-text").set_value("The cat sat on the rug. The dog sat on the mat.")
    run = run_own_model(at, save_tiny(tmp_path / "gpt2", "gpt2"))
    assert run.state == "done" and not at.error, [e.value for e in at.error]
    assert run.kwargs["model_dir"] == str(tmp_path / "gpt2")
    assert len(run.result.entropy) == 4 and "chart-own-stages" in [c.key for c in at.get("plotly_chart")]
    import json

    xs = [json.loads(c.proto.spec)["data"][0].get("x") for c in at.get("plotly_chart")]
    assert ["embedding", "layer 1", "layer 2", "layer 3"] in xs


def test_the_first_view_is_the_shipped_arrays():
    """The page draws the shipped views: the design table's numbers are the file's, sliced at 40 loops."""
    from core.looped_lm.view import load_view

    at = open_page()
    table = at.dataframe[0].value.set_index("design")
    for name in ("stable", "unstable"):
        view = load_view(name)
        assert table.loc[name, "δ at loop 32 (worst layer)"] == float(view.delta[31].max())
        assert table.loc[name, "separation"] == float(view.separation[39])


def test_a_finished_live_run_is_drawn_from_its_views(monkeypatch):
    """A (tiny) finished run in the panel's slot: the page draws its views and its accuracy."""
    import core.looped_lm.training as training
    from app.ui.live import LiveRun
    from core.looped_lm import LoopedConfig, train_and_view

    monkeypatch.setattr(training, "accuracy_by_loops", lambda model, task: {4: 0.25, 32: 0.5})
    at = apptest.open_page("looped_lm", model="Train live")
    run = LiveRun(train_and_view, config=LoopedConfig(d_model=16, heads=2, steps=2, batch_size=8), seed=0).start()
    assert run.wait(120) and run.state == "done", run.error
    at.session_state["liverun:looped_lm:modular_chain:2:concat:sandwich"] = run
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert metrics(at)["Accuracy at 32 loops"] == "0.50"
    assert any("4 → 0.25, 32 → 0.50" in c.value for c in at.caption)
    assert {"chart-trajectory", "chart-delta", "chart-tv", "chart-attn", "chart-stages"} <= {
        c.key for c in at.get("plotly_chart")}
    at.slider(key="loops").set_value(8).run()
    assert "Worst layer δ at loop 7" in metrics(at) and not at.exception


def test_the_hop_figure_keeps_its_colour_bar_in_the_gap_before_the_third_panel():
    from pages.looped_lm import hop_stage_figure

    fig = hop_stage_figure()
    bars = [t.colorbar.x for t in fig.data if t.type == "heatmap" and t.showscale is not False]
    assert len(bars) == 1
    assert fig.layout.xaxis2.domain[1] < bars[0] < fig.layout.xaxis3.domain[0]
    assert fig.layout.yaxis3.side == "right"        # its axis title is not in that gap
