"""Checks shared by the Python SDK clients over stdio and over HTTP: one line per check, and
the list of failures for the exit code."""

import json

from mcp.shared.exceptions import MCPError


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
        if "result" in case or "success" in case:
            expected = {"result": case["result"]} if "result" in case else {"success": True}
            check(label, not result.is_error and result.structured_content == expected,
                  f"got isError={result.is_error} structured={result.structured_content} text={text}")
            check(label + " (text block is the same JSON)",
                  json.loads(text) == expected if not result.is_error else False, text)
        else:
            ok = bool(result.is_error) and all(part in text for part in case["error_contains"])
            check(label, ok, f"got isError={result.is_error} text={text!r}, expected parts {case['error_contains']}")
    return called, expected_names
