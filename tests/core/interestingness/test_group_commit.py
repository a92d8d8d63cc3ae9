"""SQLite's group commit (``GROUP_COMMIT = True``, off by default): writes waiting together share one commit
(one fsync), each caller is answered only after the commit that holds its write, and a write that fails rolls
back alone."""

import sqlite3
import threading
import time

import pytest
import sqlalchemy as sa

from core.interestingness import StudyStore
from core.interestingness import models as m
from core.interestingness import store as store_module
from tests.core.interestingness.conftest import problems


@pytest.fixture(autouse=True)
def group_commit(monkeypatch):
    """Every test here runs with group commit on (the control turns it off again)."""
    monkeypatch.setattr(store_module, "GROUP_COMMIT", True)


def test_each_write_commits_alone_by_default():
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(store_module))
    default = next(node.value.value for node in tree.body if isinstance(node, ast.Assign)
                   and [getattr(t, "id", None) for t in node.targets] == ["GROUP_COMMIT"])
    assert default is False                    # as shipped: one commit, so one fsync, per acknowledged answer


def commits(store):
    """Count the COMMITs the write engine's connections send to SQLite (each is one fsync of the WAL under
    synchronous=FULL), through the ORM or in plain SQL (core/interestingness/sqlite_items.py)."""
    count = [0]

    def trace(statement):
        if statement.strip().upper() == "COMMIT":
            count[0] += 1

    store.engine.dispose()                     # connections opened from here on are traced
    sa.event.listen(store.engine, "connect", lambda dbapi_connection, _record: dbapi_connection.set_trace_callback(trace))
    return count


def responses(path):
    """Responses as another process sees them (a connection of its own: only what is committed)."""
    with sqlite3.connect(path) as other:
        return other.execute("SELECT count(*) FROM responses").fetchone()[0]


def world(tmp_path, n):
    store = StudyStore(f"sqlite:///{tmp_path / 'study.sqlite'}")
    bank = problems(10)
    sid = store.create_study("group", [p.id for p in bank], items_per_participant=3, attention_checks=0,
                             problems=bank)
    pids = [store.enroll(sid, f"G{i}", "college") for i in range(n)]
    items = [store.next_item(pid) for pid in pids]
    return store, pids, items


def answer_while_the_file_is_held(store, calls, queued):
    """Start ``calls`` (thunks) in threads while this test holds the file's process-wide write lock, wait until
    about ``queued`` of them wait in the writer's queue, then release it; returns (results, errors) per call."""
    results, errors = [None] * len(calls), [None] * len(calls)

    def run(i):
        try:
            results[i] = calls[i]()
        except Exception as error:  # noqa: BLE001 - collected and asserted by the caller
            errors[i] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    with store._lock:
        for t in threads:
            t.start()
        writer = store._writer
        deadline = time.monotonic() + 60
        # the writer may take a few before it blocks on the lock; the rest wait in its queue until it settles
        seen = -1
        while queued and time.monotonic() < deadline and (len(writer._queue) < max(1, queued - 3)
                                                          or len(writer._queue) != seen):
            seen = len(writer._queue)
            time.sleep(0.2)
        assert all(t.is_alive() for t in threads)        # nobody is answered while nothing can be committed
    for t in threads:
        t.join(60)
    return results, errors


def test_writes_waiting_together_share_one_commit(tmp_path):
    store, pids, items = world(tmp_path, 20)
    count = commits(store)
    calls = [lambda p=p, it=it: store.record_response(p, it.id, 5, 2) for p, it in zip(pids, items)]
    results, errors = answer_while_the_file_is_held(store, calls, queued=19)
    assert errors == [None] * 20 and not any(r.duplicate for r in results)
    assert responses(tmp_path / "study.sqlite") == 20
    assert count[0] <= 3                                   # the few the writer took first, then those that waited
    store.close()


def test_control_without_group_commit_every_write_commits_alone(tmp_path, monkeypatch):
    monkeypatch.setattr(store_module, "GROUP_COMMIT", False)
    store, pids, items = world(tmp_path, 20)
    count = commits(store)
    calls = [lambda p=p, it=it: store.record_response(p, it.id, 5, 2) for p, it in zip(pids, items)]
    results, errors = answer_while_the_file_is_held(store, calls, queued=0)
    assert errors == [None] * 20 and responses(tmp_path / "study.sqlite") == 20
    assert count[0] == 20                                  # what the group test must beat
    store.close()


def test_a_refused_write_in_a_group_rolls_back_alone(tmp_path):
    store, pids, items = world(tmp_path, 6)

    with store.engine.connect() as c:
        mine = set(c.execute(sa.select(m.Assignment.item_id).where(m.Assignment.participant_id == pids[0])).scalars())
    foreign = next(p.id for p in problems(10) if p.id not in mine)

    def into_another_participants_item():   # passes the checks outside the transaction, refused inside it
        return store.record_response(pids[0], foreign, 3, 3)

    calls = ([lambda p=p, it=it: store.record_response(p, it.id, 6, 1) for p, it in zip(pids[1:], items[1:])]
             + [into_another_participants_item, lambda: store.record_response(pids[1], items[1].id, 1, 1)])
    results, errors = answer_while_the_file_is_held(store, calls, queued=len(calls) - 1)
    assert errors[:5] == [None] * 5 and "item_id" in str(errors[5]) and isinstance(errors[5], ValueError)
    assert errors[6] is None and results[6].duplicate             # the repeat of an answer in the same group
    with store.engine.connect() as c:
        stored = c.execute(sa.select(m.Response.participant_id, m.Response.interestingness)).all()
    assert sorted(stored) == sorted((p, 6) for p in pids[1:])      # the refused one wrote nothing
    store.close()


def test_a_refused_study_in_a_group_writes_nothing_and_the_others_are_kept(tmp_path):
    store, pids, items = world(tmp_path, 3)
    bank = problems(10)
    calls = [lambda: store.create_study("group", [p.id for p in bank], 2, problems=bank),   # the name exists
             lambda: store.record_response(pids[0], items[0].id, 2, 2),
             lambda: store.create_study("second", [p.id for p in bank], 2, problems=bank)]
    results, errors = answer_while_the_file_is_held(store, calls, queued=2)
    assert "name" in str(errors[0]) and errors[1] is None and errors[2] is None
    assert [s["name"] for s in store.studies()] == ["group", "second"] and responses(tmp_path / "study.sqlite") == 1
    store.close()


def test_a_write_waits_out_another_process_holding_the_file(tmp_path):
    store, pids, items = world(tmp_path, 1)
    other = sqlite3.connect(tmp_path / "study.sqlite", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")                        # another process's write transaction
    done = []
    thread = threading.Thread(target=lambda: done.append(store.record_response(pids[0], items[0].id, 4, 4)))
    thread.start()
    thread.join(0.5)
    assert thread.is_alive() and not done                  # not answered while it cannot commit
    other.execute("ROLLBACK")
    other.close()
    thread.join(60)
    assert done and not done[0].duplicate and responses(tmp_path / "study.sqlite") == 1
    store.close()


def test_an_idle_writer_ends_and_the_next_write_starts_one(tmp_path, monkeypatch):
    monkeypatch.setattr(store_module, "WRITER_IDLE_S", 0.05)
    store, pids, items = world(tmp_path, 2)
    writer = store._writer
    thread = writer._thread
    if thread is not None:
        thread.join(30)                    # the idle writer ends by itself
    assert writer._thread is None
    assert not store.record_response(pids[1], items[1].id, 7, 7).duplicate
    assert responses(tmp_path / "study.sqlite") == 1
    store.close()
    assert writer._thread is None
    with pytest.raises(RuntimeError, match="closed"):
        store.record_response(pids[0], items[0].id, 7, 7)
