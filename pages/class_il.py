"""Task confusion in class-IL: the TC gap against γ_min, the exp(−γ_min/8) bound, heavy tails and drift."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from app.catalog import BY_KEY
from app.ui.controls import bound, seed_input
from app.ui.details import details
from app.ui.export import export_buttons
from app.ui.live import live_panel
from app.ui.pictures import first_screen
from app.ui.plots import COLORS, show
from app.ui.verdicts import page_header
from core.class_il.experiment import (CONFIG_KEYS, CONFIG_LABELS, PAPER_CI, PAPER_SLOPE, THEORY_SLOPE,
                                      ExperimentConfig, SyntheticConfig, configuration_sweep, synthetic_sweep)
from core.class_il.learners import LEARNER_LABELS, LEARNERS
from core.class_il.ship import ALPHAS
from core.class_il.ship import SEED as SHIPPED_SEED
from core.class_il.ship import shipped_view
from core.common.results import result_to_dict

SYSTEM = BY_KEY["class_il"]
LIVE: dict = {}   # the sweep and synthetic panels show by default


@st.cache_data(show_spinner=False)
def cached_view() -> dict:
    return shipped_view()


def kind_of(key: str) -> tuple[str, str]:
    """A configuration's backbone kind and its colour: random anchors, no backbone, pretrained."""
    if "random" in key or "shuffled" in key:
        return "random / shuffled-label backbone", COLORS[3]
    if key.endswith(("pixels", "tfidf")):
        return "no pretrained backbone", COLORS[1]
    return "pretrained backbone", COLORS[0]


def slope_figure(sweep: dict) -> go.Figure:
    g, gap = np.array(sweep["gamma_min"], dtype=float), np.array(sweep["tc_gap"], dtype=float)
    fig = go.Figure()
    for kind in ("pretrained backbone", "no pretrained backbone", "random / shuffled-label backbone"):
        idx = [i for i, k in enumerate(sweep["keys"]) if kind_of(k)[0] == kind and gap[i] > 0]
        if idx:
            fig.add_trace(go.Scatter(x=g[idx], y=gap[idx], mode="markers", name=kind,
                                     text=[sweep["labels"][i] for i in idx], hovertemplate="%{text}<br>γ̂_min %{x:.2f}"
                                     "<br>TC gap %{y:.4f}<extra></extra>",
                                     marker=dict(color=kind_of(sweep["keys"][idx[0]])[1], size=10)))
    grid = np.linspace(0, max(40.0, float(np.nanmax(g)) * 1.05), 100)
    fig.add_trace(go.Scatter(x=grid, y=np.minimum(1, np.exp(-grid / 8)), mode="lines", name="bound exp(−γ/8)",
                             line=dict(color="#444", dash="dash")))
    s = sweep["slope"]
    if s["slope"] is not None:
        fig.add_trace(go.Scatter(x=grid, y=np.exp(s["intercept"] + s["slope"] * grid), mode="lines",
                                 name=f"fit: slope {s['slope']:.3f}", line=dict(color=COLORS[2])))
        fig.add_trace(go.Scatter(x=grid, y=np.exp(s["intercept"] + PAPER_SLOPE * grid), mode="lines",
                                 name=f"paper's slope {PAPER_SLOPE} (same intercept)",
                                 line=dict(color=COLORS[4], dash="dot")))
    fig.update_layout(title=f"TC gap against γ̂_min · {LEARNER_LABELS[sweep['learner']]} · "
                            f"{len(sweep['keys'])} configurations", xaxis_title="γ̂_min (squared Mahalanobis margin)",
                      yaxis_title="TC gap = Acc_TIL − Acc_CIL", yaxis_type="log", yaxis_dtick=1, height=520, hovermode="closest")
    return fig


def confusion_figure(matrix, label: str) -> go.Figure:
    M = np.asarray(matrix, dtype=float)
    names = [f"task {t + 1}" for t in range(len(M))]
    fig = go.Figure(go.Heatmap(z=M, x=names, y=names, colorscale="Blues", zmin=0, zmax=1,
                               text=np.round(M, 3), texttemplate="%{text}", colorbar=dict(title="share")))
    fig.update_layout(title=f"Task confusion · {label}", xaxis_title="task of the class-IL prediction",
                      yaxis_title="true task", yaxis_autorange="reversed", height=420)
    return fig


def synthetic_figure(synthetic: dict) -> go.Figure:
    fig = go.Figure()
    for i, (layout, s) in enumerate(synthetic.items()):
        fig.add_trace(go.Scatter(x=s["gamma_hat"], y=s["tc_gap"], mode="lines+markers",
                                 name=f"{layout}: slope {s['slope']['slope']:.3f}", line=dict(color=COLORS[i])))
    grid = np.linspace(0, max(max(s["gamma_hat"]) for s in synthetic.values()) * 1.05, 60)
    fig.add_trace(go.Scatter(x=grid, y=np.minimum(1, np.exp(-grid / 8)), mode="lines", name="exp(−γ/8)",
                             line=dict(color="#444", dash="dash")))
    fig.update_layout(title="Synthetic Gaussian tasks (SLDA)", xaxis_title="γ̂_min", yaxis_title="TC gap",
                      yaxis_type="log", yaxis_dtick=1, height=420)
    return fig


def heavy_tail_figure(curve: dict) -> go.Figure:
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=curve["K"], y=curve["error"], mode="lines+markers", line=dict(color=COLORS[0]),
                             name=f"no clipping: slope {curve['slope']:.3f}"))
    fig.add_trace(go.Scatter(x=curve["K"], y=curve["error_clipped"], mode="lines+markers", line=dict(color=COLORS[1]),
                             name=f"clipped: slope {curve['slope_clipped']:.3f}"))
    K = np.array(curve["K"], dtype=float)
    ref = curve["error"][0] * (K / K[0]) ** curve["theory_slope"]
    fig.add_trace(go.Scatter(x=K, y=ref, mode="lines", line=dict(color="#444", dash="dash"),
                             name=f"K^−(α−1)/α = K^{curve['theory_slope']:.3f}"))
    fig.update_layout(title=f"E_CF against the budget K · α = {curve['alpha']:g} (α̂ = {curve['alpha_hat']:.2f})",
                      xaxis_title="steps K", yaxis_title="median ‖θ̄_K − θ*‖", xaxis_type="log", yaxis_type="log",
                      yaxis_dtick=1, xaxis_dtick=1, height=420)
    return fig


def drift_figure(drift: dict) -> go.Figure:
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=drift["lr"], y=drift["drift"], mode="markers", marker=dict(color=COLORS[0], size=9),
                             name=f"small η: R² {drift['small']['r2']:.4f}, r {drift['small']['r']:.4f}"))
    lr = np.array(drift["lr"], dtype=float)
    fig.add_trace(go.Scatter(x=lr, y=drift["small"]["intercept"] + drift["small"]["slope"] * lr, mode="lines",
                             line=dict(color=COLORS[0]), name="linear fit"))
    fig.add_trace(go.Scatter(x=drift["lr_control"], y=drift["drift_control"], mode="markers",
                             marker=dict(color=COLORS[3], size=9, symbol="x"),
                             name=f"large η (control): R² {drift['control']['r2']:.2f}"))
    fig.update_layout(title="Representation drift against the backbone learning rate", xaxis_title="learning rate η",
                      yaxis_title="RMS ‖φ_after − φ_before‖", xaxis_type="log", yaxis_type="log", xaxis_dtick=1,
                      yaxis_dtick=1, height=420)
    return fig


def controls():
    """The controls that define a view (all bound to the URL); None after a validation error."""
    c = st.columns([1.2, 2, 1, 1])
    with c[0]:
        learner = bound(st.selectbox, "Learner", key="learner", options=list(LEARNERS), format_func=LEARNER_LABELS.get)
    with c[1]:
        chosen = bound(st.selectbox, "Backbone and dataset (confusion matrix)", key="config",
                       options=list(CONFIG_KEYS), index=list(CONFIG_KEYS).index("digits/mlp64-half"),
                       format_func=CONFIG_LABELS.get)
    with c[2]:
        splits = bound(st.number_input, "Splits per configuration", key="splits", min_value=1, max_value=10,
                       value=3, step=1)
    with c[3]:
        seed = seed_input()
    try:
        config = ExperimentConfig(learner=learner, n_splits=int(splits))
    except ValueError as err:
        st.error(str(err))
        return None
    return config, chosen, seed


def slope_section(view: dict, config: ExperimentConfig, seed: int) -> dict:
    """The main figure (shipped sweep, or the visitor's run) with its numbers; returns the sweep shown."""
    learner = config.learner
    sweep, source = view["sweeps"][learner], f"the shipped sweep (seed {SHIPPED_SEED}, 3 splits)"
    shipped = seed == SHIPPED_SEED and config.n_splits == ExperimentConfig().n_splits
    left, right = st.columns([2, 1])
    with right:
        if not shipped:
            st.caption("These controls differ from the shipped sweep: recompute it live (MiniLM from the shipped "
                       "embedding table, about 40 s).")
        run = live_panel(f"class_il:sweep:{config.to_dict()}:{seed}", configuration_sweep,
                         {"config": config, "seed": int(seed)}, start_label="Recompute",
                         group="class_il-sweep")
        if run is not None and run.result is not None and run.state == "done":
            sweep, source = result_to_dict(run.result), "your run"
    s = sweep["slope"]
    gap, bnd = np.array(sweep["tc_gap"], dtype=float), np.array(sweep["bound"], dtype=float)
    with left:
        st.caption(f"Showing {source}.")
        show(slope_figure(sweep), key="chart-slope")
    with right:
        m = st.columns(2)
        m[0].metric("Fitted slope", f"{s['slope']:.3f}" if s["slope"] is not None else "–",
                    help=f"95% bootstrap CI [{s['low']:.3f}, {s['high']:.3f}] over {s['n_used']} configurations "
                         f"({s['n_zero']} with a zero gap left out)" if s["slope"] is not None else None)
        m[1].metric("Bound holds", f"{int(np.sum(gap <= bnd))} of {len(gap)}")
        st.markdown(
            f"**What you are seeing.** Each point is one (backbone, dataset) configuration: its worst task-centroid "
            f"margin γ̂_min in feature space against the TC gap of a CF-optimal {LEARNER_LABELS[learner]} head "
            f"(task-aware minus class-IL accuracy, same scores). The dashed curve is the bound exp(−γ/8); on a log "
            f"axis it is a line of slope −1/8. Our fit: **{s['slope']:.3f}** (95% CI [{s['low']:.3f}, "
            f"{s['high']:.3f}]); the paper: **{PAPER_SLOPE}** [{PAPER_CI[0]}, {PAPER_CI[1]}]; theory "
            f"{THEORY_SLOPE:.3f}. Random and shuffled-label backbones are the paper's anchors."
            if s["slope"] is not None else "Too few configurations with a positive gap to fit a slope.")
    return sweep


def confusion_section(view: dict, sweep: dict, chosen: str, learner: str, seed: int) -> None:
    """The chosen configuration's task confusion matrix, and the synthetic sweep with its live run."""
    st.subheader("Per-task confusion, and the synthetic check of the bound")
    a, b = st.columns(2)
    with a:
        if chosen in sweep["keys"]:
            i = sweep["keys"].index(chosen)
            show(confusion_figure(sweep["confusion"][i], CONFIG_LABELS[chosen]), key="chart-confusion")
            st.caption(f"γ̂_min {sweep['gamma_min'][i]:.2f} · TC gap {sweep['tc_gap'][i]:.4f} · bound "
                       f"{sweep['bound'][i]:.4f} · Acc_CIL {sweep['acc_cil'][i]:.3f} · Acc_TIL {sweep['acc_til'][i]:.3f}")
        else:
            st.info("This configuration is not in the sweep shown (the run stopped before it).")
    with b:
        show(synthetic_figure(view["synthetic"]), key="chart-synthetic")
        line = view["synthetic"]["line"]
        st.caption(f"Equal-covariance Gaussian tasks; the zero-margin control (identical task centroids) gives a gap "
                   f"of {line['zero_margin_gap']:.3f}, the maximum (1 − 1/T)·Acc_TIL = "
                   f"{line['zero_margin_maximum']:.3f}. The Euclidean margin (misspecified) gives slope "
                   f"{line['slope_euclidean']['slope']:.3f}.")
        layout = bound(st.radio, "Synthetic layout for a live sweep", key="layout", options=["line", "simplex"],
                       horizontal=True)
        syn = live_panel(f"class_il:synthetic:{layout}:{learner}:{seed}", synthetic_sweep,
                         {"config": SyntheticConfig(layout=layout, learner=learner), "seed": int(seed)},
                         start_label="Run the synthetic sweep", group="class_il-synthetic")
        if syn is not None and syn.result is not None and syn.state in ("done", "stopped"):
            r = syn.result
            st.markdown(f"Your sweep ({LEARNER_LABELS[learner]}, {layout}): slope **{r.slope.slope:.3f}**, bound held "
                        f"in {int(np.sum(r.tc_gap <= r.bound))} of {len(r.tc_gap)} margins.")
            export_buttons(r, f"class_il-synthetic-{layout}-{learner}-seed{seed}", key="synthetic-export")


def render() -> None:
    page_header(SYSTEM)
    view = cached_view()
    if view is None:
        st.error("assets/class_il/view_seed0.json is missing; run python -m core.class_il.ship")
        return
    chosen_controls = controls()
    if chosen_controls is None:
        return
    config, chosen, seed = chosen_controls
    sweep = slope_section(view, config, seed)
    if first_screen():
        return
    confusion_section(view, sweep, chosen, config.learner, seed)

    st.subheader("Heavy-tailed gradient noise and representation drift")
    h, d = st.columns(2)
    with h:
        alpha = bound(st.select_slider, "Tail index α", key="alpha", options=[f"{x:g}" for x in ALPHAS], value="1.5")
        show(heavy_tail_figure(view["heavy_tail"][alpha]), key="chart-heavy")
    with d:
        show(drift_figure(view["drift"]), key="chart-drift")

    for _ in details("Details: configurations, settings and exports"):
        st.dataframe({"configuration": sweep["labels"], "γ̂_min": sweep["gamma_min"],
                      "γ̂ plug-in": sweep["gamma_plugin"], "class margin": sweep["gamma_class"],
                      "TC gap": sweep["tc_gap"], "bound": sweep["bound"], "Acc_CIL": sweep["acc_cil"],
                      "Acc_TIL": sweep["acc_til"]}, hide_index=True)
        st.json({"config": config.to_dict(), "seed": seed})
        export_buttons({k: v for k, v in sweep.items() if k != "confusion"}, f"class_il-sweep-{config.learner}-seed{seed}",
                       key="sweep-export")


if __name__ == "__main__":
    render()
