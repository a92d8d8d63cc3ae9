"""Human–LLM alignment for the interestingness study: run raters, compare them with the human ratings per
population, and generate new problems through the validity filter. Behind the admin password; without
it a visitor sees the shipped simulated demo's dashboard, labelled as simulated.

Every model-vs-human figure is out of sample: LLM raters never see the human ratings, and the offline
baseline is cross-fitted (each problem rated by the fold model that left it out). The study's
exclusion rule (core/interestingness/exclusion.py) is applied by default, with the counts shown and a
switch to include everyone; raters rate the study's own snapshot of its statements."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from app.ui.live import live_panel
from app.ui.plots import COLORS, show
from core.interestingness import analysis, load_problem_bank
from core.interestingness.exclusion import DEFAULT_MIN_MEDIAN_SECONDS, ExclusionRule, kept_rows
from core.interestingness.problems import RATIONALES, TOPICS
from core.interestingness.store import StudyStore
from pages._interestingness.auth import admin_gate
from pages._interestingness.store import study_store

DEMO = "demo"
RESAMPLES = 500   # bootstrap resamples on the page (first view ~1.2 s here)


@st.cache_data(show_spinner=False)
def demo_data() -> dict:
    from core.interestingness.demo import load_demo

    return load_demo()


def llm_from_store(ratings: list[dict]) -> dict:
    out = {}
    for r in ratings:
        name = f"{r['rater']}: {r['model']} ({r['prompt_version']})"
        entry = out.setdefault(name, {"interestingness": {}, "rationales": {}})
        entry["interestingness"][r["problem_id"]] = r["interestingness"]
        entry["rationales"][r["problem_id"]] = r["rationales"] or {}
    return out


@st.cache_data(show_spinner="Computing the alignment…", max_entries=16)
def alignment(rows: list[dict], llm: dict, populations: tuple) -> analysis.AlignmentReport:
    return analysis.alignment_report(rows, llm, populations, resamples=RESAMPLES)


def _ci(ci) -> str:
    return f"[{ci[0]:.2f}, {ci[1]:.2f}]"


def render() -> None:
    st.title("Interestingness: humans and LLMs")
    st.markdown("How well do LLM ratings of math problems' interestingness match human ones, per population: "
                "mean ratings, whole distributions, reasons, against the human reliability ceiling.")
    public = st.container()
    if not admin_gate():
        with public:
            public_demo()
        return
    store = study_store()
    studies = {DEMO: "Simulated demo study (shipped; simulated raters and simulated LLM)"}
    studies.update({s["id"]: f"{s['name']} (#{s['id']})" for s in store.studies()})
    source = st.selectbox("Data", list(studies), format_func=studies.get, key="source")
    if source == DEMO:
        demo = demo_data()
        rows, llms, populations = demo["rows"], demo["llm"], ("college", "olympiad")
        st.caption(f"**{demo['label']}.** Every rater in this study is simulated; it shows the dashboards, "
                   "not a finding. Simulated raters answer instantly, so the time rule is off for the demo.")
    else:
        rows, llms = store.rows(source), llm_from_store(store.llm_ratings(source))
        populations = tuple(store.study(source)["populations"])
    rows, rule = exclusion_controls(rows, source)
    tab_align, tab_raters, tab_generate = st.tabs(["Alignment", "Run raters", "Generate problems"])
    with tab_align:
        if not llms:
            st.info("No LLM ratings for this study yet: run a rater in the next tab.")
        else:
            dashboard(rows, llms, populations)
    with tab_raters:
        raters_panel(store, source, rule)
    with tab_generate:
        generation_panel(store, source)


def public_demo() -> None:
    """The shipped simulated demo's alignment dashboard, for visitors without the password (labelled simulated)."""
    demo = demo_data()
    st.info(f"**Public preview: {demo['label']}.** Every rater here, human and LLM, is simulated: the page shows "
            "its dashboards, not a finding. Real studies, running raters and generating problems need the admin "
            "password below.", icon=":material/visibility:")
    dashboard(demo["rows"], demo["llm"], ("college", "olympiad"))


def exclusion_controls(rows: list[dict], source) -> tuple[list[dict], ExclusionRule | None]:
    """The exclusion rule's threshold and switch; returns the rows the figures use and the rule applied."""
    c1, c2 = st.columns([1, 1])
    seconds = c1.number_input("Exclude participants whose median seconds per problem is below", 0.0, 600.0,
                              0.0 if source == DEMO else DEFAULT_MIN_MEDIAN_SECONDS, 0.5, key=f"min_seconds:{source}")
    include = c2.toggle("Include excluded participants", False, key="include_excluded")
    tolerated = 0 if source == DEMO else study_store().study(source)["max_failed_checks"]   # the study's own rule
    rule = ExclusionRule(float(seconds), tolerated)
    kept = kept_rows(rows, rule)
    counts = kept.exclusions.to_dict()
    st.markdown(f"**Exclusions** (failed an attention check, did not finish, or median time per problem under "
                f"{seconds:g} s): {counts['failed_attention']} failed attention · {counts['incomplete']} incomplete · "
                f"{counts['too_fast']} too fast; {counts['kept']} of {counts['participants']} participants kept"
                + (" — **all included below**." if include else "."))
    st.session_state["exclusions"] = counts
    return (rows, None) if include else (kept.rows, rule)


def dashboard(rows: list[dict], llms: dict, populations: tuple) -> None:
    name = st.selectbox("LLM rater", list(llms), key="llm")
    result = alignment(rows, llms[name], populations)
    st.dataframe(result.table.round(3), hide_index=True)
    st.download_button("Alignment table (CSV)", result.table.to_csv(index=False), "alignment.csv", "text/csv",
                       icon=":material/download:", on_click="ignore", key="export_alignment")
    show(means_figure(rows, result.llm_means, populations), key="chart-means")
    population = st.segmented_control("Population", list(result.per_item), default=list(result.per_item)[0],
                                      key="pop") or list(result.per_item)[0]
    match = result.per_item[population]
    item = st.selectbox("Problem", list(match.sort_values("wasserstein_1", ascending=False).item_id), key="item")
    c1, c2 = st.columns([1.2, 1])
    with c1:
        show(distribution_figure(rows, llms[name]["interestingness"][item], item, population), key="chart-dist")
    with c2:
        show(rationale_figure(rows, llms[name]["rationales"], population), key="chart-rationales")
    st.download_button("Per-problem distribution match (CSV)", match.to_csv(index=False), f"match_{population}.csv",
                       "text/csv", icon=":material/download:", on_click="ignore", key="export_match")
    if result.populations:
        p = result.populations
        st.markdown(f"**The two populations compared:** Spearman {p['spearman']:.2f} {_ci(p['spearman_ci'])}, "
                    f"Kendall {p['kendall']:.2f} {_ci(p['kendall_ci'])} over {p['items']} problems.")


def means_figure(rows, llm_means: pd.Series, populations) -> go.Figure:
    fig = go.Figure()
    for i, population in enumerate(populations):
        means = analysis.item_means(rows, population)
        shared = means.index.intersection(llm_means.index)
        fig.add_trace(go.Scatter(x=means.loc[shared], y=llm_means.loc[shared], mode="markers", name=population,
                                 text=list(shared), marker=dict(color=COLORS[i], size=8, opacity=0.75)))
    fig.add_trace(go.Scatter(x=[1, 7], y=[1, 7], mode="lines", line=dict(color="#999", dash="dot"), name="y = x"))
    fig.update_layout(title="Mean interestingness per problem: LLM against humans", xaxis_title="human mean",
                      yaxis_title="LLM expected rating", height=420)
    return fig


def distribution_figure(rows, llm_dist, item: str, population: str) -> go.Figure:
    humans = analysis.human_ratings(rows, population)
    human = analysis.empirical_distribution(humans[humans.item_id == item]["interestingness"])
    fig = go.Figure([go.Bar(x=list(range(1, 8)), y=human, name=f"humans ({population})", marker_color=COLORS[0]),
                     go.Bar(x=list(range(1, 8)), y=llm_dist, name="LLM", marker_color=COLORS[1])])
    fig.update_layout(title=f"{item}: W1 {analysis.wasserstein_1(llm_dist, human):.2f}, "
                            f"JS {analysis.jensen_shannon(llm_dist, human):.3f} bits", barmode="group",
                      xaxis_title="rating", yaxis_title="probability", height=360)
    return fig


def rationale_figure(rows, llm_rationales: dict, population: str) -> go.Figure:
    human = analysis.rationale_frequencies(rows, population)
    items = [i for i in human.index if i in llm_rationales][:30]
    reasons = list(RATIONALES[:-1])
    llm = pd.DataFrame({i: [llm_rationales[i].get(r, 0.0) for r in reasons] for i in items}, index=reasons).T
    # Short subplot titles: in a half-width column the long ones ran into each other.
    fig = make_subplots(rows=1, cols=2, subplot_titles=["Reasons: humans (share)", "LLM (probability)"],
                        shared_yaxes=True, horizontal_spacing=0.06)
    for col, table in ((1, human.loc[items, reasons]), (2, llm)):
        fig.add_trace(go.Heatmap(z=table.to_numpy(), x=reasons, y=items, colorscale="Blues", zmin=0, zmax=1,
                                 showscale=col == 2, colorbar=dict(thickness=10)), row=1, col=col)
    fig.update_layout(height=360)
    fig.update_annotations(font_size=12)
    fig.update_xaxes(tickangle=45, tickfont=dict(size=9))
    return fig


def run_rater(rater_kind: str, settings: dict, study, store: StudyStore, progress=None, rule=None,
              include_excluded: bool = False):
    """Rate every problem of the study (its own snapshot of the statements; the shipped bank for the demo) and
    store the ratings when a study is chosen. The offline baseline is cross-fitted on the human means of the
    participants the exclusion rule keeps, so every rating it gives is out of sample."""
    from core.common.progress import report
    from core.interestingness.raters import OpenAICompatibleRater, TransformersRater

    problems = load_problem_bank() if study == DEMO else store.study_problem_objects(study)
    results = {}
    if rater_kind == "MiniLM + ridge (offline baseline)":
        from core.interestingness.embedding_rater import EmbeddingRidgeRater

        rows = demo_data()["rows"] if study == DEMO else store.rows(study)
        if not include_excluded:
            rows = kept_rows(rows, rule).rows
        results = EmbeddingRidgeRater().cross_rate(problems, analysis.item_means(rows))
        rater = None
    elif rater_kind == "Local model directory":
        rater = TransformersRater(settings["model_dir"])
    else:
        rater = OpenAICompatibleRater(settings["base_url"], settings["model"], settings.get("api_key") or None)
    done = {}
    for i, problem in enumerate(problems, 1):
        done[problem.id] = results[problem.id] if rater is None else rater.rate(problem)
        if study != DEMO:
            store.add_llm_rating(problem.id, done[problem.id], study_id=study)
        if not report(progress, i, len(problems), {"expected rating": done[problem.id].expected_interestingness}):
            break
    return done


def raters_panel(store: StudyStore, study, rule: ExclusionRule | None = None) -> None:
    kind = st.radio("Rater", ["MiniLM + ridge (offline baseline)", "Local model directory",
                              "OpenAI-compatible endpoint"], horizontal=True, key="rater_kind")
    fields = {}   # setting -> widget key, read at the click so that a value typed just before it counts
    if kind == "Local model directory":
        st.text_input("Hugging Face causal-LM directory", key="model_dir")
        fields = {"model_dir": "model_dir"}
    elif kind == "OpenAI-compatible endpoint":
        c1, c2, c3 = st.columns(3)
        c1.text_input("Base URL", "http://127.0.0.1:8000/v1", key="base_url")
        c2.text_input("Model", key="endpoint_model")
        c3.text_input("API key (kept in memory only)", type="password", key="api_key")
        fields = {"base_url": "base_url", "model": "endpoint_model", "api_key": "api_key"}
    st.caption("Ratings of a real study are stored next to the human ones; on the demo they stay in this session. "
               "The offline baseline is cross-fitted on the kept participants' means: each problem is rated by a "
               "model that never saw its human ratings.")

    def arguments() -> dict:
        settings = {name: st.session_state.get(widget, "") for name, widget in fields.items()}
        return {"rater_kind": kind, "settings": settings, "study": study, "store": store,
                "rule": rule or ExclusionRule(), "include_excluded": rule is None}

    live_panel(f"interestingness_rate:{study}:{kind}", run_rater, arguments, start_label="Rate every problem")


def generation_panel(store: StudyStore, study) -> None:
    from core.interestingness.generation import generate_with

    c1, c2, c3 = st.columns(3)
    topic = c1.selectbox("Topic", list(TOPICS), key="gen_topic")
    difficulty = c2.slider("Difficulty", 1, 5, 3, key="gen_difficulty")
    n = c3.number_input("How many", 1, 20, 3, key="gen_n")
    backend = st.radio("Generator and judge", ["OpenAI-compatible endpoint", "Local model directory"],
                       horizontal=True, key="gen_backend")
    if backend == "Local model directory":
        st.text_input("Hugging Face causal-LM directory", key="gen_dir")
        fields, kind = {"model_dir": "gen_dir"}, "local"
    else:
        d1, d2, d3 = st.columns(3)
        d1.text_input("Base URL", "http://127.0.0.1:8000/v1", key="gen_url")
        d2.text_input("Model", key="gen_model")
        d3.text_input("API key (kept in memory only)", type="password", key="gen_key")
        fields, kind = {"base_url": "gen_url", "model": "gen_model", "api_key": "gen_key"}, "endpoint"

    def arguments() -> dict:   # read at the click: a value typed just before it counts
        return {"backend": kind, "settings": {k: st.session_state.get(w, "") for k, w in fields.items()},
                "topic": topic, "difficulty": int(difficulty), "n": int(n)}

    run = live_panel(f"interestingness_generate:{study}:{kind}:{topic}:{difficulty}:{n}", generate_with, arguments,
                     start_label="Generate and filter")
    if run is not None and run.result is not None and run.state in ("done", "stopped"):
        st.session_state.verdicts = run.result
    verdicts = st.session_state.get("verdicts", [])
    if verdicts:
        st.dataframe(pd.DataFrame([{"kept": v.kept, "reason": v.reason,
                                    "statement": v.problem.statement if v.problem else v.raw[:200],
                                    "answer": v.problem.answer if v.problem else None} for v in verdicts]),
                     hide_index=True)
        kept = [v.problem for v in verdicts if v.kept]
        if study != DEMO and kept and st.button(f"Add {len(kept)} kept problems to this study's pool", key="add_pool"):
            added = store.add_to_pool(study, kept)
            st.success(f"{added} problems added; participants see them like any other problem.")


if __name__ == "__main__":
    render()
