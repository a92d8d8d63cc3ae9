"""The class_il page through AppTest: the shipped sweep, its fitted slope, the confusion matrix and panels."""

import numpy as np

from core.class_il.ship import shipped_view
from tests.pages import apptest


def open_page(**params):
    return apptest.open_page("class_il", timeout=60, **params)


def test_default_view_draws_the_shipped_sweep_and_its_slope():
    at = open_page()
    assert not at.exception
    assert at.title[0].value == "Task confusion in class-incremental learning"
    sweep = shipped_view()["sweeps"]["slda"]
    charts = apptest.charts(at)
    assert {"chart-slope", "chart-confusion", "chart-synthetic", "chart-heavy", "chart-drift"} <= set(charts)
    points = [t for t in charts["chart-slope"]["data"] if t.get("mode") == "markers"]
    xs = np.sort(np.concatenate([apptest.values(t, "x") for t in points]))
    np.testing.assert_allclose(xs, np.sort(np.array(sweep["gamma_min"])[np.array(sweep["tc_gap"]) > 0]))
    slope = next(m.value for m in at.metric if m.label == "Fitted slope")
    assert float(slope) == round(sweep["slope"]["slope"], 3)
    held = next(m.value for m in at.metric if m.label == "Bound holds")
    assert held == f"{int(np.sum(np.array(sweep['tc_gap']) <= np.array(sweep['bound'])))} of {len(sweep['keys'])}"
    text = " ".join(m.value for m in at.markdown)
    assert "-0.119" in text and "-0.125" in text


def test_learner_and_configuration_controls_switch_the_shown_numbers():
    at = open_page(learner="FeCAM", config="noisy digits · MLP 64 (pretrained)")
    sweep = shipped_view()["sweeps"]["fecam"]
    i = sweep["keys"].index("noisy/mlp64")
    heat = apptest.charts(at)["chart-confusion"]["data"][0]
    np.testing.assert_allclose(apptest.values(heat, "z"), sweep["confusion"][i])
    assert float(next(m.value for m in at.metric if m.label == "Fitted slope")) == round(sweep["slope"]["slope"], 3)


def test_another_seed_offers_a_live_recompute_and_bad_links_fall_back():
    at = open_page(seed="7")
    assert any(b.label == "Recompute" for b in at.button)
    assert "shipped sweep" in " ".join(c.value for c in at.caption)     # until the visitor runs it
    at = open_page(alpha="9.9")
    assert not at.exception and any("alpha=9.9" in w.value for w in at.warning)


def test_the_live_synthetic_sweep_runs_and_reports_its_slope():
    import time

    at = open_page(layout="simplex")
    next(b for b in at.button if b.label == "Run the synthetic sweep").click().run()
    run = at.session_state["liverun:class_il:synthetic:simplex:slda:0"]
    run.wait(60)
    for _ in range(20):                     # the fragment polls; rerun until the page has drawn the result
        at.run()
        if any("Your sweep" in m.value for m in at.markdown):
            break
        time.sleep(0.2)
    assert run.state == "done" and -0.2 <= run.result.slope.slope <= -0.1 and run.result.bound_holds
    assert any(f"slope **{run.result.slope.slope:.3f}**" in m.value for m in at.markdown)
