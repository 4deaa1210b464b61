#!/usr/bin/env bash
# CPU per HTTP request, per thread: serves the calc example with `delphi-mcp serve --http` (or
# the canned limit server), loads it with the side-by-side driver (`compare --load`) at one
# connection count and prints the server threads' CPU time per request (utime + stime of
# /proc/PID/task/*/stat over the measured calls, warm-up excluded), their context switches per
# request and the driver's own CPU. Linux only (docs/performance.md, "HTTP transport").
#
# Usage: bench/http_cpu.sh [CONNECTIONS] [CALLS] [SERVE FLAGS...]   defaults: 32 100000
#        bench/http_cpu.sh 32 100000 --limit                        the canned server instead
# Needs Free Pascal (the calc example is built); builds the release binaries it runs.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
connections=${1:-32}
calls=${2:-100000}
shift $(( $# < 2 ? $# : 2 ))
limit=0
if [ "${1:-}" = "--limit" ]; then limit=1; shift; fi

cargo build --release --quiet --bin delphi-mcp
cargo build --release --quiet --manifest-path bench/side-by-side/Cargo.toml --target-dir target
work=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT

port=$(free_port)
token=http-cpu-bench-token
if [ "$limit" = 1 ]; then
  target/release/canned http "127.0.0.1:$port" 2> "$work/stderr" &
  server=$!
  load=(--limit)
else
  library=$(calc_library "$work" target/release/delphi-mcp)
  DELPHI_MCP_TOKEN=$token target/release/delphi-mcp serve "$library" --http "127.0.0.1:$port" \
    --log-level warn --max-concurrent 256 "$@" 2> "$work/stderr" &
  server=$!
  load=(--token "$token")
fi
wait_for_port "$port"

# Threads' CPU (clock ticks) and context switches, one line per thread.
snapshot() {
  for task in /proc/"$server"/task/*; do
    printf '%s|%s %s %s\n' "$(tr ' ' _ < "$task/comm")" "${task##*/}" \
      "$(awk '{print $14 + $15}' "$task/stat")" \
      "$(awk '/^(non)?voluntary_ctxt_switches/ {s += $2} END {print s}' "$task/status")"
  done | sort
}
target/release/compare --load "127.0.0.1:$port" --connections 1 --calls 2000 "${load[@]}" >/dev/null
snapshot > "$work/before"
# The driver's CPU: the children's user and system seconds (bash `times`, second line) before
# and after it (`times` runs in this shell: in a subshell it would count the subshell's).
seconds() { tail -1 "$1" | sed 's/m/ /g; s/s//g' | awk '{print ($1 * 60 + $2) + ($3 * 60 + $4)}'; }
times > "$work/times-before"
target/release/compare --load "127.0.0.1:$port" --connections "$connections" --calls "$calls" "${load[@]}"
times > "$work/times-after"
driver_before=$(seconds "$work/times-before")
driver_after=$(seconds "$work/times-after")
snapshot > "$work/after"
if [ "$limit" = 1 ]; then name="canned limit"; else name="delphi-mcp serve${*:+ $*}"; fi
echo "$name: $calls calls at $connections connections"
join <(sort "$work/before") <(sort "$work/after") | awk -v n="$calls" -v hz="$(getconf CLK_TCK)" '
  { cpu = ($4 - $2) * 1e6 / hz / n; switches = ($5 - $3) / n; total += cpu
    if (cpu > 0.05 || switches > 0.01) { split($1, name, "|"); printf "  %-18s %6.2f us/request  %5.2f switches/request\n", name[1], cpu, switches } }
  END { printf "  server total       %6.2f us/request\n", total }'
awk -v n="$calls" -v a="$driver_before" -v b="$driver_after" \
  'BEGIN {printf "  load driver        %6.2f us/request\n", (b - a) * 1e6 / n}'
