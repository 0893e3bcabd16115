#!/usr/bin/env bash
# The GitHub Action (action.yml) run as the runner runs it, on a repository
# with errors in it, installing ace-tools from a folder of wheels the way
# it installs them from PyPI (tests/action/run_action.py says what is
# checked). Usage: tests/action/run.sh WHEEL_DIR VENV
# (VENV: a virtualenv with check-jsonschema, which brings ruamel.yaml).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
wheels="$1"
venv="$2"
"$venv/bin/python" "$here/tests/action/run_action.py" "$here" "$wheels" "$venv/bin/check-jsonschema"
