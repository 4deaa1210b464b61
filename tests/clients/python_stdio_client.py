"""Drives `delphi-mcp serve` over stdio with the official Python MCP SDK client.

usage: python_stdio_client.py SERVER_EXE LIBRARY MANIFEST_JSON CASES_JSON MODE COVERAGE [SERVE_ARGS...]

MODE is `legacy` (initialize handshake) or `2026-07-28` (stateless era, server/discover).
CASES_JSON lists the tool calls and what each must give; with COVERAGE `all` every listed tool
must be called. SERVE_ARGS go to `serve` after the library (e.g. `--isolate`). The script prints one line per check and exits 1 when any fails. The manifest
hash reported by `mcp_get_version` is checked against the library's own `mcp_manifest` text,
read here through ctypes. The SDK also validates every structuredContent against the
tool's outputSchema, so a non-conforming result fails the call.
"""

import asyncio
import ctypes
import json
import sys

from mcp import Client, StdioServerParameters

from mcp_checks import Checks, check_session


def embedded_manifest(library, manifest_path):
    """The manifest text the library embeds (`mcp_manifest`), read without the server. A Windows
    library served under Wine (scripts/test-windows.sh) cannot be loaded here: the manifest file
    the generator wrote stands in for it."""
    if library.lower().endswith(".dll") and sys.platform != "win32":
        with open(manifest_path, "rb") as f:
            return f.read()
    lib = ctypes.CDLL(library)
    lib.mcp_manifest.restype = ctypes.c_void_p
    lib.mcp_manifest.argtypes = [ctypes.POINTER(ctypes.c_ssize_t)]
    length = ctypes.c_ssize_t(0)
    pointer = lib.mcp_manifest(ctypes.byref(length))
    return ctypes.string_at(pointer, length.value)


async def main() -> int:
    server_exe, library, manifest_path, cases_path, mode, coverage = sys.argv[1:7]
    serve_args = sys.argv[7:]
    with open(manifest_path, "rb") as f:
        manifest = json.loads(f.read())
    manifest_bytes = embedded_manifest(library, manifest_path)
    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)
    params = StdioServerParameters(command=server_exe, args=["serve", library, "--log-level", "warn", *serve_args])
    check = Checks()

    async with Client(params, mode=mode, read_timeout_seconds=60) as client:
        await check_session(client, mode, manifest, manifest_bytes, library, cases, check,
                            every_tool=coverage == "all")

    return check.exit_code()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
