#!/usr/bin/env bash
# HTTP load test: builds the calc example, serves it with `delphi-mcp serve --http` (release
# build, token in a temporary file) and runs bench/http_load.rs against it: 10,000 calls over
# 64 keep-alive connections by default.
# Usage: bench/http_load.sh [CALLS] [CONNECTIONS] [THREADS] [SERVE FLAGS...]
# THREADS is --threads of serve (the calc example is single-threaded: keep 1); further arguments
# go to serve, e.g. `bench/http_load.sh 10000 64 1 --isolate --workers 2`.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
calls=${1:-10000}
connections=${2:-64}
threads=${3:-1}
shift $(( $# < 3 ? $# : 3 ))
threads_flag=()
if [ "$threads" != 1 ]; then threads_flag=(--threads "$threads"); fi
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
cargo build --release --quiet --bin delphi-mcp --example http_load
library=$(calc_library "$work" target/release/delphi-mcp)
target/release/delphi-mcp serve "$library" --http 127.0.0.1:0 --token-file "$work/token" \
  "${threads_flag[@]}" --max-concurrent 256 --log-level warn "$@" 2> "$work/stderr" &
server=$!
for _ in $(seq 1 100); do
  grep -q 'MCP endpoint' "$work/stderr" 2>/dev/null && break
  # Waiting for the start-up line of a process started above (a script, not a test).
  sleep 0.1
done
endpoint=$(grep -o 'http://[^ ]*/mcp' "$work/stderr" | head -1)
echo "server: $endpoint (library threads: $threads; flags: ${*:-none})"
target/release/examples/http_load "$endpoint" "$work/token" "$calls" "$connections"
calls_seen=$(curl -s "${endpoint%/mcp}/status.json" | grep -o '"totals":{"calls":[0-9]*' | grep -o '[0-9]*$' || true)
echo "status page counted: ${calls_seen:-?} calls"
