#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Python package blockbloom with pip from this tree: the Debian packages the
# build needs (python3-dev, python3-venv, python3-pip, python3-setuptools, python3-wheel,
# cmake and the library's; python3-numpy, optional at run time), then
# `PYTHON -m pip install --no-build-isolation .` (offline: the installed setuptools builds
# it, nothing is downloaded). PYTHON is the active virtualenv's interpreter, or Debian's
# /usr/bin/python3, for which pip installs into /usr/local/lib/python3.11/dist-packages
# (PEP 668 asks for --break-system-packages there; run as root). Extra arguments go to pip.
#   scripts/install-python.sh [PIP-ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh python3-dev python3-venv python3-pip python3-setuptools python3-wheel python3-numpy
if [[ -n ${VIRTUAL_ENV:-} ]]; then
  py=$VIRTUAL_ENV/bin/python
  extra=()
else
  py=/usr/bin/python3
  extra=(--break-system-packages)
fi
"$py" -m pip install --no-build-isolation --no-index "${extra[@]}" "$@" .
(cd / && "$py" -c "import blockbloom; print('blockbloom', blockbloom.__version__, 'installed in', blockbloom.__file__.rsplit('/', 1)[0])")
