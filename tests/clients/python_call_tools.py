"""Starts any stdio MCP server with the official Python MCP SDK client, lists its tools and calls
the given ones; prints one JSON object: {"tools": [names], "calls": [{"isError", "structured",
"text"}, ...]}. The test asserts on it.

usage: python_call_tools.py CALLS_JSON SERVER_COMMAND [ARGS...]
CALLS_JSON is a list of {"tool": NAME, "arguments": {...}}.
"""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters


async def main() -> int:
    calls = json.loads(sys.argv[1])
    params = StdioServerParameters(command=sys.argv[2], args=sys.argv[3:])
    async with Client(params, read_timeout_seconds=60) as client:
        listed = await client.list_tools()
        answers = []
        for call in calls:
            result = await client.call_tool(call["tool"], call.get("arguments"))
            text = "".join(b.text for b in result.content if getattr(b, "type", "") == "text")
            answers.append({"isError": bool(result.is_error), "structured": result.structured_content, "text": text})
    print(json.dumps({"tools": [tool.name for tool in listed.tools], "calls": answers}))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
