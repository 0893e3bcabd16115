#!/usr/bin/env bash
# SQLAlchemy, Alembic and psycopg2 from PyPI, pinned, in a venv at $1, for
# the ace-playbook schema test (tests/cli/stores.rs): ace-playbook's
# migration and models (transcribed in this folder) run on them as the
# project runs them. ace-playbook itself is on GitHub only, which CI cannot
# reach.
set -euo pipefail
dest=$1
if [ ! -x "$dest/bin/python" ]; then
  python3 -m venv "$dest"
fi
"$dest/bin/pip" install --quiet --disable-pip-version-check \
  sqlalchemy==2.1.9 alembic==1.20.1 psycopg2-binary==2.9.13
