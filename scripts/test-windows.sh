#!/usr/bin/env bash
# Windows under Wine (docs/windows.md): cross-builds delphi-mcp.exe and Windows libraries of the
# examples and fixtures, then serves them under Wine to the official Python MCP client on Linux:
# the stdio suite (calc, delphi-versions, values, the ABI fixture's faults, the hand-written ABI library,
# both eras), Streamable HTTP with the token file under %LOCALAPPDATA%, the faults example
# (structured exceptions in process and isolated), AnsiString/ShortString under the ANSI code
# pages 1252, 1251 and 932, a project folder and paths with spaces and backslashes; and the
# Delphi build step (templates/msbuild/DelphiMcp.targets) under Mono's xbuild.
# Windows x64 always; 32-bit Windows too when `scripts/install-windows-tools.sh --win32` has run.
# Needs scripts/install-test-tools.sh and scripts/install-windows-tools.sh.
#
#   scripts/test-windows.sh            # build and run everything
#   scripts/test-windows.sh build      # only the cross-builds
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
what=${1:-all}

tools=${DELPHI_MCP_WINDOWS_TOOLS:-$repo/.tools/windows}
python=$repo/.tools/venv/bin/python
for needed in "$tools/fpc/rtl/system.ppu" "$tools/wineprefix/drive_c/windows/system32/bcryptprimitives.dll"; do
  [ -e "$needed" ] || { echo "test-windows: $needed is missing: run scripts/install-windows-tools.sh" >&2; exit 1; }
done
[ -x "$python" ] || { echo "test-windows: run scripts/install-test-tools.sh (the Python MCP client)" >&2; exit 1; }
architectures=(x64)
if [ -x "$tools/fpc-win32/ppcross386" ] && [ -x /usr/lib/wine/wine ]; then
  architectures+=(x86)
else
  echo "test-windows: 32-bit Windows not tested (scripts/install-windows-tools.sh --win32 adds it)" >&2
fi

out=$repo/target/windows
mkdir -p "$out/bin"
started=$(date +%s)
step() { echo "== $* ($(($(date +%s) - started)) s)" >&2; }

# Per architecture: the Rust target, the Free Pascal compiler and units, the Wine loader, and the
# folder the libraries are built in. A folder with spaces: every path reaches the server as a
# Windows path with spaces and backslashes (Z:\...\Program Files\...).
arch_settings() {
  case $1 in
    x64)
      rust_target=x86_64-pc-windows-gnu mingw=x86_64-w64-mingw32 wine=/usr/lib/wine/wine64
      rustflags="" fpc=(ppcx64 -Twin64) units=$tools/fpc projects="$out/Program Files" ;;
    x86)
      # rsbegin.o/rsend.o (the unwinder's frame registration), which rustup's std would bring.
      rust_target=i686-pc-windows-gnu mingw=i686-w64-mingw32 wine=/usr/lib/wine/wine
      rustflags="-L native=$tools/rtstartup-i686"
      fpc=("$tools/fpc-win32/ppcross386" -Twin32) units=$tools/fpc-win32
      projects="$out/Program Files (x86)" ;;
  esac
  exe=$repo/target/$rust_target/debug/delphi-mcp.exe
}

# --- delphi-mcp.exe: Debian's Rust with the standard library built from source (-Zbuild-std).
# The std's own dependencies come from its vendored sources, so crates.io is replaced by one
# folder holding both those and the project's (cargo vendor, from the local registry cache).
vendor=$tools/vendor
if [ ! -f "$tools/vendor-project.lock" ] || ! cmp -s Cargo.lock "$tools/vendor-project.lock"; then
  rm -rf "$tools/vendor-project" "$vendor"
  CARGO_NET_OFFLINE=true /usr/bin/cargo vendor --quiet --versioned-dirs "$tools/vendor-project" >/dev/null
  mkdir -p "$vendor"
  for crate in "$tools/vendor-project"/* /usr/lib/rustlib/src/rust/library/vendor/*; do
    [ -e "$vendor/$(basename "$crate")" ] || ln -s "$crate" "$vendor/$(basename "$crate")"
  done
  cp Cargo.lock "$tools/vendor-project.lock"
fi
for arch in "${architectures[@]}"; do
  arch_settings "$arch"
  step "cross-building delphi-mcp.exe ($rust_target)"
  env_target=$(echo "$rust_target" | tr a-z- A-Z_)
  env RUSTC_BOOTSTRAP=1 RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc CARGO_INCREMENTAL=0 \
    "CARGO_TARGET_${env_target}_LINKER=$mingw-gcc" "CARGO_TARGET_${env_target}_RUSTFLAGS=$rustflags" \
    "CC_${rust_target//-/_}=$mingw-gcc" "AR_${rust_target//-/_}=$mingw-ar" \
    /usr/bin/cargo build --quiet --offline \
    --config 'source.crates-io.replace-with="windows-vendor"' \
    --config "source.windows-vendor.directory=\"$vendor\"" \
    -Zbuild-std=std,panic_abort --target "$rust_target" -p delphi-mcp --bin delphi-mcp
done
# The Linux build generates the fixture's stubs and project file.
cargo build --quiet --bin delphi-mcp
linux_exe=$repo/target/debug/delphi-mcp

# --- Libraries: Free Pascal with the Windows RTL (its internal assembler and linker).
windows_library() { # project folder, project file, library name
  local dir=$1 project=$2 name=$3
  mkdir -p "$dir/build/units"
  (cd "$dir" && "${fpc[@]}" -Mdelphiunicode -O2 -ve -Fu"$units/rtl" -Fu"$units/extra" \
    -Fu. -Fugenerated -Fi. -Figenerated -FUbuild/units -FEbuild -o"build/$name.dll" \
    "$project" >build/fpc.log 2>&1) || { cat "$dir/build/fpc.log" >&2; exit 1; }
}
for arch in "${architectures[@]}"; do
  arch_settings "$arch"
  step "cross-building the libraries ($arch)"
  mkdir -p "$projects"
  for example in calc faults delphi-versions values everything; do
    rm -rf "${projects:?}/$example"
    cp -r "examples/$example" "$projects/$example"
    rm -rf "$projects/$example/build"
  done
  windows_library "$projects/calc" Calc.dpr Calc
  windows_library "$projects/faults" Faults.dpr Faults
  windows_library "$projects/delphi-versions" DelphiVersionsServer.dpr DelphiVersionsServer
  windows_library "$projects/values" Values.dpr Values
  windows_library "$projects/everything" Everything.dpr Everything
  rm -rf "$projects/abi fixture"
  cp -r tests/fixtures/abi "$projects/abi fixture"
  "$linux_exe" build "$projects/abi fixture" >/dev/null 2>&1
  rm -rf "$projects/abi fixture/build"
  windows_library "$projects/abi fixture" \
    "$(cd "$projects/abi fixture" && grep -lis '^library' ./*.dpr | head -1)" AbiFixture
  rm -rf "$projects/abi lib"
  cp -r test-support/abi_lib "$projects/abi lib"
  # The manifest it embeds, as test-support/src/abi_lib.rs writes it: byte literals.
  "$python" -c 'import sys; d = open(sys.argv[1], "rb").read(); print("const ManifestJson: RawByteString =\n" + " +\n".join("  " + "".join("#%d" % b for b in d[i:i + 64]) for i in range(0, len(d), 64)) + ";")' \
    test-support/abi_lib/tools.json >"$projects/abi lib/manifest.inc"
  windows_library "$projects/abi lib" abilib.lpr abilib
done
[ "$what" = build ] && { step "built"; exit 0; }

failures=0
fail() { echo "FAIL $*" >&2; failures=$((failures + 1)); }

# --- The Delphi build step: templates/msbuild/DelphiMcp.targets in a stand-in .dproj, run by
# Mono's xbuild with the Linux delphi-mcp. It must write calc's stubs exactly as committed, put
# generated\ first on the search paths, pass with DelphiMcpCheck=true, and fail it once a unit
# changes.
step "msbuild: DelphiMcp.targets under xbuild"
msbuild=$out/msbuild/Calc
rm -rf "$msbuild"
mkdir -p "$msbuild"
cp examples/calc/CalcModule.pas templates/msbuild/DelphiMcp.targets "$msbuild/"
cp tests/windows/StandIn.dproj "$msbuild/Calc.dproj"
xbuild_calc() { (cd "$msbuild" && xbuild /nologo /v:minimal /p:DelphiMcpExe="$linux_exe" "$@" Calc.dproj); }
if ! xbuild_calc >"$out/msbuild.log" 2>&1; then
  fail "xbuild of the stand-in project"; cat "$out/msbuild.log" >&2
elif ! grep -q "compiler unit path: $msbuild/generated;" "$out/msbuild.log"; then
  fail "generated\\ is not first on the unit path"; cat "$out/msbuild.log" >&2
elif ! diff -r examples/calc/generated "$msbuild/generated" >&2; then
  fail "the targets' stubs differ from examples/calc/generated"
elif ! xbuild_calc /p:DelphiMcpCheck=true >"$out/msbuild.log" 2>&1; then
  fail "DelphiMcpCheck=true after a build"; cat "$out/msbuild.log" >&2
else
  sed -i 's/Multiply a value by a factor/Multiply a value by some factor/' "$msbuild/CalcModule.pas"
  if xbuild_calc /p:DelphiMcpCheck=true >"$out/msbuild.log" 2>&1 ||
    ! grep -q 'would change' "$out/msbuild.log"; then
    fail "DelphiMcpCheck=true did not fail on stale stubs"; cat "$out/msbuild.log" >&2
  else
    echo "ok   msbuild: generation before the compile, search paths, check mode" >&2
  fi
fi

# --- Wine: one prefix, its server kept running for the whole run (each start costs ~1 s).
export WINEPREFIX=$tools/wineprefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
/usr/lib/wine/wineserver64 -p
trap '/usr/lib/wine/wineserver64 -k 2>/dev/null || true' EXIT
windows_path() { printf 'Z:%s' "$1" | tr / '\\'; }

run() { # label, command...
  local label=$1
  shift
  if "$@" >"$out/last.log" 2>&1; then
    echo "ok   $label ($(grep -c '^ok ' "$out/last.log" || true) checks)" >&2
  else
    fail "$label"
    sed 's/^/     /' "$out/last.log" >&2
  fi
}

for arch in "${architectures[@]}"; do
  arch_settings "$arch"
  # The MCP client starts servers with a clean environment: one launcher per ANSI code page,
  # which Wine takes from the locale (1252 en_US, 1251 ru_RU, 932 ja_JP).
  for pair in 1252:en_US 1251:ru_RU 932:ja_JP; do
    cat >"$out/bin/delphi-mcp-$arch-cp${pair%%:*}" <<EOF
#!/bin/sh
export WINEPREFIX='$WINEPREFIX' WINEDEBUG=-all WINEDLLOVERRIDES='mscoree,mshtml=' LC_ALL=${pair#*:}.UTF-8
exec $wine '$exe' "\$@"
EOF
    chmod +x "$out/bin/delphi-mcp-$arch-cp${pair%%:*}"
  done
  server=$out/bin/delphi-mcp-$arch-cp1252

  step "stdio ($arch): the Python MCP client, server under Wine"
  stdio_client() { # library (Linux path), manifest, cases, coverage
    local library=$1 manifest=$2 cases=$3 coverage=$4
    for mode in legacy 2026-07-28; do
      run "stdio $arch $(basename "$library") $mode" "$python" tests/clients/python_stdio_client.py \
        "$server" "$(windows_path "$library")" "$manifest" "tests/clients/$cases" "$mode" "$coverage"
    done
  }
  stdio_client "$projects/calc/build/Calc.dll" "$projects/calc/generated/tools.json" calc_cases.json all
  stdio_client "$projects/delphi-versions/build/DelphiVersionsServer.dll" \
    "$projects/delphi-versions/generated/tools.json" delphi_versions_cases.json all
  stdio_client "$projects/values/build/Values.dll" "$projects/values/generated/tools.json" \
    values_cases.json all
  stdio_client "$projects/abi fixture/build/AbiFixture.dll" \
    "$projects/abi fixture/generated/tools.json" abi_fault_cases.json partial
  stdio_client "$projects/abi lib/build/abilib.dll" test-support/abi_lib/tools.json \
    abi_lib_cases.json all
  # ABI 3: the call context, content, resources, prompts, completions, Markdown documents.
  run "stdio $arch Everything.dll" "$python" tests/clients/python_everything.py "$server" \
    "$(windows_path "$projects/everything/build/Everything.dll")" \
    --help-docs "$(windows_path "$PWD/tests/clients/help/operations.md")"

  step "HTTP, faults, code pages, project folder ($arch): tests/windows/wine_checks.py"
  run "wine checks $arch" "$python" tests/windows/wine_checks.py "$out/bin/delphi-mcp-$arch" \
    "$projects" "$WINEPREFIX"
done

# A 64-bit server cannot load a 32-bit DLL: it must say so.
if [ "${#architectures[@]}" = 2 ]; then
  wrong=$("$out/bin/delphi-mcp-x64-cp1252" serve \
    "$(windows_path "$out/Program Files (x86)/calc/build/Calc.dll")" </dev/null 2>&1 || true)
  if grep -q "not built for this delphi-mcp's architecture (x86_64)" <<<"$wrong"; then
    echo "ok   a 32-bit DLL in the 64-bit server is named as such" >&2
  else
    fail "a 32-bit DLL in the 64-bit server: $wrong"
  fi
fi

step "done: $failures failure(s)"
[ "$failures" = 0 ]
