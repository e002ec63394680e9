# SPDX-License-Identifier: MIT
"""The package and the command-line tool write the same file for the same keys, kind, size
and seed, byte for byte (so a filter built by either is read by the other), from a list of
str and from a numpy S array. The tool is the one named by BB_CLI, which
scripts/test-python.sh sets to the tree's freshly built `blockbloom`."""
import os
import subprocess

import numpy as np
import pytest

from blockbloom import Filter

CLI = os.environ.get("BB_CLI")
pytestmark = pytest.mark.skipif(not CLI, reason="BB_CLI (the blockbloom program) is not set")

KEYS = ["key-%d" % i for i in range(5000)] + ["", "ümlaut", "x" * 300]


@pytest.mark.parametrize("kind", ["blocked", "classic", "counting", "scalable", "split"])
@pytest.mark.parametrize("seed", [0, 7, 2**64 - 1])
def test_same_file_as_the_cli(kind, seed, tmp_path):
    keys = tmp_path / "keys.txt"
    keys.write_bytes("".join(k + "\n" for k in KEYS).encode())
    out = tmp_path / "cli.bb"
    subprocess.run([CLI, "build", "--kind", kind, "-n", "6000", "-p", "0.001",
                    "--seed", str(seed), "-o", str(out), str(keys)],
                   check=True, capture_output=True)
    want = out.read_bytes()
    f = Filter(6000, fpr=0.001, kind=kind, seed=seed)
    f.add_many(KEYS)
    f.save(tmp_path / "py.bb")
    assert (tmp_path / "py.bb").read_bytes() == want
    g = Filter(6000, fpr=0.001, kind=kind, seed=seed)
    g.add_many(np.array([k.encode() for k in KEYS], dtype="S"))  # b"" is the empty key
    assert bytes(g) == want
    assert Filter.open(out).contains_many(KEYS).all()
