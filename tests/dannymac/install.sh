#!/usr/bin/env bash
# DannyMac180/ACE's schema and merge code need pydantic alone
# (`pydantic>=2.0.0` in its pyproject.toml): pinned, in a venv at $1, for
# tests/dannymac/judge.py (tests/cli/dannymac.rs).
set -euo pipefail
dest=$1
if [ ! -x "$dest/bin/python" ]; then
  python3 -m venv "$dest"
fi
"$dest/bin/pip" install --quiet --disable-pip-version-check pydantic==2.12.5
