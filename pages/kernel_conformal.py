"""Multivariate kernel score for conformal prediction: MKS regions against the ellipsoid (and MAPIE)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from app.catalog import BY_KEY
from app.ui.cache import shipped
from app.ui.controls import bound, seed_input
from app.ui.export import export_buttons
from app.ui.live import live_panel
from app.ui.plots import COLORS, show
from app.ui.verdicts import page_header
from core.kernel_conformal.data import LAW_LABELS, LAWS
from core.kernel_conformal.experiment import CompareConfig
from core.kernel_conformal.kernels import KERNEL_LABELS, KERNELS
from core.kernel_conformal.scores import SCORE_LABELS
from core.kernel_conformal.ship import SEED as SHIPPED_SEED
from core.kernel_conformal.ship import shipped_comparison, shipped_view
from core.kernel_conformal.views import region_view
from core.kernel_conformal.experiment import sweep

SYSTEM = BY_KEY["kernel_conformal"]

LIVE: dict = {"seed": 1}   # another seed than the shipped one shows the region panel (the sweep panel always shows)


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
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=s.values, y=s.ratio, mode="lines+markers", name="volume MKS / ellipsoid",
                             error_y=dict(type="data", symmetric=False, array=s.ratio_high - s.ratio,
                                          arrayminus=s.ratio - s.ratio_low)))
    fig.add_hline(y=1.0, line=dict(color="#888", dash="dash"))
    fig.update_layout(title="Volume ratio (geometric mean over seeds, 95% interval)", xaxis_title=s.field,
                      yaxis_title="ratio", height=380)
    return fig


def render() -> None:
    page_header(SYSTEM)
    c = st.columns(6)
    with c[0]:
        law = bound(st.selectbox, "Residual law", key="law", options=list(LAWS), format_func=LAW_LABELS.get)
    with c[1]:
        kernel = bound(st.selectbox, "Kernel", key="kernel", options=list(KERNELS), format_func=KERNEL_LABELS.get)
    with c[2]:
        bw = bound(st.number_input, "Bandwidth (× median distance)", key="bandwidth", min_value=0.05, max_value=10.0,
                   value=0.5, step=0.05)
    with c[3]:
        lam = bound(st.number_input, "λ", key="lam", min_value=1e-5, max_value=10.0, value=0.01, step=0.005,
                    format="%.4f")
    with c[4]:
        alpha = bound(st.select_slider, "α", key="alpha", options=[0.05, 0.1, 0.2, 0.3], value=0.1)
    with c[5]:
        seed = seed_input()
    try:
        config = CompareConfig(law=law, kernel=kernel, bandwidth_scale=float(bw), lam=float(lam), alpha=float(alpha))
    except ValueError as err:
        st.error(str(err))
        return

    shipped = config == CompareConfig() and seed == SHIPPED_SEED
    view, source = cached_view(), f"the shipped view (seed {SHIPPED_SEED}, defaults)"
    left, right = st.columns([2, 1])
    with right:
        mapie = st.checkbox("MAPIE's learned Σ(x)", key="mapie",
                            help="Trains a small torch network for the covariance Σ(x), as MAPIE does")
        if not shipped or mapie:
            run = live_panel(f"kernel_conformal:view:{config.to_dict()}:{seed}:{mapie}", region_view,
                             {"config": config.replace(mapie=bool(mapie)), "seed": int(seed)},
                             start_label="Compute these regions", group="kernel_conformal-view")
            if run is not None and run.result is not None and run.state == "done":
                view, source = run.result, "your run"
    with left:
        st.caption(f"Showing {source}.")
        show(region_figure(view), key="chart-regions")
    with right:
        st.markdown(
            f"**What you are seeing.** The calibration residuals (grey) of a linear regression with "
            f"{LAW_LABELS[law]} noise, and the split-conformal regions at α = {view.alpha:g}: MKS (blue) "
            f"follows their shape, the Mahalanobis ellipsoid (red) cannot. Test residuals are marked by whether "
            f"they fall inside the MKS region: {view.mks_inside.mean():.1%} do (ellipsoid "
            f"{view.ellipsoid_inside.mean():.1%}).")
        comp = cached_comparison()
        if comp is not None:
            names = comp["scores"]
            st.markdown("**Shipped comparison (defaults, seed 0):**")
            st.dataframe({"score": [SCORE_LABELS[n] for n in names], "coverage": comp["coverage"],
                          "volume": comp["volume"], "MC s.e.": comp["volume_se"]}, hide_index=True)
            st.metric("Volume ratio MKS / ellipsoid", f"{comp['ratio_mks_ellipsoid']:.3f}",
                      help=f"95% MC interval [{comp['ratio_low']:.3f}, {comp['ratio_high']:.3f}]")
            st.metric("Effective rank of the kernel covariance operator", f"{comp['effective_rank']:.2f}")

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

    with st.expander("Details: configuration"):
        st.json({"config": config.to_dict(), "seed": seed})
        export_buttons(view, f"kernel_conformal-view-seed{seed}", key="view-export")


if __name__ == "__main__":
    render()
