"""Drives an MCP server over stdio with the official Python SDK (`mcp` on
PyPI): lists its tools, then makes the calls a script names, in order,
and prints what came back as JSON.

    python client.py CALLS.json -- COMMAND [ARG...]

CALLS.json is a list of `{"tool": NAME, "args": {...}}`,
`{"read_resource": URI}` and `{"run": [ARGV...]}` (a command run between
two calls, such as ace-validate on the file just written: an error when it
exits non-zero). The output is `{"tools": [NAME...], "resources":
[{"uri", "name", "mime"}...], "calls": [{"tool", "is_error", "text"}...]}`,
the text being the result's text content joined (a resource read that
fails is an error with the message). The same script drives
ace-mcp and ace_claude_mcp's own server, so that their answers compare.
"""

import asyncio
import json
import subprocess
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError


async def main(calls_file: str, command: list[str]) -> None:
    with open(calls_file, encoding="utf-8") as f:
        calls = json.load(f)
    server = StdioServerParameters(command=command[0], args=command[1:])
    out = {"tools": [], "resources": [], "calls": []}
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            listed = await session.list_tools()
            out["tools"] = sorted(t.name for t in listed.tools)
            if init.capabilities.resources is not None:
                resources = await session.list_resources()
                out["resources"] = [
                    {"uri": str(r.uri), "name": r.name, "mime": r.mime_type}
                    for r in resources.resources
                ]
            for call in calls:
                if "run" in call:
                    done = subprocess.run(call["run"], capture_output=True, text=True)
                    out["calls"].append(
                        {"tool": "run", "is_error": done.returncode != 0, "text": done.stdout + done.stderr}
                    )
                    continue
                if "read_resource" in call:
                    try:
                        read = await session.read_resource(call["read_resource"])
                        text = "".join(getattr(c, "text", "") for c in read.contents)
                        out["calls"].append({"tool": "read_resource", "is_error": False, "text": text})
                    except MCPError as e:
                        out["calls"].append(
                            {"tool": "read_resource", "is_error": True, "text": str(e)}
                        )
                    continue
                result = await session.call_tool(call["tool"], call.get("args", {}))
                text = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
                out["calls"].append(
                    {"tool": call["tool"], "is_error": bool(result.is_error), "text": text}
                )
    json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    split = sys.argv.index("--")
    asyncio.run(main(sys.argv[1], sys.argv[split + 1 :]))
