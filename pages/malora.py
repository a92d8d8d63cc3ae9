"""Margin-based LoRA merging: adapters trained live, margins, the lambda trade-off and every merge method."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from app.catalog import BY_KEY
from app.ui.cache import shipped
from app.ui.controls import bound, seed_input
from app.ui.details import details
from app.ui.export import export_buttons
from app.ui.live import live_panel
from app.ui.pictures import first_screen
from app.ui.plots import COLORS, show
from app.ui.verdicts import page_header
from core.common.results import result_to_dict
from core.malora.experiment import MergeConfig, SweepConfig, lambda_sweep
from core.malora.merging import METHOD_LABELS
from core.malora.ship import SEED as SHIPPED_SEED
from core.malora.ship import shipped_merge, shipped_sweep
from core.malora.tasks import FAMILIES, FAMILY_LABELS
from core.malora.views import merge_view

SYSTEM = BY_KEY["malora"]
LIVE: dict = {"seed": 1}   # another seed than the shipped one shows the merge and sweep panels
ROW_LABELS = {**METHOD_LABELS, "base": "base head (no adapter)", "peft_linear": "peft linear (A, B merged apart)",
              "grid_oracle": "grid oracle (best α on the union)"}
SHORT = {"malora": "MaLoRA", "task_arithmetic": "task arith.", "ties": "TIES", "dare_linear": "DARE lin.",
         "dare_ties": "DARE TIES", "magnitude_prune": "mag. prune", "svd": "SVD", "cat": "cat",
         "peft_linear": "peft linear", "grid_oracle": "grid oracle"}
LAMS = [1e-1, 1e-2, 1e-3, 1e-4, 1e-5]


def cached_merge():
    return shipped(shipped_merge)


def cached_sweep():
    return shipped(shipped_sweep)


def _nan(values) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in np.ravel(values)], dtype=float).reshape(np.shape(values))


def table(result: dict) -> dict:
    """The merge table's columns from a comparison (as a dict, shipped or from a run)."""
    acc, mar = _nan(result["task_accuracy"]), _nan(result["task_margin"])
    cols = {"method": [ROW_LABELS.get(m, m) for m in result["methods"]],
            "α / weights": [", ".join("–" if not np.isfinite(x) else f"{x:.3f}" for x in w)
                            for w in _nan(result["weights"])],
            "union margin": _nan(result["union_margin"]), "union accuracy": _nan(result["union_accuracy"])}
    for j, name in enumerate(result["task_names"]):
        cols[f"acc: {name}"] = acc[:, j]
    for j, name in enumerate(result["task_names"]):
        cols[f"margin: {name}"] = mar[:, j]
    return cols


def merge_figure(result: dict) -> go.Figure:
    methods = [m for m in result["methods"] if m != "base"]
    idx = [result["methods"].index(m) for m in methods]
    um, ua = _nan(result["union_margin"])[idx], _nan(result["union_accuracy"])[idx]
    colors = [COLORS[0] if m == "malora" else COLORS[5] if m == "grid_oracle" else "#9AA0A6" for m in methods]
    fig = go.Figure()
    fig.add_trace(go.Bar(x=[SHORT.get(m, m) for m in methods], y=um, name="union margin (normalised, train)",
                         marker_color=colors, text=[f"{v:.3f}" for v in um], textposition="outside"))
    fig.add_trace(go.Scatter(x=[SHORT.get(m, m) for m in methods], y=ua, name="union accuracy (test)",
                             mode="markers", marker=dict(color=COLORS[3], size=11, symbol="diamond"), yaxis="y2"))
    fig.add_hline(y=0.0, line=dict(color="#888", dash="dot"))
    fig.update_layout(title="Every merge on the union of tasks<br><sup>normalised margin (bars), test accuracy (diamonds)</sup>", height=470,
                      yaxis=dict(title="normalised union margin"),
                      yaxis2=dict(title="union accuracy", overlaying="y", side="right", range=[0, 1.05],
                                  showgrid=False, tickmode="linear", tick0=0, dtick=0.25),
                      xaxis=dict(tickangle=-30), margin=dict(r=60))
    return fig


def landscape_figure(land: dict, alpha: tuple[float, float] | None) -> go.Figure:
    v, z = np.asarray(land["values"], float), _nan(land["margin"])
    fig = go.Figure(go.Contour(x=v, y=v, z=z.T, colorscale="Viridis", ncontours=24, name="union margin",
                               colorbar=dict(title="margin", len=0.8), hovertemplate="α₁ %{x:.3f}<br>α₂ %{y:.3f}"
                               "<br>margin %{z:.4f}<extra></extra>"))
    star, best = _nan(land["alpha_star"]), _nan(land["grid_best"])
    points = [("MaLoRA α* = γ₀/γ_t", star, COLORS[3], "star"), ("grid best", best, COLORS[6], "x"),
              ("uniform α = 1 (task arithmetic)", np.array([1.0, 1.0]), "#FFFFFF", "circle")]
    if alpha is not None:
        points.append(("your α", np.asarray(alpha, float), COLORS[4], "diamond"))
    for name, p, color, symbol in points:
        if np.all(np.isfinite(p)) and p.max() <= v[-1] + 1e-12:
            fig.add_trace(go.Scatter(x=[p[0]], y=[p[1]], mode="markers", name=name,
                                     marker=dict(color=color, size=14, symbol=symbol, line=dict(color="#000", width=1))))
    fig.update_layout(title="Union margin of W0 + α₁ΔW₁ + α₂ΔW₂ (training data)", xaxis_title="α₁", yaxis_title="α₂",
                      height=520, hovermode="closest")
    return fig


def sweep_figure(s: dict) -> go.Figure:
    lams = np.asarray(s["lams"], float)
    fig = go.Figure()
    for key, name, color, dash in (("pre_margin", "pretraining margin", COLORS[0], None),
                                   ("ft_margin", "fine-tuning margin", COLORS[3], None),
                                   ("union_margin", "union margin", COLORS[2], None),
                                   ("closed_pre", "closed form: pretraining", COLORS[0], "dash"),
                                   ("closed_ft", "closed form: fine-tuning (max-margin)", COLORS[3], "dash")):
        fig.add_trace(go.Scatter(x=lams, y=_nan(s[key]), name=name, mode="lines+markers" if dash is None else "lines",
                                 line=dict(color=color, dash=dash)))
    fig.add_trace(go.Scatter(x=lams, y=_nan(s["cosine_svm"]), name="cos(ΔW, Crammer-Singer SVM)", yaxis="y2",
                             mode="lines+markers", line=dict(color=COLORS[4], dash="dot")))
    if s.get("mean_classifier_cosine") is not None:
        fig.add_trace(go.Scatter(x=[lams.min(), lams.max()], y=[s["mean_classifier_cosine"]] * 2, yaxis="y2",
                                 name="control: class-mean classifier's cosine", mode="lines",
                                 line=dict(color="#999", dash="dot")))
    fig.update_layout(title="λ trades retention for adaptation (normalised margins of W0 + ΔW)", height=470,
                      xaxis=dict(type="log", title="λ (weight of ‖A‖² + ‖B‖²)", autorange="reversed"),
                      yaxis=dict(title="normalised margin"),
                      yaxis2=dict(title="cosine to the SVM", overlaying="y", side="right", range=[0, 1.02],
                                  showgrid=False, tickmode="linear", tick0=0, dtick=0.25), margin=dict(r=60))
    return fig


def controls() -> tuple[MergeConfig, int] | None:
    """The merge knobs (bound to the URL) and the validated config; None after showing an error."""
    c = [*st.columns([2, 1.5, 1.5]), *st.columns(3)]
    with c[0]:
        family = bound(st.selectbox, "Tasks", key="tasks", options=list(FAMILIES), format_func=FAMILY_LABELS.get)
    with c[1]:
        overlap = bound(st.slider, "Overlap ε (synthetic)", key="overlap", min_value=0.0, max_value=0.9, value=0.0,
                        step=0.05, disabled=family != "synthetic",
                        help="0: exactly orthogonal tasks; > 0: each class mean shares ε with a common block.")
    with c[2]:
        lam = bound(st.select_slider, "Adapter λ", key="lam", options=LAMS, value=1e-3, format_func=lambda x: f"{x:g}")
    with c[3]:
        rank = bound(st.number_input, "LoRA rank", key="rank", min_value=1, max_value=8, value=2, step=1)
    with c[4]:
        quantile = bound(st.number_input, "Margin quantile (0 = hard)", key="q", min_value=0.0, max_value=0.25,
                         value=0.0, step=0.05, help="MaLoRA's γ: the smallest sample margin, or this quantile of them.")
    with c[5]:
        seed = seed_input()
    try:
        config = MergeConfig(family=family, overlap=float(overlap) if family == "synthetic" else 0.0, lam=float(lam),
                             rank=int(rank), margin_quantile=float(quantile))
    except ValueError as err:
        st.error(str(err))
        return None
    return config, seed


def merge_run(config: MergeConfig, seed: int) -> tuple[dict | None, dict | None, str]:
    """The shipped merge (defaults) or, once a changed config is run, the live one: (result, landscape, source)."""
    shipped = cached_merge()
    result = shipped["result"] if shipped else None
    land = shipped["landscape"] if shipped else None
    source = f"the shipped run (defaults, seed {SHIPPED_SEED})"
    if config == MergeConfig() and seed == SHIPPED_SEED:
        return result, land, source
    run = live_panel(f"malora:merge:{config.to_dict()}:{seed}", merge_view, {"config": config, "seed": int(seed)},
                     start_label="Train adapters and merge", group="malora-merge")
    if run is not None and run.result is not None and run.state == "done":
        view = run.result
        land = result_to_dict(view.landscape) if view.landscape is not None else None
        return result_to_dict(view.comparison), land, "your run"
    return result, land, source


def what_you_see(result: dict) -> None:
    """The merge's "what you are seeing" text, with MaLoRA's margins and its rank among the methods."""
    rows = result["methods"]
    um = _nan(result["union_margin"])
    ranked = [rows[i] for i in np.argsort(-np.where(np.isfinite(um), um, -np.inf)) if rows[i] != "grid_oracle"]
    place = ranked.index("malora") + 1 if "malora" in ranked else None
    st.markdown(
        f"**What you are seeing.** {FAMILY_LABELS[result['family']]}: a head W0 pretrained on the first task and one "
        f"LoRA adapter (peft) per further task, merged by every method. MaLoRA sets α_t = γ₀/γ_t from margins alone "
        f"(γ₀ = {result['base_margin']:.3f}; γ_t = "
        + ", ".join(f"{g:.3f}" for g in _nan(result["adapter_margins"]))
        + f"); the grid oracle searches α with every task's data. By union margin MaLoRA ranks "
        f"{place if place else '–'} of {len(ranked)} methods (oracle aside). Margins are on training data, "
        "accuracies on held-out data; the base head gives all-zero logits on orthogonal tasks, so its accuracy "
        "there is a tie-break.")


def merge_section(config: MergeConfig, seed: int) -> tuple[dict | None, dict | None]:
    """The merge figure and its text; returns the shown (result, landscape)."""
    st.subheader("Merging two adapters")
    left, right = st.columns([3, 2])
    with right:
        result, land, source = merge_run(config, seed)
    if result is None:
        st.warning("The shipped run is missing: run `python -m core.malora.ship`.")
        return None, None
    with left:
        st.caption(f"Showing {source}.")
        show(merge_figure(result), key="chart-merge")
    with right:
        what_you_see(result)
    return result, land


def merge_table(result: dict) -> None:
    """Every merge's numbers, and each fine-tuned model's accuracy before merging. Drawn below the first screen: a
    grid there would hold the first view's picture back while the browser loads the grid's code."""
    cols = table(result)
    st.dataframe(cols, hide_index=True, column_config={k: st.column_config.NumberColumn(format="%.3f")
                                                       for k in cols if k not in ("method", "α / weights")})
    ft = _nan(result["finetuned_accuracy"])
    st.caption("Before merging: each fine-tuned model W0 + ΔW_t alone, test accuracy per task ("
               + "; ".join(f"adapter {t + 1}: " + ", ".join(f"{a:.2f}" for a in ft[t]) for t in range(len(ft)))
               + " on " + ", ".join(result["task_names"]) + ").")


def landscape_section(land: dict) -> None:
    """The α landscape of two adapters, with sliders that read it at a chosen α."""
    st.subheader("The α landscape")
    lo, hi = st.columns([3, 2])
    v = np.asarray(land["values"], float)
    top = float(v[-1])
    with hi:
        a1 = bound(st.slider, "α₁", key="a1", min_value=0.0, max_value=3.0, value=1.0, step=0.01)
        a2 = bound(st.slider, "α₂", key="a2", min_value=0.0, max_value=3.0, value=1.0, step=0.01)
        z = _nan(land["margin"])
        i, j = int(np.abs(v - a1).argmin()), int(np.abs(v - a2).argmin())
        inside = a1 <= top + 1e-9 and a2 <= top + 1e-9
        st.metric("Union margin at your α (nearest grid point)", f"{z[i, j]:.4f}" if inside else "outside the grid",
                  help=f"The grid spans 0 to {top:.3f} on each axis.")
        st.metric("MaLoRA α*", ", ".join(f"{a:.3f}" for a in _nan(land["alpha_star"])),
                  delta=f"margin {land['malora_margin']:.4f}" if land["malora_margin"] is not None else None)
        st.metric("Grid best", ", ".join(f"{a:.3f}" for a in _nan(land["grid_best"])),
                  delta=f"margin {land['grid_best_margin']:.4f}")
        st.metric("Uniform α = 1", f"{land['uniform_margin']:.4f}")
    with lo:
        show(landscape_figure(land, (a1, a2) if inside else None), key="chart-landscape")


def sweep_section(seed: int) -> tuple[SweepConfig, dict | None]:
    """The λ trade-off: the shipped sweep or a live one for changed knobs; returns (config, shown result)."""
    st.subheader("The λ trade-off and the max-margin alignment")
    sweep = cached_sweep()
    sc = st.columns(2)
    with sc[0]:
        s_over = bound(st.slider, "Overlap ε of the sweep's tasks", key="sweep_overlap", min_value=0.0, max_value=0.9,
                       value=0.0, step=0.05)
    with sc[1]:
        s_aniso = bound(st.slider, "Noise stretch (anisotropy)", key="aniso", min_value=1.0, max_value=6.0, value=1.0,
                        step=0.5, help="Stretch the noise along one direction: the class-mean classifier then differs "
                                       "from the max-margin one, so the alignment is not automatic.")
    sweep_config = SweepConfig(overlap=float(s_over), anisotropy=float(s_aniso),
                               noise=0.2 if s_aniso == 1.0 else 0.1)
    sweep_result, sweep_source = (sweep["result"] if sweep else None), f"the shipped sweep (seed {SHIPPED_SEED})"
    if not (sweep_config == SweepConfig() and seed == SHIPPED_SEED) or sweep is None:
        srun = live_panel(f"malora:sweep:{sweep_config.to_dict()}:{seed}", lambda_sweep,
                          {"config": sweep_config, "seed": int(seed)}, start_label="Run the λ sweep",
                          group="malora-sweep")
        if srun is not None and srun.result is not None and srun.state in ("done", "stopped"):
            sweep_result, sweep_source = result_to_dict(srun.result), "your run"
    if sweep_result is not None:
        st.caption(f"Showing {sweep_source}. One adapter on task 1 of a synthetic pair, trained at each λ.")
        show(sweep_figure(sweep_result), key="chart-sweep")
        st.markdown(
            "As λ falls the adapter grows: the fine-tuning margin rises towards the max-margin bound (dashed red) and "
            "the pretraining margin shrinks along its closed form (dashed blue) but stays positive while the tasks are "
            "orthogonal; the cosine to the Crammer–Singer SVM approaches 1. With isotropic noise the class-mean "
            "classifier (grey) is nearly max-margin already; stretch the noise to see the adapter start there at "
            "large λ and reach the SVM only at small λ. With overlap the closed form no longer holds and the "
            "pretraining margin can collapse.")
    return sweep_config, sweep_result


def details_section(config: MergeConfig, sweep_config: SweepConfig, seed: int, result: dict, sweep_result: dict | None) -> None:
    """The configs and the export buttons."""
    for _ in details("Details: configuration and export"):
        st.json({"merge config": config.to_dict(), "sweep config": sweep_config.to_dict(), "seed": seed})
        export_buttons(result, f"malora-merge-{result['family']}-seed{seed}", key="merge-export")
        if sweep_result is not None:
            export_buttons(sweep_result, f"malora-sweep-seed{seed}", key="sweep-export")


def render() -> None:
    page_header(SYSTEM)
    chosen = controls()
    if chosen is None:
        return
    config, seed = chosen
    result, land = merge_section(config, seed)
    if result is None:
        return
    if first_screen():
        return
    merge_table(result)
    if land is not None:
        landscape_section(land)
    sweep_config, sweep_result = sweep_section(seed)
    details_section(config, sweep_config, seed, result, sweep_result)


if __name__ == "__main__":
    render()
