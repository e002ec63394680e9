# SPDX-License-Identifier: MIT
"""pytest configuration of the blockbloom package tests: the package under test is the one
on sys.path (scripts/test-python.sh installs the fresh build into a temporary directory and
puts it first), and this directory's helpers (arrow_hand) are importable."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
