"""The tikhonov_gnn page through AppTest: the shipped view, every dataset, the graph picker, live mode."""

import base64
import json
import threading

import numpy as np
import pytest

from core.tikhonov_gnn import DATASETS, load_dataset, load_view
from core.tikhonov_gnn.view import load_cross_validation
from pages.tikhonov_gnn import LIVE
from tests.pages import apptest


def open_page(**params):
    return apptest.open_page("tikhonov_gnn", **params)


def test_shipped_view_shows_graph_response_operator_and_accuracies():
    at = open_page()
    assert at.title[0].value == "Interpretable Tikhonov GNN layer"
    assert len(at.get("plotly_chart")) == 3
    models = set(at.dataframe[0].value["model"])
    assert models == {"tikhonov (shipped)", "gcn (shipped)", "gin (shipped)"}
    assert all(0.5 <= a <= 1.0 for a in at.dataframe[0].value["accuracy"])


@pytest.mark.parametrize("name", DATASETS)
def test_every_dataset_renders_and_names_its_filter(name):
    at = open_page()
    at.selectbox(key="dataset").set_value(name).run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert any(f"p is **{kind}**" in text for kind in ("low-pass", "high-pass", "band-pass", "all-pass"))
    if name == "sbm_heterophilic":
        assert "p is **high-pass**" in text
    if name == "sbm_homophilic":
        assert "p is **low-pass**" in text


def test_graph_picker_and_bounds():
    at = open_page(dataset="Planted motifs (house vs 5-cycle)", graph="7")
    assert at.number_input(key="graph").value == 7 and at.number_input(key="graph").max == 399
    assert "Ringed nodes are the ground-truth explanation" in " ".join(m.value for m in at.markdown)


def test_live_training_runs_and_replaces_the_shipped_model():
    at = open_page(dataset="SBM, heterophilic (node task)")
    at.segmented_control(key="model").set_value("live").run()
    assert not at.exception
    next(b for b in at.button if b.label == "Train the Tikhonov model").click().run()
    run = at.session_state["liverun:tikhonov_gnn:sbm_heterophilic:0"]
    assert run.wait(90) and run.state == "done"
    at.run()
    assert not at.exception
    models = dict(zip(at.dataframe[0].value["model"], at.dataframe[0].value["accuracy"]))
    assert models["tikhonov (live)"] > 0.8


def chart(at, key):
    return json.loads(next(c for c in at.get("plotly_chart") if c.proto.id.endswith(key)).proto.spec)


def values(v):
    """A plotly array as numbers (plotly's JSON packs numpy arrays as base64 typed arrays)."""
    if isinstance(v, dict) and "bdata" in v:
        out = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
        return out.reshape([int(n) for n in str(v["shape"]).split(",")]) if "shape" in v else out
    return np.asarray(v, dtype=float)


def test_the_first_view_draws_the_shipped_arrays():
    at = open_page(graph="3")
    view = load_view("motifs")
    e = view.explanation(load_dataset("motifs"), 3)
    nodes = chart(at, "chart-graph")["data"][1]
    np.testing.assert_allclose(values(nodes["marker"]["color"]), np.log10(e.q_normalized), rtol=1e-6)
    np.testing.assert_allclose(e.q_normalized, view.scores(3) / bernstein_mean_on_spectrum(e), rtol=1e-9)
    p = chart(at, "chart-p")["data"][0]
    np.testing.assert_allclose(values(p["y"]), view.p, rtol=1e-9)
    models = dict(zip(at.dataframe[0].value["model"], at.dataframe[0].value["accuracy"]))
    assert models == pytest.approx({f"{k} (shipped)": v for k, v in view.accuracy.items()})


def bernstein_mean_on_spectrum(e):
    """c = mean of p over the spectrum, from the shipped p's monomial form (independent of q_normalized)."""
    return float(np.polynomial.polynomial.polyval(e.eigenvalues, e.poly_coeffs).mean())


def test_mutag_shows_the_cross_validated_accuracies_of_the_bench():
    at = open_page(dataset="MUTAG (molecules)")
    cv = load_cross_validation("mutag")
    models = dict(zip(at.dataframe[0].value["model"], at.dataframe[0].value["accuracy"]))
    assert models == pytest.approx({f"{m} (10-fold mean)": v["mean"] for m, v in cv.items()})
    assert any("10-fold cross-validation" in c.value for c in at.caption)


def test_a_stopped_live_run_shows_its_partial_model():
    at = open_page(**LIVE)
    slot = "liverun:tikhonov_gnn:motifs:0"
    at.button(key=f"{slot}:start").click().run()
    run = at.session_state[slot]
    done = threading.Event()
    while run.snapshot().step < 1 and not run.finished:      # its first epoch, however long it takes
        done.wait(0.05)
    at.button(key=f"{slot}:stop").click().run()
    assert run.wait(120) and run.state == "stopped" and run.calls_after_stop <= 1
    at.run()
    assert not at.exception
    assert run.result.stopped and 1 <= run.result.epoch.size < run.result.config.epochs
    assert any("Stopped after epoch" in c.value for c in at.caption)
    assert any("stopped at epoch" in m for m in at.dataframe[0].value["model"])


def test_the_default_view_says_when_accuracy_does_not_separate_the_models():
    from core.tikhonov_gnn.view import load_view
    from pages.tikhonov_gnn import SAME_ACCURACY, no_difference_note

    at = apptest.open_page("tikhonov_gnn")
    shipped = load_view("motifs").accuracy      # the default dataset: GCN and GIN at 1.000, Tikhonov 0.988
    spread = max(shipped.values()) - min(shipped.values())
    notes = [c.value for c in at.caption if "does not tell the models apart" in c.value]
    assert (spread < SAME_ACCURACY) == bool(notes)
    note = no_difference_note("motifs", {"a": 0.99, "b": 1.0})
    assert "within 0.010" in note and "They differ most on" in note
