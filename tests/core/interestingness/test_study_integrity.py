"""What participants saw stays what the data says they saw, on SQLite and on the real PostgreSQL:
problems a study uses never change, a refused study writes nothing, assignment stays balanced under
concurrent enrolment and abandonment, and SQLite reads never hold the write lock."""

import sqlite3
import threading
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

from core.interestingness import Problem, StudyStore
from core.interestingness import models as m
from tests.core.interestingness.conftest import answer_all, problems


class Clock:
    """A controllable UTC clock for the assignment timeout."""

    def __init__(self):
        self.t = datetime(2026, 1, 1, tzinfo=timezone.utc)
        self.lock = threading.Lock()

    def __call__(self):
        with self.lock:
            self.t += timedelta(milliseconds=1)
            return self.t

    def advance(self, seconds):
        with self.lock:
            self.t += timedelta(seconds=seconds)


def statements(store, study):
    return {p["id"]: p["statement"] for p in store.study_problems(study)}


def library(store):
    with store.engine.connect() as c:
        return dict(c.execute(sa.select(m.Problem.id, m.Problem.statement)).all())


def test_a_reimport_cannot_change_a_statement_a_study_uses(store, study):
    pid = store.enroll(study, "R1", "college")
    item = store.next_item(pid)
    while item.kind != "problem":
        store.record_response(pid, item.id, *item.expected.values())
        item = store.next_item(pid)
    store.record_response(pid, item.id, 5, 6)
    before, shelf = statements(store, study), library(store)
    rewritten = [Problem(p.id, "A different statement.", p.topic, p.difficulty) for p in problems(3)]
    with pytest.raises(ValueError, match=r"^problems: 'q000' is already used by study 'pilot' \(#\d+\) with a "
                                         r"different statement.*; allowed the same content under that id, or a new id$"):
        store.add_problems(rewritten)
    with pytest.raises(ValueError, match="^problems: 'q000' is already used by study 'pilot'"):
        store.create_study("second", [p.id for p in rewritten], items_per_participant=2, problems=rewritten)
    assert statements(store, study) == before and library(store) == shelf
    assert [s["name"] for s in store.studies()] == ["pilot"]                   # the refused study wrote nothing
    assert store.add_problems(problems(30)) == 0                               # the same text again: no change
    fresh = Problem("q900", "New.", "algebra", 2)
    assert store.add_problems([fresh]) == 1 and library(store)["q900"] == "New."
    assert store.add_problems([Problem("q900", "Edited before any study used it.", "algebra", 2)]) == 1


def test_a_refused_study_writes_nothing_and_leaves_the_library_alone(store, study):
    shelf = library(store)
    new = [Problem("n001", "Only in the refused study.", "geometry", 3)]
    with pytest.raises(ValueError, match="^name: a study called 'pilot' exists"):
        store.create_study("pilot", ["n001"], items_per_participant=1, problems=new)
    with pytest.raises(ValueError, match="^problem_ids: unknown nope"):
        store.create_study("other", ["n001", "nope"], items_per_participant=1, problems=new)
    assert library(store) == shelf and [s["name"] for s in store.studies()] == ["pilot"]


def test_participants_are_shown_the_studys_snapshot(store, study):
    with store.engine.begin() as c:       # even a hand edit of the library leaves the study's copy alone
        c.execute(sa.update(m.Problem.__table__).where(m.Problem.id == "q001").values(statement="edited by hand"))
    assert statements(store, study)["q001"] == problems()[1].statement
    pid = store.enroll(study, "R2", "college")
    shown = {}
    while (item := store.next_item(pid)) is not None:
        shown[item.id] = item.statement
        store.record_response(pid, item.id, *(item.expected or {"i": 4, "d": 4}).values())
    own = statements(store, study)
    assert all(shown[i] == own[i] for i in shown if not i.startswith("attention"))


@pytest.mark.xdist_group("fifty-threads")   # 50 connections each: two at once exceed PostgreSQL's 100
def test_fifty_concurrent_enrolments_are_balanced(store):
    bank = problems(30)
    sid = store.create_study("balance", [p.id for p in bank], items_per_participant=6, attention_checks=1,
                             problems=bank)
    errors = []

    def enrol(i):
        try:
            store.enroll(sid, f"E{i:02d}", "college")
        except Exception as error:  # noqa: BLE001 - collected and asserted below
            errors.append(repr(error))

    threads = [threading.Thread(target=enrol, args=(i,)) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors[:3]
    counts = store.assignment_counts(sid, "college")
    assert len(counts) == 30 and sum(counts.values()) == 300 and max(counts.values()) - min(counts.values()) <= 1


def test_abandoned_assignments_are_released_after_the_timeout(db_url):
    clock = Clock()
    store = StudyStore(db_url, clock=clock)
    bank = problems(12)
    sid = store.create_study("abandon", [p.id for p in bank], items_per_participant=4, attention_checks=0,
                             problems=bank, assignment_timeout_s=600)
    for i in range(20):                        # 30 % abandon after one item...
        pid = store.enroll(sid, f"A{i:02d}", "college")
        if i % 10 in (1, 4, 7):
            item = store.next_item(pid)
            store.record_response(pid, item.id, 3, 3)
            clock.advance(601)                 # ...and stay away past the timeout
        else:
            answer_all(store, pid)
            store.complete(pid)
    rows = [r for r in store.rows(sid) if r["participant_status"] == "completed"]
    collected = {p.id: 0 for p in bank}
    for r in rows:
        collected[r["item_id"]] += 1
    assert sum(collected.values()) == 14 * 4
    assert max(collected.values()) - min(collected.values()) <= 1, collected
    store.close()


def test_without_the_release_abandonment_unbalances_the_ratings(db_url):
    """Control: with a timeout longer than the study, the same abandonment leaves problems short."""
    clock = Clock()
    store = StudyStore(db_url, clock=clock)
    bank = problems(12)
    sid = store.create_study("abandon", [p.id for p in bank], items_per_participant=4, attention_checks=0,
                             problems=bank, assignment_timeout_s=10**6)
    for i in range(20):
        pid = store.enroll(sid, f"A{i:02d}", "college")
        if i % 10 in (1, 4, 7):
            item = store.next_item(pid)
            store.record_response(pid, item.id, 3, 3)
            clock.advance(601)
        else:
            answer_all(store, pid)
            store.complete(pid)
    collected = {p.id: 0 for p in bank}
    for r in store.rows(sid):
        if r["participant_status"] == "completed":
            collected[r["item_id"]] += 1
    assert max(collected.values()) - min(collected.values()) >= 2, collected
    store.close()


def test_abandoned_assignments_count_until_the_timeout(db_url):
    clock = Clock()
    store = StudyStore(db_url, clock=clock)
    bank = problems(6)
    sid = store.create_study("hold", [p.id for p in bank], items_per_participant=3, attention_checks=0,
                             problems=bank, assignment_timeout_s=600)
    first = store.enroll(sid, "H1", "college")
    held = set(store.assignment_counts(sid, "college"))
    store.enroll(sid, "H2", "college")
    clock.advance(601)
    assert set(store.assignment_counts(sid, "college")) == set()          # both idle past the timeout
    store.next_item(first)                                                 # H1 comes back: counted again
    assert set(store.assignment_counts(sid, "college")) == held
    store.close()


def test_a_long_sqlite_read_does_not_hold_the_write_lock(tmp_path):
    url = f"sqlite:///{tmp_path / 'study.sqlite'}"
    store = StudyStore(url)
    bank = problems(10)
    sid = store.create_study("reads", [p.id for p in bank], items_per_participant=3, problems=bank)
    pid = store.enroll(sid, "L1", "college")

    def free_for_writers():
        other = sqlite3.connect(tmp_path / "study.sqlite", timeout=0, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
            return True
        except sqlite3.OperationalError as error:
            assert "locked" in str(error)
            return False
        finally:
            other.close()

    with store.reader() as s:                        # an export-sized read, left open
        assert s.scalar(sa.select(sa.func.count()).select_from(m.Assignment)) == 5
        assert free_for_writers()
        item = store.next_item(pid)                  # a participant's write while the read is open
        assert not store.record_response(pid, item.id, *(item.expected or {"i": 2, "d": 5}).values()).duplicate
    with store.session.begin() as s:                 # control: a write transaction does hold it
        s.execute(sa.select(m.Study.id))
        assert not free_for_writers()
    with store.engine.connect() as c:
        assert c.exec_driver_sql("PRAGMA synchronous").scalar() == 2          # FULL
        assert c.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    with store.read_engine.connect() as c:
        assert c.exec_driver_sql("PRAGMA synchronous").scalar() == 2
    store.close()
