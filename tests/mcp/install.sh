#!/usr/bin/env bash
# The official MCP Python SDK (`mcp` on PyPI), pinned, in a venv at $1:
# tests/mcp/client.py drives ace-mcp with it (tests/cli/mcp.rs).
set -euo pipefail
dest=$1
if [ ! -x "$dest/bin/python" ]; then
  python3 -m venv "$dest"
fi
"$dest/bin/pip" install --quiet --disable-pip-version-check mcp==2.3.0
