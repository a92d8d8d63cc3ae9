"""StudyStore on SQLite and on the real PostgreSQL: the flow, resuming, balance, bad input, export,
migrations and 50 concurrent participants."""

import json
import subprocess
import sys
import threading

import pytest
import sqlalchemy as sa

from core.interestingness import StudyStore
from core.interestingness import models as m
from core.interestingness.store import make_engine
from tests.core.interestingness.conftest import answer_all, problems


def count(store, table):
    with store.engine.connect() as c:
        return c.execute(sa.select(sa.func.count()).select_from(table)).scalar()


def test_a_whole_participant_run(store, study):
    pid = store.enroll(study, "PID-1", "college", prolific_study_id="S1", session_id="X1")
    assert store.enroll(study, "PID-1", "college") == pid                  # the same link resumes
    answered = answer_all(store, pid)
    assert len(answered) == 8 and sum(a.startswith("attention") for a in answered) == 2
    assert not answered[0].startswith("attention")                          # never the first item
    code = store.complete(pid)
    assert code == store.study(study)["completion_code"] and store.complete(pid) == code
    rows = json.loads(store.export(study, "json"))
    assert [r["item_id"] for r in rows] == answered and {r["population"] for r in rows} == {"college"}
    assert all(r["attention_passed"] is True for r in rows if r["kind"] == "attention")
    assert all(r["response_ms"] is not None and r["response_ms"] >= 0 for r in rows)
    header = store.export(study, "csv").splitlines()[0].split(",")
    for column in ("participant_id", "population", "item_id", "kind", "interestingness", "difficulty", "rationales",
                   "shown_at", "answered_at"):
        assert column in header
    assert "PID-1" not in store.export(study, "csv") and "PID-1" in store.export(study, "csv", include_external_ids=True)


def test_failing_every_check_gets_the_other_code(store, study):
    pid = store.enroll(study, "PID-2", "olympiad")
    answer_all(store, pid, fail_checks=True)
    assert store.complete(pid) == store.study(study)["failed_code"]
    assert store.participant(pid)["status"] == "failed_checks"


def test_a_participant_whose_app_died_resumes_with_the_same_assignment(store, study, db_url):
    pid = store.enroll(study, "PID-3", "college")
    first = [store.next_item(pid)]
    store.record_response(pid, first[0].id, *(first[0].expected or {"a": 5, "b": 2}).values())
    second = store.next_item(pid)
    store.close()                                                           # the app dies here
    reopened = StudyStore(db_url)
    assert reopened.enroll(study, "PID-3", "college") == pid
    again = reopened.next_item(pid)
    assert (again.id, again.position) == (second.id, second.position) and again.position == 1
    with reopened.engine.connect() as c:
        items = c.execute(sa.select(m.Assignment.item_id).where(m.Assignment.participant_id == pid)
                          .order_by(m.Assignment.position)).scalars().all()
    assert items[0] == first[0].id and items[1] == second.id
    reopened.close()


def test_assignment_is_balanced_within_a_population(store, study):
    for i in range(10):                                                     # 10 x 6 = 60 = 2 per problem
        store.enroll(study, f"C{i}", "college")
    with store.engine.connect() as c:
        counts = c.execute(sa.select(m.Assignment.item_id, sa.func.count()).where(
            m.Assignment.kind == "problem", m.Assignment.population == "college").group_by(
            m.Assignment.item_id)).all()
    assert len(counts) == 30 and {n for _, n in counts} == {2}


@pytest.mark.parametrize("kwargs, message", [
    ({"interestingness": 0}, "^interestingness: 0 is not allowed; allowed integers 1..7$"),
    ({"interestingness": 8}, "^interestingness: 8 "),
    ({"difficulty": 3.5}, "^difficulty: 3.5 "),
    ({"difficulty": True}, "^difficulty: True "),
    ({"rationales": ["because"]}, "^rationales: .*allowed distinct values"),
    ({"comment": "x" * 2001}, "^comment: 2001 characters; allowed at most 2000$"),
    ({"item_id": "q999"}, "^item_id: 'q999' is not one of this participant's items"),
])
def test_bad_answers_are_refused_and_nothing_is_written(store, study, kwargs, message):
    pid = store.enroll(study, "PID-4", "college")
    item = store.next_item(pid)
    call = {"participant_id": pid, "item_id": item.id, "interestingness": 4, "difficulty": 4, **kwargs}
    with pytest.raises(ValueError, match=message):
        store.record_response(**call)
    assert count(store, m.Response) == 0 and store.next_item(pid).id == item.id


def test_another_participants_item_and_unknown_participants_are_refused(store, study):
    a = store.enroll(study, "A", "college")
    b = store.enroll(study, "B", "college")
    with store.engine.connect() as c:
        mine = set(c.execute(sa.select(m.Assignment.item_id).where(m.Assignment.participant_id == a)).scalars())
        theirs = [i for i in c.execute(sa.select(m.Assignment.item_id).where(m.Assignment.participant_id == b))
                  .scalars() if i not in mine]
    with pytest.raises(ValueError, match="^item_id: .*not one of this participant's items"):
        store.record_response(a, theirs[0], 4, 4)
    with pytest.raises(ValueError, match="^participant_id: unknown participant"):
        store.record_response("nobody", theirs[0], 4, 4)
    with pytest.raises(ValueError, match="^population: 'martians' is not allowed; allowed college, olympiad$"):
        store.enroll(study, "C", "martians")
    with pytest.raises(ValueError, match="^participant_id: .* items unanswered"):
        store.complete(a)
    assert count(store, m.Response) == 0


def test_repeated_answers_are_idempotent(store, study):
    pid = store.enroll(study, "PID-5", "college")
    item = store.next_item(pid)
    values = item.expected or {"i": 6, "d": 2}
    first = store.record_response(pid, item.id, *values.values())
    again = store.record_response(pid, item.id, 1, 1)
    assert not first.duplicate and again.duplicate and count(store, m.Response) == 1
    assert json.loads(store.export(study, "json"))[0]["interestingness"] == list(values.values())[0]


def test_study_settings_are_validated(store, study):
    with pytest.raises(ValueError, match="^name: a study called 'pilot' exists"):
        store.create_study("pilot", ["q000"], items_per_participant=1)
    with pytest.raises(ValueError, match="^problem_ids: unknown nope"):
        store.create_study("other", ["nope"], items_per_participant=1)
    with pytest.raises(ValueError, match=r"^items_per_participant: 5; allowed integers 1..2"):
        store.create_study("other", ["q000", "q001"], items_per_participant=5)


def test_an_older_database_is_upgraded_and_keeps_its_data(db_url):
    old = StudyStore.__new__(StudyStore)             # a store from before the llm_ratings table existed
    old.url, old.engine = db_url, make_engine(db_url)
    old.upgrade("0001")
    assert not sa.inspect(old.engine).has_table("llm_ratings")
    with old.engine.begin() as c:
        c.execute(sa.insert(m.Problem.__table__).values(id="old1", statement="s", topic="algebra", difficulty=1,
                                                        source="original"))
        c.exec_driver_sql("INSERT INTO studies (name, items_per_participant, attention_checks, populations, "
                          "completion_code, failed_code, created_at) VALUES ('old', 1, 0, '[\"college\"]', 'A', 'B', "
                          "'2026-01-01 00:00:00')")
        c.exec_driver_sql("INSERT INTO study_problems (study_id, problem_id) SELECT id, 'old1' FROM studies")
    old.engine.dispose()
    store = StudyStore(db_url)
    assert sa.inspect(store.engine).has_table("llm_ratings")
    with store.engine.connect() as c:
        assert c.execute(sa.select(m.Problem.id)).scalars().all() == ["old1"]
        assert c.exec_driver_sql("SELECT version_num FROM alembic_version").scalar() == "0005"
    assert sa.inspect(store.engine).has_table("admin_backoff")     # the back-off every replica shares
    (old_study,) = store.studies()                   # the study's snapshot is backfilled from the library
    assert store.study_problems(old_study["id"]) == [{"id": "old1", "statement": "s", "topic": "algebra",
                                                      "difficulty": 1, "source": "original", "answer": None}]
    assert old_study["assignment_timeout_s"] == 7200
    store.close()


def test_models_match_the_migrated_schema(store):
    inspector = sa.inspect(store.engine)
    for table in m.Base.metadata.sorted_tables:
        columns = {c["name"] for c in inspector.get_columns(table.name)}
        assert columns == {c.name for c in table.columns}, table.name


BURN = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass\n"


def cpu_burners(n=3, seconds=6):
    """A few busy processes (bounded: each exits after ``seconds``) for a loaded machine."""
    return [subprocess.Popen([sys.executable, "-c", BURN.format(seconds=seconds)]) for _ in range(n)]


@pytest.mark.slow(reason="1100 answers from 50 threads on a machine loaded by busy processes, on both backends")
@pytest.mark.xdist_group("fifty-threads")   # 50 connections each: two at once exceed PostgreSQL's 100
def test_fifty_concurrent_participants_lose_and_duplicate_nothing(store):
    """50 participants answering at once while busy processes load the CPU: every answer is stored once."""
    burners = cpu_burners()
    try:
        _fifty_participants(store)
    finally:
        for p in burners:
            p.kill()
            p.wait()


def _fifty_participants(store):
    bank = problems(60)
    study = store.create_study("load", [p.id for p in bank], items_per_participant=20, problems=bank)
    errors, answered = [], []

    def participant(i):
        try:
            pid = store.enroll(study, f"P{i:02d}", "college" if i % 2 else "olympiad")
            while (item := store.next_item(pid)) is not None:
                values = item.expected or {"i": 1 + i % 7, "d": 1 + (i + item.position) % 7}
                store.record_response(pid, item.id, *values.values(), rationales=["challenging"])
                if item.position == 3:   # a double submit, as from a double click
                    assert store.record_response(pid, item.id, *values.values()).duplicate
                answered.append(item.id)
            store.complete(pid)
        except Exception as error:  # noqa: BLE001 - collected and asserted below
            errors.append(repr(error))

    threads = [threading.Thread(target=participant, args=(i,)) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not errors, errors[:3]
    rows = json.loads(store.export(study, "json"))
    assert len(rows) == 50 * 22 and len({(r["participant_id"], r["item_id"]) for r in rows}) == 50 * 22
    with store.engine.connect() as c:
        assigned = c.execute(sa.select(sa.func.count()).select_from(m.Assignment)).scalar()
    assert assigned == 50 * 22 and all(r["participant_status"] == "completed" for r in rows)
    assert len(answered) == 50 * 22
