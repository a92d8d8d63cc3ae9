"""The latent_world_action page through AppTest: the shipped episodes, latents and table."""

import numpy as np

from core.latent_world_action.views import shipped_view
from tests.pages import apptest


def open_page(**params):
    return apptest.open_page("latent_world_action", timeout=60, **params)


def test_default_view_draws_the_shipped_episode_latents_and_table():
    at = open_page()
    assert at.title[0].value == "Latent world-action policy"
    view = shipped_view()
    charts = apptest.charts(at)
    fig = charts["chart-episodes"]
    agent = [t for t in fig["data"] if t.get("name") == "agent"]
    assert float(apptest.values(agent[0], "x")[0]) == float(view.prior_agent[0, -1, 0])
    assert float(apptest.values(agent[1], "x")[0]) == float(view.direct_agent[0, -1, 0])
    lat = charts["chart-latents-aligned"]
    prior = next(t for t in lat["data"] if t.get("name") == "prior (deployed)")
    np.testing.assert_allclose(apptest.values(prior, "x"), view.aligned.prior_xy[:, 0], rtol=1e-5)
    table = at.table[0].value
    assert len(table) == 4 and "R² t+H" in table.columns
    prior_row = view.table["prior"]
    assert table["success"][0] == round(float(np.mean([np.mean(s) for s in prior_row["success"]])), 3)
    assert table["R² t+H"][0] == round(float(np.mean(prior_row["probe_prior"])), 3)
    post = next(t for t in lat["data"] if t.get("name") == "posterior (training only)")
    np.testing.assert_allclose(apptest.values(post, "y"), view.aligned.posterior_xy[:, 1], rtol=1e-5)
    assert any(b.label == "Train live" for b in at.button)


def test_the_episode_slider_in_the_link_picks_the_episode():
    at = open_page(episode="3")
    view = shipped_view()
    fig = apptest.charts(at)["chart-episodes"]
    agent = next(t for t in fig["data"] if t.get("name") == "agent")
    assert float(apptest.values(agent, "x")[0]) == float(view.prior_agent[3, -1, 0])


def test_an_out_of_range_value_in_the_link_is_reported_not_raised():
    at = open_page(steps="5")
    assert not at.exception
    assert any("steps=5" in w.value for w in at.warning)
