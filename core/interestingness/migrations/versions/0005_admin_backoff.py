"""The admin gate's back-off, shared by every app process on the database.

``admin_backoff`` holds, per key (a browser session or a client address), the wrong password tries
in a row and the time (seconds since the epoch) before which the next try is refused uncompared.
Kept in the database rather than in a process, so that a replica behind nginx cannot be used to
try again at once where another replica made the client wait.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "admin_backoff",
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("until", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("admin_backoff")
