"""Drives `delphi-mcp serve --http` with the official Python MCP SDK client (Streamable HTTP).

usage: http_python_client.py ENDPOINT TOKEN LIBRARY MANIFEST_JSON CASES_JSON MODE [some-tools]

MODE is `legacy` (initialize handshake, a session) or `2026-07-28` (stateless era). With
`some-tools` the cases need not call every listed tool (a subset of the cases). The same call
cases as the stdio client (CASES_JSON) run with `Authorization: Bearer TOKEN`; a client without
the token must be refused. The script prints one line per check and exits 1 when any fails; the
SDK validates every structuredContent against the tool's outputSchema.
"""

import asyncio
import json
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcp_checks import Checks, check_session


async def main() -> int:
    endpoint, token, library, manifest_path, cases_path, mode = sys.argv[1:7]
    every_tool = sys.argv[7:8] != ["some-tools"]
    with open(manifest_path, "rb") as f:
        manifest_bytes = f.read()
    manifest = json.loads(manifest_bytes)
    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)
    check = Checks()

    # Without the token the SDK must not get through.
    try:
        async with httpx2.AsyncClient() as anonymous:
            async with Client(streamable_http_client(endpoint, http_client=anonymous), mode=mode,
                              read_timeout_seconds=60) as client:
                await client.list_tools()
        check("refused without token", False, "the server answered a client without the token")
    except BaseException as error:  # the SDK raises (possibly grouped) HTTP 401 errors
        # The SDK reports the 401 as a generic "Server returned an error response" (-32603).
        text = repr(error)
        check("refused without token",
              any(mark in text for mark in ("401", "Unauthorized", "error response")), text[:300])

    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        async with Client(streamable_http_client(endpoint, http_client=http), mode=mode,
                          read_timeout_seconds=60) as client:
            await check_session(client, mode, manifest, manifest_bytes, library, cases, check,
                                every_tool=every_tool)

    return check.exit_code()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
