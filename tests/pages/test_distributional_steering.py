"""The distributional steering page through AppTest: default view, reward switch, baselines, bad input."""

import json

import numpy as np

from tests.pages import apptest


def metrics(at):
    return {m.label: m.value for m in at.metric}


def run_panel(at, prefix):
    """Click the live panel whose key starts with ``prefix``, wait for its worker, redraw; the run."""
    start = next(b.key for b in at.button if b.key and b.key.startswith(f"liverun:{prefix}") and b.key.endswith(":start"))
    at.button(key=start).click().run()
    run = at.session_state[start.removesuffix(":start")]
    assert run.wait(300) and run.state == "done", (run.state, run.error)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return run


def test_default_view_lands_on_the_exact_target():
    at = apptest.open_page("distributional_steering")
    assert at.title[0].value == "Distributional steering of diffusion" and not at.exception
    shown = metrics(at)
    mean = np.array([float(v) for v in shown["Weighted mean"].split(",")])
    exact = np.array([float(v) for v in shown["Exact target mean"].split(",")])
    assert np.abs(mean - exact).max() < 0.05                          # soft calibration, kappa = 4
    assert int(shown["Resamplings"]) >= 0 and len(at.get("plotly_chart")) == 3
    # every coordinate's W1 to the exact target, next to its Monte Carlo floor (measured 0.018, 0.028 vs 0.031, 0.028)
    w1 = np.array([float(v) for v in shown["W1 per coordinate"].split(",")])
    floor = np.array([float(v) for v in shown["Monte Carlo floor"].split(",")])
    assert len(w1) == 2 and (w1 < 1.5 * floor).all()
    table = at.dataframe[0].value.set_index("coordinate")
    assert list(table.index) == ["x1", "x2"] and (table["(mean diff) / SE"].abs() < 3).all()
    marginals = json.loads(at.get("plotly_chart")[2].proto.spec)
    assert sum(d["name"] == "exact target" for d in marginals["data"]) == 2      # one per coordinate
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert [d["name"] for d in spec["data"]] == ["particles", "exact target, 50% region", "exact target, 90% region"] and "t = 0.00" in spec["layout"]["title"]["text"]


def test_hard_constraint_hits_the_target_and_baselines_compare():
    from pages.distributional_steering import REWARD_LABELS

    # Streamlit writes a select box's label into the URL (see app/ui/controls.py)
    at = apptest.open_page("distributional_steering", reward=REWARD_LABELS["constraint"], tx=0.5, ty=0.0)
    mean = [float(v) for v in metrics(at)["Weighted mean"].split(",")]
    assert np.allclose(mean, [0.5, 0.0], atol=0.005)
    run = run_panel(at, "distributional_steering/baselines:")
    table = at.dataframe[1].value.set_index("method")
    assert list(table.index) == [row["method"] for row in run.result.rows]   # the table is the run's result
    assert table.loc["mean-field particles", "W1 to target"] < 0.05
    assert table.loc["unguided", "W1 to target"] > 0.3


def test_snapshot_slider_and_bad_window():
    at = apptest.open_page("distributional_steering")
    at.slider(key="snapshot").set_value(1).run()
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert "t = 0.99" in spec["layout"]["title"]["text"] or "t = 1.00" in spec["layout"]["title"]["text"]
    at.slider(key="window").set_value((0.5, 0.5)).run()
    assert at.error[0].value.startswith("window_end: 0.5 is not after window_start=0.5; allowed")


def test_protein_section_calibrates_foldedness():
    at = apptest.open_page("distributional_steering", fold_target=0.6)
    assert "Steered mean foldedness" not in metrics(at)             # not run at first view
    run = run_panel(at, "distributional_steering/protein:0.60")
    shown = metrics(at)
    assert float(shown["Steered mean foldedness"]) == round(run.result.steered_mean, 3)
    assert abs(float(shown["Steered mean foldedness"]) - 0.6) < 0.02
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    names = {d.get("name") for s in specs for d in s["data"]}
    assert {"denoiser alone", "steered (weighted)", "max-ent reweighted reference"} <= names
    assert sum(d["type"] == "scatter3d" for s in specs for d in s["data"]) == 4   # native + three conformations


def test_constraint_on_x1_leaves_x2_at_the_exact_target_and_the_2d_check_runs():
    from pages.distributional_steering import REWARD_LABELS

    at = apptest.open_page("distributional_steering", reward=REWARD_LABELS["constraint_x1"], tx=0.5)
    table = at.dataframe[0].value.set_index("coordinate")
    assert abs(table.loc["x1", "mean (particles)"] - 0.5) < 1e-3                  # the constraint itself
    assert abs(table.loc["x2", "(mean diff) / SE"]) < 3                          # what it does not touch
    run = run_panel(at, "distributional_steering/whole:")
    shown = metrics(at)
    assert float(shown["Binned W1 to the exact target"]) == round(run.result.distance, 3)
    assert run.result.distance < 1.5 * run.result.floor


def test_particle_guidance_panel_shows_the_identity():
    at = apptest.open_page("distributional_steering", particles=250)        # the panel runs min(particles, 500)
    run = run_panel(at, "distributional_steering/batch:")
    assert run.result.max_gap < 1e-5
    assert float(metrics(at)["Largest gap, particle guidance vs the framework's unweighted proposal"]) < 1e-5
    methods = list(at.dataframe[-1].value["method"])
    assert methods == ["particle guidance", "framework proposal, unweighted", "mean-field particles",
                       "mean-field particles, guided"]
