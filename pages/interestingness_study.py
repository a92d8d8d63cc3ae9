"""The participant's page: consent → background → instructions with a practice item → rated items →
completion code. A state machine on one page; the participant id lives in the URL (``?pid=``), so a
reload or a crash resumes at the next unanswered item. Links carry ``study`` and, from Prolific,
PROLIFIC_PID / STUDY_ID / SESSION_ID; ``pop`` fixes the population, otherwise the background
questions place the participant. Nothing here shows anyone else's data.

On the open web (core/interestingness/safety.py): every link parameter is checked (length,
characters, NUL) before it reaches the database; ``pop`` counts only with ``sig``, its HMAC under
``STUDY_SECRET``, so it cannot be edited; any error becomes a plain message with a reference code
(the detail goes to the server's log), never a traceback. A link with a PROLIFIC_PID that already
took part resumes that participant at their next unanswered item, skipping consent and background
(Prolific participants come back that way); the store counts it and the admin view flags it."""

from __future__ import annotations

import json
import secrets
from datetime import datetime, timezone
from urllib.parse import urlencode

import streamlit as st

from core.interestingness import RATIONALES
from core.interestingness.safety import check_http_url, check_link_params, reference, verify
from pages._interestingness.store import study_secret, study_store

LINK_PARAMS = ("study", "pid", "pop", "sig", "PROLIFIC_PID", "STUDY_ID", "SESSION_ID")
PRACTICE = ("How many subsets of $\\{1, 2, 3\\}$ contain the element $1$?", "combinatorics")
SCALE = {"interestingness": "1 = not at all interesting · 7 = extremely interesting",
         "difficulty": "1 = trivial · 7 = extremely hard"}
ENDS = {"interestingness": {1: "1 · not at all", 7: "7 · extremely"}, "difficulty": {1: "1 · trivial", 7: "7 · very hard"}}
QUESTIONS = {"interestingness": "How interesting is this problem?", "difficulty": "How difficult is it?"}


def scale(container, field: str, key: str):
    """A 1..7 rating with labelled ends and every point shown; None until the participant picks one (nothing
    is preselected, so an untouched scale cannot be submitted as a rating)."""
    value = container.segmented_control(QUESTIONS[field], list(range(1, 8)), key=key, help=SCALE[field],
                                        format_func=lambda v: ENDS[field].get(v, str(v)))
    container.caption(SCALE[field])
    return value


def render() -> None:
    """The page, with every unexpected error turned into a plain message and a reference code."""
    try:
        _render()
    except Exception as error:  # noqa: BLE001 - participants never see a traceback or SQL
        code = reference(error, "interestingness_study")
        st.error(f"Sorry, something went wrong on our side. Please try again in a minute; if it keeps happening, "
                 f"contact the researcher and quote the reference **{code}**.")


HIDE_MENU = ("<style>[data-testid='stMainMenu'], [data-testid='stToolbar'], [data-testid='stDecoration']"
             "{display: none !important;}</style>")


def _render() -> None:
    st.html(HIDE_MENU)                    # no Print / Record screen menu for participants
    try:
        params = check_link_params({k: st.query_params.get(k) for k in LINK_PARAMS})
    except ValueError:
        st.error("This study link is not valid. Please open the link exactly as you were given it, or contact "
                 "the researcher.")
        return
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
    population = params.get("pop")
    if population is not None and (population not in study["populations"]
                                   or not verify(study_secret(), study_id, params.get("sig"), pop=population)):
        st.error("This study link is not valid (it does not match the link the researcher made). Please open the "
                 "link exactly as you were given it.")
        return
    pid = params.get("pid")
    if pid:
        return items_step(study, pid)
    closed = study.get("closed_at") is not None
    if params.get("PROLIFIC_PID") and not st.session_state.get("consented"):
        resumed = study_store().resume(study_id, params["PROLIFIC_PID"])
        if resumed:                       # came back from a new browser: consent and background were given
            st.query_params["pid"] = resumed
            st.session_state[f"ready:{resumed}"] = True
            st.rerun()
    if closed:
        st.title("This study is closed")
        st.info("Thank you for your interest: this study is not taking new participants at the moment. If you "
                "came from a recruitment platform, please return your submission there.")
        return
    if not st.session_state.get("consented"):
        return consent_step(study)
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


def _http(url) -> bool:
    try:
        return check_http_url("completion_url", url) is not None
    except ValueError:
        return False


def _int(value):
    if value is None or not str(value).isascii() or not str(value).isdigit() or len(str(value)) > 12:
        return None
    return int(value)


ASSUMED_ITEM_SECONDS = 45.0     # our guess per item until the study has measured response times


def duration_text(study: dict, typical_seconds: float | None) -> str:
    """The consent page's size and time: the study's own item count, and minutes from the measured median
    seconds per item (our assumption of 45 s until ten answers are timed), plus two minutes of reading."""
    problems, checks = study["items_per_participant"], study["attention_checks"]
    per_item = typical_seconds if typical_seconds is not None else ASSUMED_ITEM_SECONDS
    minutes = max(1, round((problems + checks) * per_item / 60 + 2))
    basis = "from the answers so far" if typical_seconds is not None else "our estimate"
    items = f"{problems} short problem{'s' if problems != 1 else ''}"
    return (f"You will read {items} and, for each, rate how interesting and how difficult you find it and say "
            f"why{f' (plus {checks} quick check' + ('s' if checks != 1 else '') + ')' if checks else ''}. You do "
            f"not need to solve them. It takes about {minutes} minutes ({basis}).")


def consent_step(study: dict) -> None:
    st.title("How interesting is this math problem?")
    st.markdown(
        "You are invited to take part in a research study on how people judge the **interestingness** of "
        f"mathematics problems. {duration_text(study, study_store().typical_item_seconds(study['id']))}\n\n"
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
    if participant["status"] == "withdrawn":
        st.title("You have withdrawn from this study")
        st.info("Your withdrawal is recorded. Thank you for your time.")
        return
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
        interest = scale(c1, "interestingness", f"i:{item.id}")
        difficulty = scale(c2, "difficulty", f"d:{item.id}")
        st.markdown("**Why?** Tick every reason that applies to your interestingness rating.")
        cols = st.columns(3)
        chosen = [r for i, r in enumerate(RATIONALES) if cols[i % 3].checkbox(r, key=f"r:{item.id}:{r}")]
        comment = st.text_area("Comment (optional)", max_chars=2000, key=f"c:{item.id}")
        st.form_submit_button("Submit and continue", type="primary", disabled=saving,
                              on_click=_mark_submitted, args=(pid, item.id), key=f"submit:{item.id}")
    problem = st.session_state.pop(f"unsaved:{item.id}", None)
    if problem:
        st.warning(problem)
    missing = st.session_state.pop(f"unrated:{item.id}", None)
    if missing:
        st.warning(f"Please choose a rating from 1 to 7 for {missing} before continuing.")
    if not saving:
        return
    try:
        with st.spinner("Saving your answer…"):
            study_store().record_response(pid, item.id, int(interest), int(difficulty), chosen, comment or None)
    except ValueError as error:
        st.session_state.pop("pending_submit", None)
        st.error(str(error))
        return
    except Exception as error:  # noqa: BLE001 - the database could not confirm: keep the answer, never a traceback
        reference(error, "record_response")
        st.session_state.pop("pending_submit", None)
        st.session_state[f"unsaved:{item.id}"] = ("Your answer could not be saved yet; it is still filled in above. "
                                                  "Please press *Submit and continue* again.")
        st.rerun()
    st.session_state.pop("pending_submit", None)
    st.rerun()


def _mark_submitted(pid: str, item_id: str) -> None:
    """The click's callback: a submit with a scale left unpicked is not a submit (the page says which)."""
    missing = [f for f, key in (("interestingness", f"i:{item_id}"), ("difficulty", f"d:{item_id}"))
               if st.session_state.get(key) is None]
    if missing:
        st.session_state[f"unrated:{item_id}"] = " and ".join(missing)
        return
    st.session_state["pending_submit"] = (pid, item_id)


def instructions_step(pid: str) -> None:
    st.title("Instructions")
    st.markdown(
        "For each problem, read the statement and give two ratings from 1 to 7: how **interesting** you find the "
        "problem and how **difficult** you think it is. Then tick the reasons behind your interestingness rating. "
        "There are no right answers and you do not need to solve anything. A few items ask you to set the "
        "ratings to given values: they check that the page works for you.\n\nTry the practice item below; it "
        "is not recorded.")
    with st.container(border=True):
        st.markdown(f"*Practice ({PRACTICE[1]}).* {PRACTICE[0]}")
        c1, c2 = st.columns(2)
        scale(c1, "interestingness", "practice_i")
        scale(c2, "difficulty", "practice_d")
    if st.button("Start the study", type="primary", key="start"):
        st.session_state[f"ready:{pid}"] = True
        st.rerun()


def completion_step(study: dict, pid: str) -> None:
    code = study_store().complete(pid)
    st.title("Thank you!")
    st.success("Your answers are saved.")
    st.markdown(f"Your completion code: **{code}** (copy it from the box below).")
    st.code(code, language=None)
    if _http(study["completion_url"]):
        url = f"{study['completion_url']}{'&' if '?' in study['completion_url'] else '?'}{urlencode({'cc': code})}"
        st.link_button("Return to the recruitment platform", url, type="primary")
        # json.dumps makes a JS string literal; "<" as \u003c so the URL cannot close or alter the script element
        target = json.dumps(url).replace("<", "\\u003c")
        st.html(f"<script>setTimeout(function(){{window.top.location.href = {target};}}, 3000);</script>",
                unsafe_allow_javascript=True)


if __name__ == "__main__":
    render()
