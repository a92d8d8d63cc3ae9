"""The looped_lm page through AppTest: both shipped designs, the loop controls, live training."""

from tests.pages import apptest


def open_page():
    return apptest.open_page("looped_lm")


def metrics(at):
    return {m.label: m.value for m in at.metric}


def test_stable_and_unstable_designs_contrast():
    at = open_page()
    assert at.title[0].value == "Looped reasoning LMs" and len(at.get("plotly_chart")) == 6
    stable = metrics(at)
    assert float(stable["Worst layer δ at loop 32"]) <= 1e-2 and float(stable["Fixed-point separation"]) > 0.05
    at.segmented_control(key="model").set_value("unstable").run()
    unstable = metrics(at)
    assert float(unstable["Worst layer δ at loop 32"]) > 1e-2 and float(unstable["Fixed-point separation"]) < 0.05
    table = at.dataframe[0].value
    assert table.set_index("design")["stable cycle"].to_dict() == {"stable": True, "unstable": False}


def test_loop_controls():
    at = open_page()
    at.slider(key="loops").set_value(12).run()
    assert not at.exception and "loop 11" in " ".join(metrics(at))
    at.slider(key="upto").set_value(3).run()
    assert not at.exception


def test_live_mode_trains_a_chosen_design():
    at = open_page()
    at.segmented_control(key="model").set_value("live").run()
    assert "Press Train" in at.info[0].value
    at.selectbox(key="block").set_value(1).run()
    next(b for b in at.button if b.label.startswith("Train")).click().run()
    run = at.session_state["liverun:looped_lm:modular_chain:1:concat:sandwich"]
    run.stop()  # the full run is covered by tests/core/looped_lm; here only the wiring
    assert run.wait(10) and run.state == "stopped"


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


def test_own_causal_lm_stages_from_a_local_directory(tmp_path):
    from tests.core.looped_lm.test_hf_stages import save_tiny

    at = open_page()
    charts = len(at.get("plotly_chart"))
    at.text_input[0].set_value(str(tmp_path / "missing"))
    at.button(key="FormSubmitter:hf-stages-Analyse").click().run()
    assert at.error[0].value.startswith(f"model_dir: '{tmp_path / 'missing'}' holds no config.json")
    at.text_input[0].set_value(str(save_tiny(tmp_path / "gpt2", "gpt2")))
    at.button(key="FormSubmitter:hf-stages-Analyse").click().run()
    assert not at.error, at.error[0].value
    assert len(at.get("plotly_chart")) == charts + 1
    import json

    xs = [json.loads(c.proto.spec)["data"][0].get("x") for c in at.get("plotly_chart")]
    assert ["embedding", "layer 1", "layer 2", "layer 3"] in xs
