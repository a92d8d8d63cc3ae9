"""The tikhonov_gnn page through AppTest: the shipped view, every dataset, the graph picker, live mode."""

import pytest

from core.tikhonov_gnn import DATASETS
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
    run = at.session_state["liverun:tikhonov_gnn:sbm_heterophilic"]
    assert run.wait(90) and run.state == "done"
    at.run()
    assert not at.exception
    models = dict(zip(at.dataframe[0].value["model"], at.dataframe[0].value["accuracy"]))
    assert models["tikhonov (live)"] > 0.8
