#!/usr/bin/env bash
# Installs Free Pascal 3.2.2, the compiler that builds the Delphi-style libraries delphi-mcp
# serves (`delphi-mcp build`, `serve DIR`, the tests). On Debian and Ubuntu it installs the
# distribution's packages, as root or through sudo; elsewhere it says what to install.
# Safe to run again: nothing is installed when `fpc` is already on PATH.
set -euo pipefail

# gcc and libc6-dev: the C start-up files and libraries fpc links a shared library against
# (crti.o, crtbeginS.o, libc); the fpc packages do not pull them in. Rust's linker needs them too.
# fp-units-fcl/base: fpjson, which JSON handlers (examples/values) use.
packages=(fp-compiler-3.2.2 fp-units-rtl-3.2.2 fp-units-fcl-3.2.2 fp-units-base-3.2.2 gcc libc6-dev)

script_name=install-fpc
# shellcheck source=scripts/as-root.sh
source "$(dirname "${BASH_SOURCE[0]}")/as-root.sh"

if ! command -v fpc >/dev/null 2>&1; then
  if ! command -v apt-get >/dev/null 2>&1; then
    cat >&2 <<'EOF'
install-fpc: Free Pascal (`fpc`) is not on PATH, and this is not a Debian or Ubuntu system.
Install Free Pascal 3.2.2 (the compiler and its RTL units) and make sure `fpc` is on PATH:
  macOS (Homebrew):  brew install fpc
  Fedora:            sudo dnf install fpc
  Arch Linux:        sudo pacman -S fpc
  other systems:     https://www.freepascal.org/download.html
On Windows, Delphi can build the libraries instead (command lines in docs/abi.md).
EOF
    exit 1
  fi
  echo "install-fpc: installing Free Pascal 3.2.2 (apt-get install ${packages[*]})" >&2
  as_root apt-get update -qq
  if ! apt-cache show "${packages[0]}" >/dev/null 2>&1; then
    cat >&2 <<EOF
install-fpc: this release of Debian/Ubuntu has no ${packages[0]} package
(Debian 12 and Ubuntu 22.04 or newer have it). Install Free Pascal 3.2.2 from
https://www.freepascal.org/download.html and make sure \`fpc\` is on PATH.
EOF
    exit 1
  fi
  # env: sudo does not pass the caller's environment on.
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${packages[@]}" >/dev/null
fi

# A Free Pascal installed from Debian's packages before fpjson was needed: add the unit packages
# it lacks (a Free Pascal from elsewhere brings its own units and is left alone).
if command -v dpkg-query >/dev/null 2>&1 &&
  dpkg-query -W -f='${Status}' "${packages[0]}" 2>/dev/null | grep -q "ok installed"; then
  missing=()
  for package in fp-units-fcl-3.2.2 fp-units-base-3.2.2; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" ||
      missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "install-fpc: installing ${missing[*]} (fpjson, for JSON handlers)" >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >/dev/null
  fi
fi

version=$(fpc -iV)
echo "fpc $version" >&2
if [ "$version" != 3.2.2 ]; then
  echo "install-fpc: note: delphi-mcp is tested with Free Pascal 3.2.2" >&2
fi
