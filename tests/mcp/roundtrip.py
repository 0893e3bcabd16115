"""Times MCP round-trips with the official Python SDK over stdio, for
`cargo xtask bench mcp`: after one call of each to warm up, N calls of
`read_playbook()` and N of `update_counters(ENTRY, 1, 0)`, alternating,
each timed from the request sent to the answer read.

    python roundtrip.py N ENTRY -- COMMAND [ARG...]

Prints `{"read_playbook": [ms...], "update_counters": [ms...]}`.
"""

import asyncio
import json
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(n: int, entry: str, command: list[str]) -> None:
    server = StdioServerParameters(command=command[0], args=command[1:])
    calls = {
        "read_playbook": {},
        "update_counters": {"entry_id": entry, "helpful_delta": 1, "harmful_delta": 0},
    }
    out = {name: [] for name in calls}
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for name, args in calls.items():
                await session.call_tool(name, args)
            for _ in range(n):
                for name, args in calls.items():
                    start = time.perf_counter()
                    result = await session.call_tool(name, args)
                    took = (time.perf_counter() - start) * 1000
                    if result.is_error:
                        raise SystemExit(f"{name}: {result.content}")
                    out[name].append(took)
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    split = sys.argv.index("--")
    asyncio.run(main(int(sys.argv[1]), sys.argv[2], sys.argv[split + 1 :]))
