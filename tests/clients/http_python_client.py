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
from mcp.shared.exceptions import MCPError


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def main() -> int:
    endpoint, token, library, manifest_path, cases_path, mode = sys.argv[1:7]
    with open(manifest_path, "rb") as f:
        manifest_bytes = f.read()
    manifest = json.loads(manifest_bytes)
    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)
    failures = []

    def check(label, condition, detail=""):
        status = "ok  " if condition else "FAIL"
        print(f"{status} {label} {detail if not condition else ''}".rstrip())
        if not condition:
            failures.append(label)

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

            listed = await client.list_tools()
            by_name = {tool.name: tool for tool in listed.tools}
            expected_names = {tool["name"] for tool in manifest["tools"]} | {"mcp_get_version"}
            check("tool names", set(by_name) == expected_names, f"{sorted(by_name)} != {sorted(expected_names)}")
            for entry in manifest["tools"]:
                tool = by_name.get(entry["name"])
                if tool is None:
                    continue
                check(f"{entry['name']}: description", tool.description == entry["description"])
                check(f"{entry['name']}: inputSchema", tool.input_schema == entry["inputSchema"])
                check(f"{entry['name']}: outputSchema", tool.output_schema == entry["outputSchema"])

            called = set()
            for case in cases:
                label = f"{case['tool']} {json.dumps(case.get('arguments'), ensure_ascii=False)}"
                called.add(case["tool"])
                try:
                    result = await client.call_tool(case["tool"], case.get("arguments"))
                except MCPError as error:
                    check(label, case.get("protocol_error") == error.code, f"protocol error {error.code} {error}")
                    continue
                if "protocol_error" in case:
                    check(label, False, f"expected protocol error {case['protocol_error']}, got {result}")
                    continue
                text = text_of(result)
                if "result" in case or "success" in case:
                    expected = {"result": case["result"]} if "result" in case else {"success": True}
                    check(label, not result.is_error and result.structured_content == expected,
                          f"got isError={result.is_error} structured={result.structured_content} text={text}")
                    check(label + " (text block is the same JSON)",
                          json.loads(text) == expected if not result.is_error else False, text)
                else:
                    ok = bool(result.is_error) and all(part in text for part in case["error_contains"])
                    check(label, ok, f"got isError={result.is_error} text={text!r}, expected parts {case['error_contains']}")

            version = await client.call_tool("mcp_get_version", {})
            info = (version.structured_content or {}).get("result", {})
            check("mcp_get_version server", info.get("server") == "delphi-mcp", f"{info}")
            check("mcp_get_version library", info.get("library") == library, f"{info}")
            check("mcp_get_version manifest hash",
                  info.get("manifestSha256") == hashlib.sha256(manifest_bytes).hexdigest(), f"{info}")
            called.add("mcp_get_version")
            check("every tool called", called >= expected_names, f"not called: {sorted(expected_names - called)}")

    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
