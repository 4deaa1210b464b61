#!/usr/bin/env bash
# Instructions per call: serves the calc example with `delphi-mcp serve` under valgrind's
# callgrind and loads it at one call at a time, once with FEW and once with MANY calls, and
# prints (MANY - FEW) instructions of the whole server (every thread) divided by (MANY - FEW):
# the start and the end cancel out. Unlike req/s, the count hardly depends on the machine's
# load; compare builds with it. `--busy-poll 0` by default, since polling adds instructions
# for as long as a wait lasts.
#
# - http: `serve --http`, loaded by the side-by-side driver (`compare --load`, one connection:
#   stateless 2026-07-28 `tools/call` POSTs with the Bearer token);
# - stdio: `serve` over stdio, loaded by `bench/stdio_load.rs` (`--pipelined 0`).
#
# Usage: bench/instructions.sh http|stdio [FEW] [MANY] [SERVE FLAGS...]   defaults: 1000 3000
# Needs Free Pascal (the calc example is built) and valgrind; builds the release binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
transport=${1:-}
case "$transport" in
  http | stdio) shift ;;
  *) echo "usage: bench/instructions.sh http|stdio [FEW] [MANY] [SERVE FLAGS...]" >&2; exit 2 ;;
esac
few=${1:-1000}
many=${2:-3000}
shift $(( $# < 2 ? $# : 2 ))
flags=("$@")
[ ${#flags[@]} -eq 0 ] && flags=(--busy-poll 0)
command -v valgrind >/dev/null || { echo "bench/instructions.sh: needs valgrind" >&2; exit 1; }

cargo build --release --quiet --bin delphi-mcp
if [ "$transport" = http ]; then
  cargo build --release --quiet --manifest-path bench/side-by-side/Cargo.toml --target-dir target
else
  cargo build --release --quiet --example stdio_load
fi
work=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
library=$(calc_library "$work" target/release/delphi-mcp)
token=instructions-bench-token
callgrind=(valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.%p")

# The server's instructions for `calls` calls (callgrind's total, written at its exit).
count() {
  local calls=$1 port
  rm -f "$work"/callgrind.*
  if [ "$transport" = http ]; then
    port=$(free_port)
    DELPHI_MCP_TOKEN=$token "${callgrind[@]}" target/release/delphi-mcp serve "$library" \
      --http "127.0.0.1:$port" --log-level warn "${flags[@]}" 2> "$work/stderr" &
    server=$!
    wait_for_port "$port" 300
    target/release/compare --load "127.0.0.1:$port" --connections 1 --calls "$calls" \
      --token "$token" >/dev/null
    kill -INT "$server"
    wait "$server" 2>/dev/null || true
    server=
  else
    target/release/examples/stdio_load --calls "$calls" --pipelined 0 -- "${callgrind[@]}" \
      target/release/delphi-mcp serve "$library" --log-level warn "${flags[@]}" \
      > /dev/null 2> "$work/stderr"
  fi
  awk '/^(summary|totals):/ {print $2; exit}' "$work"/callgrind.*
}
before=$(count "$few")
after=$(count "$many")
echo "delphi-mcp serve ($transport) ${flags[*]}: $(( (after - before) / (many - few) )) instructions per call"
