"""The quantum_ng page through AppTest: the shipped first view, its controls, the URL, bad input, live runs."""

from types import SimpleNamespace

import numpy as np

from core.common.progress import ProgressLog
from core.quantum_ng import MetricViewConfig, VQEConfig, metric_view
from core.quantum_ng.ship import shipped_run, shipped_view
from pages.quantum_ng import (SHORT, circuit_figure, curve_figure, heatmap_figure, metric_key, pick_view, reading_text,
                              run_key)
from tests.pages import apptest


def open_page(**params):
    return apptest.open_page("quantum_ng", timeout=120, **params)


def metrics(at):
    return {m.label: m.value for m in at.metric}


def test_first_view_shows_the_shipped_run_and_the_metrics():
    at = open_page()
    assert at.title[0].value == "Locality-aware quantum natural gradient"
    assert len(at.get("plotly_chart")) == 6   # energy, metric heatmaps, truncation curve, circuit, trade-off, frontier
    shipped = shipped_run()
    shown = metrics(at)
    for key, err in shipped.final_errors().items():
        assert float(shown[f"{SHORT[key]}: error"]) == round(err, 3)
    text = " ".join(m.value for m in at.markdown)
    assert "shipped run" in text and "What you are seeing" in text
    assert not at.get("download_button") and not at.dataframe   # the Details section is closed on a first view
    at = open_page(details=True)
    assert {b.proto.label for b in at.get("download_button")} == {"JSON", "CSV"}
    assert len(at.dataframe) == 1 and len(at.dataframe[0].value) == 5


def text_of(at):
    return " ".join(m.value for m in at.markdown)


def test_first_view_shows_the_shipped_metric_view():
    at = open_page()
    view = shipped_view()
    assert f"{int(view.active_set(0.5).sum())} of 24 parameters are active" in text_of(at)
    at.select_slider(key="tau").set_value(0.0).run()   # the threshold is read from the shipped view: no compute
    assert f"{int(view.nonzero.sum())} of 24 parameters are active" in text_of(at)
    assert any("Showing the shipped view of these settings" in c.value for c in at.caption)
    assert any("Showing the shipped view of these settings" in c.value for c in at.caption)
    assert not [i for i in at.info if "shipped** view" in i.value]   # it is this view: no warning


def test_other_metric_settings_show_the_shipped_view_until_computed():
    at = open_page()
    at.number_input(key="k").set_value(6).run()  # k = n: nothing truncated, every parameter active
    assert not at.exception
    assert [i.value for i in at.info if "Showing the **shipped** view" in i.value]
    assert "24 of 24 parameters are active" not in text_of(at)   # the shipped k = 2 view, said to be so
    slot = f"liverun:{metric_key(MetricViewConfig(k=6), 0)}"
    at.button(key=f"{slot}:start").click().run()
    run = at.session_state[slot]
    assert run.wait(120) and run.state == "done", (run.state, run.error)
    at.run()
    assert not at.exception
    assert "24 of 24 parameters are active" in text_of(at)
    assert any("Showing your live computation." in c.value for c in at.caption)
    at.number_input(key="k").set_value(1).run()   # a new setting: back to the shipped view, with the note
    assert "24 of 24 parameters are active" not in text_of(at)
    assert [i.value for i in at.info if "Showing the **shipped** view" in i.value]


def test_a_stopped_metric_view_draws_what_it_reached():
    config = MetricViewConfig(k=3)
    for stop_after, missing in ((1, "retained"), (40, "exact")):
        view = metric_view(config, 0, progress=ProgressLog(stop_after=stop_after))
        assert view.stopped and getattr(view, missing) is None
        v, note, mine = pick_view(SimpleNamespace(result=view, active=False), config, 0)
        assert v is view and mine and "**stopped** before it finished" in note
        heat = heatmap_figure(view)
        assert "not computed (stopped)" in [a.text for a in heat.layout.annotations]
        assert len(heat.data) == 3
        assert "not computed (stopped)" in [a.text for a in curve_figure(view.curve, config.k).layout.annotations]
        ansatz = config.ansatz()
        assert circuit_figure(ansatz, view.retained, view.active_set(0.5)).data
        text = reading_text(view, ansatz, 0.5)
        assert ("no active set" in text) == (missing == "retained")


def test_a_link_reproduces_the_view_and_bad_input_shows_the_message():
    at = open_page(model="Transverse-field Ising", n="5", entangler="CNOT staircase (non-local control)", k="2",
                   seed="4")
    assert at.selectbox(key="model").value == "tfim" and at.slider(key="n").value == 5
    assert at.selectbox(key="entangler").value == "cnot_chain" and at.number_input(key="seed").value == 4
    at = open_page(n="4", k="6")
    assert [e.value for e in at.error] == ["k: 6 exceeds the 4 qubits; allowed integers in [1, 4]"]


def test_live_run_starts_and_stops():
    at = open_page(n="3", k="2", budget="0.25 M")
    next(b for b in at.button if b.label.startswith("Run the five")).click().run()
    config = VQEConfig(n_qubits=3, k=2, budget=250_000)
    run = at.session_state[f"liverun:{run_key(config, 0)}"]
    run.stop()                                       # asked before its first step: it must end stopped
    assert run.wait(60) and run.state == "stopped" and run.calls_after_stop <= 1
    at.run()
    assert not at.exception
    assert any(m.value.startswith("**What you are seeing.**") and "stopped" in m.value for m in at.markdown) or \
        any("stopped" in (c.value or "") for c in at.caption)


def test_first_view_draws_the_tradeoff_the_light_cone_and_the_frontier():
    from core.quantum_ng.ship import bench_frontier
    from pages.quantum_ng import circuit_columns, frontier_text, light_cone_columns, tradeoff_figure

    at = open_page()
    view = shipped_view()
    text = text_of(at)
    assert f"The best k here is **{view.best_k}**" in text and "CNOT brickwork (local)" in text
    assert frontier_text(bench_frontier()) in text
    fig = tradeoff_figure(view)
    mse = next(t for t in fig.data if t.name.startswith("MSE"))
    assert list(mse.y) == list(view.tradeoff["mse"]) and min(mse.y) == mse.y[view.best_k - 1]
    # the shaded cone ends where Ansatz.light_cones says the generator can reach
    ansatz = view.config.ansatz()
    for param in (0, 7, ansatz.n_params - 1):
        spans = light_cone_columns(ansatz, param, circuit_columns(ansatz))
        wires = np.flatnonzero(ansatz.light_cones()[param])
        assert (spans[-1][1], spans[-1][2]) == (wires.min(), wires.max())
    at = open_page(cone="7")   # the chosen cone is in the URL
    assert not at.exception and at.number_input(key="cone").value == 7


def test_the_frontier_says_cpu_seconds_exactly_when_the_benchmark_timed_cpu():
    from pages.quantum_ng import frontier_figure, seconds_unit

    assert (seconds_unit({"clock": "cpu"}), seconds_unit({"clock": "cpu"}, short=False)) == ("CPU s", "CPU seconds")
    assert (seconds_unit({"clock": "wall"}), seconds_unit(None, short=False)) == ("s", "seconds")
    for clock, unit in (("cpu", "CPU seconds"), ("wall", "seconds")):
        title = frontier_figure({"clock": clock, "methods": {}, "surrogate_by_k": []}).layout.xaxis.title.text
        assert title.startswith(f"{unit}, everything counted")
