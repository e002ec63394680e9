#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python stage of scripts/run-tests.sh: builds the package blockbloom from this tree
# (CMake option BB_BUILD_PYTHON: the extension linked against the static library), installs
# it with `cmake --install` into a temporary site directory (the rules scripts/install-python.sh
# uses), checks that Debian's /usr/bin/python3 imports it from there, and runs the pytest
# suite python/tests on that interpreter with numpy. pytest's exit status 5 (no test
# collected) is a failure, so an emptied or mis-pointed run cannot pass. Then the same suite
# once more on a Debug build under AddressSanitizer + UndefinedBehaviorSanitizer (the
# sanitizer runtimes preloaded into /usr/bin/python3; leak detection off, CPython itself
# keeps memory at exit), without the two RSS-growth tests, which ASan's quarantine defeats.
# About a minute.
#   scripts/test-python.sh [PYTEST-ARGS...]
# BB_BUILD_PREFIX (default "build-") prefixes the build directory.
set -euo pipefail
cd "$(dirname "$0")/.."
py=/usr/bin/python3
scripts/setup.sh python3-dev python3-numpy python3-pytest redis-server libhiredis-dev # redis: test_redis.py
dir=${BB_BUILD_PREFIX:-build-}python
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_SHARED_LIBS=OFF \
  -DBB_BUILD_PYTHON=ON -DBB_BUILD_TESTS=OFF -DBB_BUILD_BENCH=OFF -DBB_BUILD_CLI=OFF \
  -DBB_BUILD_PARQUET=OFF -DPython3_EXECUTABLE="$py" -DBB_PYTHON_INSTALL_DIR="$site" >/dev/null
cmake --build "$dir" -j2 >/dev/null
cmake --install "$dir" --component python >/dev/null
(cd / && PYTHONPATH="$site" "$py" -c 'import sys, blockbloom
assert blockbloom.__file__.startswith(sys.argv[1]), blockbloom.__file__' "$site")
# run_pytest SITE [PYTEST-ARGS...]: pytest on the package installed in SITE.
run_pytest() {
  local at=$1 status=0
  shift
  PYTHONPATH="$at" "$py" -m pytest -q -p no:cacheprovider python/tests "$@" || status=$?
  if ((status == 5)); then
    echo "test-python: pytest collected no tests" >&2
    return 1
  fi
  return $status
}
run_pytest "$site" "$@"

asan_dir=${dir}-asan
asan_site=$site/asan
cmake -S . -B "$asan_dir" -DCMAKE_BUILD_TYPE=Debug -DBUILD_SHARED_LIBS=OFF \
  -DBB_BUILD_PYTHON=ON -DBB_BUILD_TESTS=OFF -DBB_BUILD_BENCH=OFF -DBB_BUILD_CLI=OFF \
  -DBB_BUILD_PARQUET=OFF -DBB_SANITIZE=address,undefined -DPython3_EXECUTABLE="$py" \
  -DBB_PYTHON_INSTALL_DIR="$asan_site" >/dev/null
cmake --build "$asan_dir" -j2 >/dev/null
cmake --install "$asan_dir" --component python >/dev/null
echo "test-python: again under ASan + UBSan" >&2
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)" \
  run_pytest "$asan_site" -k "not do_not_grow_rss and not do_not_leak" "$@"
