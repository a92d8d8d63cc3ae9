"""GETO-LP: exact Wasserstein barycenters of digits, shapes, colour palettes and organ volumes.

What runs where:
- each kind's default view is shipped (``assets/geto_lp/<kind>.npz``, :mod:`core.geto_lp.ship`):
  the first view imports neither POT (which imports torch), HiGHS, scikit-learn nor PyVista;
- another small problem (up to ``INSTANT_VARIABLES`` LP variables, well under a second) is solved
  on load by GETO-LP alone, cached; POT's solvers for it run on a click, in a live panel;
- a larger problem runs live, GETO-LP then POT's solvers, with HiGHS's progress and a Stop that
  interrupts HiGHS.
"""

from __future__ import annotations

import dataclasses
import math

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
from core.geto_lp import (DEFAULTS, SCENES, SHAPES, SOLVERS, Comparison, bin_centres, compare_solvers,
                          count_classical_variables, count_variables, flow_paths, input_labels, isosurface, problem_inputs, run_baselines,
                          transfer_palette)
from core.geto_lp.grid import check_weights
from core.geto_lp.problems import scene
from core.geto_lp.ship import DENSE_LIMIT, POT_LP_LIMIT, load_view

SYSTEM = BY_KEY["geto_lp"]
KINDS = {"digits": "Handwritten digits (2-D)", "shapes": "Synthetic shapes (2-D)",
         "palettes": "Colour palettes (RGB, 3-D)", "volumes": "Organ-like volumes (3-D)"}
COSTS = {"sqeuclidean": "squared Euclidean (W₂²)", "l1": "L1 (W₁, Manhattan)"}
INSTANT_VARIABLES = 30_000  # up to this many LP variables GETO-LP solves on load (cached); beyond, live
FLOWS = 80  # heaviest plan entries drawn
# Digits 0 and 3 on a 20 x 20 grid: 32,400 LP variables, over INSTANT_VARIABLES, so the live panel shows.
LIVE = {"n": "20"}


@st.cache_data(show_spinner=False, max_entries=64)
def cached_inputs(kind: str, items: tuple, size: int, seed: int) -> tuple[np.ndarray, list[str], float]:
    """The histograms, their labels and the grid spacing."""
    problem = problem_inputs(kind, items, size, seed)
    return problem.histograms, problem.labels, problem.spacing


@st.cache_data(show_spinner=False, max_entries=32)
def cached_image(scene_name: str, seed: int) -> np.ndarray:
    return scene(scene_name, seed)


@st.cache_resource(show_spinner=False)
def cached_shipped(kind: str):
    return load_view(kind)


@st.cache_data(show_spinner="Solving the layered LP…", max_entries=32)
def cached_exact(kind: str, items: tuple, size: int, seed: int, weights: tuple, cost: str, solver: str):
    """GETO-LP alone on a small problem (under a second; POT is not imported)."""
    hist, _, spacing = cached_inputs(kind, items, size, seed)
    return compare_solvers(hist, weights, cost, spacing, methods=("geto_lp",), solver=solver, rescore_exact=False)


def grid_shape(kind: str, size: int) -> tuple:
    return (size, size) if kind in ("digits", "shapes") else (size, size, size)


@dataclasses.dataclass
class View:
    """What the controls ask for, validated."""

    kind: str
    items: list
    labels: list
    size: int
    cost: str
    solver: str
    seed: int
    weights: np.ndarray
    reg: float
    shape: tuple
    n_var: int


def render() -> None:
    page_header(SYSTEM)
    view = controls()
    if view is None:
        return
    slot = live_slot(view.kind, view.items, view.size, view.seed, view.weights, view.cost, view.solver, view.reg)
    shipped = cached_shipped(view.kind)
    metrics_area, main_area, solvers_area, plans_area, details_area = (st.container() for _ in range(5))
    solved = solve_view(view, shipped, slot, solvers_area)
    if solved is None:
        return
    hist, spacing, comparison, is_shipped, table_area, baselines_pending = solved
    result, runs = comparison.result, comparison.by_method
    if result.status != "optimal":
        stopped_view(view, hist, result)
        return
    classical = count_classical_variables(len(view.items), view.shape)
    with metrics_area:
        metrics_section(result, runs, classical, view.solver, is_shipped)
    with main_area:
        left, right = st.columns([2.2, 1])
        with left:
            show(main_figure(view.kind, hist, view.labels, result), key="chart-main")
        with right:
            st.markdown(what_you_see(view.kind, view.labels, view.weights, result, runs, classical, baselines_pending))
    if first_screen():
        return
    if table_area is None:
        with solvers_area:
            st.subheader("Solvers side by side", divider="gray")
            table_area = st.container()
    with table_area:
        table_section(comparison)
    with plans_area:
        plans_section(view, hist, result, runs)
    with details_area:
        for _ in details("Details: configuration, LP sizes and export"):
            details_section(view, spacing, result, classical)


def controls() -> View | None:
    """The controls, bound to the URL; None (after an error) when they do not make a problem."""
    c1, c2, c3, c4, c5, c6 = st.columns([1.4, 2.2, 1.2, 1.3, 1.0, 0.8])
    with c1:
        kind = bound(st.selectbox, "Inputs", key="inputs", options=list(KINDS), format_func=KINDS.get)
    with c2:
        items = item_picker(kind)
    with c3:
        size = size_slider(kind)
    with c4:
        cost = bound(st.selectbox, "Ground cost", key="cost", options=list(COSTS), format_func=COSTS.get,
                     help="Separable costs only: the layered LP is exact for a cost that is a sum over the axes.")
    with c5:
        solver = bound(st.selectbox, "HiGHS method", key="solver", options=["auto", *SOLVERS],
                       help="Both LPs, GETO-LP's and POT's, use it. auto: dual simplex for the small problems "
                            "solved on load, interior point (then crossover) for the large ones solved live, "
                            "where it is many times faster; highs-ds: dual simplex; highs: HiGHS picks.")
    with c6:
        seed = seed_input()

    if not 2 <= len(items) <= 4:
        st.error(f"inputs: {len(items)} selected; allowed 2 to 4 inputs")
        return None
    labels = input_labels(kind, items)
    weight_cols = st.columns(len(items) + 1)
    raw = []
    for i, label in enumerate(labels):
        with weight_cols[i]:
            raw.append(bound(st.slider, f"Weight of {label}", key=f"w{i + 1}", min_value=0.0, max_value=1.0,
                             value=1.0, step=0.05))
    with weight_cols[-1]:
        reg = bound(st.select_slider, "Entropic reg", key="reg", options=[0.002, 0.005, 0.01, 0.02, 0.05], value=0.01,
                    help="For the entropic baselines, in units of the cost of crossing the grid along one axis.")
    try:
        weights = check_weights(raw, len(items))
    except ValueError as exc:
        st.error(str(exc))
        return None
    shape = grid_shape(kind, size)
    n_var = count_variables(len(items), shape)
    if solver == "auto":
        solver = "highs-ds" if n_var <= INSTANT_VARIABLES else "highs-ipm"
    return View(kind, items, labels, size, cost, solver, seed, weights, reg, shape, n_var)


def solve_view(view: View, shipped, slot: str, solvers_area):
    """The view's comparison: shipped, solved on load (small) or live; None while a live run has none yet.

    Returns ``(hist, spacing, comparison, is_shipped, table_area, baselines_pending)``.
    """
    kind, items, size, seed = view.kind, view.items, view.size, view.seed
    baselines_pending, table_area = False, None
    is_shipped = shipped is not None and shipped.matches(kind, items, size, seed, view.weights, view.cost,
                                                         view.solver, view.reg)
    if is_shipped:
        hist, spacing, comparison = shipped.problem.histograms, shipped.problem.spacing, shipped.comparison
    elif view.n_var <= INSTANT_VARIABLES:
        hist, _, spacing = cached_inputs(kind, tuple(items), size, seed)
        comparison = cached_exact(kind, tuple(items), size, seed, tuple(view.weights), view.cost, view.solver)
        with solvers_area:
            st.subheader("Solvers side by side", divider="gray")
            table_area = st.container()
            comparison, baselines_pending = with_baselines(slot, comparison, hist, view.weights, view.cost, spacing,
                                                           view.reg, view.solver)
    else:
        hist, _, spacing = cached_inputs(kind, tuple(items), size, seed)
        comparison = live_comparison(slot, hist, view.weights, view.cost, spacing, view.reg, view.solver, view.n_var)
        if comparison is None:
            show(inputs_figure(kind, hist, view.labels), key="chart-inputs")
            return None
    return hist, spacing, comparison, is_shipped, table_area, baselines_pending


def stopped_view(view: View, hist, result) -> None:
    solved = bool(np.isfinite(result.barycenter).all())
    st.warning("Stopped while recovering the plans: the barycenter is exact, but not every plan was recovered. "
               "Start it again to finish." if solved else
               "Stopped before HiGHS finished: an unfinished LP has no barycenter to show. Start it again to "
               "solve to the end.")
    show(main_figure(view.kind, hist, view.labels, result) if solved else inputs_figure(view.kind, hist, view.labels),
         key="chart-inputs")


def metrics_section(result, runs, classical: int, solver: str, is_shipped: bool) -> None:
    m = st.columns(5)
    m[0].metric("GETO-LP variables", f"{result.n_variables:,}", help="M·N·Σₖnₖ + N")
    m[1].metric("Classical LP variables", f"{classical:,}", delta=f"{classical / result.n_variables:.1f}× more",
                delta_color="off", help="M·N² + N")
    m[2].metric("GETO-LP solve", f"{result.solve_seconds:.2f} s",
                help=f"HiGHS {solver}; building the LP took {result.build_seconds:.3f} s, the plans "
                     f"{result.recover_seconds:.3f} s" + (" (measured when this view was shipped)" if is_shipped else ""))
    m[3].metric("Objective Σλₘ·cost(Pₘ)", f"{result.objective:.5g}")
    entropic = [r for key, r in runs.items() if key in ("sinkhorn", "convolutional") and r.status == "ok"]
    m[4].metric("Entropic gap to exact", f"{min(r.gap_to_exact for r in entropic):+.2%}" if entropic else "—",
                help="the better of the two entropic barycenters, scored exactly with ot.emd2")
    if is_shipped:
        st.caption("This default view is shipped: solved and timed once by `python -m core.geto_lp.ship`. "
                   "Change any control to solve a problem here.")


def table_section(comparison) -> None:
    st.dataframe(solver_table(comparison.runs), hide_index=True, column_config=TABLE_FORMAT)
    st.caption("Objective: Σλₘ·ot.emd2(aₘ, b, C) at each method's barycenter b, so every row is scored the "
               "same, exact way (GETO-LP's row is its LP's own optimum where POT has not run); the gap is "
               "relative to GETO-LP's optimum. Memory: the rise of the process's peak RSS during the call, HiGHS "
               "included. GETO-LP's time includes building the LP and recovering its plans.")


def plans_section(view: View, hist, result, runs) -> None:
    kind, labels = view.kind, view.labels
    left, right = st.columns([1.2, 1])
    with left:
        which = bound(st.selectbox, "Transport plan from", key="plan", options=list(range(len(labels))),
                      format_func=lambda i: labels[i])
        show(flows_figure(kind, hist[which], result, which, labels[which]), key="chart-flows")
    with right:
        if kind == "palettes":
            show(transfer_figure(view.items, view.seed, view.size, result), key="chart-transfer")
            st.markdown("**Palette transfer.** Each image recoloured through its plan to the barycentric "
                        "palette: a pixel in colour bin i moves by T(i) − yᵢ, where T(i) is the mean colour "
                        "its bin is sent to. With equal weights every image ends with the same palette.")
        else:
            show(comparison_figure(kind, result, runs), key="chart-compare")
            st.markdown("**Exact against entropic.** An exact barycenter is a vertex of the LP's polytope: "
                        "sparse, speckled and not unique (POT's classical LP may land on another vertex with "
                        "the same objective). The entropic solvers return a smooth one, blurred by the "
                        "regularisation, and the exact score in the table shows what the blur costs.")


def details_section(view: View, spacing, result, classical: int) -> None:
    st.json({"inputs": view.kind, "items": [str(i) for i in view.items], "grid": list(view.shape), "spacing": spacing,
             "weights": np.round(view.weights, 4).tolist(), "cost": view.cost, "solver": view.solver, "reg": view.reg,
             "seed": view.seed, "n_variables": result.n_variables, "n_constraints": result.n_constraints,
             "classical_variables": classical, "iterations": result.iterations,
             "build_seconds": round(result.build_seconds, 4), "solve_seconds": round(result.solve_seconds, 4),
             "recover_seconds": round(result.recover_seconds, 4), "objective": result.objective,
             "plan_nonzeros": [int(p.nnz) for p in result.plans], "status": result.status})
    export_buttons(dataclasses.replace(result, plans=None), f"geto_lp-{view.kind}-{'-'.join(map(str, view.items))}",
                   key="result-export")


def with_baselines(slot, comparison, hist, weights, cost, spacing, reg, solver):
    """The live panel for POT's solvers on a small problem; the comparison with what they returned so far.

    Returns the comparison and whether the baselines are still to run (not started, or running).
    """
    st.caption("GETO-LP solved this problem on load. POT's classical LP and its entropic solvers run on a click "
               "(POT is loaded then; Stop takes effect between two solvers).")
    run = live_panel(f"{slot}:baselines", run_baselines,
                     {"histograms": hist, "optimum": comparison.runs[0].objective, "weights": weights, "cost": cost,
                      "spacing": spacing, "reg": reg, "solver": solver, "pot_max_variables": POT_LP_LIMIT,
                      "dense_max_points": DENSE_LIMIT},
                     start_label="Run POT's solvers")
    if run is None or not run.finished or run.result is None:
        return comparison, True
    if run.result.stopped:
        st.caption(f"Stopped: {len(run.result.runs)} of the baselines ran.")
    return Comparison(comparison.result, [comparison.runs[0], *run.result.runs]), False


def item_picker(kind: str) -> list:
    if kind == "digits":
        return bound(st.multiselect, "Digits (2 to 4)", key="digits", options=list(range(10)), default=list(DEFAULTS["digits"][0]),
                     max_selections=4)
    if kind == "shapes":
        return bound(st.multiselect, "Shapes (2 to 4)", key="shapes", options=list(SHAPES), default=list(DEFAULTS["shapes"][0]),
                     max_selections=4, format_func=lambda s: s.replace("_", " "))
    if kind == "palettes":
        return bound(st.multiselect, "Scenes (2 to 4)", key="scenes", options=list(SCENES), default=list(DEFAULTS["palettes"][0]),
                     max_selections=4)
    return bound(st.multiselect, "Patients (2 to 4)", key="patients", options=list(range(8)), default=list(DEFAULTS["volumes"][0]),
                 max_selections=4, format_func=lambda p: f"patient {p}")


def size_slider(kind: str) -> int:
    if kind in ("digits", "shapes"):
        return int(bound(st.slider, "Grid n × n", key="n", min_value=8, max_value=48, value=DEFAULTS[kind][1], step=2,
                         help="Above 30,000 LP variables the solve runs live, with progress and a Stop button."))
    if kind == "palettes":
        return int(bound(st.slider, "Bins per channel", key="bins", min_value=4, max_value=12,
                         value=DEFAULTS["palettes"][1]))
    return int(bound(st.slider, "Voxels per side", key="voxels", min_value=6, max_value=14,
                         value=DEFAULTS["volumes"][1]))


def live_slot(kind, items, size, seed, weights, cost, solver, reg) -> str:
    """The live run's name: one per view, so a changed control never shows another view's result."""
    lam = ",".join(f"{w:.4f}" for w in weights)
    return f"geto_lp:{kind}:{','.join(map(str, items))}:{size}:{seed}:{lam}:{cost}:{solver}:{reg}"


def live_comparison(slot, hist, weights, cost, spacing, reg, solver, n_var):
    st.info(f"This problem has **{n_var:,}** LP variables: it runs live here with HiGHS's progress below "
            "(with the interior point, the primal and dual objectives closing on each other). Stop interrupts "
            "HiGHS; a baseline already running (POT's LP, Sinkhorn) finishes first.")
    run = live_panel(slot, solve_live,
                     {"histograms": hist, "weights": weights, "cost": cost, "spacing": spacing, "reg": reg,
                      "solver": solver, "pot_max_variables": POT_LP_LIMIT, "dense_max_points": DENSE_LIMIT},
                     start_label="Solve live")
    return run.result if run is not None and run.finished and run.result is not None else None


TABLE_FORMAT = {"variables": st.column_config.NumberColumn(format="localized"),
                "time (s)": st.column_config.NumberColumn(format="%.3f"),
                "peak memory (MB)": st.column_config.NumberColumn(format="%.1f"),
                "objective (exact)": st.column_config.NumberColumn(format="%.6f"),
                "gap to exact": st.column_config.NumberColumn(format="%.2e")}


def solve_live(progress=None, **kwargs):
    """:func:`compare_solvers` with only the metrics worth a live curve (HiGHS's convergence)."""

    def curves(step, total, metrics):
        shown = {}
        if "gap" in metrics:
            shown["log10 duality gap"] = math.log10(max(metrics["gap"], 1e-16))
        if "primal_objective" in metrics:
            shown["primal objective (presolved LP)"] = metrics["primal_objective"]
        return progress(step, total, shown)

    return compare_solvers(**kwargs, progress=curves if progress is not None else None)


def solver_table(runs) -> pd.DataFrame:
    return pd.DataFrame([{"method": r.label, "variables": r.n_variables, "time (s)": r.seconds,
                          "peak memory (MB)": r.peak_memory_mb, "objective (exact)": r.objective,
                          "gap to exact": r.gap_to_exact, "status": r.status} for r in runs])


def what_you_see(kind, labels, weights, result, runs, classical, baselines_pending=False) -> str:
    lam = ", ".join(f"{label} {w:.2f}" for label, w in zip(labels, weights))
    pot = runs.get("pot_lp")
    pot_text = (f"POT's classical LP, with {classical:,} variables, took {pot.seconds:.2f} s for the same optimum "
                f"(gap {pot.gap_to_exact:+.1e}). " if pot is not None and pot.status == "ok" else
                "Run POT's solvers below to compare with its classical LP. " if baselines_pending else
                "POT's classical LP was skipped at this size (see the table). ")
    shown = {"digits": "the inputs and their exact barycenter", "shapes": "the inputs and their exact barycenter",
             "palettes": "each image's colour palette (bins sorted by mass) and the barycentric palette",
             "volumes": "each patient's organ surface (faint) and the barycenter's (orange), enclosing 60 % "
                        "of the mass"}[kind]
    return (f"**What you are seeing.** Left: {shown}, with weights λ = ({lam}). GETO-LP routes every "
            f"coupling through one stage per axis, so the LP has {result.n_variables:,} variables instead of "
            f"{classical:,}; HiGHS solved it in {result.solve_seconds:.2f} s. {pot_text}The plans below come "
            "straight from the layered flows, with no further optimisation; each one's cost equals ot.emd2 "
            "on the same pair.")


def heatmap(image, showscale=False) -> go.Heatmap:
    return go.Heatmap(z=image, colorscale="Viridis", showscale=showscale, hovertemplate="row %{y}, col %{x}: "
                      "%{z:.4f}<extra></extra>")


def inputs_figure(kind, hist, labels) -> go.Figure:
    if kind in ("digits", "shapes"):
        return image_grid(list(hist), labels, "The inputs")
    if kind == "palettes":
        return palette_strips(list(hist), labels, "The inputs' palettes")
    return volume_figure(list(hist), None, labels, "The inputs")


def main_figure(kind, hist, labels, result) -> go.Figure:
    if kind in ("digits", "shapes"):
        return image_grid(list(hist) + [result.barycenter], labels + ["GETO-LP barycenter"],
                          "Inputs and their exact barycenter")
    if kind == "palettes":
        return palette_strips(list(hist) + [result.barycenter], labels + ["barycenter"],
                              "Palettes (each bin's colour, width = its mass)")
    return volume_figure(list(hist), result.barycenter, labels, "Organ surfaces and their barycenter")


def image_grid(images, titles, title) -> go.Figure:
    fig = make_subplots(rows=1, cols=len(images), subplot_titles=titles, horizontal_spacing=0.05)
    for i, image in enumerate(images):
        fig.add_trace(heatmap(image, showscale=i == len(images) - 1), row=1, col=i + 1)
        fig.update_yaxes(autorange="reversed", scaleanchor=f"x{i + 1 if i else ''}", showticklabels=False,
                         showgrid=False, row=1, col=i + 1)
        fig.update_xaxes(showticklabels=False, showgrid=False, row=1, col=i + 1)
    fig.update_layout(title=title, height=340, hovermode="closest", margin=dict(t=100))
    fig.update_annotations(font_size=11)
    return fig


def palette_strips(palettes, titles, title) -> go.Figure:
    fig = make_subplots(rows=len(palettes), cols=1, subplot_titles=titles, vertical_spacing=0.1)
    for i, palette in enumerate(palettes):
        bins = palette.shape[0]
        mass = palette.reshape(-1)
        order = np.argsort(-mass)
        order = order[mass[order] > 1e-9]
        colours = bin_centres(bins)[order]
        fig.add_trace(go.Bar(x=mass[order], y=[""] * len(order), orientation="h", showlegend=False,
                             marker=dict(color=[f"rgb({r:.0f},{g:.0f},{b:.0f})" for r, g, b in colours * 255],
                                         line=dict(width=0)),
                             hovertemplate="mass %{x:.3f}<extra></extra>"), row=i + 1, col=1)
        fig.update_xaxes(range=[0, 1], showticklabels=i == len(palettes) - 1, row=i + 1, col=1)
    fig.update_xaxes(title_text="cumulative mass", row=len(palettes), col=1)
    fig.update_layout(title=title, barmode="stack", height=120 + 85 * len(palettes), hovermode="closest",
                      bargap=0.0)
    return fig


def surface_trace(volume, color, opacity, name) -> go.Mesh3d:
    surface = isosurface(volume, mass=0.6)
    v, f = surface.vertices, surface.faces
    return go.Mesh3d(x=v[:, 0], y=v[:, 1], z=v[:, 2], i=f[:, 0], j=f[:, 1], k=f[:, 2], color=color,
                     opacity=opacity, name=name, showlegend=True, flatshading=False, hoverinfo="name")


def volume_figure(volumes, bary, labels, title) -> go.Figure:
    fig = go.Figure()
    for i, (volume, label) in enumerate(zip(volumes, labels)):
        fig.add_trace(surface_trace(volume, COLORS[[0, 2, 4, 3][i]], 0.3, label))
    if bary is not None:
        fig.add_trace(surface_trace(bary, COLORS[1], 1.0, "barycenter"))
    n = volumes[0].shape[0]
    axis = dict(range=[0, n - 1], title="")
    fig.update_layout(title=title, height=460, scene=dict(xaxis=axis, yaxis=axis, zaxis=axis, aspectmode="cube"),
                      margin=dict(l=0, r=0, t=60, b=0), legend=dict(orientation="h", y=1.0, x=0.0, xanchor="left"))
    return fig


def flows_figure(kind, source, result, which, label) -> go.Figure:
    plan = result.plans[which]
    shape = result.barycenter.shape
    found = flow_paths(plan, shape, top=FLOWS)
    paths, masses = found.paths, found.masses
    if kind == "palettes":  # paths in RGB coordinates
        paths = (paths + 0.5) / shape[0]
    widths = 1.0 + 7.0 * masses / masses.max()
    fig = go.Figure()
    three_d = len(shape) == 3
    colours = paths[:, 0, :] if kind == "palettes" else None
    for i in range(len(masses)):
        p = paths[i]
        color = (f"rgb({colours[i][0] * 255:.0f},{colours[i][1] * 255:.0f},{colours[i][2] * 255:.0f})"
                 if colours is not None else COLORS[0])
        line = dict(color=color, width=widths[i])
        hover = f"mass {masses[i]:.4f}"
        if three_d:
            fig.add_trace(go.Scatter3d(x=p[:, 0], y=p[:, 1], z=p[:, 2], mode="lines", line=line, showlegend=False,
                                       hovertext=hover, hoverinfo="text", opacity=0.8))
        else:
            fig.add_trace(go.Scatter(x=p[:, 1], y=p[:, 0], mode="lines", line=line, showlegend=False,
                                     hovertext=hover, hoverinfo="text", opacity=0.55))
    src = np.unravel_index(np.arange(source.size), shape)
    b = result.barycenter.reshape(-1)
    a = source.reshape(-1)
    scale = (lambda idx: (np.asarray(idx) + 0.5) / shape[0]) if kind == "palettes" else (lambda idx: np.asarray(idx))
    for mass, name, color, symbol in ((a, label, COLORS[0], "circle"), (b, "barycenter", COLORS[1], "diamond")):
        keep = mass > 1e-4 * mass.max()
        size = 3 + 14 * np.sqrt(mass[keep] / mass.max())
        if three_d:
            fig.add_trace(go.Scatter3d(x=scale(src[0][keep]), y=scale(src[1][keep]), z=scale(src[2][keep]),
                                       mode="markers", name=name, marker=dict(size=size / 2, color=color,
                                                                              symbol=symbol, opacity=0.6)))
        else:
            fig.add_trace(go.Scatter(x=src[1][keep], y=src[0][keep], mode="markers", name=name,
                                     marker=dict(size=size, color=color, symbol=symbol, opacity=0.6)))
    title = f"The plan from {label} to the barycenter: its {len(masses)} heaviest flows"
    if three_d:
        names = ("red", "green", "blue") if kind == "palettes" else ("axis 1", "axis 2", "axis 3")
        fig.update_layout(scene=dict(xaxis_title=names[0], yaxis_title=names[1], zaxis_title=names[2],
                                     aspectmode="cube"), margin=dict(l=0, r=0, t=60, b=0))
    else:
        fig.update_xaxes(title="column", range=[-0.5, shape[1] - 0.5], showgrid=False)
        fig.update_yaxes(title="row", autorange="reversed", scaleanchor="x", showgrid=False)
    fig.update_layout(title=dict(text=title + "<br><sup>each unit moves along one axis per stage, so a flow is a "
                                 "staircase</sup>"), height=480, hovermode="closest",
                      legend=dict(orientation="h", y=-0.12, x=0.0, xanchor="left", yanchor="top"))
    return fig


def comparison_figure(kind, result, runs) -> go.Figure:
    shown = [("GETO-LP", result.barycenter)]
    # short names: three images share a third of the page, and longer titles ran into each other
    for key, name in (("pot_lp", "POT LP"), ("convolutional", "conv."), ("sinkhorn", "Sinkhorn")):
        run = runs.get(key)
        if run is not None and run.status == "ok" and len(shown) < 3:
            gap = run.gap_to_exact if abs(run.gap_to_exact) > 1e-9 else 0.0  # no "-0.0 %" from round-off
            shown.append((f"{name}<br>gap {gap:+.1%}", run.barycenter))
    if kind == "volumes":  # the middle slice through each volume
        shown = [(t, b[:, :, b.shape[2] // 2]) for t, b in shown]
        title = "Barycenters by method (middle slice)"
    else:
        title = "Barycenters by method"
    return image_grid([b for _, b in shown], [t for t, _ in shown], title)


def transfer_figure(scenes, seed, bins, result) -> go.Figure:
    images = [cached_image(s, seed) for s in scenes]
    moved = [transfer_palette(image, plan, bins) for image, plan in zip(images, result.plans)]
    fig = make_subplots(rows=2, cols=len(images), subplot_titles=[f"{s}" for s in scenes] +
                        [f"{s}, barycentric palette" for s in scenes], vertical_spacing=0.1, horizontal_spacing=0.02)
    for i, (before, after) in enumerate(zip(images, moved)):
        fig.add_trace(go.Image(z=(before * 255).astype(np.uint8), hoverinfo="skip"), row=1, col=i + 1)
        fig.add_trace(go.Image(z=(after * 255).astype(np.uint8), hoverinfo="skip"), row=2, col=i + 1)
    fig.update_xaxes(showticklabels=False, showgrid=False)
    fig.update_yaxes(showticklabels=False, showgrid=False)
    fig.update_layout(title="Palette transfer onto the images", height=420, margin=dict(t=80), hovermode="closest")
    return fig


if __name__ == "__main__":
    render()
