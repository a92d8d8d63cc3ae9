"""Distributional steering: weighted particles moving through diffusion time toward a tilted target."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from app.catalog import BY_KEY
from app.ui.controls import bound, seed_input
from app.ui.details import details
from app.ui.export import export_buttons
from app.ui.live import live_panel
from app.ui.pictures import first_screen
from app.ui.plots import COLORS, show
from app.ui.verdicts import page_header
from core.distributional_steering.resampling import SCHEMES
from core.distributional_steering.scenarios import (BASES, BATCH_PARTICLES, REWARDS, ScenarioConfig, batch_level,
                                                    check_coordinates, check_target, compare, run, steer_foldedness,
                                                    target_axes, target_density)
from core.distributional_steering.views import shipped_or_run

SYSTEM = BY_KEY["distributional_steering"]
BASE_LABELS = {"mixture2d": "2-D mixture (exact score)", "mixture1d": "1-D mixture (exact score)"}
REWARD_LABELS = {"calibration": "Mean calibration, soft (κ)", "constraint": "Mean constraint, hard (max-ent)",
                 "constraint_x1": "Mean constraint on x₁ only, hard", "moment": "Mean and variance of x₁, hard",
                 "tilt": "Pointwise tilt r(x) = x₁ (λ)", "entropy": "Entropy: diversity (γ)",
                 "repulsion": "Kernel repulsion (γ)"}
STRENGTH = {"calibration": ("κ", 4.0), "moment": ("Var x₁", 0.5), "tilt": ("λ", 1.0), "entropy": ("γ", 1.0),
            "repulsion": ("γ", 10.0)}
PARTICLES = [250, 500, 1000, 2000, 4000]
LIVE: dict = {}   # the baselines' and the protein's live panels show by default
GRID = np.linspace(-3, 3, 121)


@st.cache_data(show_spinner="Steering the particles…", max_entries=16)
def cached_run(config: ScenarioConfig, seed: int):
    """The run at these settings: the shipped one for the defaults (when its file is there), else live."""
    return shipped_or_run(config, seed)


@st.cache_data(show_spinner=False, max_entries=16)
def cached_density(config: ScenarioConfig):
    """The exact target on the targets' grid (marginals, checks) and on the plot's grid (contours)."""
    return target_density(config), target_density(config, [GRID] * BASES[config.base].dim)


@st.cache_data(show_spinner=False, max_entries=16)
def cached_coordinates(config: ScenarioConfig, seed: int):
    return check_coordinates(config, cached_run(config, seed), cached_density(config)[0], seed=seed)


def whole_target_check(config: ScenarioConfig, seed: int, progress=None):
    """The binned 2-D W1 (POT) against its floor, in a live panel: POT imports torch."""
    report = progress or (lambda *a: True)
    report(0, 1, {})
    out = check_target(config, run(config, seed), target_density(config), seed=seed)
    report(1, 1, {})
    return out


def controls():
    c = st.columns([1.3, 1.6, 1, 1, 1])
    base = bound(c[0].selectbox, "Base model", key="base", options=list(BASES), format_func=BASE_LABELS.get)
    reward = bound(c[1].selectbox, "Reward", key="reward", options=list(REWARDS), format_func=REWARD_LABELS.get)
    strength = 0.0
    if reward in STRENGTH:
        name, default = STRENGTH[reward]
        strength = bound(c[2].number_input, f"Strength {name}", key=f"strength_{reward}",
                         min_value=0.5 if reward == "calibration" else 0.0, max_value=4.0 if reward == "moment" else 50.0,
                         value=default, step=0.1 if reward == "moment" else 0.5)
    tx = ty = 0.0
    if reward in ("calibration", "constraint", "constraint_x1", "moment"):
        tx = bound(c[3].number_input, "Target mean x₁", key="tx", min_value=-3.0, max_value=3.0, value=0.8, step=0.1)
        if base == "mixture2d" and reward in ("calibration", "constraint"):
            ty = bound(c[4].number_input, "Target mean x₂", key="ty", min_value=-3.0, max_value=3.0, value=0.3,
                       step=0.1)
    d = st.columns([1, 1, 1.4]) + st.columns([1, 1, 1.4])   # two rows of three: six in one row cut labels at 1024 px
    n = bound(d[0].select_slider, "Particles", key="particles", options=PARTICLES, value=1000)
    threshold = bound(d[1].slider, "ESS threshold", key="ess", min_value=0.0, max_value=1.0, value=0.5, step=0.05,
                      help="Resample when the effective sample size falls below this fraction of the particles.")
    window = bound(d[2].slider, "Steering window (diffusion time)", key="window", min_value=0.0, max_value=1.0,
                   value=(0.0, 1.0), step=0.05, help="Potentials are solved and particles resampled only here; "
                                                     "t = 1 is pure noise, t = 0 the data.")
    scheme = bound(d[3].selectbox, "Resampling", key="resampling", options=list(SCHEMES))
    guidance = bound(d[4].toggle, "Guidance", key="guidance", value=False,
                     help="Add the potential's gradient to the drift, with the exact importance correction.")
    with d[5]:
        seed = seed_input()
    config = ScenarioConfig(base=base, reward=reward, strength=float(strength), target_x=float(tx), target_y=float(ty),
                            n_particles=int(n), ess_threshold=float(threshold), window_start=float(window[0]),
                            window_end=float(window[1]), resampling=scheme, guidance=bool(guidance))
    return config, seed


def particles_figure(result, index: int, density, dim: int) -> go.Figure:
    positions, weights = result.snapshots[index]
    t = result.snapshot_times[index]
    size = 2 + 8 * np.sqrt(weights * len(weights))
    fig = go.Figure()
    if dim == 2:
        fig.add_trace(go.Scatter(x=positions[:, 0], y=positions[:, 1], mode="markers", name="particles",
                                 marker=dict(size=size, color=COLORS[0], opacity=0.35, line=dict(width=0))))
        if density is not None:   # drawn as lines on top: plotly puts heatmaps and contours under markers
            for mass, dash in ((0.5, "solid"), (0.9, "dash")):
                x, y = highest_density_contour(density, mass)
                fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name=f"exact target, {mass:.0%} region",
                                         line=dict(color=COLORS[3], width=2, dash=dash), hoverinfo="skip"))
        fig.update_xaxes(title_text="x₁", range=[-3, 3])
        fig.update_yaxes(title_text="x₂", range=[-3, 3], scaleanchor="x")
    else:
        jitter = np.random.default_rng(0).uniform(-0.4, 0.4, len(positions))
        fig.add_trace(go.Scatter(x=positions[:, 0], y=jitter, mode="markers", name="particles",
                                 marker=dict(size=size, color=COLORS[0], opacity=0.5, line=dict(width=0))))
        fig.update_xaxes(title_text="x", range=[-3, 3])
        fig.update_yaxes(visible=False, range=[-1, 1])
    fig.update_layout(title=f"Particles at diffusion time t = {t:.2f} (size ∝ weight)", height=480,
                      legend=dict(orientation="h", y=-0.25, x=0.5, xanchor="center"))
    return fig


def highest_density_contour(density: np.ndarray, mass: float):
    """x, y of the boundary of the smallest region holding ``mass`` of a gridded density (None-separated)."""
    from contourpy import contour_generator

    values = np.sort(density.ravel())[::-1]
    level = values[np.searchsorted(np.cumsum(values), mass)]
    xs, ys = [], []
    for line in contour_generator(x=GRID, y=GRID, z=density.T).lines(level):
        xs += [*line[:, 0], None]
        ys += [*line[:, 1], None]
    return xs, ys


def ess_figure(result, n: int) -> go.Figure:
    fig = go.Figure(go.Scatter(x=result.ess_times, y=result.ess, mode="lines+markers", name="ESS",
                               line=dict(color=COLORS[0]), marker=dict(size=4)))
    for t in result.resample_times:
        fig.add_vline(x=t, line=dict(color=COLORS[3], width=1, dash="dot"))
    fig.update_xaxes(title_text="diffusion time t (1 = noise)", autorange="reversed")
    fig.update_yaxes(title_text="effective sample size", range=[0, n * 1.05])
    fig.update_layout(title="ESS before each resampling check (dotted: resampled)", height=320, showlegend=False)
    return fig


def marginals_figure(result, density: np.ndarray, base_samples, dim: int) -> go.Figure:
    """Every coordinate's marginal: the base, the weighted particles and the exact target (from the grid)."""
    fig = make_subplots(rows=1, cols=dim, subplot_titles=[f"x{'₁₂'[k]}" for k in range(dim)])
    bins = np.linspace(-3, 3, 61)
    centres = (bins[:-1] + bins[1:]) / 2
    axis = target_axes_of(dim)[0]
    for k in range(dim):
        for name, x, w, color, dash in (("base", base_samples[:, k], None, COLORS[7], "dot"),
                                        ("steered (weighted)", result.positions[:, k], result.weights, COLORS[0],
                                         "solid")):
            hist, _ = np.histogram(x, bins=bins, weights=w, density=True)
            fig.add_trace(go.Scatter(x=centres, y=hist, mode="lines", name=name, showlegend=k == 0,
                                     line=dict(color=color, dash=dash, shape="hvh")), row=1, col=k + 1)
        marginal = density.sum(axis=tuple(j for j in range(dim) if j != k)) / (axis[1] - axis[0])
        fig.add_trace(go.Scatter(x=axis, y=marginal, mode="lines", name="exact target", showlegend=k == 0,
                                 line=dict(color=COLORS[2], dash="dash")), row=1, col=k + 1)
    fig.update_xaxes(range=[-3, 3])
    fig.update_layout(title="Marginals: exact target vs weighted particles", height=320,
                      legend=dict(orientation="h", y=-0.25))
    return fig


def target_axes_of(dim: int):
    return target_axes(ScenarioConfig(base="mixture2d" if dim == 2 else "mixture1d"))


def coordinates_table(check) -> pd.DataFrame:
    rows = []
    for k in range(len(check.w1)):
        rows.append({"coordinate": f"x{k + 1}", "mean (particles)": check.particle_mean[k],
                     "mean (exact)": check.target_mean[k], "(mean diff) / SE": (check.particle_mean[k] - check.target_mean[k])
                     / check.mean_se[k], "sd (particles)": check.particle_sd[k], "sd (exact)": check.target_sd[k],
                     "W1": check.w1[k], "W1 floor (ESS exact samples)": check.floor[k]})
    return pd.DataFrame(rows).round(3)


def batch_section(config: ScenarioConfig, seed: int) -> None:
    gamma = config.strength if config.reward == "repulsion" else 10.0
    n = min(config.n_particles, BATCH_PARTICLES)
    st.markdown(
        f"Particle guidance pushes each particle's prediction down the gradient of γ·mean k(zᵢ, zⱼ). That is the "
        f"gradient of the kernel-repulsion reward's first variation at the current batch, so particle guidance is "
        f"the framework's proposal with the weights dropped. The run below (γ = {gamma:g}, {n} "
        "particles) checks that the two drifts give the same samples, then adds the weights and measures each "
        "against the exact mean-field repulsion target.")
    cfg = ScenarioConfig(base=config.base, reward="repulsion", strength=gamma)
    run = live_panel(f"distributional_steering/batch:{config.base}:{gamma:g}:{n}:{seed}", batch_level,
                     {"config": cfg, "seed": int(seed), "n_particles": n}, start_label="Compare with particle guidance")
    if run is None or run.state not in ("done", "stopped") or not run.result:
        return
    out = run.result
    st.metric("Largest gap, particle guidance vs the framework's unweighted proposal", f"{out.max_gap:.1e}")
    st.dataframe(out.to_frame().round(3), hide_index=True)
    st.caption("Binned W1 (POT, 20 × 20 bins) to the exact repulsion target on a grid; floor: the same distance "
               "for as many exact samples as the method's effective sample size.")


def protein_section(seed: int) -> None:
    c1, c2 = st.columns([1, 2.2])
    with c1:
        target = bound(st.slider, "Target mean foldedness", key="fold_target", min_value=0.1, max_value=0.9,
                       value=0.6, step=0.05)
        st.markdown(
            "A 12-bead chain with a Gō-like energy; Langevin dynamics gives a reference ensemble of folded and "
            "unfolded conformations, and a small denoiser is trained on it (shipped). The reward is the hard "
            "constraint E[foldedness] = target; the ground truth is maximum-entropy reweighting of the "
            "reference sample to the same mean.")
        run = live_panel(f"distributional_steering/protein:{target:.2f}:{seed}", steer_foldedness,
                         {"target": float(target), "n_particles": 500, "seed": int(seed)},
                         start_label="Steer 500 conformations")
    out = run.result if run is not None and run.state in ("done", "stopped") else None
    if out is None:
        with c2:
            st.caption("Press the button to steer the learned protein model: 200 denoiser steps on 500 chains, "
                       "then the same chains unsteered for comparison.")
        return
    with c2:
        if out.stopped:
            st.warning("Stopped before the end: the conformations below are still partly noisy, and the "
                       "unsteered comparison was skipped.")
        m = st.columns(3)
        m[0].metric("Steered mean foldedness", f"{out.steered_mean:.3f}", f"{out.steered_mean - target:+.3f}")
        m[1].metric("Denoiser alone", "–" if out.base is None else f"{out.base_mean:.3f}")
        m[2].metric("ESS", f"{out.ess:.0f} / {len(out.steered)}")
        show(foldedness_figure(out, target), key="chart-foldedness")
    show(chains_figure(out), key="chart-chains")


def baselines_section(config: ScenarioConfig, seed: int) -> None:
    key = "distributional_steering/baselines:" + ":".join(str(v) for v in config.to_dict().values()) + f":{seed}"
    run = live_panel(key, compare, {"config": config, "seed": int(seed)},
                     start_label="Run the baselines with the same seed and particles")
    if run is None or run.state not in ("done", "stopped"):
        st.caption("Unguided sampling, gradient guidance without weights, FK steering (pointwise reward) and "
                   "particle guidance (diversity rewards), each through the same reverse diffusion.")
        return
    if run.state == "stopped":
        st.warning("Stopped: the table holds the methods that finished.")
    if run.result and run.result.rows:
        st.dataframe(run.result.to_frame().round(3), hide_index=True)
    st.caption("W1: Wasserstein-1 distance of each coordinate's marginal to the exact target, averaged. "
               "Gradient guidance without weights has no guarantee on the distribution it samples.")


def foldedness_figure(out, target: float) -> go.Figure:
    bins = np.linspace(0, 1, 26)
    centres = (bins[:-1] + bins[1:]) / 2
    fig = go.Figure()
    for name, values, weights, color, dash in (
            ("denoiser alone", out.base, None, COLORS[7], "dot"),
            ("steered (weighted)", out.steered, out.weights, COLORS[0], "solid"),
            ("max-ent reweighted reference", out.reference, out.reference_weights, COLORS[2], "dash")):
        if values is None:   # a stopped run skipped it
            continue
        density, _ = np.histogram(values, bins=bins, weights=weights, density=True)
        fig.add_trace(go.Scatter(x=centres, y=density, mode="lines", name=name,
                                 line=dict(color=color, dash=dash, shape="hvh")))
    fig.add_vline(x=target, line=dict(color=COLORS[3], width=2), annotation_text="target mean")
    fig.update_xaxes(title_text="foldedness", range=[0, 1])
    fig.update_yaxes(title_text="density")
    fig.update_layout(title="Foldedness before and after steering, against the max-ent ground truth", height=340,
                      legend=dict(orientation="h", y=-0.3, x=0.5, xanchor="center"))
    return fig


def chains_figure(out) -> go.Figure:
    titles = ["native fold"] + [f"steered, foldedness {f:.2f}" for f in out.shown_foldedness]
    fig = make_subplots(rows=1, cols=len(titles), specs=[[{"type": "scene"}] * len(titles)], subplot_titles=titles,
                        horizontal_spacing=0.01)
    for i, chain in enumerate([out.native, *out.shown], start=1):
        fig.add_trace(go.Scatter3d(x=chain[:, 0], y=chain[:, 1], z=chain[:, 2], mode="lines+markers",
                                   line=dict(color=COLORS[0] if i > 1 else COLORS[2], width=6),
                                   marker=dict(size=4, color=np.arange(len(chain)), colorscale="Viridis"),
                                   showlegend=False, hoverinfo="skip"), row=1, col=i)
    fig.update_scenes(xaxis_visible=False, yaxis_visible=False, zaxis_visible=False, aspectmode="data")
    fig.update_layout(title="Conformations (beads coloured from first to last)", height=330,
                      margin=dict(l=0, r=0, t=60, b=0))
    return fig


def render() -> None:
    page_header(SYSTEM)
    try:
        config, seed = controls()
    except ValueError as error:
        st.error(str(error))
        return
    result = cached_run(config, seed)
    density, density_plot = cached_density(config)
    check = cached_coordinates(config, seed)
    dim = BASES[config.base].dim

    left, right = st.columns([1.3, 1])
    with left:
        index = bound(st.slider, "Diffusion step (snapshot)", key="snapshot", min_value=1,
                      max_value=len(result.snapshots), value=len(result.snapshots),
                      help="From pure noise (1) to the final samples.")
        show(particles_figure(result, index - 1, density_plot if dim == 2 else None, dim), key="chart-particles")
    with right:
        m = st.columns(2)
        m[0].metric("Final ESS", f"{1.0 / (result.weights @ result.weights):.0f} / {config.n_particles}")
        m[1].metric("Resamplings", f"{len(result.resample_times)}")
        m = st.columns(2)
        m[0].metric("Weighted mean", ", ".join(f"{v:.2f}" for v in check.particle_mean))
        m[1].metric("Exact target mean", ", ".join(f"{v:.2f}" for v in check.target_mean))
        # one per row: a value per coordinate does not fit half of this column ("0.018, 0.0…")
        st.metric("W1 per coordinate", ", ".join(f"{v:.3f}" for v in check.w1))
        st.metric("Monte Carlo floor", ", ".join(f"{v:.3f}" for v in check.floor),
                  help="W1 of as many exact samples of the target as the particles' effective sample size.")
        st.markdown(
            "**What you are seeing.** Particles start as noise (t = 1) and follow the base model's reverse "
            "diffusion. Inside the steering window the reward's self-consistent potential φ = δR/δμ[μ*] is "
            "solved on the weighted Tweedie predictions (for moment rewards, on the clean measure they predict: "
            "the tilt is the final one from the start); each particle's weight is its potential relative to "
            "its ancestor's, and when the effective sample size drops below the threshold the particles are "
            "resampled. The orange lines bound the regions holding 50 % and 90 % of the exact tilted "
            "target (on a grid). The check is the whole measure, not only what the reward constrains: every "
            "coordinate's mean, spread and W1 against the exact target, next to the W1 a perfect sampler of the "
            "same effective size gets.")
    if first_screen():
        return
    a, b = st.columns(2)
    with a:
        show(ess_figure(result, config.n_particles), key="chart-ess")
    with b:
        show(marginals_figure(result, density, BASES[config.base].sample(4000, 1), dim), key="chart-marginals")
    st.dataframe(coordinates_table(check), hide_index=True)
    panel = live_panel("distributional_steering/whole:" + ":".join(str(v) for v in config.to_dict().values())
                       + f":{seed}", whole_target_check, {"config": config, "seed": int(seed)},
                       start_label="Measure the 2-D distance (POT) against its floor")
    if panel is not None and panel.state == "done" and panel.result is not None:
        whole = panel.result
        c = st.columns(3)
        c[0].metric("Binned W1 to the exact target", f"{whole.distance:.3f}")
        c[1].metric("Monte Carlo floor", f"{whole.floor:.3f}")
        c[2].metric("Ratio", f"{whole.distance / whole.floor:.2f}")

    st.subheader("Against the baselines", divider="gray")
    baselines_section(config, seed)
    st.subheader("Particle guidance as a special case", divider="gray")
    batch_section(config, seed)
    st.subheader("A toy protein: calibrate the mean foldedness", divider="gray")
    protein_section(seed)
    for _ in details("Details"):
        st.json({"config": config.to_dict(), "seed": seed, "final tilt": {k: np.asarray(v).round(4).tolist()
                                                                         for k, v in result.params.items()}})
        export_buttons(result, "distributional_steering")


if __name__ == "__main__":
    render()
