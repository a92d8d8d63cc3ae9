"""Hierarchical driving world model: rollouts, the steering fan, error against horizon, probes, a live TF fine-tune."""

from __future__ import annotations

import dataclasses

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
from app.ui.tables import static_table
from app.ui.verdicts import page_header
from core.driving_world_model.diffusion import SCHEDULE_LABELS, SCHEDULES
from core.driving_world_model.experiment import FinetuneConfig, finetune_and_evaluate
from core.driving_world_model.views import ANIMATED, LABELS, shipped_view

SYSTEM = BY_KEY["driving_world_model"]
LIVE: dict = {}   # the fine-tune panel shows by default
PROBES = ("speed", "lane", "gap")


def cached_view():
    return shipped(shipped_view)


def picture(frame: np.ndarray) -> np.ndarray:
    """One displayable image of a (2, 32, 32) uint8 frame: road light, vehicles dark."""
    f = frame.astype(float) / 255
    return 0.35 * f[1] + 0.65 * f[0]


def rollout_figure(view, variant: str, episode: int) -> go.Figure:
    k = list(ANIMATED).index(variant)
    gt, gen = view.gt_frames[episode], view.rollouts[k, episode]
    gap = np.full((32, 2), np.nan)
    images = [np.hstack([picture(gt[t]), gap, picture(gen[t])]) for t in range(gt.shape[0])]
    heat = dict(colorscale="Greys", zmin=0, zmax=1, showscale=False)
    fig = go.Figure(go.Heatmap(z=images[0], **heat),
                    frames=[dict(data=[dict(type="heatmap", z=im, **heat)], name=str(t + 1))   # dicts: validated once
                            for t, im in enumerate(images)])
    steps = [dict(method="animate", label=str(t + 1), args=[[str(t + 1)], dict(mode="immediate", frame=dict(
        duration=0, redraw=True), transition=dict(duration=0))]) for t in range(len(images))]
    fig.update_layout(
        title=f"Truth (left), {LABELS[variant]} (right)",
        height=430, yaxis=dict(autorange="reversed", showticklabels=False, scaleanchor="x"),
        xaxis=dict(showticklabels=False),
        updatemenus=[dict(type="buttons", x=0.0, y=-0.02, xanchor="left", yanchor="top", buttons=[dict(
            label="Play", method="animate", args=[None, dict(frame=dict(duration=180, redraw=True), fromcurrent=True)])])],
        sliders=[dict(steps=steps, x=0.22, len=0.78, y=0.0, yanchor="top",
                      currentvalue=dict(prefix="frame ", xanchor="right"))])
    return fig


def horizon_figure(view, metric: str) -> go.Figure:
    data = view.iou if metric == "iou" else view.mse
    fig = go.Figure()
    for i, name in enumerate(view.variants):
        fig.add_trace(go.Scatter(x=np.arange(1, data.shape[1] + 1), y=data[i], mode="lines", name=LABELS[str(name)],
                                 line=dict(color=COLORS[i % len(COLORS)], dash="dot" if "shuffled" in name else "solid")))
    fig.update_layout(title="Vehicle IoU against horizon" if metric == "iou" else "Mean squared error against horizon",
                      xaxis_title="frames after the context", yaxis_title="IoU" if metric == "iou" else "MSE",
                      height=380, legend=dict(orientation="h", y=-0.25))
    return fig


def fan_figure(view) -> go.Figure:
    fig = go.Figure()
    t = np.arange(view.fan_truth.shape[1])
    for j, s in enumerate(view.steers):
        color = COLORS[j % len(COLORS)]
        fig.add_trace(go.Scatter(x=t, y=view.fan_generated[j], mode="lines+markers", name=f"generated, {s:+.2f} rad",
                                 line=dict(color=color)))
        fig.add_trace(go.Scatter(x=t, y=view.fan_truth[j], mode="lines", name=f"simulator, {s:+.2f} rad",
                                 line=dict(color=color, dash="dash"), showlegend=False))
    fig.update_layout(title="Counterfactual steering fan",
                      xaxis_title="frames after the context", yaxis_title="ego lateral position (m)", height=380)
    return fig


def probe_figure(view) -> go.Figure:
    fig = go.Figure()
    for j, target in enumerate(PROBES):
        fig.add_trace(go.Bar(x=[LABELS[str(n)] for n in view.variants], y=view.probe_r2[:, j], name=target,
                             marker_color=COLORS[j]))
    fig.update_layout(title="Linear-probe R² of the GRU state (held-out episodes)", barmode="group", height=380,
                      yaxis_title="R²", yaxis_range=[min(-0.2, float(np.nanmin(view.probe_r2))), 1])
    return fig


def summary_table(view) -> dict:
    return {"variant": [LABELS[str(n)] for n in view.variants], "IoU at 32": np.round(view.iou[:, -1], 3),
            "IoU at 8": np.round(view.iou[:, 7], 3), "steering ρ": np.round(view.spearman, 3),
            "probe R²": np.round(view.probe_r2.mean(1), 3)}


def main_section(view) -> None:
    c = st.columns([2, 1, 1])
    with c[0]:
        variant = bound(st.selectbox, "Rollout shown", key="variant", options=list(ANIMATED), format_func=LABELS.get)
    with c[1]:
        episode = bound(st.selectbox, "Test episode", key="episode", options=[0, 1])
    with c[2]:
        metric = bound(st.radio, "Curve", key="metric", options=["iou", "mse"], horizontal=True,
                       format_func={"iou": "IoU", "mse": "MSE"}.get)
    left, right = st.columns([3, 2])
    with left:
        show(rollout_figure(view, variant, int(episode)), key="chart-rollout")
    with right:
        st.markdown(
            "**What you are seeing.** Each model gets 9 ground-truth frames of a held-out episode (other cars dark, "
            "road light, the ego fixed at the centre) and the recorded actions, and generates the next 32 frames. "
            f"At frame 32 the vehicle IoU is {view.iou[list(view.variants).index(variant), -1]:.2f} for "
            f"{LABELS[variant]}. The hierarchical model first rolls out 8x8 keyframes every 4 frames, then fills "
            "in detail conditioned on them. DF = diffusion forcing, TF = teacher forcing, DF→TF = the paper's "
            "recipe.")
        static_table(summary_table(view))
    a, b = st.columns(2)
    with a:
        show(horizon_figure(view, metric), key="chart-horizon")
    with b:
        show(fan_figure(view), key="chart-fan")
        st.caption("Hierarchical DF→TF (solid) and the simulator (dashed), one context, each heading held 8 frames. "
                   f"Steering ρ (centred per context, 8 contexts): simulator {view.truth_spearman:.2f}; "
                   + ", ".join(f"{LABELS[str(n)]} {r:.2f}" for n, r in zip(view.variants, view.spearman)) + ".")
    show(probe_figure(view), key="chart-probes")
    st.caption("Ridge probes from the GRU state, fitted on 8 of these 16 held-out episodes and scored on the other 8 "
               "(noisy at this size); the verdict above uses three sets of 96 episodes, where the untrained network's "
               "random features probe as well as any trained variant.")


def live_section() -> None:
    st.subheader("Live: fine-tune the shipped diffusion-forcing model with teacher forcing")
    c = st.columns([1, 2, 2, 1])
    with c[0]:
        steps = bound(st.number_input, "TF steps", key="steps", min_value=10, max_value=1000, value=150, step=10)
    with c[1]:
        schedule = bound(st.selectbox, "Schedule", key="schedule", options=list(SCHEDULES),
                         format_func=SCHEDULE_LABELS.get)
    with c[2]:
        noise = bound(st.slider, "Context noise (fraction of T)", key="ctx_noise", min_value=0.0, max_value=0.5,
                      value=0.0, step=0.05)
    with c[3]:
        seed = seed_input()
    try:
        config = FinetuneConfig(steps=int(steps), schedule=schedule, context_noise=float(noise))
    except ValueError as err:
        st.error(str(err))
        return
    st.caption("The schedule and the context noise set how the evaluation rollouts are sampled (the shipped curves "
               "above use the autoregressive schedule and clean context). A teacher-forced model was only trained on "
               "clean context, so context noise is outside what it has seen; the DF model was trained with it.")
    run = live_panel(f"driving_world_model:finetune:{config.to_dict()}:{seed}", finetune_and_evaluate,
                     {"config": config, "seed": int(seed)}, start_label="Fine-tune with teacher forcing",
                     group="driving_world_model-finetune")
    if run is not None and run.result is not None and run.state in ("done", "stopped"):
        r = run.result
        fig = go.Figure()
        for ev, color in ((r.before, COLORS[0]), (r.after, COLORS[2])):
            fig.add_trace(go.Scatter(x=np.arange(1, len(ev.iou) + 1), y=ev.iou, name=ev.name, line=dict(color=color)))
        fig.update_layout(title="Vehicle IoU against horizon, before and after your fine-tune", height=360,
                          xaxis_title="frames after the context", yaxis_title="IoU")
        show(fig, key="chart-live")
        st.dataframe({"model": [r.before.name, r.after.name], "IoU at 32": [r.before.iou[-1], r.after.iou[-1]],
                      "steering ρ": [r.before.spearman, r.after.spearman],
                      "probe R² (mean)": [r.before.probe_mean, r.after.probe_mean]}, hide_index=True)
        export_buttons(r, f"driving_world_model-finetune-seed{seed}", key="live-export")


def render() -> None:
    page_header(SYSTEM)
    view = cached_view()
    if view is None:
        st.error("The shipped view is missing; build it with `python -m core.driving_world_model.ship`.")
        return
    main_section(view)
    if first_screen():
        return
    live_section()
    for _ in details("Details: what was shipped"):
        st.json({"variants": [str(n) for n in view.variants], "steers_rad": view.steers.tolist(),
                 "probe_r2_shuffled_targets": np.round(view.probe_r2_shuffled, 3).tolist()})
        slim = dataclasses.replace(view, gt_frames=np.zeros(0, np.uint8), rollouts=np.zeros(0, np.uint8))
        export_buttons(slim, "driving_world_model-view", key="view-export")   # the frames stay in view.npz


if __name__ == "__main__":
    render()
