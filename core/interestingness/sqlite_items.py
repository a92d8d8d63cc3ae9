"""A participant's two calls per item (the next item, an answer) and their last (complete) on SQLite, in plain
SQL on the store's own pooled connections.

Why: through the ORM one item (``next_item`` and ``record_response``) costs the interpreter many times the CPU
of the same statements in plain SQL, and every session of a Streamlit server shares one interpreter, so with 50
participants that never pause the ORM's CPU sets the p95 of ``record_response``; bench/interestingness_store.py
measures that p95 and the CPU one participant's item costs. PostgreSQL keeps the ORM (its time is the server's
round trips, well under its 300 ms target).

The statements read and write exactly the columns core/interestingness/models.py maps; times go through
SQLAlchemy's own SQLite ``DATETIME`` processors and JSON through :mod:`json`, so rows written here read the same
through the ORM. Reads run in one deferred transaction (a consistent view, never the write lock); writes run in
``BEGIN IMMEDIATE`` behind the store's process-wide lock of the file, retried with back-off while another process
holds the file's lock, as the ORM path does.
"""

from __future__ import annotations

import json
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.dialects.sqlite import DATETIME

PENDING = """
SELECT a.position, a.item_id, a.kind, a.instruction, a.expected, a.shown_at,
       (SELECT count(*) FROM assignments WHERE participant_id = :pid)
  FROM assignments a
 WHERE a.participant_id = :pid
   AND NOT EXISTS (SELECT 1 FROM responses r WHERE r.participant_id = a.participant_id AND r.item_id = a.item_id)
 ORDER BY a.position LIMIT 1"""
RESPONSE = """
INSERT INTO responses (participant_id, item_id, kind, interestingness, difficulty, rationales, comment, shown_at,
                       answered_at, response_ms)
VALUES (:participant_id, :item_id, :kind, :interestingness, :difficulty, :rationales, :comment, :shown_at,
        :answered_at, :response_ms)"""


@dataclass(frozen=True)
class Pending:
    """A participant's first unanswered item as stored (``expected`` decoded, times naive UTC)."""

    study_id: int
    position: int
    item_id: str
    kind: str
    instruction: str | None
    expected: dict | None
    shown_at: datetime | None
    total: int
    statement: str | None
    topic: str | None


class Access:
    """What ``record_response``'s and ``complete``'s decisions read and write, on one open write transaction (a
    cursor)."""

    def __init__(self, items: "SqliteItems", cursor):
        self._items, self._cursor = items, cursor

    def participant_status(self, participant_id: str) -> str | None:
        row = self._cursor.execute("SELECT status FROM participants WHERE id = ?", (participant_id,)).fetchone()
        return None if row is None else row[0]

    def assignment(self, participant_id: str, item_id: str) -> tuple | None:
        """``(kind, expected, shown_at)`` of the participant's assignment of ``item_id``, or None."""
        row = self._cursor.execute("SELECT kind, expected, shown_at FROM assignments WHERE participant_id = ? "
                                   "AND item_id = ?", (participant_id, item_id)).fetchone()
        if row is None:
            return None
        return row[0], None if row[1] is None else json.loads(row[1]), self._items.read_time(row[2])

    def answered(self, participant_id: str, item_id: str) -> bool:
        return self._cursor.execute("SELECT 1 FROM responses WHERE participant_id = ? AND item_id = ?",
                                    (participant_id, item_id)).fetchone() is not None

    def add_response(self, **row) -> None:
        row = {**row, "rationales": json.dumps(row["rationales"]), "shown_at": self._items.write_time(row["shown_at"]),
               "answered_at": self._items.write_time(row["answered_at"])}
        self._cursor.execute(RESPONSE, row)

    def add_outcome(self, participant_id: str, item_id: str, passed: bool) -> None:
        self._cursor.execute("INSERT INTO attention_outcomes (participant_id, item_id, passed) VALUES (?, ?, ?)",
                             (participant_id, item_id, int(passed)))

    def mark_shown(self, participant_id: str, position: int, when: datetime) -> None:
        self._cursor.execute("UPDATE assignments SET shown_at = ? WHERE participant_id = ? AND position = ? AND "
                             "shown_at IS NULL", (self._items.write_time(when), participant_id, position))

    def progress(self, participant_id: str) -> tuple[int, int]:
        """(items assigned, items answered)."""
        return self._cursor.execute("SELECT (SELECT count(*) FROM assignments WHERE participant_id = :p), "
                                    "(SELECT count(*) FROM responses WHERE participant_id = :p)",
                                    {"p": participant_id}).fetchone()

    def outcomes(self, participant_id: str) -> list[bool]:
        return [bool(passed) for (passed,) in self._cursor.execute(
            "SELECT passed FROM attention_outcomes WHERE participant_id = ?", (participant_id,))]

    def finish(self, participant_id: str, status: str, when: datetime) -> None:
        self._cursor.execute("UPDATE participants SET status = ?, completed_at = ? WHERE id = ?",
                             (status, self._items.write_time(when), participant_id))

    def codes(self, participant_id: str) -> tuple[str, str]:
        """The participant's study's (completion code, failed-checks code)."""
        return self._cursor.execute("SELECT s.completion_code, s.failed_code FROM studies s JOIN participants p "
                                    "ON p.study_id = s.id WHERE p.id = ?", (participant_id,)).fetchone()


class SqliteItems:
    """The plain-SQL path of one SQLite store: ``engine`` for writes, ``read_engine`` for reads, ``lock`` the
    process-wide lock of the file, ``deadline_s`` how long a write retries a lock held by another process."""

    def __init__(self, engine, read_engine, lock, deadline_s: float):
        self._engine, self._read_engine, self._lock, self._deadline_s = engine, read_engine, lock, deadline_s
        self._bind = DATETIME().bind_processor(engine.dialect)
        self._result = DATETIME().result_processor(engine.dialect, None)

    def write_time(self, value: datetime | None) -> str | None:
        return self._bind(value)

    def read_time(self, value) -> datetime | None:
        return self._result(value)

    @contextmanager
    def _connection(self, engine):
        connection = engine.raw_connection()   # pooled, with the store's pragmas; it issues no BEGIN itself
        try:
            yield connection.cursor()
        finally:
            connection.close()

    def pending(self, participant_id: str) -> Pending | None:
        """The participant's first unanswered item; None when all are answered; LookupError for an unknown id."""
        with self._connection(self._read_engine) as cursor:
            cursor.execute("BEGIN")
            try:
                row = cursor.execute("SELECT study_id FROM participants WHERE id = ?", (participant_id,)).fetchone()
                if row is None:
                    raise LookupError(participant_id)
                study_id = row[0]
                item = cursor.execute(PENDING, {"pid": participant_id}).fetchone()
                snapshot = None
                if item is not None and item[2] != "attention":
                    snapshot = cursor.execute("SELECT statement, topic FROM study_problems WHERE study_id = ? AND "
                                              "problem_id = ?", (study_id, item[1])).fetchone()
            finally:
                cursor.execute("COMMIT")
        if item is None:
            return None
        position, item_id, kind, instruction, expected, shown_at, total = item
        return Pending(study_id, position, item_id, kind, instruction, None if expected is None else json.loads(expected),
                       self.read_time(shown_at), total, *(snapshot or (None, None)))

    def mark_shown(self, participant_id: str, position: int, when: datetime) -> None:
        """Record when the item at ``position`` was first shown (a later call changes nothing)."""
        self.write(lambda access: access.mark_shown(participant_id, position, when))

    def write(self, body):
        """``body(Access)`` in a write transaction of its own, committed before this returns its result."""
        deadline, pause = time.monotonic() + self._deadline_s, 0.01
        while True:
            try:
                with self._lock, self._connection(self._engine) as cursor:
                    try:
                        cursor.execute("BEGIN IMMEDIATE")
                        result = body(Access(self, cursor))
                        cursor.execute("COMMIT")
                        return result
                    except BaseException:
                        if cursor.connection.in_transaction:   # nothing of a failed write stays, nor its lock
                            cursor.execute("ROLLBACK")
                        raise
            except sqlite3.OperationalError as error:
                text = str(error).lower()
                if not ("locked" in text or "busy" in text) or time.monotonic() > deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
