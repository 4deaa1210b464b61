#!/usr/bin/env bash
# Installs what cross-building and testing delphi-mcp for Windows x64 under Wine needs
# (scripts/test-windows.sh, docs/windows.md), from the Debian registry only:
#   - Free Pascal's Win64 RTL (and the units the examples use: DateUtils, StrUtils, Registry),
#     built from fpc-source-3.2.2 with the installed ppcx64;
#   - Rust for x86_64-pc-windows-gnu: Debian's rustc-web/cargo-web with the standard library's
#     source (rust-web-src), built per project with -Zbuild-std; MinGW-w64 gcc links;
#   - Wine (wine64 8.0) and a Wine prefix with a bcryptprimitives.dll shim (Wine 8.0 lacks the
#     ProcessPrng that Rust's std imports; source: scripts/windows/processprng.c).
# Everything built goes to $DELPHI_MCP_WINDOWS_TOOLS (default .tools/windows). Needs root or sudo
# for apt-get. Safe to run again: each step is skipped when its result is present.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

tools=${DELPHI_MCP_WINDOWS_TOOLS:-$repo/.tools/windows}
mkdir -p "$tools"
tools=$(cd "$tools" && pwd)

as_root() {
  if [ "$(id -u)" = 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    echo "install-windows-tools: installing packages needs root; run as root or install sudo" >&2
    exit 1
  fi
}

scripts/install-fpc.sh

# fpc-source: the RTL's source; fp-utils: fpcmake; rustc-web/cargo-web/rust-web-src: a Rust
# whose standard library can be built for a target rustup would otherwise download; mono-xbuild:
# an MSBuild engine for the Delphi build step (templates/msbuild/DelphiMcp.targets).
packages=(fpc-source-3.2.2 fp-utils-3.2.2 make wine64 gcc-mingw-w64-x86-64 mono-xbuild
  rustc-web cargo-web rust-web-src)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-windows-tools: needs Debian 12 (or newer) packages: ${missing[*]}" >&2
    exit 1
  fi
  echo "install-windows-tools: apt-get install ${missing[*]}" >&2
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

# Free Pascal's Win64 RTL. Debian's source lacks rtl/x86_64/makefile.cpu (the CPU's include
# names); FPC's Win64 target has its own assembler and linker, so no binutils are needed.
fpc_src=/usr/share/fpcsrc/3.2.2
rtl_units=$tools/fpc/rtl
extra_units=$tools/fpc/extra
if [ ! -f "$rtl_units/system.ppu" ] || [ ! -f "$extra_units/registry.ppu" ]; then
  echo "install-windows-tools: building Free Pascal's Win64 RTL into $tools/fpc" >&2
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  cp -r "$fpc_src/rtl" "$work/rtl"
  for package in rtl-objpas fcl-registry fcl-base; do
    cp -r "$fpc_src/packages/$package" "$work/$package"
  done
  printf 'CPUNAMES=x86_64\nCPUINCNAMES=$(addsuffix .inc,$(CPUNAMES))\n' \
    >"$work/rtl/x86_64/makefile.cpu"
  (cd "$work/rtl" && fpcmake -Twin64 -r >/dev/null)
  make -s -C "$work/rtl/win64" OS_TARGET=win64 CPU_TARGET=x86_64 FPC="$(command -v ppcx64)" \
    all >"$work/rtl.log" 2>&1 || { tail -40 "$work/rtl.log" >&2; exit 1; }
  rm -rf "$rtl_units" "$extra_units"
  mkdir -p "$tools/fpc" "$extra_units"
  mv "$work/rtl/units/x86_64-win64" "$rtl_units"
  for unit in rtl-objpas/src/inc/dateutils.pp rtl-objpas/src/inc/strutils.pp \
    fcl-registry/src/registry.pp; do
    ppcx64 -Twin64 -O2 -Fu"$rtl_units" -Fu"$work/rtl-objpas/src/inc" \
      -Fi"$work/fcl-registry/src" -Fu"$work/fcl-base/src" -FU"$extra_units" "$work/$unit" \
      >"$work/unit.log" 2>&1 || { cat "$work/unit.log" >&2; exit 1; }
  done
  rm -rf "$work"
  trap - EXIT
fi
echo "fpc win64 units: $rtl_units, $extra_units" >&2

# Rust's standard library source, which -Zbuild-std compiles for x86_64-pc-windows-gnu.
if [ ! -f /usr/lib/rustlib/src/rust/library/Cargo.lock ]; then
  echo "install-windows-tools: rust-web-src did not install /usr/lib/rustlib/src/rust/library" >&2
  exit 1
fi
echo "rust for windows: $(/usr/bin/rustc --version) with -Zbuild-std" >&2

# The ProcessPrng shim and the Wine prefix (created headless; no display is needed).
if [ ! -f "$tools/bcryptprimitives.dll" ] || \
  [ scripts/windows/processprng.c -nt "$tools/bcryptprimitives.dll" ]; then
  x86_64-w64-mingw32-gcc -O2 -shared -s -o "$tools/bcryptprimitives.dll" \
    scripts/windows/processprng.c -ladvapi32
fi
export WINEPREFIX=$tools/wineprefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
if [ ! -d "$WINEPREFIX/drive_c/windows/system32" ]; then
  echo "install-windows-tools: creating the Wine prefix $WINEPREFIX" >&2
  /usr/lib/wine/wine64 wineboot -i >/dev/null 2>&1
  /usr/lib/wine/wineserver -w
fi
cp "$tools/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/"
echo "wine $(/usr/lib/wine/wine64 --version) in $WINEPREFIX" >&2
