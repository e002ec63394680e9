#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CLI target: `blockbloom build` and `blockbloom query -c` over a key file (default
# data/npm-names.txt) against bench/cli-reference, the same work done with one library batch
# call after reading the whole file. Compares CPU time (user + sys, medians of REPS runs,
# interleaved), not wall time: on a shared VM wall time mostly measures the other tenants,
# and `build`'s fsync before its atomic rename is disk time, not the key reader's work.
#   scripts/bench-cli.sh [BUILD_DIR] [KEY_FILE] [REPS]      (defaults: build, data/npm-names.txt, 5)
# Prints one line per command: median CPU ms of the CLI, of the reference, and their ratio
# (target: <= 1.3).
#   scripts/bench-cli.sh --jobs N [BUILD_DIR] [KEY_FILE] [REPS] [BUILD_OPTIONS...]
# times `build -n <keys>` (streamed, into a file in /dev/shm so that fsync is no disk time) and
# `query -c` with -j 1 and -j N instead, interleaved, and prints per command the median wall
# and CPU ms of each, the spread (min-max) of the wall times and the -jN / -j1 wall ratio.
# Wall time is the quantity there (the point of -j); run it on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${1:-} == --jobs ]]; then
  jobs=$2
  shift 2
  build=${1:-build}
  keys=${2:-data/npm-names.txt}
  reps=${3:-5}
  shift $(($# < 3 ? $# : 3))
  cli=$build/blockbloom
  [[ -x $cli ]] || { echo "bench-cli: $cli not built" >&2; exit 1; }
  [[ -r $keys ]] || { echo "bench-cli: cannot read $keys" >&2; exit 1; }
  n=$(wc -l <"$keys")
  tmp=$(mktemp -d /dev/shm/bench-cli.XXXXXX)
  trap 'rm -rf "$tmp"' EXIT
  cat "$keys" >/dev/null
  "$cli" build -n "$n" "$@" -o "$tmp/f.bb" "$keys" 2>/dev/null
  # "wall_ms cpu_ms" of running "$@" with its output discarded.
  timed() {
    local t0 t1 c0 c1
    c0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
    t0=$EPOCHREALTIME
    "$@" >/dev/null 2>&1
    t1=$EPOCHREALTIME
    c1=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
    awk -v a="$t0" -v b="$t1" -v c=$(((c1 - c0) * 1000 / $(getconf CLK_TCK))) \
      'BEGIN {printf "%.1f %d\n", (b - a) * 1000, c}'
  }
  for ((i = 0; i < reps; i++)); do
    for j in 1 "$jobs"; do
      timed "$cli" build -n "$n" "$@" -j "$j" -o "$tmp/g.bb" "$keys" >>"$tmp/build.$j"
      timed "$cli" query -c -j "$j" "$tmp/f.bb" "$keys" >>"$tmp/query.$j"
    done
  done
  col() { awk -v c="$1" '{print $c}' "$2" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)], v[1], v[NR]}'; }
  for c in build query; do
    read -r w1 lo1 hi1 < <(col 1 "$tmp/$c.1")
    read -r wn lon hin < <(col 1 "$tmp/$c.$jobs")
    read -r c1 _ _ < <(col 2 "$tmp/$c.1")
    read -r cn _ _ < <(col 2 "$tmp/$c.$jobs")
    awk -v c="$c" -v j="$jobs" -v w1="$w1" -v wn="$wn" -v c1="$c1" -v cn="$cn" -v r1="$lo1-$hi1" \
      -v rn="$lon-$hin" 'BEGIN {printf "%-6s -j1 wall %7.1f ms (%s) cpu %6d ms  -j%s wall %7.1f ms (%s) cpu %6d ms  wall ratio -j%s/-j1 %.2f\n", c, w1, r1, c1, j, wn, rn, cn, j, wn / w1}'
  done
  exit 0
fi
build=${1:-build}
keys=${2:-data/npm-names.txt}
reps=${3:-5}
cli=$build/blockbloom
ref=$build/bench/cli-reference
for f in "$cli" "$ref"; do [[ -x $f ]] || { echo "bench-cli: $f not built" >&2; exit 1; }; done
[[ -r $keys ]] || { echo "bench-cli: cannot read $keys" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# CPU ms (user + sys of the children) of running "$@" with its output discarded.
cpu_ms() {
  local t0 t1
  t0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
  "$@" >/dev/null 2>&1
  t1=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
  echo $(((t1 - t0) * 1000 / $(getconf CLK_TCK)))
}

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

cat "$keys" >/dev/null # the file comes from the page cache in every run
"$cli" build -o "$tmp/f.bb" "$keys" 2>/dev/null
: >"$tmp/build" >"$tmp/query" >"$tmp/rbuild" >"$tmp/rquery"
for ((i = 0; i < reps; i++)); do
  cpu_ms "$cli" build -o "$tmp/g.bb" "$keys" >>"$tmp/build"
  cpu_ms "$cli" query -c "$tmp/f.bb" "$keys" >>"$tmp/query"
  line=$("$ref" "$keys")
  awk '{for (i = 1; i < NF; i++) if ($i == "build_ms") print $(i + 1)}' <<<"$line" >>"$tmp/rbuild"
  awk '{for (i = 1; i < NF; i++) if ($i == "query_ms") print $(i + 1)}' <<<"$line" >>"$tmp/rquery"
done
for c in build query; do
  m=$(median <"$tmp/$c")
  r=$(median <"$tmp/r$c")
  awk -v c="$c" -v m="$m" -v r="$r" 'BEGIN {printf "%-6s cli %6.0f ms  reference %6.0f ms  ratio %.2f (target <= 1.3)\n", c, m, r, m / r}'
done
