#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The packet benchmark (docs/NETWORK.md, not CI): builds Release, writes a capture of
# PACKETS Ethernet frames and RANGES random CIDR ranges (bench/pcap-bench.c, fixed seed),
# builds the CIDR filter with `blockbloom build --keys cidr`, reads the capture once so it is
# in the page cache, then times libpcap's read loop alone against
# `blockbloom query --pcap CAPTURE --match any|src -c FILTER`, ROUNDS times each, and prints the
# medians of CPU and wall time.
#   scripts/pcap-bench.sh [PACKETS (default 4000000)] [RANGES (default 1000000)] [ROUNDS (5)]
# Files go to a temporary directory (removed at exit); BB_BUILD_PREFIX prefixes the build dir.
set -euo pipefail
cd "$(dirname "$0")/.."
packets=${1:-4000000}
ranges=${2:-1000000}
rounds=${3:-5}
dir=${BB_BUILD_PREFIX:-build-}release
scripts/setup.sh
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DBB_BUILD_TESTS=OFF >/dev/null
cmake --build "$dir" -j2 --target blockbloom_cli pcap-bench >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$dir/bench/pcap-bench" gen "$tmp/cap.pcap" "$tmp/ranges.txt" "$packets" "$ranges" 42
"$dir/blockbloom" build --keys cidr -o "$tmp/ranges.bbf" "$tmp/ranges.txt"
cat "$tmp/cap.pcap" >/dev/null
echo "capture: $(du -h "$tmp/cap.pcap" | cut -f1), CPU: $(lscpu | sed -n 's/^Model name: *//p'), kernel: $("$dir/blockbloom" info "$tmp/ranges.bbf" | sed -n 's/^isa: //p')"
for match in any src; do
  "$dir/bench/pcap-bench" time "$tmp/cap.pcap" "$tmp/ranges.bbf" "$dir/blockbloom" "$match" "$rounds"
done
