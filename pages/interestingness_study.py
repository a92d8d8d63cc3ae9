"""The participant's page: consent → background → instructions with a practice item → rated items →
completion code. A state machine on one page; the participant id lives in the URL (``?pid=``), so a
reload or a crash resumes at the next unanswered item. Links carry ``study`` and, from Prolific,
PROLIFIC_PID / STUDY_ID / SESSION_ID; ``pop`` fixes the population, otherwise the background
questions place the participant. Nothing here shows anyone else's data."""

from __future__ import annotations

import html
import secrets
from datetime import datetime, timezone
from urllib.parse import urlencode

import streamlit as st
from app.ui.study import study_store

from core.interestingness import RATIONALES

PRACTICE = ("How many subsets of $\\{1, 2, 3\\}$ contain the element $1$?", "combinatorics")
SCALE = {"interestingness": "1 = not at all interesting · 7 = extremely interesting",
         "difficulty": "1 = trivial · 7 = extremely hard"}


def render() -> None:
    params = st.query_params
    study_id = _int(params.get("study"))
    if study_id is None:
        st.title("Interestingness study")
        st.info("Open this page from a study link. Experimenters create studies and participant links on the "
                "study admin page.")
        return
    try:
        study = study_store().study(study_id)
    except ValueError:
        st.error("This study link is not valid. Please contact the researcher.")
        return
    pid = params.get("pid")
    if pid:
        return items_step(study, pid)
    if not st.session_state.get("consented"):
        return consent_step()
    population = params.get("pop") if params.get("pop") in study["populations"] else None
    if population is None:
        population = background_step(study)
        if population is None:
            return
    external = params.get("PROLIFIC_PID") or st.session_state.setdefault("anon_id", f"anon-{secrets.token_hex(6)}")
    pid = study_store().enroll(study_id, external, population, prolific_study_id=params.get("STUDY_ID"),
                         session_id=params.get("SESSION_ID"), background=st.session_state.get("background"),
                         consent_at=st.session_state.get("consent_at"))
    st.query_params["pid"] = pid
    st.rerun()


def _int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def consent_step() -> None:
    st.title("How interesting is this math problem?")
    st.markdown(
        "You are invited to take part in a research study on how people judge the **interestingness** of "
        "mathematics problems. You will read about 20 short problems and, for each, rate how interesting and "
        "how difficult you find it and say why. You do not need to solve them. It takes about 15–20 minutes.\n\n"
        "**Your data.** We store your ratings under a random participant code, not your name. If you came from "
        "a recruitment platform, your platform id is kept only to match your submission for payment and is "
        "left out of the research data. You may stop at any time by closing the page.")
    agree = st.checkbox("I am 18 or older, I have read the above, and I agree to take part.", key="agree")
    if st.button("Continue", type="primary", disabled=not agree, key="consent"):
        st.session_state.consented = True
        st.session_state.consent_at = datetime.now(timezone.utc)
        st.rerun()


def background_step(study: dict) -> str | None:
    st.title("About you")
    with st.form("background_form"):
        level = st.selectbox("Highest level of mathematics you have studied",
                             ["High school", "Some college courses", "Undergraduate degree", "Graduate degree"],
                             key="level")
        olympiad = st.radio("Have you competed in a national olympiad final or the International Mathematical "
                            "Olympiad?", ["No", "Yes"], horizontal=True, key="olympiad")
        submitted = st.form_submit_button("Continue", type="primary")
    if not submitted:
        return None
    population = "olympiad" if olympiad == "Yes" and "olympiad" in study["populations"] else study["populations"][0]
    st.session_state.background = {"math_level": level, "olympiad": olympiad == "Yes"}
    return population


def items_step(study: dict, pid: str) -> None:
    try:
        participant = study_store().participant(pid)
    except ValueError:
        st.error("This participant link is not valid. Please open the study link you were given.")
        return
    if participant["study_id"] != study["id"]:
        st.error("This participant link belongs to another study.")
        return
    if participant["status"] == "active" and participant["answered"] == 0 and not st.session_state.get(f"ready:{pid}"):
        return instructions_step(pid)
    item = study_store().next_item(pid) if participant["status"] == "active" else None
    if item is None:
        return completion_step(study, pid)
    st.progress(item.position / item.total, text=f"Item {item.position + 1} of {item.total}")
    with st.container(border=True):
        st.markdown(item.statement)
    rating_form(pid, item)


def rating_form(pid: str, item) -> None:
    """One item's form. A click is tied to the item it was drawn for and to the values then set.

    The form is not cleared on submit (a second click during the rerun would otherwise send the
    cleared defaults); the click's callback names the item, so a click that lands after the page has
    moved on finds another item on screen and is ignored, and the store keeps the first answer per
    (participant, item). While the answer is being committed the button is drawn disabled under
    "Saving…"; the page moves on only once the store confirms, and keeps the values if it cannot."""
    pending = st.session_state.get("pending_submit")
    saving = pending == (pid, item.id)
    if pending is not None and not saving:          # a late click for an item already answered
        st.session_state.pop("pending_submit", None)
    with st.form(f"item:{item.id}", clear_on_submit=False):
        c1, c2 = st.columns(2)
        interest = c1.slider("How interesting is this problem?", 1, 7, 4, key=f"i:{item.id}", help=SCALE["interestingness"])
        c1.caption(SCALE["interestingness"])
        difficulty = c2.slider("How difficult is it?", 1, 7, 4, key=f"d:{item.id}", help=SCALE["difficulty"])
        c2.caption(SCALE["difficulty"])
        st.markdown("**Why?** Tick every reason that applies to your interestingness rating.")
        cols = st.columns(3)
        chosen = [r for i, r in enumerate(RATIONALES) if cols[i % 3].checkbox(r, key=f"r:{item.id}:{r}")]
        comment = st.text_area("Comment (optional)", max_chars=2000, key=f"c:{item.id}")
        st.form_submit_button("Submit and continue", type="primary", disabled=saving,
                              on_click=_mark_submitted, args=(pid, item.id), key=f"submit:{item.id}")
    problem = st.session_state.pop(f"unsaved:{item.id}", None)
    if problem:
        st.warning(problem)
    if not saving:
        return
    try:
        with st.spinner("Saving your answer…"):
            study_store().record_response(pid, item.id, int(interest), int(difficulty), chosen, comment or None)
    except ValueError as error:
        st.session_state.pop("pending_submit", None)
        st.error(str(error))
        return
    except Exception:  # noqa: BLE001 - the database could not confirm: keep the answer, never a traceback
        st.session_state.pop("pending_submit", None)
        st.session_state[f"unsaved:{item.id}"] = ("Your answer could not be saved yet; it is still filled in above. "
                                                  "Please press *Submit and continue* again.")
        st.rerun()
    st.session_state.pop("pending_submit", None)
    st.rerun()


def _mark_submitted(pid: str, item_id: str) -> None:
    st.session_state["pending_submit"] = (pid, item_id)


def instructions_step(pid: str) -> None:
    st.title("Instructions")
    st.markdown(
        "For each problem, read the statement and give two ratings from 1 to 7: how **interesting** you find the "
        "problem and how **difficult** you think it is. Then tick the reasons behind your interestingness rating. "
        "There are no right answers and you do not need to solve anything. A few items ask you to set the "
        "sliders to given values: they check that the page works for you.\n\nTry the practice item below; it "
        "is not recorded.")
    with st.container(border=True):
        st.markdown(f"*Practice ({PRACTICE[1]}).* {PRACTICE[0]}")
        c1, c2 = st.columns(2)
        c1.slider("How interesting is this problem?", 1, 7, 4, key="practice_i")
        c2.slider("How difficult is it?", 1, 7, 4, key="practice_d")
    if st.button("Start the study", type="primary", key="start"):
        st.session_state[f"ready:{pid}"] = True
        st.rerun()


def completion_step(study: dict, pid: str) -> None:
    code = study_store().complete(pid)
    st.title("Thank you!")
    st.success("Your answers are saved.")
    st.markdown(f"Your completion code: **{code}** (copy it from the box below).")
    st.code(code, language=None)
    if study["completion_url"]:
        url = f"{study['completion_url']}{'&' if '?' in study['completion_url'] else '?'}{urlencode({'cc': code})}"
        st.link_button("Return to the recruitment platform", url, type="primary")
        st.html(f"<script>setTimeout(function(){{window.top.location.href = {html.escape(repr(url))};}}, 3000);"
                "</script>", unsafe_allow_javascript=True)


if __name__ == "__main__":
    render()
