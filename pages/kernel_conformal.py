"""Multivariate kernel score for conformal prediction: MKS regions against the ellipsoid and MAPIE."""

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
from core.common.results import result_to_dict
from core.kernel_conformal.data import LAW_LABELS, LAWS
from core.kernel_conformal.experiment import CompareConfig, compare_scores, sweep
from core.kernel_conformal.kernels import KERNEL_LABELS, KERNELS
from core.kernel_conformal.scores import SCORE_LABELS
from core.kernel_conformal.ship import SEED as SHIPPED_SEED
from core.kernel_conformal.ship import shipped_comparison, shipped_view
from core.kernel_conformal.views import region_view

SYSTEM = BY_KEY["kernel_conformal"]

LIVE: dict = {"seed": 1}   # another seed than the shipped one shows the region and comparison panels


def cached_view():
    return shipped(shipped_view)


def cached_comparison():
    return shipped(shipped_comparison)


def region_figure(v) -> go.Figure:
    fig = go.Figure()
    for grid, q, name, color in ((v.mks_grid, v.mks_threshold, "MKS region", COLORS[0]),
                                 (v.ellipsoid_grid, v.ellipsoid_threshold, "ellipsoid region", COLORS[3])):
        fig.add_trace(go.Contour(x=v.grid_x, y=v.grid_y, z=grid, contours=dict(start=q, end=q, size=1, coloring="none"),
                                 line=dict(color=color, width=3), showscale=False, name=name, showlegend=True))
    fig.add_trace(go.Scatter(x=v.cal_residuals[:, 0], y=v.cal_residuals[:, 1], mode="markers", name="calibration residuals",
                             marker=dict(color="#999", size=4)))
    fig.add_trace(go.Scatter(x=v.test_residuals[:, 0], y=v.test_residuals[:, 1], mode="markers", name="test residuals",
                             marker=dict(color=np.where(v.mks_inside, COLORS[2], COLORS[1]), size=6, symbol="x")))
    if len(v.mapie_ellipse):
        fig.add_trace(go.Scatter(x=v.mapie_ellipse[:, 0], y=v.mapie_ellipse[:, 1], mode="lines",
                                 name="MAPIE region at the first test x", line=dict(color=COLORS[4], width=2, dash="dash")))
    fig.update_layout(title=f"Regions at α = {v.alpha:g} in residual space (y − ŷ(x))", xaxis_title="residual 1",
                      yaxis_title="residual 2", height=520)
    return fig


def sweep_figure(s) -> go.Figure:
    """Top: the volume ratio with its interval; bottom: the coverage of MKS and the ellipsoid, and 1 − α."""
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.1,
                        subplot_titles=("Volume MKS / ellipsoid (geometric mean over seeds, 95% interval)",
                                        "Coverage (mean over seeds)"))
    fig.add_trace(go.Scatter(x=s.values, y=s.ratio, mode="lines+markers", name="volume MKS / ellipsoid",
                             error_y=dict(type="data", symmetric=False, array=s.ratio_high - s.ratio,
                                          arrayminus=s.ratio - s.ratio_low)), row=1, col=1)
    fig.add_hline(y=1.0, line=dict(color="#888", dash="dash"), row=1, col=1)
    done = np.isfinite(s.coverage).any(axis=(1, 2))   # (values, seeds, scores): a stopped sweep leaves the
    coverage = np.full(s.coverage.shape[::2], np.nan)  # values it did not reach without any seed
    coverage[done] = np.nanmean(s.coverage[done], axis=1)
    for k, name in enumerate(s.scores[:2]):
        fig.add_trace(go.Scatter(x=s.values, y=coverage[:, k], mode="lines+markers", name=f"coverage {name}",
                                 line=dict(color=COLORS[0] if k == 0 else COLORS[3])), row=2, col=1)
    level = 1 - (s.values if s.field == "alpha" else np.full(len(s.values), s.config.alpha))
    fig.add_trace(go.Scatter(x=s.values, y=level, mode="lines", name="1 − α", line=dict(color="#888", dash="dot")),
                  row=2, col=1)
    fig.update_xaxes(title_text=s.field, row=2, col=1)
    fig.update_layout(height=560, legend=dict(orientation="h", yanchor="top", y=-0.12, x=0))
    return fig


def controls() -> tuple[CompareConfig, int, bool] | None:
    """The view's controls, bound to the URL; None (after an error) for a config out of range."""
    c = st.columns([1.4, 1.0, 1.2, 1.2, 1, 0.9, 0.9])
    with c[0]:
        law = bound(st.selectbox, "Residual law", key="law", options=list(LAWS), format_func=LAW_LABELS.get)
    with c[1]:
        dim = bound(st.number_input, "Dim. d", key="dim", min_value=2, max_value=10, value=2, step=1)
    with c[2]:
        kernel = bound(st.selectbox, "Kernel", key="kernel", options=list(KERNELS), format_func=KERNEL_LABELS.get)
    with c[3]:
        bw = bound(st.number_input, "Bandwidth (× median distance)", key="bandwidth", min_value=0.05, max_value=10.0,
                   value=0.5, step=0.05)
    with c[4]:
        lam = bound(st.number_input, "λ", key="lam", min_value=1e-5, max_value=10.0, value=0.01, step=0.005,
                    format="%.4f")
    with c[5]:
        alpha = bound(st.select_slider, "α", key="alpha", options=[0.05, 0.1, 0.2, 0.3], value=0.1)
    with c[6]:
        seed = seed_input()
    mapie = st.checkbox("MAPIE's learned Σ(x) in your runs", key="mapie",
                        help="Trains MAPIE's small torch network for the covariance Σ(x) (the shipped view has it)")
    try:
        config = CompareConfig(law=law, dim=int(dim), kernel=kernel, bandwidth_scale=float(bw), lam=float(lam),
                               alpha=float(alpha))
    except ValueError as err:
        st.error(str(err))
        return None
    return config, seed, bool(mapie)


def comparison_section(config: CompareConfig, seed: int, mapie: bool) -> None:
    """Each score's coverage and volume at the chosen d and α, and the kernel operator's effective rank."""
    comp, source = cached_comparison(), f"shipped (defaults, seed {SHIPPED_SEED})"
    if not (config == CompareConfig() and seed == SHIPPED_SEED):
        run = live_panel(f"kernel_conformal:compare:{config.to_dict()}:{seed}:{mapie}", compare_scores,
                         {"config": config.replace(mapie=mapie), "seed": int(seed)},
                         start_label=f"Compare the scores at d = {config.dim}", group="kernel_conformal-compare")
        done = run is not None and run.result is not None and run.state == "done"
        comp, source = (result_to_dict(run.result), f"your run (d = {config.dim}, seed {seed})") if done else (None, "")
    if comp is None:
        st.caption(f"Coverage and volume at d = {config.dim}: start the comparison above.")
        return
    st.markdown(f"**Coverage and volume, {source}:**")
    static_table({"score": [SCORE_LABELS[n] for n in comp["scores"]], "coverage": comp["coverage"],
                  "volume": comp["volume"], "MC s.e.": comp["volume_se"]}, {"volume": "{:.4g}", "MC s.e.": "{:.2g}"})
    st.metric("Volume ratio MKS / ellipsoid", f"{comp['ratio_mks_ellipsoid']:.3f}",
              help=f"95% MC interval [{comp['ratio_low']:.3f}, {comp['ratio_high']:.3f}]")
    st.metric("Effective rank of the kernel covariance operator", f"{comp['effective_rank']:.2f}")


def regions_section(config: CompareConfig, seed: int, mapie: bool) -> None:
    """The 2-D regions (the first view's figure): shipped at the defaults, a live run otherwise."""
    flat = config.replace(dim=2)
    view, source = cached_view(), f"the shipped view (seed {SHIPPED_SEED}, defaults, MAPIE included)"
    left, right = st.columns([2, 1])
    with right:
        if not (flat == CompareConfig() and seed == SHIPPED_SEED):
            run = live_panel(f"kernel_conformal:view:{flat.to_dict()}:{seed}:{mapie}", region_view,
                             {"config": flat.replace(mapie=mapie), "seed": int(seed)},
                             start_label="Compute these regions", group="kernel_conformal-view")
            if run is not None and run.result is not None and run.state == "done":
                view, source = run.result, "your run"
    with left:
        note = "" if config.dim == 2 else f" Regions are drawn at d = 2; the table beside them is at d = {config.dim}."
        st.caption(f"Showing {source}.{note}")
        show(region_figure(view), key="chart-regions")
    with right:
        st.markdown(
            f"**What you are seeing.** The calibration residuals (grey) of a linear regression with "
            f"{LAW_LABELS[config.law]} noise, and the split-conformal regions at α = {view.alpha:g}: MKS (blue) "
            f"follows their shape, the Mahalanobis ellipsoid (red) cannot, and MAPIE's learned Σ(x) (dashed) moves "
            f"with x. Test residuals are marked by whether they fall inside the MKS region: "
            f"{view.mks_inside.mean():.1%} do (ellipsoid {view.ellipsoid_inside.mean():.1%}).")
        comparison_section(config, seed, mapie)
    for _ in details("Details: configuration"):
        st.json({"config": config.to_dict(), "seed": seed})
        export_buttons(view, f"kernel_conformal-view-seed{seed}", key="view-export")


def sweep_section(config: CompareConfig, seed: int) -> None:
    st.subheader("Coverage and volume against dimension or α")
    field = bound(st.radio, "Sweep", key="sweep", options=["dim", "alpha"], horizontal=True)
    values = (2, 4, 6) if field == "dim" else (0.05, 0.1, 0.2)
    run = live_panel(f"kernel_conformal:sweep:{field}:{config.to_dict()}:{seed}", sweep,
                     {"config": config.replace(n_fit=200, n_cal=200, n_test=400, mc_samples=5000), "field_name": field,
                      "values": values, "n_seeds": 2, "seed": int(seed)}, start_label="Run the sweep",
                     group="kernel_conformal-sweep")
    if run is not None and run.result is not None and run.state in ("done", "stopped"):
        show(sweep_figure(run.result), key="chart-sweep")
        export_buttons(run.result, f"kernel_conformal-sweep-{field}-seed{seed}", key="sweep-export")


def render() -> None:
    page_header(SYSTEM)
    picked = controls()
    if picked is None:
        return
    config, seed, mapie = picked
    regions_section(config, seed, mapie)
    if first_screen():
        return
    sweep_section(config, seed)


if __name__ == "__main__":
    render()
