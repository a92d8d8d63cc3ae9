"""LLM ratings, stored next to the human ones (rater, model, prompt version).

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table("llm_ratings",
                    sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
                    sa.Column("study_id", sa.Integer(), sa.ForeignKey("studies.id"), nullable=True, index=True),
                    sa.Column("problem_id", sa.String(64), nullable=False, index=True),
                    sa.Column("rater", sa.String(64), nullable=False),
                    sa.Column("model", sa.String(200), nullable=False),
                    sa.Column("prompt_version", sa.String(32), nullable=False),
                    sa.Column("interestingness", sa.JSON(), nullable=False),
                    sa.Column("difficulty", sa.JSON(), nullable=True),
                    sa.Column("rationales", sa.JSON(), nullable=True),
                    sa.Column("expected_interestingness", sa.Float(), nullable=False),
                    sa.Column("raw", sa.Text(), nullable=True),
                    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False))


def downgrade() -> None:
    op.drop_table("llm_ratings")
