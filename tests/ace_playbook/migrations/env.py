"""Alembic's online migration, as ace-playbook's alembic/env.py runs it."""

import os
import sys

from alembic import context
from sqlalchemy import create_engine, pool

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from models import Base  # noqa: E402

engine = create_engine(os.environ["ACE_PLAYBOOK_DB"], poolclass=pool.NullPool)
with engine.connect() as connection:
    context.configure(connection=connection, target_metadata=Base.metadata)
    with context.begin_transaction():
        context.run_migrations()
