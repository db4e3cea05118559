#!/usr/bin/env bash
# `make bench-refresh`: N parallel `pingcli token --raw` that all need a refresh (the cached access
# token is valid for 20 s more, inside the 30 s threshold), against the emulator in four modes:
# healthy, slow (0.3 s), 503 every time (0.3 s each), and a token endpoint that never answers.
# Prints per mode and N: refresh requests the server received, callers that got a token, failures,
# callers that printed a warning, and wall time.
set -euo pipefail
bin=${1:?usage: bench-refresh.sh BIN_DIR [CALLERS...]}
shift
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(50 200)
work=$(mktemp -d "${TMPDIR:-/tmp}/pingcli-bench-refresh.XXXXXX")
emulator_pid=""
cleanup() { [ -n "$emulator_pid" ] && kill "$emulator_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
"$bin/ping-emulator" --port 0 --client-id pingcli-bench --ready-file "$work/issuer" >/dev/null 2>&1 &
emulator_pid=$!
for _ in $(seq 1 100); do [ -s "$work/issuer" ] && break; sleep 0.1; done
issuer=$(cat "$work/issuer")
base=$(printf '%s' "$issuer" | sed -E 's#^(https?://[^/]+).*#\1#')
control() { curl -sS -X "$1" "$base/__emulator/$2" ${3:+-H 'Content-Type: application/json' --data "$3"}; }

declare -A faults=(
  [healthy]='{}'
  [slow]='{"delays":{"token":0.3}}'
  [503]='{"delays":{"token":0.3},"responseOverrides":{"token":{"status":503,"contentType":"text/html","body":"<h1>down</h1>"}}}'
  [hanging]='{"delays":{"token":120}}'
)

printf '%-8s %7s %16s %10s %9s %9s %8s\n' mode callers refresh-requests got-token failures warnings wall-s
for mode in healthy slow 503 hanging; do
  for callers in "${counts[@]}"; do
    home="$work/$mode-$callers"
    mkdir -p "$home/home" "$home/out"
    export HOME="$home/home" XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" XDG_STATE_HOME="$home/state"
    control PUT faults '{}' >/dev/null
    control PUT settings '{"accessTokenLifetime":20}' >/dev/null
    PATH="$(dirname "$0"):$PATH" PINGCLI_BROWSER="$(dirname "$0")/xdg-open" "$bin/pingcli" login --issuer "$issuer" --client-id pingcli-bench 2>/dev/null
    control PUT settings '{"accessTokenLifetime":3600}' >/dev/null
    control DELETE requests >/dev/null
    control PUT faults "${faults[$mode]}" >/dev/null
    start=$(date +%s.%N)
    pids=()
    for i in $(seq 1 "$callers"); do
      ( "$bin/pingcli" token --raw >"$home/out/$i.out" 2>"$home/out/$i.err"; echo $? >"$home/out/$i.status" ) &
      pids+=($!)
    done
    wait "${pids[@]}"  # the callers only, not the emulator
    end=$(date +%s.%N)
    refreshes=$(control GET arrivals | grep -o '"token":[0-9]*' | cut -d: -f2)
    got=0 failed=0 warned=0
    for i in $(seq 1 "$callers"); do
      if [ "$(cat "$home/out/$i.status")" = 0 ] && [ -s "$home/out/$i.out" ]; then got=$((got + 1)); else failed=$((failed + 1)); fi
      grep -q '^pingcli: warning:' "$home/out/$i.err" && warned=$((warned + 1))
    done
    printf '%-8s %7s %16s %10s %9s %9s %8.2f\n' "$mode" "$callers" "${refreshes:-0}" "$got" "$failed" "$warned" \
      "$(awk "BEGIN { print $end - $start }")"
  done
done
control PUT faults '{}' >/dev/null
