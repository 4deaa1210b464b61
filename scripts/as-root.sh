# Sourced by the install scripts: `as_root CMD...` runs CMD as root, directly or through sudo.
# The caller sets `script_name` for the error message.
as_root() {
  if [ "$(id -u)" = 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    echo "${script_name:-install}: installing packages needs root; run as root or install sudo" >&2
    exit 1
  fi
}
