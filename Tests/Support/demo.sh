#!/usr/bin/env bash
# `make demo`: the whole pingcli lifecycle against its own PingOne-shaped emulator, in a throw-away HOME,
# so your real ~/.config is never touched. With a display and a browser it opens the real sign-in page
# (user demo, password demo); without one, a browser double follows the sign-in as a browser would. Last, a
# PingAM journey walked in the terminal, no browser at all.
set -euo pipefail
bin=${1:?usage: demo.sh BIN_DIR}
support=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/pingcli-demo.XXXXXX")
emulator_pid=""
emulator_pids=""
cleanup() {
  [ -n "$emulator_pid" ] && kill "$emulator_pid" 2>/dev/null || true
  for pid in $emulator_pids; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

export HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state"
mkdir -p "$HOME"
if [ -t 1 ]; then bold=$'\033[1m'; plain=$'\033[0m'; else bold=""; plain=""; fi
step=0
step() { step=$((step + 1)); printf '\n%s[%d] %s%s\n' "$bold" "$step" "$*" "$plain"; }
show() { printf '$ %s\n' "$*"; "$@"; }
pingcli() { "$bin/pingcli" "$@"; }
# What an emulator logged since the last call (method, path, status; never a token): saw LOG COUNTER.
seen=0
am_seen=0
saw() {
  local total
  total=$(grep -cE '^(GET|POST|PUT|DELETE) ' "$1" || true)
  grep -E '^(GET|POST|PUT|DELETE) ' "$1" | tail -n +$((${!2} + 1)) | grep -v '/__emulator/' | sed 's/^/  emulator saw: /' || true
  printf -v "$2" '%s' "$total"
}
emulator_saw() { saw "$work/emulator.log" seen; }

step "Start the PingOne emulator on a loopback port"
"$bin/ping-emulator" --port 0 --sign-in form --client-id pingcli-demo --ready-file "$work/issuer" \
  >"$work/emulator.out" 2>"$work/emulator.log" &
emulator_pid=$!
for _ in $(seq 1 100); do [ -s "$work/issuer" ] && break; sleep 0.1; done
[ -s "$work/issuer" ] || { echo "the emulator did not start:"; cat "$work/emulator.log"; exit 1; }
issuer=$(cat "$work/issuer")
base=$(printf '%s' "$issuer" | sed -E 's#^(http://[^/]+).*#\1#')
echo "issuer: $issuer"

if [ -z "${CI:-}" ] && [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && command -v xdg-open >/dev/null; then
  echo "your browser will open: sign in as user 'demo' with password 'demo'"
else
  echo "no display here: a browser double (curl) will fill in the sign-in form as 'demo'"
  export PATH="$support:$PATH"
  # Named explicitly too: in an SSH session without a display pingcli would otherwise not open a browser.
  export PINGCLI_BROWSER="$support/xdg-open"
fi

step "Sign in (discovery, loopback redirect, PKCE S256, state, nonce, iss)"
show pingcli login --issuer "$issuer" --client-id pingcli-demo --scope "openid profile email revoke"
emulator_saw

step "What is cached (never a token)"
show pingcli status

step "An access token for scripts"
show pingcli token --raw
emulator_saw

step "Who am I (the UserInfo endpoint)"
show pingcli userinfo

step "Force an expiry: the emulator stops accepting the access token"
show curl -sS -X POST "$base/__emulator/expire-access-tokens"
echo
echo "userinfo now gets a 401, refreshes once with the (rotating) refresh token, and retries:"
show pingcli userinfo --raw
emulator_saw

step "Log out and revoke both tokens at the server (RFC 7009)"
show pingcli logout --revoke
emulator_saw

step "The emulator confirms by introspection that both tokens are dead"
show curl -sS "$base/__emulator/latest-tokens"
echo

step "Without a session, token exits 4 (login required)"
set +e
pingcli token --raw
status=$?
set -e
echo "exit status: $status"
[ "$status" = 4 ] || { echo "expected exit 4"; exit 1; }

step "A PingAM journey in the terminal: the emulator's PingAM personality (Advanced Identity Cloud's random cookie name)"
"$bin/ping-emulator" --layout pingam --cookie-name random --port 0 --client-id pingcli-demo --ready-file "$work/am-issuer" \
  >"$work/am.out" 2>"$work/am.log" &
am_pid=$!
emulator_pids="$emulator_pid $am_pid"
for _ in $(seq 1 100); do [ -s "$work/am-issuer" ] && break; sleep 0.1; done
[ -s "$work/am-issuer" ] || { echo "the PingAM emulator did not start:"; cat "$work/am.log"; exit 1; }
am_issuer=$(cat "$work/am-issuer")
echo "issuer: $am_issuer"
echo "the tree's answers come from a file of mode 0600 here; on a terminal pingcli asks (the password without echo):"
umask 077
printf 'User Name=demo\nPassword=demo\n' >"$work/answers"
show pingcli login --profile am --issuer "$am_issuer" --client-id pingcli-demo --journey Login --answers "$work/answers"
saw "$work/am.log" am_seen
show pingcli token --raw --profile am
echo "logout ends the AM session at AM (sessions?_action=logout) before removing the cache:"
show pingcli logout --profile am --revoke
saw "$work/am.log" am_seen

step "Done: the emulators are stopped and the throw-away HOME removed"
