"""Resumes counted, studies closed and reopened, participants withdrawn, and an audit table.

``participants.resumes`` (default 0) is incremented whenever a link with an existing recruiter id
(PROLIFIC_PID) is opened from a session that does not already hold the participant's id: Prolific
participants come back that way, and so would someone typing another participant's id, so the admin
view flags it with the count. ``studies.closed_at`` (null: open) stops new enrolments;
``participants.withdrawn_at`` marks a withdrawn participant (status ``withdrawn``); ``study_audit``
records what happened and when for closing, reopening and withdrawals; ``studies.max_failed_checks``
(default 0) is the study's own attention-check rule: how many wrong checks the exclusion tolerates.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("participants") as batch:
        batch.add_column(sa.Column("resumes", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("withdrawn_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("studies") as batch:
        batch.add_column(sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("max_failed_checks", sa.Integer(), nullable=False, server_default="0"))
    op.create_table(
        "study_audit",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("study_id", sa.Integer(), sa.ForeignKey("studies.id"), nullable=False, index=True),
        sa.Column("participant_id", sa.String(32), nullable=True),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("study_audit")
    with op.batch_alter_table("studies") as batch:
        batch.drop_column("max_failed_checks")
        batch.drop_column("closed_at")
    with op.batch_alter_table("participants") as batch:
        batch.drop_column("withdrawn_at")
        batch.drop_column("resumes")
