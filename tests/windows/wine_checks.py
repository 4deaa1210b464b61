"""Windows behaviour of delphi-mcp.exe under Wine (run by scripts/test-windows.sh).

usage: wine_checks.py LAUNCHER PROJECTS WINEPREFIX

`LAUNCHER-cpNNNN` (written by scripts/test-windows.sh) start the server under Wine with ANSI
code page NNNN; `PROJECTS/<project>/build/*.dll` are the libraries, built for the launcher's
architecture. Logs go next to PROJECTS. Checked here, each against a server under Wine:
- Streamable HTTP: the official Python client (tests/clients/http_python_client.py) with the
  token from the token file, which must be under %LOCALAPPDATA%; the MCP conformance suite with
  the Linux baselines (tests/conformance/);
- the faults example in process and isolated: Windows structured exceptions (access violation,
  integer and floating-point division by zero, stack overflow) become tool errors and the server
  goes on; isolated over HTTP, calls whose callers read their answers themselves;
- AnsiString, ShortString and AnsiChar arguments under code pages 1252, 1251 and 932: what the
  code page holds comes back unchanged, what it cannot hold is rejected, never replaced;
- `serve` of a project folder, and `config claude-desktop` with Windows paths.
The script prints one line per check and exits 1 when any fails.
"""

import json
import os
import queue
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "clients"))
from mcp_checks import Checks  # noqa: E402

# A call that gets no answer at all is a failure, not a hang of the whole run.
HANG_GUARD = 120


def windows_path(path):
    """The path as the Windows program sees it (Wine maps `/` to drive Z:)."""
    return "Z:" + os.path.abspath(path).replace("/", "\\")


def linux_path(prefix, path):
    """A Windows path of the Wine prefix (`C:\\users\\...`) as a Linux path."""
    drive, rest = path[0].lower(), path[3:]
    return os.path.join(prefix, "dosdevices", drive + ":", *rest.split("\\"))


class Server:
    """`delphi-mcp.exe serve` under Wine over stdio, driven by JSON lines."""

    def __init__(self, launcher, args, log_path):
        self.log = open(log_path, "wb")
        self.process = subprocess.Popen([launcher, "serve", *args], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self.log)
        self.answers = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 0
        init = self.request("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "wine-checks", "version": "1"}})
        assert "result" in init, init
        self.notify("notifications/initialized")

    def _read(self):
        for line in self.process.stdout:
            self.answers.put(json.loads(line))
        self.answers.put(None)

    def notify(self, method):
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}).encode() + b"\n")
        self.process.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()
        try:
            answer = self.answers.get(timeout=HANG_GUARD)
        except queue.Empty:
            return {"error": f"no answer to {method} within {HANG_GUARD} s"}
        return answer if answer is not None else {"error": "the server ended"}

    def call(self, tool, arguments):
        return self.request("tools/call", {"name": tool, "arguments": arguments})

    def finish(self):
        """Ends input and returns the exit code."""
        self.process.stdin.close()
        code = self.process.wait(timeout=HANG_GUARD)
        self.log.close()
        return code


def text_of(answer):
    result = answer.get("result") or {}
    return "".join(block.get("text", "") for block in result.get("content", []))


def value_of(answer):
    result = answer.get("result") or {}
    if result.get("isError"):
        return None
    return (result.get("structuredContent") or {}).get("result")


def is_tool_error(answer, *parts):
    result = answer.get("result") or {}
    text = text_of(answer)
    return bool(result.get("isError")) and all(part in text for part in parts)


def check_faults(launcher, projects, logs, check):
    library = windows_path(os.path.join(projects, "faults", "build", "Faults.dll"))
    x86 = launcher.endswith("-x86")
    launcher = launcher + "-cp1252"
    faults = [
        ("raise_error", {"Message": "boom"}, "Tool \"raise_error\" raised Exception: boom"),
        ("nil_dereference", {}, "raised EAccessViolation"),
        ("divide_by_zero", {"Value": 7}, "raised EDivByZero"),
        # 32-bit: the x87 division by zero does not trap (Free Pascal's Win32 RTL); the infinite
        # result is still refused by the stub.
        ("divide_floats", {"A": 1, "B": 0},
         "the result is not a finite number" if x86 else "raised EZeroDivide"),
        ("overflow_stack", {"Depth": 0}, "raised EStackOverflow"),
        # Twice: the stack's guard page must be back after the first overflow.
        ("overflow_stack", {"Depth": 0}, "raised EStackOverflow"),
        ("allocate_megabytes", {"Count": 100_000_000_000}, "raised EOutOfMemory"),
        ("huge_string", {"Megabytes": 9}, "more than the limit of 8388608 bytes"),
    ]
    for mode, args in (("in process", []), ("isolated", ["--isolate"])):
        server = Server(launcher, [library, "--call-timeout", "10", *args],
                        os.path.join(logs, f"faults-{mode.replace(' ', '-')}.log"))
        for tool, arguments, expected in faults:
            answer = server.call(tool, arguments)
            check(f"faults {mode}: {tool} is a tool error", is_tool_error(answer, expected),
                  json.dumps(answer)[:400])
            after = server.call("sleep_for", {"Milliseconds": 1})
            check(f"faults {mode}: serving after {tool}", value_of(after) == 1,
                  json.dumps(after)[:300])
        answer = server.call("divide_floats", {"A": 1, "B": 4})
        check(f"faults {mode}: floating point still works", value_of(answer) == 0.25,
              json.dumps(answer)[:300])
        answer = server.call("write_to_stdout", {"Text": "hello from Pascal"})
        check(f"faults {mode}: stdout of the library stays out of the protocol",
              value_of(answer) == 17, json.dumps(answer)[:300])
        answer = server.call("fault_in_thread", {})
        check(f"faults {mode}: a fault in a thread of its own is caught by its thread",
              value_of(answer) == 0, json.dumps(answer)[:300])
        if args:
            answer = server.call("halt_process", {"Code": 3})
            check("faults isolated: Halt ends the worker, not the server",
                  is_tool_error(answer, "the library process ended with exit code 3"),
                  json.dumps(answer)[:300])
            answer = server.call("loop_forever", {})
            check("faults isolated: a call past its deadline is stopped",
                  is_tool_error(answer, "did not finish within 10 s"), json.dumps(answer)[:300])
            answer = server.call("count_calls", {})
            check("faults isolated: the restarted worker serves",
                  value_of(answer) == 1, json.dumps(answer)[:300])
        code = server.finish()
        check(f"faults {mode}: the server ends cleanly at end of input", code == 0, f"exit {code}")
    server = Server(launcher, [library], os.path.join(logs, "faults-halt.log"))
    answer = server.call("halt_process", {"Code": 3})
    check("faults in process: Halt ends the server with its code",
          "error" in answer and server.finish() == 3, json.dumps(answer)[:300])


# Per ANSI code page: (tool, argument, accepted). Accepted values must come back unchanged.
CODE_PAGE_CASES = {
    "1252": [
        ("echo_ansi", "café €", True),
        ("echo_ansi", "Привет", False),
        ("echo_ansi", "日本", False),
        ("echo_short_string", "Œuvre", True),
        ("echo_short_string", "Ж", False),
        ("echo_short5", "éééé€", True),
        ("echo_short5", "éééééé", False),
        ("echo_ansi_char", "€", True),
        ("echo_ansi_char", "Ж", False),
    ],
    "1251": [
        ("echo_ansi", "Привет, мир", True),
        ("echo_ansi", "café", False),
        ("echo_ansi", "日本", False),
        ("echo_short_string", "Ёлка", True),
        ("echo_short_string", "é", False),
        ("echo_short5", "Жжжжж", True),
        ("echo_short5", "Жжжжжж", False),
        ("echo_ansi_char", "Я", True),
        ("echo_ansi_char", "€", True),
        ("echo_ansi_char", "é", False),
    ],
    "932": [
        ("echo_ansi", "日本語のテキスト", True),
        ("echo_ansi", "café", False),
        ("echo_ansi", "한국어", False),
        ("echo_short_string", "東京", True),
        ("echo_short5", "日本", True),
        ("echo_short5", "日本語", False),
        ("echo_ansi_char", "A", True),
        ("echo_ansi_char", "日", False),
    ],
}


def check_code_pages(launcher, projects, logs, check):
    library = windows_path(os.path.join(projects, "abi fixture", "build",
                                        "AbiFixture.dll"))
    for code_page, cases in CODE_PAGE_CASES.items():
        server = Server(f"{launcher}-cp{code_page}", [library],
                        os.path.join(logs, f"codepage-{code_page}.log"))
        for tool, text, accepted in cases:
            answer = server.call(tool, {"V": text})
            label = f"code page {code_page}: {tool} {text!r} {'kept' if accepted else 'rejected'}"
            if accepted:
                check(label, value_of(answer) == text, json.dumps(answer, ensure_ascii=False)[:300])
            else:
                # Rejected by the runtime (a length it can tell from the schema) or the stub.
                check(label, is_tool_error(answer, "argument") and "V" in text_of(answer),
                      json.dumps(answer, ensure_ascii=False)[:300])
        server.finish()


def start_http(launcher, library, *args):
    """`serve --http` on a free loopback port; returns the process and its start-up line."""
    process = subprocess.Popen([launcher, "serve", windows_path(library), "--http", "127.0.0.1:0",
                                "--log-level", "warn", *args], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    banner = ""
    for line in process.stderr:
        if line.startswith("delphi-mcp: MCP endpoint "):
            banner = line.strip()
            break
    threading.Thread(target=lambda: [None for _ in process.stderr], daemon=True).start()
    return process, banner


def check_http(launcher, projects, prefix, check):
    library = os.path.join(projects, "abi lib", "build", "abilib.dll")
    process, banner = start_http(launcher + "-cp1252", library)
    try:
        endpoint = next((w for w in banner.split() if w.startswith("http://")), "")
        token_file = next((part[len("token: file "):] for part in banner.split(" ; ")
                           if part.startswith("token: file ")), "")
        check("http: start-up line names the endpoint and the token file",
              endpoint.endswith("/mcp") and token_file != "", banner)
        local = subprocess.run(["/usr/lib/wine/wine64", "cmd", "/c", "echo", "%LOCALAPPDATA%"],
                               capture_output=True, text=True).stdout.strip()
        check("http: the token file is under %LOCALAPPDATA%",
              local != "" and token_file.lower().startswith(local.lower() + "\\"),
              f"{token_file} / {local}")
        with open(linux_path(prefix, token_file), encoding="ascii") as f:
            token = f.read().strip()
        manifest = os.path.join(HERE, "..", "..", "test-support", "abi_lib", "tools.json")
        cases = os.path.join(HERE, "..", "clients", "abi_lib_cases.json")
        for mode in ("legacy", "2026-07-28"):
            client = subprocess.run(
                [sys.executable, os.path.join(HERE, "..", "clients", "http_python_client.py"),
                 endpoint, token, windows_path(library), manifest, cases, mode],
                capture_output=True, text=True)
            passed = sum(1 for line in client.stdout.splitlines() if line.startswith("ok "))
            check(f"http: Python client {mode} ({passed} checks)",
                  client.returncode == 0 and passed > 60 and "0 failure(s)" in client.stdout,
                  (client.stdout + client.stderr)[-1500:])
    finally:
        process.kill()
        process.wait()


def post_stateless_call(endpoint, id, tool, arguments):
    """A stateless (2026-07-28) `tools/call` POST without authentication; its JSON-RPC answer."""
    import http.client
    import urllib.parse
    url = urllib.parse.urlparse(endpoint)
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "wine-checks", "version": "1"}}
    body = json.dumps({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                       "params": {"name": tool, "arguments": arguments, "_meta": meta}})
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=HANG_GUARD)
    try:
        connection.request("POST", url.path, body, {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/call",
            "Mcp-Name": tool,
        })
        return json.loads(connection.getresponse().read())
    finally:
        connection.close()


def check_http_isolated(launcher, projects, check):
    """Over HTTP, the only request in progress reads its isolated call's answer itself (through
    `PeekNamedPipe` on Windows); a worker that ends during such a call is still reported."""
    library = os.path.join(projects, "faults", "build", "Faults.dll")
    process, banner = start_http(launcher + "-cp1252", library, "--isolate", "--no-auth")
    try:
        endpoint = next((w for w in banner.split() if w.startswith("http://")), "")
        counts = [value_of(post_stateless_call(endpoint, n, "count_calls", {}))
                  for n in range(1, 21)]
        check("http isolated: sequential calls answered by one worker, in order",
              counts == list(range(1, 21)), str(counts))
        answer = post_stateless_call(endpoint, 21, "halt_process", {"Code": 3})
        check("http isolated: Halt during a call is reported",
              is_tool_error(answer, "the library process ended with exit code 3"),
              json.dumps(answer)[:300])
        answer = post_stateless_call(endpoint, 22, "count_calls", {})
        check("http isolated: the restarted worker serves", value_of(answer) == 1,
              json.dumps(answer)[:300])
    finally:
        process.kill()
        process.wait()


# The conformance suite's runs as tests/http/conformance.rs makes them on Linux: version, options,
# the baseline of expected failures (the same files: the server must behave the same).
CONFORMANCE = [
    ("0.1.16", [], "expected-failures-2025.yaml"),
    ("0.2.0-alpha.12", ["--spec-version", "2026-07-28"], "expected-failures-2026.yaml"),
    ("0.2.0-alpha.12", ["--requirements", "2026-07-28"], "expected-failures-2026.yaml"),
]


def check_conformance(launcher, projects, logs, check):
    repo = os.path.join(HERE, "..", "..")
    node = os.path.join(repo, ".tools", "node", "node_modules", "node", "bin", "node")
    library = os.path.join(projects, "everything", "build", "Everything.dll")
    # The suite sends no Authorization header (as on Linux: --no-auth on loopback).
    process, banner = start_http(launcher + "-cp1252", library, "--no-auth")
    try:
        endpoint = next((w for w in banner.split() if w.startswith("http://")), "")
        for version, options, baseline in CONFORMANCE:
            cli = os.path.join(repo, ".tools", f"conformance-{version}", "node_modules",
                               "@modelcontextprotocol", "conformance", "dist", "index.js")
            run = subprocess.run(
                [node, cli, "server", "--url", endpoint, *options, "--expected-failures",
                 os.path.join(repo, "tests", "conformance", baseline),
                 "-o", os.path.join(logs, "conformance")], capture_output=True, text=True)
            text = run.stdout + run.stderr
            check(f"conformance {version} {' '.join(options)}: all failures are expected",
                  run.returncode == 0 and "all failures are expected" in text, text[-1500:])
    finally:
        process.kill()
        process.wait()


def check_project_folder_and_config(launcher, projects, logs, check):
    launcher = launcher + "-cp1252"
    folder = windows_path(os.path.join(projects, "calc"))
    # The library in build\ is newer than the units: serve loads it without compiling.
    server = Server(launcher, [folder], os.path.join(logs, "project-folder.log"))
    answer = server.call("calc_scale", {"Value": 2, "Factor": 3})
    check("serve of a project folder with spaces in its path", value_of(answer) == 6,
          json.dumps(answer)[:300])
    server.finish()
    config = subprocess.run([launcher, "config", "claude-desktop", folder],
                            capture_output=True, text=True)
    try:
        entry = next(iter(json.loads(config.stdout)["mcpServers"].values()))
    except (ValueError, KeyError, StopIteration):
        entry = {}
    check("config claude-desktop: the .exe and the folder as Windows paths",
          entry.get("command", "").lower().endswith("\\delphi-mcp.exe")
          and entry.get("args") == ["serve", folder], config.stdout + config.stderr)


def main() -> int:
    launcher, projects, prefix = sys.argv[1:4]
    logs = os.path.dirname(os.path.abspath(projects))
    check = Checks()
    check_faults(launcher, projects, logs, check)
    check_code_pages(launcher, projects, logs, check)
    check_http(launcher, projects, prefix, check)
    check_http_isolated(launcher, projects, check)
    check_conformance(launcher, projects, logs, check)
    check_project_folder_and_config(launcher, projects, logs, check)
    return check.exit_code()


if __name__ == "__main__":
    sys.exit(main())
