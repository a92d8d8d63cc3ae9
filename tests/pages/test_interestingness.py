"""The study pages through AppTest: a participant's whole run, resuming, and the locked admin page."""

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from core.interestingness import StudyStore, load_problem_bank
from tests.pages import apptest


@pytest.fixture
def study(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'study.sqlite'}"
    monkeypatch.setenv("STUDY_DATABASE_URL", url)
    store = StudyStore(url)
    bank = load_problem_bank()
    sid = store.create_study("page test", [p.id for p in bank[:12]], items_per_participant=3, problems=bank[:12])
    yield store, sid
    store.close()


def participant_app(**params):
    """The participant's link: AppTest cannot open a URL path, so it switches to the page the path names."""
    at = AppTest.from_file(apptest.MAIN, default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.sidebar.children or "Home" not in str(at.sidebar)     # no navigation for participants
    at.switch_page("../pages/interestingness_study.py")
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def answer_current_item(at, interestingness=6, difficulty=2):
    item_id = next(s.key for s in at.slider if s.key.startswith("i:"))[2:]
    text = " ".join(m.value for m in at.markdown)
    if "Attention check" in text:
        interestingness, difficulty = (int(x) for x in re.findall(r"\*\*(\d)\*\*", text)[:2])
    at.slider(key=f"i:{item_id}").set_value(interestingness)
    at.slider(key=f"d:{item_id}").set_value(difficulty)
    at.checkbox(key=f"r:{item_id}:elegant solution").check()
    next(b for b in at.button if b.label == "Submit and continue").click().run()
    assert not at.exception, [e.message for e in at.exception]
    return item_id


def test_a_participant_runs_from_the_link_to_the_completion_code(study):
    store, sid = study
    at = participant_app(study=str(sid), PROLIFIC_PID="PP-1", STUDY_ID="S", SESSION_ID="X", pop="olympiad")
    assert not at.exception and "How interesting" in at.title[0].value
    at.checkbox(key="agree").check().run()
    at.button(key="consent").click().run()
    assert at.title[0].value == "Instructions" and at.query_params["pid"]
    pid = at.query_params["pid"][0] if isinstance(at.query_params["pid"], list) else at.query_params["pid"]
    at.button(key="start").click().run()
    answered = [answer_current_item(at) for _ in range(5)]          # 3 problems + 2 attention checks
    assert at.title[0].value == "Thank you!"
    code = at.code[0].value
    assert code == store.study(sid)["completion_code"]
    rows = json.loads(store.export(sid, "json"))
    assert [r["item_id"] for r in rows] == answered and {r["participant_id"] for r in rows} == {pid}
    assert all(r["population"] == "olympiad" and r["rationales"] == ["elegant solution"] for r in rows)
    assert all(r["attention_passed"] for r in rows if r["kind"] == "attention")
    assert all((r["interestingness"], r["difficulty"]) == (6, 2) for r in rows if r["kind"] == "problem")


def test_a_reopened_link_resumes_at_the_next_item(study):
    store, sid = study
    pid = store.enroll(sid, "PP-2", "college")
    first = store.next_item(pid)
    store.record_response(pid, first.id, *(first.expected or {"i": 3, "d": 3}).values())
    at = participant_app(study=str(sid), pid=pid)
    assert "Item 2 of 5" in at.get("progress")[0].proto.text
    assert store.next_item(pid).id in [s.key[2:] for s in at.slider]


def test_background_questions_place_the_participant(study):
    store, sid = study
    at = participant_app(study=str(sid), PROLIFIC_PID="PP-3")
    at.checkbox(key="agree").check().run()
    at.button(key="consent").click().run()
    at.radio(key="olympiad").set_value("Yes")
    next(b for b in at.button if b.label == "Continue").click().run()
    pid = at.query_params["pid"]
    assert store.participant(pid if isinstance(pid, str) else pid[0])["population"] == "olympiad"


def test_bad_links_show_no_data(study):
    store, sid = study
    other = store.enroll(sid, "someone", "college")
    at = participant_app(study="999", pid=other)
    assert "not valid" in at.error[0].value and not at.slider
    at = participant_app(study=str(sid), pid="forged")
    assert "not valid" in at.error[0].value and not at.slider and not at.dataframe


def test_admin_shows_nothing_without_the_password(study, monkeypatch):
    monkeypatch.delenv("STUDY_ADMIN_PASSWORD", raising=False)
    at = apptest.open_page("interestingness", timeout=60)
    assert "locked" in at.warning[0].value and not at.dataframe and not at.text_input
    monkeypatch.setenv("STUDY_ADMIN_PASSWORD", "s3cret")
    at = apptest.open_page("interestingness", timeout=60)
    at.text_input(key="admin_password").input("wrong").run()
    assert at.error[0].value == "Wrong password." and not at.dataframe and not at.get("download_button")
    at.text_input(key="admin_password").input("s3cret").run()
    assert not at.exception and at.dataframe and not at.error


def test_admin_creates_a_study_and_sees_its_progress(study, monkeypatch):
    store, sid = study
    pid = store.enroll(sid, "PP-4", "college")
    while (item := store.next_item(pid)) is not None:
        store.record_response(pid, item.id, *(item.expected or {"i": 5, "d": 5}).values())
    store.complete(pid)
    monkeypatch.setenv("STUDY_ADMIN_PASSWORD", "s3cret")
    at = apptest.open_page("interestingness", timeout=60)
    at.text_input(key="admin_password").input("s3cret").run()
    progress = at.dataframe[1].value.set_index("population")
    assert progress.loc["college", "completed"] == 1 and progress.loc["college", "ratings"] == 3
    links = at.dataframe[0].value
    assert f"study={sid}&pop=college&PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}" in links["Prolific link"][0]
    at.text_input(key="new_name").input("second study")
    at.number_input(key="new_k").set_value(10)
    next(b for b in at.button if b.label == "Create study").click().run()
    assert "created with 66 problems" in at.success[0].value
    assert [s["name"] for s in store.studies()] == ["page test", "second study"]


def test_completion_sends_the_participant_back_with_the_code(study):
    store, _ = study
    bank = load_problem_bank()
    sid = store.create_study("with redirect", [p.id for p in bank[:4]], items_per_participant=2, attention_checks=0,
                             completion_url="https://app.prolific.com/submissions/complete")
    pid = store.enroll(sid, "PP-9", "college")
    while (item := store.next_item(pid)) is not None:
        store.record_response(pid, item.id, 4, 4)
    at = participant_app(study=str(sid), pid=pid)
    code = store.study(sid)["completion_code"]
    assert not at.exception and at.title[0].value == "Thank you!"
    button = at.get("link_button")[0].proto
    assert button.url == f"https://app.prolific.com/submissions/complete?cc={code}"


def test_the_analysis_page_shows_the_demo_behind_the_password(study, monkeypatch):
    monkeypatch.delenv("STUDY_ADMIN_PASSWORD", raising=False)
    at = apptest.open_page("interestingness_analysis", timeout=60)
    assert "locked" in at.warning[0].value and not at.dataframe
    monkeypatch.setenv("STUDY_ADMIN_PASSWORD", "s3cret")
    at = apptest.open_page("interestingness_analysis", timeout=60)
    at.text_input(key="admin_password").input("s3cret").run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("Every rater in this study is simulated" in c.value for c in at.caption)
    table = at.dataframe[0].value.set_index("population")
    assert list(table.index) == ["college", "olympiad"]
    # The demo's simulated LLM is built to agree on means but miss the spread (see core/interestingness/demo.py).
    assert (table["Spearman"] > 0.6).all() and (table["mean W1"] > 0.2).all()
    labels = {b.proto.label for b in at.get("download_button")}
    assert {"Alignment table (CSV)", "Per-problem distribution match (CSV)"} <= labels
    assert len(at.get("plotly_chart")) == 3


def test_the_analysis_page_runs_the_offline_rater_over_the_bank(study, monkeypatch):
    monkeypatch.setenv("STUDY_ADMIN_PASSWORD", "s3cret")
    at = apptest.open_page("interestingness_analysis", timeout=60)
    at.text_input(key="admin_password").input("s3cret").run()
    next(b for b in at.button if b.label == "Rate every problem").click().run()
    run = at.session_state["liverun:interestingness_rate:demo:MiniLM + ridge (offline baseline)"]
    assert run.wait(120) and run.state == "done", run.error
    assert len(run.result) == 66
    assert all(abs(r.interestingness.sum() - 1) < 1e-9 and r.rater == "minilm-ridge" for r in run.result.values())
