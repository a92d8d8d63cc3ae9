"""Looped reasoning LMs: watch the block settle into a cycle of fixed points, live or from a shipped model."""

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
from app.ui.warmup import import_page
from core.looped_lm.config import DESIGNS, INJECTIONS, LIVE_POINTER, NORMS, SAMPLE_TEXT, TASKS, LoopedConfig
from core.looped_lm.view import (HOP_DONE, MAX_LOOPS, design_study, load_hop_stages, load_stage_view, load_view,
                                 shipped_metadata, shipped_radius, train_and_view)

SYSTEM = BY_KEY["looped_lm"]
SOURCES = {"stable": "Shipped: stable (concat, sandwich)", "unstable": "Shipped: unstable (additive, pre-norm)",
           "live": "Train live"}
# The URL that shows the live training panel (tests/pages/test_live_stop.py): a control with format_func
# carries its label in the URL.
LIVE = {"model": SOURCES["live"]}
# Live work needs torch: imported under the shell's import lock (never racing its warm-up thread), and
# only once the visitor asks for it; the first view reads shipped arrays.
TRAINING_MODULES = ("core.looped_lm.training", "core.looped_lm.pretrained")
HF_MODULES = ("core.looped_lm.hf_stages",)


def render() -> None:
    page_header(SYSTEM)
    source, loops, seed = controls()
    chosen = chosen_view(source, loops, seed)
    if chosen is None:
        return
    view, stages, accuracy, radius = chosen
    metrics_row(view, accuracy, radius)
    cycle_section(view)
    if first_screen():
        return
    stages_section(stages)
    with st.expander("Stages of inference in your own causal LM (optional, a local Hugging Face model)"):
        own_model_stages()
    st.subheader("Designs", divider="gray")
    st.dataframe(design_table(), hide_index=True)
    design_study_section()
    scaling_section()
    hop_stages_section()
    details_section(view, source)


def controls() -> tuple:
    """The model source, the loops to run and the seed, bound to the URL."""
    # The model on a row of its own: beside the sliders its three long options ran off a 1280 px screen.
    source = bound(st.segmented_control, "Model", key="model", options=list(SOURCES), default="stable",
                   format_func=SOURCES.get)
    c2, c3 = st.columns([3, 1])
    with c2:
        loops = bound(st.slider, "Loops to run", key="loops", min_value=4, max_value=MAX_LOOPS, value=40, step=1,
                      help="The shipped models were trained with about 6 loops; more is extrapolation.")
    with c3:
        seed = seed_input()
    return source, loops, seed


def chosen_view(source: str, loops: int, seed) -> tuple | None:
    """(view, stages, accuracy by loops, spectral radius) of the shipped design or the live run; None until a run ends."""
    if source == "live":
        trained = live_training(int(seed))
        if trained is None:
            return None
        return trained.loops.upto(loops), trained.stages, trained.train.accuracy, None
    accuracy = {int(k): v for k, v in shipped_metadata(source)["accuracy_by_loops"].items()}
    return load_view(source).upto(loops), load_stage_view(source), accuracy, shipped_radius(source)


def metrics_row(view, accuracy, radius) -> None:
    delta, tv = view.delta, view.attention_change
    last = min(31, delta.shape[0] - 1)
    m = st.columns(5)
    m[0].metric(f"Worst layer δ at loop {last + 1}", f"{delta[last].max():.1e}")
    m[1].metric("Fixed-point separation", f"{view.separation[-1]:.3f}", help="> 0.05: distinct points, a cycle")
    m[2].metric(f"Attention change at loop {last + 1}", f"{tv[last].mean():.1e}")
    m[3].metric("Accuracy at 32 loops", f"{accuracy[32]:.2f}" if 32 in accuracy else "not measured",
                help="trained with about 6 loops: 32 is extrapolation")
    m[4].metric("Cycle spectral radius ρ(J)", f"{radius:.3f}" if radius is not None else "not measured",
                help=f"Largest |eigenvalue| of the Jacobian of one full loop at the state after {MAX_LOOPS} loops "
                     "(Arnoldi on Jacobian-vector products); below 1 the cycle attracts")


def cycle_section(view) -> None:
    """The trajectory, the residuals and the attention, loop by loop."""
    left, right = st.columns([1.2, 1])
    with left:
        upto = bound(st.slider, "Show loops up to", key="upto", min_value=1, max_value=view.num_loops,
                     value=min(12, view.num_loops))
        show(trajectory_figure(view, upto), key="chart-trajectory")
    with right:
        show(delta_figure(view.delta), key="chart-delta")
        st.markdown(
            "**What you are seeing.** Left: the state of the answer token after each layer of the block, loop "
            "after loop, projected on its first three principal components; one colour per layer. A stable "
            "design spirals into a cycle with one point per layer. Right: the relative change δ of each "
            "layer's state from one loop to the next (log scale): it falls geometrically when the layer "
            "reaches its fixed point, and stalls when it does not.")
    left, right = st.columns([1, 1.2])
    with left:
        show(attention_change_figure(view.attention_change), key="chart-tv")
    with right:
        show(attention_maps_figure(view), key="chart-attn")


def stages_section(stages) -> None:
    if stages is None:   # the shipped feedforward model knows the default task only
        st.caption("The stage comparison needs a feedforward model of the same task; one ships for the default "
                   "task (modular_chain) only.")
        return
    show(stage_figure(stages), key="chart-stages")
    st.markdown(
        "**Stages of inference.** Left: the logit-lens entropy of the answer read out after every layer, "
        "along effective depth (loop × block layer; 1.0 = the trained depth of about 6 loops), for this "
        "model and for a feedforward model of matching depth trained on the same task. The looped curve "
        "repeats the same short profile every loop. Right: linear CKA between each feedforward layer and "
        "each looped state; the repeating columns show which feedforward stage each block layer plays. This "
        "task is solved after one loop, so iteration adds nothing here: the stages where loops are needed "
        "are below, on pointer chasing.")


def scaling_section() -> None:
    st.subheader("Test-time scaling", divider="gray")
    show(scaling_figure(), key="chart-scaling")
    st.markdown(
        "**More loops, more hops.** A one-layer block (stable design) trained on pointer chasing: a permutation "
        "of 8 nodes is written as its table, then a start node; position *k* must name the node *k* hops "
        "away. Left: accuracy of every hop after each number of loops; one loop solves the first two hops, "
        "each further loop reaches deeper hops, and the answers then hold far beyond the ~8 loops seen in "
        "training (the block has reached its fixed point). Right: accuracy at the answer position against "
        "loops for every shipped model on its own task; the two designs solve modular chain in one loop.")


def hop_stages_section() -> None:
    st.subheader("Stages of inference where loops are needed", divider="gray")
    show(hop_stage_figure(), key="chart-hop-stages")
    hops, ff = load_hop_stages("pointer"), load_hop_stages("untrained")
    st.markdown(
        "**A hop per loop.** The pointer-chasing block (one layer) against a feedforward model of matching depth "
        "(8 distinct layers) trained on the same task. Left: the coda lens after each loop (the coda layer and "
        "the unembedding read the state as if the loop were the last), accuracy at each hop's position; "
        "middle: the same logit lens after each feedforward layer. Right: hops read right in order "
        f"(≥ {HOP_DONE:.0%} of the batch) after each loop and each layer, and for an untrained block of the same "
        f"design. Loop by loop the block reads {', '.join(map(str, hops.hops_done[:5]))} hops: every loop runs the "
        "same stage again on what the last one resolved, and the feedforward model spreads the same work over its "
        f"layers ({', '.join(map(str, hops.feedforward_hops_done))}); the untrained block reads "
        f"{', '.join(map(str, ff.hops_done[:5]))}. "
        + ("Each loop adds more than one hop, as pointer doubling would (compose the table with itself), rather "
           "than one hop per loop. " if np.diff(np.concatenate([[0], hops.hops_done[:3]])).max() > 1 else "")
        + "Stage taxonomy: the task's own (hops resolved per depth), because a one-layer block has no room for the "
        "four stages of feedforward LMs inside a loop.")
    show(hop_detail_figure(), key="chart-hop-detail")
    st.caption("Left: linear CKA between the states at the hop positions after each feedforward layer and after "
               "each loop; the best match moves deeper loop after loop. Right: matrix entropy (normalised "
               "spectral entropy of the batch's states) at the answer position, per loop and per feedforward layer.")


def details_section(view, source: str) -> None:
    for _ in details("Details: the view per loop, and its export"):
        st.caption(f"Probe: 64 fresh samples of the task, seed 123, {view.num_loops} loops; δ and the attention "
                   "change are read from each loop to the next.")
        st.dataframe(view.to_frame(), hide_index=True, height=240)
        export_buttons(view, f"looped_lm_{source}_{view.num_loops}_loops", key="export-view")


def live_training(seed: int):
    """The live panel's controls and run; the finished run's TrainedView, or None while there is none to draw."""
    d0, d1, d2, d3 = st.columns(4)
    task_name = bound(d0.selectbox, "Task", key="task", options=list(TASKS),
                      index=TASKS.index(LoopedConfig().task),
                      help="modular_chain (default, 3 terms mod 5) trains in about 35 s and is solved in one "
                           "loop; pointer_chasing here is 5 nodes and 3 hops, every hop supervised (about "
                           "a minute, needs a second loop); parity and variable binding need far more "
                           "steps than a live run gives them", on_change=_block_for_task)
    pointer = task_name == "pointer_chasing"
    block = bound(d1.selectbox, "Block size B", key="block", options=[1, 2, 4], index=0 if pointer else 1)
    injection = bound(d2.selectbox, "Input injection", key="injection", options=list(INJECTIONS))
    norm = bound(d3.selectbox, "Normalisation", key="norm", options=list(NORMS))
    preset = {**LIVE_POINTER, "block": block} if pointer else {"task": task_name, "block": block}
    config = LoopedConfig(**preset, injection=injection, norm=norm)
    with st.spinner("Loading torch for live training…"):
        import_page(TRAINING_MODULES)
    run = live_panel(f"looped_lm:{task_name}:{block}:{injection}:{norm}", train_and_view,
                     {"config": config, "seed": seed},
                     start_label="Train (about a minute)" if pointer else "Train (about 35 s)")
    if run is None or run.result is None:
        st.info("Training: the figures below appear when it finishes." if run is not None and run.active else
                "Press Train to train this design live; the figures below appear when it finishes.")
        return None
    trained = run.result
    if trained.loops is None:
        st.info(f"Stopped after {len(trained.train.loss)} of {config.steps} steps, before its evaluation: press "
                "Train to run it in full; the figures below appear when a run finishes.")
        return None
    st.caption(f"This run's answer accuracy on fresh {task_name} samples, by loops: "
               + ", ".join(f"{r} → {a:.2f}" for r, a in trained.train.accuracy.items())
               + " (trained with about 6 loops).")
    return trained


def own_model_stages() -> None:
    directory = st.text_input("Local model directory", key="hf-dir",
                              placeholder="/path/to/a/save_pretrained/directory",
                              help="A causal LM and its tokenizer on this machine; nothing is downloaded.").strip()
    st.text_area("Text to read", value=SAMPLE_TEXT, key="hf-text", height=80)
    if not directory:
        st.caption("Enter a directory to load its model and read its stages here.")
        return
    with st.spinner("Loading torch…"):
        import_page(HF_MODULES)
    from core.looped_lm.hf_stages import profile_causal_lm

    run = live_panel(f"looped_lm-hf:{directory}", profile_causal_lm, {"model_dir": directory},
                     from_state={"text": "hf-text"}, start_label="Analyse")
    if run is None or run.result is None:
        return
    profile = run.result
    fig = make_subplots(rows=1, cols=3, subplot_titles=["logit-lens entropy (nats)", "agreement with the output",
                                                        "rank of the next token"], horizontal_spacing=0.08)
    for col, values in enumerate((profile.entropy, profile.agreement, profile.correct_rank), start=1):
        fig.add_trace(go.Scatter(x=profile.depth_labels, y=values, mode="lines+markers", showlegend=False,
                                 line=dict(color=COLORS[0])), row=1, col=col)
    fig.update_layout(height=300)
    show(fig, key="chart-own-stages")
    st.caption("Each layer's residual stream read through the model's final norm and unembedding (logit lens), "
               "at every position, against the next token of the text. Compare the shape with the looped "
               "model's per-loop profile above.")


def _block_for_task() -> None:
    """A task change resets the block size to that task's preset (one layer for live pointer chasing)."""
    st.session_state["block"] = LIVE_POINTER["block"] if st.session_state["task"] == "pointer_chasing" else 2


def stage_figure(stages) -> go.Figure:
    fig = make_subplots(rows=1, cols=2, column_widths=[0.55, 0.45], horizontal_spacing=0.1,
                        subplot_titles=["Logit-lens entropy along effective depth", "CKA: feedforward × looped"])
    n = len(stages.looped_entropy)
    fig.add_trace(go.Scatter(x=np.arange(1, n + 1) / n, y=stages.looped_entropy, mode="lines+markers", name="looped",
                             line=dict(color=COLORS[0])), row=1, col=1)
    m = len(stages.feedforward_entropy)
    fig.add_trace(go.Scatter(x=np.arange(1, m + 1) / m, y=stages.feedforward_entropy, mode="lines+markers",
                             name="feedforward", line=dict(color=COLORS[1])), row=1, col=1)
    fig.add_trace(go.Heatmap(z=stages.cka, x=list(stages.looped_labels), y=list(stages.feedforward_labels),
                             colorscale="Viridis", zmin=0, zmax=1, colorbar=dict(title="CKA", thickness=12)),
                  row=1, col=2)
    fig.update_xaxes(title_text="effective depth (fraction of the trained depth)", row=1, col=1)
    fig.update_yaxes(title_text="entropy (nats)", row=1, col=1)
    fig.update_layout(height=420, hovermode="closest",
                      legend=dict(x=0.01, y=0.02, xanchor="left", yanchor="bottom", orientation="v"))
    return fig


def trajectory_figure(view, upto: int) -> go.Figure:
    pts = view.trajectory(upto)                                  # [upto, B, 3]
    fig = go.Figure()
    path = pts.reshape(-1, 3)
    fig.add_trace(go.Scatter3d(x=path[:, 0], y=path[:, 1], z=path[:, 2], mode="lines",
                               line=dict(color="#999999", width=4), name="trajectory", hoverinfo="skip"))
    for layer in range(view.block_size):
        p = pts[:, layer]
        fig.add_trace(go.Scatter3d(x=p[:, 0], y=p[:, 1], z=p[:, 2], mode="markers", name=f"layer {layer}",
                                   marker=dict(size=np.linspace(5, 11, len(p)), color=COLORS[layer % len(COLORS)],
                                               line=dict(color="#333333", width=1)),
                                   text=[f"loop {r + 1}, layer {layer}" for r in range(len(p))], hoverinfo="text"))
    fig.update_layout(title="Cyclic trajectory (PCA of the block's states)", height=470,
                      scene=dict(xaxis_title="PC1", yaxis_title="PC2", zaxis_title="PC3"), margin=dict(l=0, r=0))
    return fig


def delta_figure(delta) -> go.Figure:
    fig = go.Figure()
    r = np.arange(1, delta.shape[0] + 1)
    for layer in range(delta.shape[1]):
        fig.add_trace(go.Scatter(x=r, y=np.maximum(delta[:, layer], 1e-12), mode="lines+markers",
                                 name=f"layer {layer}", line=dict(color=COLORS[layer % len(COLORS)])))
    fig.add_hline(y=1e-2, line=dict(color="#888", dash="dot"), annotation_text="1e-2")
    fig.update_yaxes(type="log", title="δ (median over tokens)")
    fig.update_layout(title="Fixed-point residual per layer", xaxis_title="loop", height=380)
    return fig


def attention_change_figure(tv) -> go.Figure:
    R, B, H = tv.shape
    z = np.log10(np.maximum(tv.reshape(R, B * H).T, 1e-8))
    fig = go.Figure(go.Heatmap(z=z, x=np.arange(1, R + 1), y=[f"L{b} H{h}" for b in range(B) for h in range(H)],
                               colorscale="Magma", colorbar=dict(title="log10 TV", thickness=12)))
    fig.update_layout(title="Attention change between consecutive loops", xaxis_title="loop", height=380)
    return fig


def attention_maps_figure(view) -> go.Figure:
    picks = sorted({0, 1, 3, view.num_loops - 1})
    fig = make_subplots(rows=1, cols=len(picks), subplot_titles=[f"loop {r + 1}" for r in picks],
                        horizontal_spacing=0.04)
    for i, r in enumerate(picks):
        fig.add_trace(go.Heatmap(z=view.attention_maps[r], colorscale="Blues", showscale=i == len(picks) - 1,
                                 zmin=0, zmax=1), row=1, col=i + 1)
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(title="Attention of layer 0, head 0 across loops (batch mean)", height=300)
    return fig


@st.cache_resource(show_spinner=False)
def scaling_figure() -> go.Figure:
    fig = make_subplots(rows=1, cols=2, column_widths=[0.5, 0.5], horizontal_spacing=0.12,
                        subplot_titles=["Pointer chasing: accuracy per hop", "Answer accuracy against loops"])
    scaling = shipped_metadata("pointer")["accuracy_by_hops"]
    acc = np.array(scaling["accuracy"])
    fig.add_trace(go.Heatmap(z=acc.T, x=[str(r) for r in scaling["loops"]], y=[f"hop {h + 1}" for h in range(acc.shape[1])],
                             colorscale="Viridis", zmin=0, zmax=1, showscale=False,   # every cell is labelled
                             text=np.round(acc.T, 2), texttemplate="%{text}", textfont=dict(size=10)), row=1, col=1)
    for i, name in enumerate(["pointer", *DESIGNS]):
        meta = shipped_metadata(name)["accuracy_by_hops"]
        fig.add_trace(go.Scatter(x=meta["loops"], y=np.array(meta["accuracy"])[:, -1], mode="lines+markers",
                                 name=name, line=dict(color=COLORS[i])), row=1, col=2)
    fig.update_xaxes(title_text="loops", type="category", row=1, col=1)
    fig.update_xaxes(title_text="loops", type="log", tickvals=list(scaling["loops"]), row=1, col=2)
    fig.update_yaxes(title_text="accuracy", range=[0, 1.05], row=1, col=2)
    fig.update_layout(height=400, legend=dict(x=0.99, y=0.02, xanchor="right", yanchor="bottom"))
    return fig


def hop_stage_figure() -> go.Figure:
    hops, control = load_hop_stages("pointer"), load_hop_stages("untrained")
    R, K = hops.coda_accuracy.shape
    F = hops.feedforward_accuracy.shape[0]
    fig = make_subplots(rows=1, cols=3, column_widths=[0.36, 0.3, 0.34], horizontal_spacing=0.1,
                        subplot_titles=["Looped: coda lens per loop", "Feedforward: logit lens per layer",
                                        "Hops read right, in order"])
    hop_labels = [f"hop {k + 1}" for k in range(K)]
    right_of_second = fig.layout.xaxis2.domain[1] + 0.008   # the shared colour bar sits in the gap before panel 3
    for col, (z, x) in enumerate(((hops.coda_accuracy, [str(r + 1) for r in range(R)]),
                                  (hops.feedforward_accuracy, [str(i) for i in range(F)])), start=1):
        fig.add_trace(go.Heatmap(z=z.T, x=x, y=hop_labels, colorscale="Viridis", zmin=0, zmax=1, showscale=col == 2,
                                 colorbar=dict(title=dict(text="accuracy", side="right"), thickness=10,
                                               x=right_of_second, xanchor="left")), row=1, col=col)
    series = (("looped, by loop", np.arange(1, R + 1), hops.hops_done, 0),
              ("feedforward, by layer", np.arange(F), hops.feedforward_hops_done, 1),
              ("untrained block, by loop", np.arange(1, R + 1), control.hops_done, 2))
    for name, x, y, c in series:
        fig.add_trace(go.Scatter(x=x.tolist(), y=np.asarray(y).tolist(), mode="lines+markers", name=name,
                                 line=dict(color=COLORS[c])), row=1, col=3)
    fig.update_xaxes(title_text="loop", type="category", row=1, col=1)
    fig.update_xaxes(title_text="feedforward layer", type="category", row=1, col=2)
    fig.update_xaxes(title_text="loop / layer", row=1, col=3)
    fig.update_yaxes(title_text="hops", range=[-0.3, K + 0.3], side="right", row=1, col=3)   # the gap is the bar's
    fig.update_layout(height=380, legend=dict(x=0.99, y=0.02, xanchor="right", yanchor="bottom"))
    return fig


def hop_detail_figure() -> go.Figure:
    hops = load_hop_stages("pointer")
    R, F = hops.cka.shape[1], hops.cka.shape[0]
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12,
                        subplot_titles=["CKA: feedforward layer × loop", "Matrix entropy at the answer position"])
    fig.add_trace(go.Heatmap(z=hops.cka, x=[str(r + 1) for r in range(R)], y=[f"layer {i}" for i in range(F)],
                             colorscale="Viridis", zmin=0, zmax=1, colorbar=dict(title="CKA", thickness=12, x=0.44)),
                  row=1, col=1)
    fig.add_trace(go.Scatter(x=np.arange(1, R + 1), y=hops.matrix_entropy[:, -1].tolist(), mode="lines+markers",
                             name="looped, by loop", line=dict(color=COLORS[0])), row=1, col=2)
    fig.add_trace(go.Scatter(x=np.arange(F), y=hops.feedforward_matrix_entropy[:, -1], mode="lines+markers",
                             name="feedforward, by layer", line=dict(color=COLORS[1])), row=1, col=2)
    fig.update_xaxes(title_text="loop", type="category", row=1, col=1)
    fig.update_xaxes(title_text="loop / layer", row=1, col=2)
    fig.update_yaxes(title_text="matrix entropy", row=1, col=2)
    fig.update_layout(height=340, legend=dict(x=0.99, y=0.02, xanchor="right", yanchor="bottom"))
    return fig


def design_study_section() -> None:
    """The bench's trained design study (bench/results/looped_lm.json) and the guidance drawn from it."""
    study = design_study()
    if not study["designs"] or "delta_loop32" not in next(iter(study["designs"].values())):
        st.caption("The design study has not been run yet: python bench/looped_lm.py.")
        return
    st.markdown(f"**Design study (trained models only).** Every design trained on modular chain (800 steps, seed 0) "
                f"by `python bench/looped_lm.py`; a design that did not reach accuracy {study['learned_threshold']} "
                "at 32 loops is marked and left out of the stability reading. The controls are the stable design "
                "untrained and trained on shuffled targets: they converge too, but carry no answer.")
    st.dataframe(study_table(study), hide_index=True)
    st.markdown("**Design guidance** (each choice changed alone from Huginn's B2 concat sandwich; then the designs "
                "that change two at once):\n\n"
                + "\n".join(f"- **{g['factor']}**: " + (f"{g['summary']}. " if g.get("summary") else "") + g["text"]
                            for g in study["guidance"]))


def study_table(study: dict) -> pd.DataFrame:
    rows = [(name, d) for name, d in study["designs"].items()]
    rows += [(f"control: {name.replace('_', ' ')}", d) for name, d in study["controls"].items()]
    return pd.DataFrame([{"design": name, "learned": d.get("learned", False),
                          "accuracy, 32 loops": d.get("accuracy_by_loops", {}).get("32"),
                          "δ at loop 32 (worst layer)": max(d["delta_loop32"]), "separation": d["separation"],
                          "ρ(J)": d["spectral_radius"], "answer at the fixed point": d["answer_at_fixed_point"][-1],
                          "attention sharpness": d["attention_sharpness"],
                          "stable cycle": d.get("stable_cycle", False)} for name, d in rows])


def design_table() -> pd.DataFrame:
    rows = []
    for name, design in DESIGNS.items():
        view, acc = load_view(name).upto(40), shipped_metadata(name)["accuracy_by_loops"]
        rows.append({"design": name, "injection": design["injection"], "norm": design["norm"],
                     "δ at loop 32 (worst layer)": float(view.delta[31].max()),
                     "separation": float(view.separation[-1]), "stable cycle": view.stable_cycle(32),
                     "ρ(J)": shipped_radius(name),
                     "accuracy, 4 loops": acc.get("4"), "accuracy, 32 loops": acc.get("32")})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    render()
