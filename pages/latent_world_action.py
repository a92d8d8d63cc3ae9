"""Latent world-action policy (Being-H0.7): the prior policy acting, its latents, the variants, a live run."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

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
from core.latent_world_action.train import ALIGN_MODES, VARIANT_LABELS, VARIANTS, TrainConfig
from core.latent_world_action.views import VIEW_EPISODES, shipped_view, train_live

SYSTEM = BY_KEY["latent_world_action"]
LIVE: dict = {}   # the training panel shows by default
SHORT = {"prior": "prior (Being-H0.7)", "no_align": "no alignment", "direct": "direct (no slots)",
         "pixel": "pixel rollout"}


def cached_view():
    return shipped(shipped_view)


def episode_figure(view, episode: int) -> go.Figure:
    """Prior and direct policies on the same episode, animated step by step (plotly frames)."""
    fig = make_subplots(1, 2, subplot_titles=(
        f"Prior (Being-H0.7)<br>{'caught' if view.prior_success[episode] else 'missed'}",
        f"Direct (no slots)<br>{'caught' if view.direct_success[episode] else 'missed'}"))
    target = view.target[episode]
    agents = (view.prior_agent[episode], view.direct_agent[episode])

    def traces(t: int) -> list[dict]:
        # plain dicts: plotly validates them once in the figure; 25 frames of 8 go.Scatter objects took 0.2 s
        out = []
        for agent in agents:
            out += [dict(type="scatter", x=target[:t + 1, 0], y=target[:t + 1, 1], mode="lines",
                         line=dict(color=COLORS[3], width=1), showlegend=False, hoverinfo="skip"),
                    dict(type="scatter", x=agent[:t + 1, 0], y=agent[:t + 1, 1], mode="lines",
                         line=dict(color=COLORS[0], width=1), showlegend=False, hoverinfo="skip"),
                    dict(type="scatter", x=[target[t, 0]], y=[target[t, 1]], mode="markers", name="target",
                         marker=dict(color=COLORS[3], size=14), showlegend=False),
                    dict(type="scatter", x=[agent[t, 0]], y=[agent[t, 1]], mode="markers", name="agent",
                         marker=dict(color=COLORS[0], size=12, symbol="diamond"), showlegend=False)]
        return out

    last = len(target) - 1
    for i, trace in enumerate(traces(last)):
        fig.add_trace(trace, 1, 1 + i // 4)
    fig.frames = [dict(data=traces(t), name=str(t), traces=list(range(8))) for t in range(last + 1)]
    fig.update_xaxes(range=[0, 1], constrain="domain")
    fig.update_yaxes(range=[0, 1], scaleanchor="x")
    fig.update_yaxes(scaleanchor="x2", row=1, col=2)
    fig.update_layout(height=500, margin=dict(t=70, b=110), updatemenus=[dict(
        type="buttons", x=0.0, y=-0.2, xanchor="left", yanchor="top", direction="left",
        buttons=[dict(label="Play", method="animate",
                      args=[None, dict(frame=dict(duration=180, redraw=True), fromcurrent=True, mode="immediate")])])],
        sliders=[dict(x=0.12, y=-0.08, len=0.88, active=last, currentvalue=dict(prefix="step "),
                      steps=[dict(label=str(t), method="animate",
                                  args=[[str(t)], dict(frame=dict(duration=0, redraw=True), mode="immediate")])
                             for t in range(0, last + 1)])])
    return fig


def latent_figure(picture, title: str) -> go.Figure:
    fig = go.Figure()
    for xy, name, symbol in ((picture.prior_xy, "prior (deployed)", "circle"),
                             (picture.posterior_xy, "posterior (training only)", "x")):
        fig.add_trace(go.Scatter(x=xy[:, 0], y=xy[:, 1], mode="markers", name=name,
                                 marker=dict(symbol=symbol, size=6, color=picture.future_x, colorscale="Viridis",
                                             cmin=0, cmax=1, showscale=symbol == "circle",
                                             colorbar=dict(title="target x at t+H", len=0.7))))
    fig.update_layout(title=title, xaxis_title="PC 1", yaxis_title="PC 2", height=400,
                      legend=dict(itemsizing="constant"))
    return fig


def curves_figure(curves: dict, field: str, title: str) -> go.Figure:
    fig = go.Figure()
    for i, variant in enumerate(VARIANTS):
        for name, c in sorted(curves.items()):
            if not name.startswith(variant + "_seed"):
                continue
            x = c["eval_steps"] if field == "success" else c["steps"]
            y = np.array([np.nan if v is None else v for v in c[field]], dtype=float)
            if np.isfinite(y).any():
                fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name=name, line=dict(color=COLORS[i])))
    fig.update_layout(title=title, xaxis_title="training step", height=340)
    return fig


def comparison_table(table: dict) -> dict:
    def mean(values):
        vals = [v for v in values if v is not None]
        return float(np.mean(vals)) if vals else float("nan")

    rows = {"variant": [], "success": [], "±": [], "R² t+H": [], "R² t+H post.": [], "R² now": [], "R² move": [],
            "eff. rank": [], "ms/chunk": []}
    for variant in VARIANTS:
        if variant not in table:
            continue
        row = table[variant]
        per_seed = [float(np.mean(s)) for s in row["success"]]
        rows["variant"].append(SHORT[variant])
        rows["success"].append(round(float(np.mean(per_seed)), 3))
        rows["±"].append(round(float(np.std(per_seed)), 3))
        rows["R² t+H"].append(round(mean(row["probe_prior"]), 3))
        rows["R² t+H post."].append(round(mean(row["probe_posterior"]), 3))
        rows["R² now"].append(round(mean(row["probe_current"]), 3))
        rows["R² move"].append(round(mean(row.get("probe_displacement", [])), 3))
        rows["eff. rank"].append(round(mean(row["effective_rank"]), 1))
        rows["ms/chunk"].append(round(mean(row["ms_per_action"]), 2))
    return rows


def episode_section(view) -> None:
    """The episode animation and what it shows: the first screen."""
    episode = bound(st.slider, "Episode", key="episode", min_value=0, max_value=VIEW_EPISODES - 1, value=0)
    left, right = st.columns([2, 1])
    with left:
        show(episode_figure(view, int(episode)), key="chart-episodes")
    with right:
        st.markdown(
            "**What you are seeing.** One held-out episode of the interception task, played by two shipped "
            "policies trained on the same expert data: the agent (blue diamond) must catch the target (red), which "
            "moves at a hidden velocity and bounces off the walls. Left, the Being-H0.7 prior branch: latent slots "
            "between perception and action, aligned during training with a posterior that saw the future frames. "
            "Right, the same backbone without slots. Press Play or drag the slider; each policy plans 8 moves at a "
            f"time. In this episode set the prior caught {int(view.prior_success.sum())} of {len(view.prior_success)}, "
            f"the direct policy {int(view.direct_success.sum())}.")


def latents_section(view) -> None:
    """The latent clouds, the variants' table and the training curves: below the first screen."""
    st.subheader("Prior and posterior latents in 2-D")
    a, b = st.columns(2)
    with a:
        show(latent_figure(view.aligned, "With alignment (prior model, seed 0)"), key="chart-latents-aligned")
    with b:
        show(latent_figure(view.unaligned, "Without alignment (ablation, seed 0)"), key="chart-latents-unaligned")
    st.caption("One PCA per model, fitted on its prior and posterior latents together (K·d = 256 numbers per sample), "
               "coloured by where the target will be H steps later. Aligned, the deployed prior sits on its "
               "posterior; without alignment the two clouds are unrelated.")
    st.subheader("The variants (shipped full models, evaluation seeds 0–4, 100 episodes each)")
    static_table(comparison_table(view.table), {"eff. rank": "{:.1f}", "ms/chunk": "{:.2f}"})
    st.caption("Success: closed-loop share of episodes caught, mean over training seeds (± their spread). R²: held-out "
               "ridge probes from the prior latents (the action state for variants without slots) of the target's "
               "position at t+H, from the posterior latents, of its position now, and of its move from t to t+H. "
               "eff. rank: of the prior latents (of 256). ms/chunk: one action chunk, batch 1, when shipped. Training "
               "seeds: 3 for the prior and no-alignment models, 1 for the direct and pixel models; success checks "
               "while training use 64 episodes.")
    c1, c2 = st.columns(2)
    with c1:
        show(curves_figure(view.curves, "alignment", "Alignment gap while training (shipped runs)"), key="chart-align")
    with c2:
        show(curves_figure(view.curves, "success", "Success while training"),
             key="chart-success")


def live_section() -> None:
    st.subheader("Train one live (quick preset: K = 4 slots, d = 64)")
    c = st.columns([2, 1.2, 1.2, 1.2, 1.2])
    with c[0]:
        variant = bound(st.selectbox, "Variant", key="variant", options=list(VARIANTS), format_func=SHORT.get,
                        help="; ".join(VARIANT_LABELS[v] for v in VARIANTS))
    with c[1]:
        steps = bound(st.number_input, "Steps", key="steps", min_value=20, max_value=3000, value=300, step=20)
    with c[2]:
        weight = bound(st.number_input, "Alignment weight λa", key="align", min_value=0.0, max_value=20.0, value=1.0,
                       step=0.5)
    with c[3]:
        mode = bound(st.selectbox, "Alignment", key="mode", options=list(ALIGN_MODES))
    with c[4]:
        seed = seed_input()
    try:
        config = TrainConfig(variant=variant, steps=int(steps), align_weight=float(weight), align_mode=mode,
                             eval_every=100, n_episodes=100)
    except ValueError as err:
        st.error(str(err))
        return
    run = live_panel(f"latent_world_action:train:{config.to_dict()}:{seed}", train_live,
                     {"config": config, "seed": int(seed)}, start_label="Train live", group="latent_world_action-train")
    if run is not None and run.result is not None and run.state == "done":
        r = run.result
        st.metric("Probe R² of the target at t+H", f"{r.probe_prior:.3f}",
                  help="Ridge probe on held-out samples, from the prior latents (the action state without slots)")
        if r.picture is not None:
            show(latent_figure(r.picture, "Your run's latents"), key="chart-live-latents")
        export_buttons(r, f"latent_world_action-live-{variant}-seed{seed}", key="live-export")


def render() -> None:
    page_header(SYSTEM)
    view = cached_view()
    if view is None:
        st.error("The shipped view is missing: run `python -m core.latent_world_action.ship`.")
        return
    episode_section(view)
    if first_screen():
        return
    latents_section(view)
    live_section()
    for _ in details("Details: what was shipped"):
        st.json({"table": view.table, "view seed": view.seed})
        export_buttons(view, "latent_world_action-view", key="view-export")


if __name__ == "__main__":
    render()
