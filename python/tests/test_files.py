# SPDX-License-Identifier: MIT
"""Files, bytes and pickling: save/load/open (read-only mmap) round trips for every stored
kind, bytes(f) / Filter.frombytes, pickle (also of a mapped filter, which comes back as a heap
copy), and a saved filter shared by worker processes through mmap: each worker maps the same
file (seen in its /proc/self/maps), answers from it, and cannot change it."""
import multiprocessing as mp
import os
import pickle

import numpy as np
import pytest

from blockbloom import Filter

KINDS = ("blocked", "classic", "counting", "scalable", "split", "sectorized")


def filled(kind, n=3000):
    f = Filter(n, 0.01, kind=kind, seed=21)
    f.add_many(["key-%d" % i for i in range(n)])
    return f


@pytest.mark.parametrize("kind", KINDS)
def test_save_load_open_bytes_pickle(kind, tmp_path):
    f = filled(kind)
    p = tmp_path / "f.bb"
    f.save(p)
    data = bytes(f)
    assert p.read_bytes() == data
    for g in (Filter.load(p), Filter.load(str(p)), Filter.open(p), Filter.frombytes(data),
              Filter.frombytes(memoryview(data)), pickle.loads(pickle.dumps(f))):
        assert bytes(g) == data and g.info()["kind"] == kind
        assert g.contains_many(["key-%d" % i for i in range(3000)]).all()
    m = Filter.open(p)
    assert m.info()["read_only"]
    with pytest.raises(ValueError, match="read-only"):
        m.add("new")
    with pytest.raises(ValueError, match="read-only"):
        m.add_many(["new"])
    c = pickle.loads(pickle.dumps(m, protocol=pickle.HIGHEST_PROTOCOL))
    assert not c.info()["read_only"] and bytes(c) == data
    c.add("new")  # the unpickled copy is writable; the file did not change
    assert p.read_bytes() == data


def test_save_is_atomic_and_errors_are_oserrors(tmp_path):
    f = filled("blocked", 100)
    with pytest.raises(IsADirectoryError):
        f.save(tmp_path)
    with pytest.raises(FileNotFoundError):
        f.save(tmp_path / "missing" / "f.bb")
    assert os.listdir(tmp_path) == []  # no temporary file left behind
    with pytest.raises(ValueError, match="not a blockbloom filter"):
        (tmp_path / "junk").write_bytes(b"junk" * 100)
        Filter.open(tmp_path / "junk")


def _worker(path, conn):
    f = Filter.open(path)
    maps = open("/proc/self/maps").read()
    answers = f.contains_many(np.array([b"key-%d" % i for i in range(0, 3000, 7)], dtype="S12"))
    try:
        f.add("x")
        writable = True
    except ValueError:
        writable = False
    conn.send((str(path) in maps, bool(answers.all()), f.info()["read_only"], writable,
               "absent" in f))


def test_workers_share_one_mapped_file(tmp_path):
    p = tmp_path / "shared.bb"
    filled("blocked").save(p)
    ctx = mp.get_context("spawn")  # fresh interpreters: nothing inherited from this one
    results = []
    for _ in range(3):
        a, b = ctx.Pipe()
        w = ctx.Process(target=_worker, args=(p, b))
        w.start()
        results.append(a.recv())
        w.join(30)
        assert w.exitcode == 0
    for mapped, found, read_only, writable, absent in results:
        assert mapped and found and read_only and not writable and not absent
