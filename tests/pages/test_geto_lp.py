"""The GETO-LP page through AppTest: defaults, every input kind, weights, errors, the URL and live runs."""

import json
import threading

import pytest

from tests.pages import apptest


def open_page(**params):
    return apptest.open_page("geto_lp", timeout=90, **params)


def metric(at, label_start):
    return next(m.value for m in at.metric if m.label.startswith(label_start))


def number(text):
    return float(text.replace(",", "").replace(" s", "").replace("%", ""))


def table(at):
    return next(d.value for d in at.dataframe if "gap to exact" in d.value.columns).set_index("method")


def test_default_view_solves_two_digits_exactly_and_fast():
    at = open_page()
    assert at.title[0].value == "GETO-LP Wasserstein barycenters"
    assert at.multiselect(key="digits").value == [0, 3]
    assert number(metric(at, "GETO-LP variables")) == 2 * 144 * 24 + 144
    assert number(metric(at, "Classical LP variables")) == 2 * 144**2 + 144
    assert number(metric(at, "GETO-LP solve")) < 1.0
    runs = table(at)
    geto, pot = runs.loc["GETO-LP (layered, exact)"], runs.loc["POT ot.lp.barycenter (classical LP)"]
    assert pot["objective (exact)"] == pytest.approx(geto["objective (exact)"], rel=1e-6)
    assert geto["objective (exact)"] == pytest.approx(number(metric(at, "Objective")), rel=1e-4)
    assert (runs.loc[runs.index.str.contains("entropic"), "gap to exact"] > 1e-3).all()
    assert len(at.get("plotly_chart")) == 3
    assert any("What you are seeing" in m.value for m in at.markdown)
    assert not at.get("download_button")                    # the Details section is closed on a first view
    assert {b.proto.label for b in open_page(details=True).get("download_button")} == {"JSON", "CSV"}


@pytest.mark.parametrize("kind, charts", [("shapes", 3), ("palettes", 3), ("volumes", 3)])
def test_every_input_kind_renders_with_its_figures(kind, charts):
    at = open_page()
    at.selectbox(key="inputs").set_value(kind).run()
    assert not at.exception and not at.error
    assert len(at.get("plotly_chart")) == charts
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    types = {t["type"] for spec in specs for t in spec["data"]}
    if kind == "palettes":
        assert {"bar", "image", "scatter3d"} <= types  # palettes, the transfer, the flows in the RGB cube
        assert table(at).loc["POT convolutional_barycenter2d (entropic)", "status"].startswith("skipped")
    if kind == "volumes":
        assert {"mesh3d", "scatter3d"} <= types


def test_weights_move_the_barycenter_and_bad_inputs_show_the_validation_message():
    at = open_page()
    at.slider(key="w2").set_value(0.0).run()
    assert number(metric(at, "Objective")) == pytest.approx(0.0, abs=1e-9)  # the barycenter is digit 0 itself
    at.slider(key="w1").set_value(0.0).run()
    assert at.error and at.error[0].value.startswith("weights: ") and "allowed" in at.error[0].value
    assert not at.metric
    at.multiselect(key="digits").set_value([5]).run()
    assert at.error[0].value == "inputs: 1 selected; allowed 2 to 4 inputs"
    assert not at.exception


def test_a_link_reproduces_the_view():
    at = open_page(digits=["1", "7"], n="10", cost="L1 (W₁, Manhattan)", seed="2")
    assert at.multiselect(key="digits").value == [1, 7]
    assert at.slider(key="n").value == 10 and at.selectbox(key="cost").value == "l1"
    assert number(metric(at, "GETO-LP variables")) == 2 * 100 * 20 + 100


def test_a_large_grid_runs_live_and_shows_its_result():
    at = open_page()
    at.multiselect(key="digits").set_value([0, 3, 8]).run()
    at.slider(key="n").set_value(20).run()
    assert not at.metric  # nothing solved yet: 48,400 variables wait for the button
    next(b for b in at.button if b.proto.label == "Solve live").click().run()
    run = at.session_state["liverun:geto_lp:digits:0,3,8:20:0:0.3333,0.3333,0.3333:sqeuclidean:highs-ipm:0.01"]
    assert run.wait(90) and run.state == "done", run.error
    gaps = [row["log10 duality gap"] for row in run.history if "log10 duality gap" in row]
    assert len(gaps) >= 5 and gaps[-1] < -6 < gaps[0]  # the interior point's iterations, drawn live
    at.run()
    assert number(metric(at, "GETO-LP variables")) == 3 * 400 * 40 + 400
    assert table(at).loc["POT ot.lp.barycenter (classical LP)", "status"].startswith("skipped: the classical LP")


def test_stop_interrupts_a_live_solve():
    at = open_page()
    at.multiselect(key="digits").set_value([0, 3, 8]).run()
    at.slider(key="n").set_value(40).run()  # 577,600 variables: half a minute of HiGHS
    next(b for b in at.button if b.proto.label == "Solve live").click().run()
    run = at.session_state["liverun:geto_lp:digits:0,3,8:40:0:0.3333,0.3333,0.3333:sqeuclidean:highs-ipm:0.01"]
    next(b for b in at.button if b.proto.label == "Stop").click().run()
    assert run.wait(20) and run.state == "stopped"
    assert run.result.result.status == "stopped" and run.result.runs[0].status == "stopped"
    at.run()
    assert any(w.value.startswith("Stopped before HiGHS finished") for w in at.warning) and not at.metric


def wait_for(predicate, limit=120.0):
    done = threading.Event()
    for _ in range(int(limit / 0.05)):
        if predicate():
            return True
        done.wait(0.05)
    return False


def test_the_default_view_is_the_shipped_one():
    from core.geto_lp.ship import load_view

    at = open_page()
    assert any("This default view is shipped" in c.value for c in at.caption)
    shipped = load_view("digits").comparison.by_method
    runs = table(at)
    for run in shipped.values():
        assert runs.loc[run.label, "objective (exact)"] == pytest.approx(run.objective, rel=1e-12)
    assert not [b for b in at.button if b.key and b.key.startswith("liverun:")]   # nothing to start


def test_a_small_view_solves_geto_lp_on_load_and_pot_on_a_click():
    at = open_page(n="10")
    assert not any("This default view is shipped" in c.value for c in at.caption)
    assert list(table(at).index) == ["GETO-LP (layered, exact)"]
    next(b for b in at.button if b.proto.label == "Run POT's solvers").click().run()
    run = at.session_state["liverun:geto_lp:digits:0,3:10:0:0.5000,0.5000:sqeuclidean:highs-ds:0.01:baselines"]
    assert run.wait(120) and run.state == "done", run.error
    at.run()
    runs = table(at)
    assert len(runs) == 4 and not at.exception
    geto, pot = runs.loc["GETO-LP (layered, exact)"], runs.loc["POT ot.lp.barycenter (classical LP)"]
    assert pot["objective (exact)"] == pytest.approx(geto["objective (exact)"], rel=1e-6)
    assert (runs.loc[runs.index.str.contains("entropic"), "gap to exact"] > 1e-3).all()


def test_stopping_the_baselines_keeps_what_ran(monkeypatch):
    from core.geto_lp import baselines

    release, real = threading.Event(), baselines._run_baseline

    def held(*args, **kwargs):       # each baseline waits for the test, so the Stop lands mid-run
        release.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(baselines, "_run_baseline", held)
    at = open_page(n="10")
    next(b for b in at.button if b.proto.label == "Run POT's solvers").click().run()
    slot = "liverun:geto_lp:digits:0,3:10:0:0.5000,0.5000:sqeuclidean:highs-ds:0.01:baselines"
    run = at.session_state[slot]
    assert wait_for(lambda: run.snapshot().step >= 1 or run.finished)   # POT imported, the first baseline held
    at.button(key=f"{slot}:stop").click().run()
    release.set()
    assert run.wait(120) and run.state == "stopped" and run.calls_after_stop <= 1
    at.run()
    assert not at.exception and run.result.stopped and [r.method for r in run.result.runs] == ["pot_lp"]
    assert list(table(at).index) == ["GETO-LP (layered, exact)", "POT ot.lp.barycenter (classical LP)"]
    assert any(c.value.startswith("Stopped: 1 of the baselines ran") for c in at.caption)


def test_live_names_the_url_that_shows_the_live_solve():
    from pages.geto_lp import LIVE

    at = open_page(**LIVE)
    assert any(b.proto.label == "Solve live" for b in at.button) and not at.metric
