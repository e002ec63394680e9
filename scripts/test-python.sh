#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python stage of scripts/run-tests.sh: the package as a user installs it, on Debian's
# /usr/bin/python3 (a `python3` on PATH may be another interpreter), offline:
#   1. `pip install --no-build-isolation --no-index .` into a fresh
#      `venv --system-site-packages` (numpy, pandas and pytest come from Debian), then
#      `import blockbloom` from another directory must find it in that virtualenv;
#   2. the pytest suite python/tests on it, run from outside the tree (exit status 5, no
#      test collected, is a failure), with BB_CLI set so that the files the package writes
#      are compared byte for byte with those of the tree's `blockbloom build`, and
#      BB_LIBDUCKDB so that the Arrow tests read DuckDB's own exports;
#   3. `python3 -m build --no-isolation`: a source distribution, and a wheel built from it
#      (so the sdist is complete), which must hold the extension and no path of this
#      machine (unzip -l, strings), installed into a second virtualenv, where the suite
#      runs again;
#   4. the suite once more on a Debug build of the extension and library under
#      AddressSanitizer + UndefinedBehaviorSanitizer (CMake's -DBB_BUILD_PYTHON=ON; the
#      sanitizer runtimes preloaded into /usr/bin/python3; leak detection off, CPython itself
#      keeps memory at exit), without the two RSS-growth tests, which ASan's quarantine
#      defeats. That build also makes the CLI of step 2.
# A few minutes on 2 cores (three builds of the library).
#   scripts/test-python.sh [PYTEST-ARGS...]
# BB_BUILD_PREFIX (default "build-") prefixes the CMake build directory.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
py=/usr/bin/python3
scripts/setup.sh python3-dev python3-numpy python3-pytest python3-pandas python3-venv \
  python3-pip python3-setuptools python3-wheel python3-build \
  unzip redis-server libhiredis-dev # unzip: the wheel check; redis: test_redis.py
scripts/setup-duckdb.sh
export BB_LIBDUCKDB=$root/build-oracle/node_modules/@duckdb/node-bindings-linux-x64/libduckdb.so
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The ASan build first: it also makes the CLI that step 2 compares files with.
asan_dir=$(realpath -m "${BB_BUILD_PREFIX:-build-}python-asan")
asan_site=$work/asan
cmake -S . -B "$asan_dir" -DCMAKE_BUILD_TYPE=Debug -DBUILD_SHARED_LIBS=OFF \
  -DBB_BUILD_PYTHON=ON -DBB_BUILD_TESTS=OFF -DBB_BUILD_BENCH=OFF -DBB_BUILD_CLI=ON \
  -DBB_BUILD_PARQUET=OFF -DBB_SANITIZE=address,undefined -DPython3_EXECUTABLE="$py" \
  -DBB_PYTHON_INSTALL_DIR="$asan_site" >/dev/null
cmake --build "$asan_dir" >/dev/null
cmake --install "$asan_dir" --component python >/dev/null
export BB_CLI=$asan_dir/blockbloom

# run_pytest PYTHON [PYTEST-ARGS...]: the suite from outside the tree.
run_pytest() {
  local python=$1 status=0
  shift
  (cd "$work" && "$python" -m pytest -q -p no:cacheprovider "$root/python/tests" "$@") || status=$?
  if ((status == 5)); then
    echo "test-python: pytest collected no tests" >&2
    return 1
  fi
  return $status
}
# imported_from PYTHON DIR: PYTHON, started outside the tree, imports blockbloom from DIR.
imported_from() {
  (cd "$work" && "$1" -c 'import sys, blockbloom
assert blockbloom.__file__.startswith(sys.argv[1]), blockbloom.__file__' "$2")
}

echo "test-python: pip install . into a fresh virtualenv" >&2
"$py" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install -q --no-build-isolation --no-index "$root"
imported_from "$work/venv/bin/python" "$work/venv/lib/"
BB_EXPECT_PACKAGE_IN=$work/venv/lib/ run_pytest "$work/venv/bin/python" "$@"

echo "test-python: python3 -m build; the wheel into a second virtualenv" >&2
"$py" -m build --no-isolation --outdir "$work/dist" "$root" >"$work/build.log" 2>&1 ||
  { cat "$work/build.log" >&2; exit 1; }
wheel=$(ls "$work"/dist/blockbloom-*.whl)
ls "$work"/dist/blockbloom-*.tar.gz >/dev/null
listing=$(unzip -l "$wheel")
for f in blockbloom/__init__.py blockbloom/_core.pyi blockbloom/py.typed \
  "blockbloom/_core.$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("SOABI"))').so"; do
  grep -qF " $f" <<<"$listing" || { echo "test-python: $f missing from $wheel" >&2; exit 1; }
done
mkdir "$work/unzipped"
(cd "$work/unzipped" && unzip -q "$wheel")
for p in "$root" "$HOME" /tmp/ "$work"; do
  if strings -a -n 4 $(find "$work/unzipped" -type f) | grep -qF "$p"; then
    echo "test-python: the wheel holds the build machine's path $p" >&2
    exit 1
  fi
done
"$py" -m venv --system-site-packages "$work/venv2"
"$work/venv2/bin/python" -m pip install -q --no-index "$wheel"
imported_from "$work/venv2/bin/python" "$work/venv2/lib/"
BB_EXPECT_PACKAGE_IN=$work/venv2/lib/ run_pytest "$work/venv2/bin/python" "$@"

echo "test-python: again under ASan + UBSan" >&2
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)" \
  PYTHONPATH="$asan_site" BB_EXPECT_PACKAGE_IN=$asan_site \
  run_pytest "$py" -k "not do_not_grow_rss and not do_not_leak" "$@"
