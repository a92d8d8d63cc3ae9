"""Hebb-RNN: the ordinal geometry, the Hebbian trace, the predictive module's surprise, recall and transfer."""

from __future__ import annotations

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
from app.ui.verdicts import page_header
from core.hebbian_memory.ship import shipped_summary, shipped_view
from core.hebbian_memory.transfer import TransferConfig, transfer_run

SYSTEM = BY_KEY["hebbian_memory"]
LIVE: dict = {}   # the transfer panel shows by default
GEOMETRIES = {"plastic": "Hebb-RNN, explicit chunk cues", "untrained": "Untrained Hebb-RNN (control)",
              "plastic_predicted": "Hebb-RNN, predictive-module cues"}
THRESHOLDS = {"cos_axes": 0.3, "top2": 0.7, "ccgp": 0.7}


def cached_view():
    return shipped(shipped_view)


def cached_summary():
    return shipped(shipped_summary)


def geometry_figure(view: dict, name: str, dims: int) -> go.Figure:
    """The condition means in PCA space, joined along positions (within a chunk) and along chunks."""
    i = list(view["geom_names"]).index(name)
    xyz, ex = view["geom_coords"][i], view["geom_explained"][i]
    C = J = int(round(np.sqrt(len(xyz))))
    fig = go.Figure()
    grid = xyz.reshape(C, J, 3)
    for c in range(C):
        kw = dict(mode="lines+markers+text", name=f"chunk {c + 1}", text=[f"{c + 1}.{j + 1}" for j in range(J)],
                  line=dict(color=COLORS[c], width=3), marker=dict(size=7), textposition="top center")
        if dims == 3:
            fig.add_trace(go.Scatter3d(x=grid[c, :, 0], y=grid[c, :, 1], z=grid[c, :, 2], **kw))
        else:
            fig.add_trace(go.Scatter(x=grid[c, :, 0], y=grid[c, :, 1], **kw))
    for j in range(J):
        kw = dict(mode="lines", line=dict(color="#999", width=1, dash="dot"), showlegend=j == 0,
                  name="same position")
        if dims == 3:
            fig.add_trace(go.Scatter3d(x=grid[:, j, 0], y=grid[:, j, 1], z=grid[:, j, 2], **kw))
        else:
            fig.add_trace(go.Scatter(x=grid[:, j, 0], y=grid[:, j, 1], **kw))
    labels = [f"PC{k + 1} ({ex[k]:.0%})" for k in range(3)]
    fig.update_layout(title="Condition means (chunk.position) of the encoding states", height=520,
                      hovermode="closest")
    if dims == 3:
        fig.update_layout(scene=dict(xaxis_title=labels[0], yaxis_title=labels[1], zaxis_title=labels[2]))
    else:
        fig.update_layout(xaxis_title=labels[0], yaxis_title=labels[1])
    return fig


def trace_figure(view: dict, step: int) -> go.Figure:
    trace = view["trace"][step].astype(float)
    lim = float(np.abs(view["trace"]).max()) or 1.0
    units = [str(u) for u in view["trace_units"]]
    fig = go.Figure(go.Heatmap(z=trace, x=units, y=units, zmin=-lim, zmax=lim, colorscale="RdBu",
                               colorbar=dict(title="H")))
    kind = ("item shown", "delay", "probe cue", "response")[int(view["trace_input_kind"][step])]
    fig.update_layout(title=f"Trace H, step {step + 1} ({kind})", xaxis_title="pre-synaptic unit",
                      yaxis_title="post-synaptic unit", height=420, hovermode="closest")
    return fig


def surprise_figure(view: dict, threshold: float) -> go.Figure:
    t = np.arange(1, len(view["surprise"]) + 1)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=t, y=view["surprise"], mode="lines+markers", name="trained predictor",
                             line=dict(color=COLORS[0])))
    fig.add_trace(go.Scatter(x=t, y=view["surprise_untrained"], mode="lines", name="untrained predictor (control)",
                             line=dict(color=COLORS[3], dash="dash")))
    starts = t[view["surprise_truth"] > 0]
    fig.add_trace(go.Scatter(x=starts, y=np.zeros(len(starts)), mode="markers", name="true word starts",
                             marker=dict(symbol="triangle-up", size=11, color=COLORS[2])))
    found = t[view["surprise_detected"] > 0]
    fig.add_trace(go.Scatter(x=found, y=view["surprise"][found - 1], mode="markers", name="detected boundaries",
                             marker=dict(symbol="circle-open", size=14, color=COLORS[1], line=dict(width=2))))
    fig.add_hline(y=threshold, line=dict(color="#888", dash="dot"))
    fig.update_layout(title="Surprise over six words", xaxis_title="syllable",
                      yaxis_title="−log p(syllable | previous)", height=420)
    return fig


def recall_figure(summary: dict) -> go.Figure:
    names = ["plastic", "nonplastic", "lstm"]
    acc = [summary["recall"][n]["accuracy"] for n in names]
    chance = summary["recall"]["plastic"]["chance"]
    short = {"plastic": "Hebb-RNN", "nonplastic": "α = 0 RNN", "lstm": "LSTM"}
    fig = go.Figure(go.Bar(x=[short[n] for n in names], y=acc, marker_color=[COLORS[0], COLORS[3], COLORS[1]],
                           text=[f"{a:.2f}" for a in acc], textposition="outside", name="recall"))
    fig.add_hline(y=chance, line=dict(color="#555", dash="dash"), annotation_text="chance",
                  annotation_position="bottom right")
    fig.add_hline(y=chance + 0.1, line=dict(color="#aaa", dash="dot"), annotation_text="chance + 0.1",
                  annotation_position="top left")
    fig.update_layout(title="Recall of novel bindings", yaxis_title="accuracy on fresh episodes",
                      yaxis_range=[0, 1.1], height=380)
    return fig


def transfer_figure(t) -> go.Figure:
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=t.steps, y=t.scaffold, mode="lines+markers", name="from the shipped scaffold",
                             line=dict(color=COLORS[0])))
    fig.add_trace(go.Scatter(x=t.steps, y=t.scratch, mode="lines+markers", name="from scratch",
                             line=dict(color=COLORS[3])))
    fig.add_hline(y=t.threshold, line=dict(color="#888", dash="dot"))
    fig.update_layout(title="Learning successor recall", xaxis_title="training step",
                      yaxis_title="training accuracy", yaxis_range=[0, 1.05], height=380)
    return fig


def metrics_text(summary: dict, name: str) -> str:
    g = summary["geometry"][name]
    ok = {"cos": g["cos_axes"] < THRESHOLDS["cos_axes"], "top2": g["top2"] > THRESHOLDS["top2"],
          "ccgp": min(g["ccgp_position"], g["ccgp_chunk"]) > THRESHOLDS["ccgp"]}
    mark = {True: "meets", False: "fails"}
    return (f"- |cos(chunk axis, position axis)| = **{g['cos_axes']:.2f}** ({mark[ok['cos']]} < 0.3)\n"
            f"- top-2 PCs hold **{g['top2']:.0%}** of the mean grid's variance ({mark[ok['top2']]} > 70 %)\n"
            f"- CCGP: position across chunks **{g['ccgp_position']:.2f}** (chance {g['chance_position']:.2f}), "
            f"chunk across positions **{g['ccgp_chunk']:.2f}** (chance {g['chance_chunk']:.2f}) "
            f"({mark[ok['ccgp']]} > 0.7)")


def geometry_section(view: dict, summary: dict) -> None:
    c = st.columns([2, 1, 1])
    with c[0]:
        name = bound(st.selectbox, "Network", key="network", options=list(GEOMETRIES), format_func=GEOMETRIES.get)
    with c[1]:
        dims = bound(st.radio, "PCA view", key="view", options=["2-D", "3-D"], horizontal=True)
    left, right = st.columns([2, 1])
    with left:
        st.caption(f"Showing the shipped {GEOMETRIES[name][0].lower()}{GEOMETRIES[name][1:]}.")
        show(geometry_figure(view, name, 3 if dims == "3-D" else 2), key="chart-geometry")
    with right:
        st.markdown("**What you are seeing.** Each point is the mean hidden state (over 200 fresh episodes of "
                    "novel items) at the step the item of rank *chunk.position* is shown; coloured lines join the "
                    "positions of one chunk, dotted lines the same position across chunks. The paper's claim is a "
                    "grid: one axis for the chunk, an orthogonal one for the position. The shipped network "
                    f"(seed {summary['seed']}, {summary['steps']} meta-training steps):")
        st.markdown(metrics_text(summary, name))


def trace_section(view: dict, summary: dict) -> None:
    left, right = st.columns(2)
    with left:
        steps = len(view["trace"])
        step = bound(st.slider, "Step of the episode", key="step", min_value=1, max_value=steps,
                     value=9, step=1)
        show(trace_figure(view, int(step) - 1), key="chart-trace")
        st.caption(f"The {view['trace'].shape[1]} units whose trace varies most, one episode: the trace builds up "
                   "while items are shown (post × pre co-activity, gated by the neuromodulator η) and is read "
                   "by the probes.")
    with right:
        st.write("")
        show(surprise_figure(view, summary["threshold"]), key="chart-surprise")
        b = summary["boundaries"]
        st.caption(f"Boundary F1 of the trained predictor {b['trained']['f1']:.2f} (untrained control "
                   f"{b['untrained']['f1']:.2f}); its boundaries are the only chunk signal of the "
                   "predictive-module network.")


def transfer_section(summary: dict) -> None:
    st.subheader("Transfer: a new task from the pre-learned scaffold")
    c = st.columns([1, 1, 2])
    with c[0]:
        steps = bound(st.number_input, "Steps per arm", key="steps", min_value=10, max_value=600, value=100,
                      step=10)
    with c[1]:
        seed = seed_input()
    try:
        config = TransferConfig(steps=int(steps))
    except ValueError as err:
        st.error(str(err))
        return
    st.caption("Both arms learn successor recall (probe rank r, answer the item at rank r + 1) on the same "
               "episodes: one fine-tunes the shipped meta-trained Hebb-RNN, one starts from scratch.")
    run = live_panel(f"hebbian_memory:transfer:{config.to_dict()}:{seed}", transfer_run,
                     {"config": config, "seed": int(seed)}, start_label="Run transfer", group="hebbian_memory-transfer")
    if run is not None and run.result is not None and run.state in ("done", "stopped"):
        t = run.result
        show(transfer_figure(t), key="chart-transfer")
        st.markdown(f"Steps to {t.threshold:.0%} accuracy: scaffold **{t.steps_to_threshold_scaffold:g}**, "
                    f"scratch **{t.steps_to_threshold_scratch:g}** (nan: not reached); mean accuracy "
                    f"{t.auc_scaffold:.2f} against {t.auc_scratch:.2f}.")
        export_buttons(t, f"hebbian_memory-transfer-seed{seed}", key="transfer-export")


def render() -> None:
    page_header(SYSTEM)
    view, summary = cached_view(), cached_summary()
    if view is None or summary is None:
        st.error("The shipped assets are missing: run `python -m core.hebbian_memory.ship`.")
        return
    geometry_section(view, summary)
    if first_screen():
        return
    left, right = st.columns([1, 1])
    with left:
        show(recall_figure(summary), key="chart-recall")
    with right:
        st.markdown("**Recall.** Each episode shows nine novel random items in three chunks; a probe names a rank "
                    "as (chunk, position) and the network must produce that item. Only a binding made within the "
                    "episode can do it: the Hebbian trace. The α = 0 network is the same architecture without "
                    "plasticity; the LSTM keeps items in its state.")
        c = st.columns(3)
        for col, (name, label) in zip(c, (("plastic", "Hebb-RNN"), ("nonplastic", "α = 0 RNN"), ("lstm", "LSTM"))):
            col.metric(label, f"{summary['recall'][name]['accuracy']:.2f}",
                       help=f"recall on 512 fresh episodes; chance {summary['recall'][name]['chance']:.2f}")
    trace_section(view, summary)
    transfer_section(summary)
    for _ in details("Details: the shipped networks' figures"):
        st.json(summary["geometry"] | {"boundaries": summary["boundaries"]})
        export_buttons(summary, "hebbian_memory-summary", key="summary-export")


if __name__ == "__main__":
    render()
