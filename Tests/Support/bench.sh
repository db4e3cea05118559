#!/usr/bin/env bash
# `make bench`: what a script pays per `pingcli token --raw` (read, decrypt, print), measured with
# hyperfine against a logged-in profile in a throw-away HOME. Compare with the process start-up floor.
set -euo pipefail
bin=${1:?usage: bench.sh BIN_DIR}
support=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/pingcli-bench.XXXXXX")
emulator_pid=""
cleanup() { [ -n "$emulator_pid" ] && kill "$emulator_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
export HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" PATH="$support:$PATH"
mkdir -p "$HOME"
"$bin/ping-emulator" --port 0 --client-id pingcli-bench --ready-file "$work/issuer" >/dev/null 2>&1 &
emulator_pid=$!
for _ in $(seq 1 100); do [ -s "$work/issuer" ] && break; sleep 0.1; done
"$bin/pingcli" login --issuer "$(cat "$work/issuer")" --client-id pingcli-bench 2>/dev/null
hyperfine -N --warmup 20 --runs 300 \
  "$bin/pingcli --version" \
  "$bin/pingcli token --raw" \
  "$bin/pingcli token --format summary" \
  "$bin/pingcli token --format json"
