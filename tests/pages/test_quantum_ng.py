"""The quantum_ng page through AppTest: the shipped first view, its controls, the URL, bad input, a live run."""

from core.quantum_ng import VQEConfig
from pages.quantum_ng import SHORT, run_key
from core.quantum_ng.assets import shipped_run
from tests.pages import apptest


def open_page(**params):
    return apptest.open_page("quantum_ng", timeout=120, **params)


def metrics(at):
    return {m.label: m.value for m in at.metric}


def test_first_view_shows_the_shipped_run_and_the_metrics():
    at = open_page()
    assert at.title[0].value == "Locality-aware quantum natural gradient"
    assert len(at.get("plotly_chart")) == 4
    shipped = shipped_run()
    shown = metrics(at)
    for key, err in shipped.final_errors().items():
        assert float(shown[f"{SHORT[key]}: error"]) == round(err, 3)
    text = " ".join(m.value for m in at.markdown)
    assert "shipped run" in text and "What you are seeing" in text
    assert {b.proto.label for b in at.get("download_button")} == {"JSON", "CSV"}
    assert len(at.dataframe) == 1 and len(at.dataframe[0].value) == 5


def test_metric_controls_change_the_active_set_text():
    at = open_page()
    at.number_input(key="k").set_value(6).run()  # k = n: nothing truncated, every parameter active
    assert not at.exception
    assert "24 of 24 parameters are active" in " ".join(m.value for m in at.markdown)
    at.number_input(key="k").set_value(1).run()
    assert "24 of 24 parameters are active" not in " ".join(m.value for m in at.markdown)


def test_a_link_reproduces_the_view_and_bad_input_shows_the_message():
    at = open_page(model="Transverse-field Ising", n="5", entangler="CNOT brickwork", k="2", seed="4")
    assert at.selectbox(key="model").value == "tfim" and at.slider(key="n").value == 5
    assert at.selectbox(key="entangler").value == "brickwork" and at.number_input(key="seed").value == 4
    at = open_page(n="4", k="6")
    assert [e.value for e in at.error] == ["k: 6 exceeds the 4 qubits; allowed integers in [1, 4]"]


def test_live_run_starts_and_stops():
    at = open_page(n="3", k="2", budget="0.25 M")
    next(b for b in at.button if b.label.startswith("Run the five")).click().run()
    config = VQEConfig(n_qubits=3, k=2, budget=250_000)
    run = at.session_state[f"liverun:{run_key(config, 0)}"]
    run.stop()
    assert run.wait(30) and run.state in ("stopped", "done")
    at.run()
    assert not at.exception
