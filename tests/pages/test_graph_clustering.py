"""The graph_clustering page through AppTest: the shipped run's figures and numbers, and a changed control."""

import numpy as np

from core.graph_clustering.ship import shipped_run
from tests.pages import apptest


def open_page(**params):
    return apptest.open_page("graph_clustering", timeout=60, **params)


def test_default_view_draws_the_shipped_embeddings_and_scores():
    at = open_page()
    assert at.title[0].value == "Graph foundation model for clustering"
    run = shipped_run()
    charts = apptest.charts(at)
    truth = next(t for t in charts["chart-embeddings"]["data"] if t.get("name") == "target truth")
    np.testing.assert_allclose(apptest.values(truth, "x"), run.gfm_xy[:, 0])
    nmi = next(t for t in charts["chart-scores"]["data"] if t.get("name") == "NMI")
    np.testing.assert_allclose(apptest.values(nmi, "x"), run.nmi)
    table = at.dataframe[0].value
    assert list(table["NMI"]) == list(np.round(run.nmi, 3))
    assert "shipped run" in " ".join(c.value for c in at.caption)
    assert any(b.label == "Pretrain and adapt" for b in at.button)


def test_a_changed_control_asks_for_a_live_run():
    at = open_page(target="LFR, μ = 0.1")
    assert any("differ from the shipped run" in i.value for i in at.info)
