#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Renders the benchmark's JSON (bench/blockbloom-bench --json) as a PNG with two panels,
# ns per key against filter size (log-log), one line per series:
#   left:  batch contains of pre-hashed keys - every blocked kernel, classic, the 2-thread
#          series (aggregate ns per key) and the line-read floor;
#   right: batch contains of string keys - blocked, classic, libbloom (its bloom_check loop),
#          the XXH3 floor and the sum of both floors.
# The x value of a size is the blocked filter's size (classic and libbloom are ~4% smaller).
# Installs gnuplot-nox and jq (Debian) if they are missing.
#   scripts/plot-bench.sh [docs/bench/zen4.json] [docs/bench/zen4.png]
set -euo pipefail
cd "$(dirname "$0")/.."
json=${1:-docs/bench/zen4.json}
png=${2:-docs/bench/zen4.png}

scripts/setup.sh gnuplot-nox jq
[[ -s $json ]] || { echo "plot-bench: $json not found (run blockbloom-bench --json $json)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# x of every size: the blocked filter's bytes in MiB (the line floor's array has that size).
xsize='(.series | map(select(.name == "floor-line" or (.name | test("^blocked-[a-z0-9]+$")))) | map(.bytes // empty) | first) / 1048576'

# One file per (metric, series): "x value" lines, sizes where the series was measured.
series_file() { # metric name -> path, or nothing if the series has no such number
  local f="$tmp/$1.$2.dat"
  jq -r --arg m "$1" --arg n "$2" ".sizes[] | ($xsize) as \$x | .series[] | select(.name == \$n)
      | .ns_per_key[\$m] // empty | [\$x, .] | @tsv" "$json" >"$f"
  [[ -s $f ]] && echo "$f"
}

names=$(jq -r '[.sizes[].series[].name] | unique | .[]' "$json")
kernel=$(jq -r '.kernel' "$json")

# Sum of both floors per size, for the string-key panel.
jq -r ".sizes[] | ($xsize) as \$x
    | [(.series[] | select(.name == \"floor-xxh3\") | .ns_per_key.batch_str),
       (.series[] | select(.name == \"floor-line\") | .ns_per_key.batch_hash)]
    | select(length == 2 and all(. != null)) | [\$x, add] | @tsv" "$json" >"$tmp/floorsum.dat"

plots() { # metric -> gnuplot plot clauses for every series with that metric
  local metric=$1 out=() f title style
  for name in $names; do
    f=$(series_file "$metric" "$name") || continue
    title=$name
    style="lw 2 pt 7"
    case $name in
      floor-*) style="lw 2 dt 2 pt 6" ;;
      *-x[0-9]*) title="$name (aggregate)"; style="lw 1.5 dt 4 pt 5" ;;
      "blocked-$kernel") style="lw 3 pt 7" ;;
    esac
    out+=("'$f' using 1:2 with linespoints $style title '$title'")
  done
  if [[ $metric == batch_str && -s $tmp/floorsum.dat ]]; then
    out+=("'$tmp/floorsum.dat' using 1:2 with linespoints lw 2 dt 3 pt 6 title 'floor-xxh3 + floor-line'")
  fi
  local IFS=,
  echo "${out[*]}"
}

machine=$(jq -r '"\(.machine.cpu), L2 \(.machine.l2_bytes / 1048576) MiB, LLC \(.machine.llc_bytes / 1048576) MiB, THP \(.machine.thp); p = \(.config.fpr), keys: \(.config.keys | split("/") | last)"' "$json")

gnuplot <<EOF
set terminal pngcairo size 1500,620 font "sans,10"
set output "$png"
set multiplot layout 1,2 title "blockbloom benchmark: ns per key vs filter size (median of $(jq .config.reps "$json") repetitions)\n$machine"
set logscale xy
set xlabel "filter size (MiB, blocked filter)"
set ylabel "ns per key"
set grid xtics ytics mxtics mytics
set key top left box opaque font ",9"
set title "batch contains, pre-hashed 64-bit keys (50/50 present/absent)"
plot $(plots batch_hash)
set title "batch contains, string keys (50/50 present/absent)"
plot $(plots batch_str)
unset multiplot
EOF
echo "plot-bench: wrote $png" >&2
