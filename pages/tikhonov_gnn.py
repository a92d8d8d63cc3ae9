"""The Tikhonov GNN layer: inspect the learned node scores q and the response p, or train live.

The first view reads the shipped arrays (``assets/tikhonov_gnn/<dataset>/view.npz``: q, p, R,
accuracies) and imports no torch; torch comes in only with "Train live".
"""

from __future__ import annotations

import numpy as np
import pandas as pd
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
from core.tikhonov_gnn import DATASETS, load_dataset, load_view, recommended_config
from core.tikhonov_gnn.view import SEED as SHIPPED_SEED
from core.tikhonov_gnn.view import layout, load_cross_validation

SYSTEM = BY_KEY["tikhonov_gnn"]
LABELS = {"mutag": "MUTAG (molecules)", "motifs": "Planted motifs (house vs 5-cycle)",
          "planted_feature": "Class in one node's own feature", "sbm_homophilic": "SBM, homophilic (node task)",
          "sbm_heterophilic": "SBM, heterophilic (node task)"}
MODEL_LABELS = {"shipped": "Shipped checkpoint", "live": "Train live"}
LIVE = {"model": MODEL_LABELS["live"]}     # the URL that shows the live panel


@st.cache_resource(show_spinner=False)
def cached_dataset(name: str, seed: int):
    return load_dataset(name, seed=seed)


@st.cache_resource(show_spinner=False)
def cached_view(name: str):
    return load_view(name)


@st.cache_data(show_spinner=False, max_entries=64)
def cached_layout(adjacency_bytes: bytes, n: int, seed: int):
    return layout(np.frombuffer(adjacency_bytes, dtype=float).reshape(n, n), seed)


def controls():
    """Dataset and model on one row, graph and seed below (four columns cut "Train live" off at 1280 px)."""
    c1, c2 = st.columns([1, 1])
    c3, c4 = st.columns([1, 1])
    with c1:
        # Planted motifs first: the one whose explanation can be checked against a ground truth.
        options = ["motifs"] + [d for d in DATASETS if d != "motifs"]
        name = bound(st.selectbox, "Dataset", key="dataset", options=options, format_func=LABELS.get)
    with c2:
        source = bound(st.segmented_control, "Model", key="model", options=list(MODEL_LABELS), default="shipped",
                       format_func=MODEL_LABELS.get,
                       help="The shipped model opens instantly; 'Train live' trains a fresh one here.")
    dataset = cached_dataset(name, SHIPPED_SEED)
    with c3:
        index = bound(st.number_input, "Graph", key="graph", min_value=0, max_value=len(dataset.graphs) - 1, value=0,
                      step=1, help=f"which of the {len(dataset.graphs)} graphs to explain")
    with c4:
        seed = seed_input()
    return name, source, dataset, index, seed


def render() -> None:
    page_header(SYSTEM)
    name, source, dataset, index, seed = controls()

    view = cached_view(name)
    graph = dataset.graphs[int(index)]
    e, accuracy = None, {}
    cv = load_cross_validation(name)
    if view is not None:
        e = view.explanation(dataset, int(index))
        accuracy = {f"{k} (10-fold mean)": v["mean"] for k, v in cv.items()} if cv else \
            {f"{k} (shipped)": v for k, v in view.accuracy.items()}
    if source == "live":
        live, live_accuracy = live_explanation(name, dataset, graph, int(seed), shipped=e is not None)
        e, accuracy = live or e, {**accuracy, **live_accuracy}
    if e is None:
        st.error("No model yet: train one live, or regenerate the shipped ones with "
                 "`python -m core.tikhonov_gnn.ship`.")
        return

    left, right = st.columns([1.15, 1])
    with left:
        pos = view.layout(int(index)) if view is not None else \
            cached_layout(graph.adjacency.astype(float).tobytes(), graph.n_nodes, int(seed))
        show(graph_figure(graph, pos, e.q_normalized, dataset), key="chart-graph")
    with right:
        show(response_figure(e), key="chart-p")
        st.markdown(
            "**What you are seeing.** Left: the graph, each node coloured by its score qᵢ / c (log scale), "
            "with c the mean of p over this graph's spectrum: R fixes q only up to that scale. Where qᵢ is "
            "large against p, node i's own features pass through the layer; where it is small, its "
            "neighbours' replace them. Whether the large scores land on the nodes that carry the label is "
            "measured, not assumed: the verdict on faithful explanations above gives the figures. "
            + ("Ringed nodes are the ground-truth explanation. " if graph.truth is not None else "")
            + f"Right: the learned p(λ) on [0, 2] with this graph's Laplacian eigenvalues marked (only p's "
            f"values there enter R). The layer passes a frequency λ with gain q/(p(λ)+q): here p is **{e.kind}**"
            + (" (smallest near λ = 0: smooth signals pass)." if e.kind == "low-pass" else
               " (smallest near λ = 2: oscillating signals pass)." if e.kind == "high-pass" else ".")
            + (" On this graph q is nearly uniform: the prediction rests on p, not on particular nodes."
               if e.q.max() < 1.05 * e.q.min() else ""))

    if first_screen():
        return
    left, right = st.columns([1, 1])
    with left:
        show(operator_figure(e, graph), key="chart-R")
    with right:
        st.subheader("Accuracy on held-out graphs", divider="gray")
        table = pd.DataFrame([{"model": k, "accuracy": v} for k, v in accuracy.items()])
        st.dataframe(table, hide_index=True, column_config={"accuracy": st.column_config.ProgressColumn(
            "accuracy", min_value=0.0, max_value=1.0, format="%.3f")})
        if accuracy and max(accuracy.values()) - min(accuracy.values()) < SAME_ACCURACY:
            st.caption(no_difference_note(name, accuracy))
        if cv:
            st.caption("10-fold cross-validation (bench/tikhonov_gnn.py, final-epoch accuracy, no selection on test "
                       "folds): " + "; ".join(f"{m} {v['mean']:.3f} ± {v['std']:.3f}" for m, v in cv.items()) + ".")
        else:
            st.caption("Same seeded 80/20 split for the three shipped models (one split: a few points of noise).")
        order = np.argsort(-e.q_normalized)[:8]
        st.markdown("**Highest q / c** (node: q / c): " + ", ".join(f"{i}: {e.q_normalized[i]:.3g}" for i in order))

    for _ in details("Details: configuration, explanation and export"):
        st.json({"dataset": name, "task": dataset.task, "graph": int(index), "nodes": graph.n_nodes,
                 "filter": e.kind, "p monomial coefficients": np.round(e.poly_coeffs, 4).tolist(),
                 "p / c on the spectrum": np.round(e.p_spectrum, 4).tolist(),
                 "config": recommended_config(name).to_dict()})
        export_buttons(e, f"tikhonov_gnn-{name}-graph{int(index)}", key="explanation-export")


SAME_ACCURACY = 0.03   # accuracies closer than this do not tell the models apart on a held-out split


def no_difference_note(name: str, accuracy: dict) -> str:
    """Say so when accuracy does not separate the models here, and name the shipped dataset where it most does."""
    spreads = {}
    for other in DATASETS:
        view = cached_view(other)
        if other != name and view is not None and view.accuracy:
            spreads[other] = max(view.accuracy.values()) - min(view.accuracy.values())
    spread = max(accuracy.values()) - min(accuracy.values())
    text = (f"Accuracy does not tell the models apart on this dataset (all within {spread:.3f}): here the "
            "explanation, not the score, is the point.")
    if spreads:
        best = max(spreads, key=spreads.get)
        text += f" They differ most on {LABELS.get(best, best)} (spread {spreads[best]:.3f} in the shipped split)."
    return text


def live_explanation(name, dataset, graph, seed: int, shipped: bool):
    """The live panel; once its run has a model (finished or stopped): its explanation and accuracy."""
    from core.tikhonov_gnn.explain import explain    # torch: only once the visitor trains
    from core.tikhonov_gnn.training import train

    config = recommended_config(name)
    run = live_panel(f"tikhonov_gnn:{name}:{seed}", train, {"config": config, "dataset": dataset, "seed": seed},
                     start_label="Train the Tikhonov model")
    result = run.result if run is not None else None
    if result is None or result.epoch.size == 0:
        if shipped:
            st.caption("Showing the shipped model until the live run finishes.")
        return None, {}
    label = "tikhonov (live)"
    if result.stopped:
        last = int(result.epoch[-1])
        st.caption(f"Stopped after epoch {last} of {config.epochs}: showing the partly trained model.")
        label = f"tikhonov (live, stopped at epoch {last})"
    return explain(result.model, graph), {label: result.final_test_accuracy}


def graph_figure(graph, pos, q, dataset) -> go.Figure:
    fig = go.Figure()
    u, v = np.nonzero(np.triu(graph.adjacency))
    xs = np.column_stack([pos[u, 0], pos[v, 0], np.full(u.size, np.nan)]).ravel()
    ys = np.column_stack([pos[u, 1], pos[v, 1], np.full(u.size, np.nan)]).ravel()
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color="#BBBBBB", width=1.2), hoverinfo="skip",
                             showlegend=False))
    truth = graph.truth if graph.truth is not None else np.zeros(graph.n_nodes, dtype=bool)
    labels = graph.label if dataset.task == "node" else None
    hover = [f"node {i}<br>q/c = {q[i]:.3g}" + (f"<br>class {labels[i]}" if labels is not None else "")
             + ("<br>ground truth" if truth[i] else "") for i in range(graph.n_nodes)]
    fig.add_trace(go.Scatter(
        x=pos[:, 0], y=pos[:, 1], mode="markers", hovertext=hover, hoverinfo="text", showlegend=False,
        marker=dict(size=np.where(truth, 17, 13), color=np.log10(q), colorscale="Viridis", **colour_range(q),
                    colorbar=dict(title="log10 q/c", thickness=12),
                    symbol=[("square" if labels is not None and labels[i] else "circle") for i in range(graph.n_nodes)],
                    line=dict(color=np.where(truth, "#D55E00", "#FFFFFF"), width=np.where(truth, 3.5, 1)))))
    title = f"Graph {graph.n_nodes} nodes, label: {dataset.class_names[graph.label]}" if dataset.task == "graph" \
        else "Graph (circles: block 0, squares: block 1)"
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False, scaleanchor="x")
    fig.update_layout(title=title, height=460, hovermode="closest")
    return fig


def colour_range(q) -> dict:
    """At least one decade of colour, so a nearly uniform q reads as one colour, not as noise."""
    lo, hi = float(np.log10(q.min())), float(np.log10(q.max()))
    mid = (lo + hi) / 2
    return dict(cmin=min(lo, mid - 0.5), cmax=max(hi, mid + 0.5))


def response_figure(e) -> go.Figure:
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=e.lam, y=e.p, mode="lines", name="p(λ)", line=dict(color=COLORS[0], width=3)))
    top = float(e.p.max()) * 1.05 + 1e-9
    fig.add_trace(go.Scatter(x=np.repeat(e.eigenvalues, 3), y=np.tile([0, top * 0.08, np.nan], e.eigenvalues.size),
                             mode="lines", name="eigenvalues of L", line=dict(color=COLORS[3], width=1.5)))
    fig.update_layout(title=f"Learned response p(λ): {e.kind}", xaxis_title="λ (graph frequency)",
                      yaxis_title="p(λ)", height=360, hovermode="x", yaxis=dict(range=[0, top]))
    return fig


def operator_figure(e, graph) -> go.Figure:
    order = np.argsort(~graph.truth) if graph.truth is not None else np.arange(graph.n_nodes)
    R = e.operator[np.ix_(order, order)]
    fig = go.Figure(go.Heatmap(z=R, colorscale="Blues", colorbar=dict(title="R_ij", thickness=12),
                               x=[str(i) for i in order], y=[str(i) for i in order]))
    fig.update_yaxes(autorange="reversed", title="output node i")
    fig.update_xaxes(title="input node j")
    note = " (ground-truth nodes first)" if graph.truth is not None else ""
    fig.update_layout(title=f"Propagation R = (p(L)+Q)⁻¹Q{note}", height=460)
    return fig


if __name__ == "__main__":
    render()
