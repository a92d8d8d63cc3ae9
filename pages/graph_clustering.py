"""GFM-UC: pretrain a clustering network on a source graph, adapt it label-free to a target, compare."""

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
from core.graph_clustering.data import DOMAIN_LABELS, DOMAIN_NOTES, DOMAINS
from core.graph_clustering.experiment import METHOD_LABELS, transfer_run
from core.graph_clustering.gfm import AdaptConfig, PretrainConfig
from core.graph_clustering.ship import SEED as SHIPPED_SEED
from core.graph_clustering.ship import SOURCE as SHIPPED_SOURCE
from core.graph_clustering.ship import TARGET as SHIPPED_TARGET
from core.graph_clustering.ship import shipped_run

SYSTEM = BY_KEY["graph_clustering"]
LIVE: dict = {}   # the transfer panel shows by default
SOURCES = ("csbm_source", "csbm_easy", "lfr", "karate", "er_control")
TARGETS = ("csbm_weak_features", "csbm_shifted", "lfr", "csbm_easy", "karate", "er_control", "csbm_source")


def cached_run():
    return shipped(shipped_run)


def palette(labels: np.ndarray) -> list[str]:
    return [COLORS[int(v) % len(COLORS)] for v in labels]


def scatter(fig, xy, labels, row, col, name, prototypes=None) -> None:
    fig.add_trace(go.Scatter(x=xy[:, 0], y=xy[:, 1], mode="markers", name=name, showlegend=False,
                             marker=dict(color=palette(labels), size=6, line=dict(width=0.3, color="#333"))),
                  row=row, col=col)
    if prototypes is not None and len(prototypes):
        fig.add_trace(go.Scatter(x=prototypes[:, 0], y=prototypes[:, 1], mode="markers", name="prototypes",
                                 showlegend=col == 2, marker=dict(symbol="star", size=16, color="#000",
                                                                  line=dict(width=1, color="#fff"))),
                      row=row, col=col)


def embedding_figure(run) -> go.Figure:
    """Source clusters, target clusters (named after the truth they match), target truth, in 2-D."""
    fig = make_subplots(rows=1, cols=3, horizontal_spacing=0.06, subplot_titles=(
        "source: clusters", "target: clusters", "target: truth"))
    scatter(fig, run.source_xy, run.source_matched, 1, 1, "source",
            run.source_prototypes_xy)
    scatter(fig, run.gfm_xy, run.gfm_matched, 1, 2, "target clusters",
            run.gfm_prototypes_xy)
    scatter(fig, run.gfm_xy, run.target_truth, 1, 3, "target truth")
    fig.update_layout(height=430, margin=dict(t=40))
    fig.update_xaxes(showticklabels=False)
    fig.update_yaxes(showticklabels=False)
    return fig


def scores_figure(run) -> go.Figure:
    labels = [METHOD_LABELS[m] for m in run.methods]
    fig = go.Figure()
    for values, name, color in ((run.nmi, "NMI", COLORS[0]), (run.acc, "ACC", COLORS[1]), (run.ari, "ARI", COLORS[2])):
        fig.add_trace(go.Bar(y=labels, x=values, name=name, orientation="h", marker_color=color))
    fig.update_layout(title=f"Target {run.target}: scores of every method", barmode="group", height=420,
                      xaxis=dict(range=[min(0.0, float(np.nanmin(run.ari)) - 0.05), 1.02]),
                      yaxis=dict(autorange="reversed"), margin=dict(l=230))
    return fig


def trace_figure(run) -> go.Figure:
    fig = go.Figure()
    steps = np.arange(1, len(run.gfm_nmi_trace) + 1)
    fig.add_trace(go.Scatter(x=steps, y=run.gfm_nmi_trace, name="GFM-UC fine-tune", line=dict(color=COLORS[0])))
    fig.add_trace(go.Scatter(x=steps, y=run.scratch_nmi_trace, name="from scratch", line=dict(color=COLORS[3])))
    fig.update_layout(title="Target NMI per step (no label used)",
                      xaxis_title="target step", yaxis_title="NMI", height=330)
    return fig


def controls():
    c = st.columns([4, 4, 2, 2, 2])
    with c[0]:
        source = bound(st.selectbox, "Source domain (pretraining)", key="source", options=list(SOURCES),
                       format_func=DOMAIN_LABELS.get)
    with c[1]:
        target = bound(st.selectbox, "Target domain (clustered)", key="target", options=list(TARGETS),
                       format_func=DOMAIN_LABELS.get)
    with c[2]:
        alignment = bound(st.selectbox, "Alignment", key="align", options=["mmd", "coral", "none"],
                          format_func={"mmd": "MMD", "coral": "CORAL", "none": "none"}.get)
    with c[3]:
        steps = bound(st.number_input, "Steps", key="steps", min_value=1, max_value=300, value=60, step=10,
                      help="Label-free fine-tune steps on the target (also the from-scratch budget)")
    with c[4]:
        seed = seed_input()
    return source, target, alignment, int(steps), seed


def what_you_see(run) -> None:
    i = {m: k for k, m in enumerate(run.methods)}
    best = run.methods[int(np.nanargmax(run.nmi))] if np.isfinite(run.nmi).any() else None
    st.markdown(
        f"**What you are seeing.** The network was pretrained without labels on *{DOMAIN_LABELS[run.source]}* "
        f"({DOMAIN_NOTES[run.source]}) "
        f"(left: its clusters and the learned prototypes, ★), then fine-tuned for "
        f"{len(run.gfm_nmi_trace)} label-free steps on *{DOMAIN_LABELS[run.target]}* ({DOMAIN_NOTES[run.target]}). Middle: the target's clusters, "
        f"coloured by the community each is matched to; right: the planted communities, which no method sees. "
        f"GFM-UC (table below) reaches NMI {run.nmi[i['gfm_uc']]:.3f} against {run.nmi[i['scratch']]:.3f} for the same network "
        f"trained from scratch with the same budget; the best method here is "
        f"{METHOD_LABELS.get(best, '–')}.")
    st.caption(f"Source clustering after pretraining: ACC {run.source_scores[0]:.3f}, NMI {run.source_scores[1]:.3f}, "
               f"ARI {run.source_scores[2]:.3f}.")


def render() -> None:
    page_header(SYSTEM)
    source, target, alignment, steps, seed = controls()
    try:
        adapt_config = AdaptConfig(steps=steps, alignment=alignment)
    except ValueError as err:
        st.error(str(err))
        return
    shipped = (source, target, adapt_config, seed) == (SHIPPED_SOURCE, SHIPPED_TARGET, AdaptConfig(), SHIPPED_SEED)
    run, origin = cached_run(), f"the shipped run (seed {SHIPPED_SEED}, defaults)"
    st.markdown("**Pretrain on the source, adapt to the target, and run from-scratch and the four baselines** "
                "(with the defaults: about 25 s of work, longer on a busy machine).")
    live = live_panel(f"graph_clustering:transfer:{source}:{target}:{adapt_config.to_dict()}:{seed}", transfer_run,
                      {"source": source, "target": target, "pretrain_config": PretrainConfig(),
                       "adapt_config": adapt_config, "seed": int(seed)},
                      start_label="Pretrain and adapt", group="graph_clustering-transfer", poll_seconds=2.0)
    if live is not None and live.result is not None and live.state == "done":
        run, origin = live.result, "your run"
    elif not shipped:
        st.info("These settings differ from the shipped run: press **Pretrain and adapt** to see them. "
                "Below: the shipped run.")
    if run is None:
        st.error("The shipped run is missing: build it with `python -m core.graph_clustering.ship`.")
        return
    st.caption(f"Showing {origin}: source {run.source}, target {run.target}.")
    st.markdown("**Ego-subgraph embeddings** (first two principal components; ★ the prototypes)")
    show(embedding_figure(run), key="chart-embeddings")
    if first_screen():
        return
    left, right = st.columns([3, 2])
    with left:
        show(scores_figure(run), key="chart-scores")
        show(trace_figure(run), key="chart-trace")
    with right:
        what_you_see(run)
    st.dataframe({"method": [METHOD_LABELS[m] for m in run.methods], "ACC": np.round(run.acc, 3),
                  "NMI": np.round(run.nmi, 3), "ARI": np.round(run.ari, 3)}, hide_index=True)
    for _ in details("Details: configuration"):
        st.json({"source": source, "target": target, "pretrain": PretrainConfig().to_dict(),
                 "adapt": adapt_config.to_dict(), "seed": seed, "domains": sorted(DOMAINS)})
        export_buttons(run, f"graph_clustering-{run.source}-{run.target}-seed{run.seed}", key="run-export")


if __name__ == "__main__":
    render()
