#!/usr/bin/env bash
# Installs what the test suite needs and the machine lacks:
#   - Free Pascal 3.2.2 (Debian packages; needs root or sudo)
#   - later issues add: the Python MCP SDK client and Node MCP tools, into ./.tools
# Safe to run again: each step is skipped when its tool is present.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then
    as_root apt-get update -qq
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

if ! command -v fpc >/dev/null 2>&1; then
  echo "installing Free Pascal 3.2.2" >&2
  apt_install fp-compiler-3.2.2 fp-units-rtl-3.2.2
fi
fpc -iV >&2
