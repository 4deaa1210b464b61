#!/usr/bin/env bash
# Installs what the test suite needs and the machine lacks:
#   - Free Pascal 3.2.2 (scripts/install-fpc.sh: Debian packages; needs root or sudo)
#   - the Python MCP SDK client, into a virtual environment at .tools/venv
#   - Node 22 and the MCP Inspector CLI, into .tools/node (npm packages, no global install)
#   - HAProxy (Debian package; tests/http/balancer.rs)
#   - for bench/run: FastMCP in its own virtual environment (.tools/fastmcp-venv) and the
#     TypeScript MCP SDK (.tools/ts-sdk), both pinned
# Safe to run again: each step is skipped when its tool is present.
set -euo pipefail
cd "$(dirname "$0")/.."

script_name=install-test-tools
# shellcheck source=scripts/as-root.sh
source scripts/as-root.sh

apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then
    as_root apt-get update -qq
    apt_updated=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

scripts/install-fpc.sh

mkdir -p .tools

# Python MCP SDK client (tests/clients/*.py run with .tools/venv/bin/python).
if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  echo "installing python3 with venv" >&2
  apt_install python3 python3-venv
fi
if ! .tools/venv/bin/python -c 'import mcp' >/dev/null 2>&1; then
  echo "installing the Python mcp SDK into .tools/venv" >&2
  rm -rf .tools/venv
  python3 -m venv .tools/venv
  .tools/venv/bin/python -m pip install --quiet --upgrade pip
  .tools/venv/bin/python -m pip install --quiet 'mcp>=1.9'
fi
.tools/venv/bin/python -c 'import importlib.metadata as m; print("python mcp", m.version("mcp"))' >&2

# Node 22 and the MCP Inspector CLI (tests run .tools/node/node_modules/.bin/node on
# .tools/node/node_modules/@modelcontextprotocol/inspector).
if ! command -v npm >/dev/null 2>&1; then
  echo "installing npm" >&2
  apt_install nodejs npm
fi
if [ ! -x .tools/node/node_modules/.bin/mcp-inspector ] || [ ! -x .tools/node/node_modules/node/bin/node ]; then
  echo "installing Node 22 and @modelcontextprotocol/inspector@2 into .tools/node" >&2
  mkdir -p .tools/node
  [ -f .tools/node/package.json ] || echo '{"name":"delphi-mcp-test-tools","private":true}' > .tools/node/package.json
  npm install --prefix .tools/node --no-audit --no-fund --loglevel=error node@22 '@modelcontextprotocol/inspector@2'
fi
echo "node $(.tools/node/node_modules/node/bin/node --version)" >&2

# The official MCP conformance suite, two versions side by side (tests/http/conformance.rs):
# 0.1.16 tests the 2025 eras, 0.2.0-alpha.12 tests 2026-07-28.
for version in 0.1.16 0.2.0-alpha.12; do
  folder=.tools/conformance-$version
  if [ ! -f "$folder/node_modules/@modelcontextprotocol/conformance/dist/index.js" ]; then
    echo "installing @modelcontextprotocol/conformance@$version into $folder" >&2
    mkdir -p "$folder"
    [ -f "$folder/package.json" ] || echo '{"name":"delphi-mcp-conformance","private":true}' > "$folder/package.json"
    npm install --prefix "$folder" --no-audit --no-fund --loglevel=error "@modelcontextprotocol/conformance@$version"
  fi
done

# Headless Chromium for the status-page test (tests/http/browser.rs).
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  echo "installing chromium" >&2
  apt_install chromium
fi

# HAProxy in front of several `serve --http` instances (tests/http/balancer.rs).
if ! command -v haproxy >/dev/null 2>&1; then
  echo "installing haproxy" >&2
  apt_install haproxy
fi

# The side-by-side bench (bench/run): FastMCP and the TypeScript SDK's server, pinned exactly so
# that figures stay comparable. FastMCP gets a venv of its own: it pins its own `mcp` version.
fastmcp_version=4.2.3
if ! .tools/fastmcp-venv/bin/python -c "import importlib.metadata as m, sys; sys.exit(m.version('fastmcp') != '$fastmcp_version')" >/dev/null 2>&1; then
  echo "installing fastmcp $fastmcp_version into .tools/fastmcp-venv" >&2
  rm -rf .tools/fastmcp-venv
  python3 -m venv .tools/fastmcp-venv
  .tools/fastmcp-venv/bin/python -m pip install --quiet --upgrade pip
  .tools/fastmcp-venv/bin/python -m pip install --quiet "fastmcp==$fastmcp_version"
fi
ts_sdk_version=1.32.2
if ! grep -qs "\"version\": \"$ts_sdk_version\"" .tools/ts-sdk/node_modules/@modelcontextprotocol/sdk/package.json; then
  echo "installing @modelcontextprotocol/sdk@$ts_sdk_version into .tools/ts-sdk" >&2
  mkdir -p .tools/ts-sdk
  [ -f .tools/ts-sdk/package.json ] || echo '{"name":"delphi-mcp-bench-ts-sdk","private":true}' > .tools/ts-sdk/package.json
  npm install --prefix .tools/ts-sdk --no-audit --no-fund --loglevel=error "@modelcontextprotocol/sdk@$ts_sdk_version"
fi
