#!/usr/bin/env bash
# The official MCP Python SDK (`mcp` on PyPI) and FastMCP, pinned, in a
# venv at $1: tests/mcp/client.py drives ace-mcp with the SDK
# (tests/cli/mcp.rs), and FastMCP serves ace_claude_mcp's own server
# (tests/ace_claude_mcp) for the comparison (tests/cli/mcp_peer.rs).
set -euo pipefail
dest=$1
if [ ! -x "$dest/bin/python" ]; then
  python3 -m venv "$dest"
fi
"$dest/bin/pip" install --quiet --disable-pip-version-check mcp==2.3.0 fastmcp==4.2.3
