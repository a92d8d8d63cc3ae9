"""LVQMark: watermarked time series from a local VQ-VAE, and the null drift of local and global re-encoding."""

from __future__ import annotations

import numpy as np
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
from app.ui.tables import static_table
from app.ui.verdicts import page_header
from core.lvqmark.attacks import ATTACK_LABELS, ATTACKS
from core.lvqmark.data import DATASET_LABELS, DATASETS
from core.lvqmark.experiment import detection_run, tokenizer_run
from core.lvqmark.views import VIEW_STRENGTHS, load_view
from core.lvqmark.watermark import THRESHOLD

SYSTEM = BY_KEY["lvqmark"]
LIVE: dict = {}   # the tokenizer and detection panels show by default
ENCODER_LABELS = {"local": "local (L-VQVAE)", "global": "global attention"}


@st.cache_data(show_spinner=False)
def cached_view(dataset: str):
    return load_view(dataset)


def row_index(view, attack: str, strength: float) -> int:
    return next(i for i, (a, s) in enumerate(view.rows) if a == attack and abs(s - strength) < 1e-9)


def z_figure(view, attack: str, strength: float) -> go.Figure:
    i, clean = row_index(view, attack, strength), 0
    fig = make_subplots(1, 2, subplot_titles=[ENCODER_LABELS[e] for e in ("local", "global")], shared_yaxes=True)
    groups = (("z_nowm", clean, "not watermarked, clean", COLORS[5]), ("z_nowm", i, "not watermarked, attacked", COLORS[3]),
              ("z_wm", clean, "watermarked, clean", COLORS[0]), ("z_wm", i, "watermarked, attacked", COLORS[1]))
    for col, enc in enumerate(("local", "global"), start=1):
        for name, row, label, color in groups:
            z = view.get(enc, name)[row]
            fig.add_trace(go.Box(y=z, name=label, marker_color=color, boxpoints="all", jitter=0.4, pointpos=0,
                                 showlegend=col == 1, legendgroup=label, offsetgroup=label), row=1, col=col)
        fig.add_hline(y=THRESHOLD, line=dict(color="#555", dash="dash"), row=1, col=col)
    fig.update_xaxes(showticklabels=False)
    fig.update_yaxes(title_text="empirical z of a chunk (clean-calibrated)", row=1, col=1)
    fig.update_layout(height=480, boxmode="group", margin=dict(t=90), legend=dict(orientation="h", y=-0.08),
                      title=f"z under {ATTACK_LABELS[attack]}, strength {strength:g} (dashed: FPR 1e-3)")
    return fig


def drift_figure(view) -> go.Figure:
    fig = go.Figure()
    for k, attack in enumerate(ATTACKS[1:]):
        idx = [0] + [i for i, (a, _) in enumerate(view.rows) if a == attack]
        x = [0.0] + [view.rows[i][1] for i in idx[1:]]
        for enc, dash in (("local", "solid"), ("global", "dot")):
            d, lo, hi = (view.get(enc, n)[idx] for n in ("drift", "drift_low", "drift_high"))
            fig.add_trace(go.Scatter(x=x, y=d, mode="lines+markers", name=f"{ATTACK_LABELS[attack]}, {enc}",
                                     line=dict(color=COLORS[k], dash=dash),
                                     error_y=dict(type="data", symmetric=False, array=hi - d, arrayminus=d - lo)))
    fig.add_hline(y=0.0, line=dict(color="#888"))
    fig.update_layout(title="Null drift Δμ₀: green fraction of attacked minus clean unwatermarked series (95% CI)",
                      xaxis_title="attack strength", yaxis_title="Δμ₀", height=420)
    return fig


def locality_figure(changed: dict, window: np.ndarray, title: str) -> go.Figure:
    fig = make_subplots(1, 2, subplot_titles=[ENCODER_LABELS[e] for e in changed], shared_yaxes=True)
    for col, (enc, m) in enumerate(changed.items(), start=1):
        z = np.where(m, 2.0, np.where(window, 1.0, 0.0)).T
        fig.add_trace(go.Heatmap(z=z, x=list(range(z.shape[1])), y=list(range(z.shape[0])), zmin=0, zmax=2,
                                 colorscale=[[0, "#f4f4f4"], [0.5, "#cfe3f3"], [1, COLORS[3]]], showscale=False,
                                 hovertemplate="edited step %{x}, token %{y}<extra></extra>", name=enc),
                      row=1, col=col)
        fig.update_xaxes(title_text="edited time step", row=1, col=col)
    fig.update_yaxes(title_text="token", row=1, col=1)
    fig.update_layout(title=title, height=360)
    return fig


def series_figure(view) -> go.Figure:
    fig = go.Figure()
    for name, arr, color in (("a real window", view.arrays["example_real"], "#777"),
                             ("generated, no watermark", view.get("local", "example_clean"), COLORS[5]),
                             ("generated, watermarked (δ = 4)", view.get("local", "example_wm"), COLORS[0])):
        fig.add_trace(go.Scatter(y=arr[:, 0], mode="lines", name=name, line=dict(color=color)))
    fig.update_layout(title="A real and two generated windows (first variable, local system)",
                      xaxis_title="time step", yaxis_title="scaled value", height=320)
    return fig


def numbers(view, attack: str, strength: float) -> None:
    i = row_index(view, attack, strength)
    rows = {"encoder": [], "TPR": [], "FPR": [], "Δμ₀": []}
    for enc in ("local", "global"):
        rows["encoder"].append(ENCODER_LABELS[enc])
        rows["TPR"].append(f"{view.get(enc, 'tpr')[i]:.2f} [{view.get(enc, 'tpr_low')[i]:.2f}, "
                           f"{view.get(enc, 'tpr_high')[i]:.2f}]")
        rows["FPR"].append(f"{view.get(enc, 'fpr')[i]:.2f} [{view.get(enc, 'fpr_low')[i]:.2f}, "
                           f"{view.get(enc, 'fpr_high')[i]:.2f}]")
        rows["Δμ₀"].append(f"{view.get(enc, 'drift')[i]:+.4f}")
    static_table(rows)


def explanation(view, attack: str, strength: float) -> None:
    n_chunks = view.get("local", "z_wm").shape[1]
    st.markdown(
        f"**What you are seeing.** Each point is one detection on a chunk of 100 generated windows "
        f"({n_chunks} chunks per box), scored against the null measured on clean non-watermarked windows. "
        f"The watermark (blue) should stay above the dashed line after the attack (orange); non-watermarked "
        f"series should stay near 0 whether clean (light blue) or attacked (red). A red box that moves away from "
        f"0 is the null drift the paper describes; the table below gives the rates with 95% Wilson intervals.")


def quality_table(view) -> None:
    if not view.quality:
        return
    rows = {"encoder": [], "generation": [], "discriminative": [], "predictive": [], "correlational": []}
    for enc, by in view.quality.items():
        for kind, q in by.items():
            rows["encoder"].append(enc)
            rows["generation"].append(kind)
            for m in ("discriminative", "predictive", "correlational"):
                rows[m].append(round(q[m], 4))
    st.markdown("**Generation quality** (lower is better; test windows against 500 generated ones):")
    st.dataframe(rows, hide_index=True)


def live_tokenizer(dataset: str, seed: int, window: np.ndarray) -> None:
    st.subheader("Train a tokenizer yourself")
    encoder = bound(st.radio, "Encoder", key="encoder", options=["local", "global"], horizontal=True,
                    format_func=ENCODER_LABELS.get)
    run = live_panel(f"lvqmark:tokenizer:{dataset}:{encoder}:{seed}", tokenizer_run,
                     {"dataset": dataset, "encoder": encoder, "seed": int(seed)}, start_label="Train the tokenizer",
                     group="lvqmark-tokenizer")
    if run is not None and run.result is not None and run.state in ("done", "stopped"):
        r = run.result
        st.caption(f"Test reconstruction MSE {r.test_mse:.4f}; idempotence {r.idempotence:.1%}; codebook usage "
                   f"{r.usage[-1]:.0%}.")
        show(locality_figure({encoder: r.changed}, r.window, "Your tokenizer: codes changed by one edit"),
             key="chart-live-locality")
        export_buttons(r, f"lvqmark-tokenizer-{dataset}-{encoder}-seed{seed}", key="tokenizer-export")


def live_detection(dataset: str, attack: str, seed: int) -> None:
    st.subheader("Detect on a fresh seed")
    encoder = bound(st.radio, "System", key="detect_encoder", options=["local", "global"], horizontal=True,
                    format_func=ENCODER_LABELS.get)
    run = live_panel(f"lvqmark:detect:{dataset}:{encoder}:{attack}:{seed}", detection_run,
                     {"dataset": dataset, "encoder": encoder, "attack_name": attack, "seed": int(seed)},
                     start_label="Generate, attack and detect", group="lvqmark-detect")
    if run is not None and run.result is not None and run.state in ("done", "stopped"):
        d = run.result
        st.dataframe({"attack": d.attacks, "strength": d.strengths, "TPR": d.tpr, "FPR": d.fpr, "Δμ₀": d.drift},
                      hide_index=True)
        export_buttons(d, f"lvqmark-detect-{dataset}-{encoder}-{attack}-seed{seed}", key="detect-export")


def render() -> None:
    page_header(SYSTEM)
    c = st.columns([3, 2, 2, 1])
    with c[0]:
        dataset = bound(st.selectbox, "Dataset", key="dataset", options=list(DATASETS), format_func=DATASET_LABELS.get)
    with c[1]:
        attack = bound(st.selectbox, "Attack", key="attack", options=list(ATTACKS[1:]), index=1,
                       format_func=ATTACK_LABELS.get)
    with c[2]:
        strength = bound(st.select_slider, "Strength", key="strength", options=list(VIEW_STRENGTHS), value=0.3)
    with c[3]:
        seed = seed_input(1)
    view = cached_view(dataset)
    if view is None:
        st.error("assets: the shipped view is missing; allowed after `python -m core.lvqmark.ship`")
        return
    left, right = st.columns([2, 1])
    with left:
        show(z_figure(view, attack, float(strength)), key="chart-z")
        numbers(view, attack, float(strength))
    with right:
        explanation(view, attack, float(strength))
    if first_screen():
        return
    show(drift_figure(view), key="chart-drift")
    show(locality_figure({e: view.get(e, "locality_changed") for e in ("local", "global")},
                         view.arrays["locality_window"],
                         "Token locality (red: code changed by editing the step; blue: step in the token's window)"),
         key="chart-locality")
    show(series_figure(view), key="chart-series")
    quality_table(view)
    live_tokenizer(dataset, seed, view.arrays["example_real"])
    live_detection(dataset, attack, seed)
    for _ in details("Details: configuration and shipped numbers"):
        st.json({"dataset": dataset, "attack": attack, "strength": strength, "seed": seed,
                 "shipped": "2000 windows per set, chunks of 100, δ = 4, key 12345, seed 0"})
        export_buttons(view.arrays, f"lvqmark-view-{dataset}", key="view-export")


if __name__ == "__main__":
    render()
