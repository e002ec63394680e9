# SPDX-License-Identifier: MIT
"""The Python examples of README.md and docs/PYTHON.md run as written: every ```python block
is saved as a script and run by this interpreter in an empty directory, one process each
(so each block must stand alone, as a reader pastes it). Lines "#> TEXT" in a block are its
output, as in the README's shell examples: the script's standard output must be exactly
those lines. A block right after a line "<!-- not run: REASON -->" is skipped (the Arrow
example needs pyarrow, which Debian 12 does not package); at least one block of each file
must run, so an emptied or renamed section fails here."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
BLOCK = re.compile(r"^(<!-- not run: [^\n]*-->\n)?```python\n(.*?)^```$", re.S | re.M)
MIN_BLOCKS = {"README.md": 1, "docs/PYTHON.md": 3}


def blocks(doc):
    with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
        text = f.read()
    return [(i, code) for i, (skip, code) in enumerate(BLOCK.findall(text)) if not skip]


CASES = [(doc, i, code) for doc in MIN_BLOCKS for i, code in blocks(doc)]


def test_each_document_has_runnable_examples():
    for doc, least in MIN_BLOCKS.items():
        assert len(blocks(doc)) >= least, doc


@pytest.mark.parametrize("doc,index,code", CASES, ids=["%s-%d" % (d, i) for d, i, _ in CASES])
def test_example_runs_as_written(doc, index, code, tmp_path):
    want = "".join(line[3:] + "\n" if line.startswith("#> ") else "\n"
                   for line in code.splitlines() if line.startswith("#>"))
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, "%s block %d failed:\n%s\n%s" % (doc, index, code, out.stderr)
    if want:
        assert out.stdout == want, "%s block %d printed:\n%s" % (doc, index, out.stdout)
