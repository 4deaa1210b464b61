"""Checks shared by the Python SDK clients over stdio and over HTTP: one line per check, and
the list of failures for the exit code."""

import hashlib
import json

from mcp.shared.exceptions import MCPError


def _number(value):
    """A float as serde_json prints it (ryu): shortest round-trip digits, `1.0`, `0.001`,
    `1e+16`, `3.4028234663852886e+38`, `1.5e-7`."""
    if value == 0:
        return "-0.0" if str(value).startswith("-") else "0.0"
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    k = int(exponent or 0) - len(fraction)
    k += len(digits) - len(digits.rstrip("0"))
    digits = digits.rstrip("0")
    point = len(digits) + k
    if 0 <= k and point <= 16:
        text = digits + "0" * k + ".0"
    elif 0 < point <= 16:
        text = digits[:point] + "." + digits[point:]
    elif -5 < point <= 0:
        text = "0." + "0" * -point + digits
    elif len(digits) == 1:
        text = f"{digits}e{point - 1:+d}"
    else:
        text = f"{digits[0]}.{digits[1:]}e{point - 1:+d}"
    return ("-" if value < 0 else "") + text


def _compact(value):
    """Compact JSON as serde_json writes it (keys in their order, no spaces, UTF-8)."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(_compact(v) for v in value) + "]"
    return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + _compact(v) for k, v in value.items()) + "}"


def canonical_sha256(manifest_bytes):
    """The manifest's hash as docs/manifest.md defines it: SHA-256 of the compact JSON of the
    parsed manifest, whatever the layout of the text."""
    return hashlib.sha256(_compact(json.loads(manifest_bytes)).encode("utf-8")).hexdigest()


class Checks:
    """Prints `ok` or `FAIL` for each check and remembers the failures."""

    def __init__(self):
        self.failures = []

    def __call__(self, label, condition, detail=""):
        status = "ok  " if condition else "FAIL"
        print(f"{status} {label} {detail if not condition else ''}".rstrip())
        if not condition:
            self.failures.append(label)

    def exit_code(self):
        print(f"{len(self.failures)} failure(s)")
        return 1 if self.failures else 0


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def check_tools_and_calls(client, manifest, cases, check):
    """Lists the tools against the manifest (names, descriptions, titles, schemas, annotations),
    runs every call case and checks its result or error. Returns the names of the tools called
    and the names the server should list."""
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
        if "result" in case or "success" in case or "structured" in case:
            if "structured" in case:
                # Tools with var/out parameters: the whole structuredContent.
                expected = case["structured"]
            else:
                expected = {"result": case["result"]} if "result" in case else {"success": True}
            check(label, not result.is_error and result.structured_content == expected,
                  f"got isError={result.is_error} structured={result.structured_content} text={text}")
            check(label + " (text block is the same JSON)",
                  json.loads(text) == expected if not result.is_error else False, text)
        elif "error" in case:
            # The exact message.
            ok = bool(result.is_error) and text == case["error"]
            check(label, ok, f"got isError={result.is_error} text={text!r}, expected {case['error']!r}")
        else:
            ok = bool(result.is_error) and all(part in text for part in case["error_contains"])
            check(label, ok, f"got isError={result.is_error} text={text!r}, expected parts {case['error_contains']}")
    return called, expected_names


async def check_session(client, mode, manifest, manifest_bytes, library, cases, check, every_tool=True):
    """One whole client session: the negotiated protocol version (and a ping in the handshake
    era), the tools and call cases, and `mcp_get_version` against the manifest and library.
    With `every_tool`, every listed tool must have been called. A case's `windows` object
    replaces its expectations when the library is a Windows DLL (served under Wine)."""
    if library.lower().endswith(".dll"):
        cases = [{**case, **case.get("windows", {})} for case in cases]
    check("protocol version", client.protocol_version == ("2026-07-28" if mode == "2026-07-28" else "2025-11-25"),
          client.protocol_version)
    if mode == "legacy":
        await client.send_ping()
        check("ping", True)

    called, expected_names = await check_tools_and_calls(client, manifest, cases, check)

    version = await client.call_tool("mcp_get_version", {})
    info = (version.structured_content or {}).get("result", {})
    check("mcp_get_version server", info.get("server") == "delphi-mcp", f"{info}")
    check("mcp_get_version abi", info.get("abiVersion") == manifest["abiVersion"], f"{info}")
    check("mcp_get_version library", info.get("library") == library, f"{info}")
    check("mcp_get_version manifest hash",
          info.get("manifestSha256") == canonical_sha256(manifest_bytes), f"{info}")
    called.add("mcp_get_version")
    if every_tool:
        check("every tool called", called >= expected_names, f"not called: {sorted(expected_names - called)}")
