"""Drives `delphi-mcp serve --http` with the official Python MCP SDK client (Streamable HTTP).

usage: http_python_client.py ENDPOINT TOKEN LIBRARY MANIFEST_JSON CASES_JSON MODE

MODE is `legacy` (initialize handshake, a session) or `2026-07-28` (stateless era). The same call
cases as the stdio client (CASES_JSON) run with `Authorization: Bearer TOKEN`; a client without
the token must be refused. The script prints one line per check and exits 1 when any fails; the
SDK validates every structuredContent against the tool's outputSchema.
"""

import asyncio
import hashlib
import json
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcp_checks import Checks, check_tools_and_calls


async def main() -> int:
    endpoint, token, library, manifest_path, cases_path, mode = sys.argv[1:7]
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
            check("protocol version",
                  client.protocol_version == ("2026-07-28" if mode == "2026-07-28" else "2025-11-25"),
                  client.protocol_version)
            if mode == "legacy":
                await client.send_ping()
                check("ping", True)

            called, expected_names = await check_tools_and_calls(client, manifest, cases, check)

            version = await client.call_tool("mcp_get_version", {})
            info = (version.structured_content or {}).get("result", {})
            check("mcp_get_version server", info.get("server") == "delphi-mcp", f"{info}")
            check("mcp_get_version library", info.get("library") == library, f"{info}")
            check("mcp_get_version manifest hash",
                  info.get("manifestSha256") == hashlib.sha256(manifest_bytes).hexdigest(), f"{info}")
            called.add("mcp_get_version")
            check("every tool called", called >= expected_names, f"not called: {sorted(expected_names - called)}")

    return check.exit_code()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
