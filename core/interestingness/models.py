"""The study's tables (SQLAlchemy 2). The schema is created and upgraded only by the Alembic
migrations in ``migrations/``; these classes must match the latest revision (a test compares them).

Times are UTC. Participants are pseudonymous: ``id`` is a random token; the external ids a
recruiter passes (PROLIFIC_PID, STUDY_ID, SESSION_ID) are kept for resuming and payment, and the
export leaves them out unless asked.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, DateTime, Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class Problem(Base):
    __tablename__ = "problems"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    statement: Mapped[str] = mapped_column(Text)
    topic: Mapped[str] = mapped_column(String(32))
    difficulty: Mapped[int] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(String(16))
    answer: Mapped[str | None] = mapped_column(Text, nullable=True)


class Study(Base):
    __tablename__ = "studies"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    items_per_participant: Mapped[int] = mapped_column(Integer)
    attention_checks: Mapped[int] = mapped_column(Integer)
    populations: Mapped[list] = mapped_column(JSON)
    completion_code: Mapped[str] = mapped_column(String(64))
    failed_code: Mapped[str] = mapped_column(String(64))
    completion_url: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    assignment_timeout_s: Mapped[int] = mapped_column(Integer, server_default="7200")
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    max_failed_checks: Mapped[int] = mapped_column(Integer, server_default="0")


class StudyProblem(Base):
    """A study's problem and the snapshot of it the study took (what its participants are shown)."""
    __tablename__ = "study_problems"
    study_id: Mapped[int] = mapped_column(ForeignKey("studies.id"), primary_key=True)
    problem_id: Mapped[str] = mapped_column(ForeignKey("problems.id"), primary_key=True)
    statement: Mapped[str] = mapped_column(Text)
    topic: Mapped[str] = mapped_column(String(32))
    difficulty: Mapped[int] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(String(16))
    answer: Mapped[str | None] = mapped_column(Text, nullable=True)


class Participant(Base):
    __tablename__ = "participants"
    __table_args__ = (UniqueConstraint("study_id", "external_id"),)
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("studies.id"), index=True)
    external_id: Mapped[str] = mapped_column(String(128))
    prolific_study_id: Mapped[str | None] = mapped_column(String(128), nullable=True)
    session_id: Mapped[str | None] = mapped_column(String(128), nullable=True)
    population: Mapped[str] = mapped_column(String(32))
    background: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    consent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    assignment_seed: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))          # active, completed, failed_checks
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    completed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    resumes: Mapped[int] = mapped_column(Integer, server_default="0")   # opened again from a new session
    withdrawn_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class Assignment(Base):
    __tablename__ = "assignments"
    __table_args__ = (UniqueConstraint("participant_id", "item_id"),)
    participant_id: Mapped[str] = mapped_column(ForeignKey("participants.id"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    item_id: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(16))             # problem, attention
    population: Mapped[str] = mapped_column(String(32), index=True)
    instruction: Mapped[str | None] = mapped_column(Text, nullable=True)
    expected: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    shown_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class Response(Base):
    __tablename__ = "responses"
    __table_args__ = (UniqueConstraint("participant_id", "item_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    participant_id: Mapped[str] = mapped_column(ForeignKey("participants.id"), index=True)
    item_id: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(16))
    interestingness: Mapped[int] = mapped_column(Integer)
    difficulty: Mapped[int] = mapped_column(Integer)
    rationales: Mapped[list] = mapped_column(JSON)
    comment: Mapped[str | None] = mapped_column(Text, nullable=True)
    shown_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    answered_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    response_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)


class AttentionOutcome(Base):
    __tablename__ = "attention_outcomes"
    participant_id: Mapped[str] = mapped_column(ForeignKey("participants.id"), primary_key=True)
    item_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    passed: Mapped[bool] = mapped_column(Boolean)


class LLMRating(Base):
    __tablename__ = "llm_ratings"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    study_id: Mapped[int | None] = mapped_column(ForeignKey("studies.id"), nullable=True, index=True)
    problem_id: Mapped[str] = mapped_column(String(64), index=True)
    rater: Mapped[str] = mapped_column(String(64))
    model: Mapped[str] = mapped_column(String(200))
    prompt_version: Mapped[str] = mapped_column(String(32))
    interestingness: Mapped[list] = mapped_column(JSON)       # probabilities over 1..7
    difficulty: Mapped[list | None] = mapped_column(JSON, nullable=True)
    rationales: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    expected_interestingness: Mapped[float] = mapped_column(Float)
    raw: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class StudyAudit(Base):
    """What was done to a study or one of its participants, and when (close, reopen, withdraw)."""
    __tablename__ = "study_audit"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("studies.id"), index=True)
    participant_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    action: Mapped[str] = mapped_column(String(32))
    detail: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class AdminBackoff(Base):
    """Wrong admin-password tries per key and when the next may be compared (epoch seconds), for every process."""
    __tablename__ = "admin_backoff"
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    failures: Mapped[int] = mapped_column(Integer)
    until: Mapped[float] = mapped_column(Float)
