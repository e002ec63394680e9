#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Python package blockbloom for Debian's /usr/bin/python3: the one command of the
# docs/PYTHON.md. Installs the Debian packages the build needs when missing
# (python3-dev; python3-numpy, optional at run time, for numpy results), builds the
# extension against the static library with CMake (nothing is downloaded), and installs it
# into DIR, by default the interpreter's site directory for local installs
# (/usr/local/lib/python3.11/dist-packages on Debian 12). Run as root for the default DIR.
# Afterwards `/usr/bin/python3 -c "import blockbloom"` works from anywhere.
#   scripts/install-python.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
py=/usr/bin/python3
scripts/setup.sh python3-dev python3-numpy
dest=${1:-$("$py" -c "import sysconfig; print(sysconfig.get_path('platlib'))")}
dir=build-python-install
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DBB_BUILD_PYTHON=ON \
  -DBB_BUILD_TESTS=OFF -DBB_BUILD_BENCH=OFF -DBB_BUILD_CLI=OFF -DBB_BUILD_PARQUET=OFF -DPython3_EXECUTABLE="$py" \
  -DBB_PYTHON_INSTALL_DIR="$dest" >/dev/null
cmake --build "$dir" -j2 >/dev/null
cmake --install "$dir" --component python
(cd / && PYTHONPATH="${1:-}" "$py" -c "import blockbloom; print('blockbloom', blockbloom.__version__, 'installed in', blockbloom.__file__.rsplit('/', 1)[0])")
