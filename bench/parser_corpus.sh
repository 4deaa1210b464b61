#!/usr/bin/env bash
# Parses real Pascal source trees that Debian packages, single-threaded, and prints for each
# the files with errors, the headings found and the throughput (MB/s of source text).
#
#   bench/parser_corpus.sh            # installs the packages when missing (needs root)
#   bench/parser_corpus.sh DIR...     # any other folders, read with the default target
#
# castle-game-engine-src: a game engine written for both Delphi and FPC, read with the
# default target (Delphi 12, Win64). lazarus-src-2.2: the Lazarus IDE and LCL, FPC's objfpc
# mode, read with --target fpc-linux64.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --release -p delphi-mcp-parser --example corpus
corpus=target/release/examples/corpus

if [ $# -gt 0 ]; then
    "$corpus" "$@" --audit | tail -2
    exit 0
fi

need=()
for pkg in castle-game-engine-src lazarus-src-2.2; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

source_dir() {
    # the folder holding the package's Pascal files
    dpkg -L "$1" | grep -E '\.(pas|pp)$' | head -1 | sed -E "s#^(/usr/(src|lib)/[^/]+(/[0-9.]+)?)/.*#\1#"
}

echo "castle-game-engine-src (default target):"
"$corpus" "$(source_dir castle-game-engine-src)" --audit | tail -2
echo "lazarus-src-2.2 (--target fpc-linux64):"
"$corpus" "$(source_dir lazarus-src-2.2)" --target fpc-linux64 --audit | tail -2
