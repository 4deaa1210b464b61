#!/usr/bin/env bash
# Coverage-guided fuzzing (cargo fuzz, libFuzzer) of the parser, the JSON-RPC envelope reader and
# argument validation: the targets in fuzz/fuzz_targets, documented in docs/fuzzing.md.
#
#   scripts/fuzz.sh smoke          CI: a debug build without sanitizer, each target for 10 s
#   scripts/fuzz.sh run [RUNS]     each target to RUNS executions (default 10,000,000), optimized
#                                  build; prints the executions of each. FUZZ_SANITIZER picks
#                                  cargo fuzz's sanitizer (default none: see docs/fuzzing.md)
#
# cargo fuzz passes nightly-only flags to rustc; RUSTC_BOOTSTRAP=1 lets the stable toolchain
# accept them, so no nightly toolchain is needed. Corpora grow in fuzz/corpus (git-ignored);
# the seeds (fuzz/seeds, the parser's fixture units) are read, never written.
set -euo pipefail
cd "$(dirname "$0")/.."
export RUSTC_BOOTSTRAP=1
export CARGO_TERM_COLOR=never

mode=${1:-smoke}
targets=(parse_unit jsonrpc_envelope tool_arguments)

if ! command -v cargo-fuzz >/dev/null 2>&1; then
  echo "installing cargo-fuzz" >&2
  cargo install cargo-fuzz --locked --quiet
fi

seeds() {
  case $1 in
    parse_unit) echo parser/tests/fixtures/units ;;
    *) echo "fuzz/seeds/$1" ;;
  esac
}

run_target() {
  local target=$1
  shift
  mkdir -p "fuzz/corpus/$target"
  local log
  log=$(mktemp)
  if ! cargo fuzz run "$@" "$target" "fuzz/corpus/$target" "$(seeds "$target")" -- \
      "${libfuzzer_args[@]}" >"$log" 2>&1; then
    tail -n 60 "$log" >&2
    echo "fuzz target $target failed; the input is in fuzz/artifacts/$target/" >&2
    rm -f "$log"
    return 1
  fi
  echo "$target: $(grep -E '^Done [0-9]+ runs' "$log" | tail -n 1)"
  rm -f "$log"
}

case $mode in
  smoke)
    cargo fuzz build --dev -s none
    libfuzzer_args=(-max_total_time=10 -max_len=65536)
    for target in "${targets[@]}"; do
      run_target "$target" --dev -s none
    done
    ;;
  run)
    runs=${2:-10000000}
    sanitizer=${FUZZ_SANITIZER:-none}
    cargo fuzz build -O -s "$sanitizer"
    libfuzzer_args=(-runs="$runs" -max_len=65536 -print_final_stats=1)
    for target in "${targets[@]}"; do
      run_target "$target" -O -s "$sanitizer"
    done
    ;;
  *)
    echo "usage: scripts/fuzz.sh smoke | run [RUNS]" >&2
    exit 2
    ;;
esac
