# What the bench scripts share; sourced (`. bench/common.sh`) from the repository root.

# Builds a copy of the calc example in WORK with the delphi-mcp binary DELPHI_MCP and prints
# the library's path.
calc_library() {
  local work=$1 delphi_mcp=$2
  cp -r examples/calc "$work/calc"
  "$delphi_mcp" build "$work/calc" >/dev/null
  find "$work/calc/build" -maxdepth 1 \( -name '*.so' -o -name '*.dylib' -o -name '*.dll' \) | head -1
}

# A loopback port free now.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until PORT on loopback accepts connections (at most TRIES looks, 0.1 s apart).
wait_for_port() {
  local port=$1 tries=${2:-100}
  for _ in $(seq 1 "$tries"); do
    (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    # Waiting for the port of a process the script started (a script, not a test).
    sleep 0.1
  done
  return 1
}
