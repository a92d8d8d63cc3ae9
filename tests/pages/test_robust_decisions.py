"""The robust_decisions page through AppTest: defaults, every control, the URL, and its numbers."""

import numpy as np
import pytest

from core.robust_decisions import PROBLEMS
from core.robust_decisions.ship import shipped_rates
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


def test_every_problem_and_law_renders_the_core_numbers():
    """Each problem and each law once (Gaussian pricing is the default view)."""
    from core.robust_decisions import SettingConfig, average_excess, make_setting

    at = open_page()
    for problem, law in [("posted_pricing", "worst_case"), ("ski_rental", "student_t"),
                         ("house_flipping", "three_point"), ("house_flipping", "gaussian")]:
        at.selectbox(key="problem").set_value(problem)
        at.selectbox(key="law").set_value(law).run()  # one rerun for both changes
        assert not at.exception
        setting = make_setting(SettingConfig(problem=problem, noise=0.1, error_law=law), seed=0)
        assert metric(at, "Follow the prediction") == pytest.approx(average_excess(setting, "follow").mean, abs=6e-4)
        assert metric(at, "Robust, ε*") == pytest.approx(average_excess(setting, "robust_theory").mean, abs=6e-4)


def test_ski_rental_tie_break_control_shows_following_is_not_brittle():
    at = open_page(problem="Ski rental")
    assert at.radio(key="tie_break").value == "earliest_buy"
    brittle = metric(at, "Follow the prediction")
    at.radio(key="tie_break").set_value("never_buy").run()
    assert not at.exception
    assert brittle > 1.0 and metric(at, "Follow the prediction") < 0.01
    text = " ".join(m.value for m in at.markdown)
    assert "never buy" in text and "not brittle" in text
    figures = apptest.charts(at)
    follow = next(t for t in figures["chart-rates"]["data"] if t.get("name", "").startswith("follow the prediction"))
    shipped = shipped_rates("ski_rental", "gaussian", "never_buy")
    np.testing.assert_allclose(apptest.values(follow, "y"), shipped.losses["follow"].ravel())


def test_the_rate_panel_is_the_shipped_run_and_its_words_come_from_its_slopes():
    at = open_page(law="worst case found by search")
    shipped = shipped_rates("posted_pricing", "worst_case")
    figures = apptest.charts(at)
    theory = next(t for t in figures["chart-rates"]["data"] if t.get("name", "").startswith("robust, ε*(η): slope"))
    np.testing.assert_allclose(apptest.values(theory, "x"), shipped.eta.ravel())
    np.testing.assert_allclose(apptest.values(theory, "y"), shipped.losses["robust_theory"].ravel())
    bound = next(t for t in figures["chart-rates"]["data"] if t.get("name", "").startswith("the abstract's bound"))
    np.testing.assert_allclose(apptest.values(bound, "y"), shipped.bound)
    s = shipped.slopes["robust_theory"]
    text = " ".join(m.value for m in at.markdown)
    assert f"slope {s.slope:.2f} [{s.low:.2f}, {s.high:.2f}]" in text
    assert "found by a search" in text


@pytest.mark.parametrize("law", ["gaussian", "worst_case"])
def test_pricing_draws_both_bounds_on_the_same_instances_and_says_which_is_lower(law):
    """The abstract's bound and our cluster bound for RIC-h, both from the shipped run's cells, as curves."""
    at = open_page(law={"gaussian": "Gaussian", "worst_case": "worst case found by search"}[law])
    shipped = shipped_rates("posted_pricing", law)
    traces = apptest.charts(at)["chart-rates"]["data"]
    abstract = next(t for t in traces if t.get("name", "").startswith("the abstract's bound"))
    clusters = next(t for t in traces if t.get("name", "").startswith("a bound for RIC-h's clusters"))
    np.testing.assert_allclose(apptest.values(clusters, "x"), apptest.values(abstract, "x"))  # the same η
    np.testing.assert_allclose(apptest.values(clusters, "y"), np.nanmean(shipped.ric_bound, axis=1))
    np.testing.assert_allclose(apptest.values(abstract, "y"), shipped.bound)
    text = " ".join(m.value for m in at.markdown)
    assert "not Medina & Vassilvitskii's" in text
    eta = np.nanmean(shipped.eta, axis=1)
    lower = shipped.bound < np.nanmean(shipped.ric_bound, axis=1)
    assert lower[0] and not lower[-1]  # measured on the shipped run: the abstract's bound wins at small η only
    assert f"up to η ≈ {eta[lower].max():.2g}" in text and f"from η ≈ {eta[~lower].min():.2g}" in text


def test_other_problems_draw_no_ric_bound():
    at = open_page(problem="House flipping")
    names = [t.get("name", "") for t in apptest.charts(at)["chart-rates"]["data"]]
    assert any(n.startswith("the abstract's bound") for n in names)
    assert not any("RIC-h" in n for n in names)


def test_eps_slider_moves_the_robust_metric_and_zero_eps_is_following():
    at = open_page()
    at.slider(key="eps").set_value(0.0).run()
    assert metric(at, "Robust, ε = 0.00") == pytest.approx(metric(at, "Follow the prediction"))
    at.slider(key="eps").set_value(0.5).run()
    assert metric(at, "Robust, ε = 0.50") < metric(at, "Follow the prediction")


def test_a_link_reproduces_the_view():
    # Streamlit writes a select box's displayed label into the URL, so links carry the label.
    at = open_page(problem="Ski rental", law="Student-t (ν = 3, heavy tails)", eps="0.7", seed="3",
                   tie_break="never buy (the other optimal action)")
    assert at.selectbox(key="problem").value == "ski_rental"
    assert at.selectbox(key="law").value == "student_t"
    assert at.radio(key="tie_break").value == "never_buy"
    assert at.slider(key="eps").value == 0.7 and at.number_input(key="seed").value == 3


def test_export_buttons_and_details():
    closed = open_page()                      # the first view: the Details section is sent closed and empty
    assert not closed.get("download_button") and not closed.dataframe
    at = open_page(details=True)
    labels = {b.proto.label for b in at.get("download_button")}
    assert labels == {"JSON", "CSV"}
    assert len(at.dataframe) == 2


def test_the_figures_hold_the_core_numbers():
    """The ε curve is the core's loss_against_eps for this setting; the state chart, state_curves."""
    from core.robust_decisions import SettingConfig, loss_against_eps, make_setting, state_curves

    at = open_page(problem="Ski rental", noise="0.2", eps="0.8", seed="2")
    figures = apptest.charts(at)
    setting = make_setting(SettingConfig(problem="ski_rental", noise=0.2, error_law="gaussian"), seed=2)
    curve = loss_against_eps(setting)
    grid, losses = curve.eps, curve.loss
    robust = next(t for t in figures["chart-eps"]["data"] if t["name"] == "robust")
    np.testing.assert_allclose(apptest.values(robust, "x"), grid)
    np.testing.assert_allclose(apptest.values(robust, "y"), losses)
    chosen = next(t for t in figures["chart-eps"]["data"] if t["name"] == "your ε")
    assert chosen["x"] == [0.8] and chosen["y"][0] == pytest.approx(float(np.interp(0.8, grid, losses)))
    s_hat = at.slider(key="s_hat").value
    curves = state_curves(PROBLEMS["ski_rental"], s_hat, 0.8)
    follow = next(t for t in figures["chart-state"]["data"] if t["name"] == "follow the prediction")
    np.testing.assert_allclose(apptest.values(follow, "x"), curves.states)
    np.testing.assert_allclose(apptest.values(follow, "y"), curves.follow)


def test_the_seeing_text_follows_the_numbers_it_describes():
    from types import SimpleNamespace

    from pages.robust_decisions import seeing_text

    problem = SimpleNamespace(state_name="demand")
    same = SimpleNamespace(follow_action=0.0, robust_action=0.0, robust_gap=0.25, follow_worst_in_ball=0.25)
    text = seeing_text(problem, same, 100)
    assert "are the same action (0.00)" in text and "cliff just past" not in text
    cliff = SimpleNamespace(follow_action=3.0, robust_action=2.0, robust_gap=0.25, follow_worst_in_ball=3.0)
    assert "falls off a cliff just past ŝ (worst 3.00" in seeing_text(problem, cliff, 100)
    mild = SimpleNamespace(follow_action=3.0, robust_action=2.0, robust_gap=0.25, follow_worst_in_ball=0.6)
    assert "has no cliff here (worst 0.60" in seeing_text(problem, mild, 100)


def test_the_rate_words_for_every_problem_and_law_follow_its_measured_slopes():
    """No problem gets "falls like η^(2/3)" unless its measured interval allows it (issue 23); and the
    same text builder says otherwise when the slope is changed (the control)."""
    from dataclasses import replace

    from core.robust_decisions import ERROR_LAWS, Slope
    from core.robust_decisions.ship import CASES
    from pages.robust_decisions import rates_text

    for problem, tie_break in CASES:
        for law in ERROR_LAWS:
            rates = shipped_rates(problem, law, tie_break)
            s = rates.slopes["robust_theory"]
            text = rates_text(rates)
            expected = ("falls faster than the bound's η^(2/3)" if s.low > 2 / 3 + 0.1 else
                        "falls like η^(2/3)" if s.high >= 2 / 3 - 0.1 else "falls slower than η^(2/3)")
            assert f"{expected}: slope {s.slope:.2f} [{s.low:.2f}, {s.high:.2f}]" in text, (problem, tie_break, law)
            follow = rates.slopes["follow"]
            assert (f"slope {follow.slope:.2f}" in text)
            brittle = follow.high < 0.3 and rates.floor["follow"] > 0.1
            assert ("does not fall with η" in text) == brittle
    rates = shipped_rates("posted_pricing", "gaussian")
    flat = replace(rates, slopes={**rates.slopes, "robust_theory": Slope(0.2, 0.1, 0.3, 0.0)})
    assert "falls slower than η^(2/3): slope 0.20" in rates_text(flat)
    assert "falls like η^(2/3)" in rates_text(rates)
