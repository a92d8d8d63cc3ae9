"""core/interestingness/sqlite_items.py: on SQLite a participant's calls per item run in plain SQL and store exactly
what the ORM path stores.

The same study is run twice with the same clock and the same seeds: through the plain-SQL path (the default) and
through the ORM (the group writer's path); every row of assignments, responses and attention outcomes must be
equal, byte for byte, and so must every answer and refusal the participant gets.
"""

import itertools
import re
import sqlite3
from datetime import datetime, timedelta, timezone

import pytest

from core.interestingness import Problem, StudyStore
from core.interestingness import store as store_module
from core.interestingness.problems import RATIONALES


def run_study(path, monkeypatch, orm: bool) -> list:
    """Two participants answer every item (one twice, one with a wrong item and an unknown id on the way)."""
    ticks = itertools.count()
    start = datetime(2026, 12, 3, 8, 0, 0, 123456, tzinfo=timezone.utc)
    counter = itertools.count(1)
    monkeypatch.setattr(store_module, "GROUP_COMMIT", orm)
    monkeypatch.setattr(store_module.secrets, "randbelow", lambda n: 12345 % n)
    monkeypatch.setattr(store_module.secrets, "token_hex", lambda n: f"{next(counter):0{2 * n}x}")
    store = StudyStore(f"sqlite:///{path}", clock=lambda: start + timedelta(seconds=1.5 * next(ticks)))
    assert (store._items is None) == orm
    bank = [Problem(f"p{i:02d}", f"Problem {i}: find x.", "algebra", 1 + i % 5) for i in range(12)]
    study = store.create_study("same", [p.id for p in bank], items_per_participant=5, attention_checks=2, problems=bank)
    seen = []
    for n in range(2):
        pid = store.enroll(study, f"P{n}", "college")
        while (item := store.next_item(pid)) is not None:
            values = item.expected or {"interestingness": 1 + item.position % 7, "difficulty": 7 - item.position % 7}
            if item.position == 2:
                values = {"interestingness": 1, "difficulty": 1}        # a failed attention check, if it is one
            reasons = list(RATIONALES[: item.position % 3])
            seen.append((item.id, item.kind, item.position, item.total, item.statement, item.topic, item.expected))
            seen.append(store.record_response(pid, item.id, values["interestingness"], values["difficulty"], reasons,
                                              "a comment" if item.position == 1 else None))
            if item.position == 0:
                first = item.id
                seen.append(store.record_response(pid, item.id, 7, 7))           # answered twice: the first stands
                with pytest.raises(ValueError, match="item_id") as wrong:
                    store.record_response(pid, "p99", 4, 4)
                with pytest.raises(ValueError, match="participant_id") as unknown:
                    store.record_response("nobody", item.id, 4, 4)
                seen += [str(wrong.value), str(unknown.value)]
        seen.append(store.complete(pid))
        seen.append(store.record_response(pid, first, 2, 2))          # after the end: a repeat changes nothing
    store.close()
    return seen


def rows(path) -> dict:
    with sqlite3.connect(path) as db:
        return {table: db.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
                for table in ("assignments", "responses", "attention_outcomes", "participants")}


def test_plain_sql_stores_what_the_orm_stores(tmp_path, monkeypatch):
    plain = run_study(tmp_path / "plain.sqlite", monkeypatch, orm=False)
    orm = run_study(tmp_path / "orm.sqlite", monkeypatch, orm=True)
    assert plain == orm
    stored_plain, stored_orm = rows(tmp_path / "plain.sqlite"), rows(tmp_path / "orm.sqlite")
    assert len(stored_plain["responses"]) == 14 and len(stored_plain["attention_outcomes"]) == 4
    assert stored_plain == stored_orm
    shown = [r for r in stored_plain["assignments"] if r[-1] is not None]
    # times as SQLAlchemy's SQLite DATETIME writes them (UTC, no offset), to the microsecond of the clock
    assert len(shown) == 14 and all(re.fullmatch(r"2026-12-03 08:\d\d:\d\d\.(123456|623456)", r[-1]) for r in shown)


def test_the_plain_path_reads_back_through_the_orm(tmp_path, monkeypatch):
    run_study(tmp_path / "plain.sqlite", monkeypatch, orm=False)
    store = StudyStore(f"sqlite:///{tmp_path / 'plain.sqlite'}")
    study = store.studies()[0]["id"]
    exported = store.rows(study)
    answered = [r for r in exported if r["interestingness"] is not None]
    assert len(answered) == 14
    assert all(r["answered_at"] > r["shown_at"] for r in answered)
    assert {r["response_ms"] for r in answered} >= {1500}
    assert any(r["rationales"] for r in answered) and any(r["comment"] == "a comment" for r in answered)
    checks = [r for r in answered if r["kind"] == "attention"]
    assert len(checks) == 4 and {r["attention_passed"] for r in checks} <= {True, False}
    store.close()
