#!/usr/bin/env bash
# `make symbol-order`: writes Sources/pingcli/symbol-order.txt, the functions a cache hit of
# `pingcli token --raw` (and `--version`) executes, as callgrind names them. The release
# link (lld's --symbol-ordering-file) puts their sections together, so the few hundred functions a start
# needs share a few dozen pages instead of being spread over 6 MB of text: the kernel maps 64 KB around
# every page fault of a file, and scattered functions made the peak RSS 7 MB (docs/performance.md).
# A name that is no longer in the binary is skipped by the linker; re-run after large changes.
set -euo pipefail
export LC_ALL=C
bin=${1:?usage: symbol-order.sh BIN_DIR OUTPUT}
output=${2:?usage: symbol-order.sh BIN_DIR OUTPUT}
support=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/pingcli-order.XXXXXX")
trap 'kill "${emulator_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
export HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state" PATH="$support:$PATH"
# The browser double signs in: without a display pingcli runs no launcher unless told which one.
export PINGCLI_BROWSER="$support/xdg-open"
mkdir -p "$HOME"
"$bin/ping-emulator" --port 0 --layout pingone --client-id pingcli-order --ready-file "$work/issuer" >/dev/null 2>&1 &
emulator_pid=$!
for _ in $(seq 1 100); do [ -s "$work/issuer" ] && break; sleep 0.1; done
"$bin/pingcli" login --issuer "$(cat "$work/issuer")" --client-id pingcli-order >/dev/null 2>&1
"$bin/pingcli" token --raw >/dev/null
nm --defined-only "$bin/pingcli" | awk '{ print $3 }' | sort -u >"$work/defined"
: >"$output"
# What `--version` runs first (every command runs it too), then what `token --raw` adds; each part sorted,
# so that the file changes only when the set does. Only pingcli's own functions: the loader's and libc's
# are not linked in. callgrind names each function once as `fn=(id) name`.
for command in "--version" "token --raw"; do
  # shellcheck disable=SC2086
  valgrind --tool=callgrind --demangle=no --dump-instr=no --callgrind-out-file="$work/callgrind.out" "$bin/pingcli" $command >/dev/null 2>&1
  sed -n -E 's/^c?fn=\([0-9]+\) (.*)$/\1/p' "$work/callgrind.out" | sort -u | comm -12 - "$work/defined" >"$work/executed"
  sort "$output" | comm -13 - "$work/executed" >>"$output"
done
echo "$(wc -l <"$output") functions in $output"
