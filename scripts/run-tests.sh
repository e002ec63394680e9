#!/usr/bin/env bash
# Installs what is missing, builds blockbloom with its tests and runs them all (CTest, two
# jobs). This is the README's test command and what .ci/run calls.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBB_BUILD_TESTS=ON >/dev/null
cmake --build build-test -j2
ctest --test-dir build-test --output-on-failure -j2
