"""Alembic environment: the store passes its open connection in ``config.attributes["connection"]``."""

from alembic import context

from core.interestingness.models import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata,
                  render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()
