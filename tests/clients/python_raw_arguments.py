"""Calls tools with the official Python MCP SDK client over stdio, with `arguments` sent as given
text: a Python dict cannot hold a key twice, so the client's transport puts the text in place of
a placeholder object as it writes the request. Prints one JSON object:
{"calls": [{"isError", "text"}, ...]}; the test asserts on it.

usage: python_raw_arguments.py CALLS_JSON SERVER_COMMAND [ARGS...]
CALLS_JSON is a list of {"tool": NAME, "arguments_text": JSON_TEXT}.
"""

import asyncio
import json
import sys
from contextlib import asynccontextmanager

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

PLACEHOLDER = "__raw_arguments__"


class _Written:
    """A message whose JSON is given text (what the stdio transport writes)."""

    def __init__(self, text):
        self.text = text

    def model_dump_json(self, **_options):
        return self.text


class _RawMessage:
    def __init__(self, original, text):
        self.message = _Written(text)
        self.metadata = getattr(original, "metadata", None)


class RawArgumentsStream:
    """Wraps the transport's write stream: a request whose arguments are the placeholder object
    {PLACEHOLDER: i} goes out with the i-th raw text in its place."""

    def __init__(self, inner, texts):
        self.inner = inner
        self.texts = texts

    async def send(self, item, /):
        text = item.message.model_dump_json(by_alias=True, exclude_unset=True)
        for i, raw in enumerate(self.texts):
            placeholder = json.dumps({PLACEHOLDER: i}, separators=(",", ":"))
            if placeholder in text:
                item = _RawMessage(item, text.replace(placeholder, raw))
        await self.inner.send(item)

    async def aclose(self):
        await self.inner.aclose()

    async def __aenter__(self):
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *exc):
        return await self.inner.__aexit__(*exc)


@asynccontextmanager
async def raw_transport(params, texts):
    async with stdio_client(params) as (read, write):
        yield read, RawArgumentsStream(write, texts)


async def main() -> int:
    calls = json.loads(sys.argv[1])
    params = StdioServerParameters(command=sys.argv[2], args=sys.argv[3:])
    texts = [call["arguments_text"] for call in calls]
    answers = []
    async with Client(raw_transport(params, texts), read_timeout_seconds=60) as client:
        for i, call in enumerate(calls):
            result = await client.call_tool(call["tool"], {PLACEHOLDER: i})
            text = "".join(b.text for b in result.content if getattr(b, "type", "") == "text")
            answers.append({"isError": bool(result.is_error), "text": text})
    print(json.dumps({"calls": answers}))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
