#!/usr/bin/env bash
# `make demo`: the login lifecycle against pingcli's own PingOne-shaped emulator, in a throw-away HOME,
# so your real ~/.config is never touched. With a display and a browser it opens the real sign-in
# page (user demo, password demo); without one it follows the sign-in as a browser would.
set -euo pipefail
bin=${1:?usage: demo.sh BIN_DIR}
support=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/pingcli-demo.XXXXXX")
emulator_pid=""
cleanup() {
  [ -n "$emulator_pid" ] && kill "$emulator_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

export HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data"
mkdir -p "$HOME"
if [ -t 1 ]; then bold=$'\033[1m'; plain=$'\033[0m'; else bold=""; plain=""; fi
step() { printf '\n%s==> %s%s\n' "$bold" "$*" "$plain"; }
show() { printf '%s$ %s%s\n' "$bold" "$*" "$plain"; "$@"; }

step "Starting the PingOne emulator on a loopback port"
"$bin/ping-emulator" --port 0 --sign-in form --client-id pingcli-demo --ready-file "$work/issuer" \
  >"$work/emulator.out" 2>"$work/emulator.log" &
emulator_pid=$!
for _ in $(seq 1 100); do [ -s "$work/issuer" ] && break; sleep 0.1; done
[ -s "$work/issuer" ] || { echo "the emulator did not start:"; cat "$work/emulator.log"; exit 1; }
issuer=$(cat "$work/issuer")
echo "issuer: $issuer"

if [ -z "${CI:-}" ] && [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && command -v xdg-open >/dev/null; then
  step "Your browser will open: sign in as user 'demo' with password 'demo'"
else
  step "No display here: a headless browser double (curl) signs in as 'demo' for you"
  export PATH="$support:$PATH"
fi

step "Sign in"
show "$bin/pingcli" login --issuer "$issuer" --client-id pingcli-demo

step "The cached session (no secrets)"
show "$bin/pingcli" token

step "An access token for scripts"
show "$bin/pingcli" token --raw

step "What the emulator saw"
grep -E '^(GET|POST)' "$work/emulator.log" | sed 's/^/  /' || true

step "Done: the throw-away HOME is removed"
