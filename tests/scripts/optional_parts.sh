#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# optional_parts.sh - the optional parts (Parquet's codecs, libidn2) turn themselves off when
# their libraries are missing, with one line naming the Debian package, instead of stopping
# the configuration. CMake's own CMAKE_DISABLE_FIND_PACKAGE_<name> stands in for a machine
# without them; configuring (no build) is enough to show it.
#   tests/scripts/optional_parts.sh SOURCE-DIR
set -euo pipefail
src=$1
fail() { echo "optional_parts: FAILED: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake -S "$src" -B "$tmp/b" -DBB_BUILD_TESTS=OFF -DBB_BUILD_BENCH=OFF -DBB_BUILD_REDIS=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_ParquetCodecs=ON -DCMAKE_DISABLE_FIND_PACKAGE_Idn2=ON \
  >"$tmp/out" 2>&1 || fail "configure stopped: $(tail -5 "$tmp/out")"
grep -q "blockbloom: Parquet support .* not built: its page codecs are missing; install Debian's .*libsnappy-dev.*, or pass -DBB_BUILD_PARQUET=OFF" "$tmp/out" ||
  fail "no line about the Parquet codecs: $(cat "$tmp/out")"
grep -q "blockbloom: libidn2 not found, .* install Debian's libidn2-dev, or pass -DBB_WITH_IDN2=OFF" "$tmp/out" ||
  fail "no line about libidn2: $(cat "$tmp/out")"
targets=$(cmake --build "$tmp/b" --target help)
grep -q blockbloom_cli <<<"$targets" || fail "the CLI is not built without the optional parts"
! grep -q blockbloom_parquet <<<"$targets" || fail "libblockbloom_parquet is still a target"
grep -q "BB_WITH_IDN2" "$tmp/b/CMakeCache.txt" || fail "no BB_WITH_IDN2 in the cache"
echo "optional_parts: passed" >&2
