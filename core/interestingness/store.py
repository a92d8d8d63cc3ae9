"""StudyStore: the study's data service. Every write is committed before the call returns.

Storage is SQLAlchemy 2: by default a SQLite file under ``data/`` (or ``$STUDY_DATA_DIR``);
``STUDY_DATABASE_URL`` (or ``url=``) selects any other database, such as PostgreSQL. Opening a store
brings an empty or older database up to the current schema (Alembic).

Durability and contention (our choices):
- SQLite runs in WAL mode with ``synchronous=FULL``: the WAL is fsynced at every commit, so an answer
  the participant saw confirmed survives a power loss (``NORMAL`` would only survive a crash of the
  process). Reads run in deferred transactions (a long export never blocks a participant's write);
  writes run in ``BEGIN IMMEDIATE`` transactions behind one process-wide lock per database file, taken
  first come, first served (:class:`core.common.fifo_lock.FifoLock`), so the sessions of one server
  never contend for the file's write lock and none waits behind later writes, and a write that still
  meets a lock held by another process is retried with back-off (up to ``WRITE_DEADLINE_S``) rather
  than failed. A participant's calls per item (``next_item``, ``record_response``, ``complete``) run
  in plain SQL on SQLite (:mod:`core.interestingness.sqlite_items`), with the same decisions as the
  ORM path PostgreSQL takes. Each write commits on its own (one fsync per acknowledged answer). ``GROUP_COMMIT = True``
  instead hands writes to one writer thread per store that runs every write waiting at that moment
  (up to ``MAX_GROUP``) in its own savepoint of one transaction, commits once and only then answers
  each caller (an acknowledged write is still on disk; a refused one rolls back alone). Under load
  with 50 writers that never pause (bench/interestingness_store.py measures both), it lowers the p95
  and the worst wait, but raises the median many-fold and breaks "an fsync per acknowledged
  answer", so it stays off by default (tests/core/interestingness/test_group_commit.py covers it).
  PostgreSQL commits are durable by the server's own settings (``synchronous_commit=on``
  by default).
- Problems are immutable once a study uses them: a study owns a snapshot of each problem's statement
  (``study_problems``), participants are shown that snapshot, and loading a problem whose id a study
  already uses with a different text is refused, naming the id and the study. Loading the same text
  again changes nothing. ``create_study`` validates and writes in one transaction, so a refused one
  writes nothing.

Assignment (balanced, resumable): a participant gets ``items_per_participant`` problems, the ones
assigned least often so far within their population, ties broken by the participant's seeded
random draw, shown in a seeded random order, with ``attention_checks`` instruction-style checks at
seeded positions after the first item. Only assignments that will yield analysable ratings count:
those of completed participants and of active ones seen within the study's
``assignment_timeout_s`` (default ``ASSIGNMENT_TIMEOUT`` = 2 h; "seen" is enrolment, an item shown
or an answer). A participant idle for longer releases their items to later participants (they can
still come back and finish: nothing of theirs is deleted). Enrolments into one study are
serialised (``SELECT ... FOR NO KEY UPDATE`` on the study row on PostgreSQL, the write lock on SQLite), so
concurrent enrolments see each other's assignments. The assignment is stored at enrolment, so a
reload or a crash resumes at the first unanswered position with the same items.

Studies and participants over time (our choices): a closed study (``set_closed``) takes no new
participants, while those already in may finish; a withdrawn participant (``withdraw``) gets status
``withdrawn``, is excluded from every analysis, and has their responses either deleted or kept and
flagged, as the experimenter chooses; both are recorded in ``study_audit``. Each study sets how many
wrong attention checks its exclusion rule tolerates (``max_failed_checks``). Every argument is
checked before any query (text without NUL and within its column's length, integers that are not
booleans, datetimes not in the future), so a bad one is refused with a ValueError naming it and
nothing is written.
"""

from __future__ import annotations

import collections
import csv
import io
import json
import os
import re
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
from sqlalchemy import create_engine, delete, event, func, select, text, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import sessionmaker

from core.common.fifo_lock import FifoLock
from core.interestingness import models as m
from core.interestingness.exclusion import ExclusionRule, exclusions
from core.interestingness.problems import RATIONALES, Problem, validate_problem
from core.interestingness.safety import MAX_PARAM, backoff_pause, check_http_url, check_text, csv_safe
from core.interestingness.sqlite_items import SqliteItems

ROOT = Path(__file__).resolve().parents[2]
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
MIGRATION_LOCK = 74_201_226            # PostgreSQL advisory lock held while a process runs the migrations
POPULATIONS = ("college", "olympiad")
MAX_COMMENT = 2000
MAX_BACKGROUND = 2000               # characters of a participant's background answers as JSON
EXPORT_COLUMNS = ("study_id", "participant_id", "population", "participant_status", "position", "item_id", "kind",
                  "interestingness", "difficulty", "rationales", "comment", "attention_passed", "shown_at",
                  "answered_at", "response_ms", "statement", "consent_at", "background", "excluded")
ASSIGNMENT_TIMEOUT = 7200           # seconds an active participant may be idle before their items are released
MAX_ASSIGNMENT_TIMEOUT = 30 * 86400
WRITE_DEADLINE_S = 120.0            # how long a SQLite write retries a lock held by another process
SNAPSHOT = ("statement", "topic", "difficulty", "source", "answer")
SQLITE_SYNCHRONOUS = "FULL"         # fsync the WAL at every commit (bench/interestingness_store.py measures NORMAL)
GROUP_COMMIT = False                # SQLite: True = one writer thread commits the writes waiting together
MAX_GROUP = 256                     # writes in one group commit at most
WRITER_IDLE_S = 5.0                 # an idle writer thread ends; the next write starts one
_WRITE_LOCKS: dict[str, FifoLock] = {}
_WRITE_LOCKS_GUARD = threading.Lock()


def now() -> datetime:
    return datetime.now(timezone.utc)


def _utc(value: datetime | None) -> datetime | None:
    """SQLite returns naive datetimes; every time we store is UTC."""
    if value is None:
        return None
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


def default_url() -> str:
    url = os.environ.get("STUDY_DATABASE_URL")
    if url:
        return url
    folder = Path(os.environ.get("STUDY_DATA_DIR", ROOT / "data"))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'study.sqlite'}"


def make_engine(url: str, write: bool = True):
    """An engine for ``url``. On SQLite, ``write`` engines begin every transaction IMMEDIATE (they take
    the write lock up front, so a transaction never fails half way on a lock upgrade) and read engines
    begin deferred ones (they never hold the write lock)."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False}, pool_size=20,
                               max_overflow=60)

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection, _record):
            dbapi_connection.isolation_level = None          # we issue BEGIN ourselves
            cursor = dbapi_connection.cursor()
            for pragma in ("journal_mode=WAL", "busy_timeout=30000", "foreign_keys=ON",
                           f"synchronous={SQLITE_SYNCHRONOUS}"):
                cursor.execute(f"PRAGMA {pragma}")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _begin(connection):
            connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")
        return engine
    return create_engine(url, pool_size=20, max_overflow=60, pool_pre_ping=True)


def _write_lock(url) -> FifoLock:
    """One lock per SQLite database file in this process (every StudyStore on the file shares it), taken in the
    order the writes asked for it (:mod:`core.common.fifo_lock`)."""
    key = str(Path(url.database or ":memory:").resolve()) if url.database not in (None, "", ":memory:") else str(url)
    with _WRITE_LOCKS_GUARD:
        return _WRITE_LOCKS.setdefault(key, FifoLock())


def _locked(error: OperationalError) -> bool:
    text = str(error.orig if error.orig is not None else error).lower()
    return "locked" in text or "busy" in text


def _int_arg(field: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise ValueError(f"{field}: {value!r} is not allowed; allowed integers {low}..{high}")
    return int(value)


def _pid(participant_id) -> str:
    """A participant id as given in a link: text of 1..64 characters without NUL."""
    return check_text("participant_id", participant_id, 64, 1)


def _time_arg(field: str, value) -> datetime | None:
    if value is not None and not isinstance(value, datetime):
        raise ValueError(f"{field}: {type(value).__name__} is not allowed; allowed a datetime or None")
    return value


def _background(value) -> dict | None:
    """The background answers: None, or a JSON object of at most MAX_BACKGROUND characters without NUL."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"background: {type(value).__name__} is not allowed; allowed a dict of answers or None")
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        raise ValueError("background: not JSON-serialisable; allowed a dict of text, numbers and booleans") from None
    if "\\u0000" in text or len(text) > MAX_BACKGROUND:
        raise ValueError(f"background: {len(text)} characters as JSON or a NUL; allowed at most {MAX_BACKGROUND} "
                         "characters without NUL")
    return value


@dataclass(frozen=True)
class Item:
    """The next thing a participant is shown: a problem to rate or an attention check.

    Attributes
    ----------
    id : str
        The problem's id, or the attention check's id.
    kind : str
        ``"problem"`` or ``"attention"``.
    position : int
        0-based place of the item in the participant's sequence.
    total : int
        Items in the participant's sequence.
    statement : str
        The problem, or the attention check's instruction.
    topic : str or None
        The problem's topic; None for an attention check.
    expected : dict or None
        Attention checks: the answer asked for, ``{"interestingness": a, "difficulty": b}``.
    """

    id: str
    kind: str                       # "problem" or "attention"
    position: int                   # 0-based
    total: int
    statement: str                  # the problem, or the attention check's instruction
    topic: str | None = None
    expected: dict | None = None    # attention checks: {"interestingness": a, "difficulty": b}


@dataclass(frozen=True)
class Recorded:
    participant_id: str
    item_id: str
    duplicate: bool                 # True: this (participant, item) was already answered; nothing changed
    attention_passed: bool | None = None


class StudyStore:
    """The study's data service (see the module docstring for storage, durability and assignment).

    Parameters
    ----------
    url : str, optional
        A SQLAlchemy URL; default :func:`default_url`.
    clock : callable, optional
        Returns the current UTC time (default: the system clock); tests pass a controllable one.
    """

    def __init__(self, url: str | None = None, clock=None):
        self.url = url or default_url()
        self.clock = clock or now
        self.engine = make_engine(self.url)
        self.upgrade()
        self.session = sessionmaker(self.engine, expire_on_commit=False)
        if self.engine.dialect.name == "sqlite":
            self.read_engine = make_engine(self.url, write=False)
            self._lock = _write_lock(self.engine.url)
            self._writer = _GroupWriter(self.session, self._lock) if GROUP_COMMIT else None
            # a participant's calls per item in plain SQL (sqlite_items.py), unless writes go through group commit
            self._items = None if GROUP_COMMIT else SqliteItems(self.engine, self.read_engine, self._lock,
                                                                 WRITE_DEADLINE_S)
        else:
            self.read_engine, self._lock, self._writer, self._items = self.engine, None, None, None
        self.reader = sessionmaker(self.read_engine, expire_on_commit=False)

    def _transact(self, body):
        """Run ``body(session)`` in a committed write transaction and return its result once it is committed.
        On SQLite the writer thread commits it in a group with the writes waiting alongside (see the module
        docstring), behind the process-wide lock of the file, retried with back-off while another process
        holds the file's write lock (``body`` must be safe to re-run: it is, it only reads and adds)."""
        if self._lock is None:
            with self.session.begin() as s:
                return body(s)
        if self._writer is not None:
            return self._writer.submit(body)
        return _commit_alone(self.session, self._lock, body)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def upgrade(self, revision: str = "head") -> None:
        """Bring the database to ``revision`` with the Alembic migrations (idempotent)."""
        from alembic import command
        from alembic.config import Config

        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with self.engine.begin() as connection:
            if connection.dialect.name == "postgresql":   # replicas starting together migrate one at a time
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
            config.attributes["connection"] = connection
            command.upgrade(config, revision)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self.engine.dispose()
        self.read_engine.dispose()

    # -- problems and studies -------------------------------------------------------------------

    def add_problems(self, problems: list[Problem]) -> int:
        """Load problems into the library; returns how many were new or changed.

        A problem already loaded with the same content is left as it is. One whose id is loaded with a
        different content is updated only while no study uses it; otherwise the whole call is refused
        (nothing is written) with a ValueError naming the id and the study that uses it.
        """
        return self._transact(lambda s: self._add_problems(s, problems))

    def _add_problems(self, s, problems) -> int:
        if not isinstance(problems, (list, tuple)) or not all(isinstance(p, Problem) for p in problems):
            raise ValueError("problems: allowed a list of Problem objects")
        problems = [validate_problem(p, f"problems[{i}]") for i, p in enumerate(problems)]
        ids = [p.id for p in problems]
        if len(set(ids)) != len(ids):
            twice = sorted({i for i in ids if ids.count(i) > 1})
            raise ValueError(f"problems: id {twice[0]!r} appears twice; allowed unique ids")
        have = {p.id: p for p in s.scalars(select(m.Problem).where(m.Problem.id.in_(ids)))} if ids else {}
        changed = [p for p in problems if p.id in have and _content(have[p.id]) != _content(p)]
        if changed:
            users = {}
            for pid, study_name, study_id in s.execute(
                    select(m.StudyProblem.problem_id, m.Study.name, m.Study.id)
                    .join(m.Study, m.Study.id == m.StudyProblem.study_id)
                    .where(m.StudyProblem.problem_id.in_([p.id for p in changed])).order_by(m.Study.id)):
                users.setdefault(pid, (pid, study_name, study_id))
            first = next((users[p.id] for p in changed if p.id in users), None)   # in the import's order
            if first is not None:
                raise ValueError(f"problems: {first[0]!r} is already used by study {first[1]!r} (#{first[2]}) with a "
                                 "different statement, topic, difficulty, source or answer, and a problem a study uses "
                                 "cannot change; allowed the same content under that id, or a new id")
        n = 0
        for p in problems:
            if p.id not in have:
                s.add(m.Problem(**p.to_dict()))
                n += 1
            elif _content(have[p.id]) != _content(p):
                for key, value in p.to_dict().items():
                    setattr(have[p.id], key, value)
                n += 1
        s.flush()
        return n

    def create_study(self, name: str, problem_ids, items_per_participant: int = 20, attention_checks: int = 2,
                     populations=POPULATIONS, completion_url: str | None = None, problems: list[Problem] | None = None,
                     assignment_timeout_s: int = ASSIGNMENT_TIMEOUT, max_failed_checks: int = 0) -> int:
        """Create a study over ``problem_ids`` (loading ``problems`` first, in the same transaction: a refused
        study writes nothing) and return its id."""
        name = check_text("name", name, 10_000).strip()
        if not 1 <= len(name) <= 200:
            raise ValueError(f"name: {len(name)} characters; allowed 1..200")
        if isinstance(problem_ids, (str, bytes)) or not hasattr(problem_ids, "__iter__"):
            raise ValueError(f"problem_ids: a {type(problem_ids).__name__}; allowed a list of problem ids")
        problem_ids = list(dict.fromkeys(problem_ids))
        if not problem_ids or not all(isinstance(p, str) and "\x00" not in p and len(p) <= 64 for p in problem_ids):
            raise ValueError("problem_ids: empty, or an id that is not text of 1..64 characters without NUL; allowed "
                             "a non-empty list of ids")
        if isinstance(items_per_participant, bool) or not isinstance(items_per_participant, int) \
                or not 1 <= items_per_participant <= len(problem_ids):
            raise ValueError(f"items_per_participant: {items_per_participant!r}; allowed integers 1..{len(problem_ids)} "
                             "(the study's problems)")
        if isinstance(attention_checks, bool) or not isinstance(attention_checks, int) \
                or not 0 <= attention_checks <= 5:
            raise ValueError(f"attention_checks: {attention_checks!r}; allowed integers 0..5")
        if isinstance(populations, (str, bytes)) or not isinstance(populations, (list, tuple)) or not populations \
                or any(not isinstance(p, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,32}", p) for p in populations) \
                or len(set(populations)) != len(populations):
            raise ValueError(f"populations: {populations!r}; allowed a non-empty list of distinct names of 1..32 "
                             "letters, digits, '_' or '-'")
        populations = list(populations)
        completion_url = check_http_url("completion_url", completion_url)
        if isinstance(assignment_timeout_s, bool) or not isinstance(assignment_timeout_s, int) \
                or not 1 <= assignment_timeout_s <= MAX_ASSIGNMENT_TIMEOUT:
            raise ValueError(f"assignment_timeout_s: {assignment_timeout_s!r}; allowed integers "
                             f"1..{MAX_ASSIGNMENT_TIMEOUT}")
        if isinstance(max_failed_checks, bool) or not isinstance(max_failed_checks, int) \
                or not 0 <= max_failed_checks <= attention_checks:
            raise ValueError(f"max_failed_checks: {max_failed_checks!r}; allowed integers 0..{attention_checks} "
                             "(the study's attention checks)")

        def body(s):
            if s.scalar(select(m.Study.id).where(m.Study.name == name)) is not None:
                raise ValueError(f"name: a study called {name!r} exists; allowed a new name")
            if problems:
                self._add_problems(s, problems)
            known = {p.id: p for p in s.scalars(select(m.Problem).where(m.Problem.id.in_(problem_ids)))}
            missing = [p for p in problem_ids if p not in known]
            if missing:
                raise ValueError(f"problem_ids: unknown {', '.join(missing[:5])}; allowed ids of loaded problems")
            study = m.Study(name=name, items_per_participant=items_per_participant, attention_checks=attention_checks,
                            populations=populations, completion_code=secrets.token_hex(4).upper(),
                            failed_code=secrets.token_hex(4).upper(), completion_url=completion_url,
                            created_at=self.clock(), assignment_timeout_s=assignment_timeout_s,
                            max_failed_checks=max_failed_checks)
            s.add(study)
            s.flush()
            s.add_all(_snapshot(study.id, known[p]) for p in problem_ids)
            return study.id
        return self._transact(body)

    def add_to_pool(self, study_id: int, problems: list[Problem]) -> int:
        """Add problems (e.g. generated ones) to a study's pool; later participants may be assigned them.
        Returns how many were new to the study; one already in it is left as it is."""
        self.study(study_id)

        def body(s):
            self._add_problems(s, problems)
            have = set(s.scalars(select(m.StudyProblem.problem_id).where(m.StudyProblem.study_id == study_id)))
            new = [p for p in problems if p.id not in have]
            s.add_all(_snapshot(study_id, s.get(m.Problem, p.id)) for p in new)
            return len(new)
        return self._transact(body)

    def studies(self) -> list[dict]:
        with self.reader() as s:
            return [{"id": st.id, "name": st.name, "items_per_participant": st.items_per_participant,
                     "attention_checks": st.attention_checks, "populations": st.populations, "completion_code": st.completion_code,
                     "failed_code": st.failed_code, "completion_url": st.completion_url,
                     "assignment_timeout_s": st.assignment_timeout_s, "closed_at": _iso(st.closed_at),
                     "max_failed_checks": st.max_failed_checks}
                    for st in s.scalars(select(m.Study).order_by(m.Study.id))]

    def study(self, study_id: int) -> dict:
        if isinstance(study_id, bool) or not isinstance(study_id, (int, np.integer)):
            raise ValueError(f"study_id: {study_id!r} is not allowed; allowed the integer id of an existing study")
        found = [st for st in self.studies() if st["id"] == study_id]
        if not found:
            raise ValueError(f"study_id: {study_id!r} does not exist; allowed ids of existing studies")
        return found[0]

    def rule(self, study_id: int, min_median_seconds: float | None = None) -> ExclusionRule:
        """The study's exclusion rule: its own attention-check tolerance, and the time threshold given (or the
        default)."""
        study = self.study(study_id)
        seconds = ExclusionRule().min_median_seconds if min_median_seconds is None else min_median_seconds
        return ExclusionRule(seconds, study["max_failed_checks"])

    def set_closed(self, study_id: int, closed: bool) -> None:
        """Close (no new enrolments; participants already in may finish) or reopen a study; audited."""
        if not isinstance(closed, bool):
            raise ValueError(f"closed: {closed!r}; allowed True or False")
        self.study(study_id)

        def body(s):
            study = s.get(m.Study, study_id)
            if (study.closed_at is not None) != closed:
                study.closed_at = self.clock() if closed else None
                s.add(m.StudyAudit(study_id=study_id, action="closed" if closed else "reopened", at=self.clock()))
        self._transact(body)

    def withdraw(self, participant_id: str, delete: bool, reason: str | None = None) -> int:
        """Withdraw a participant: status ``withdrawn`` (excluded from every analysis) and, when ``delete``,
        their responses and attention outcomes deleted. Recorded in ``study_audit``; returns how many
        responses were deleted."""
        participant_id = _pid(participant_id)
        if not isinstance(delete, bool):
            raise ValueError(f"delete: {delete!r}; allowed True (delete the responses) or False (flag them)")
        reason = check_text("reason", reason, 500, optional=True)

        def body(s):
            p = s.get(m.Participant, participant_id)
            if p is None:
                raise ValueError("participant_id: unknown participant; allowed ids of this study's participants")
            if p.status == "withdrawn":
                raise ValueError("participant_id: already withdrawn; allowed a participant who has not withdrawn")
            deleted = 0
            if delete:
                s.execute(m.AttentionOutcome.__table__.delete().where(
                    m.AttentionOutcome.participant_id == participant_id))
                deleted = s.execute(m.Response.__table__.delete().where(
                    m.Response.participant_id == participant_id)).rowcount
            previous, p.status, p.withdrawn_at = p.status, "withdrawn", self.clock()
            s.add(m.StudyAudit(study_id=p.study_id, participant_id=participant_id, action="withdrawn",
                               detail={"mode": "deleted" if delete else "flagged", "responses_deleted": deleted,
                                       "previous_status": previous, "reason": reason}, at=self.clock()))
            return deleted
        return self._transact(body)

    def typical_item_seconds(self, study_id: int, at_least: int = 10) -> float | None:
        """The median seconds from showing a problem to its answer over the study's responses so far (None
        with fewer than ``at_least`` timed responses)."""
        self.study(study_id)
        with self.reader() as s:
            ms = list(s.scalars(select(m.Response.response_ms).join(
                m.Participant, m.Participant.id == m.Response.participant_id).where(
                m.Participant.study_id == study_id, m.Response.kind == "problem", m.Response.response_ms.is_not(None))))
        return float(np.median(ms)) / 1000 if len(ms) >= at_least else None

    def audit(self, study_id: int) -> list[dict]:
        """The study's audit trail, oldest first."""
        self.study(study_id)
        with self.reader() as s:
            return [{"at": _iso(a.at), "action": a.action, "participant_id": a.participant_id, "detail": a.detail}
                    for a in s.scalars(select(m.StudyAudit).where(m.StudyAudit.study_id == study_id)
                                       .order_by(m.StudyAudit.id))]

    def study_problems(self, study_id: int) -> list[dict]:
        """The study's own snapshot of its problems (what its participants are shown), ordered by id."""
        with self.reader() as s:
            rows = s.scalars(select(m.StudyProblem).where(m.StudyProblem.study_id == study_id)
                             .order_by(m.StudyProblem.problem_id))
            return [{"id": p.problem_id, **{k: getattr(p, k) for k in SNAPSHOT}} for p in rows]

    def study_problem_objects(self, study_id: int) -> list[Problem]:
        """:meth:`study_problems` as ``Problem`` objects (for raters)."""
        return [Problem(**p) for p in self.study_problems(study_id)]

    # -- participants ---------------------------------------------------------------------------

    def enroll(self, study_id: int, external_id: str, population: str, prolific_study_id: str | None = None,
               session_id: str | None = None, background: dict | None = None, consent_at: datetime | None = None
               ) -> str:
        """The participant id for ``external_id`` in this study; the same external id resumes the same one."""
        study = self.study(study_id)
        external_id = check_text("external_id", external_id, 10_000).strip()
        if not 1 <= len(external_id) <= MAX_PARAM:
            raise ValueError(f"external_id: {len(external_id)} characters; allowed 1..{MAX_PARAM}")
        if population not in study["populations"]:
            raise ValueError(f"population: {population!r} is not allowed; allowed {', '.join(study['populations'])}")
        if study["closed_at"] is not None and self._participant_by_external(study_id, external_id) is None:
            raise ValueError("study_id: the study is closed to new participants; allowed an open study")
        prolific_study_id = check_text("prolific_study_id", prolific_study_id, MAX_PARAM, 1, optional=True)
        session_id = check_text("session_id", session_id, MAX_PARAM, 1, optional=True)
        background = _background(background)
        consent_at = _time_arg("consent_at", consent_at)
        existing = self._participant_by_external(study_id, external_id)
        if existing:
            self._resumed(existing)
            return existing

        def body(s):
            if self.dialect != "sqlite":      # serialise enrolment per study; SQLite's write lock already does
                # FOR NO KEY UPDATE: enrolments queue on each other, inserts that reference the study do not
                s.execute(select(m.Study.id).where(m.Study.id == study_id).with_for_update(key_share=True))
            found = s.scalar(select(m.Participant.id).where(m.Participant.study_id == study_id,
                                                            m.Participant.external_id == external_id))
            if found:
                s.execute(update(m.Participant).where(m.Participant.id == found)
                          .values(resumes=m.Participant.resumes + 1))
                return found
            return self._create_participant(s, study, external_id, population, prolific_study_id, session_id,
                                            background, consent_at or self.clock())
        try:
            return self._transact(body)
        except IntegrityError:   # the same link opened twice at once: the other request created it
            existing = self._participant_by_external(study_id, external_id)
            if existing:
                return existing
            raise

    def resume(self, study_id: int, external_id: str) -> str | None:
        """The participant already enrolled under ``external_id`` in this study (counting one resume from a
        new browser session), or None when there is none."""
        self.study(study_id)
        external_id = check_text("external_id", external_id, 10_000).strip()
        if not 1 <= len(external_id) <= MAX_PARAM:
            raise ValueError(f"external_id: {len(external_id)} characters; allowed 1..{MAX_PARAM}")
        existing = self._participant_by_external(study_id, external_id)
        if existing:
            self._resumed(existing)
        return existing

    def _resumed(self, participant_id: str) -> None:
        """Count one resume of this participant from a new browser session (flagged in the admin view)."""
        self._transact(lambda s: s.execute(update(m.Participant).where(m.Participant.id == participant_id)
                                           .values(resumes=m.Participant.resumes + 1)))

    def _participant_by_external(self, study_id: int, external_id: str) -> str | None:
        with self.reader() as s:
            return s.scalar(select(m.Participant.id).where(m.Participant.study_id == study_id,
                                                           m.Participant.external_id == external_id))

    def assignment_counts(self, study_id: int, population: str, session=None) -> dict:
        """Per problem, the assignments that count for balance (see the module docstring)."""
        if session is None:
            with self.reader() as s:
                return self.assignment_counts(study_id, population, s)
        s = session
        study = s.get(m.Study, study_id)
        cutoff = self.clock() - timedelta(seconds=study.assignment_timeout_s)
        people = s.execute(select(m.Participant.id, m.Participant.status, m.Participant.created_at).where(
            m.Participant.study_id == study_id, m.Participant.population == population,
            m.Participant.status.in_(("active", "completed")))).all()
        active = {pid: _utc(created) for pid, status, created in people if status == "active"}
        counted = {pid for pid, status, _ in people if status == "completed"}
        if active:
            last = dict(active)
            for column, table in ((m.Assignment.shown_at, m.Assignment), (m.Response.answered_at, m.Response)):
                for pid, seen in s.execute(select(table.participant_id, func.max(column)).join(
                        m.Participant, m.Participant.id == table.participant_id).where(
                        m.Participant.study_id == study_id, m.Participant.population == population,
                        m.Participant.status == "active").group_by(table.participant_id)):
                    if seen is not None:
                        last[pid] = max(last[pid], _utc(seen))
            counted |= {pid for pid, seen in last.items() if seen >= cutoff}
        counts: dict[str, int] = {}
        for pid, item in s.execute(select(m.Assignment.participant_id, m.Assignment.item_id).join(
                m.Participant, m.Participant.id == m.Assignment.participant_id).where(
                m.Participant.study_id == study_id, m.Assignment.population == population,
                m.Assignment.kind == "problem")):
            if pid in counted:
                counts[item] = counts.get(item, 0) + 1
        return counts

    def _create_participant(self, s, study, external_id, population, prolific_study_id, session_id, background,
                            consent_at) -> str:
        pid = secrets.token_hex(8)
        seed = secrets.randbelow(2**31)
        counts = self.assignment_counts(study["id"], population, s)
        s.add(m.Participant(id=pid, study_id=study["id"], external_id=external_id, prolific_study_id=prolific_study_id,
                            session_id=session_id, population=population, background=background,
                            consent_at=consent_at, assignment_seed=seed, status="active", created_at=self.clock()))
        s.flush()
        problem_ids = list(s.scalars(select(m.StudyProblem.problem_id).where(m.StudyProblem.study_id == study["id"])
                                     .order_by(m.StudyProblem.problem_id)))
        rng = np.random.default_rng(seed)
        tie = rng.random(len(problem_ids))
        order = sorted(range(len(problem_ids)), key=lambda i: (counts.get(problem_ids[i], 0), tie[i]))
        chosen = [problem_ids[i] for i in order[: study["items_per_participant"]]]
        chosen = [chosen[i] for i in rng.permutation(len(chosen))]
        slots = sorted(rng.choice(np.arange(1, len(chosen) + 1), size=min(study["attention_checks"], len(chosen)),
                       replace=False).tolist())
        items = [("problem", pid_, None, None) for pid_ in chosen]
        for j, slot in enumerate(reversed(slots)):
            a, b = int(rng.integers(1, 8)), int(rng.integers(1, 8))
            instruction = (f"**Attention check.** This item is not a problem. To show that you are reading "
                           f"carefully, set *interestingness* to **{a}** and *difficulty* to **{b}**, then continue.")
            items.insert(slot, ("attention", f"attention-{len(slots) - j}", instruction,
                                {"interestingness": a, "difficulty": b}))
        s.add_all(m.Assignment(participant_id=pid, position=i, item_id=item_id, kind=kind, population=population,
                               instruction=instruction, expected=expected)
                  for i, (kind, item_id, instruction, expected) in enumerate(items))
        return pid

    def participant(self, participant_id: str) -> dict:
        with self.reader() as s:
            p = s.get(m.Participant, _pid(participant_id))
            if p is None:
                raise ValueError("participant_id: unknown participant; allowed the id from your study link")
            answered = s.scalar(select(func.count()).select_from(m.Response).where(
                m.Response.participant_id == p.id))
            total = s.scalar(select(func.count()).select_from(m.Assignment).where(
                m.Assignment.participant_id == p.id))
            return {"id": p.id, "study_id": p.study_id, "population": p.population, "status": p.status,
                    "answered": answered, "total": total, "consent_at": _utc(p.consent_at),
                    "resumes": p.resumes}

    def next_item(self, participant_id: str) -> Item | None:
        """The first unanswered item (recording when it was first shown), or None when all are answered.

        The problem's statement is the study's snapshot of it (``study_problems``)."""
        if self._items is not None:
            return self._next_item_sqlite(_pid(participant_id))
        with self.reader() as s:
            participant = s.get(m.Participant, _pid(participant_id))
            if participant is None:
                raise ValueError("participant_id: unknown participant; allowed the id from your study link")
            answered = set(s.scalars(select(m.Response.item_id).where(m.Response.participant_id == participant.id)))
            rows = s.scalars(select(m.Assignment).where(m.Assignment.participant_id == participant.id)
                             .order_by(m.Assignment.position)).all()
            pending = [a for a in rows if a.item_id not in answered]
            if not pending:
                return None
            a = pending[0]
            snapshot = (None if a.kind == "attention" else
                        s.get(m.StudyProblem, (participant.study_id, a.item_id)))
        if a.shown_at is None:   # a write only the first time an item is shown
            def mark(s):
                s.execute(update(m.Assignment).where(m.Assignment.participant_id == a.participant_id,
                                                     m.Assignment.position == a.position,
                                                     m.Assignment.shown_at.is_(None)).values(shown_at=self.clock()))
            self._transact(mark)
        if a.kind == "attention":
            return Item(a.item_id, a.kind, a.position, len(rows), a.instruction, None, dict(a.expected))
        return Item(a.item_id, a.kind, a.position, len(rows), snapshot.statement, snapshot.topic)

    def _next_item_sqlite(self, participant_id: str) -> Item | None:
        """:meth:`next_item` in plain SQL (:mod:`core.interestingness.sqlite_items`)."""
        try:
            a = self._items.pending(participant_id)
        except LookupError:
            raise ValueError("participant_id: unknown participant; allowed the id from your study link") from None
        if a is None:
            return None
        if a.shown_at is None:   # a write only the first time an item is shown
            self._items.mark_shown(participant_id, a.position, self.clock())
        if a.kind == "attention":
            return Item(a.item_id, a.kind, a.position, a.total, a.instruction, None, dict(a.expected))
        return Item(a.item_id, a.kind, a.position, a.total, a.statement, a.topic)

    def record_response(self, participant_id: str, item_id: str, interestingness: int, difficulty: int,
                        rationales=(), comment: str | None = None, shown_at: datetime | None = None) -> Recorded:
        """Validate and commit one answer; a repeat for the same (participant, item) changes nothing."""
        for name, value in (("interestingness", interestingness), ("difficulty", difficulty)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= 7:
                raise ValueError(f"{name}: {value!r} is not allowed; allowed integers 1..7")
        participant_id = _pid(participant_id)
        item_id = check_text("item_id", item_id, 64, 1)
        if rationales is None:
            rationales = []
        if not isinstance(rationales, (list, tuple)):
            raise ValueError(f"rationales: {type(rationales).__name__} is not allowed; allowed a list of distinct "
                             f"values from {', '.join(RATIONALES)}")
        rationales = list(rationales)
        bad = [r for r in rationales if not isinstance(r, str) or r not in RATIONALES]
        if bad or len(set(rationales)) != len(rationales):
            raise ValueError(f"rationales: {bad or 'repeated entries'} not allowed; allowed distinct values from "
                             f"{', '.join(RATIONALES)}")
        comment = check_text("comment", comment, MAX_COMMENT, optional=True)
        comment = (comment.strip() or None) if comment is not None else None
        shown_at = _time_arg("shown_at", shown_at)
        if shown_at is not None and _utc(shown_at) > self.clock():
            raise ValueError(f"shown_at: {_iso(shown_at)} is in the future; allowed a time up to now")

        def body(access):
            status = access.participant_status(participant_id)
            if status is None:
                raise ValueError("participant_id: unknown participant; allowed the id from your study link")
            assignment = access.assignment(participant_id, item_id)
            if assignment is None:
                raise ValueError(f"item_id: {item_id!r} is not one of this participant's items; allowed the "
                                 "items of their own assignment")
            if access.answered(participant_id, item_id):
                return Recorded(participant_id, item_id, True)
            if status != "active":
                raise ValueError(f"participant_id: the study is {status} for this participant; "
                                 "allowed active participants")
            kind, expected, first_shown = assignment
            answered = self.clock()
            shown = _utc(shown_at or first_shown)
            access.add_response(participant_id=participant_id, item_id=item_id, kind=kind,
                                interestingness=int(interestingness), difficulty=int(difficulty),
                                rationales=rationales, comment=comment, shown_at=shown, answered_at=answered,
                                response_ms=None if shown is None else int((answered - shown).total_seconds() * 1000))
            passed = None
            if kind == "attention":
                passed = (int(interestingness), int(difficulty)) == (expected["interestingness"],
                                                                     expected["difficulty"])
                access.add_outcome(participant_id, item_id, passed)
            return Recorded(participant_id, item_id, False, passed)
        try:
            if self._items is not None:
                return self._items.write(body)
            return self._transact(lambda s: body(_OrmAccess(s)))
        except (IntegrityError, sqlite3.IntegrityError):   # the same answer submitted twice at once: the first stands
            return Recorded(participant_id, item_id, True)

    def complete(self, participant_id: str) -> str:
        """The completion code once every item is answered (the failed-checks code if every check failed)."""
        participant_id = _pid(participant_id)

        def body(access):
            status = access.participant_status(participant_id)
            if status is None:
                raise ValueError("participant_id: unknown participant; allowed the id from your study link")
            if status == "withdrawn":
                raise ValueError("participant_id: withdrawn from the study; allowed participants who have not "
                                 "withdrawn")
            if status == "active":
                total, answered = access.progress(participant_id)
                if answered < total:
                    raise ValueError(f"participant_id: {total - answered} items unanswered; allowed after the last item")
                outcomes = access.outcomes(participant_id)
                status = "failed_checks" if outcomes and not any(outcomes) else "completed"
                access.finish(participant_id, status, self.clock())
            completion, failed = access.codes(participant_id)
            return failed if status == "failed_checks" else completion
        if self._items is not None:
            return self._items.write(body)
        return self._transact(lambda s: body(_OrmAccess(s)))

    # -- reading out ----------------------------------------------------------------------------

    def rows(self, study_id: int, include_external_ids: bool = False, rule: ExclusionRule | None = None
             ) -> list[dict]:
        """One dict per response, with the participant's metadata (see EXPORT_COLUMNS). ``excluded`` is the
        reason the exclusion rule (``rule``, default the study's own :meth:`rule`) excludes the participant from
        the analysis, or None; every response is returned either way."""
        self.study(study_id)
        with self.reader() as s:
            query = (select(m.Response, m.Participant, m.Assignment.position, m.AttentionOutcome.passed,
                            m.Assignment.instruction, m.StudyProblem.statement)
                     .join(m.Participant, m.Participant.id == m.Response.participant_id)
                     .join(m.Assignment, (m.Assignment.participant_id == m.Response.participant_id)
                           & (m.Assignment.item_id == m.Response.item_id))
                     .outerjoin(m.AttentionOutcome, (m.AttentionOutcome.participant_id == m.Response.participant_id)
                                & (m.AttentionOutcome.item_id == m.Response.item_id))
                     .outerjoin(m.StudyProblem, (m.StudyProblem.study_id == m.Participant.study_id)
                                & (m.StudyProblem.problem_id == m.Response.item_id))
                     .where(m.Participant.study_id == study_id).order_by(m.Participant.id, m.Assignment.position))
            out = []
            for r, p, position, passed, instruction, statement in s.execute(query):
                row = {"study_id": study_id, "participant_id": p.id, "population": p.population,
                       "participant_status": p.status, "position": position, "item_id": r.item_id, "kind": r.kind,
                       "interestingness": r.interestingness, "difficulty": r.difficulty, "rationales": r.rationales,
                       "comment": r.comment, "attention_passed": passed,
                       "shown_at": _iso(r.shown_at), "answered_at": _iso(r.answered_at), "response_ms": r.response_ms,
                       "statement": instruction if r.kind == "attention" else statement,
                       "consent_at": _iso(p.consent_at), "background": p.background}
                if include_external_ids:
                    row.update(external_id=p.external_id, prolific_study_id=p.prolific_study_id,
                               session_id=p.session_id)
                out.append(row)
        reasons = exclusions(out, rule or self.rule(study_id)).reasons
        for row in out:
            row["excluded"] = reasons.get(row["participant_id"])
        return out

    def export(self, study_id: int, fmt: str = "csv", include_external_ids: bool = False,
               rule: ExclusionRule | None = None) -> str:
        """Every response as CSV or JSON, with the exclusion rule's verdict per row (``excluded``), the statement
        shown, and the participant's consent time and background answers. CSV text cells that a spreadsheet
        would run as a formula (starting with ``=``, ``+``, ``-``, ``@``, tab or CR) get a leading ``'``."""
        if fmt not in ("csv", "json"):
            raise ValueError(f"fmt: {fmt!r} is not allowed; allowed csv, json")
        rows = self.rows(study_id, include_external_ids, rule)
        if fmt == "json":
            return json.dumps(rows, indent=1)
        columns = list(EXPORT_COLUMNS) + (["external_id", "prolific_study_id", "session_id"]
                                          if include_external_ids else [])
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            cells = {**row, "rationales": ";".join(row["rationales"]), "excluded": row["excluded"] or "",
                     "background": "" if row["background"] is None else json.dumps(row["background"])}
            writer.writerow({key: csv_safe(value) for key, value in cells.items()})
        return buffer.getvalue()

    def add_llm_rating(self, problem_id: str, result, study_id: int | None = None) -> int:
        """Store one LLM rating (a raters.RatingResult) next to the human ones; returns its row id."""
        def body(s):
            if s.get(m.Problem, str(problem_id)) is None:
                raise ValueError(f"problem_id: {problem_id!r} is not a loaded problem; allowed ids of loaded problems")
            row = m.LLMRating(study_id=study_id, problem_id=str(problem_id), rater=result.rater, model=result.model,
                              prompt_version=result.prompt_version,
                              interestingness=[float(x) for x in result.interestingness],
                              difficulty=None if result.difficulty is None else [float(x) for x in result.difficulty],
                              rationales=dict(result.rationales), expected_interestingness=result.expected_interestingness,
                              raw=json.dumps(result.raw), created_at=self.clock())
            s.add(row)
            s.flush()
            return row.id
        return self._transact(body)

    def llm_ratings(self, study_id: int | None = None) -> list[dict]:
        with self.reader() as s:
            query = select(m.LLMRating).order_by(m.LLMRating.id)
            if study_id is not None:
                query = query.where(m.LLMRating.study_id == study_id)
            return [{"problem_id": r.problem_id, "rater": r.rater, "model": r.model,
                     "prompt_version": r.prompt_version, "interestingness": r.interestingness,
                     "difficulty": r.difficulty, "rationales": r.rationales,
                     "expected_interestingness": r.expected_interestingness} for r in s.scalars(query)]

    def participants(self, study_id: int) -> list[dict]:
        with self.reader() as s:
            return [{"participant_id": p.id, "population": p.population, "status": p.status,
                     "created_at": _iso(p.created_at), "completed_at": _iso(p.completed_at), "resumes": p.resumes}
                    for p in s.scalars(select(m.Participant).where(m.Participant.study_id == study_id))]


    # -- the admin gate's back-off, shared by every process on the database ------------------------

    def backoff_wait(self, keys, now: float) -> float:
        """Seconds before any of ``keys`` may try the admin password again, at ``now`` (epoch seconds)."""
        keys = [_backoff_key(k) for k in keys]
        if not keys:
            return 0.0
        with self.reader() as s:
            until = s.scalar(select(func.max(m.AdminBackoff.until)).where(m.AdminBackoff.key.in_(keys)))
        return max(0.0, (until or 0.0) - now)

    def backoff_failed(self, keys, now: float) -> float:
        """Count one wrong try for every key (atomically across processes); the longest wait it imposes."""
        keys = sorted({_backoff_key(k) for k in keys})   # one lock order for every process: no deadlock

        def body(s):
            longest = 0.0
            for key in keys:
                row = s.get(m.AdminBackoff, key, with_for_update=True)
                if row is None:
                    row = m.AdminBackoff(key=key, failures=0, until=0.0)
                    s.add(row)
                row.failures += 1
                pause = backoff_pause(row.failures)
                row.until = now + pause
                longest = max(longest, pause)
            return longest
        try:
            return self._transact(body)
        except IntegrityError:   # another process inserted the same key first: count on its row
            return self._transact(body)

    def backoff_succeeded(self, keys) -> None:
        """Forget the wrong tries of ``keys`` (the right password was given)."""
        keys = [_backoff_key(k) for k in keys]
        if keys:
            self._transact(lambda s: s.execute(delete(m.AdminBackoff).where(m.AdminBackoff.key.in_(keys))))

    def backoff_failures(self, key: str) -> int:
        """Wrong tries in a row recorded for ``key``."""
        with self.reader() as s:
            return s.scalar(select(m.AdminBackoff.failures).where(m.AdminBackoff.key == _backoff_key(key))) or 0


class _OrmAccess:
    """What ``record_response``'s and ``complete``'s decisions read and write, through an ORM session (the plain-SQL one on SQLite
    is :class:`core.interestingness.sqlite_items.Access`)."""

    def __init__(self, session):
        self._s = session

    def participant_status(self, participant_id: str) -> str | None:
        return self._s.scalar(select(m.Participant.status).where(m.Participant.id == participant_id))

    def assignment(self, participant_id: str, item_id: str) -> tuple | None:
        a = self._s.scalar(select(m.Assignment).where(m.Assignment.participant_id == participant_id,
                                                      m.Assignment.item_id == item_id))
        return None if a is None else (a.kind, a.expected, a.shown_at)

    def answered(self, participant_id: str, item_id: str) -> bool:
        return self._s.scalar(select(m.Response.id).where(m.Response.participant_id == participant_id,
                                                          m.Response.item_id == item_id)) is not None

    def add_response(self, **row) -> None:
        self._s.add(m.Response(**row))

    def add_outcome(self, participant_id: str, item_id: str, passed: bool) -> None:
        self._s.add(m.AttentionOutcome(participant_id=participant_id, item_id=item_id, passed=passed))

    def progress(self, participant_id: str) -> tuple[int, int]:
        """(items assigned, items answered)."""
        return (self._s.scalar(select(func.count()).select_from(m.Assignment).where(
                    m.Assignment.participant_id == participant_id)),
                self._s.scalar(select(func.count()).select_from(m.Response).where(
                    m.Response.participant_id == participant_id)))

    def outcomes(self, participant_id: str) -> list[bool]:
        return list(self._s.scalars(select(m.AttentionOutcome.passed).where(
            m.AttentionOutcome.participant_id == participant_id)))

    def finish(self, participant_id: str, status: str, when: datetime) -> None:
        self._s.execute(update(m.Participant).where(m.Participant.id == participant_id).values(
            status=status, completed_at=when))

    def codes(self, participant_id: str) -> tuple[str, str]:
        """The participant's study's (completion code, failed-checks code)."""
        return tuple(self._s.execute(select(m.Study.completion_code, m.Study.failed_code).join(
            m.Participant, m.Participant.study_id == m.Study.id).where(m.Participant.id == participant_id)).one())


def _commit_alone(session, lock, body):
    """``body`` in a write transaction of its own behind ``lock``, retried while another process holds the file."""
    deadline, pause = time.monotonic() + WRITE_DEADLINE_S, 0.01
    while True:
        try:
            with lock, session.begin() as s:
                return body(s)
        except OperationalError as error:
            if not _locked(error) or time.monotonic() > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.5)


class _Job:
    __slots__ = ("body", "done", "result", "error")

    def __init__(self, body):
        self.body, self.done, self.result, self.error = body, threading.Event(), None, None


class _GroupWriter:
    """Group commit for one SQLite store: callers queue a write and wait; one thread takes every write queued,
    runs each in a savepoint of one transaction and commits once, then answers them (module docstring).

    ``groups`` and ``writes`` count the commits and the writes they carried (the bench reads them)."""

    def __init__(self, session, lock):
        self._session, self._lock = session, lock
        self._queue: collections.deque[_Job] = collections.deque()
        self._guard = threading.Lock()
        self._wake = threading.Condition(self._guard)
        self._thread: threading.Thread | None = None
        self._closed = False
        self.groups = self.writes = 0

    def submit(self, body):
        if threading.current_thread() is self._thread:
            raise RuntimeError("a write may not start another write from inside its transaction")
        job = _Job(body)
        with self._guard:
            if self._closed:
                raise RuntimeError("the study store is closed")
            self._queue.append(job)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="study-writer", daemon=True)
                self._thread.start()
            else:
                self._wake.notify()
        job.done.wait()
        if job.error is not None:
            raise job.error
        return job.result

    def close(self) -> None:
        with self._guard:
            self._closed = True
            thread = self._thread
            self._wake.notify()
        if thread is not None:
            thread.join(timeout=WRITE_DEADLINE_S)

    def _run(self) -> None:
        while True:
            with self._guard:
                if not self._queue and not self._closed:
                    self._wake.wait(WRITER_IDLE_S)
                if not self._queue:                 # idle or closed: the next submit starts a new writer
                    self._thread = None
                    return
                group = [self._queue.popleft() for _ in range(min(len(self._queue), MAX_GROUP))]
            try:
                self._commit(group)
            except BaseException as error:  # noqa: BLE001 - every caller gets an answer, whatever happened
                for job in group:
                    job.result, job.error = None, error
            for job in group:
                job.done.set()

    def _commit(self, group) -> None:
        deadline, pause = time.monotonic() + WRITE_DEADLINE_S, 0.01
        while True:
            try:
                with self._lock, self._session.begin() as s:
                    s.connection()                  # BEGIN IMMEDIATE: the file's write lock, before any body runs
                    for job in group:
                        job.result, job.error = None, None
                        try:
                            with s.begin_nested():
                                job.result = job.body(s)
                        except OperationalError as error:
                            if _locked(error):
                                raise
                            job.error = error
                        except Exception as error:  # noqa: BLE001 - this write's own failure: it rolls back alone
                            job.error = error
                self.groups += 1
                self.writes += len(group)
                return
            except Exception as error:
                locked = isinstance(error, OperationalError) and _locked(error)
                if locked and time.monotonic() <= deadline:
                    time.sleep(pause)
                    pause = min(pause * 2, 0.5)
                    continue
                if locked or len(group) == 1:
                    raise
            # the group's transaction itself failed: each write on its own, so one cannot fail the others
            for job in group:
                try:
                    job.result, job.error = _commit_alone(self._session, self._lock, job.body), None
                except Exception as error:  # noqa: BLE001
                    job.result, job.error = None, error
            return


def _backoff_key(key) -> str:
    if not isinstance(key, str) or not 1 <= len(key) <= 200:
        raise ValueError(f"key: {key!r} is not a back-off key; allowed text of 1..200 characters")
    return key


def _content(p) -> tuple:
    return tuple(getattr(p, k) for k in ("statement", "topic", "difficulty", "source", "answer"))


def _snapshot(study_id: int, problem) -> m.StudyProblem:
    return m.StudyProblem(study_id=study_id, problem_id=problem.id, **{k: getattr(problem, k) for k in SNAPSHOT})


def _iso(value: datetime | None) -> str | None:
    return None if value is None else _utc(value).isoformat()
