"""Drives an MCP server over stdio with the official Python SDK (`mcp` on
PyPI): lists its tools, then makes the calls a script names, in order,
and prints what came back as JSON.

    python client.py CALLS.json -- COMMAND [ARG...]

CALLS.json is a list of `{"tool": NAME, "args": {...}}`. The output is
`{"tools": [NAME...], "calls": [{"tool", "is_error", "text"}...]}`, the
text being the result's text content joined. The same script drives
ace-mcp and ace_claude_mcp's own server, so that their answers compare.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(calls_file: str, command: list[str]) -> None:
    with open(calls_file, encoding="utf-8") as f:
        calls = json.load(f)
    server = StdioServerParameters(command=command[0], args=command[1:])
    out = {"tools": [], "calls": []}
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            out["tools"] = sorted(t.name for t in listed.tools)
            for call in calls:
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
