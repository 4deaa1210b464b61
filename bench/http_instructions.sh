#!/usr/bin/env bash
# Instructions per HTTP request: serves the calc example with `delphi-mcp serve --http` under
# valgrind's callgrind, loads it with the side-by-side driver (`compare --load`) at one
# connection, once with FEW and once with MANY calls, and prints (MANY - FEW) instructions of
# the whole server (every thread) divided by (MANY - FEW): the start and the end cancel out.
# Unlike req/s, the count hardly depends on the machine's load; compare builds with it.
# `--busy-poll 0` by default, since polling adds instructions for as long as a wait lasts.
#
# Usage: bench/http_instructions.sh [FEW] [MANY] [SERVE FLAGS...]   defaults: 1000 3000
# Needs Free Pascal (the calc example is built) and valgrind; builds the release binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
few=${1:-1000}
many=${2:-3000}
shift $(( $# < 2 ? $# : 2 ))
flags=("$@")
[ ${#flags[@]} -eq 0 ] && flags=(--busy-poll 0)
command -v valgrind >/dev/null || { echo "bench/http_instructions.sh: needs valgrind" >&2; exit 1; }

cargo build --release --quiet --bin delphi-mcp
cargo build --release --quiet --manifest-path bench/side-by-side/Cargo.toml --target-dir target
work=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
library=$(calc_library "$work" target/release/delphi-mcp)
token=http-instructions-bench-token

# The server's instructions for `calls` requests (callgrind's total, written at its exit).
count() {
  local calls=$1 port
  port=$(free_port)
  rm -f "$work"/callgrind.*
  DELPHI_MCP_TOKEN=$token valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.%p" \
    target/release/delphi-mcp serve "$library" --http "127.0.0.1:$port" --log-level warn \
    "${flags[@]}" 2> "$work/stderr" &
  server=$!
  wait_for_port "$port" 300
  target/release/compare --load "127.0.0.1:$port" --connections 1 --calls "$calls" \
    --token "$token" >/dev/null
  kill -INT "$server"
  wait "$server" 2>/dev/null || true
  server=
  awk '/^(summary|totals):/ {print $2; exit}' "$work"/callgrind.*
}
before=$(count "$few")
after=$(count "$many")
echo "delphi-mcp serve ${flags[*]}: $(( (after - before) / (many - few) )) instructions per request"
