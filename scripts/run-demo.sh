#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what is missing (with Debian's nodejs and npm unless an npm is on PATH), builds
# blockbloom in Release, fetches the npm package-name list (skipped with a message if the
# registry is unreachable) and runs the main job, `blockbloom demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh nodejs npm
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBB_BUILD_TESTS=OFF >/dev/null
cmake --build build -j2 >/dev/null
scripts/fetch-npm-names.sh || echo "run-demo: npm names not fetched; the demo runs part 1 only" >&2
build/blockbloom demo "$@"
