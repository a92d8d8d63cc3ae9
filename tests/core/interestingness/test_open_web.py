"""The study on the open web: every bad input refused with an error naming its field and nothing written
(on SQLite and PostgreSQL), spreadsheet-safe exports, signed links, link parameters, the admin gate's
password rule and back-off, resumes counted."""

from datetime import timedelta

import pytest
import sqlalchemy as sa

from core.interestingness import Problem, StudyStore, parse_problems
from core.interestingness import models as m
from core.interestingness.safety import (FREE_TRIES, Backoff, check_link_params, csv_safe, password_problem,
                                         signature, verify)
from tests.core.interestingness.conftest import answer_all, postgres_database, problems

HEADER = "id,statement,topic,difficulty\n"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def world(request, tmp_path_factory):
    """One store per backend with a study, one enrolled participant and the item on their screen."""
    if request.param == "sqlite":
        url, drop = f"sqlite:///{tmp_path_factory.mktemp('open_web') / 'study.sqlite'}", None
    else:
        url, drop = postgres_database()
    store = StudyStore(url)
    bank = problems(12)
    sid = store.create_study("web", [p.id for p in bank], items_per_participant=4, problems=bank)
    pid = store.enroll(sid, "PP-1", "college")
    item = store.next_item(pid)
    yield store, sid, pid, item
    store.close()
    if drop:
        drop()


def dump(store) -> dict:
    """Every row of every table (what 'nothing written' is checked against)."""
    with store.engine.connect() as c:
        return {t.name: sorted(map(repr, c.execute(sa.select(t)).all())) for t in m.Base.metadata.sorted_tables}


def study_from(text, fmt):
    def run(store, sid, pid, item):
        bank = parse_problems(text, fmt)
        store.create_study("imported", [p.id for p in bank], items_per_participant=1, problems=bank)
    return run


def create(**kwargs):
    def run(store, sid, pid, item):
        args = {"name": "new", "problem_ids": ["q000", "q001"], "items_per_participant": 1, **kwargs}
        store.create_study(**args)
    return run


def enroll(**kwargs):
    def run(store, sid, pid, item):
        args = {"study_id": sid, "external_id": "PP-NEW", "population": "college", **kwargs}
        store.enroll(**args)
    return run


def answer(**kwargs):
    def run(store, sid, pid, item):
        args = {"participant_id": pid, "item_id": item.id, "interestingness": 4, "difficulty": 4, **kwargs}
        store.record_response(**args)
    return run


def future(store, sid, pid, item):
    store.record_response(pid, item.id, 4, 4, shown_at=store.clock() + timedelta(minutes=5))


LONG = "x" * 129
CASES = {
    # imports (the admin form's path: parse, then create the study)
    "csv row with more fields than its header": (study_from(HEADER + "a1,hi,algebra,2,extra\n", "csv"), "row 1"),
    "csv statement with NUL": (study_from(HEADER + "a1,h\x00i,algebra,2\n", "csv"), "row 1.statement"),
    "csv difficulty superscript three": (study_from(HEADER + "a1,hi,algebra,³\n", "csv"), "row 1 (a1).difficulty"),
    "csv difficulty 2.5": (study_from(HEADER + "a1,hi,algebra,2.5\n", "csv"), "row 1 (a1).difficulty"),
    "csv difficulty 6": (study_from(HEADER + "a1,hi,algebra,6\n", "csv"), "row 1 (a1).difficulty"),
    "csv unknown topic": (study_from(HEADER + "a1,hi,poetry,2\n", "csv"), "row 1 (a1).topic"),
    "csv bad id": (study_from(HEADER + "a b,hi,algebra,2\n", "csv"), "row 1.id"),
    "csv header lacks id": (study_from("statement,topic,difficulty\nhi,algebra,2\n", "csv"), "file"),
    "csv id twice": (study_from(HEADER + "a1,hi,algebra,2\na1,ho,algebra,2\n", "csv"), "row 2.id"),
    "csv no rows": (study_from(HEADER, "csv"), "file"),
    "csv statement too long": (study_from(HEADER + f"a1,{'y' * 4001},algebra,2\n", "csv"), "row 1 (a1).statement"),
    "json statement as a list": (study_from('[{"id": "a1", "statement": ["x"], "topic": "algebra", "difficulty": 2}]',
                                            "json"), "row 1.statement"),
    "json id as a number": (study_from('[{"id": 7, "statement": "x", "topic": "algebra", "difficulty": 2}]', "json"),
                            "row 1.id"),
    "json difficulty true": (study_from('[{"id": "a1", "statement": "x", "topic": "algebra", "difficulty": true}]',
                                        "json"), "row 1 (a1).difficulty"),
    "json difficulty 2.0": (study_from('[{"id": "a1", "statement": "x", "topic": "algebra", "difficulty": 2.0}]',
                                       "json"), "row 1 (a1).difficulty"),
    "json answer as an object": (study_from('[{"id": "a1", "statement": "x", "topic": "algebra", "difficulty": 2, '
                                            '"answer": {"a": 1}}]', "json"), "row 1.answer"),
    "json unknown field": (study_from('[{"id": "a1", "statement": "x", "topic": "algebra", "difficulty": 2, '
                                      '"hint": "h"}]', "json"), "row 1"),
    "json not json": (study_from("[{", "json"), "file"),
    "json not a list": (study_from('{"id": "a1"}', "json"), "file"),
    "json NUL in topic": (study_from('[{"id": "a1", "statement": "x", "topic": "alg\\u0000", "difficulty": 2}]',
                                     "json"), "row 1.topic"),
    # studies
    "items_per_participant True": (create(items_per_participant=True), "items_per_participant"),
    "items_per_participant 0": (create(items_per_participant=0), "items_per_participant"),
    "items_per_participant above the pool": (create(items_per_participant=3), "items_per_participant"),
    "attention_checks True": (create(attention_checks=True), "attention_checks"),
    "attention_checks 6": (create(attention_checks=6), "attention_checks"),
    "completion_url javascript": (create(completion_url="javascript:alert(1)"), "completion_url"),
    "completion_url data": (create(completion_url="data:text/html,hi"), "completion_url"),
    "completion_url relative": (create(completion_url="/done"), "completion_url"),
    "completion_url with NUL": (create(completion_url="https://e.org/\x00"), "completion_url"),
    "completion_url with a space": (create(completion_url="https://e.org/a b"), "completion_url"),
    "name empty": (create(name="  "), "name"),
    "name with NUL": (create(name="a\x00b"), "name"),
    "name too long": (create(name="n" * 201), "name"),
    "name taken": (create(name="web"), "name"),
    "populations as a string": (create(populations="college"), "populations"),
    "populations empty": (create(populations=[]), "populations"),
    "populations with a space": (create(populations=["a b"]), "populations"),
    "populations as numbers": (create(populations=[1]), "populations"),
    "assignment_timeout_s 0": (create(assignment_timeout_s=0), "assignment_timeout_s"),
    "assignment_timeout_s True": (create(assignment_timeout_s=True), "assignment_timeout_s"),
    "problem_ids unknown": (create(problem_ids=["nope"]), "problem_ids"),
    "problem_ids as a number": (create(problem_ids=5), "problem_ids"),
    "problem_ids with NUL": (create(problem_ids=["q\x00"]), "problem_ids"),
    "problem object with NUL": (create(problem_ids=["z1"], problems=[Problem("z1", "a\x00", "algebra", 2)]),
                                "problems[0].statement"),
    "problem object difficulty 9": (create(problem_ids=["z1"], problems=[Problem("z1", "a", "algebra", 9)]),
                                    "problems[0] (z1).difficulty"),
    # enrolment (the link's parameters)
    "PROLIFIC_PID with NUL": (enroll(external_id="x\x00"), "external_id"),
    "PROLIFIC_PID too long": (enroll(external_id=LONG), "external_id"),
    "PROLIFIC_PID empty": (enroll(external_id=" "), "external_id"),
    "PROLIFIC_PID as a number": (enroll(external_id=5), "external_id"),
    "STUDY_ID too long": (enroll(prolific_study_id=LONG), "prolific_study_id"),
    "STUDY_ID with NUL": (enroll(prolific_study_id="s\x00"), "prolific_study_id"),
    "SESSION_ID too long": (enroll(session_id=LONG), "session_id"),
    "SESSION_ID with NUL": (enroll(session_id="s\x00"), "session_id"),
    "population unknown": (enroll(population="phd"), "population"),
    "background as a list": (enroll(background=["x"]), "background"),
    "background with NUL": (enroll(background={"level": "a\x00"}), "background"),
    "background too large": (enroll(background={"level": "a" * 3000}), "background"),
    "consent_at as text": (enroll(consent_at="yesterday"), "consent_at"),
    "study_id as text": (enroll(study_id="1"), "study_id"),
    "study_id True": (enroll(study_id=True), "study_id"),
    "study_id unknown": (enroll(study_id=999), "study_id"),
    # answers
    "interestingness 0": (answer(interestingness=0), "interestingness"),
    "interestingness 8": (answer(interestingness=8), "interestingness"),
    "interestingness True": (answer(interestingness=True), "interestingness"),
    "interestingness 4.0": (answer(interestingness=4.0), "interestingness"),
    "interestingness '4'": (answer(interestingness="4"), "interestingness"),
    "difficulty 0": (answer(difficulty=0), "difficulty"),
    "difficulty None": (answer(difficulty=None), "difficulty"),
    "rationales as a dict": (answer(rationales={"elegant solution": 1}), "rationales"),
    "rationales as a string": (answer(rationales="elegant solution"), "rationales"),
    "rationales unknown": (answer(rationales=["nice"]), "rationales"),
    "rationales repeated": (answer(rationales=["elegant solution"] * 2), "rationales"),
    "rationales as numbers": (answer(rationales=[1]), "rationales"),
    "comment as an int": (answer(comment=5), "comment"),
    "comment as a list": (answer(comment=["a"]), "comment"),
    "comment with NUL": (answer(comment="a\x00b"), "comment"),
    "comment too long": (answer(comment="c" * 2001), "comment"),
    "shown_at in the future": (future, "shown_at"),
    "shown_at as text": (answer(shown_at="2026-01-01"), "shown_at"),
    "item_id of no assignment": (answer(item_id="q011-not-mine"), "item_id"),
    "item_id with NUL": (answer(item_id="q\x00"), "item_id"),
    "participant_id unknown": (answer(participant_id="0" * 16), "participant_id"),
    "participant_id with NUL": (answer(participant_id="x\x00"), "participant_id"),
    "participant_id too long": (answer(participant_id="p" * 65), "participant_id"),
    # the rest of the store
    "complete before the last item": (lambda store, sid, pid, item: store.complete(pid), "participant_id"),
    "next_item NUL participant": (lambda store, sid, pid, item: store.next_item("a\x00"), "participant_id"),
    "participant NUL id": (lambda store, sid, pid, item: store.participant("a\x00"), "participant_id"),
    "resume NUL id": (lambda store, sid, pid, item: store.resume(sid, "a\x00"), "external_id"),
    "export as xlsx": (lambda store, sid, pid, item: store.export(sid, "xlsx"), "fmt"),
    "max_failed_checks above the checks": (create(attention_checks=1, max_failed_checks=2), "max_failed_checks"),
    "max_failed_checks True": (create(max_failed_checks=True), "max_failed_checks"),
    "close with 1": (lambda store, sid, pid, item: store.set_closed(sid, 1), "closed"),
    "withdraw with delete='yes'": (lambda store, sid, pid, item: store.withdraw(pid, "yes"), "delete"),
    "withdraw an unknown participant": (lambda store, sid, pid, item: store.withdraw("0" * 16, True), "participant_id"),
    "withdraw with a NUL reason": (lambda store, sid, pid, item: store.withdraw(pid, True, "a\x00"), "reason"),
    "llm rating of an unknown problem": (lambda store, sid, pid, item: store.add_llm_rating("nope", None), "problem_id"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_every_bad_input_is_refused_naming_its_field_and_writes_nothing(world, case):
    store, sid, pid, item = world
    call, field = CASES[case]
    before = dump(store)
    with pytest.raises(ValueError) as error:
        call(store, sid, pid, item)
    assert str(error.value).startswith(f"{field}:") and "; allowed" in str(error.value), str(error.value)
    assert dump(store) == before


def test_the_good_versions_of_the_bad_inputs_are_accepted(world):
    """Controls for the table: the same calls with good values succeed (and write)."""
    store, sid, pid, item = world
    before = dump(store)
    bank = parse_problems("\ufeff" + HEADER + "b1,hi,algebra,2\n", "csv")          # Excel's UTF-8 CSV, BOM first
    assert [p.id for p in bank] == ["b1"]
    store.create_study("good", ["q000", "q001"], 1, 1, completion_url="https://app.prolific.com/x?a=1")
    other = store.enroll(sid, "PP-GOOD", "college", prolific_study_id="S" * 128, session_id="X",
                         background={"math_level": "High school"})
    store.record_response(pid, item.id, 4, 4, ("elegant solution",), "fine", shown_at=store.clock())
    after = dump(store)
    assert len(after["studies"]) == len(before["studies"]) + 1 and other in str(after["participants"])
    assert len(after["responses"]) == len(before["responses"]) + 1


def test_csv_export_neutralises_formulas(store, study):
    pid = store.enroll(study, "=HYPERLINK(\"http://evil\")", "college", session_id="@SUM(1)")
    item = store.next_item(pid)
    store.record_response(pid, item.id, 4, 4, comment="=1+1")
    text = store.export(study, "csv", include_external_ids=True)
    assert "'=1+1" in text and "'=HYPERLINK" in text and "'@SUM(1)" in text
    assert ",=" not in text and ",@" not in text
    assert [csv_safe(v) for v in ("-2+3", "+1", "\tx", "\rx", "plain", 5, -3)] == [
        "'-2+3", "'+1", "'\tx", "'\rx", "plain", 5, -3]
    rows = store.rows(study)                                   # the JSON and the rows keep the text as typed
    assert rows[0]["comment"] == "=1+1" and '"=1+1"' in store.export(study, "json")


def test_the_export_has_statements_consent_and_background(store, study):
    pid = store.enroll(study, "PP-B", "college", background={"math_level": "Graduate degree"})
    answer_all(store, pid)
    rows = store.rows(study)
    snapshot = {p["id"]: p["statement"] for p in store.study_problems(study)}
    assert all(r["statement"] == snapshot[r["item_id"]] for r in rows if r["kind"] == "problem")
    assert all(r["statement"].startswith("**Attention check.**") for r in rows if r["kind"] == "attention")
    assert {r["background"]["math_level"] for r in rows} == {"Graduate degree"} and rows[0]["consent_at"]
    assert "Graduate degree" in store.export(study, "csv")


def test_a_resume_from_a_new_session_is_counted(store, study):
    pid = store.enroll(study, "PP-R", "college")
    assert store.participant(pid)["resumes"] == 0
    assert store.resume(study, "PP-R") == pid and store.resume(study, "PP-NOBODY") is None
    assert store.enroll(study, "PP-R", "college") == pid
    assert store.participant(pid)["resumes"] == 2
    assert {p["participant_id"]: p["resumes"] for p in store.participants(study)} == {pid: 2}


def test_signed_links_cannot_be_edited():
    secret = "s" * 32
    sig = signature(secret, 3, pop="college")
    assert verify(secret, 3, sig, pop="college")                       # the link as made
    assert not verify(secret, 3, sig, pop="olympiad")                  # pop edited
    assert not verify(secret, 4, sig, pop="college")                   # study edited
    assert not verify("t" * 32, 3, sig, pop="college")                 # another server's secret
    assert not verify(secret, 3, None, pop="college") and not verify(None, 3, sig, pop="college")
    with pytest.raises(ValueError, match="^STUDY_SECRET: 5 characters; allowed"):
        signature("short", 3, pop="college")


@pytest.mark.parametrize("name, value, ok", [
    ("PROLIFIC_PID", "5f3c2a1b9d8e7f6a5b4c3d2e", True), ("PROLIFIC_PID", "{{%PROLIFIC_PID%}}", True),
    ("PROLIFIC_PID", "x\x00", False), ("STUDY_ID", "s" * 129, False), ("STUDY_ID", "s" * 128, True),
    ("pid", "<script>", False), ("pop", "college olympiad", False), ("study", "", False),
])
def test_link_parameters_are_checked(name, value, ok):
    if ok:
        assert check_link_params({name: value}) == {name: value}
    else:
        with pytest.raises(ValueError, match=f"^{name}: .*; allowed 1..128"):
            check_link_params({name: value})


def test_weak_admin_passwords_are_refused():
    assert password_problem(" ") .startswith("the admin password has 0 characters")
    assert "allowed 12 or more" in password_problem("s3cret")
    assert password_problem(None) == "no admin password is set"
    assert password_problem("correct horse battery") is None


def test_backoff_grows_per_key_and_clears_on_success():
    now = [100.0]
    gate = Backoff(clock=lambda: now[0])
    waits = [gate.failed("session:a", "address:1") for _ in range(FREE_TRIES + 3)]
    assert waits[:FREE_TRIES - 1] == [0.0] * (FREE_TRIES - 1)
    assert waits[FREE_TRIES - 1:] == [2.0, 4.0, 8.0, 16.0]                 # doubling after the free tries
    assert gate.wait("session:b", "address:1") == 16.0                     # a new session from the same address
    assert gate.wait("session:b", "address:2") == 0.0
    now[0] += 16.0
    assert gate.wait("session:a") == 0.0
    gate.succeeded("session:a", "address:1")
    assert gate.failures("session:a") == 0 and gate.failed("session:a") == 0.0


def test_a_closed_study_takes_no_one_new_and_reopens(store, study):
    inside = store.enroll(study, "PP-IN", "college")
    store.set_closed(study, True)
    assert store.study(study)["closed_at"] is not None
    with pytest.raises(ValueError, match="^study_id: the study is closed"):
        store.enroll(study, "PP-LATE", "college")
    assert store.enroll(study, "PP-IN", "college") == inside            # those already in may finish
    answer_all(store, inside)
    assert store.complete(inside) == store.study(study)["completion_code"]
    store.set_closed(study, False)
    assert store.enroll(study, "PP-LATE", "college") and store.study(study)["closed_at"] is None
    assert [a["action"] for a in store.audit(study)] == ["closed", "reopened"]


@pytest.mark.parametrize("delete", [True, False])
def test_withdrawal_deletes_or_flags_and_is_audited(store, study, delete):
    pid = store.enroll(study, "PP-W", "college")
    kept = store.enroll(study, "PP-K", "college")
    answer_all(store, pid)
    answer_all(store, kept)
    store.complete(kept)
    n = len([r for r in store.rows(study) if r["participant_id"] == pid])
    assert store.withdraw(pid, delete, "asked by email") == (n if delete else 0)
    untimed = store.rule(study, 0.0)                          # answer_all answers instantly: no time rule
    mine = [r for r in store.rows(study, rule=untimed) if r["participant_id"] == pid]
    assert (mine == []) if delete else (len(mine) == n and {r["excluded"] for r in mine} == {"withdrawn"})
    assert store.participant(pid)["status"] == "withdrawn"
    assert {r["excluded"] for r in store.rows(study, rule=untimed) if r["participant_id"] == kept} == {None}
    (entry,) = store.audit(study)
    assert entry["action"] == "withdrawn" and entry["participant_id"] == pid
    assert entry["detail"] == {"mode": "deleted" if delete else "flagged", "responses_deleted": n if delete else 0,
                               "previous_status": "active", "reason": "asked by email"}
    with pytest.raises(ValueError, match="^participant_id: withdrawn"):
        store.complete(pid)
    with pytest.raises(ValueError, match="^participant_id: already withdrawn"):
        store.withdraw(pid, delete)


def test_the_attention_rule_is_set_per_study(store):
    bank = problems(10)
    lenient = store.create_study("lenient", [p.id for p in bank], 4, 2, problems=bank, max_failed_checks=1)
    strict = store.create_study("strict", [p.id for p in bank], 4, 2)
    for sid in (lenient, strict):
        pid = store.enroll(sid, "PP-A", "college")
        while (item := store.next_item(pid)) is not None:          # the first check wrong, the second right
            values = (4, 4)
            if item.kind == "attention":
                e = item.expected
                values = (e["interestingness"], e["difficulty"]) if item.id == "attention-2" else \
                    (e["interestingness"] % 7 + 1, e["difficulty"])
            store.record_response(pid, item.id, *values, shown_at=store.clock() - timedelta(seconds=10))
        store.complete(pid)
    assert {r["excluded"] for r in store.rows(lenient)} == {None}
    assert {r["excluded"] for r in store.rows(strict)} == {"failed_attention"}
    assert store.rule(lenient).max_failed_checks == 1 and store.rule(strict).max_failed_checks == 0


def test_typical_item_seconds_is_the_measured_median(store, study):
    assert store.typical_item_seconds(study) is None                     # nothing measured yet
    for k in range(3):
        pid = store.enroll(study, f"PP-T{k}", "college")
        while (item := store.next_item(pid)) is not None:
            values = tuple(item.expected.values()) if item.kind == "attention" else (4, 4)
            store.record_response(pid, item.id, *values, shown_at=store.clock() - timedelta(seconds=20 + k))
    ms = [r["response_ms"] for r in store.rows(study) if r["kind"] == "problem"]
    assert len(ms) == 18 and store.typical_item_seconds(study) == pytest.approx(sorted(ms)[8:10][0] / 2000
                                                                                  + sorted(ms)[8:10][1] / 2000)


def test_admin_tokens_expire_and_die_with_the_password():
    from core.interestingness.safety import admin_token, admin_token_valid

    token = admin_token("correct horse battery", "s" * 20, now=1000.0, lifetime=60)
    assert admin_token_valid(token, "correct horse battery", "s" * 20, now=1059.0)
    assert not admin_token_valid(token, "correct horse battery", "s" * 20, now=1060.0)        # expired
    assert not admin_token_valid(token, "another long password", "s" * 20, now=1001.0)        # password changed
    assert not admin_token_valid(token, "correct horse battery", "t" * 20, now=1001.0)        # secret changed
    forged = f"9999999999.{token.split('.')[1]}"                                              # expiry edited
    assert not admin_token_valid(forged, "correct horse battery", "s" * 20, now=1001.0)
    assert not admin_token_valid("garbage", "correct horse battery", None, now=0.0)
    assert not admin_token_valid(None, "correct horse battery", None, now=0.0)
