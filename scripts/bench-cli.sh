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
set -euo pipefail
cd "$(dirname "$0")/.."
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
