"""The experimenter's page for the interestingness study, behind a password: create or open a study,
load problems, participant links, live progress, data quality, reliability, distributions, export.
Without the password a visitor sees a public preview: the monitor over the shipped simulated demo,
labelled as simulated, and one item as a participant sees it (nothing is stored).

The password comes from ``STUDY_ADMIN_PASSWORD`` or ``st.secrets["study_admin_password"]`` and is
compared with ``hmac.compare_digest``; without one configured the page shows how to set it and
nothing else. Links that fix the population carry ``sig``, an HMAC under ``STUDY_SECRET`` (without it
only the link that asks the background questions is offered); they start from ``PUBLIC_URL`` or else
the address the admin is using."""

from __future__ import annotations

import os
from urllib.parse import urlencode

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app.catalog import BY_KEY
from app.ui.cache import shipped
from app.ui.plots import COLORS, show
from app.ui.verdicts import verdict_strip
from core.interestingness import load_problem_bank, monitor, parse_problems
from core.interestingness.exclusion import exclusions
from core.interestingness.safety import signature
from pages._interestingness.auth import admin_gate
from pages._interestingness.store import study_secret, study_store

SYSTEM = BY_KEY["interestingness"]


def render() -> None:
    st.title(SYSTEM.title)
    st.markdown(f"{SYSTEM.claim} This page runs the human rating study: create a study, share participant links, "
                "watch progress and data quality, export the ratings.")
    verdict_strip(SYSTEM.key)
    public = st.container()
    if not admin_gate():
        with public:
            public_preview()
        return
    with st.expander("Create a study", expanded=not study_store().studies()):
        create_form()
    notice = st.session_state.pop("created_notice", None)
    if notice:
        st.success(notice)
    studies = study_store().studies()
    if not studies:
        st.info("No study yet: create one above.")
        return
    names = {s["id"]: f"{s['name']} (#{s['id']})" for s in studies}
    study_id = st.selectbox("Study", list(names), format_func=names.get, index=len(names) - 1, key="study_id")
    study = study_store().study(study_id)
    manage_section(study)
    links_section(study)
    rows = study_store().rows(study_id)
    participants = study_store().participants(study_id)
    st.subheader("Progress", divider="gray")
    st.dataframe(monitor.progress(participants, rows), hide_index=True)
    resumed = [p for p in participants if p.get("resumes")]
    if resumed:
        st.warning(f"{len(resumed)} participant(s) had their link opened again from a new browser session "
                   f"({sum(p['resumes'] for p in resumed)} times in all): Prolific participants come back that way, "
                   "and so would someone who typed another participant's id. Only the next unanswered item is shown "
                   "to them. Column *resumed* above.")
    per_item = monitor.ratings_per_item(rows)
    if not per_item.empty:
        show(bars(per_item, "Ratings per problem and population"), key="chart-per-item")
    st.subheader("Data quality and reliability", divider="gray")
    quality_section(study, rows)
    st.subheader("Rating distributions", divider="gray")
    field = st.segmented_control("Rating", ["interestingness", "difficulty"], default="interestingness",
                                 key="dist_field") or "interestingness"
    dist = monitor.distributions(rows, field)
    if dist.empty:
        st.caption("No ratings yet.")
    else:
        show(heatmap(dist, field), key="chart-dist")
    st.subheader("Export", divider="gray")
    c1, c2, c3 = st.columns([1, 1, 2])
    c1.download_button("CSV", study_store().export(study_id, "csv"), f"study{study_id}.csv", "text/csv",
                       icon=":material/download:", on_click="ignore", key="export_csv")
    c2.download_button("JSON", study_store().export(study_id, "json"), f"study{study_id}.json", "application/json",
                       icon=":material/download:", on_click="ignore", key="export_json")
    c3.caption("One row per response with the participant's pseudonymous id and population; recruiter ids "
               "(PROLIFIC_PID) stay out of the export.")


def public_preview() -> None:
    """What a visitor without the password sees: the simulated demo's monitor and one item as participants see it."""
    from core.interestingness.demo import load_demo

    demo = shipped(load_demo)   # read once per server, not on every rerun of the locked page
    rows = demo["rows"]
    st.info(f"**Public preview: {demo['label']}.** The charts below are the admin's monitor over simulated raters "
            "(no real participant's data); creating studies, links and exports need the admin password below. "
            "The alignment with LLM raters is on *Interestingness: humans and LLMs*.", icon=":material/visibility:")
    show(bars(monitor.ratings_per_item(rows), "Ratings per problem and population (simulated raters)"),
         key="chart-demo-per-item")
    show(heatmap(monitor.distributions(rows, "interestingness"), "interestingness"), key="chart-demo-dist")
    with st.expander("Preview: one item as a participant sees it", expanded=False):
        problem = load_problem_bank()[0]
        st.caption("Participants see one item at a time at their own link, after consent and instructions; "
                   "this preview stores nothing.")
        st.markdown(f"**Item 1 of 12**\n\n{problem.statement}")
        for label in ("How interesting is this problem?", "How difficult is it?"):
            st.segmented_control(label, list(range(1, 8)), key=f"preview-{label}", disabled=True)


def create_form() -> None:
    with st.form("create"):
        name = st.text_input("Name", key="new_name")
        c1, c2 = st.columns(2)
        k = c1.number_input("Problems per participant", 1, 200, 20, key="new_k")
        checks = c2.number_input("Attention checks", 0, 5, 2, key="new_checks")
        tolerated = c2.number_input("Wrong attention checks tolerated by the exclusion rule", 0, 5, 0,
                                    key="new_tolerated")
        url = st.text_input("Completion URL (optional, e.g. https://app.prolific.com/submissions/complete)",
                            key="new_url")
        hours = st.number_input("Release an idle participant's unanswered items to others after (hours)", 0.1, 720.0,
                                2.0, 0.5, key="new_timeout")
        upload = st.file_uploader("Problems (CSV or JSON); leave empty for the shipped bank", type=["csv", "json"],
                                  key="new_upload")
        submitted = st.form_submit_button("Create study", type="primary")
    if not submitted:
        return
    try:
        problems = (parse_problems(upload.getvalue().decode("utf-8"), upload.name.rsplit(".", 1)[-1].lower())
                    if upload is not None else load_problem_bank())
        study_id = study_store().create_study(name, [p.id for p in problems], int(k), int(checks),
                                              completion_url=url.strip() or None, problems=problems,
                                              assignment_timeout_s=int(round(float(hours) * 3600)),
                                              max_failed_checks=int(tolerated))
    except (ValueError, UnicodeDecodeError) as error:
        st.error(str(error))
        return
    st.session_state["created_notice"] = f"Study #{study_id} created with {len(problems)} problems."
    st.session_state.pop("study_id", None)          # the selector then opens the newest study
    st.rerun()


def manage_section(study: dict) -> None:
    """Close or reopen the study; withdraw a participant (delete or flag their responses); the audit trail."""
    store = study_store()
    closed = study["closed_at"] is not None
    c1, c2 = st.columns([1, 3])
    if c1.button("Reopen the study" if closed else "Close the study", key="toggle_closed"):
        store.set_closed(study["id"], not closed)
        st.rerun()
    c2.caption(f"Closed since {study['closed_at']}: its links show a notice, participants already in may finish."
               if closed else "Open: its links enrol new participants.")
    with st.expander("Withdraw a participant"):
        with st.form("withdraw"):
            pid = st.text_input("Participant id (the pseudonymous id of the export)", key="withdraw_pid")
            mode = st.radio("Their responses", ["delete them", "keep them, flagged as withdrawn"], key="withdraw_mode")
            reason = st.text_input("Reason (optional, kept in the audit trail)", key="withdraw_reason")
            go_ = st.form_submit_button("Withdraw")
        if go_:
            ids = {p["participant_id"] for p in store.participants(study["id"])}
            if pid.strip() not in ids:
                st.error("participant_id: not a participant of this study; allowed an id from this study's export")
            else:
                try:
                    deleted = store.withdraw(pid.strip(), mode == "delete them", reason.strip() or None)
                except ValueError as error:
                    st.error(str(error))
                else:
                    st.success(f"Withdrawn; {deleted} responses deleted.")
        audit = store.audit(study["id"])
        if audit:
            st.dataframe(pd.DataFrame(audit).astype(str), hide_index=True, key="audit")


def links_section(study: dict) -> None:
    st.subheader("Participant links", divider="gray")
    base = st.text_input("This app's public address", public_address(), key="base_url")
    secret, rows = study_secret(), []
    if not secret or len(secret) < 16:
        st.warning("Links that fix the population need `STUDY_SECRET` (16 or more characters, in the environment or "
                   "`study_secret` in `.streamlit/secrets.toml`): they are signed with it so that `pop=` cannot be "
                   "edited. Until it is set, only the link that asks the background questions is offered.")
    for population in (study["populations"] if secret and len(secret) >= 16 else []):
        query = urlencode({"study": study["id"], "pop": population,
                           "sig": signature(secret, study["id"], pop=population)})
        rows.append({"population": population,
                     "Prolific link": f"{base.rstrip('/')}/interestingness_study?{query}"
                                      "&PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}",
                     "plain link": f"{base.rstrip('/')}/interestingness_study?{query}"})
    rows.append({"population": "(asked in the study)", "Prolific link": "",
                 "plain link": f"{base.rstrip('/')}/interestingness_study?{urlencode({'study': study['id']})}"})
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    st.caption(f"Completion code {study['completion_code']} · failed-checks code {study['failed_code']}")


def public_address() -> str:
    """``PUBLIC_URL``, or the scheme and host of the request the admin is making, or localhost:8501."""
    if os.environ.get("PUBLIC_URL"):
        return os.environ["PUBLIC_URL"].rstrip("/")
    try:
        headers = st.context.headers
        host = headers.get("X-Forwarded-Host") or headers.get("Host")
        scheme = headers.get("X-Forwarded-Proto") or ("http" if (host or "").startswith(("localhost", "127.")) else
                                                      "https")
    except Exception:  # noqa: BLE001 - no request (AppTest)
        host = None
    return f"{scheme}://{host}" if host else "http://localhost:8501"


def quality_section(study: dict, rows: list[dict]) -> None:
    c1, c2 = st.columns(2)
    with c1:
        failures = monitor.attention_failures(rows)
        st.metric("Participants failing an attention check", int((failures.failed > 0).sum()) if len(failures) else 0)
        rule = study_store().rule(study["id"])
        found = exclusions(rows, rule)
        counts = found.to_dict()
        st.metric("Excluded from the analysis by the study's rule", f"{counts['participants'] - counts['kept']} of "
                  f"{counts['participants']}")
        st.caption(f"{counts['withdrawn']} withdrew · {counts['failed_attention']} failed more than "
                   f"{rule.max_failed_checks} attention check(s) · {counts['incomplete']} did not finish · "
                   f"{counts['too_fast']} took under {rule.min_median_seconds:g} s per problem (median). "
                   "The export keeps every response and names the reason in its `excluded` column.")
        seconds = monitor.response_seconds(rows)
        if len(seconds):
            st.metric("Median seconds per problem", f"{np.median(seconds):.1f}")
            fig = go.Figure(go.Histogram(x=seconds, nbinsx=30, marker_color=COLORS[0]))
            fig.update_layout(title="Response time per problem (s)", height=260, xaxis_title="seconds")
            show(fig, key="chart-times")
    with c2:
        table = [{"population": p, "alpha (interestingness)": monitor.krippendorff_alpha(rows, p),
                  "alpha (difficulty)": monitor.krippendorff_alpha(rows, p, "difficulty")}
                 for p in study["populations"]]
        st.markdown("**Inter-rater reliability**: Krippendorff's α, ordinal (blank until raters overlap)")
        st.dataframe(pd.DataFrame(table).round(3), hide_index=True)


def bars(per_item: pd.DataFrame, title: str) -> go.Figure:
    fig = go.Figure()
    for i, population in enumerate(per_item.columns):
        fig.add_trace(go.Bar(x=per_item.index, y=per_item[population], name=population, marker_color=COLORS[i]))
    fig.update_layout(title=title, barmode="group", height=300, xaxis_title="problem", yaxis_title="ratings")
    return fig


def heatmap(dist: pd.DataFrame, field: str) -> go.Figure:
    fig = go.Figure(go.Heatmap(z=dist.to_numpy(), x=list(dist.columns), y=list(dist.index), colorscale="Blues",
                               colorbar=dict(title="ratings", thickness=12)))
    fig.update_layout(title=f"{field.capitalize()} ratings per problem", xaxis_title="rating", yaxis_title="problem",
                      height=max(300, 14 * len(dist)))
    return fig


if __name__ == "__main__":
    render()
