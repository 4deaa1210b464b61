"""Drives `delphi-mcp serve` over stdio with the official Python MCP SDK client.

usage: python_stdio_client.py SERVER_EXE LIBRARY MANIFEST_JSON CASES_JSON MODE COVERAGE

MODE is `legacy` (initialize handshake) or `2026-07-28` (stateless era, server/discover).
CASES_JSON lists the tool calls and what each must give; with COVERAGE `all` every listed tool
must be called. The script prints one line per check and exits 1 when any fails. The manifest
hash reported by `mcp_get_version` is checked against the library's own `mcp_manifest` text,
read here through ctypes. The SDK also validates every structuredContent against the
tool's outputSchema, so a non-conforming result fails the call.
"""

import asyncio
import ctypes
import hashlib
import json
import sys

from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError


def embedded_manifest(library):
    """The manifest text the library embeds (`mcp_manifest`), read without the server."""
    lib = ctypes.CDLL(library)
    lib.mcp_manifest.restype = ctypes.c_void_p
    lib.mcp_manifest.argtypes = [ctypes.POINTER(ctypes.c_ssize_t)]
    length = ctypes.c_ssize_t(0)
    pointer = lib.mcp_manifest(ctypes.byref(length))
    return ctypes.string_at(pointer, length.value)


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def main() -> int:
    server_exe, library, manifest_path, cases_path, mode, coverage = sys.argv[1:7]
    with open(manifest_path, "rb") as f:
        manifest = json.loads(f.read())
    manifest_bytes = embedded_manifest(library)
    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)
    params = StdioServerParameters(command=server_exe, args=["serve", library, "--log-level", "warn"])
    failures = []

    def check(label, condition, detail=""):
        status = "ok  " if condition else "FAIL"
        print(f"{status} {label} {detail if not condition else ''}".rstrip())
        if not condition:
            failures.append(label)

    async with Client(params, mode=mode, read_timeout_seconds=60) as client:
        check("protocol version", client.protocol_version == ("2026-07-28" if mode == "2026-07-28" else "2025-11-25"),
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
            check(f"{entry['name']}: title", tool.title == entry.get("title"))
            check(f"{entry['name']}: inputSchema", tool.input_schema == entry["inputSchema"])
            check(f"{entry['name']}: outputSchema", tool.output_schema == entry["outputSchema"])
            if "annotations" in entry:
                got = tool.annotations.model_dump(by_alias=True, exclude_none=True) if tool.annotations else {}
                check(f"{entry['name']}: annotations", got == entry["annotations"], f"{got}")

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
                check(label + " (text block is the same JSON)", json.loads(text) == expected if not result.is_error else False, text)
            else:
                ok = bool(result.is_error) and all(part in text for part in case["error_contains"])
                check(label, ok, f"got isError={result.is_error} text={text!r}, expected parts {case['error_contains']}")

        version = await client.call_tool("mcp_get_version", {})
        info = (version.structured_content or {}).get("result", {})
        check("mcp_get_version server", info.get("server") == "delphi-mcp", f"{info}")
        check("mcp_get_version abi", info.get("abiVersion") == manifest["abiVersion"], f"{info}")
        check("mcp_get_version library", info.get("library") == library, f"{info}")
        check("mcp_get_version manifest hash", info.get("manifestSha256") == hashlib.sha256(manifest_bytes).hexdigest(), f"{info}")
        called.add("mcp_get_version")
        if coverage == "all":
            check("every tool called", called >= expected_names, f"not called: {sorted(expected_names - called)}")

    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
