"""MCR²: watch gradient ascent converge linearly, the error bound and PL hold near maximisers, and fail at a saddle."""

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
from core.mcr2 import AscentConfig, DigitsConfig, ascend, critical_lambda, saddle_probe, trace_of, train_digits
from core.mcr2.ship import SEED as SHIPPED_SEED
from core.mcr2.ship import shipped_run, shipped_view

SYSTEM = BY_KEY["mcr2"]
LIVE: dict = {"seed": 1}   # another seed than the shipped one shows the live panels
DEFAULT = AscentConfig()


@st.cache_data(show_spinner=False, max_entries=4)
def cached_shipped():
    view = shipped_view()
    return (shipped_run(view), view.saddle, view.digits) if view is not None else (None, None, None)


@st.cache_data(show_spinner=False, max_entries=32)
def cached_probe(config: AscentConfig, seed: int):
    return saddle_probe(config, seed=seed)


def render() -> None:
    page_header(SYSTEM)
    picked = controls()
    if picked is None:
        return
    config, seed = picked
    shipped, shipped_saddle, shipped_digits = cached_shipped()
    run, source = pick_run(config, seed, shipped)
    if run is None:
        st.info("No shipped run: start one above.")
        return
    probe = cached_probe(run.config, int(seed))
    st.caption(f"Showing {source}.")
    metrics_section(run)
    left, right = st.columns(2)
    with left:
        show(gap_figure(run), key="chart-gap")
    with right:
        show(bound_figure(run, probe), key="chart-bound")
        st.markdown(seeing_text(run, probe))
    if first_screen():
        return
    left, right = st.columns(2)
    with left:
        show(pl_figure(run), key="chart-pl")
    with right:
        show(spectra_figure(run), key="chart-spectra")
    left, right = st.columns(2)
    with left:
        show(angle_figure(run), key="chart-angles")
    with right:
        digits_section(seed, shipped_digits)
    for _ in details("Details: configuration and tail fit"):
        details_section(run, probe)


def controls() -> tuple[AscentConfig, int] | None:
    """The ascent's controls, bound to the URL; None (after an error) for a config out of range."""
    c = st.columns([1, 1, 1, 1.2, 1.2, 1.2, 1, 0.9])
    with c[0]:
        k = bound(st.number_input, "Classes K", key="classes", min_value=2, max_value=6, value=DEFAULT.n_classes, step=1)
    with c[1]:
        d = bound(st.number_input, "Dimension d", key="dim", min_value=2, max_value=40, value=DEFAULT.dim, step=1)
    with c[2]:
        m = bound(st.number_input, "Samples per class", key="per_class", min_value=2, max_value=100,
                  value=DEFAULT.per_class, step=1)
    with c[3]:
        eps_sq = bound(st.slider, "ε²", key="eps_sq", min_value=0.05, max_value=5.0, value=DEFAULT.eps_sq, step=0.05)
    with c[4]:
        lam = bound(st.number_input, "λ", key="lam", min_value=0.0005, max_value=0.5,
                    value=DEFAULT.lam, step=0.0005, format="%.4f", help="the regularisation weight of the objective")
    with c[5]:
        lr = bound(st.slider, "Step size η", key="lr", min_value=0.05, max_value=3.0, value=DEFAULT.lr, step=0.05)
    with c[6]:
        steps = bound(st.number_input, "Steps", key="steps", min_value=50, max_value=5000, value=DEFAULT.steps, step=50)
    with c[7]:
        seed = seed_input()
    try:
        config = AscentConfig(n_classes=int(k), dim=int(d), per_class=int(m), eps_sq=float(eps_sq), lam=float(lam),
                              lr=float(lr), steps=int(steps))
    except ValueError as err:
        st.error(str(err))
        return None
    return config, seed


def pick_run(config: AscentConfig, seed: int, shipped):
    """The run to show and where it comes from: the shipped one, or a live one for other settings."""
    if config == DEFAULT and seed == SHIPPED_SEED and shipped is not None:
        return shipped, f"the shipped run (seed {SHIPPED_SEED}, default settings)"
    live = live_panel(f"mcr2:ascent:{config.to_dict()}:{seed}", ascend, {"config": config, "seed": int(seed)},
                      start_label=f"Run gradient ascent (seed {seed})")
    if live is not None and live.result is not None and live.state in ("done", "stopped"):
        return live.result, f"your run (seed {seed})" + (" (stopped early)" if live.state == "stopped" else "")
    return shipped, f"the shipped run (seed {SHIPPED_SEED}, default settings) until you run these settings"


def metrics_section(run) -> None:
    fit = run.fit
    m_ = st.columns(5)
    m_[0].metric("Log-gap slope per step", f"{fit.slope:.5f}" if np.isfinite(fit.slope) else "–")
    m_[1].metric("Contraction per step", f"{fit.contraction_max:.4f}" if np.isfinite(fit.contraction_max) else "–")
    m_[2].metric("PL ratio (tail min)", f"{fit.pl_min:.4f}" if np.isfinite(fit.pl_min) else "–")
    m_[3].metric("κ = max dist/‖∇F‖ (tail)", f"{fit.kappa:.1f}" if np.isfinite(fit.kappa) else "–")
    m_[4].metric("Predicted σ² (class 1)", f"{run.predicted_s[0]:.5f}")


def digits_section(seed: int, shipped_digits) -> None:
    """The digits MLP, MCR² against cross-entropy: shipped for the shipped seed, live runs otherwise."""
    digits, digits_source = shipped_digits, f"shipped (seed {SHIPPED_SEED})"
    if seed != SHIPPED_SEED:
        runs = {}
        for obj in ("mcr2", "cross_entropy"):
            live = live_panel(f"mcr2digits{obj}:{seed}", train_digits,
                              {"config": DigitsConfig(objective=obj), "seed": int(seed)},
                              start_label=f"Train the digits MLP with {obj.replace('_', '-')} (seed {seed})")
            if live is not None and live.result is not None and live.state == "done":
                runs[obj] = live.result
        if len(runs) == 2:
            from core.common.results import result_to_dict

            digits = {k: result_to_dict(v) for k, v in runs.items()}
            digits_source = f"your runs (seed {seed})"
    if digits:
        show(digits_figure(digits), key="chart-digits")
        st.caption(f"Digits: {digits_source}. " + digits_text(digits))


def details_section(run, probe) -> None:
    fit = run.fit
    st.json({"config": run.config.to_dict(), "seed": run.seed, "ranks": run.ranks.tolist(),
             "predicted_sigma_sq": run.predicted_s.tolist(), "saddle_sigma_sq": run.saddle_s.tolist(),
             "critical_lambda": float(critical_lambda(run.config.dim, run.config.class_sizes, run.config.eps)[0]),
             "f_star": run.f_star, "tail_fit": {k: (v.tolist() if isinstance(v, np.ndarray) else v)
                                               for k, v in vars(fit).items()},
             "saddle_probe": {"deltas": probe.deltas.tolist(), "ratio": probe.ratio.tolist()}})
    export_buttons(trace_of(run), f"mcr2-ascent-seed{run.seed}", key="ascent-export")


def seeing_text(run, probe) -> str:
    fit = run.fit
    if not np.isfinite(fit.slope):
        return ("**What you are seeing.** The run has not reached the tail (gap between 1e-9 and 1e-3 with its "
                "final rank pattern): run more steps or a larger step size.")
    linear = fit.slope_spread < 0.05
    return (f"**What you are seeing.** Left: the gap F* − F to the closed-form maximiser value on a log scale; "
            f"over the tail ({fit.steps} steps) its slope is {fit.slope:.5f} per step, and the three thirds of the tail "
            f"give {', '.join(f'{x:.5f}' for x in fit.third_slopes)} ("
            + ("the same: a linear rate" if linear else "not the same: not a clean linear rate") +
            f"). Right: distance to the maximiser set against the gradient norm; the tail lies on a line "
            f"dist ≈ κ‖∇F‖ with κ between {fit.kappa_min:.1f} and {fit.kappa:.1f}. The red points are the control, "
            f"a strict saddle perturbed by δ: its gradient vanishes while its distance stays at σ⁻ = "
            f"{probe.saddle_distance:.3f}, so the ratio reaches {probe.ratio[-1]:.3g}: the bound is only local.")


def digits_text(digits) -> str:
    m, ce = digits["mcr2"], digits["cross_entropy"]
    return (f"MCR² features: ΔR {m['geometry']['rate_reduction']:.1f}, mean cross-class cosine "
            f"{m['geometry']['mean_cosine']:.2f}, accuracy {m['test_accuracy']:.3f}; cross-entropy: ΔR "
            f"{ce['geometry']['rate_reduction']:.1f}, cosine {ce['geometry']['mean_cosine']:.2f}, accuracy "
            f"{ce['test_accuracy']:.3f}; pixels: ΔR {m['raw_geometry']['rate_reduction']:.1f}, cosine "
            f"{m['raw_geometry']['mean_cosine']:.2f}. The largest pairwise cosine stays high for both "
            f"({m['geometry']['max_cosine']:.2f} vs {ce['geometry']['max_cosine']:.2f}).")


def gap_figure(run) -> go.Figure:
    steps = np.arange(run.gap.size)
    ok = run.gap > 0
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=steps[ok], y=run.gap[ok], name="F* − F", mode="lines", line=dict(color=COLORS[0], width=2.5)))
    idx = np.flatnonzero(run.tail)
    if idx.size and np.isfinite(run.fit.slope):
        intercept = np.mean(np.log(run.gap[idx]) - run.fit.slope * idx)
        fig.add_trace(go.Scatter(x=idx, y=np.exp(intercept + run.fit.slope * idx), mode="lines",
                                 name=f"fit on the tail: slope {run.fit.slope:.5f}", line=dict(color=COLORS[3], dash="dash")))
    fig.update_yaxes(type="log", title="gap F* − F (closed-form F*)")
    fig.update_xaxes(title="step")
    fig.update_layout(title="Linear convergence: the log-gap is a line", height=400,
                      legend=dict(orientation="h", yanchor="top", y=-0.2, x=0))
    return fig


def bound_figure(run, probe) -> go.Figure:
    fig = go.Figure()
    early = ~run.tail & (run.grad_norm > 0)
    fig.add_trace(go.Scatter(x=run.grad_norm[early], y=run.distance[early], mode="markers", name="outside the tail",
                             marker=dict(color="#aaa", size=4)))
    fig.add_trace(go.Scatter(x=run.grad_norm[run.tail], y=run.distance[run.tail], mode="markers", name="tail",
                             marker=dict(color=COLORS[0], size=5)))
    if np.isfinite(run.fit.kappa):
        xs = np.geomspace(max(run.grad_norm[run.tail].min(), 1e-12), run.grad_norm.max(), 20)
        fig.add_trace(go.Scatter(x=xs, y=run.fit.kappa * xs, mode="lines", name=f"κ‖∇F‖, κ = {run.fit.kappa:.1f}",
                                 line=dict(color=COLORS[2], dash="dash")))
    fig.add_trace(go.Scatter(x=probe.grad_norm, y=probe.distance, mode="markers+lines", name="control: near a saddle",
                             marker=dict(color=COLORS[3], size=9, symbol="x")))
    fig.update_xaxes(type="log", title="gradient norm ‖∇F‖")
    fig.update_yaxes(type="log", title="distance to the maximiser set")
    fig.update_layout(title="Error bound: distance against gradient norm", height=400,
                      legend=dict(orientation="h", yanchor="top", y=-0.2, x=0))
    return fig


def pl_figure(run) -> go.Figure:
    steps = np.arange(run.pl_ratio.size)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=steps, y=run.pl_ratio, mode="lines", name="‖∇F‖² / (F* − F)", line=dict(color=COLORS[0])))
    if np.isfinite(run.fit.pl_min):
        fig.add_hline(y=run.fit.pl_min, line=dict(color=COLORS[3], dash="dot"),
                      annotation_text=f"tail minimum {run.fit.pl_min:.4f}")
    fig.update_yaxes(type="log", title="PL ratio")
    fig.update_xaxes(title="step")
    fig.update_layout(title="Polyak–Łojasiewicz ratio over the run", height=380)
    return fig


def spectra_steps(n: int, points: int = 300) -> np.ndarray:
    """The steps drawn in the spectra figure: every k-th and the last (up to K x 8 lines of every step is heavy)."""
    return np.unique(np.concatenate([np.arange(0, n, max(1, n // points)), [n - 1]]))


def spectra_figure(run, per_class: int = 8) -> go.Figure:
    fig = go.Figure()
    steps = spectra_steps(run.spectra.shape[0])
    for c in range(run.spectra.shape[1]):
        for i in range(min(per_class, run.spectra.shape[2])):
            fig.add_trace(go.Scatter(x=steps, y=np.maximum(run.spectra[steps, c, i], 1e-6), mode="lines",
                                     name=f"class {c + 1}", legendgroup=str(c), showlegend=i == 0,
                                     line=dict(color=COLORS[c % len(COLORS)], width=1.2)))
    fig.add_hline(y=run.predicted_s[0], line=dict(color="#333", dash="dash"),
                  annotation_text=f"predicted root s⁺ = {run.predicted_s[0]:.4f}")
    fig.add_hline(y=run.saddle_s[0], line=dict(color="#999", dash="dot"), annotation_text=f"saddle root s⁻ = {run.saddle_s[0]:.4f}",
                  annotation_position="bottom right")
    fig.update_yaxes(type="log", title="squared singular value σ²", range=[-6, np.log10(run.predicted_s.max()) + 1])
    fig.update_xaxes(title="step")
    fig.update_layout(title="Each class's singular values converge to the predicted root (or to 0)", height=380)
    return fig


def angle_figure(run) -> go.Figure:
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=np.arange(run.overlap.size), y=np.maximum(run.overlap, 1e-17), mode="lines",
                             name="largest cross-class cosine", line=dict(color=COLORS[4], width=2)))
    fig.update_yaxes(type="log", title="cosine of the smallest principal angle")
    fig.update_xaxes(title="step")
    fig.update_layout(title="Class subspaces become orthogonal", height=380)
    return fig


def digits_figure(digits) -> go.Figure:
    names = {"mcr2": "MCR²", "cross_entropy": "cross-entropy (control)"}
    metrics = [("test accuracy", lambda r: r["test_accuracy"]),
               ("mean cross-class cosine", lambda r: r["geometry"]["mean_cosine"]),
               ("ΔR / 10", lambda r: r["geometry"]["rate_reduction"] / 10)]
    fig = go.Figure()
    for i, (obj, r) in enumerate(digits.items()):
        fig.add_trace(go.Bar(x=[m for m, _ in metrics], y=[f(r) for _, f in metrics], name=names[obj],
                             marker_color=COLORS[i]))
    raw = next(iter(digits.values()))
    fig.add_trace(go.Bar(x=[m for m, _ in metrics][1:], y=[raw["raw_geometry"]["mean_cosine"],
                                                          raw["raw_geometry"]["rate_reduction"] / 10],
                         name="pixels", marker_color="#999"))
    fig.update_layout(barmode="group", title="Digits MLP: accuracy and geometry of the test features", height=380)
    return fig


if __name__ == "__main__":
    render()
