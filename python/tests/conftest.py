# SPDX-License-Identifier: MIT
"""pytest configuration of the blockbloom package tests: the package under test is the one
installed for the interpreter that runs pytest (scripts/test-python.sh runs the suite from
outside the tree, so python/blockbloom is never imported by accident; with
BB_EXPECT_PACKAGE_IN set, a package imported from anywhere else stops the run), and this
directory's helpers (arrow_hand, duckdb_arrow) are importable."""
import os
import sys

import blockbloom

sys.path.insert(0, os.path.dirname(__file__))

_where = os.environ.get("BB_EXPECT_PACKAGE_IN")
if _where and not blockbloom.__file__.startswith(_where):
    raise SystemExit("blockbloom imported from %s, not from %s" % (blockbloom.__file__, _where))
