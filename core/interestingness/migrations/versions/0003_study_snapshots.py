"""A study owns a snapshot of its problems' statements; studies carry their assignment timeout.

``study_problems`` gains the problem's statement, topic, difficulty, source and answer as they were
when the study took it in (backfilled from ``problems`` for existing studies), so participants are
shown, and analyses rate, exactly what the study stored. ``studies.assignment_timeout_s`` (default
7200 s) is how long an active participant may be idle before their unanswered items are released.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

SNAPSHOT = ("statement", "topic", "difficulty", "source", "answer")


def upgrade() -> None:
    with op.batch_alter_table("study_problems") as batch:
        batch.add_column(sa.Column("statement", sa.Text(), nullable=True))
        batch.add_column(sa.Column("topic", sa.String(32), nullable=True))
        batch.add_column(sa.Column("difficulty", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("source", sa.String(16), nullable=True))
        batch.add_column(sa.Column("answer", sa.Text(), nullable=True))
    for column in SNAPSHOT:
        op.execute(f"UPDATE study_problems SET {column} = (SELECT problems.{column} FROM problems "
                   "WHERE problems.id = study_problems.problem_id)")
    with op.batch_alter_table("study_problems") as batch:
        for column, kind in (("statement", sa.Text()), ("topic", sa.String(32)), ("difficulty", sa.Integer()),
                             ("source", sa.String(16))):
            batch.alter_column(column, existing_type=kind, nullable=False)
    with op.batch_alter_table("studies") as batch:
        batch.add_column(sa.Column("assignment_timeout_s", sa.Integer(), nullable=False, server_default="7200"))


def downgrade() -> None:
    with op.batch_alter_table("studies") as batch:
        batch.drop_column("assignment_timeout_s")
    with op.batch_alter_table("study_problems") as batch:
        for column in SNAPSHOT:
            batch.drop_column(column)
