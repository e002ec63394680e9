#!/usr/bin/env bash
# The Python stage of scripts/run-tests.sh: builds the package blockbloom from this tree
# (CMake option BB_BUILD_PYTHON: the extension linked against the static library), installs
# it with `cmake --install` into a temporary site directory (the rules scripts/install-python.sh
# uses), checks that Debian's /usr/bin/python3 imports it from there, and runs the pytest
# suite python/tests on that interpreter with numpy. pytest's exit status 5 (no test
# collected) is a failure, so an emptied or mis-pointed run cannot pass. About 30 s.
#   scripts/test-python.sh [PYTEST-ARGS...]
# BB_BUILD_PREFIX (default "build-") prefixes the build directory.
set -euo pipefail
cd "$(dirname "$0")/.."
py=/usr/bin/python3
scripts/setup.sh python3-dev python3-numpy python3-pytest
dir=${BB_BUILD_PREFIX:-build-}python
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_SHARED_LIBS=OFF \
  -DBB_BUILD_PYTHON=ON -DBB_BUILD_TESTS=OFF -DBB_BUILD_BENCH=OFF -DBB_BUILD_CLI=OFF \
  -DPython3_EXECUTABLE="$py" -DBB_PYTHON_INSTALL_DIR="$site" >/dev/null
cmake --build "$dir" -j2 >/dev/null
cmake --install "$dir" --component python >/dev/null
(cd / && PYTHONPATH="$site" "$py" -c 'import sys, blockbloom
assert blockbloom.__file__.startswith(sys.argv[1]), blockbloom.__file__' "$site")
status=0
PYTHONPATH="$site" "$py" -m pytest -q -p no:cacheprovider python/tests "$@" || status=$?
if ((status == 5)); then
  echo "test-python: pytest collected no tests" >&2
  exit 1
fi
exit $status
