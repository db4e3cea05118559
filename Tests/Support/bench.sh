#!/usr/bin/env bash
# `make bench`: what a script pays per `pingcli token --raw`, in ONE hyperfine run beside the floor for
# this job (a C program that reads the key and a small sealed file, decrypts it with libsodium and
# prints it), `cat` of a small file, oidc-agent's `oidc-token` (a daemon holding the token) and
# `gh auth token`. Prints each median, its ratio to the dynamic C floor, the instructions one run executes
# (callgrind's total Ir, which the machine's load does not move), peak RSS, system calls (strace) and minor
# page faults (GNU time); then `status --all` and `profiles` with 1, 100 and 1,000 profiles, and
# `status --all` and `status --all --json` on 1,000 profiles beside `token --raw`. Everything runs in a
# throw-away HOME against the emulator (PingOne layout).
set -euo pipefail
bin=${1:?usage: bench.sh BIN_DIR [BASE_BIN_DIR]}
# The front (make front-binary), installed beside the full binary as `make install` lays them out:
# bin/pingcli (the front) and libexec/pingcli/pingcli (the full binary), so `pingcli` here is what a user runs.
front=${BENCH_FRONT:?bench.sh needs BENCH_FRONT, the front built by make front-binary}
# Another build's release binaries (make bench BASE=REV): status --all and token --raw of both, one run.
base=${2:-}
# A login session of its own: a new kernel session keyring, so the keyring store's copy of the key is
# found by every pingcli this script starts (as in a desktop or SSH session, which PAM gives one). The
# script's own variables are not named PINGCLI_: the front leaves a command with such a variable it does
# not know to the full binary.
if [ -z "${BENCH_KEYRING_SESSION:-}" ] && command -v keyctl >/dev/null; then
  BENCH_KEYRING_SESSION=1 exec keyctl session - bash "$0" "$@"
fi
support=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/pingcli-bench.XXXXXX")
emulator_pid=""
cleanup() {
  [ -n "$emulator_pid" ] && kill "$emulator_pid" 2>/dev/null || true
  [ -n "${oidc_emulator:-}" ] && kill "$oidc_emulator" 2>/dev/null || true
  [ -n "${OIDCD_PID:-}" ] && kill "$OIDCD_PID" 2>/dev/null || true
  [ -n "${keyring_pid:-}" ] && kill -9 "$keyring_pid" 2>/dev/null || true
  [ -n "${bus_pid:-}" ] && kill "$bus_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state" PATH="$support:$PATH"
# The browser double signs in: without a display pingcli runs no launcher unless told which one.
export PINGCLI_BROWSER="$support/xdg-open"
mkdir -p "$HOME" "$work/installed/bin" "$work/installed/libexec/pingcli"
cp "$front" "$work/installed/bin/pingcli"
ln -s "$bin/pingcli" "$work/installed/libexec/pingcli/pingcli"
pingcli="$work/installed/bin/pingcli"
# The full binary alone, as before the front: its cache hit is the denominator of the status goal too.
full="$bin/pingcli"

# The emulator, with a confidential client for oidc-agent beside pingcli's public one.
"$bin/ping-emulator" --port 0 --layout pingone --client-id pingcli-bench --ready-file "$work/issuer" >/dev/null 2>&1 &
emulator_pid=$!
for _ in $(seq 1 100); do [ -s "$work/issuer" ] && break; sleep 0.1; done
issuer=$(cat "$work/issuer")
"$pingcli" login --issuer "$issuer" --client-id pingcli-bench 2>/dev/null

# The keyring store in a second home: gnome-keyring-daemon on a private session bus, unlocked; the login
# leaves the key in this session's kernel keyring, which is what `token --raw` then reads.
keyring=""
if command -v gnome-keyring-daemon >/dev/null && command -v dbus-daemon >/dev/null; then
  kwork="$work/keyring"
  mkdir -p "$kwork/run" && chmod 700 "$kwork/run"
  printf '<busconfig><type>session</type><listen>unix:path=%s/run/bus</listen><auth>EXTERNAL</auth><policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>\n' "$kwork" >"$kwork/bus.conf"
  dbus-daemon --config-file="$kwork/bus.conf" --nofork >/dev/null 2>&1 &
  bus_pid=$!
  for _ in $(seq 1 100); do [ -S "$kwork/run/bus" ] && break; sleep 0.1; done
  keyring_env="DBUS_SESSION_BUS_ADDRESS=unix:path=$kwork/run/bus XDG_RUNTIME_DIR=$kwork/run XDG_DATA_HOME=$kwork/data XDG_CONFIG_HOME=$kwork/config XDG_STATE_HOME=$kwork/state"
  # shellcheck disable=SC2086
  printf bench | env $keyring_env gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
  keyring_pid=$!
  for _ in $(seq 1 100); do
    # shellcheck disable=SC2086
    owner=$(env $keyring_env dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.NameHasOwner \
      string:org.freedesktop.secrets 2>/dev/null || true)
    case "$owner" in *"boolean true"*) break ;; esac
    sleep 0.1
  done
  # shellcheck disable=SC2086
  if env $keyring_env PINGCLI_KEY_STORE=keyring "$pingcli" login --issuer "$issuer" --client-id pingcli-bench >/dev/null 2>&1 \
    && env $keyring_env "$pingcli" token --raw >/dev/null 2>&1 && grep -c "pingcli:cache-key:" /proc/keys >/dev/null; then
    keyring="env XDG_CONFIG_HOME=$kwork/config XDG_DATA_HOME=$kwork/data XDG_STATE_HOME=$kwork/state $pingcli token --raw"
  else
    echo "bench: the keyring store could not be set up (or its key is not in the kernel keyring); left out" >&2
  fi
else
  echo "bench: gnome-keyring or dbus is not installed; the keyring store is left out" >&2
fi

# The C floor, static and dynamic, decrypting a file the size of a token set.
clang -O2 -o "$work/floor-dynamic" "$support/bench/floor.c" -lsodium
clang -O2 -static -o "$work/floor-static" "$support/bench/floor.c" -lsodium
# The floor of status --all from the index: the four fstatat calls a profile's line needs, and no more.
clang -O2 -o "$work/status-floor" "$support/bench/status-floor.c"
head -c 32 /dev/urandom >"$work/floor.key"
"$pingcli" token --raw | head -c 1200 >"$work/floor.plain"
"$work/floor-dynamic" seal "$work/floor.key" "$work/floor.plain" "$work/floor.sealed"
printf 'a small file\n' >"$work/small"
# The same floor in Embedded Swift (no runtime metadata), dynamic and static-PIE, when the toolchain has
# the Embedded standard library for this machine (docs/performance.md, issue 46).
embedded=()
embedded_names=()
embedded_source="$support/bench/floor-embedded"
for kind in dynamic static-pie; do
  link=()
  [ "$kind" = static-pie ] && link=(-use-ld=lld -Xclang-linker -static-pie)
  if swiftc -target x86_64-unknown-linux-gnu -enable-experimental-feature Embedded -wmo -Osize -parse-as-library \
    -I "$embedded_source" "$embedded_source/floor.swift" -o "$work/floor-embedded-$kind" "${link[@]}" \
    -Xlinker "$(pkg-config --variable=libdir libsodium)/libsodium.a" >/dev/null 2>&1 \
    && [ "$("$work/floor-embedded-$kind" "$work/floor.key" "$work/floor.sealed")" = "$(cat "$work/floor.plain")" ]; then
    embedded+=("$work/floor-embedded-$kind $work/floor.key $work/floor.sealed")
    embedded_names+=("floor, Embedded Swift, $kind")
  else
    echo "bench: the Embedded Swift floor ($kind) did not build or run here; left out" >&2
  fi
done

# oidc-agent: an account made from a refresh token the emulator issued (code flow by hand, PKCE S256).
oidc=""
if command -v oidc-agent >/dev/null && command -v oidc-gen >/dev/null; then
  "$bin/ping-emulator" --port 0 --client-id oidc-bench --client-secret bench-secret --ready-file "$work/oidc-issuer" >/dev/null 2>&1 &
  oidc_emulator=$!
  for _ in $(seq 1 100); do [ -s "$work/oidc-issuer" ] && break; sleep 0.1; done
  oidc_issuer=$(cat "$work/oidc-issuer")
  verifier=$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
  challenge=$(printf %s "$verifier" | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '=')
  location=$(curl -s -o /dev/null -w '%{redirect_url}' \
    "$oidc_issuer/authorize?response_type=code&client_id=oidc-bench&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcallback&scope=openid%20offline_access&state=s&code_challenge=$challenge&code_challenge_method=S256")
  code=$(printf %s "$location" | sed -n 's/.*[?&]code=\([^&]*\).*/\1/p')
  refresh=$(curl -s -u oidc-bench:bench-secret -d grant_type=authorization_code -d "code=$code" -d "code_verifier=$verifier" \
    --data-urlencode "redirect_uri=http://127.0.0.1:9/callback" "$oidc_issuer/token" | sed -n 's/.*"refresh_token":"\([^"]*\)".*/\1/p')
  eval "$(oidc-agent 2>/dev/null)" >/dev/null
  export OIDC_ENCRYPTION_PW=bench
  if oidc-gen bench -m --iss="$oidc_issuer" --client-id=oidc-bench --client-secret=bench-secret \
    --redirect-uri=http://localhost:4242 --scope="openid offline_access" --rt="$refresh" --pw-env --prompt=none \
    --confirm-default >/dev/null 2>&1 && oidc-token bench >/dev/null 2>&1; then
    oidc="oidc-token bench"
  else
    echo "bench: oidc-agent could not load an account; oidc-token is left out" >&2
  fi
else
  echo "bench: oidc-agent is not installed; oidc-token is left out" >&2
fi

# gh reading a hosts.yml with a token.
gh=""
if command -v gh >/dev/null; then
  export GH_CONFIG_DIR="$work/gh"
  mkdir -p "$GH_CONFIG_DIR"
  printf 'github.com:\n    oauth_token: gho_bench0000000000000000000000000000\n    user: bench\n    git_protocol: https\n' >"$GH_CONFIG_DIR/hosts.yml"
  gh auth token >/dev/null 2>&1 && gh="gh auth token" || echo "bench: gh auth token failed; left out" >&2
fi

commands=(
  "cat $work/small"
  "$work/floor-static $work/floor.key $work/floor.sealed"
  "$work/floor-dynamic $work/floor.key $work/floor.sealed"
  "$pingcli --version"
  "$pingcli token --raw"
  "$full token --raw"
)
names=("cat (small file)" "C floor, static" "C floor, dynamic" "pingcli --version (front, full)" "pingcli token --raw"
  "token --raw, full binary alone")
commands+=("${embedded[@]}")
names+=("${embedded_names[@]}")
if "$pingcli" token --help 2>/dev/null | grep -q -- "--format"; then
  commands+=("$pingcli token --format json")
  names+=("pingcli token --format json")
fi
# The file and keyring stores paired: both through env(1), so both pay the same extra exec.
if [ -n "$keyring" ]; then
  commands+=("env XDG_CONFIG_HOME=$XDG_CONFIG_HOME XDG_DATA_HOME=$XDG_DATA_HOME XDG_STATE_HOME=$XDG_STATE_HOME $pingcli token --raw" "$keyring")
  names+=("token --raw, file store (env)" "token --raw, keyring store (env)")
fi
[ -n "$oidc" ] && commands+=("$oidc") && names+=("oidc-token (oidc-agent, daemon)")
[ -n "$gh" ] && commands+=("$gh") && names+=("gh auth token")

echo "== one hyperfine run ($(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg))"
hyperfine -N --warmup 30 --runs 500 --export-csv "$work/times.csv" "${commands[@]}" >/dev/null 2>&1

# Peak RSS: the largest of 20 runs, from GNU time; and the median of their minor page faults (in
# $work/faults, read by faults()).
rss() {
  local max=0 value
  : >"$work/faults"
  for _ in $(seq 1 20); do
    /usr/bin/time -f '%M %R' -o "$work/rss" $1 >/dev/null 2>&1 || true
    value=$(tail -n 1 "$work/rss" | cut -d' ' -f1)
    tail -n 1 "$work/rss" | cut -d' ' -f2 >>"$work/faults"
    [ "$value" -gt "$max" ] && max=$value
  done
  echo "$max"
}
faults() { sort -n "$work/faults" | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }
# System calls of one run (strace -f -c's total), threads included; "-" without strace.
syscalls() {
  case "$1" in gh\ * | env\ *) echo "-"; return ;; esac
  if ! command -v strace >/dev/null; then echo "-"; return; fi
  # shellcheck disable=SC2086
  strace -f -c -o "$work/strace" $1 >/dev/null 2>&1 || { echo "-"; return; }
  awk '$NF == "total" { print ($4 ~ /^[0-9]+$/) ? $4 : $3 }' "$work/strace"
}
# Instructions of one run: callgrind's total Ir (the loader, the runtime's start and the command itself),
# summed over the programs it runs (the front and, when it falls through, the full binary it executes).
# Left out ("-"): gh (a Go program, minutes under valgrind) and the rows through env(1) (a second exec).
instructions() {
  case "$1" in gh\ * | env\ *) echo "-"; return ;; esac
  if ! command -v valgrind >/dev/null; then echo "-"; return; fi
  rm -f "$work"/callgrind.out.*
  # shellcheck disable=SC2086
  valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$work/callgrind.out.%p" $1 >/dev/null 2>&1 || { echo "-"; return; }
  awk '/^(summary|totals):/ { total += $2; nextfile } END { print total }' "$work"/callgrind.out.*
}
# hyperfine's CSV: command,mean,stddev,median,user,system,min,max (seconds); row 4 is the dynamic floor.
floor=$(awk -F, 'NR==4 { print $4 }' "$work/times.csv")
floor_ir=$(instructions "${commands[2]}")
printf '%-34s %10s %8s %14s %8s %10s %9s %7s\n' "command" "median" "x floor" "instructions" "x floor" "peak RSS" "syscalls" "faults"
for index in "${!commands[@]}"; do
  median=$(awk -F, -v row=$((index + 2)) 'NR==row { print $4 }' "$work/times.csv")
  peak=$(rss "${commands[$index]}")
  awk -v name="${names[$index]}" -v median="$median" -v floor="$floor" -v rss="$peak" \
    -v ir="$(instructions "${commands[$index]}")" -v floor_ir="$floor_ir" -v calls="$(syscalls "${commands[$index]}")" -v faults="$(faults)" \
    'BEGIN { printf "%-34s %8.2f ms %7.2fx %14s %7s %7.1f MB %9s %7s\n", name, median * 1000, median / floor,
      ir == "-" ? "-" : sprintf("%.3f M", ir / 1e6), ir == "-" || floor_ir == "-" ? "-" : sprintf("%.2fx", ir / floor_ir), rss / 1024,
      calls, faults }'
done
# How the release binary was linked: packed relative relocations (DT_RELR) and the symbols it exports.
if command -v readelf >/dev/null; then
  relr=$(readelf -d "$full" | awk '/\(RELRSZ\)/ { print "DT_RELR, " $3 " bytes" }')
  exported=$(readelf -W --dyn-syms "$full" | awk '$1 ~ /^[0-9]+:$/ && $7 != "UND"' | wc -l)
  echo "pingcli full binary: ${relr:-no DT_RELR}; $exported dynamic symbols defined; the front: $(file -b "$front" | cut -d, -f1-2,4)"
fi
if [ -n "$keyring" ]; then
  for index in "${!names[@]}"; do
    [ "${names[$index]}" = "token --raw, file store (env)" ] && file_row=$((index + 2))
    [ "${names[$index]}" = "token --raw, keyring store (env)" ] && keyring_row=$((index + 2))
  done
  awk -F, -v f="$file_row" -v k="$keyring_row" 'NR==f { file=$4 } NR==k { key=$4 }
    END { ratio = key / file; printf "keyring store / file store (medians): %.3f (must stay under 1.10): %s\n", ratio, ratio < 1.10 ? "ok" : "TOO SLOW" }' "$work/times.csv"
fi

echo "load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "== status --all and profiles with 1, 100 and 1,000 profiles"
for count in 1 100 1000; do
  have=$(ls "$XDG_CONFIG_HOME/pingcli/profiles" | wc -l)
  seq "$have" $((count - 1)) | xargs -P 4 -I{} "$pingcli" login --issuer "$issuer" --client-id pingcli-bench --profile "p{}" >/dev/null 2>&1 || true
  # The status index enters only files changed three seconds or more before (docs/security.md): the
  # first table after they settle reads the summaries and writes the index; it is timed on its own.
  sleep 3.5
  started=$(date +%s%N)
  "$pingcli" status --all >/dev/null 2>&1 || true
  first=$(( ($(date +%s%N) - started) / 1000 ))
  hyperfine -N -i --warmup 3 --runs 20 --export-csv "$work/profiles.csv" "$pingcli status --all" "$pingcli profiles" >/dev/null 2>&1 || true
  status=$(awk -F, 'NR==2 { print $4 * 1000 }' "$work/profiles.csv")
  profiles=$(awk -F, 'NR==3 { print $4 * 1000 }' "$work/profiles.csv")
  printf '%5d profiles: status --all %8.1f ms   profiles %8.1f ms   (the first status --all after the logins, writing the index: %.1f ms)\n' \
    "$(ls "$XDG_CONFIG_HOME/pingcli/profiles" | wc -l)" "$status" "$profiles" "$(awk -v us="$first" 'BEGIN { print us / 1000 }')"
done

# The issue-31 goal: status --all on 1,000 profiles in at most 20 times one token --raw (a cache hit),
# both measured in this run, for this build and (BASE) the one it is compared with; issue 46's: the
# same for status --all --json.
echo
echo "== status --all (1,000 profiles) beside token --raw (cache hit), one hyperfine run$([ -n "$base" ] && echo ", this build and BASE (${BENCH_BASE_NAME:-$base})")"
# status --all --json too (issue 46): the same goal. Run once first, so its index holds the details.
"$pingcli" status --all --json >/dev/null 2>&1 || true
ratio_commands=("$full token --raw" "$pingcli status --all" "$pingcli status --all --json" "$pingcli token --raw"
  "$work/status-floor $XDG_CONFIG_HOME/pingcli/profiles $XDG_DATA_HOME/pingcli/generations")
ratio_names=("this build: token --raw" "this build: status --all" "this build: status --all --json" "this build: token --raw, front"
  "C: the index's fstatat calls alone")
if [ -n "$base" ]; then
  "$base/pingcli" status --all --json >/dev/null 2>&1 || true
  ratio_commands+=("$base/pingcli token --raw" "$base/pingcli status --all" "$base/pingcli status --all --json")
  ratio_names+=("BASE: token --raw" "BASE: status --all" "BASE: status --all --json")
fi
hyperfine -N -i --warmup 5 --runs 40 --export-csv "$work/ratio.csv" "${ratio_commands[@]}" >/dev/null 2>&1
printf '%-34s %10s %14s\n' "command" "median" "instructions"
declare -a ratio_ms ratio_ir
for index in "${!ratio_commands[@]}"; do
  ratio_ms[index]=$(awk -F, -v row=$((index + 2)) 'NR==row { print $4 * 1000 }' "$work/ratio.csv")
  # Both builds share this HOME, and each writes the status index in its own format: one run first, so the
  # count is of a run that finds its own index (as every hyperfine run after the first warm-up did).
  # shellcheck disable=SC2086
  ${ratio_commands[$index]} >/dev/null 2>&1 || true
  ratio_ir[index]=$(instructions "${ratio_commands[$index]}")
  awk -v name="${ratio_names[$index]}" -v ms="${ratio_ms[$index]}" -v ir="${ratio_ir[$index]}" \
    'BEGIN { printf "%-34s %7.2f ms %14s\n", name, ms, ir == "-" ? "-" : sprintf("%.3f M", ir / 1e6) }'
done
# The goal against the same binary's cache hit (issue 31's table: the full binary reads for both), and
# the same two tables beside the front's cache hit, which answers without the Swift runtime.
ratio() {
  local first=$1 other=$2 label=$3
  awk -v name="${ratio_names[$other]}" -v t="${ratio_ms[first]}" -v s="${ratio_ms[other]}" -v label="$label" \
    -v ti="${ratio_ir[first]}" -v si="${ratio_ir[other]}" 'BEGIN { split(name, part, ": ")
      printf "%s: %s / %s = %.1fx wall time, %s instructions (goal: at most 20x): %s\n", part[1], part[2], label, s / t,
        ti == "-" || si == "-" ? "-" : sprintf("%.1fx", si / ti), s / t <= 20 ? "met" : "NOT MET" }'
}
ratio 0 1 "token --raw (full binary)"
ratio 0 2 "token --raw (full binary)"
ratio 3 1 "token --raw (front)"
ratio 3 2 "token --raw (front)"
# What no program that checks every file as the index does can go below on this machine: the system calls.
awk -v f="${ratio_ms[4]}" -v t="${ratio_ms[3]}" -v s="${ratio_ms[1]}" -v j="${ratio_ms[2]}" 'BEGIN {
  printf "the index'"'"'s 4,000 fstatat calls alone (C, one thread): %.2f ms = %.1fx token --raw (front); status --all %.1f ms above them, --json %.1f ms\n",
    f, f / t, s - f, j - f }'
if [ -n "$base" ]; then
  ratio 5 6 "token --raw"
  ratio 5 7 "token --raw"
fi
echo "load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
