"""Occupancy-space reward updates for IRL: the convex interpolation towards log π_E against the dual gradient."""

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
from app.ui.verdicts import page_header
from core.occupancy_irl.experiment import DEMOS, ENV_LABELS, ENVS, IRLConfig, iterations_to, run_irl
from core.occupancy_irl.ship import SEED as SHIPPED_SEED
from core.occupancy_irl.ship import shipped_exports, shipped_run

SYSTEM = BY_KEY["occupancy_irl"]
LIVE: dict = {"seed": 1}   # another seed than the shipped one shows the run panel
DEMO_LABELS = {"exact": "exact expert occupancy", "sampled": "sampled trajectories"}
TOL = 1e-6


SHIPPED_SOURCE = f"the shipped run (seed {SHIPPED_SEED}, defaults)"


def cached_run():
    return shipped(shipped_run)


def cached_exports():
    return shipped(shipped_exports)


def gap_figure(run) -> go.Figure:
    k = np.arange(len(run.gap_dual))
    floor = 1e-16
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=k, y=np.maximum(run.gap_dual, floor), mode="lines+markers", name=f"dual gradient (α = {run.dual_step:g})",
                             line=dict(color=COLORS[3])))
    fig.add_trace(go.Scatter(x=k, y=np.maximum(run.gap_interp, floor), mode="lines+markers",
                             name=f"interpolation (η = {run.eta:g})", line=dict(color=COLORS[0])))
    fig.add_trace(go.Scatter(x=k, y=run.gap_interp[0] * (1 - run.eta) ** k, mode="lines", name="(1 − η)^k reference",
                             line=dict(color="#888", dash="dot")))
    if run.sampling_error > 0:
        fig.add_hline(y=run.sampling_error, line=dict(color=COLORS[1], dash="dash"),
                      annotation_text="sampling error ‖ρ̂_E − ρ_E‖₁", annotation_position="top right")
    fig.update_layout(title="Distance to the expert occupancy, ‖ρ_k − ρ_E‖₁", xaxis_title="iteration k",
                      yaxis_title="L1 gap", yaxis_type="log", height=440)
    return fig


def _as_maps(run, values: np.ndarray) -> np.ndarray:
    """Per-state values on the grid (gridworld), or the (S, A) table itself (random MDP)."""
    if len(run.grid_shape):
        return values.sum(-1).reshape(tuple(run.grid_shape)) if values.ndim == 2 else values.reshape(tuple(run.grid_shape))
    return values


def heatmap_figure(run, k: int) -> go.Figure:
    grid = bool(len(run.grid_shape))
    titles = (f"dual gradient, k = {k}", f"interpolation, k = {k}", "expert / target")
    fig = make_subplots(rows=2, cols=3, subplot_titles=titles, horizontal_spacing=0.06, vertical_spacing=0.12)
    occ = [run.occupancy_dual[k], run.occupancy_interp[k], run.rho_expert]
    rew = [run.reward_dual[k], run.reward_interp[k], run.r_target]
    occ_maps = [_as_maps(run, o) for o in occ]
    rew_maps = [_as_maps(run, r.mean(-1)) if grid else r for r in rew]
    zmax = max(m.max() for m in occ_maps)
    rlo, rhi = min(m.min() for m in rew_maps), max(m.max() for m in rew_maps)
    for j in range(3):
        fig.add_trace(go.Heatmap(z=occ_maps[j], zmin=0, zmax=zmax, colorscale="Viridis", name="occupancy",
                                 colorbar=dict(title="ρ", len=0.42, y=0.79), showscale=j == 2), row=1, col=j + 1)
        fig.add_trace(go.Heatmap(z=rew_maps[j], zmin=rlo, zmax=rhi, colorscale="RdBu", zmid=0, name="reward",
                                 colorbar=dict(title="r", len=0.42, y=0.21), showscale=j == 2), row=2, col=j + 1)
    for axis in fig.layout:
        if axis.startswith("yaxis"):
            fig.layout[axis].update(autorange="reversed", scaleanchor=axis.replace("yaxis", "x") if grid else None)
    what = "d(s) on the grid (top), reward averaged over actions (bottom)" if grid else \
        "ρ(s, a) (top), r(s, a) (bottom); states down, actions across"
    fig.update_layout(title=f"Occupancy and reward: {what}", height=620, margin=dict(t=90))
    return fig


def mirror_figure(run) -> go.Figure:
    k = np.arange(1, len(run.mirror_kl) + 1)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=k, y=np.maximum(run.mirror_kl, 1e-18), mode="lines+markers",
                             name="KL(π_k ‖ exact mirror step π_{k−1}^(1−η) π_E^η / Z)", line=dict(color=COLORS[0])))
    fig.add_trace(go.Scatter(x=k, y=np.maximum(run.step_kl, 1e-18), mode="lines+markers", name="KL(π_k ‖ π_{k−1}): the step",
                             line=dict(color=COLORS[2], dash="dash")))
    fig.update_layout(title="The policy's mirror-descent view (d_E-weighted KL)", xaxis_title="iteration k",
                      yaxis_title="KL", yaxis_type="log", height=380)
    return fig


def _iters(gaps) -> str:
    n = iterations_to(np.asarray(gaps)[None], TOL)[0]
    return f"{int(n)}" if np.isfinite(n) else f"not within {len(gaps) - 1}"


def controls() -> tuple[IRLConfig | None, int]:
    """The control row; the configuration (None after an error, shown) and the seed."""
    c = st.columns([1.2, 1.8, 1, 1])     # two rows: seven controls in one row clip at 1024 px
    with c[0]:
        env = bound(st.selectbox, "MDP", key="env", options=list(ENVS), format_func=ENV_LABELS.get)
    with c[1]:
        demos = bound(st.selectbox, "Demonstrations", key="demos", options=list(DEMOS), format_func=DEMO_LABELS.get)
    with c[2]:
        size = bound(st.number_input, "Grid side" if env == "gridworld" else "States", key="size",
                     min_value=2 if env == "random" else 3, max_value=8 if env == "gridworld" else 40,
                     value=5 if env == "gridworld" else 8, step=1)
    with c[3]:
        seed = seed_input()
    c = st.columns([1.2, 1.8, 1, 1])
    with c[0]:
        eta = bound(st.number_input, "Step η (interpolation)", key="eta", min_value=0.05, max_value=1.0, value=0.3,
                    step=0.05)
    with c[1]:
        alpha = bound(st.number_input, "Step α (dual gradient)", key="alpha", min_value=0.1, max_value=1000.0,
                      value=32.0, step=1.0)
    with c[2]:
        n_iters = bound(st.number_input, "Iterations", key="iters", min_value=1, max_value=500, value=40, step=5)
    try:
        sizes = {"grid_size": int(size)} if env == "gridworld" else {"n_states": int(size)}
        return IRLConfig(env=env, demos=demos, eta=float(eta), dual_step=float(alpha), n_iters=int(n_iters),
                         **sizes), seed
    except ValueError as err:
        st.error(str(err))
        return None, seed


def run_section(config: IRLConfig, seed: int, right) -> tuple[object, str]:
    """The shipped run, or (another configuration, once run) the visitor's live run; and its caption."""
    run, source = cached_run(), SHIPPED_SOURCE
    if config == IRLConfig() and seed == SHIPPED_SEED:
        return run, source
    with right:
        live = live_panel(f"occupancy_irl:run:{config.to_dict()}:{seed}", run_irl,
                          {"config": config, "seed": int(seed)}, start_label="Run both methods",
                          group="occupancy_irl-run")
    if live is not None and live.result is not None and live.state in ("done", "stopped"):
        run, source = live.result, "your run" + (" (stopped early)" if live.state == "stopped" else "")
    return run, source


def gap_section(run, source: str, left, right) -> None:
    """The gap curves, what they show, and the one-step ratio."""
    with left:
        st.caption(f"Showing {source}.")
        show(gap_figure(run), key="chart-gap")
    with right:
        st.markdown(
            f"**What you are seeing.** Both methods start from r = 0 and see the same demonstrations. The dual "
            f"gradient moves the reward by −α(ρ_r − ρ_E); the occupancy-space update replaces it by "
            f"(1 − η) r + η r_E with r_E = log π_E, the Fisher-preconditioned step in closed form. After "
            f"{run.done} iterations the gap is {run.gap_dual[-1]:.2e} (dual) against {run.gap_interp[-1]:.2e} "
            f"(interpolation). Iterations to 1e-6: dual {_iters(run.gap_dual)}, interpolation "
            f"{_iters(run.gap_interp)}."
            + (f" With sampled demonstrations neither reaches the true ρ_E: the data's own error is "
               f"{run.sampling_error:.3f}." if run.sampling_error > 0 else ""))
        st.metric("One-step gap ratio (interpolation)", f"{run.gap_interp[1] / run.gap_interp[0]:.3f}"
                  if run.done else "–", help="‖ρ_1 − ρ_E‖₁ / ‖ρ_0 − ρ_E‖₁. The issue measured 0.654 at η = 0.3, 0.372 at η = 0.6 and 0 at η = 1 "
                       "on a random MDP.")


def maps_section(run) -> None:
    """Occupancy and reward maps of both methods at the iteration the slider picks."""
    st.subheader("Rewards and occupancies on the way")
    k = int(bound(st.slider, "Iteration shown", key="k", min_value=0, max_value=max(1, run.done),
                  value=min(3, run.done)))
    k = min(k, run.done)
    st.caption("Left to right: the dual gradient's and the interpolation's iterate at iteration k, and the expert "
               "(occupancy ρ_E, target reward r_E = log π_E). Rewards are defined up to potential shaping, so compare "
               "their patterns, not their levels.")
    show(heatmap_figure(run, k), key="chart-maps")


def mirror_section(run) -> None:
    """The mirror-descent view: KL to the exact mirror step against the step's own size."""
    left, right = st.columns([2, 1])
    with left:
        show(mirror_figure(run), key="chart-mirror")
    with right:
        ratio = run.mirror_kl / np.maximum(run.step_kl, 1e-300)
        st.markdown(
            "**Approximate mirror descent.** The soft-optimal policy of the interpolated reward against the exact "
            "entropic mirror step π_k ∝ π_{k−1}^(1−η) π_E^η: "
            + (f"first step KL {run.mirror_kl[0]:.1e}, {ratio[0]:.1%} of the step's own size (median over the run "
               f"{np.median(ratio):.1e})." if run.done else "no step yet."))


def details_section(config: IRLConfig, seed: int, run, source: str) -> None:
    """The configuration, the headline numbers and the downloads (the shipped run's written at ship time)."""
    for _ in details("Details: configuration and numbers"):
        st.json({"config": config.to_dict(), "seed": seed, "iterations done": run.done,
                 "final gap dual": float(run.gap_dual[-1]), "final gap interpolation": float(run.gap_interp[-1]),
                 "sampling error": run.sampling_error})
        payloads = cached_exports() if source == SHIPPED_SOURCE else None
        if payloads is None:
            export_buttons(run, f"occupancy_irl-run-seed{seed}", key="run-export")
            return
        name = f"occupancy_irl-run-seed{SHIPPED_SEED}"
        with st.container(horizontal=True):        # the look of app.ui.export.export_buttons, from shipped text
            st.download_button("JSON", payloads.json, file_name=f"{name}.json", mime="application/json",
                               icon=":material/download:", key="run-export-json", on_click="ignore")
            st.download_button("CSV", payloads.csv, file_name=f"{name}.csv", mime="text/csv",
                               icon=":material/download:", key="run-export-csv", on_click="ignore")


def render() -> None:
    page_header(SYSTEM)
    config, seed = controls()
    if config is None:
        return
    left, right = st.columns([2, 1])
    run, source = run_section(config, seed, right)
    gap_section(run, source, left, right)
    if first_screen():
        return
    maps_section(run)
    mirror_section(run)
    details_section(config, seed, run, source)


if __name__ == "__main__":
    render()
