# SPDX-License-Identifier: MIT
"""The Python examples of README.md and of docs/ (PYTHON.md and any other document with one) run as
written: every ```python block is saved as a script and run by this interpreter in an empty
directory, one process each (so each block must stand alone, as a reader pastes it). Lines "#>
TEXT" in a block are its output, as in the README's shell examples: the script's standard output
must be exactly those lines. A block right after a line "<!-- not run: REASON -->" is skipped
(the Arrow example needs pyarrow, which Debian 12 does not package); at least one block of each
file must run, so an emptied or renamed section fails here. A block right after "<!-- needs
redis-server -->" runs on a redis-server started for it on a free loopback port, which replaces
the block's 127.0.0.1:6379 (skipped when redis-server is not installed or the package was built
without hiredis)."""
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
BLOCK = re.compile(r"^(<!-- (?:not run: [^\n]*|needs redis-server) -->\n)?```python\n(.*?)^```$",
                   re.S | re.M)
MIN_BLOCKS = {"README.md": 1, "docs/PYTHON.md": 3}
# Any other document of docs/ with a ```python block runs too.
for _name in sorted(os.listdir(os.path.join(ROOT, "docs"))):
    _doc = "docs/" + _name
    if _name.endswith(".md") and _doc not in MIN_BLOCKS:
        with open(os.path.join(ROOT, _doc), encoding="utf-8") as _f:
            if "\n```python\n" in _f.read():
                MIN_BLOCKS[_doc] = 1


def blocks(doc):
    with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
        text = f.read()
    return [(i, code, bool(mark)) for i, (mark, code) in enumerate(BLOCK.findall(text))
            if not mark.startswith("<!-- not run")]


CASES = [(doc, i, code, redis) for doc in MIN_BLOCKS for i, code, redis in blocks(doc)]


def test_each_document_has_runnable_examples():
    for doc, least in MIN_BLOCKS.items():
        assert len(blocks(doc)) >= least, doc


def redis_server(tmp_path):
    """A redis-server on a free loopback port, as a (process, port) pair; None without one."""
    try:
        import blockbloom.redis  # noqa: F401
    except ImportError:
        return None
    if not shutil.which("redis-server"):
        return None
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                          "--dir", tempfile.mkdtemp(dir=tmp_path), "--save", ""],
                         stdout=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return p, port
        except OSError:
            time.sleep(0.05)
    p.kill()
    p.wait()
    raise RuntimeError("redis-server on port %d did not start" % port)


@pytest.mark.parametrize("doc,index,code,redis", CASES,
                         ids=["%s-%d" % (d, i) for d, i, _, _ in CASES])
def test_example_runs_as_written(doc, index, code, redis, tmp_path):
    server = None
    if redis:
        server = redis_server(tmp_path)
        if server is None:
            pytest.skip("needs redis-server and a package built with hiredis")
        code = code.replace("127.0.0.1:6379", "127.0.0.1:%d" % server[1])
    try:
        run_example(doc, index, code, tmp_path)
    finally:
        if server:
            server[0].terminate()
            server[0].wait()


def run_example(doc, index, code, tmp_path):
    want = "".join(line[3:] + "\n" if line.startswith("#> ") else "\n"
                   for line in code.splitlines() if line.startswith("#>"))
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, "%s block %d failed:\n%s\n%s" % (doc, index, code, out.stderr)
    if want:
        assert out.stdout == want, "%s block %d printed:\n%s" % (doc, index, out.stdout)
