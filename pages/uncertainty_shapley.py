"""Entropy Shapley games for multivariate predictive uncertainty: marginal, chain and joint attributions side by side."""

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
from core.common.results import result_to_dict
from core.uncertainty_shapley.games import ESTIMATOR_LABELS, ESTIMATORS, GAMES
from core.uncertainty_shapley.ship import SEED as SHIPPED_SEED
from core.uncertainty_shapley.ship import attribution_from_dict, shipped_views
from core.uncertainty_shapley.views import (MODEL_LABELS, MODELS, attribution_view, default_estimator, estimator_error,
                                            train_and_attribute, view_config)

SYSTEM = BY_KEY["uncertainty_shapley"]
LIVE: dict = {"seed": 1}   # another seed than the shipped one shows the attribution panel too
METHOD_LABELS = {"exact": "exact (all coalitions)", "permutation": "permutation sampling (200 orderings, ±2 s.e.)"}
GAME_NAMES = {"marginal": "marginal Σⱼ H(Yⱼ | X_S)", "chain": "chain Σⱼ H(Yⱼ | Yⱼ₋₁…, X_S)",
              "joint": "joint H(Y | X_S)"}


def cached_views():
    return shipped(shipped_views)


def games_figure(a) -> go.Figure:
    fig = go.Figure()
    for g, name in enumerate(GAMES):
        fig.add_trace(go.Bar(x=a.feature_names, y=a.phi[g], name=GAME_NAMES[name], marker_color=COLORS[g],
                             error_y=dict(type="data", array=2 * a.se[g], visible=bool(np.any(a.se[g] > 0)))))
    fig.update_layout(barmode="group", title="Each feature's Shapley value in the three entropy games",
                      yaxis_title="φᵢ (nats)", height=430)
    return fig


def cross_figure(a) -> go.Figure:
    fig = go.Figure(go.Bar(x=a.feature_names, y=a.cross, name="cᵢ = φᵢ(marginal) − φᵢ(joint)",
                           marker_color=[COLORS[3] if c < 0 else COLORS[2] for c in a.cross],
                           error_y=dict(type="data", array=2 * a.cross_se, visible=bool(np.any(a.cross_se > 0)))))
    fig.add_hline(y=0.0, line=dict(color="#888", width=1))
    fig.update_layout(title="Cross term cᵢ: Shapley value of TC(Y | X_S)", showlegend=True,
                      yaxis_title="cᵢ (nats)", height=360)
    return fig


def chain_figure(a) -> go.Figure:
    fig = go.Figure()
    for j, out in enumerate(a.output_names):
        fig.add_trace(go.Bar(x=a.feature_names, y=a.components[2, :, j], name=f"H({out} | earlier, X_S)",
                             marker_color=COLORS[j % len(COLORS)]))
    fig.add_trace(go.Scatter(x=a.feature_names, y=a.phi[2], mode="markers", name="joint φᵢ (sum)",
                             marker=dict(color="#000", symbol="diamond", size=9)))
    fig.update_layout(barmode="relative", title="Chain rule: joint φᵢ split by component",
                      yaxis_title="nats", height=380)
    return fig


def error_figure(e: dict) -> go.Figure:
    fig = go.Figure()
    for k, name in enumerate(e["estimators"]):
        fig.add_trace(go.Scatter(x=e["n_inner"], y=e["value_error"][k], mode="lines+markers",
                                 name=ESTIMATOR_LABELS[name], line=dict(color=COLORS[k + 1])))
    fig.update_layout(title="Estimator error, linear-Gaussian forecaster",
                      xaxis=dict(type="log", title="inner samples per background row", tickvals=list(e["n_inner"])),
                      yaxis=dict(type="log", title="mean |v̂ − v| (nats)", dtick=1), height=360)
    return fig


def what_you_see(a, model: str) -> str:
    return (f"**What you are seeing.** {MODEL_LABELS[model]}, outcome {', '.join(a.output_names)}. Each bar is a "
            "feature's Shapley value in one entropy game: the players are the input features, and v(S) is the "
            "uncertainty (nats) left when only the features in S are known (the rest integrated out under their Gaussian "
            "law), so a negative φᵢ means the feature removes uncertainty. The marginal game adds up each component's entropy and cannot see dependence; the joint game "
            "is the entropy of the whole vector; the chain game (our intermediate choice) keeps only the dependence "
            f"on the previous component. TC(Y) = {a.tc_prior:.3f} nats of dependence before any feature is known, "
            f"TC(Y | X) = {a.tc_conditional:.3f} after all are; the cross-component terms sum to their difference, "
            f"Σ cᵢ = {a.cross.sum():+.3f}. A negative cᵢ means the feature explains dependence between components "
            "away (a shared driver); a positive one means knowing it leaves the components more dependent.")


def controls():
    """The URL-bound controls; returns (model, config, seed), or None after showing a bad choice's error."""
    top = st.columns([3, 2])
    with top[0]:
        model = bound(st.selectbox, "Model and data", key="model", options=list(MODELS), format_func=MODEL_LABELS.get)
    with top[1]:
        estimator = bound(st.selectbox, "Entropy estimator", key="estimator", options=["default", *ESTIMATORS],
                          format_func=lambda e: "default for the model" if e == "default" else ESTIMATOR_LABELS[e])
    low = st.columns([3, 1, 1])
    with low[0]:
        method = bound(st.selectbox, "Shapley values", key="method", options=["exact", "permutation"],
                       format_func=METHOD_LABELS.get)
    with low[1]:
        lag = bound(st.number_input, "Chain lag L", key="lag", min_value=1, max_value=8, value=1, step=1)
    with low[2]:
        seed = seed_input()
    try:
        config = view_config(model, estimator, method, int(lag), n_permutations=200)
    except ValueError as err:
        st.error(str(err))
        return None
    return model, config, seed


def is_shipped(model: str, config, seed: int, views) -> bool:
    """Whether the shipped view answers these controls (default estimator, L = 1, exact, the shipped seed)."""
    return (views is not None and config.estimator == default_estimator(model) and config.chain_lag == 1
            and config.method == "exact" and seed == SHIPPED_SEED)


def attribution_section(model: str, config, seed: int, views):
    """The three games' figure beside its explanation; a live run when the shipped view does not match."""
    a = attribution_from_dict(views["attributions"][model]) if views is not None else None
    source = f"the shipped attribution (seed {SHIPPED_SEED}, {ESTIMATOR_LABELS[default_estimator(model)]}, L = 1)"
    left, right = st.columns([2, 1])
    with right:
        if not is_shipped(model, config, seed, views):
            run = live_panel(f"uncertainty_shapley:attr:{model}:{config.to_dict()}:{seed}", attribution_view,
                             {"model": model, "config": config, "seed": int(seed)},
                             start_label="Compute these attributions", group="uncertainty_shapley-attr")
            if run is not None and run.result is not None and run.state == "done":
                a, source = run.result, "your run"
    with left:
        st.caption(f"Showing {source}.")
        show(games_figure(a), key="chart-games")
    with right:
        st.markdown(what_you_see(a, model))
        st.metric("TC(Y) − TC(Y | X)", f"{a.tc_prior - a.tc_conditional:.3f} nats",
                  help="The dependence between components that the features account for: −Σ cᵢ")
        if views is not None and model in views["test_nll"]:
            st.metric("Held-out NLL (origins 1999 to 2008)", f"{views['test_nll'][model]:.2f} nats")
    one, two = st.columns(2)
    with one:
        show(cross_figure(a), key="chart-cross")
    with two:
        show(chain_figure(a), key="chart-chain")
    return a


def estimators_section(seed: int, views) -> None:
    """The estimator-error curve (shipped), with a live rerun at two seeds."""
    st.subheader("Sample-based estimators against the closed form")
    e_left, e_right = st.columns([2, 1])
    error = views["estimator_error"] if views is not None else None
    with e_right:
        st.markdown("Moment matching replaces each coalition's mixture over the left-out features by a Gaussian with "
                    "its moments; k-NN (Kozachenko–Leonenko, k = 3) estimates entropies from samples; mean imputation "
                    "plugs in the left-out features' conditional mean and ignores their spread (the control: it "
                    "does not converge). The error is the mean over coalitions of |v̂(S) − v(S)|. The bench measures "
                    "up to 4096 samples with three seeds; rerun here with two:")
        run = live_panel(f"uncertainty_shapley:error:{seed}", estimator_error,
                         {"model": "macro_linear", "n_inner": (16, 64, 256, 1024), "n_seeds": 2, "seed": int(seed)},
                         start_label="Measure the estimators", group="uncertainty_shapley-error")
        if run is not None and run.result is not None and run.state == "done":
            error = result_to_dict(run.result)
    with e_left:
        if error is not None:
            show(error_figure(error), key="chart-error")


def retrain_section(model: str, seed: int) -> None:
    """For a torch forecaster: retrain it with the chosen seed and attribute the new network."""
    if not model.startswith("macro_torch"):
        return
    st.subheader("Retrain the torch forecaster")
    head = model.rsplit("_", 1)[1]
    run = live_panel(f"uncertainty_shapley:train:{head}:{seed}", train_and_attribute,
                     {"head": head, "seed": int(seed)}, start_label="Train and attribute",
                     group="uncertainty_shapley-train")
    if run is not None and run.result is not None and run.state == "done":
        t = run.result
        st.markdown(f"Held-out NLL of the retrained forecaster: **{t.test_nll:.2f}** nats; "
                    f"TC(Y | X) = {t.attribution.tc_conditional:.3f}, TC(Y) = {t.attribution.tc_prior:.3f}.")
        show(games_figure(t.attribution), key="chart-retrained")


def details_section(model: str, config, seed: int, a) -> None:
    """The config and the numbers behind the figures, with export buttons."""
    for _ in details("Details: configuration and numbers"):
        st.json({"model": model, "config": config.to_dict(), "seed": seed, "v_empty": dict(zip(GAMES, a.empty.tolist())),
                 "v_full": dict(zip(GAMES, a.full.tolist())), "tc_prior": a.tc_prior,
                 "tc_conditional": a.tc_conditional, "method": a.method, "evaluations": a.n_evaluations})
        st.dataframe(a.to_frame(), hide_index=True)
        export_buttons(a, f"uncertainty_shapley-{model}-seed{seed}", key="attr-export")


def render() -> None:
    page_header(SYSTEM)
    st.caption("The paper's last demonstration uses a zero-shot time-series foundation model. No hub weights can be "
               "used here, so a small probabilistic torch forecaster (Gaussian head, full or diagonal covariance), "
               "trained on the same macrodata series, stands in for it.")
    chosen = controls()
    if chosen is None:
        return
    model, config, seed = chosen
    views = cached_views()
    a = attribution_section(model, config, seed, views)
    if first_screen():
        return
    estimators_section(seed, views)
    retrain_section(model, seed)
    details_section(model, config, seed, a)


if __name__ == "__main__":
    render()
