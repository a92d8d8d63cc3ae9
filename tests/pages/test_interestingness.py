"""The study pages through AppTest: a participant's whole run, resuming, and the locked admin page."""

import json
import re

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from core.interestingness import StudyStore, load_problem_bank
from core.interestingness.safety import signature
from tests.pages import apptest

SECRET = "page-test-secret-0123456789"


@pytest.fixture
def study(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'study.sqlite'}"
    monkeypatch.setenv("STUDY_DATABASE_URL", url)
    monkeypatch.setenv("STUDY_SECRET", SECRET)
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
    item_id = next(s.key for s in at.button_group if s.key.startswith("i:"))[2:]
    text = " ".join(m.value for m in at.markdown)
    if "Attention check" in text:
        interestingness, difficulty = (int(x) for x in re.findall(r"\*\*(\d)\*\*", text)[:2])
    at.button_group(key=f"i:{item_id}").set_value(interestingness)
    at.button_group(key=f"d:{item_id}").set_value(difficulty)
    at.checkbox(key=f"r:{item_id}:elegant solution").check()
    next(b for b in at.button if b.label == "Submit and continue").click().run()
    assert not at.exception, [e.message for e in at.exception]
    return item_id


def test_a_participant_runs_from_the_link_to_the_completion_code(study):
    store, sid = study
    at = participant_app(study=str(sid), PROLIFIC_PID="PP-1", STUDY_ID="S", SESSION_ID="X", pop="olympiad",
                         sig=signature(SECRET, sid, pop="olympiad"))
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
    assert store.next_item(pid).id in [s.key[2:] for s in at.button_group]


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
    assert "not valid" in at.error[0].value and not at.button_group
    at = participant_app(study=str(sid), pid="forged")
    assert "not valid" in at.error[0].value and not at.button_group and not at.dataframe


def test_admin_shows_only_the_simulated_preview_without_the_password(study, monkeypatch):
    monkeypatch.delenv("STUDY_ADMIN_PASSWORD", raising=False)
    at = apptest.open_page("interestingness", timeout=60)
    assert "locked" in at.warning[0].value and not at.dataframe and not at.text_input
    text = " ".join(m.value for m in at.markdown) + " ".join(i.value for i in at.info)
    assert "Public preview" in at.info[0].value and "simulated" in at.info[0].value
    assert "page test" not in text and not at.get("download_button") and not at.selectbox   # no real study
    charts = at.get("plotly_chart")
    assert len(charts) == 2 and all("simulated" in c.proto.spec or "ratings" in c.proto.spec for c in charts)
    assert all(c.disabled for c in at.button_group)            # the participant preview stores nothing
    monkeypatch.setenv("STUDY_ADMIN_PASSWORD", "s3cret-passphrase")
    at = apptest.open_page("interestingness", timeout=60)
    at.text_input(key="admin_password").input("wrong").run()
    assert at.error[0].value == "Wrong password." and not at.dataframe and not at.get("download_button")
    at.text_input(key="admin_password").input("s3cret-passphrase").run()
    assert not at.exception and at.dataframe and not at.error


def test_admin_creates_a_study_and_sees_its_progress(study, monkeypatch):
    store, sid = study
    pid = store.enroll(sid, "PP-4", "college")
    while (item := store.next_item(pid)) is not None:
        store.record_response(pid, item.id, *(item.expected or {"i": 5, "d": 5}).values())
    store.complete(pid)
    monkeypatch.setenv("STUDY_ADMIN_PASSWORD", "s3cret-passphrase")
    monkeypatch.setenv("PUBLIC_URL", "https://study.example.org/")
    at = apptest.open_page("interestingness", timeout=60)
    at.text_input(key="admin_password").input("s3cret-passphrase").run()
    progress = at.dataframe[1].value.set_index("population")
    assert progress.loc["college", "completed"] == 1 and progress.loc["college", "ratings"] == 3
    links = at.dataframe[0].value
    assert all(link.startswith("https://study.example.org/interestingness_study?") for link in links["plain link"])
    sig = signature(SECRET, sid, pop="college")
    assert f"study={sid}&pop=college&sig={sig}&PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}" in links["Prolific link"][0]
    at.text_input(key="new_name").input("second study")
    at.number_input(key="new_k").set_value(10)
    next(b for b in at.button if b.label == "Create study").click().run()
    assert "created with 66 problems" in at.success[0].value
    assert not [i for i in at.info if "No study yet" in i.value]
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
    script = next(h.proto.body for h in at.get("html") if "location" in h.proto.body)
    assert f'window.top.location.href = "https://app.prolific.com/submissions/complete?cc={code}";' in script
    assert "&#x27;" not in script and "&amp;" not in script        # a JS string literal, not HTML-escaped


def test_the_analysis_page_shows_the_demo_to_everyone_and_studies_behind_the_password(study, monkeypatch):
    monkeypatch.delenv("STUDY_ADMIN_PASSWORD", raising=False)
    at = apptest.open_page("interestingness_analysis", timeout=60)
    assert "locked" in at.warning[0].value
    assert "Public preview" in at.info[0].value and "simulated" in at.info[0].value   # the demo, labelled
    public = at.dataframe[0].value.set_index("population")
    assert list(public.index) == ["college", "olympiad"] and len(at.get("plotly_chart")) == 3
    assert "source" not in [s.key for s in at.selectbox] and not at.tabs   # no real study, no raters to run
    monkeypatch.setenv("STUDY_ADMIN_PASSWORD", "s3cret-passphrase")
    at = apptest.open_page("interestingness_analysis", timeout=60)
    at.text_input(key="admin_password").input("s3cret-passphrase").run()
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
    monkeypatch.setenv("STUDY_ADMIN_PASSWORD", "s3cret-passphrase")
    at = apptest.open_page("interestingness_analysis", timeout=60)
    at.text_input(key="admin_password").input("s3cret-passphrase").run()
    next(b for b in at.button if b.label == "Rate every problem").click().run()
    run = at.session_state["liverun:interestingness_rate:demo:MiniLM + ridge (offline baseline)"]
    assert run.wait(120) and run.state == "done", run.error
    assert len(run.result) == 66
    assert all(abs(r.interestingness.sum() - 1) < 1e-9 and r.rater == "minilm-ridge" for r in run.result.values())


def test_an_answer_the_store_cannot_confirm_stays_on_the_page(study, monkeypatch):
    """A failed commit never moves on: the values stay set, the participant is told, the next press saves them."""
    from sqlalchemy.exc import OperationalError

    store, sid = study
    pid = store.enroll(sid, "PP-7", "college")
    at = participant_app(study=str(sid), pid=pid)
    at.button(key="start").click().run()
    item_id = next(s.key for s in at.button_group if s.key.startswith("i:"))[2:]
    original = StudyStore.record_response
    calls = []

    def flaky(self, *args, **kwargs):
        calls.append(args[1])
        if len(calls) == 1:
            raise OperationalError("INSERT", {}, Exception("database is locked"))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(StudyStore, "record_response", flaky)
    text = " ".join(m.value for m in at.markdown)
    want = (int(x) for x in re.findall(r"\*\*(\d)\*\*", text)[:2]) if "Attention check" in text else (5, 6)
    want = tuple(want)
    at.button_group(key=f"i:{item_id}").set_value(want[0])
    at.button_group(key=f"d:{item_id}").set_value(want[1])
    next(b for b in at.button if b.label == "Submit and continue").click().run()
    assert not at.exception and "could not be saved yet" in at.warning[0].value
    assert store.rows(sid) == [] and at.button_group(key=f"i:{item_id}").value == want[0]     # still on the item
    assert at.button_group(key=f"d:{item_id}").value == want[1]
    next(b for b in at.button if b.label == "Submit and continue").click().run()
    assert not at.exception and calls == [item_id, item_id]
    (row,) = store.rows(sid)
    assert (row["item_id"], row["interestingness"], row["difficulty"]) == (item_id, *want)
    assert "Item 2 of 5" in at.get("progress")[0].proto.text


def test_a_late_click_for_an_answered_item_changes_nothing(study):
    store, sid = study
    pid = store.enroll(sid, "PP-8", "college")
    at = participant_app(study=str(sid), pid=pid)
    at.button(key="start").click().run()
    first = answer_current_item(at, 5, 6)
    before = store.rows(sid)
    at.session_state["pending_submit"] = (pid, first)      # the second click of a double click, landing late
    at.run()
    assert not at.exception and store.rows(sid) == before and "Item 2 of 5" in at.get("progress")[0].proto.text
    assert "pending_submit" not in at.session_state
    second = next(s.key for s in at.button_group if s.key.startswith("i:"))[2:]
    assert second != first and not at.button(key=f"submit:{second}").disabled


@pytest.mark.slow(reason="loads MiniLM (sentence-transformers) for a real study's cross-fitted ratings; ~60 s cold")
def test_the_dashboard_scores_the_baseline_out_of_fold_and_shows_the_exclusions(tmp_path, monkeypatch):
    from core.interestingness.embedding_rater import EmbeddingRidgeRater
    from core.interestingness.exclusion import kept_rows
    from core.interestingness.simulate import simulate_participants
    from core.interestingness import analysis

    url = f"sqlite:///{tmp_path / 'study.sqlite'}"
    monkeypatch.setenv("STUDY_DATABASE_URL", url)
    monkeypatch.setenv("STUDY_ADMIN_PASSWORD", "s3cret-passphrase")
    store = StudyStore(url)
    bank = load_problem_bank()[:15]
    sid = store.create_study("oof", [p.id for p in bank], items_per_participant=5, attention_checks=1,
                             populations=["college"], problems=bank)
    simulate_participants(store, sid, 24, seed=1, attentive=0.9)
    quitter = store.enroll(sid, "quitter", "college")                        # enrolled, never finished
    item = store.next_item(quitter)
    store.record_response(quitter, item.id, 7, 7)
    careless = store.enroll(sid, "careless", "college")                     # finishes, fails its check
    while (item := store.next_item(careless)) is not None:
        wrong = {k: v % 7 + 1 for k, v in (item.expected or {}).items()}
        store.record_response(careless, item.id, wrong.get("interestingness", 4), wrong.get("difficulty", 4))
    at = apptest.open_page("interestingness_analysis", timeout=60)
    at.text_input(key="admin_password").input("s3cret-passphrase").run()
    at.selectbox(key="source").set_value(sid).run()
    assert not at.exception, [e.message for e in at.exception]
    counts = at.session_state["exclusions"]
    found = kept_rows(store.rows(sid)).exclusions.to_dict()
    assert counts == found and counts["incomplete"] == 1 and counts["failed_attention"] >= 1
    assert any(f"{counts['kept']} of {counts['participants']} participants kept" in m.value for m in at.markdown)
    next(b for b in at.button if b.label == "Rate every problem").click().run()
    run = at.session_state["liverun:interestingness_rate:%d:MiniLM + ridge (offline baseline)" % sid]
    assert run.wait(120) and run.state == "done", run.error
    assert all(r.raw["out_of_fold"] for r in run.result.values())           # every problem has human ratings
    at.run()
    table = at.dataframe[0].value.set_index("population")
    kept = kept_rows(store.rows(sid)).rows
    means = analysis.item_means(kept)
    reference = EmbeddingRidgeRater().fit(store.study_problem_objects(sid), means)   # the out-of-fold figure
    assert table.loc["college", "Spearman"] == pytest.approx(reference.cv["spearman"], abs=5e-4)   # shown rounded
    in_sample = pd.Series({p.id: reference.rate(p).expected_interestingness for p in store.study_problem_objects(sid)})
    assert analysis.mean_rating_correlation(means, in_sample, resamples=10)["spearman"] > table.loc["college", "Spearman"]
    store.close()


def test_the_admin_form_sets_the_assignment_timeout_and_rated_statements_stay(study, monkeypatch):
    store, sid = study
    pid = store.enroll(sid, "PP-10", "college")
    item = store.next_item(pid)
    store.record_response(pid, item.id, *(item.expected or {"i": 5, "d": 5}).values())
    before = {p["id"]: p["statement"] for p in store.study_problems(sid)}
    first = load_problem_bank()[0]
    upload = f"id,statement,topic,difficulty\n{first.id},A rewritten statement.,algebra,2\n"
    monkeypatch.setenv("STUDY_ADMIN_PASSWORD", "s3cret-passphrase")
    at = apptest.open_page("interestingness", timeout=60)
    at.text_input(key="admin_password").input("s3cret-passphrase").run()
    from core.interestingness import parse_problems

    with pytest.raises(ValueError, match=f"^problems: '{first.id}' is already used by study 'page test'"):
        store.create_study("rewrite", [first.id], 1, problems=parse_problems(upload, "csv"))
    at.text_input(key="new_name").input("timed study")
    at.number_input(key="new_timeout").set_value(0.5)
    next(b for b in at.button if b.label == "Create study").click().run()
    assert not at.exception and "created with 66 problems" in at.success[0].value
    created = next(s for s in store.studies() if s["name"] == "timed study")
    assert created["assignment_timeout_s"] == 1800
    assert {p["id"]: p["statement"] for p in store.study_problems(sid)} == before


def test_a_forged_population_link_is_refused_and_a_signed_one_works(study):
    store, sid = study
    at = participant_app(study=str(sid), PROLIFIC_PID="PP-F", pop="olympiad")           # no signature
    assert "not valid" in at.error[0].value and not at.checkbox and store.participants(sid) == []
    sig = signature(SECRET, sid, pop="college")
    at = participant_app(study=str(sid), PROLIFIC_PID="PP-F", pop="olympiad", sig=sig)  # college's, edited
    assert "not valid" in at.error[0].value and not at.checkbox
    at = participant_app(study=str(sid), PROLIFIC_PID="PP-F", pop="college", sig=sig)   # the link as made
    at.checkbox(key="agree").check().run()
    at.button(key="consent").click().run()
    assert [p["population"] for p in store.participants(sid)] == ["college"]


@pytest.mark.parametrize("params", [{"PROLIFIC_PID": "x\x00"}, {"STUDY_ID": "s" * 129}, {"SESSION_ID": "a b"},
                                    {"pid": "p" * 200}])
def test_bad_link_parameters_never_reach_the_database(study, params):
    store, sid = study
    at = participant_app(study=str(sid), **params)
    assert not at.exception and "not valid" in at.error[0].value and not at.checkbox
    assert store.participants(sid) == []


def test_a_store_error_shows_a_reference_code_and_no_sql(study, monkeypatch, caplog):
    import sqlalchemy.exc

    store, sid = study
    pid = store.enroll(sid, "PP-E", "college")
    store.record_response(pid, store.next_item(pid).id, 3, 3)

    def broken(self, participant_id):
        raise sqlalchemy.exc.DataError("SELECT secret_column FROM participants", {"id": participant_id}, None)
    monkeypatch.setattr(StudyStore, "next_item", broken)
    at = participant_app(study=str(sid), pid=pid)
    message = at.error[0].value
    code = re.search(r"reference \*\*([0-9A-F]{8})\*\*", message).group(1)
    assert not at.exception and "SELECT" not in message and "secret_column" not in str(at)
    assert code in caplog.text and "secret_column" in caplog.text              # the detail is in the server log


def test_a_return_from_a_new_browser_skips_consent_and_is_counted(study):
    store, sid = study
    pid = store.enroll(sid, "PP-BACK", "college", background={"math_level": "High school"})
    first = store.next_item(pid)
    store.record_response(pid, first.id, *(first.expected or {"i": 3, "d": 3}).values())
    at = participant_app(study=str(sid), PROLIFIC_PID="PP-BACK")                        # a fresh session
    assert "Item 2 of 5" in at.get("progress")[0].proto.text and not [c for c in at.checkbox if c.key == "agree"]
    assert [s.key[2:] for s in at.button_group if s.key.startswith("i:")] == [store.next_item(pid).id]
    assert store.participant(pid)["resumes"] == 1


def test_a_weak_admin_password_keeps_the_gate_shut(study, monkeypatch):
    monkeypatch.setenv("STUDY_ADMIN_PASSWORD", " ")
    at = apptest.open_page("interestingness", timeout=60)
    assert "locked" in at.error[0].value and "allowed 12 or more" in at.error[0].value and not at.text_input
    monkeypatch.setenv("STUDY_ADMIN_PASSWORD", "short")
    at = apptest.open_page("interestingness", timeout=60)
    assert "has 5 characters" in at.error[0].value and not at.text_input


def test_wrong_passwords_back_off_and_logout_locks_again(study, monkeypatch):
    from pages._interestingness import auth
    from core.interestingness.safety import FREE_TRIES, Backoff

    now = [0.0]
    monkeypatch.setattr(auth, "BACKOFF", Backoff(clock=lambda: now[0]))
    monkeypatch.setenv("STUDY_ADMIN_PASSWORD", "s3cret-passphrase")
    at = apptest.open_page("interestingness", timeout=60)
    for _ in range(FREE_TRIES):
        at.text_input(key="admin_password").input("wrong").run()
    assert "next try is accepted in 2 s" in at.error[0].value
    at.text_input(key="admin_password").input("s3cret-passphrase").run()            # refused without comparing
    assert not at.dataframe and "next try is accepted" in at.error[0].value
    now[0] += 2.0
    at.text_input(key="admin_password").input("s3cret-passphrase").run()
    assert at.dataframe and not at.error
    at.button(key="admin_logout").click().run()
    assert not at.dataframe and at.text_input(key="admin_password")


def test_the_gate_counts_wrong_tries_in_the_study_database_for_every_process(study, monkeypatch):
    from pages._interestingness import auth
    from core.interestingness.safety import FREE_TRIES

    store, _ = study
    monkeypatch.setattr(auth, "BACKOFF", None)                 # the default: the database's back-off
    monkeypatch.setenv("STUDY_ADMIN_PASSWORD", "s3cret-passphrase")
    at = apptest.open_page("interestingness", timeout=60)
    for _ in range(FREE_TRIES):
        at.text_input(key="admin_password").input("wrong").run()
    key = f"session:{at.session_state['admin_gate_id']}"
    assert store.backoff_failures(key) == FREE_TRIES           # what another replica reads
    assert "next try is accepted in" in at.error[0].value


def test_the_consent_page_states_the_studys_own_size_and_measured_time(study):
    from datetime import timedelta

    from pages.interestingness_study import duration_text

    store, sid = study
    at = participant_app(study=str(sid), PROLIFIC_PID="PP-C")
    text = " ".join(m.value for m in at.markdown)
    assert "You will read 3 short problems" in text and "plus 2 quick checks" in text
    assert "about 6 minutes (our estimate)" in text                       # (3 + 2) x 45 s + 2 min, rounded
    assert "about 20 problems" not in text and "15–20 minutes" not in text
    for k in range(4):                                                    # 12 problems answered in 120 s each
        pid = store.enroll(sid, f"PP-M{k}", "college")
        while (item := store.next_item(pid)) is not None:
            values = tuple(item.expected.values()) if item.kind == "attention" else (4, 4)
            store.record_response(pid, item.id, *values, shown_at=store.clock() - timedelta(seconds=120))
    assert store.typical_item_seconds(sid) == pytest.approx(120, abs=1)
    assert "about 12 minutes (from the answers so far)" in duration_text(store.study(sid), 120.0)
    at = participant_app(study=str(sid), PROLIFIC_PID="PP-C2")
    assert "about 12 minutes (from the answers so far)" in " ".join(m.value for m in at.markdown)


def test_a_closed_study_shows_a_notice_and_a_withdrawn_participant_is_told(study):
    store, sid = study
    inside = store.enroll(sid, "PP-IN", "college")
    store.set_closed(sid, True)
    at = participant_app(study=str(sid), PROLIFIC_PID="PP-NEW")
    assert at.title[0].value == "This study is closed" and not at.checkbox and store.participant(inside)
    assert [p["participant_id"] for p in store.participants(sid)] == [inside]
    at = participant_app(study=str(sid), pid=inside)                                   # those in may finish
    assert at.title[0].value == "Instructions"
    store.withdraw(inside, delete=True)
    at = participant_app(study=str(sid), pid=inside)
    assert at.title[0].value == "You have withdrawn from this study" and not at.button_group


def test_the_admin_closes_the_study_and_withdraws_a_participant(study, monkeypatch):
    store, sid = study
    pid = store.enroll(sid, "PP-5", "college")
    first = store.next_item(pid)
    store.record_response(pid, first.id, *(first.expected or {"i": 3, "d": 3}).values())
    monkeypatch.setenv("STUDY_ADMIN_PASSWORD", "s3cret-passphrase")
    at = apptest.open_page("interestingness", timeout=60)
    at.text_input(key="admin_password").input("s3cret-passphrase").run()
    at.button(key="toggle_closed").click().run()
    assert store.study(sid)["closed_at"] is not None and at.button(key="toggle_closed").label == "Reopen the study"
    at.text_input(key="withdraw_pid").input("not-a-participant")
    next(b for b in at.button if b.label == "Withdraw").click().run()
    assert at.error[0].value.startswith("participant_id: not a participant of this study")
    at.text_input(key="withdraw_pid").input(pid)
    at.radio(key="withdraw_mode").set_value("keep them, flagged as withdrawn")
    next(b for b in at.button if b.label == "Withdraw").click().run()
    assert "0 responses deleted" in at.success[0].value and store.participant(pid)["status"] == "withdrawn"
    assert [a["action"] for a in store.audit(sid)] == ["closed", "withdrawn"]
    assert len(store.rows(sid)) == 1 and store.rows(sid)[0]["excluded"] == "withdrawn"


def test_an_untouched_rating_cannot_be_submitted(study):
    store, sid = study
    pid = store.enroll(sid, "PP-U", "college")
    at = participant_app(study=str(sid), pid=pid)
    at.button(key="start").click().run()
    item_id = next(s.key for s in at.button_group if s.key.startswith("i:"))[2:]
    assert at.button_group(key=f"i:{item_id}").value is None                  # nothing preselected
    assert at.button_group(key=f"i:{item_id}").options[0] == "1 · not at all"
    assert at.button_group(key=f"d:{item_id}").options[-1] == "7 · very hard"
    next(b for b in at.button if b.label == "Submit and continue").click().run()
    assert "choose a rating from 1 to 7 for interestingness and difficulty" in at.warning[0].value
    at.button_group(key=f"i:{item_id}").set_value(5)
    next(b for b in at.button if b.label == "Submit and continue").click().run()
    assert "for difficulty before" in at.warning[0].value and store.rows(sid) == []
    at.button_group(key=f"d:{item_id}").set_value(2)
    next(b for b in at.button if b.label == "Submit and continue").click().run()
    assert [(r["interestingness"], r["difficulty"]) for r in store.rows(sid)] == [(5, 2)]


def test_the_deployed_app_shows_no_error_details():
    import tomllib

    from pathlib import Path

    config = tomllib.loads((Path(apptest.MAIN).parents[1] / ".streamlit" / "config.toml").read_text())
    assert config["client"]["showErrorDetails"] == "none"
