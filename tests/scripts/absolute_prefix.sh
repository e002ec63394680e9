#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# absolute_prefix.sh - the scripts take an absolute BB_BUILD_PREFIX (they once built the
# program's path as $PWD/$dir and so pointed at "$PWD//tmp/..."). Runs the cheapest step of
# scripts/stress-cli.sh (10M empty lines: build, info, query -c) with the build directory
# under a fresh temporary directory given by absolute path, and removes it on every exit.
#   tests/scripts/absolute_prefix.sh SOURCE_DIR
set -euo pipefail
cd "$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
BB_BUILD_PREFIX="$tmp/build-" scripts/stress-cli.sh empty
[[ -x $tmp/build-stress/blockbloom ]] || { echo "absolute_prefix: no build under $tmp" >&2; exit 1; }
echo "absolute_prefix: passed" >&2
