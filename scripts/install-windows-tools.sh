#!/usr/bin/env bash
# Installs what cross-building and testing delphi-mcp for Windows x64 under Wine needs
# (scripts/test-windows.sh, docs/windows.md), from the Debian registry only:
#   - Free Pascal's Win64 RTL (and the units the examples use: DateUtils, StrUtils, Registry, fpjson),
#     built from fpc-source-3.2.2 with the installed ppcx64;
#   - Rust for x86_64-pc-windows-gnu: Debian's rustc-web/cargo-web with the standard library's
#     source (rust-web-src), built per project with -Zbuild-std; MinGW-w64 gcc links;
#   - Wine (wine64 8.0) and a Wine prefix with a bcryptprimitives.dll shim (Wine 8.0 lacks the
#     ProcessPrng that Rust's std imports; source: scripts/windows/processprng.c);
#   - mono-xbuild, an MSBuild engine for the Delphi build step (templates/msbuild/).
# With --win32 also 32-bit Windows: Free Pascal's i386 cross compiler (ppcross386, built from
# the compiler's source) and Win32 RTL, MinGW-w64 for i686, and wine32 (this adds the i386
# architecture to dpkg; the Wine prefix is made again so that it has a 32-bit half).
# Everything built goes to $DELPHI_MCP_WINDOWS_TOOLS (default .tools/windows). Needs root or sudo
# for apt-get. Safe to run again: each step is skipped when its result is present.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

win32=0
[ "${1:-}" = --win32 ] && win32=1
tools=${DELPHI_MCP_WINDOWS_TOOLS:-$repo/.tools/windows}
mkdir -p "$tools"
tools=$(cd "$tools" && pwd)

script_name=install-windows-tools
# shellcheck source=scripts/as-root.sh
source "$repo/scripts/as-root.sh"

scripts/install-fpc.sh

# fpc-source: the RTL's source; fp-utils: fpcmake; rustc-web/cargo-web/rust-web-src: a Rust
# whose standard library can be built for a target rustup would otherwise download.
packages=(fpc-source-3.2.2 fp-utils-3.2.2 make wine64 gcc-mingw-w64-x86-64 mono-xbuild
  rustc-web cargo-web rust-web-src)
if [ "$win32" = 1 ]; then
  packages+=(gcc-mingw-w64-i686 wine32:i386)
  if ! dpkg --print-foreign-architectures | grep -qx i386; then
    echo "install-windows-tools: adding the i386 architecture (for wine32)" >&2
    as_root dpkg --add-architecture i386
  fi
fi
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

# Free Pascal's Win64 RTL (and with --win32 the Win32 one). Debian's source lacks rtl/x86_64/makefile.cpu (the CPU's include
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

# Win32: Debian has no i386 cross compiler, so ppcross386 is built from the compiler's source
# with ppcx64 (its message file comes from the installed compiler), then the Win32 RTL with it.
win32_dir=$tools/fpc-win32
if [ "$win32" = 1 ] && [ ! -f "$win32_dir/extra/registry.ppu" ]; then
  echo "install-windows-tools: building ppcross386 and the Win32 RTL into $win32_dir" >&2
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  cp -r "$fpc_src/compiler" "$fpc_src/rtl" "$work/"
  for package in rtl-objpas fcl-registry fcl-base; do
    cp -r "$fpc_src/packages/$package" "$work/$package"
  done
  (
    cd "$work/compiler"
    mkdir -p units
    ppcx64 -FUunits -outils/msg2inc utils/msg2inc.pp >/dev/null
    ./utils/msg2inc "$(dpkg -L fp-compiler-3.2.2 | grep '/msg/errore.msg$')" msg msg >/dev/null
    ppcx64 -di386 -Fui386 -Fux86 -Fusystems -Fii386 -Fix86 -Fi. -FUunits -Sg -O2 -Xs \
      -oppcross386 pp.pas >"$work/compiler.log" 2>&1 || { tail -20 "$work/compiler.log" >&2; exit 1; }
  )
  printf 'CPUNAMES=i386\nCPUINCNAMES=$(addsuffix .inc,$(CPUNAMES))\n' >"$work/rtl/i386/makefile.cpu"
  (cd "$work/rtl" && fpcmake -Twin32 -r >/dev/null)
  make -s -C "$work/rtl/win32" OS_TARGET=win32 CPU_TARGET=i386 FPC="$work/compiler/ppcross386" \
    all >"$work/rtl.log" 2>&1 || { tail -40 "$work/rtl.log" >&2; exit 1; }
  rm -rf "$win32_dir"
  mkdir -p "$win32_dir/extra"
  mv "$work/compiler/ppcross386" "$win32_dir/"
  mv "$work/rtl/units/i386-win32" "$win32_dir/rtl"
  for unit in rtl-objpas/src/inc/dateutils.pp rtl-objpas/src/inc/strutils.pp \
    fcl-registry/src/registry.pp; do
    "$win32_dir/ppcross386" -Twin32 -O2 -Fu"$win32_dir/rtl" -Fu"$work/rtl-objpas/src/inc" \
      -Fi"$work/fcl-registry/src" -Fu"$work/fcl-base/src" -FU"$win32_dir/extra" "$work/$unit" \
      >"$work/unit.log" 2>&1 || { cat "$work/unit.log" >&2; exit 1; }
  done
  rm -rf "$work"
  trap - EXIT
fi
[ "$win32" = 1 ] && echo "fpc win32: $win32_dir/ppcross386" >&2

# fpjson (fcl-json) and the units it uses (variants), for JSON handlers (examples/values): built
# into each architecture's extra units when missing, so a tools folder from before it is topped up.
build_fpjson() { # extra units folder, compiler and target flag...
  local extra=$1
  shift
  [ -f "$extra/fpjson.ppu" ] && return
  echo "install-windows-tools: building fpjson into $extra" >&2
  local work
  work=$(mktemp -d)
  cp -r "$fpc_src/packages/rtl-objpas" "$fpc_src/packages/fcl-json" "$work/"
  for unit in rtl-objpas/src/inc/variants.pp fcl-json/src/fpjson.pp fcl-json/src/jsonscanner.pp \
    fcl-json/src/jsonreader.pp fcl-json/src/jsonparser.pp; do
    "$@" -O2 -Fu"$(dirname "$extra")/rtl" -Fu"$extra" -Fu"$work/rtl-objpas/src/inc" \
      -Fu"$work/rtl-objpas/src/win" -Fi"$work/rtl-objpas/src/inc" -Fi"$work/rtl-objpas/src/win" \
      -Fi"$work/fcl-json/src" -FU"$extra" "$work/$unit" >"$work/unit.log" 2>&1 ||
      { cat "$work/unit.log" >&2; rm -rf "$work"; exit 1; }
  done
  rm -rf "$work"
}
build_fpjson "$extra_units" ppcx64 -Twin64
[ "$win32" = 1 ] && build_fpjson "$win32_dir/extra" "$win32_dir/ppcross386" -Twin32

# i686-pc-windows-gnu links rsbegin.o and rsend.o, which rustup's std ships and Debian's source
# does not: built from the std's source (scripts/test-windows.sh passes their folder with -L).
if [ "$win32" = 1 ] && [ ! -f "$tools/rtstartup-i686/rsend.o" ]; then
  mkdir -p "$tools/rtstartup-i686"
  for object in rsbegin rsend; do
    RUSTC_BOOTSTRAP=1 /usr/bin/rustc --target i686-pc-windows-gnu --emit=obj -C panic=abort \
      -C opt-level=2 --crate-type=lib -o "$tools/rtstartup-i686/$object.o" \
      "/usr/lib/rustlib/src/rust/library/rtstartup/$object.rs"
  done
fi

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
# --kill-at: the 32-bit export must be named ProcessPrng, not ProcessPrng@8.
if [ "$win32" = 1 ] && { [ ! -f "$tools/bcryptprimitives32.dll" ] ||
  [ scripts/windows/processprng.c -nt "$tools/bcryptprimitives32.dll" ]; }; then
  i686-w64-mingw32-gcc -O2 -shared -s -Wl,--kill-at -o "$tools/bcryptprimitives32.dll" \
    scripts/windows/processprng.c -ladvapi32
fi
export WINEPREFIX=$tools/wineprefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
# A prefix made before wine32 was installed has no 32-bit half (syswow64): made again.
if [ "$win32" = 1 ] && [ -d "$WINEPREFIX/drive_c/windows" ] &&
  [ -z "$(ls -A "$WINEPREFIX/drive_c/windows/syswow64" 2>/dev/null)" ]; then
  rm -rf "$WINEPREFIX"
fi
if [ ! -d "$WINEPREFIX/drive_c/windows/system32" ]; then
  echo "install-windows-tools: creating the Wine prefix $WINEPREFIX" >&2
  /usr/lib/wine/wine64 wineboot -i >/dev/null 2>&1
  /usr/lib/wine/wineserver64 -w
fi
cp "$tools/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/"
if [ "$win32" = 1 ]; then
  cp "$tools/bcryptprimitives32.dll" "$WINEPREFIX/drive_c/windows/syswow64/bcryptprimitives.dll"
fi
echo "wine $(/usr/lib/wine/wine64 --version) in $WINEPREFIX" >&2
