"""The robust_decisions page through AppTest: defaults, every control, the URL, and its numbers."""

import pytest

from core.robust_decisions import PROBLEMS
from tests.pages import apptest


def open_page(**params):
    return apptest.open_page("robust_decisions", timeout=60, **params)


def metric(at, label_start):
    return next(float(m.value) for m in at.metric if m.label.startswith(label_start))


def test_default_view_shows_the_claim_in_numbers():
    at = open_page()
    assert at.title[0].value == "Robust decisions around predictions"
    assert len(at.get("plotly_chart")) == 4
    follow, robust_star = metric(at, "Follow the prediction"), metric(at, "Robust, ε*")
    assert follow > 1.0 and robust_star < 0.5 * follow
    assert "robust gap" in " ".join(m.value for m in at.markdown)


@pytest.mark.parametrize("problem", list(PROBLEMS))
@pytest.mark.parametrize("law", ["gaussian", "three_point"])
def test_every_problem_and_law_renders(problem, law):
    at = open_page()
    at.selectbox(key="problem").set_value(problem).run()
    at.selectbox(key="law").set_value(law).run()
    assert not at.exception
    assert metric(at, "Follow the prediction") > metric(at, "Robust, ε*")


def test_eps_slider_moves_the_robust_metric_and_zero_eps_is_following():
    at = open_page()
    at.slider(key="eps").set_value(0.0).run()
    assert metric(at, "Robust, ε = 0.00") == pytest.approx(metric(at, "Follow the prediction"))
    at.slider(key="eps").set_value(0.5).run()
    assert metric(at, "Robust, ε = 0.50") < metric(at, "Follow the prediction")


def test_a_link_reproduces_the_view():
    # Streamlit writes a select box's displayed label into the URL, so links carry the label.
    at = open_page(problem="Ski rental", law="three-point (worst case)", eps="0.7", seed="3")
    assert at.selectbox(key="problem").value == "ski_rental"
    assert at.selectbox(key="law").value == "three_point"
    assert at.slider(key="eps").value == 0.7 and at.number_input(key="seed").value == 3


def test_export_buttons_and_details():
    at = open_page()
    labels = {b.proto.label for b in at.get("download_button")}
    assert labels == {"JSON", "CSV"}
    assert len(at.dataframe) == 2
