"""A fresh study database per test: a SQLite file, and a throwaway database on the real PostgreSQL
server at 127.0.0.1:5432 (override the server with STUDY_TEST_POSTGRES_URL)."""

import os
import secrets

import pytest
import sqlalchemy as sa

from core.interestingness import Problem, StudyStore

POSTGRES = os.environ.get("STUDY_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def postgres_database():
    """(url of a new empty database, function that drops it)."""
    name = f"paperlab_{secrets.token_hex(6)}"
    admin = sa.create_engine(POSTGRES, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.exec_driver_sql(f'CREATE DATABASE "{name}"')

    def drop():
        with admin.connect() as c:
            c.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()
    return sa.engine.make_url(POSTGRES).set(database=name).render_as_string(hide_password=False), drop


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'study.sqlite'}"
        return
    url, drop = postgres_database()
    yield url
    drop()


@pytest.fixture
def store(db_url):
    s = StudyStore(db_url)
    yield s
    s.close()


def problems(n=30):
    return [Problem(f"q{i:03d}", f"Problem {i}: compute $ {i} + 1 $.", "algebra", 1 + i % 5) for i in range(n)]


@pytest.fixture
def study(store):
    bank = problems()
    return store.create_study("pilot", [p.id for p in bank], items_per_participant=6, problems=bank)


def answer_all(store, pid, interestingness=4, difficulty=3, fail_checks=False):
    """Answer every item; attention checks correctly unless ``fail_checks``."""
    answered = []
    while (item := store.next_item(pid)) is not None:
        if item.kind == "attention" and not fail_checks:
            values = item.expected
        else:
            values = {"interestingness": interestingness, "difficulty": difficulty}
            if item.kind == "attention" and values == item.expected:
                values = {"interestingness": values["interestingness"] % 7 + 1, "difficulty": difficulty}
        store.record_response(pid, item.id, values["interestingness"], values["difficulty"], ["elegant solution"])
        answered.append(item.id)
    return answered
