"""Locality-aware quantum natural gradient: five optimisers on one shot budget, and the surrogate metric.

The first view reads shipped arrays (``python -m core.quantum_ng.ship``): the default run and the
metric view at its starting point, so it imports no PennyLane and simulates nothing. Any other
configuration's run or metric view is computed through a live panel, with progress and Stop; until
then the page shows the shipped one and says so.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
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
from app.ui.verdicts import ledger, page_header, plain
from core.quantum_ng import (ENTANGLERS, LABELS, MODEL_LABELS, MODELS, OPTIMIZERS, Ansatz, MetricViewConfig,
                             VQEConfig, metric_view, run_vqe)
from core.quantum_ng.ship import SEED as SHIPPED_SEED
from core.quantum_ng.ship import SHIPPED, SHIPPED_VIEW, bench_frontier, shipped_run, shipped_view

SYSTEM = BY_KEY["quantum_ng"]
LIVE: dict = {}   # the run's panel shows by default (the metric's, once a setting differs from the shipped view)
K_MAX = 8  # the k control stops here (k = n is exact; it is the reference)
BUDGETS = [250_000, 500_000, 1_000_000, 2_000_000, 4_000_000]
ENTANGLER_LABELS = {"brickwork": "CNOT brickwork (local)", "cnot_chain": "CNOT staircase (non-local control)",
                    "cz_chain": "CZ chain", "none": "none (product states)"}
SHORT = {"sgd": "SGD", "adam": "Adam", "block_qng": "Block QNG", "rng": "Random NG", "surrogate": "Surrogate"}
OPT_COLORS = {"sgd": COLORS[7], "adam": COLORS[1], "block_qng": COLORS[2], "rng": COLORS[4], "surrogate": COLORS[0]}


def cached_shipped():
    return shipped(shipped_run)


def cached_shipped_view():
    return shipped(shipped_view)


def cached_frontier():
    return shipped(bench_frontier)


def per_shot_sentence(errors: dict) -> str:
    """Where the surrogate ends in this run, and the benchmark's verdict on the per-shot claim."""
    rank = sorted(errors, key=errors.get).index("surrogate") + 1 if "surrogate" in errors else None
    here = f"In this run the surrogate ends {ordinal(rank)} of {len(errors)}. " if rank else ""
    verdict = dict((c.id, v) for c, v in ledger(SYSTEM.key)).get("per_shot_convergence")
    if verdict is None:
        return here + "The paper claims its curve lies lowest; no benchmark has judged that yet."
    return (here + f"The paper claims its curve lies lowest; the benchmark over seeds and chain sizes, on this local "
            f"ansatz, finds the claim **{verdict.status}**: it {plain(verdict.figure)}.")


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def render() -> None:
    page_header(SYSTEM)
    shipped = cached_shipped()

    c = st.columns([1.5, 1.3, 1.4, 0.9, 0.9, 1.2, 0.8])
    model = bound(c[0].selectbox, "Model", key="model", options=list(MODELS), format_func=MODEL_LABELS.get)
    took = f"The shipped 6-qubit run took {shipped.seconds:.0f} s; " if shipped is not None else ""
    n = bound(c[1].slider, "Chain length (qubits)", key="n", min_value=2, max_value=16, value=SHIPPED.n_qubits,
              help="Simulated with PennyLane (lightning.qubit for exact values). " + took
                   + "12 to 16 qubits take minutes per optimiser; the live panel estimates the time left from "
                     "the pace of the first steps.")
    entangler = bound(c[2].selectbox, "Ansatz entangler", key="entangler", options=list(ENTANGLERS),
                      format_func=ENTANGLER_LABELS.get)
    layers = bound(c[3].number_input, "Layers", key="layers", min_value=1, max_value=6, value=SHIPPED.layers, step=1)
    k = bound(c[4].number_input, "Weight k", key="k", min_value=1, max_value=16, value=SHIPPED.k, step=1,
              help="Pauli strings acting on more than k qubits are dropped during propagation; k = n is exact. "
                   "Large k on long chains makes the pool of strings, and the wait, grow.")
    budget = bound(c[5].select_slider, "Shot budget", key="budget", options=BUDGETS, value=SHIPPED.budget,
                   format_func=lambda b: f"{b / 1e6:g} M")
    with c[6]:
        seed = seed_input()
    d = st.columns([1.2, 1.2, 1.2, 1.4, 3])
    shots = bound(d[0].select_slider, "Shots per circuit", key="shots", options=[25, 50, 100, 200, 500, 1000],
                  value=SHIPPED.shots, help="per circuit and per commuting group of the Hamiltonian's terms")
    snapshots = bound(d[1].select_slider, "Shadow snapshots T", key="T", options=[100, 250, 500, 1000, 2000, 5000],
                      value=SHIPPED.snapshots, help="the one classical-shadow dataset each surrogate step measures")
    threshold = bound(d[2].select_slider, "Active if keeps ≥", key="tau", options=[0.0, 0.25, 0.5, 0.75],
                      value=SHIPPED.active_threshold, format_func=lambda t: "any (abstract)" if t == 0 else f"{t:.0%}",
                      help="A parameter is active when its truncated generator keeps this share of its norm; "
                           "'any' is the abstract's rule (nonzero).")
    mask = bound(d[3].toggle, "Mask", key="mask", value=SHIPPED.mask,
                 help="The support-overlap mask: zero the entries whose truncated generators share no qubit.")

    try:
        config = VQEConfig(model=model, n_qubits=int(n), layers=int(layers), entangler=entangler, k=int(k),
                           mask=bool(mask), shots=int(shots), snapshots=int(snapshots), budget=int(budget),
                           active_threshold=float(threshold), rotations=SHIPPED.rotations)
        if config.k > K_MAX:
            raise ValueError(f"k: {config.k} is beyond what the page propagates; allowed integers in [1, {min(n, K_MAX)}]")
    except ValueError as error:
        st.error(str(error))
        return

    run = live_panel(run_key(config, seed), run_vqe, {"config": config, "seed": int(seed)},
                     start_label="Run the five optimisers live")
    result, source = None, ""
    if run is not None and run.result is not None:
        result = run.result
        source = ("your live run, stopped before every budget was spent (the curves end where it stopped)"
                  if result.stopped else "your live run")
    elif shipped is not None:
        result = shipped
        same = config == SHIPPED and seed == SHIPPED_SEED
        source = "the shipped run" + ("" if same else " (6-qubit Heisenberg, seed 0; press Run for yours)")
    if result is None:
        st.info("No run yet: press Run above, or regenerate the shipped one with `python -m core.quantum_ng.ship`.")
    else:
        draw_run(result, source)

    if first_screen():
        return
    st.subheader("The surrogate metric", divider="gray")
    draw_metric(MetricViewConfig.from_vqe(config), int(seed), config.active_threshold)

    if result is not None:
        for _ in details("Details: configuration, per-optimiser numbers and export"):
            st.json({"config": result.config.to_dict(), "seed": result.seed, "ground_energy": result.ground_energy,
                     "initial_energy": result.initial_energy, "seconds": result.seconds, "stopped": result.stopped})
            st.dataframe(summary_table(result), hide_index=True)
            export_buttons(result, f"quantum_ng-{result.config.model}-{result.config.n_qubits}q-seed{result.seed}",
                           key="vqe-export")


def draw_run(result, source: str) -> None:
    """The run's final errors, its energy curves and what they show."""
    errors = result.final_errors()
    m = st.columns(len(errors) + 1)
    m[0].metric("Ground energy E0", f"{result.ground_energy:.3f}", help="sparse Lanczos (SciPy) on the chain")
    for col, (key, err) in zip(m[1:], errors.items()):
        col.metric(f"{SHORT[key]}: error", f"{err:.3f}", help=f"{LABELS[key]}: E − E0 after the shot budget (exact energy)")

    left, right = st.columns([2.2, 1])
    with left:
        show(energy_figure(result), key="chart-energy")
    with right:
        cfg = result.config
        spent = {k: t.shots_per_step for k, t in result.traces.items()}
        st.markdown(
            f"**What you are seeing.** Showing {source}. VQE on the {cfg.n_qubits}-qubit "
            f"{MODEL_LABELS[cfg.model]} chain; every optimiser starts from the same random parameters and may spend "
            f"{cfg.budget / 1e6:g} M shots. The curves are the exact energy error E − E0 against the shots each "
            f"has spent, and every shot counts against the one budget: all five pay the same parameter-shift "
            f"gradient ({spent.get('sgd', 0):,} shots a step); the natural-gradient methods add their metric's shots: "
            f"block-diagonal QNG one circuit per layer ({spent.get('block_qng', 0):,} a step in all), random NG "
            f"2P + 1 probability circuits ({spent.get('rng', 0):,}), the surrogate one shadow of {cfg.snapshots:,} "
            f"single-shot snapshots ({spent.get('surrogate', 0):,}). The ansatz is "
            f"{ENTANGLER_LABELS[cfg.entangler]}. " + per_shot_sentence(errors))


def pick_view(run, wanted: MetricViewConfig, seed: int):
    """(view, note, mine): the live view if there is one, else the shipped one, with a note saying whose it is
    and whether it is the view of the settings on screen."""
    if run is not None and run.result is not None:
        view = run.result
        note = ("Showing your live computation, **stopped** before it finished: the panels it did not reach are "
                "empty." if view.stopped else "Showing your live computation.")
        return view, note, True
    view = cached_shipped_view()
    if view is None:
        return None, ("No metric view shipped: press **Compute the metric**, or regenerate the shipped one with "
                      "`python -m core.quantum_ng.ship metric`."), False
    if wanted == SHIPPED_VIEW and seed == SHIPPED_SEED:
        return view, ("Showing the shipped view of these settings (`python -m core.quantum_ng.ship` computed it; "
                      "a test recomputes it). Change the ansatz, k, the mask, T or the seed to compute another "
                      "one live."), True
    cfg = view.config
    busy = run is not None and run.active
    note = (f"Showing the **shipped** view ({cfg.n_qubits} qubits, {cfg.layers} layers, "
            f"{ENTANGLER_LABELS[cfg.entangler]}, k = {cfg.k}, {'masked' if cfg.mask else 'unmasked'}, "
            f"T = {cfg.snapshots:,}, seed {view.seed}), not yours: "
            + ("yours is being computed above." if busy else "press **Compute the metric** for your settings."))
    return view, note, False


def draw_metric(wanted: MetricViewConfig, seed: int, threshold: float) -> None:
    """The metric section: the shipped view of the shipped settings, else a live panel and the live or shipped view.

    The shipped settings have nothing to compute (their view is shipped), so their panel is not drawn:
    the run's panel is the only one on the first view. The active threshold needs no computation
    either: the view keeps every generator's retained norm, and the active set is read from it.
    """
    run = None
    if not (wanted == SHIPPED_VIEW and seed == SHIPPED_SEED):
        run = live_panel(metric_key(wanted, seed), metric_view, {"config": wanted, "seed": seed},
                         start_label="Compute the metric")
    view, note, mine = pick_view(run, wanted, seed)
    if view is None or not mine:
        st.info(note)   # no view, or the shipped one for other settings: say so plainly
    else:
        st.caption(note)
    if view is None:
        return
    cfg = view.config
    show(heatmap_figure(view), key="chart-heatmaps")
    left, right = st.columns([1, 1.6])
    with left:
        show(curve_figure(view.curve, cfg.k), key="chart-curve")
    with right:
        ansatz = cfg.ansatz()
        cone = bound(st.number_input, "Light cone of parameter θ", key="cone", min_value=0,
                     max_value=ansatz.n_params - 1, value=0, step=1,
                     help="The shaded band: the wires the chosen rotation's generator can reach through the gates "
                          "after it. On brickwork it widens by at most one wire per side and layer.")
        show(circuit_figure(ansatz, view.retained, view.active_set(threshold), cone=min(int(cone), ansatz.n_params - 1)),
             key="chart-circuit")
    st.markdown(reading_text(view, ansatz, threshold))
    if view.shadow_skipped:
        st.caption(f"Shadow estimate skipped: {view.shadow_skipped}.")
    left, right = st.columns([1, 1])
    with left:
        show(tradeoff_figure(view), key="chart-tradeoff")
        st.markdown(tradeoff_text(view))
    with right:
        frontier = cached_frontier()
        show(frontier_figure(frontier), key="chart-frontier")
        st.markdown(frontier_text(frontier))


def reading_text(view, ansatz: Ansatz, threshold: float) -> str:
    cfg = view.config
    active = view.active_set(threshold)
    if active is not None:
        counts = (f"{int(active.sum())} of {ansatz.n_params} parameters are active (framed) and get "
                  f"natural-gradient steps, {int(view.nonzero.sum())} have a nonzero truncated generator (the "
                  f"abstract's rule). The rest follow gradient descent.")
    else:
        counts = "The computation stopped before the propagation finished, so no active set is shown."
    return (f"**Reading the metric.** Top: the exact metric tensor (QFIM / 4, PennyLane's `metric_tensor` convention) "
            f"at the run's starting point, the surrogate from weight-{cfg.k} generators "
            f"{'with' if cfg.mask else 'without'} the support-overlap mask, and the same surrogate estimated from one "
            f"shadow of {cfg.snapshots:,} snapshots. Left: its relative error against k (unmasked, k = n is exact; "
            f"masked, what the mask drops stays, since it is exact only on product states). Right: the "
            f"circuit, each rotation coloured by the share of its generator's norm the truncation kept; " + counts)


def tradeoff_text(view) -> str:
    t, cfg = view.tradeoff, view.config
    if not len(t["k"]):
        return "**Bias against variance.** Not computed (stopped, or no shadow estimate for these settings)."
    best = view.best_k
    i = list(t["k"]).index(best)
    return (f"**Bias against variance.** At T = {cfg.snapshots:,} snapshots: the squared truncation error (bias², "
            f"falls with k), the shadow estimate's variance (estimated from the one dataset, rises with k, because "
            f"heavier strings are seen less often) and their sum, the mean squared error, all relative to ‖g‖². "
            f"The best k here is **{best}** (marked); more snapshots shrink the variance and can move it up. The dotted line is our "
            f"concentration bound's variance, {t['variance_bound'][i] / max(t['variance'][i], 1e-300):.0f}× "
            f"the estimate at k = {best}: valid, and loose.")


def frontier_text(frontier) -> str:
    if frontier is None:
        return "**Error against cost.** No benchmark result yet: `python bench/quantum_ng.py` measures it."
    m = frontier["methods"]
    sur = m["surrogate_shadow"]
    s = seconds_unit(frontier)
    return (f"**Error against cost** (benchmark, {frontier['n_qubits']} qubits, {frontier['n_params']} parameters, "
            f"everything counted, state and shadows included). The surrogate from one shadow (k = {frontier['k']}, "
            f"T = {frontier['snapshots']}) takes {sur['seconds']:.2f} {s} with error {sur['relative_error']:.2f}; "
            f"block-diagonal `metric_tensor` on lightning takes {m['block_diag_metric_tensor']['seconds']:.2f} {s} "
            f"with error {m['block_diag_metric_tensor']['relative_error']:.2f}; the exact paths (ours, "
            f"{m['exact_ours']['seconds']:.2f} {s}; `adjoint_metric_tensor`, {m['adjoint_metric_tensor']['seconds']:.1f} {s}) "
            f"have none. A point is on the frontier when no other is both cheaper and more accurate.")


def seconds_unit(frontier, short: bool = True) -> str:
    """"CPU s" ("CPU seconds" when not ``short``) when the benchmark timed the paths in CPU seconds
    (``clock: cpu``), else "s" ("seconds", wall)."""
    cpu = frontier is not None and frontier.get("clock") == "cpu"
    return ("CPU " if cpu else "") + ("s" if short else "seconds")


def run_key(config: VQEConfig, seed: int) -> str:
    """The live run's slot: one per configuration and seed, so changing a control never shows a stale run."""
    return "quantum_ng:" + ":".join(str(v) for v in config.to_dict().values()) + f":{seed}"


def metric_key(config: MetricViewConfig, seed: int) -> str:
    """The metric panel's slot (its own group, so it never stops the run, nor the run it)."""
    return "quantum_ng_metric:" + ":".join(str(v) for v in config.to_dict().values()) + f":{seed}"


def summary_table(result) -> pd.DataFrame:
    budget = result.config.budget
    return pd.DataFrame([{"optimiser": LABELS[k], "steps": t.steps, "shots per step": t.shots_per_step,
                          "executions": int(t.executions[-1]), "error at 25%": t.error_at(budget / 4),
                          "error at 50%": t.error_at(budget / 2), "final error": float(t.error[-1]),
                          "seconds": t.seconds} for k, t in result.traces.items()])


def energy_figure(result) -> go.Figure:
    fig = go.Figure()
    for key in OPTIMIZERS:
        t = result.traces.get(key)
        if t is None:
            continue
        ours = key == "surrogate"
        fig.add_trace(go.Scatter(x=t.shots / 1e6, y=np.maximum(t.error, 1e-6), mode="lines", name=LABELS[key],
                                 line=dict(color=OPT_COLORS[key], width=3.5 if ours else 2,
                                           dash=None if key in ("surrogate", "block_qng") else "dot")))
    fig.update_xaxes(title="cumulative shots (millions)")
    fig.update_yaxes(type="log", title="energy error E − E0")
    fig.update_layout(title="Energy error against shots spent", height=430, hovermode="x unified",
                      legend=dict(orientation="h", yanchor="top", y=-0.18, xanchor="left", x=0.0))
    return fig


def heatmap_figure(view) -> go.Figure:
    cfg = view.config
    names = ("exact", "surrogate", "shadow")
    titles = ["Exact metric", f"Surrogate, k = {cfg.k}" + (", masked" if cfg.mask else ""),
              f"Surrogate from one shadow (T = {cfg.snapshots:,})"]
    fig = make_subplots(rows=1, cols=3, subplot_titles=titles, horizontal_spacing=0.06)
    shown = [getattr(view, name) for name in names if getattr(view, name) is not None]
    reference = view.exact if view.exact is not None else (shown[0] if shown else np.zeros(1))
    scale = float(np.abs(reference).max()) or 1.0
    P = view.params.size
    for i, name in enumerate(names):
        z = getattr(view, name)
        if z is None:
            why = "skipped (too many string pairs)" if name == "shadow" and view.shadow_skipped else "not computed (stopped)"
            fig.add_trace(go.Heatmap(z=np.full((P, P), np.nan), showscale=False, hoverinfo="skip"), row=1, col=i + 1)
            fig.add_annotation(text=why, x=(P - 1) / 2, y=(P - 1) / 2, showarrow=False, font=dict(color="#777"),
                               row=1, col=i + 1)
        else:
            fig.add_trace(go.Heatmap(z=z, zmin=-scale, zmax=scale, colorscale="RdBu_r", showscale=name == "shadow",
                                     colorbar=dict(title="g<sub>ij</sub>", len=0.9),
                                     hovertemplate="i=%{y}, j=%{x}: %{z:.3f}<extra></extra>"), row=1, col=i + 1)
        fig.update_yaxes(autorange="reversed", title="parameter i" if i == 0 else None, row=1, col=i + 1)
        fig.update_xaxes(title="parameter j", row=1, col=i + 1)
    fig.update_layout(height=380, margin=dict(t=60, b=50), hovermode="closest")
    return fig


def curve_figure(curve: dict, k: int) -> go.Figure:
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=curve["k"], y=curve["error_masked"], name="masked", mode="lines+markers",
                             line=dict(color=COLORS[0], width=2.5)))
    fig.add_trace(go.Scatter(x=curve["k"], y=curve["error_unmasked"], name="unmasked", mode="lines+markers",
                             line=dict(color=COLORS[1], width=2, dash="dot")))
    fig.add_vline(x=k, line=dict(color="#888", dash="dash"), annotation_text=f"k = {k}")
    if len(curve["k"]) == 0:
        fig.add_annotation(text="not computed (stopped)", xref="paper", yref="paper", x=0.5, y=0.5, showarrow=False,
                           font=dict(color="#777"))
    fig.update_xaxes(title="truncation weight k", dtick=1)
    fig.update_yaxes(title="relative error ‖ĝ − g‖ / ‖g‖", rangemode="tozero")
    fig.update_layout(title="Truncation error against k", height=380, hovermode="x unified",
                      legend=dict(orientation="h", yanchor="top", y=-0.25, xanchor="left", x=0.0))
    return fig


def tradeoff_figure(view) -> go.Figure:
    t = view.tradeoff
    fig = go.Figure()
    for key, name, color, dash in (("bias2", "bias²", COLORS[1], None), ("variance", "variance", COLORS[2], None),
                                   ("mse", "MSE = bias² + variance", COLORS[0], None),
                                   ("variance_bound", "variance bound (ours)", "#999", "dot")):
        fig.add_trace(go.Scatter(x=t["k"], y=t[key], name=name, mode="lines+markers",
                                 line=dict(color=color, width=3 if key == "mse" else 2, dash=dash)))
    if view.best_k is not None:
        fig.add_vline(x=view.best_k, line=dict(color=COLORS[0], dash="dash"), annotation_text=f"best k = {view.best_k}")
    else:
        fig.add_annotation(text="not computed", xref="paper", yref="paper", x=0.5, y=0.5, showarrow=False,
                           font=dict(color="#777"))
    fig.update_xaxes(title="truncation weight k", dtick=1)
    fig.update_yaxes(title="relative to ‖g‖²", type="log")
    fig.update_layout(title=f"Bias, variance and MSE against k (T = {view.config.snapshots:,})", height=380,
                      hovermode="x unified", legend=dict(orientation="h", yanchor="top", y=-0.25, xanchor="left", x=0.0))
    return fig


FRONTIER_NAMES = {"surrogate_shadow": "surrogate, one shadow", "surrogate_exact_expectations": "surrogate, exact <R>",
                  "exact_ours": "exact (ours)", "adjoint_metric_tensor": "qml.adjoint_metric_tensor",
                  "block_diag_metric_tensor": "qml.metric_tensor block-diag"}


def frontier_figure(frontier) -> go.Figure:
    fig = go.Figure()
    if frontier is None:
        fig.add_annotation(text="no benchmark result", xref="paper", yref="paper", x=0.5, y=0.5, showarrow=False)
    else:
        for i, (name, m) in enumerate(frontier["methods"].items()):
            fig.add_trace(go.Scatter(x=[m["seconds"]], y=[max(m["relative_error"], 1e-3)], mode="markers+text",
                                     name=FRONTIER_NAMES.get(name, name), text=[FRONTIER_NAMES.get(name, name)],
                                     textposition="top center", marker=dict(size=12, color=COLORS[i % len(COLORS)])))
        by_k = frontier.get("surrogate_by_k", [])
        fig.add_trace(go.Scatter(x=[p["seconds"] for p in by_k], y=[p["relative_error"] for p in by_k],
                                 mode="lines+markers+text", text=[f"k={p['k']}" for p in by_k], textposition="bottom right",
                                 name="surrogate by k", line=dict(color=COLORS[0], dash="dot")))
    fig.update_xaxes(title=f"{seconds_unit(frontier, short=False)}, everything counted (log)", type="log")
    fig.update_yaxes(title="relative error (exact paths drawn at 0.001)", type="log")
    fig.update_layout(title="Error against cost (benchmark)", height=380, showlegend=False, hovermode="closest")
    return fig


def light_cone_columns(ansatz: Ansatz, param: int, cols: list[int]) -> list[tuple[int, int, int]]:
    """(column, lowest wire, highest wire) of the chosen generator's cone after each gate that follows it."""
    start = next(i for i, g in enumerate(ansatz.gates) if g.param == param)
    cone = {ansatz.gates[start].wires[0]}
    out = [(cols[start], min(cone), max(cone))]
    for g, col in zip(ansatz.gates[start + 1:], cols[start + 1:]):
        if len(g.wires) == 2 and cone & set(g.wires):
            cone |= set(g.wires)
        out.append((col, min(cone), max(cone)))
    return out


def circuit_columns(ansatz: Ansatz) -> list[int]:
    """A column per gate: one past the last gate on any wire it spans, so the drawing reads left to right."""
    last = np.full(ansatz.n_qubits, -1)
    cols = []
    for g in ansatz.gates:
        lo, hi = min(g.wires), max(g.wires)
        col = int(last[lo:hi + 1].max()) + 1
        last[lo:hi + 1] = col
        cols.append(col)
    return cols


def circuit_figure(ansatz: Ansatz, retained: np.ndarray | None, active: np.ndarray | None,
                   cone: int | None = None) -> go.Figure:
    if retained is None:   # stopped before the propagation finished: the bare circuit
        retained, active = np.zeros(ansatz.n_params), np.zeros(ansatz.n_params, bool)
    cols = circuit_columns(ansatz)
    width = max(cols) + 1
    fig = go.Figure()
    if cone is not None:   # the cone's extent at each column (wire ranges; the cone is contiguous on a chain)
        spans = {}
        for col, lo, hi in light_cone_columns(ansatz, cone, cols):
            old = spans.get(col, (lo, hi))
            spans[col] = (min(lo, old[0]), max(hi, old[1]))
        for col, (lo, hi) in spans.items():
            fig.add_shape(type="rect", x0=col - 0.5, x1=col + 0.5, y0=lo - 0.4, y1=hi + 0.4, layer="below",
                          fillcolor="rgba(255, 165, 0, 0.22)", line=dict(width=0))
    for q in range(ansatz.n_qubits):
        fig.add_shape(type="line", x0=-0.6, x1=width - 0.4, y0=q, y1=q, line=dict(color="#bbb", width=1), layer="below")
    xs, ys, text, kept, border, hover = [], [], [], [], [], []
    for g, col in zip(ansatz.gates, cols):
        if g.param is None:
            a, b = g.wires
            fig.add_shape(type="line", x0=col, x1=col, y0=a, y1=b, line=dict(color="#444", width=1.5))
            fig.add_trace(go.Scatter(x=[col], y=[a], mode="markers", marker=dict(color="#444", size=7),
                                     hoverinfo="skip", showlegend=False))
            target = dict(symbol="circle-cross-open", size=13, color="#444", line=dict(width=1.5)) if g.name == "CNOT" \
                else dict(symbol="circle", size=7, color="#444")
            fig.add_trace(go.Scatter(x=[col], y=[b], mode="markers", hoverinfo="skip", showlegend=False, marker=target))
        else:
            xs.append(col)
            ys.append(g.wires[0])
            text.append(g.name[1])
            kept.append(float(retained[g.param]))
            border.append(COLORS[3] if active[g.param] else "#999")
            hover.append(f"θ{g.param} {g.name} on wire {g.wires[0]}: keeps {retained[g.param]:.0%}"
                         + (" · active" if active[g.param] else " · gradient descent"))
    fig.add_trace(go.Scatter(
        x=xs, y=ys, mode="markers+text", text=text, hovertext=hover,
        textfont=dict(size=9, color=["white" if v > 0.55 else "#111" for v in kept]),
        hoverinfo="text", showlegend=False,
        marker=dict(symbol="square", size=max(9, min(20, int(420 / max(width, 1)))), color=kept, cmin=0, cmax=1,
                    colorscale="Blues", line=dict(color=border, width=2.5),
                    colorbar=dict(title="norm kept", len=0.9))))
    fig.update_xaxes(visible=False, range=[-0.8, width - 0.2])
    fig.update_yaxes(autorange="reversed", tickmode="array", tickvals=list(range(ansatz.n_qubits)),
                     ticktext=[f"q{q}" for q in range(ansatz.n_qubits)], showgrid=False, zeroline=False)
    fig.update_layout(title="Active set on the circuit (red frame: natural-gradient update"
                            + (f"; shaded: the light cone of θ{cone})" if cone is not None else ")"), height=380,
                      hovermode="closest", margin=dict(l=40, r=20, t=50, b=20))
    return fig


if __name__ == "__main__":
    render()
