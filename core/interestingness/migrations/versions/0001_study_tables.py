"""Study tables: problems, studies, participants, assignments, responses, attention outcomes.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table("problems",
                    sa.Column("id", sa.String(64), primary_key=True),
                    sa.Column("statement", sa.Text(), nullable=False),
                    sa.Column("topic", sa.String(32), nullable=False),
                    sa.Column("difficulty", sa.Integer(), nullable=False),
                    sa.Column("source", sa.String(16), nullable=False),
                    sa.Column("answer", sa.Text(), nullable=True))
    op.create_table("studies",
                    sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
                    sa.Column("name", sa.String(200), nullable=False, unique=True),
                    sa.Column("items_per_participant", sa.Integer(), nullable=False),
                    sa.Column("attention_checks", sa.Integer(), nullable=False),
                    sa.Column("populations", sa.JSON(), nullable=False),
                    sa.Column("completion_code", sa.String(64), nullable=False),
                    sa.Column("failed_code", sa.String(64), nullable=False),
                    sa.Column("completion_url", sa.Text(), nullable=True),
                    sa.Column("created_at", TZ, nullable=False))
    op.create_table("study_problems",
                    sa.Column("study_id", sa.Integer(), sa.ForeignKey("studies.id"), primary_key=True),
                    sa.Column("problem_id", sa.String(64), sa.ForeignKey("problems.id"), primary_key=True))
    op.create_table("participants",
                    sa.Column("id", sa.String(32), primary_key=True),
                    sa.Column("study_id", sa.Integer(), sa.ForeignKey("studies.id"), nullable=False, index=True),
                    sa.Column("external_id", sa.String(128), nullable=False),
                    sa.Column("prolific_study_id", sa.String(128), nullable=True),
                    sa.Column("session_id", sa.String(128), nullable=True),
                    sa.Column("population", sa.String(32), nullable=False),
                    sa.Column("background", sa.JSON(), nullable=True),
                    sa.Column("consent_at", TZ, nullable=True),
                    sa.Column("assignment_seed", sa.Integer(), nullable=False),
                    sa.Column("status", sa.String(16), nullable=False),
                    sa.Column("created_at", TZ, nullable=False),
                    sa.Column("completed_at", TZ, nullable=True),
                    sa.UniqueConstraint("study_id", "external_id"))
    op.create_table("assignments",
                    sa.Column("participant_id", sa.String(32), sa.ForeignKey("participants.id"), primary_key=True),
                    sa.Column("position", sa.Integer(), primary_key=True),
                    sa.Column("item_id", sa.String(64), nullable=False),
                    sa.Column("kind", sa.String(16), nullable=False),
                    sa.Column("population", sa.String(32), nullable=False, index=True),
                    sa.Column("instruction", sa.Text(), nullable=True),
                    sa.Column("expected", sa.JSON(), nullable=True),
                    sa.Column("shown_at", TZ, nullable=True),
                    sa.UniqueConstraint("participant_id", "item_id"))
    op.create_table("responses",
                    sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
                    sa.Column("participant_id", sa.String(32), sa.ForeignKey("participants.id"), nullable=False,
                              index=True),
                    sa.Column("item_id", sa.String(64), nullable=False),
                    sa.Column("kind", sa.String(16), nullable=False),
                    sa.Column("interestingness", sa.Integer(), nullable=False),
                    sa.Column("difficulty", sa.Integer(), nullable=False),
                    sa.Column("rationales", sa.JSON(), nullable=False),
                    sa.Column("comment", sa.Text(), nullable=True),
                    sa.Column("shown_at", TZ, nullable=True),
                    sa.Column("answered_at", TZ, nullable=False),
                    sa.Column("response_ms", sa.Integer(), nullable=True),
                    sa.UniqueConstraint("participant_id", "item_id"))
    op.create_table("attention_outcomes",
                    sa.Column("participant_id", sa.String(32), sa.ForeignKey("participants.id"), primary_key=True),
                    sa.Column("item_id", sa.String(64), primary_key=True),
                    sa.Column("passed", sa.Boolean(), nullable=False))


def downgrade() -> None:
    for table in ("attention_outcomes", "responses", "assignments", "participants", "study_problems", "studies",
                  "problems"):
        op.drop_table(table)
